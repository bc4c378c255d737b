// withLockRetry retries exactly MariaDB's lock conflicts (1213 deadlock, 1205 lock wait timeout).
import test from 'ava';
import { withLockRetry } from '../../db/retry.ts';
import { isLockConflict } from '../../db/errors.ts';

function dbError(errno: number, code: string): Error {
  return Object.assign(new Error(`${code}: simulated`), { errno, code });
}

for (const [errno, code] of [[1213, 'ER_LOCK_DEADLOCK'], [1205, 'ER_LOCK_WAIT_TIMEOUT']] as const) {
  test(`errno ${errno} (${code}) is retried until the function succeeds`, async (t) => {
    let calls = 0;
    const result = await withLockRetry(async () => {
      calls++;
      if (calls < 3) throw dbError(errno, code);
      return 'done';
    }, { minTimeout: 1, maxTimeout: 2 });
    t.is(result, 'done');
    t.is(calls, 3);
  });
}

test('a lock conflict that persists is thrown after a few attempts, as the original error', async (t) => {
  let calls = 0;
  const err = await t.throwsAsync(withLockRetry(async () => {
    calls++;
    throw dbError(1213, 'ER_LOCK_DEADLOCK');
  }, { retries: 3, minTimeout: 1, maxTimeout: 2 }));
  t.is(calls, 4);
  t.true(isLockConflict(err));
});

for (const [what, error] of [
  ['a duplicate key', dbError(1062, 'ER_DUP_ENTRY')],
  ['a syntax error', dbError(1064, 'ER_PARSE_ERROR')],
  ['a lost connection', Object.assign(new Error('gone'), { code: 'PROTOCOL_CONNECTION_LOST' })],
  ['a plain error', new Error('boom')],
] as const) {
  test(`${what} is not retried`, async (t) => {
    let calls = 0;
    const thrown = await t.throwsAsync(withLockRetry(async () => {
      calls++;
      throw error;
    }, { minTimeout: 1 }));
    t.is(calls, 1);
    t.is(thrown, error);
  });
}

test('isLockConflict recognises both engines\' shapes and nothing else', (t) => {
  t.true(isLockConflict({ errno: 1213 }));
  t.true(isLockConflict({ code: 'ER_LOCK_WAIT_TIMEOUT' }));
  t.false(isLockConflict({ errno: 1062, code: 'ER_DUP_ENTRY' }));
  t.false(isLockConflict({ code: 'SQLITE_BUSY' }));
  t.false(isLockConflict(null));
  t.false(isLockConflict(undefined));
});
