// Retrying a whole transaction when MariaDB/MySQL picks it as a deadlock victim (1213) or its lock
// wait times out (1205). InnoDB rolls the victim back, so running the function again from the start
// is safe; every other error is thrown at once. Used around the submit, claim and complete steps and
// the other transactions that move money or credentials (studios, subscriptions, top-ups, and the
// take-back of an account by its mailbox owner: handlers/otp.ts, handlers/google.ts).
import pRetry from 'p-retry';
import { isLockConflict } from './errors.ts';

export interface LockRetryOptions {
  /** retries after the first attempt (default 4) */
  retries?: number;
  /** first delay in ms (default 5); doubles per retry, jittered, capped at maxTimeout */
  minTimeout?: number;
  maxTimeout?: number;
}

export async function withLockRetry<T>(fn: () => Promise<T>, opts: LockRetryOptions = {}): Promise<T> {
  return pRetry(fn, {
    shouldRetry: ({ error }) => isLockConflict(error),
    retries: opts.retries ?? 4,
    minTimeout: opts.minTimeout ?? 5,
    maxTimeout: opts.maxTimeout ?? 200,
    factor: 2,
    randomize: true,
  });
}
