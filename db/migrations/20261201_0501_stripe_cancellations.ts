// Stripe subscriptions the gateway decided must end (its wallet gone, its plan cancelled here, a
// plan activated by hand over it), one row per subscription (unique): an outbox. The row is
// written where that is decided and the cancel at Stripe is tried after the answer, then by the
// subscription job until Stripe has cancelled it (or reports it gone): `attempts`, the last
// failure, when to try next (doubling backoff) and when it was done. No foreign keys: like
// stripe_subscription_checkouts, a row outlives the account or team whose wallet it names.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('stripe_cancellations', (t) => {
    t.bigIncrements('id').primary();
    t.string('stripe_subscription_id', 255).notNullable().unique();
    t.integer('user_id').unsigned().notNullable();
    t.integer('team_id').unsigned().nullable();
    t.string('reason', 255).notNullable();
    t.bigInteger('created_at').notNullable();
    t.integer('attempts').unsigned().notNullable().defaultTo(0);
    t.string('last_error', 1000).nullable();
    // epoch ms; a claimed attempt moves it to when a retry is due, so another run leaves the row alone meanwhile
    t.bigInteger('next_attempt_at').notNullable();
    t.bigInteger('done_at').nullable();
    t.index(['done_at', 'next_attempt_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('stripe_cancellations');
}
