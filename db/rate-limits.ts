// Fixed-window counters shared by every API process through the database. One upsert per request,
// one round trip for all its buckets (INSERT ... ON DUPLICATE KEY UPDATE on MariaDB, ON CONFLICT
// DO UPDATE on SQLite): in both, the SET expressions read the row's previous values, and `hits`
// is assigned before `window_start` (MariaDB applies assignments left to right).
import { answersReturning, DB_WAIT_MS, isMysql, num, type Db } from './knex.ts';
import { withLockRetry } from './retry.ts';
import { executeRaw } from './prepared.ts';
import { randomBytes } from 'node:crypto';
import { BATCH_SIZES, eachAlone, naturalBatcher, perInstance, sizeAtLeast, type ItemOutcome } from '../lib/batch.ts';

/** Registration's window: its budget is per hour (handlers/policies.ts; the retention job needs it too). */
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
  const result = await withLockRetry(() => executeRaw(db, sql, bindings)) as unknown;
  const rows = (mysql ? (result as [unknown[]])[0] : result) as Array<{ bucket: string; hits: number | string }>;
  const counts = new Map(rows.map((r) => [keyOf(r.bucket), num(r.hits)]));
  return buckets.map((b) => counts.get(keyOf(b)) ?? 1);
}

async function hitOneMysql(db: Db, bucket: string, windowStart: number): Promise<number> {
  const [res] = await withLockRetry(() => db.raw(MYSQL_SQL, [bucket, windowStart, windowStart, windowStart, windowStart])) as unknown as [{ insertId: number | string }];
  return Math.max(1, num(res.insertId));
}

// The batched statements add each bucket's increment (the inserted row's `hits`) instead of 1.
const SET_HITS_BY = (added: string) => `CASE WHEN window_start >= ? THEN hits + ${added} ELSE ${added} END`;
const valuesBy = (n: number) => Array.from({ length: n }, () => '(?, ?, ?)').join(', ');
const BATCH_SQL = {
  mariadb: (n: number) => `INSERT INTO rate_limits (bucket, window_start, hits) VALUES ${valuesBy(n)} ON DUPLICATE KEY UPDATE hits = ${SET_HITS_BY('VALUES(hits)')}, ${SET_WINDOW} RETURNING bucket, hits`,
  sqlite: (n: number) => `INSERT INTO rate_limits (bucket, window_start, hits) VALUES ${valuesBy(n)} ON CONFLICT (bucket) DO UPDATE SET hits = ${SET_HITS_BY('excluded.hits')}, ${SET_WINDOW} RETURNING bucket, hits`,
};
const batchSqlCache = new Map<string, string>();

/**
 * The row a batched statement's padding counts into: this process's own, so that no other
 * process waits for its lock, and always 0 hits; named twice in one statement, it is upserted
 * twice, as any bucket would be. The sweep drops it like any counter once its window has ended.
 */
const PAD_BUCKET = `batch-pad:${randomBytes(12).toString('hex')}`;

// MySQL (no `RETURNING`): one bucket per statement, its total back as the insert id, as MYSQL_SQL.
const MYSQL_BY_SQL = `INSERT INTO rate_limits (bucket, window_start, hits) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE hits = LAST_INSERT_ID(${SET_HITS_BY('?')}), ${SET_WINDOW}`;

/**
 * Adds `by` hits to each bucket's window starting at `windowStart` and returns each bucket's total
 * in that window (keys: the buckets as given, which must be distinct under the engine's collation):
 * in one statement on MariaDB and SQLite (`RETURNING`); on MySQL one statement per bucket, each
 * total as exact as the one statement's, since serialCounts takes each bucket apart.
 */
async function addToWindows(db: Db, by: ReadonlyMap<string, number>, windowStart: number): Promise<Map<string, number>> {
  const mysql = isMysql(db);
  if (mysql && !(await answersReturning(db))) {
    const totals = await Promise.all([...by].map(async ([b, n]) => {
      const [res] = await withLockRetry(() => db.raw(MYSQL_BY_SQL, [b, windowStart, n, windowStart, n, n, windowStart, windowStart])) as unknown as [{ insertId: number | string }];
      // a first hit inserts the row (no auto-increment column: the id is 0), its count the increment
      return [b, num(res.insertId) || n] as const;
    }));
    return new Map(totals);
  }
  const keyOf = mysql ? (b: string) => b.toLowerCase() : (b: string) => b;
  const sorted = [...by.keys()].sort();
  const bindings: Array<string | number> = [];
  for (const b of sorted) bindings.push(b, windowStart, by.get(b)!);
  // MariaDB: the rows padded to one of BATCH_SIZES with this process's own row counting 0, last
  // (after the sorted buckets, so the locking order holds), so that the statement's texts stay
  // few and prepared (db/prepared.ts); SQLite prepares nothing
  const padded = mysql ? sizeAtLeast(BATCH_SIZES, sorted.length) : sorted.length;
  for (let i = sorted.length; i < padded; i++) bindings.push(PAD_BUCKET, windowStart, 0);
  bindings.push(windowStart, windowStart, windowStart);
  const dialect = mysql ? 'mariadb' : 'sqlite';
  const cacheKey = `${dialect}:${padded}`;
  let sql = batchSqlCache.get(cacheKey);
  if (sql === undefined) batchSqlCache.set(cacheKey, sql = BATCH_SQL[dialect](padded));
  const stmt = sql;
  const result = await withLockRetry(() => executeRaw(db, stmt, bindings)) as unknown;
  const rows = (mysql ? (result as [unknown[]])[0] : result) as Array<{ bucket: string; hits: number | string }>;
  const byKey = new Map(rows.map((r) => [keyOf(r.bucket), num(r.hits)]));
  return new Map(sorted.map((b) => [b, byKey.get(keyOf(b)) ?? by.get(b)!]));
}

/** One request's hits: its buckets and each one's quota (a count above it refuses the request). */
export interface QuotaHit {
  buckets: readonly string[];
  quotas: readonly number[];
  windowStart: number;
}

/** Whether a request with these counts is refused: one of them is above its quota. */
const refused = (it: QuotaHit, counts: readonly number[]) => counts.some((n, i) => n > it.quotas[i]!);

/**
 * The requests of one batch counted as if they had come one after the other, each refused one
 * taken back before the next: from each bucket's total after the batch's increments, the count
 * before the batch; then in order, a request sees each of its buckets' count + 1, and only an
 * admitted one (no count above its quota) adds to them.
 */
export function serialCounts(items: readonly QuotaHit[], totals: ReadonlyMap<string, number>, keyOf: (b: string) => string): number[][] {
  const current = new Map<string, number>();
  for (const [b, total] of totals) current.set(keyOf(b), total);
  for (const it of items) for (const b of it.buckets) current.set(keyOf(b), current.get(keyOf(b))! - 1);
  return items.map((it) => {
    const seen = it.buckets.map((b) => current.get(keyOf(b))! + 1);
    if (!refused(it, seen)) for (const b of it.buckets) current.set(keyOf(b), current.get(keyOf(b))! + 1);
    return seen;
  });
}

/** Takes back `n` hits of a bucket's window (requests that turned out not to count). */
async function unhitWindowBy(db: Db, bucket: string, windowStart: number, n: number): Promise<void> {
  await db('rate_limits').where({ bucket, window_start: windowStart }).andWhere('hits', '>', 0)
    .update({ hits: db.raw('CASE WHEN hits > ? THEN hits - ? ELSE 0 END', [n, n]) });
}

/** Most requests a batched upsert counts (at most three buckets each). */
const HIT_BATCH_MAX = 200;

async function countBatch(db: Db, items: QuotaHit[]): Promise<Array<ItemOutcome<number[]>>> {
  if (items.length === 1) return eachAlone(items, (it) => hitWindows(db, it.buckets, it.windowStart));
  const keyOf = isMysql(db) ? (b: string) => b.toLowerCase() : (b: string) => b;
  // each bucket once, under the spelling it was first given; its increment is how many requests name it
  const by = new Map<string, number>();
  const spelling = new Map<string, string>();
  for (const it of items) {
    for (const b of it.buckets) {
      const k = keyOf(b);
      if (!spelling.has(k)) spelling.set(k, b);
      const s = spelling.get(k)!;
      by.set(s, (by.get(s) ?? 0) + 1);
    }
  }
  let totals: Map<string, number>;
  try {
    totals = await addToWindows(db, by, items[0]!.windowStart);
  } catch {
    // the batch statement failed, whole (nothing of it was counted): each request alone, as it would have been
    return eachAlone(items, (it) => hitWindows(db, it.buckets, it.windowStart));
  }
  return serialCounts(items, totals, keyOf).map((value): ItemOutcome<number[]> => ({ ok: true, value }));
}

const quotaBatcher = perInstance((db: Db) => naturalBatcher<QuotaHit, number[]>(async (items) => {
  const outcomes = await countBatch(db, items);
  // the refused requests' hits are taken back before the next batch counts (one statement per bucket)
  const back = new Map<string, number>();
  const refusedAt: number[] = [];
  outcomes.forEach((o, i) => {
    if (!o.ok || !refused(items[i]!, o.value)) return;
    refusedAt.push(i);
    for (const b of items[i]!.buckets) back.set(b, (back.get(b) ?? 0) + 1);
  });
  if (back.size === 0) return outcomes;
  const windowStart = items[0]!.windowStart;
  try {
    await Promise.all([...back].map(([b, n]) => unhitWindowBy(db, b, windowStart, n)));
  } catch (error) {
    // the refused requests fail as their own take-back would have; the admitted ones stand
    for (const i of refusedAt) outcomes[i] = { ok: false, error };
  }
  return outcomes;
}, { max: HIT_BATCH_MAX, compatible: (batch, it) => it.windowStart === batch[0]!.windowStart, gather: 'turn', stuckAfterMs: DB_WAIT_MS, maxWaitMs: DB_WAIT_MS }));

/**
 * Counts one hit in each bucket (distinct under the engine's collation) of a request limited by
 * `quotas`, and returns the counts it sees. A request refused (a count above its quota) is taken
 * back before this answers: it does not count. The concurrent requests of this process share one
 * upsert per batch (one per bucket on MySQL; naturalBatcher: while one batch's statements are in
 * flight, arrivals queue for the next), and each sees exactly the counts it would have seen had
 * they come one by one (serialCounts).
 */
export async function hitQuotaWindows(db: Db, buckets: readonly string[], quotas: readonly number[], windowStart: number): Promise<number[]> {
  if (buckets.length === 0) return [];
  const keyOf = isMysql(db) ? (b: string) => b.toLowerCase() : (b: string) => b;
  const item = { buckets, quotas, windowStart };
  // inside a transaction, or a bucket named twice: counted alone, as before
  if (db.isTransaction || new Set(buckets.map(keyOf)).size !== buckets.length) {
    const counts = await hitWindows(db, buckets, windowStart);
    if (refused(item, counts)) await Promise.all(buckets.map((b) => unhitWindow(db, b, windowStart)));
    return counts;
  }
  return quotaBatcher(db)(item);
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
