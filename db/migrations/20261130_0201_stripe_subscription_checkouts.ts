// Every paid subscription Checkout Session the Stripe webhook has seen, one row per session
// (unique), with what became of it: `started` (it started the plan on its wallet) or `unapplied`
// (the wallet's plan was already active, typically a second checkout opened and paid in another
// tab: the customer paid and nothing was granted, so an operator refunds it or applies it by hand).
// The unique session id keeps a redelivery from being mistaken for another payment, and the Stripe
// subscription id keeps the portal events of an unapplied subscription off the wallet's plan.
// No foreign keys: like stripe_payments, these records outlive the account.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('stripe_subscription_checkouts', (t) => {
    t.bigIncrements('id').primary();
    t.string('checkout_session_id', 255).notNullable().unique();
    t.string('stripe_subscription_id', 255).nullable();
    t.string('customer_id', 255).nullable();
    t.integer('user_id').unsigned().notNullable();
    t.integer('team_id').unsigned().nullable();
    t.string('plan', 50).notNullable();
    // what Stripe charged, in the currency's minor unit
    t.bigInteger('amount').notNullable();
    t.string('currency', 8).notNullable();
    // 'started' | 'unapplied'
    t.string('outcome', 16).notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['stripe_subscription_id']);
    t.index(['user_id', 'id']);
    t.index(['outcome', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('stripe_subscription_checkouts');
}
