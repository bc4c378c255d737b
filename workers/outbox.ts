// What the outbox workers share (workers/stripe-cancellations.ts, workers/upstream-cancellations.ts):
// the backoff between attempts at a row (db/outbox.ts), and a job run's pass over the rows due.

const MINUTE = 60_000;
/** The wait before the next attempt after the n-th (1-based): a minute, doubling, at most an hour. */
export function cancellationBackoffMs(attempt: number): number {
  return Math.min(MINUTE * 2 ** Math.min(Math.max(attempt - 1, 0), 6), 60 * MINUTE);
}

/** Rows one job run works at most; the rest wait for the next run. */
export const RUN_BATCH = 50;
/** Failures after which a run leaves the rest for the next one: the third party is likely down, and each failure may take a while. */
const RUN_FAILURES = 3;

/** One attempt at a row: done (`cancelled`), failed (tried again later), or skipped (another run claimed it). */
export type AttemptOutcome = 'cancelled' | 'failed' | 'skipped';

export interface CancellationCounts {
  cancelled: number;
  failed: number;
}

/** A job run's part: one attempt at each row due, in order, until RUN_FAILURES have failed. */
export async function attemptEach<R>(rows: readonly R[], attempt: (row: R) => Promise<AttemptOutcome>): Promise<CancellationCounts> {
  const counts: CancellationCounts = { cancelled: 0, failed: 0 };
  for (const row of rows) {
    const out = await attempt(row);
    if (out === 'cancelled') counts.cancelled += 1;
    else if (out === 'failed' && ++counts.failed >= RUN_FAILURES) break;
  }
  return counts;
}
