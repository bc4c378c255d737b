// The database connection and what its drivers answer, in two parts:
// - the connection: one knex instance per process, mysql2 against MariaDB/MySQL in production, or
//   the embedded SQLite file when DATABASE_URL is unset; migrations; raw results and affected counts;
// - row values: what the two drivers return for a column, normalised (bool, num, iso, jsonOr...).
import fs from 'node:fs';
import path from 'node:path';
import knexFactory from 'knex';
import type { Knex } from 'knex';
import { migrationSource } from './migrations/index.ts';

export type Db = Knex;

export interface DbOptions {
  databaseUrl: string | undefined;
  sqliteFile: string;
  poolMax?: number;
  /** prepared statements per connection (PREPARED_PER_CONNECTION when unset); 0: none, every statement as text */
  preparedPerConnection?: number;
  /**
   * Tests only (test/db/store-mysql-http.test.ts): a mysql2 instance that answers as if its
   * server were MySQL (answersReturning false) while it talks to MariaDB, so that CI, which has no
   * MySQL server, runs the fallbacks MySQL takes. Passed in code (createApp's options), never read
   * from the configuration: no setting of the gateway can turn it on.
   */
  asIfMysql?: true;
}

/**
 * The prepared statements (db/prepared.ts) each pool connection keeps by default, least recently
 * used closed first (mysql2's `maxPreparedStatements`; DB_PREPARED_PER_CONNECTION). It bounds a
 * process's share of the server's `max_prepared_stmt_count` (16,382 by default: 12 processes of
 * 20 connections at 64); past it a statement runs as text.
 */
export const PREPARED_PER_CONNECTION = 64;

/** The knex instances whose statements all go as text (DB_PREPARED_PER_CONNECTION=0), by their client's config. */
const textOnly = new WeakSet<object>();

/** Whether executeRaw (db/prepared.ts) may prepare statements on this MariaDB/MySQL instance. */
export function preparesStatements(db: Db): boolean {
  return !textOnly.has(db.client.config as object);
}

/** The query parameters DATABASE_URL may carry (README "Configuration"). */
const URL_PARAMETERS = new Set(['socketPath']);

/**
 * Where a DATABASE_URL connects: its host and port over TCP, or, with `?socketPath=/path`, the
 * server's unix socket on this machine (host and port are then ignored, as mysql2 does). Throws
 * an Error naming what is wrong (config.ts turns it into the start-up message).
 */
export function mysqlAddress(databaseUrl: string): { host: string; port: number } | { socketPath: string } {
  const url = new URL(databaseUrl);
  for (const name of url.searchParams.keys()) {
    if (!URL_PARAMETERS.has(name)) throw new Error(`unknown parameter "${name}" (only socketPath is understood)`);
  }
  const socketPath = url.searchParams.get('socketPath');
  if (socketPath === null) return { host: url.hostname, port: Number(url.port || 3306) };
  if (!path.isAbsolute(socketPath)) throw new Error(`socketPath must be an absolute path, e.g. /run/mysqld/mysqld.sock`);
  return { socketPath };
}

/**
 * The longest a request waits for the database before it is answered 503 with nothing recorded:
 * for a pool connection (knex's acquireConnectionTimeout), or behind batches of its kind (lib/batch.ts
 * maxWaitMs: the store's submits, sandbox rows and result reads; the rate-limit counters). Also
 * the time after which a batch in flight counts as stuck and the store's other requests, a
 * worker's claims and completions too, go on without it (lib/batch.ts stuckAfterMs).
 */
export const DB_WAIT_MS = 10_000;

/**
 * knex's warnings, which it prints on stdout (in colour) beside the JSON log lines. It warns with a
 * stack each time a pool connection cannot be made (`Acquire connection error`); that error reaches
 * the caller all the same (a request's 503, migrate's one line), so the warning is left out, as are
 * its two lines when the migration lock is held (migrate() waits for it, and says what to do if it
 * stays held). Any other warning is printed as knex would.
 */
const KNEX_WARNINGS_LEFT_OUT = ['Acquire connection error', "Can't take lock to run migrations", 'If you are sure migrations are not running'];
function knexWarning(message: unknown): void {
  if (typeof message === 'string' && KNEX_WARNINGS_LEFT_OUT.some((start) => message.startsWith(start))) return;
  console.log(message);
}

export function createDb(opts: DbOptions): Db {
  if (opts.asIfMysql && !opts.databaseUrl) throw new Error('asIfMysql needs a MariaDB DATABASE_URL');
  if (opts.databaseUrl) {
    const url = new URL(opts.databaseUrl);
    const db = knexFactory({
      client: 'mysql2',
      connection: {
        ...mysqlAddress(opts.databaseUrl),
        user: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password),
        database: url.pathname.replace(/^\//, ''),
        charset: 'utf8mb4',
        timezone: 'Z',
        supportBigNumbers: true,
        // mysql2 reads 0 as its own default (16,000): with 0, executeRaw sends text and prepares nothing
        maxPreparedStatements: opts.preparedPerConnection || PREPARED_PER_CONNECTION,
      },
      pool: { min: 0, max: opts.poolMax ?? 10 },
      acquireConnectionTimeout: DB_WAIT_MS,
      // a failed statement's message names its text with `?`, not the values it bound (logs carry no body)
      compileSqlOnError: false,
      log: { warn: knexWarning },
    });
    // the answer isMariadb's probe would give on MySQL, given in advance
    if (opts.asIfMysql) mariadbOf.set(db.client.config as object, Promise.resolve(false));
    if (opts.preparedPerConnection === 0) textOnly.add(db.client.config as object);
    return db;
  }
  fs.mkdirSync(path.dirname(opts.sqliteFile), { recursive: true });
  return knexFactory({
    client: 'sqlite3',
    connection: { filename: opts.sqliteFile },
    useNullAsDefault: true,
    compileSqlOnError: false,
    // SQLite allows one writer; a single connection serialises writes instead of failing with SQLITE_BUSY.
    pool: {
      min: 1,
      max: 1,
      afterCreate(conn: { exec(sql: string, cb: (err: Error | null) => void): void }, done: (err: Error | null, conn: unknown) => void) {
        conn.exec('PRAGMA foreign_keys = ON; PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL;', (err) => done(err, conn));
      },
    },
  });
}

export function isMysql(db: Db): boolean {
  return db.client.config.client === 'mysql2';
}

/**
 * How long migrate() waits for a migration lock another process holds (ROLE=migrate and every
 * process's start-up run the migrations; docs/operating/upgrading.md). On MariaDB/MySQL each DDL
 * statement commits, so knex's lock is its `is_locked` flag, and knex fails at once when the flag
 * is set instead of waiting: processes started together would fail all but one.
 */
export const MIGRATION_LOCK_WAIT_MS = 300_000;
const MIGRATION_LOCK_POLL_MS = 250;

/**
 * Applies pending migrations (in one batch); returns the names it applied, [] when up to date.
 * While another process holds the migration lock it waits (up to lockWaitMs), then runs again:
 * what that process applied is then done. `onLockHeld` is told once, in words, when it starts waiting.
 */
export async function migrate(db: Db, opts: { lockWaitMs?: number; onLockHeld?: (message: string) => void } = {}): Promise<string[]> {
  const lockWaitMs = opts.lockWaitMs ?? MIGRATION_LOCK_WAIT_MS;
  const deadline = Date.now() + lockWaitMs;
  let told = false;
  for (;;) {
    try {
      const [, applied] = await db.migrate.latest({ migrationSource }) as [number, string[]];
      return applied;
    } catch (err) {
      if (!isMigrationLockHeld(err)) throw err;
      // said once, so that a process waiting at start-up is not silent for minutes
      if (!told) opts.onLockHeld?.(`another process holds the migration lock: waiting for it to finish (up to ${Math.round(lockWaitMs / 1000)} s)`);
      told = true;
      if (Date.now() >= deadline) {
        throw new Error(`the migration lock is still held after ${Math.round(lockWaitMs / 1000)} s: another process is migrating this database, or one stopped in the middle of a migration. When none runs, clear it with UPDATE knex_migrations_lock SET is_locked = 0`, { cause: err });
      }
      await new Promise((resolve) => setTimeout(resolve, MIGRATION_LOCK_POLL_MS));
    }
  }
}

/** knex's LockError (named MigrationLocked): the lock flag was set when this run tried to take it. */
function isMigrationLockHeld(err: unknown): boolean {
  return err instanceof Error && err.name === 'MigrationLocked' && /already locked/.test(err.message);
}

/**
 * The rows of a statement written once as fixed SQL (`db.raw`: no query building per call);
 * mysql2 answers `[rows, fields]`, sqlite3 the rows. Identifiers are left unquoted, so the same
 * text runs on both engines.
 */
export async function rawRows<T>(db: Db, sql: string, bindings: readonly Knex.RawBinding[]): Promise<T[]> {
  const result = await db.raw(sql, bindings) as unknown;
  return (isMysql(db) ? (result as [T[]])[0] : result) as T[];
}

/** Whether the server behind a mysql2 knex answers `RETURNING` (MariaDB) or not (MySQL); asked once per knex instance (answered at creation with asIfMysql). */
const mariadbOf = new WeakMap<object, Promise<boolean>>();
function isMariadb(db: Db): Promise<boolean> {
  const key = db.client.config as object;
  let known = mariadbOf.get(key);
  if (known === undefined) {
    known = db.raw('SELECT VERSION() AS v').then(([rows]: [Array<{ v: string }>]) => /mariadb/i.test(String(rows[0]?.v ?? '')));
    known.catch(() => mariadbOf.delete(key));
    mariadbOf.set(key, known);
  }
  return known;
}

/** Whether INSERT/DELETE ... RETURNING works here: SQLite (3.35+) and MariaDB (10.5+), not MySQL. */
export async function answersReturning(db: Db): Promise<boolean> {
  return !isMysql(db) || isMariadb(db);
}

/** Number of rows an UPDATE/DELETE touched; knex returns it as a number on both engines. */
export function affected(result: unknown): number {
  return typeof result === 'number' ? result : 0;
}

// ------------------------------------------------------------------ row values

// Normalises what the two drivers return: MySQL booleans are 0/1, BIGINTs may be strings.

export function bool(v: unknown): boolean {
  return v === true || v === 1 || v === '1';
}

export function num(v: unknown): number {
  return typeof v === 'number' ? v : Number(v);
}

export function numOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : num(v);
}

export function iso(ms: unknown): string {
  return new Date(num(ms)).toISOString();
}

export function isoOrNull(ms: unknown): string | null {
  return ms === null || ms === undefined ? null : iso(ms);
}

export function jsonOr<T>(v: unknown, fallback: T): T {
  if (typeof v !== 'string' || v === '') return fallback;
  return JSON.parse(v) as T;
}
