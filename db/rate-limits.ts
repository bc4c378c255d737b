// Fixed-window counters shared by every API process through the database. One upsert per hit,
// one round trip (INSERT ... ON DUPLICATE KEY UPDATE on MariaDB, ON CONFLICT DO UPDATE on
// SQLite): in both, the SET expressions read the row's previous values, and `hits` is
// assigned before `window_start` (MariaDB applies assignments left to right).
import { isMysql, type Db } from './knex.ts';
import { num } from './rows.ts';
import { withLockRetry } from './retry.ts';

/** Registration's window: its budget is per hour (handlers/rate-limit.ts; the retention job needs it too). */
export const REGISTER_WINDOW_SECONDS = 3600;

/**
 * Counts one hit in the window starting at `windowStart` and returns the hits in that window so far,
 * in one round trip: on MariaDB the new count comes back as the statement's insert id
 * (`hits = LAST_INSERT_ID(...)`; a first hit inserts the row, which has no auto-increment column,
 * so the id is 0 and the count is 1); on SQLite through `RETURNING`.
 */
export async function hitWindow(db: Db, bucket: string, windowStart: number): Promise<number> {
  // A process whose clock lags a little counts into the newer window instead of resetting it.
  const hits = db.raw('CASE WHEN window_start >= ? THEN hits + 1 ELSE 1 END', [windowStart]);
  const upsert = () => db('rate_limits')
    .insert({ bucket, window_start: windowStart, hits: 1 })
    .onConflict('bucket')
    .merge({
      hits: isMysql(db) ? db.raw('LAST_INSERT_ID(?)', [hits]) : hits,
      window_start: db.raw('CASE WHEN window_start > ? THEN window_start ELSE ? END', [windowStart, windowStart]),
    });
  // Concurrent first hits of one bucket can deadlock on MariaDB (two upserts of a new key): the
  // victim's single statement was rolled back whole, so it is counted again.
  if (isMysql(db)) {
    const [id] = await withLockRetry(() => upsert()) as unknown as [number | string];
    return Math.max(1, num(id));
  }
  const rows = await withLockRetry(() => upsert().returning('hits')) as Array<{ hits: number | string }>;
  return rows[0] ? num(rows[0].hits) : 1;
}

/** Drops counters of windows that started before `before` (pass the start of the longest window still running). */
export async function deleteEndedWindows(db: Db, before: number): Promise<number> {
  return db('rate_limits').where('window_start', '<', before).delete();
}

/** Takes back one hit of the window starting at `windowStart` (an attempt that turned out not to count). */
export async function unhitWindow(db: Db, bucket: string, windowStart: number): Promise<void> {
  await db('rate_limits').where({ bucket, window_start: windowStart }).andWhere('hits', '>', 0).decrement('hits', 1);
}

/** Forgets a counter altogether. */
export async function clearBucket(db: Db, bucket: string): Promise<void> {
  await db('rate_limits').where({ bucket }).delete();
}
