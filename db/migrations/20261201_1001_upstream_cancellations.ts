// Provider jobs of an erased account's predictions that must still be stopped at their provider,
// one row per job (unique per provider): an outbox, as stripe_cancellations (migration 0501). The
// erasing transaction writes them with the rows it removes; the cancel is tried right after the
// commit, then by the subscription job until the provider has stopped the job, answers that it no
// longer knows it, or a day has passed. Nothing that names the person: the provider, its job id,
// the catalog model the job ran for (to find the provider's cancel), and the prediction id, an
// opaque id for the log lines. `outcome` says how a done row ended. No foreign keys: the
// prediction row is gone when this one is written.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('upstream_cancellations', (t) => {
    t.bigIncrements('id').primary();
    t.string('provider', 64).notNullable();
    t.string('upstream_job_id', 191).notNullable();
    t.string('model', 255).notNullable();
    t.string('prediction_id', 64).notNullable();
    t.bigInteger('created_at').notNullable();
    t.integer('attempts').unsigned().notNullable().defaultTo(0);
    t.string('last_error', 1000).nullable();
    // epoch ms; a claimed attempt moves it to when a retry is due, so another run leaves the row alone meanwhile
    t.bigInteger('next_attempt_at').notNullable();
    t.bigInteger('done_at').nullable();
    // cancelled | unknown (the provider no longer knows the job, or it had finished) | refused | unserved | gave_up
    t.string('outcome', 16).nullable();
    t.unique(['provider', 'upstream_job_id']);
    t.index(['done_at', 'next_attempt_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('upstream_cancellations');
}
