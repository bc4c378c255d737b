// Failover (README "Providers"): a model may list several providers, and the worker submits to
// the first that is configured, not shut off by its circuit breaker, and accepts the job. Which
// provider ran a prediction is `upstream_name` (migration 1001); which of that provider's models
// ran it is `upstream_model`, since each provider in the list names its own model id. Both are
// for operators (logs, metrics, the database), never shown to API users.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('predictions', (t) => {
    t.string('upstream_model', 191).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('predictions', (t) => {
    t.dropColumn('upstream_model');
  });
}
