// The dispatcher's reads and touches of predictions (workers/dispatch.ts): what lost its message
// and must be published again, and the embedded gateway's recovery at start-up. The transitions a
// request goes through are the store's (db/store/types.ts); these only find work and restart the
// sweeper's clock on it.
import type { Db } from '../knex.ts';
import { affected, isMysql } from '../knex.ts';
import { withLockRetry } from '../retry.ts';
import { toPrediction, usageRowOf } from './record.ts';
import type { Prediction, PredictionRow } from './record.ts';

/**
 * With whereNotExists, not an inline call (prediction_usage marks those): no worker runs one, whatever its state. An
 * asynchronous language model's prediction gets its usage row only in its completion, so no
 * unfinished one has a row and each is swept as any other.
 */
const notInline = usageRowOf();

/**
 * Embedded start-up only (one process, nothing else running): rows left `processing` by a
 * process that stopped belong to no worker any more, so they go back to `pending`; inline calls
 * are left to the store (failAbandonedInline), which fails them and releases their holds.
 */
export async function releaseOrphanedClaims(db: Db, now: number): Promise<number> {
  return affected(await db('predictions').where('status', 'processing').whereNotExists(notInline).update({ status: 'pending', updated_at: now }));
}

/**
 * Requests the queue confirmed long ago that no worker has claimed: their message may be lost.
 * `attempts`: the claims the row records so far (the runs made, a retry's among them), which the
 * sweeper's copy carries on.
 */
export async function findStalePending(db: Db, olderThan: number, limit: number): Promise<Array<{ id: string; reqId: string | null; attempts: number }>> {
  const q = db('predictions').select('id', 'http_request_id', 'attempts').where('status', 'pending').andWhere('updated_at', '<', olderThan);
  // MariaDB/MySQL has no (status, updated_at) index (migration 20261127_0201): a row pending since before the cut-off was created before it
  if (isMysql(db)) q.andWhere('created_at', '<', olderThan).orderBy('created_at', 'asc');
  else q.orderBy('updated_at', 'asc');
  const rows = await q.limit(limit);
  return rows.map((r: { id: string; http_request_id: string | null; attempts: number | string }) => ({ id: r.id, reqId: r.http_request_id, attempts: Number(r.attempts) }));
}

/** The sweeper published a stale pending request again: restart its clock so it is not republished every sweep. */
export async function touchPending(db: Db, id: string, now: number): Promise<void> {
  // The sweeper races claims and submits on the same row: a deadlock is retried, not thrown out of the sweep.
  await withLockRetry(() => db('predictions').where({ id, status: 'pending' }).update({ updated_at: now }));
}

/** Requests whose publish was never confirmed (broker down at submit, or the API died before the confirm). */
export async function findUnpublished(db: Db, olderThan: number, limit: number): Promise<Prediction[]> {
  const rows = await db<PredictionRow>('predictions').where('status', 'queued').andWhere('created_at', '<', olderThan)
    .orderBy('created_at', 'asc').limit(limit);
  return rows.map(toPrediction);
}

/** Everything not finished: what an in-process queue lost when its process stopped. */
export async function findUnfinished(db: Db, limit: number, afterId = ''): Promise<Prediction[]> {
  const rows = await db<PredictionRow>('predictions').whereIn('status', ['queued', 'pending', 'processing']).whereNotExists(notInline)
    .andWhere('id', '>', afterId).orderBy('id', 'asc').limit(limit);
  return rows.map(toPrediction);
}
