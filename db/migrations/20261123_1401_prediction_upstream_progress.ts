// What a provider says about a running job besides its status: its place in the provider's queue
// (fal reports it) and a progress fraction, when known. Both are shown on the prediction's event
// stream (README "Following a prediction") and cleared once the job leaves the state they describe.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('predictions', (t) => {
    t.integer('upstream_queue_position').nullable();
    // 0..1, as the provider reported it
    t.float('upstream_progress').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('predictions', (t) => {
    t.dropColumn('upstream_queue_position');
    t.dropColumn('upstream_progress');
  });
}
