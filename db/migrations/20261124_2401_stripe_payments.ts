// Issue 11, the payment processor (Stripe): which Stripe customer an account is, every purchase
// that bought credit (one row per completed Checkout Session, so a webhook delivered twice
// credits once) and every refund of one (one row per Stripe refund id, so a refund made by
// adminStripeRefund and reported again by Stripe's webhook removes credit once). The credit moves
// themselves are ledger rows (`purchase`, `payment_refund`); these tables are the dedupe keys and
// the link from a Stripe charge to the credits it bought. No foreign keys: like the ledger and
// the audit log, these records outlive the account (README "Payments (Stripe)").
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    // set from a completed checkout's customer; null: looked up by email at Stripe
    t.string('stripe_customer_id', 255).nullable();
    t.index(['stripe_customer_id']);
  });
  await knex.schema.createTable('stripe_payments', (t) => {
    t.bigIncrements('id').primary();
    t.integer('user_id').unsigned().notNullable();
    t.string('checkout_session_id', 255).notNullable().unique();
    t.string('payment_intent_id', 255).nullable();
    t.string('customer_id', 255).nullable();
    // in the currency's minor unit (cents)
    t.bigInteger('amount').notNullable();
    t.string('currency', 8).notNullable();
    t.bigInteger('credits').notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['payment_intent_id']);
    t.index(['user_id', 'id']);
  });
  await knex.schema.createTable('stripe_refunds', (t) => {
    t.bigIncrements('id').primary();
    t.string('refund_id', 255).notNullable().unique();
    t.bigInteger('payment_id').unsigned().notNullable();
    t.string('charge_id', 255).notNullable();
    t.integer('user_id').unsigned().notNullable();
    t.bigInteger('amount').notNullable();
    t.string('currency', 8).notNullable();
    // credits this refund removed from the wallet
    t.bigInteger('credits').notNullable();
    // 'admin' (adminStripeRefund) or 'webhook' (a refund made elsewhere, reported by Stripe)
    t.string('source', 16).notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['payment_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('stripe_refunds');
  await knex.schema.dropTableIfExists('stripe_payments');
  await knex.schema.alterTable('users', (t) => {
    t.dropIndex(['stripe_customer_id']);
    t.dropColumn('stripe_customer_id');
  });
}
