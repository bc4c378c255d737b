// The columns the sweeps of `predictions` and the queue-age metric read (README "No request lost,
// none charged twice"). On MariaDB/MySQL it is the virtual column `waiting_since` (migration
// 20261127_0201: created_at while queued or pending, updated_at while processing), whose index
// (status, waiting_since, updated_at) serves them all; SQLite keeps (status, created_at) and
// (status, updated_at), so there it is the column either index holds.
import type { Knex } from 'knex';
import { isMysql } from './knex.ts';

/** created_at of a queued or pending row. */
export function acceptedAt(db: Knex): string {
  return isMysql(db) ? 'waiting_since' : 'created_at';
}

/** updated_at of a processing row. */
export function processingSince(db: Knex): string {
  return isMysql(db) ? 'waiting_since' : 'updated_at';
}
