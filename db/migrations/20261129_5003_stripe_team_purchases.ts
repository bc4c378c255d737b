// Buying credit for a team (createCheckoutSession with team_id, docs/api/dashboard.md "Buying
// credit"): a purchase and its refunds name the wallet they moved, the team's or (null) the
// buyer's own, so a refund takes the credits back from the wallet that got them; and a team has
// its own Stripe customer, so its invoices, subscription and billing portal are the team's.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('stripe_payments', (t) => {
    t.integer('team_id').unsigned().nullable();
    t.index(['team_id', 'id']);
  });
  await knex.schema.alterTable('stripe_refunds', (t) => {
    t.integer('team_id').unsigned().nullable();
  });
  await knex.schema.alterTable('teams', (t) => {
    t.string('stripe_customer_id', 255).nullable();
    t.index(['stripe_customer_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  // ALTER TABLE ... DROP COLUMN, not knex's dropColumn: on SQLite knex rebuilds the table, and
  // dropping the old one with foreign keys on deletes every row that references it (ON DELETE CASCADE).
  await knex.schema.alterTable('teams', (t) => {
    t.dropIndex(['stripe_customer_id']);
  });
  await knex.raw('ALTER TABLE teams DROP COLUMN stripe_customer_id');
  await knex.raw('ALTER TABLE stripe_refunds DROP COLUMN team_id');
  await knex.schema.alterTable('stripe_payments', (t) => {
    t.dropIndex(['team_id', 'id']);
  });
  await knex.raw('ALTER TABLE stripe_payments DROP COLUMN team_id');
}
