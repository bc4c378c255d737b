// Fewer index writes per status transition on MariaDB/MySQL (issue 15; README "Retention"). The
// retention job's scan for output files to remove (db/retention.ts findExpiringOutputs) read
// (status, completed_at), whose entry every transition rewrote (queued -> pending -> processing ->
// completed: three rewrites a prediction), and whose `completed` range holds every completed row,
// those whose outputs are already gone and sandbox rows too. It now reads `output_expires_from`, a
// virtual column holding completed_at while the row is a completed, non-sandbox prediction whose
// outputs are still kept, and NULL otherwise: its entry is written when the row is inserted (NULL),
// when it completes, and when its outputs expire; queued -> pending -> processing (and a retry back
// to pending, a failure, a cancel) leave it alone, and the scan's range holds only rows still to
// expire. A virtual column stores nothing in the row. SQLite (the embedded default, one process)
// keeps its (status, completed_at) index, as it keeps its status indexes (20261126_0101): knex
// alters a SQLite table by copying it, which a generated column breaks for every later migration.
import type { Knex } from 'knex';

const OLD = 'predictions_status_completed_at_index';
const NEW = 'predictions_output_expires_from_index';

const mysql = (knex: Knex) => knex.client.config.client === 'mysql2';

export async function up(knex: Knex): Promise<void> {
  if (!mysql(knex)) return;
  await knex.raw("ALTER TABLE predictions ADD COLUMN output_expires_from BIGINT GENERATED ALWAYS AS (IF(status = 'completed' AND is_test = 0 AND outputs_expired_at IS NULL, completed_at, NULL)) VIRTUAL");
  await knex.raw(`ALTER TABLE predictions DROP INDEX ${OLD}, ADD INDEX ${NEW} (output_expires_from)`);
}

export async function down(knex: Knex): Promise<void> {
  if (!mysql(knex)) return;
  await knex.raw(`ALTER TABLE predictions DROP INDEX ${NEW}, ADD INDEX ${OLD} (status, completed_at)`);
  await knex.raw('ALTER TABLE predictions DROP COLUMN output_expires_from');
}
