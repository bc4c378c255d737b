// Retention (README "Retention"): a prediction's output files are removed after
// OUTPUT_RETENTION_DAYS while its row stays, so the row records when (`outputs_expired_at`);
// the retention job's scan finds old completed rows through (status, completed_at). One row per
// scheduled job in `scheduled_jobs` is the lease that lets several workers run it once per
// period (a conditional UPDATE on `next_run_at`). The X-Request-Id of the submit is kept on the
// prediction (`http_request_id`, not the API's `request_id`, which is the prediction id), so
// messages the sweeper publishes again carry it too.
import type { Knex } from 'knex';

const INDEX = 'predictions_status_completed_at_index';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('predictions', (t) => {
    t.bigInteger('outputs_expired_at').nullable();
    // validated to <= 128 characters of A-Z a-z 0-9 . _ : - (lib/telemetry.ts isRequestId)
    t.string('http_request_id', 128).nullable();
    t.index(['status', 'completed_at'], INDEX);
  });
  await knex.schema.createTable('scheduled_jobs', (t) => {
    t.string('name', 64).primary();
    // epoch ms: the first worker to move this forward (conditionally) runs the job
    t.bigInteger('next_run_at').notNullable();
    t.string('holder', 64).nullable();
    t.bigInteger('last_started_at').nullable();
  });
  await knex('scheduled_jobs').insert({ name: 'retention', next_run_at: 0 });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('scheduled_jobs');
  await knex.schema.alterTable('predictions', (t) => {
    t.dropIndex(['status', 'completed_at'], INDEX);
    t.dropColumn('outputs_expired_at');
    t.dropColumn('http_request_id');
  });
}
