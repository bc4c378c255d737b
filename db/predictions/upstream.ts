// An upstream job's state on its prediction's row (README "Providers"): the provider's job once it
// accepted the submit, the poll chain's number, the provider's last status word, queue position and
// progress, and the sweeper's search for chains whose message was lost. Every write is conditional
// on the prediction still running that job (workers/upstream-jobs.ts).
import type { Db } from '../knex.ts';
import { affected, num } from '../knex.ts';
import { withLockRetry } from '../retry.ts';

/** What a poll learned of a running job besides its status (null: not reported). */
export interface UpstreamProgress {
  queuePosition?: number | null;
  progress?: number | null;
  /** the run's whole stored log (lib/run-logs.ts serializeRunLogs); undefined: unchanged */
  logs?: string;
}

/**
 * Records the provider's job the moment the provider accepted it, so that no later claim of this
 * prediction submits again. Only while the claim holds (`processing`) and no job is recorded yet;
 * false when either changed (cancelled meanwhile, or another worker recorded one first).
 */
export async function recordUpstreamJob(db: Db, id: string, job: { provider: string; id: string; status: string; model?: string }, now: number): Promise<boolean> {
  const n = await withLockRetry(() => db('predictions').where({ id, status: 'processing' }).whereNull('upstream_job_id').update({
    upstream_name: job.provider.slice(0, 64), upstream_job_id: job.id.slice(0, 191), upstream_status: job.status.slice(0, 32),
    ...(job.model !== undefined ? { upstream_model: job.model.slice(0, 191) } : {}),
    upstream_polls: 0, upstream_submitted_at: now, updated_at: now,
  }));
  return affected(n) === 1;
}

/**
 * Moves the poll chain on from `from` to `from + 1`, recording the provider's status; false when
 * another copy of the chain already moved it (this copy is then dropped) or the prediction is no
 * longer running.
 */
export async function advanceUpstreamPolls(db: Db, id: string, from: number, status: string, now: number, progress: UpstreamProgress = {}): Promise<boolean> {
  const n = await withLockRetry(() => db('predictions').where({ id, status: 'processing', upstream_polls: from })
    .update({
      upstream_polls: from + 1, upstream_status: status.slice(0, 32), updated_at: now,
      // what the provider did not report this time is no longer known
      upstream_queue_position: progress.queuePosition ?? null, upstream_progress: progress.progress ?? null,
      ...(progress.logs !== undefined ? { logs: progress.logs } : {}),
    }));
  return affected(n) === 1;
}

/**
 * What a run in this process (a local adapter) reports as it goes: progress and its log. Only
 * while it is still processing; callers throttle (workers/run-model.ts progressReporter), so this is not a
 * write per step.
 */
export async function recordRunProgress(db: Db, id: string, progress: { progress?: number | null; logs?: string }, now: number): Promise<void> {
  await withLockRetry(() => db('predictions').where({ id, status: 'processing' }).update({
    updated_at: now,
    ...(progress.progress !== undefined ? { upstream_progress: progress.progress } : {}),
    ...(progress.logs !== undefined ? { logs: progress.logs } : {}),
  }));
}

/** The last lines of a run's log, written when it ends (a local run's final lines, kept past the throttle). */
export async function recordRunLogs(db: Db, id: string, logs: string): Promise<void> {
  await withLockRetry(() => db('predictions').where({ id }).update({ logs }));
}

/**
 * A verified provider callback about the job whose chain is at `from`: moves the chain to
 * `from + 1` (so the delayed poll message `from` becomes a stale copy) for the caller to publish
 * poll `from + 1` at once. False when the prediction is not running that job any more, or another
 * callback or poll moved the chain first.
 */
export async function takeUpstreamCallback(db: Db, id: string, jobId: string, from: number, now: number): Promise<boolean> {
  const n = await withLockRetry(() => db('predictions').where({ id, status: 'processing', upstream_job_id: jobId, upstream_polls: from })
    .update({ upstream_polls: from + 1, updated_at: now }));
  return affected(n) === 1;
}

/** Undoes advanceUpstreamPolls when the next poll could not be published (the current message is retried instead). */
export async function rewindUpstreamPolls(db: Db, id: string, from: number): Promise<void> {
  await withLockRetry(() => db('predictions').where({ id, status: 'processing', upstream_polls: from }).update({ upstream_polls: from - 1 }));
}

/**
 * The provider's last known status word (any prediction state: a cancelled one records the
 * provider's cancel). Set when the job ended, so its queue position and progress are over too.
 */
export async function setUpstreamStatus(db: Db, id: string, status: string): Promise<void> {
  await withLockRetry(() => db('predictions').where({ id }).whereNotNull('upstream_job_id')
    .update({ upstream_status: status.slice(0, 32), upstream_queue_position: null, upstream_progress: null }));
}

/**
 * Upstream jobs whose poll chain seems lost (a purged queue): running, with a job recorded, and
 * not touched by a poll for longer than any poll wait.
 */
export async function findStalledUpstream(db: Db, olderThan: number, limit: number): Promise<Array<{ id: string; polls: number; reqId: string | null }>> {
  const rows = await db('predictions').select('id', 'upstream_polls', 'http_request_id').where('status', 'processing').whereNotNull('upstream_job_id')
    .andWhere('updated_at', '<', olderThan).orderBy('updated_at', 'asc').limit(limit);
  return rows.map((r: { id: string; upstream_polls: number | string; http_request_id: string | null }) => ({ id: r.id, polls: num(r.upstream_polls), reqId: r.http_request_id }));
}

/** Restarts a stalled upstream job's clock once its poll was published again, so the sweeper does not publish it every sweep. */
export async function touchUpstream(db: Db, id: string, now: number): Promise<void> {
  await withLockRetry(() => db('predictions').where({ id, status: 'processing' }).whereNotNull('upstream_job_id').update({ updated_at: now }));
}
