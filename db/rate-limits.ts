// Fixed-window counters shared by every API process through the database. One upsert per request,
// one round trip for all its buckets (INSERT ... ON DUPLICATE KEY UPDATE on MariaDB, ON CONFLICT
// DO UPDATE on SQLite): in both, the SET expressions read the row's previous values, and `hits`
// is assigned before `window_start` (MariaDB applies assignments left to right).
import { answersReturning, isMysql, type Db } from './knex.ts';
import { num } from './rows.ts';
import { withLockRetry } from './retry.ts';

/** Registration's window: its budget is per hour (handlers/rate-limit.ts; the retention job needs it too). */
export const REGISTER_WINDOW_SECONDS = 3600;

/** The counting expressions: unqualified columns are the row's previous values on both engines. */
const SET_HITS = 'CASE WHEN window_start >= ? THEN hits + 1 ELSE 1 END';
const SET_WINDOW = 'window_start = CASE WHEN window_start > ? THEN window_start ELSE ? END';
const values = (n: number) => Array.from({ length: n }, () => '(?, ?, 1)').join(', ');

/**
 * The statements, written once (no query building per hit): several buckets in one upsert
 * returning each bucket's new count, on MariaDB (10.5+: `RETURNING` reads the row as updated) and
 * on SQLite; one bucket per statement on MySQL, which has no `RETURNING`: its count comes back as
 * the insert id (`hits = LAST_INSERT_ID(...)`; a first hit inserts the row, which has no
 * auto-increment column, so the id is 0 and the count is 1).
 */
const RETURNING_SQL = {
  mariadb: (n: number) => `INSERT INTO rate_limits (bucket, window_start, hits) VALUES ${values(n)} ON DUPLICATE KEY UPDATE hits = ${SET_HITS}, ${SET_WINDOW} RETURNING bucket, hits`,
  sqlite: (n: number) => `INSERT INTO rate_limits (bucket, window_start, hits) VALUES ${values(n)} ON CONFLICT (bucket) DO UPDATE SET hits = ${SET_HITS}, ${SET_WINDOW} RETURNING bucket, hits`,
};
const MYSQL_SQL = `INSERT INTO rate_limits (bucket, window_start, hits) VALUES (?, ?, 1) ON DUPLICATE KEY UPDATE hits = LAST_INSERT_ID(${SET_HITS}), ${SET_WINDOW}`;
const sqlCache = new Map<string, string>();
function returningSql(dialect: 'mariadb' | 'sqlite', n: number): string {
  const key = `${dialect}:${n}`;
  let sql = sqlCache.get(key);
  if (sql === undefined) sqlCache.set(key, sql = RETURNING_SQL[dialect](n));
  return sql;
}

/**
 * Counts one hit in each bucket's window starting at `windowStart` and returns each bucket's hits
 * in that window so far, in the order given: one round trip for all of them on MariaDB and SQLite.
 */
export async function hitWindows(db: Db, buckets: readonly string[], windowStart: number): Promise<number[]> {
  if (buckets.length === 0) return [];
  // A bucket named twice would be two upserts of one row in one statement: counted apart instead.
  const mysql = isMysql(db);
  // MariaDB compares the key case-insensitively (its default collation): a row answers under its stored spelling.
  const keyOf = mysql ? (b: string) => b.toLowerCase() : (b: string) => b;
  const distinct = new Set(buckets.map(keyOf)).size === buckets.length;
  if (!distinct || (mysql && !(await answersReturning(db)))) {
    return Promise.all(buckets.map((b) => (mysql ? hitOneMysql(db, b, windowStart) : hitWindows(db, [b], windowStart).then(([n]) => n!))));
  }
  // Rows locked in one order by every statement, so two submits sharing a bucket do not deadlock on the others.
  const sorted = [...buckets].sort();
  const bindings: Array<string | number> = [];
  for (const b of sorted) bindings.push(b, windowStart);
  // A process whose clock lags a little counts into the newer window instead of resetting it.
  bindings.push(windowStart, windowStart, windowStart);
  const sql = returningSql(mysql ? 'mariadb' : 'sqlite', sorted.length);
  // Concurrent first hits of one bucket can deadlock on MariaDB (two upserts of a new key): the
  // victim's single statement was rolled back whole, so it is counted again.
  const result = await withLockRetry(() => db.raw(sql, bindings)) as unknown;
  const rows = (mysql ? (result as [unknown[]])[0] : result) as Array<{ bucket: string; hits: number | string }>;
  const counts = new Map(rows.map((r) => [keyOf(r.bucket), num(r.hits)]));
  return buckets.map((b) => counts.get(keyOf(b)) ?? 1);
}

async function hitOneMysql(db: Db, bucket: string, windowStart: number): Promise<number> {
  const [res] = await withLockRetry(() => db.raw(MYSQL_SQL, [bucket, windowStart, windowStart, windowStart, windowStart])) as unknown as [{ insertId: number | string }];
  return Math.max(1, num(res.insertId));
}

/** Counts one hit in the window starting at `windowStart` and returns the hits in that window so far. */
export async function hitWindow(db: Db, bucket: string, windowStart: number): Promise<number> {
  const [n] = await hitWindows(db, [bucket], windowStart);
  return n!;
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
