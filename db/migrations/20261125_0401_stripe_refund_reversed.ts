// A Stripe refund that fails or is cancelled after its credits were taken back (README "Payments
// (Stripe)"): the credits are given back once, and `reversed_at` records that they were.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('stripe_refunds', (t) => {
    t.bigInteger('reversed_at').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('stripe_refunds', (t) => {
    t.dropColumn('reversed_at');
  });
}
