// An upstream prediction runs at the provider for minutes: the worker submits it once, then
// advances it by polling through delayed queue messages. The provider's job is recorded on the
// row as soon as the provider accepts it, so a worker that restarts resumes polling that job
// instead of submitting (and paying for) a second one. `upstream_polls` numbers the poll chain:
// a poll message carrying an older number is a stale copy and is dropped.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('predictions', (t) => {
    t.string('upstream_name', 64).nullable();
    t.string('upstream_job_id', 191).nullable();
    t.string('upstream_status', 32).nullable();
    t.integer('upstream_polls').notNullable().defaultTo(0);
    t.bigInteger('upstream_submitted_at').nullable();
    // a stable, machine-readable reason next to the human `error` (e.g. content_moderated)
    t.string('error_code', 64).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('predictions', (t) => {
    t.dropColumn('upstream_name');
    t.dropColumn('upstream_job_id');
    t.dropColumn('upstream_status');
    t.dropColumn('upstream_polls');
    t.dropColumn('upstream_submitted_at');
    t.dropColumn('error_code');
  });
}
