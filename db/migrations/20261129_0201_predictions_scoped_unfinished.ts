// Fewer index writes when a prediction finishes, on MariaDB/MySQL (issue 15). The team and
// embed-code unfinished counts had indexes on (team_id, unfinished) and (embed_code_id,
// unfinished): every row has an entry in both, and finishing a row moves its entry in both, also
// for the personal predictions with no embed code that most rows are (team_id and embed_code_id
// NULL), whose entries no count ever reads. They are now indexes on virtual columns that hold the
// team (the embed code) only while the row is unfinished, NULL otherwise: a personal row's entry
// is NULL before and after it finishes, so InnoDB leaves those indexes alone; a team's (a code's)
// row moves its entry as before. Queries say `team_unfinished = ?` (db/unfinished.ts). SQLite
// keeps its (…, status) indexes (migration 20261126_0101).
import type { Knex } from 'knex';

const UNFINISHED = "status IN ('queued', 'pending', 'processing')";
/** [old index, new virtual column, its index, the column it scopes] */
const SCOPES: ReadonlyArray<[string, string, string, string]> = [
  ['predictions_team_unfinished_index', 'team_unfinished', 'predictions_team_unfinished_scoped_index', 'team_id'],
  ['predictions_embed_code_unfinished_index', 'embed_code_unfinished', 'predictions_embed_code_unfinished_scoped_index', 'embed_code_id'],
];

const mysql = (knex: Knex) => knex.client.config.client === 'mysql2';

export async function up(knex: Knex): Promise<void> {
  if (!mysql(knex)) return;
  await knex.raw(`ALTER TABLE predictions ${SCOPES.map(([, column, , scoped]) => `ADD COLUMN ${column} INT UNSIGNED GENERATED ALWAYS AS (CASE WHEN ${UNFINISHED} THEN ${scoped} END) VIRTUAL`).join(', ')}`);
  // one ALTER: the table is read once to build both indexes
  await knex.raw(`ALTER TABLE predictions ${SCOPES.map(([old, column, index]) => `DROP INDEX ${old}, ADD INDEX ${index} (${column})`).join(', ')}`);
}

export async function down(knex: Knex): Promise<void> {
  if (!mysql(knex)) return;
  await knex.raw(`ALTER TABLE predictions ${SCOPES.map(([old, , index, scoped]) => `DROP INDEX ${index}, ADD INDEX ${old} (${scoped}, unfinished)`).join(', ')}`);
  await knex.raw(`ALTER TABLE predictions ${SCOPES.map(([, column]) => `DROP COLUMN ${column}`).join(', ')}`);
}
