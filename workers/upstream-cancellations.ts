// Stopping provider jobs whose prediction rows are gone, through an outbox
// (db/upstream-cancellations.ts, docs/api/credentials.md "Deleting an account"). The erasing
// transaction records each job of the erased account still running at a provider; the eraser tries
// each cancel right after the commit, awaited (eraseAccountAndFiles), and the subscription job
// tries the rows still due each run (runDueUpstreamCancellations), backing off from a minute,
// doubling, to an hour, as for Stripe (workers/outbox.ts). A row is done when the provider has
// cancelled the job, answers that it no longer knows it (404/410: finished and gone, or never
// kept), or refuses the cancel outright (another 4xx: asking again would get the same answer);
// a model or provider no longer served is done at once (nothing to call). A failure (timeout,
// network, 5xx, 429, the gateway's credentials refused) is a warning and tried again; past a day
// since the erasure the row is given up with one warning naming the provider and its job id: a
// provider job does not run for ever, and the operator can stop it in the provider's dashboard.
import type { App } from '../lib/context.ts';
import {
  claimUpstreamCancellation, dueUpstreamCancellations, findUpstreamCancellation, upstreamCancellationDone, upstreamCancellationFailed,
} from '../db/upstream-cancellations.ts';
import type { UpstreamCancellation } from '../db/upstream-cancellations.ts';
import { adapterRegistry } from './adapters/index.ts';
import { AdapterError } from './adapters/types.ts';
import { modelRef } from './run-model.ts';
import { runByNamed } from './upstream-jobs.ts';
import { attemptEach, cancellationBackoffMs, RUN_BATCH } from './outbox.ts';
import type { AttemptOutcome, CancellationCounts } from './outbox.ts';

// the eraser has no clock of its own (it is given its `now`): the time then is the process's
type CancelApp = Pick<App, 'db' | 'log' | 'spec' | 'adapterEnv'> & Partial<Pick<App, 'clock'>>;
const clockOf = (app: CancelApp): number => (app.clock ? app.clock() : Date.now());

/** How long one provider may take to answer one cancel. */
export const UPSTREAM_CANCEL_TIMEOUT_MS = 10_000;
/** A job still not cancelled this long after the erasure recorded it is given up (one warning for the operator). */
export const UPSTREAM_CANCEL_GIVE_UP_AFTER_MS = 24 * 60 * 60_000;

/** A provider's answer that settles the row although it did not cancel: 'unknown' (404/410), 'refused' (another 4xx); undefined for a failure worth trying again. */
function settledBy(err: unknown): 'unknown' | 'refused' | undefined {
  if (!(err instanceof AdapterError) || err.retryable) return undefined;
  if (err.code === 'upstream_failed') return 'unknown';
  if (err.code === 'upstream_rejected_input' || err.code === 'content_moderated') return 'refused';
  return undefined;
}

/**
 * One attempt at a row: claimed first (a row another run claimed, or one not due, is skipped),
 * then the provider is asked, each call bounded by UPSTREAM_CANCEL_TIMEOUT_MS. `context`: more
 * fields for the log lines (the eraser's user id).
 */
export async function attemptUpstreamCancellation(app: CancelApp, row: UpstreamCancellation, now: number, context: Record<string, unknown> = {}): Promise<AttemptOutcome> {
  const attempt = row.attempts + 1;
  if (!(await claimUpstreamCancellation(app.db, row, now, now + cancellationBackoffMs(attempt)))) return 'skipped';
  const fields = { ...context, id: row.predictionId, provider: row.provider, upstreamJobId: row.jobId, attempt };
  const listed = app.spec.models.get(row.model);
  const model = listed ? runByNamed(listed, row.provider) : undefined;
  const job = model ? adapterRegistry[model.adapter]?.create(app.adapterEnv).job : undefined;
  if (!model || !job) {
    app.log.warn(fields, 'an erased account\'s upstream job could not be cancelled: its model or provider is no longer served');
    await upstreamCancellationDone(app.db, row.id, 'unserved', clockOf(app));
    return 'cancelled';
  }
  try {
    await job.cancel(row.jobId, { signal: AbortSignal.timeout(UPSTREAM_CANCEL_TIMEOUT_MS), predictionId: row.predictionId, model: modelRef(model) });
    await upstreamCancellationDone(app.db, row.id, 'cancelled', clockOf(app));
    app.log.info(fields, 'an erased account\'s upstream job was cancelled at the provider');
    return 'cancelled';
  } catch (err) {
    const error = (err as Error).message ?? String(err);
    const settled = settledBy(err);
    if (settled === 'unknown') {
      await upstreamCancellationDone(app.db, row.id, 'unknown', clockOf(app));
      app.log.info({ ...fields, answer: error }, 'an erased account\'s upstream job is no longer known to the provider: nothing left to cancel');
      return 'cancelled';
    }
    if (settled === 'refused') {
      await upstreamCancellationDone(app.db, row.id, 'refused', clockOf(app));
      app.log.warn({ ...fields, err: error }, 'could not cancel an erased account\'s upstream job at the provider: the provider refused the cancel, not asked again');
      return 'cancelled';
    }
    await upstreamCancellationFailed(app.db, row.id, error)
      .catch((e: unknown) => app.log.warn({ ...fields, err: (e as Error).message }, 'could not record a failed upstream cancellation'));
    if (now - row.createdAt >= UPSTREAM_CANCEL_GIVE_UP_AFTER_MS) {
      await upstreamCancellationDone(app.db, row.id, 'gave_up', clockOf(app));
      app.log.warn({ ...fields, event: 'upstream_job_not_cancelled', err: error, since: new Date(row.createdAt).toISOString() },
        `upstream_job_not_cancelled: gave up cancelling an erased account's job at provider "${row.provider}" (job ${row.jobId}) after a day of attempts; stop it in the provider's dashboard if it still runs`);
    } else {
      app.log.warn({ ...fields, err: error, retryAt: new Date(now + cancellationBackoffMs(attempt)).toISOString() },
        'could not cancel an erased account\'s upstream job at the provider; tried again later');
    }
    return 'failed';
  }
}

/**
 * The eraser's attempt right after its commit: one per job the erasing transaction recorded,
 * awaited (the subscription job tries again those that fail). Never throws.
 */
export async function cancelRecordedUpstreamJobs(app: CancelApp, jobs: ReadonlyArray<{ provider: string; jobId: string }>, now: number, context: Record<string, unknown> = {}): Promise<void> {
  for (const j of jobs) {
    try {
      const row = await findUpstreamCancellation(app.db, j.provider, j.jobId);
      if (row && row.doneAt === null) await attemptUpstreamCancellation(app, row, now, context);
    } catch (err) {
      app.log.warn({ ...context, provider: j.provider, upstreamJobId: j.jobId, err: (err as Error).message ?? String(err) }, 'an upstream cancellation could not be attempted now; the subscription job tries again');
    }
  }
}

/** The subscription job's part: the rows due at `now`, one attempt each. */
export async function runDueUpstreamCancellations(app: CancelApp, now: number): Promise<CancellationCounts> {
  return attemptEach(await dueUpstreamCancellations(app.db, now, RUN_BATCH), (row) => attemptUpstreamCancellation(app, row, now));
}
