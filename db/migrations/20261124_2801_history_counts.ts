// The run history's exact count without walking the owner's whole index (README "Run history,
// gallery and review", db/history-count.ts): per owner, how many visible (not bulk-deleted)
// predictions were created before `checkpoint`. Rows after it are counted live from the history
// index. The submit path never writes here; reads advance the checkpoint, bulk deletes decrement.
// `owner_key` is `u:<user id>` (personal) or `t:<team id>`: one string key, since a unique key
// over a nullable team_id would not deduplicate on MariaDB.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('prediction_history_counts', (t) => {
    t.string('owner_key', 32).primary();
    t.bigInteger('visible').notNullable().defaultTo(0);
    t.bigInteger('checkpoint').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('prediction_history_counts');
}
