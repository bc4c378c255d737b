// The outbox of provider jobs to stop whose prediction rows are gone (migration 20261201_1001,
// docs/api/credentials.md "Deleting an account"): an erased account's jobs still running at a
// provider, one row per job, written by the erasing transaction and worked by
// workers/upstream-cancellations.ts until the provider has stopped the job (claimed, failed and
// done as every outbox row: db/outbox.ts). The rows name no person: the provider, its job id,
// the catalog model, and the prediction id, opaque, for the log lines.
import type { Knex } from 'knex';
import { num, numOrNull } from './knex.ts';
import { isDuplicateKey } from './errors.ts';
import { claimOutboxRow, dueOutboxRows, outboxAttemptFailed, outboxRowDone } from './outbox.ts';

/** Provider statuses (lower case) after which there is nothing left to cancel. */
export const FINISHED_UPSTREAM = new Set(['succeeded', 'completed', 'failed', 'canceled', 'cancelled', 'aborted']);

/** How a row ended: stopped; the provider no longer knows the job (or it had finished); the provider refused; its model or provider not served; tried for too long. */
export type UpstreamCancellationOutcome = 'cancelled' | 'unknown' | 'refused' | 'unserved' | 'gave_up';

export interface UpstreamJobToCancel {
  provider: string;
  jobId: string;
  /** the catalog model the job ran for */
  model: string;
  predictionId: string;
}

export interface UpstreamCancellation extends UpstreamJobToCancel {
  id: number;
  createdAt: number;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: number;
  doneAt: number | null;
  outcome: UpstreamCancellationOutcome | null;
}

type Row = Record<string, unknown>;

const fromRow = (r: Row): UpstreamCancellation => ({
  id: num(r.id as number | string),
  provider: r.provider as string,
  jobId: r.upstream_job_id as string,
  model: r.model as string,
  predictionId: r.prediction_id as string,
  createdAt: num(r.created_at as number | string),
  attempts: num(r.attempts as number | string),
  lastError: (r.last_error as string | null) ?? null,
  nextAttemptAt: num(r.next_attempt_at as number | string),
  doneAt: numOrNull(r.done_at as number | string | null),
  outcome: (r.outcome as UpstreamCancellationOutcome | null) ?? null,
});

/** Records that the provider's job must be stopped, due at once; a job already recorded is left as it is. `db` may be a transaction. */
export async function recordUpstreamCancellation(db: Knex, job: UpstreamJobToCancel, now: number): Promise<void> {
  try {
    await db('upstream_cancellations').insert({
      provider: job.provider, upstream_job_id: job.jobId, model: job.model, prediction_id: job.predictionId,
      created_at: now, attempts: 0, next_attempt_at: now,
    });
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
  }
}

export async function findUpstreamCancellation(db: Knex, provider: string, jobId: string): Promise<UpstreamCancellation | undefined> {
  const row = await db('upstream_cancellations').where({ provider, upstream_job_id: jobId }).first<Row | undefined>();
  return row ? fromRow(row) : undefined;
}

/** Up to `limit` rows not done whose next attempt is due, the longest due first. */
export async function dueUpstreamCancellations(db: Knex, now: number, limit: number): Promise<UpstreamCancellation[]> {
  return (await dueOutboxRows(db, 'upstream_cancellations', now, limit)).map(fromRow);
}

/** Claims the next attempt of `row` (as read), as claimOutboxRow. */
export async function claimUpstreamCancellation(db: Knex, row: UpstreamCancellation, now: number, retryAt: number): Promise<boolean> {
  return claimOutboxRow(db, 'upstream_cancellations', row, now, retryAt);
}

export async function upstreamCancellationFailed(db: Knex, id: number, error: string): Promise<void> {
  await outboxAttemptFailed(db, 'upstream_cancellations', id, error);
}

export async function upstreamCancellationDone(db: Knex, id: number, outcome: UpstreamCancellationOutcome, now: number): Promise<void> {
  await outboxRowDone(db, 'upstream_cancellations', id, now, { outcome });
}
