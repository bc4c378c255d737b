// The sweeper republishes requests `pending` for longer than PENDING_REPUBLISH_AFTER_MS (their
// queue message may be lost): (status, updated_at) lets it find them without scanning the table.
import type { Knex } from 'knex';

const INDEX = 'predictions_status_updated_at_index';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('predictions', (t) => {
    t.index(['status', 'updated_at'], INDEX);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('predictions', (t) => {
    t.dropIndex(['status', 'updated_at'], INDEX);
  });
}
