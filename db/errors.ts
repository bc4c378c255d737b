// Driver error mapping for db/ query modules. The domain errors they raise live in lib/errors.ts
// (re-exported here for the modules that import them from db/).
export { DuplicateError, InsufficientCreditError } from '../lib/errors.ts';

/** Maps driver error codes for a unique-key violation on both engines. */
export function isDuplicateKey(err: unknown): boolean {
  const e = err as { code?: string; errno?: number };
  return e?.code === 'ER_DUP_ENTRY' || (e?.code === 'SQLITE_CONSTRAINT' && /UNIQUE/i.test(String((err as Error).message)));
}

/** True for errors that mean the database cannot be reached (as opposed to a bad query). */
export function isDbUnavailable(err: unknown): boolean {
  const e = err as { code?: string; name?: string; message?: string };
  if (!e) return false;
  return ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'PROTOCOL_CONNECTION_LOST', 'ER_CON_COUNT_ERROR', 'SQLITE_BUSY', 'SQLITE_CANTOPEN'].includes(e.code ?? '')
    || e.name === 'KnexTimeoutError';
}
