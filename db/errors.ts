// Driver error mapping for db/ query modules. The domain errors they raise live in lib/errors.ts
// (re-exported here for the modules that import them from db/).
export { DuplicateError, InsufficientCreditError, KeySpendLimitError, NotFoundError } from '../lib/errors.ts';

/** Maps driver error codes for a unique-key violation on both engines. */
export function isDuplicateKey(err: unknown): boolean {
  const e = err as { code?: string; errno?: number };
  return e?.code === 'ER_DUP_ENTRY' || (e?.code === 'SQLITE_CONSTRAINT' && /UNIQUE/i.test(String((err as Error).message)));
}

/** A row refers to one that is not there (1452 ER_NO_REFERENCED_ROW_2; SQLite with foreign_keys on). */
export function isMissingReference(err: unknown): boolean {
  const e = err as { code?: string; errno?: number };
  return e?.errno === 1452 || e?.code === 'ER_NO_REFERENCED_ROW_2' || (typeof e?.code === 'string' && e.code.startsWith('SQLITE_CONSTRAINT') && /FOREIGN KEY/i.test(String((err as Error).message)));
}

/**
 * True for errors that mean the database cannot be reached (as opposed to a bad query), or did not
 * answer within DB_WAIT_MS: no connection free (KnexTimeoutError), or a batch in flight ahead of
 * the request (lib/batch.ts BatchWaitTimeoutError). Nothing of the request was recorded.
 */
export function isDbUnavailable(err: unknown): boolean {
  const e = err as { code?: string; name?: string; message?: string };
  if (!e) return false;
  return ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'PROTOCOL_CONNECTION_LOST', 'ER_CON_COUNT_ERROR', 'SQLITE_BUSY', 'SQLITE_CANTOPEN'].includes(e.code ?? '')
    || e.name === 'KnexTimeoutError' || e.name === 'BatchWaitTimeoutError';
}

/**
 * MariaDB/MySQL lock conflicts: 1213 ER_LOCK_DEADLOCK (InnoDB rolled the transaction back) and
 * 1205 ER_LOCK_WAIT_TIMEOUT. Safe to retry from the start of the transaction; if they persist the
 * client gets a 503, never a 500.
 */
export function isLockConflict(err: unknown): boolean {
  const e = err as { code?: unknown; errno?: unknown } | null | undefined;
  if (!e || typeof e !== 'object') return false;
  return e.errno === 1213 || e.errno === 1205 || e.code === 'ER_LOCK_DEADLOCK' || e.code === 'ER_LOCK_WAIT_TIMEOUT';
}

/**
 * A logged error (pino's serialized form) without the values its statement bound: mysql2 puts the
 * statement as it sent it, every value written in (a prompt, a webhook URL and its token, an
 * email), in `sql`, and knex's own errors carry them as `bindings`; both are dropped here, in every
 * error nested in it too. knex's message keeps the statement's text with `?` in their place
 * (compileSqlOnError off: db/knex.ts). Logs carry no body and no link (docs/operating/security.md).
 */
export function withoutBoundValues<T>(serialized: T, depth = 0): T {
  if (serialized === null || typeof serialized !== 'object' || depth > 4) return serialized;
  const e = serialized as Record<string, unknown>;
  delete e.sql;
  // knex's own errors (a timeout acquiring a connection) carry the statement's values apart
  delete e.bindings;
  for (const key of Object.keys(e)) {
    const v = e[key];
    if (Array.isArray(v)) for (const item of v) withoutBoundValues(item, depth + 1);
    else if (v !== null && typeof v === 'object' && typeof (v as { message?: unknown }).message === 'string') withoutBoundValues(v, depth + 1);
  }
  return serialized;
}
