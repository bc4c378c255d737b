// Fewer index writes per status transition on MariaDB/MySQL (issue 15; README "Rate limits on
// generation"). The unfinished-prediction counts of a submit (per key, per account, per embed
// code) only ask whether a row is queued, pending or processing, yet their four indexes ended in
// `status`, so every transition (queued -> pending -> processing -> completed) rewrote an entry in
// each. They now end in `unfinished`, a virtual column that is 1 while the status is one of those
// three and 0 after: the entries are written when the row is inserted and once more when it
// finishes; queued -> pending -> processing (and a worker handing a row back to pending) leave
// them alone. MariaDB and MySQL have no partial indexes but index a virtual column, which stores
// nothing in the row; queries say `unfinished = 1` (db/unfinished.ts: MariaDB does not match an
// expression to a generated column's index).
// SQLite (the embedded default, one process) keeps its (…, status) indexes: knex drops or alters
// a SQLite column by copying the table, which a generated column breaks for every later migration.
import type { Knex } from 'knex';

/** [old index on status, new index on unfinished, their leading columns] */
const INDEXES: ReadonlyArray<[string, string, string[]]> = [
  ['predictions_api_key_status_index', 'predictions_api_key_unfinished_index', ['api_key_id']],
  ['predictions_owner_status_index', 'predictions_owner_unfinished_index', ['user_id', 'team_id']],
  ['predictions_team_status_index', 'predictions_team_unfinished_index', ['team_id']],
  ['predictions_embed_code_status_index', 'predictions_embed_code_unfinished_index', ['embed_code_id']],
];

const mysql = (knex: Knex) => knex.client.config.client === 'mysql2';

export async function up(knex: Knex): Promise<void> {
  if (!mysql(knex)) return;
  await knex.raw("ALTER TABLE predictions ADD COLUMN unfinished TINYINT GENERATED ALWAYS AS (status IN ('queued', 'pending', 'processing')) VIRTUAL");
  // one ALTER: the table is read once to build the four indexes
  await knex.raw(`ALTER TABLE predictions ${INDEXES.map(([old, name, cols]) => `DROP INDEX ${old}, ADD INDEX ${name} (${[...cols, 'unfinished'].join(', ')})`).join(', ')}`);
}

export async function down(knex: Knex): Promise<void> {
  if (!mysql(knex)) return;
  await knex.raw(`ALTER TABLE predictions ${INDEXES.map(([old, name, cols]) => `DROP INDEX ${name}, ADD INDEX ${old} (${[...cols, 'status'].join(', ')})`).join(', ')}`);
  await knex.raw('ALTER TABLE predictions DROP COLUMN unfinished');
}
