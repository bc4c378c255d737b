// Fewer index writes per status transition on MariaDB/MySQL (issue 15). Two indexes lead with
// `status`, so every transition (queued -> pending -> processing -> completed) rewrote an entry
// in each: (status, created_at) (migration 0002: requests still `queued` past DISPATCH_GRACE_MS,
// the oldest queued or pending one for the queue-age metric, a history filtered by an unfinished
// status) and (status, updated_at) (0301: `pending` too long, a `processing` upstream job not
// polled). The second is dropped; (status, created_at) serves both sweeps of the second
// (db/predictions/sweeps.ts, db/predictions/upstream.ts): the stale-pending one reads the pending rows created before its cut-off (a
// row pending since before it was created before it) and checks updated_at on the row, the
// stalled-upstream one reads the processing rows. One entry per row instead of two: written at
// insert and rewritten once per transition. SQLite (the embedded default, one process) keeps both
// indexes, as it keeps its status indexes (20261126_0101).
import type { Knex } from 'knex';

const INDEX = 'predictions_status_updated_at_index';

const mysql = (knex: Knex) => knex.client.config.client === 'mysql2';

export async function up(knex: Knex): Promise<void> {
  if (!mysql(knex)) return;
  await knex.raw(`ALTER TABLE predictions DROP INDEX ${INDEX}`);
}

export async function down(knex: Knex): Promise<void> {
  if (!mysql(knex)) return;
  await knex.raw(`ALTER TABLE predictions ADD INDEX ${INDEX} (status, updated_at)`);
}
