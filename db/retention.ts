// Retention (README "Retention"): the queries of the scheduled job that removes what outlived its
// lifetime. Every removal is a series of small batches (select a batch of keys, delete those keys
// with the condition checked again), never one statement over a whole table, so no transaction
// grows with the backlog and concurrent traffic waits on a few rows at most. Ledger rows
// (credit_transactions) and prediction rows are never deleted here.
import type { Knex } from 'knex';
import type { Db } from './knex.ts';
import { affected, isMysql, jsonOr } from './knex.ts';
import { isDuplicateKey, isLockConflict } from './errors.ts';
import { deleteExpiredIdempotencyKeys } from './idempotency.ts';

export const RETENTION_BATCH = 500;

/**
 * Takes the lease of a scheduled job for one period: moves `next_run_at` forward from a time
 * already reached. A conditional UPDATE, so of several workers asking at once exactly one gets
 * it (on MariaDB and SQLite alike). The row is created here when missing (a job added later).
 */
export async function takeJobLease(db: Db, name: string, holder: string, now: number, periodMs: number): Promise<boolean> {
  const take = () => db('scheduled_jobs').where('name', name).andWhere('next_run_at', '<=', now)
    .update({ next_run_at: now + periodMs, holder: holder.slice(0, 64), last_started_at: now });
  if (affected(await take()) === 1) return true;
  const exists = await db('scheduled_jobs').where('name', name).first('name');
  if (exists) return false;
  // First run of a job without a row: one INSERT wins, the others see a duplicate key.
  try {
    await db('scheduled_jobs').insert({ name, next_run_at: now + periodMs, holder: holder.slice(0, 64), last_started_at: now });
    return true;
  } catch (err) {
    if (isDuplicateKey(err)) return false;
    throw err;
  }
}

type Where = (q: Knex.QueryBuilder) => Knex.QueryBuilder;

/**
 * Deletes the rows of `table` matching `where`, `batch` at a time, by their single-column key;
 * the condition is checked again on delete, so a row renewed in between stays.
 */
export async function deleteInBatches(db: Db, table: string, key: string, where: Where, batch = RETENTION_BATCH): Promise<number> {
  let removed = 0;
  for (;;) {
    const keys = await where(db(table).select(key)).limit(batch).pluck(key) as Array<string | number>;
    if (keys.length === 0) return removed;
    removed += affected(await where(db(table).whereIn(key, keys)).delete());
    if (keys.length < batch) return removed;
  }
}

/** How many expired rows a new sign-in state or hand-off clears at most (purgeSomeExpired). */
export const INLINE_PURGE_BATCH = 20;

/**
 * Housekeeping as new rows arrive (a sign-in's expired states and hand-offs): deletes at most
 * `batch` rows of `table` whose `expires_at` is at or before `now`, read first without locks, then
 * deleted by their key alone. Best effort: a lock conflict is ignored, and the retention job
 * removes what is left. Keys are never reused and `expires_at` never changes, so a row read
 * expired stays so (with the expiry in the DELETE's WHERE, the planner would take its index again).
 * Not one DELETE over the expiry index: that locked the index entry of the first live row past
 * its range, then the row, while a callback taking that row locked the row, then its entry, and
 * the two deadlocked on MariaDB (a sign-in answered 503). A DELETE by key locks rows, then their
 * entries, in the callbacks' order, and only rows it removes (or, on a table of a few rows, the
 * whole table for a moment): it may wait on one short statement, never deadlock with it.
 */
export async function purgeSomeExpired(db: Db, table: string, key: string, now: number, batch = INLINE_PURGE_BATCH): Promise<number> {
  try {
    const keys = await db(table).where('expires_at', '<=', now).limit(batch).pluck(key) as string[];
    if (keys.length === 0) return 0;
    return affected(await db(table).whereIn(key, keys).delete());
  } catch (err) {
    if (isLockConflict(err)) return 0;
    throw err;
  }
}

/** What one run removed, by kind (the names of the `mediagate_retention_removed_total` metric's `kind` label). */
export interface RetentionCounts {
  outputs: number;
  webhook_attempts: number;
  webhook_deliveries: number;
  /** uploads never registered in a media library, with their files */
  uploads: number;
  sessions: number;
  oauth_states: number;
  /** Google sign-in hand-offs to a studio's domain */
  session_handoffs: number;
  oauth_tokens: number;
  one_time_codes: number;
  idempotency_keys: number;
  rate_limit_windows: number;
  team_invites: number;
  /** support links used or expired (README "Impersonation and support links") */
  support_links: number;
  /** webhook event filters of predictions that stopped running without a result delivery (docs/api/webhooks.md "Events while it runs") */
  webhook_event_filters: number;
  /** done cancels of erased accounts' provider jobs (db/upstream-cancellations.ts) */
  upstream_cancellations: number;
  /** accounts erased after their deletion's grace period (README "Deleting an account") */
  accounts: number;
}

/**
 * Uploads created before `before` that no media-library asset owns (README "Retention"): the ones
 * a client used only as a prediction's input, or never used. A registered upload is the asset's,
 * unless the asset is a deleted team's: no one can list, use or delete that library any more, so
 * its uploads go as unregistered ones do (deleteUploadRows removes the asset first).
 * Only those whose address expired before `expiredBefore`: one that can still be used would get
 * its file after its row was gone (a file nothing removes on S3, a 404 on the gateway's route).
 */
export async function findStaleUploads(db: Db, before: number, expiredBefore: number, limit: number): Promise<Array<{ id: number; storageKey: string }>> {
  const rows = await db('uploads').leftJoin('media_assets', 'media_assets.upload_id', 'uploads.id').leftJoin('teams', 'teams.id', 'uploads.team_id')
    .where((q) => { q.whereNull('media_assets.id').orWhereNotNull('teams.deleted_at'); })
    .andWhere('uploads.created_at', '<', before).andWhere('uploads.expires_at', '<', expiredBefore)
    .orderBy('uploads.id').limit(limit).select('uploads.id', 'uploads.storage_key') as Array<{ id: number | string; storage_key: string }>;
  return rows.map((r) => ({ id: Number(r.id), storageKey: String(r.storage_key) }));
}

/**
 * Deletes these upload rows unless an asset took one meanwhile (a registration racing the job);
 * returns the ids deleted, whose files may then go. Row first: a registration that comes after
 * finds no upload (404) instead of an asset whose file is gone. The assets of a deleted team that
 * own some of them go first (no one can register anything for that team any more).
 */
export async function deleteUploadRows(db: Db, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  await db('media_assets').whereIn('upload_id', ids).whereIn('team_id', db('teams').whereNotNull('deleted_at').select('id')).delete();
  await db('uploads').whereIn('id', ids).whereNotExists((q) => q.select(db.raw('1')).from('media_assets').whereRaw('media_assets.upload_id = uploads.id')).delete();
  const kept = new Set((await db('uploads').whereIn('id', ids).pluck('id') as Array<number | string>).map(Number));
  return ids.filter((id) => !kept.has(id));
}

/**
 * Completed, non-sandbox predictions finished before `before` whose output files are still kept.
 * On MariaDB/MySQL that is the virtual column `output_expires_from` (migration 20261127_0101:
 * completed_at of exactly those rows, NULL otherwise), whose index holds only rows still to
 * expire; SQLite reads (status, completed_at) and checks the rest on each row.
 */
export async function findExpiringOutputs(db: Db, before: number, limit: number): Promise<Array<{ id: string; outputs: string[] }>> {
  const rows = isMysql(db)
    ? await db('predictions').select('id', 'outputs').where('output_expires_from', '<', before).orderBy('output_expires_from', 'asc').limit(limit)
    : await db('predictions').select('id', 'outputs').where('status', 'completed').andWhere('completed_at', '<', before)
      .whereNull('outputs_expired_at').andWhere('is_test', false).orderBy('completed_at', 'asc').limit(limit);
  return rows.map((r: { id: string; outputs: string | null }) => ({ id: r.id, outputs: jsonOr<string[]>(r.outputs, []) }));
}

/** The prediction's files are gone: its row says so (and when). */
export async function markOutputsExpired(db: Db, ids: readonly string[], now: number): Promise<number> {
  if (ids.length === 0) return 0;
  return affected(await db('predictions').whereIn('id', [...ids]).whereNull('outputs_expired_at').update({ outputs_expired_at: now }));
}

/** Attempt records of webhook deliveries (predictions' and alerts') started before `before`. */
export async function deleteOldWebhookAttempts(db: Db, before: number): Promise<number> {
  const old = (q: Knex.QueryBuilder) => q.where('started_at', '<', before);
  return await deleteInBatches(db, 'webhook_attempts', 'id', old) + await deleteInBatches(db, 'alert_delivery_attempts', 'id', old);
}

/** Finished deliveries (delivered, gone, dead; predictions' and alerts') last changed before `before`, with their attempts (cascade). */
export async function deleteOldWebhookDeliveries(db: Db, before: number): Promise<number> {
  const old = (q: Knex.QueryBuilder) => q.whereIn('status', ['delivered', 'gone', 'dead']).andWhere('updated_at', '<', before);
  return await deleteInBatches(db, 'webhook_deliveries', 'id', old) + await deleteInBatches(db, 'alert_deliveries', 'id', old);
}

/**
 * Sessions, OAuth states and tokens, sign-in hand-offs, one-time codes and reset codes,
 * idempotency records, ended rate-limit windows, finished team invites and used or expired support links, past their end by more than the grace period
 * (`cutoff` = now - grace).
 */
export async function deleteExpiredRecords(db: Db, now: number, cutoff: number, longestRateWindowMs: number): Promise<Omit<RetentionCounts, 'outputs' | 'uploads' | 'webhook_attempts' | 'webhook_deliveries' | 'accounts'>> {
  const sessions = await deleteInBatches(db, 'sessions', 'id', (q) => q.where((w) => w.where('expires_at', '<', cutoff).orWhere('revoked_at', '<', cutoff)));
  const oauthStates = await deleteInBatches(db, 'oauth_states', 'state_hash', (q) => q.where('expires_at', '<', cutoff));
  const handoffs = await deleteInBatches(db, 'session_handoffs', 'code_hash', (q) => q.where('expires_at', '<', cutoff));
  // oidc-provider's records (access tokens, grants…) have a two-column key: batched per kind.
  let oauthTokens = 0;
  const kinds = await db('oauth_provider_records').distinct('kind').whereNotNull('expires_at').andWhere('expires_at', '<', cutoff).pluck('kind') as string[];
  for (const kind of kinds) {
    oauthTokens += await deleteInBatches(db, 'oauth_provider_records', 'id', (q) => q.where('kind', kind).whereNotNull('expires_at').andWhere('expires_at', '<', cutoff));
  }
  // one-time codes of both purposes (sign-in codes and password-reset codes)
  const codes = await deleteInBatches(db, 'otp_codes', 'id', (q) => q.where((w) => w.where('expires_at', '<', cutoff).orWhere('consumed_at', '<', cutoff)));
  let idempotency = 0;
  for (;;) {
    const n = await deleteExpiredIdempotencyKeys(db, cutoff, RETENTION_BATCH);
    idempotency += n;
    if (n < RETENTION_BATCH) break;
  }
  // a window is over once the longest budget's window that could contain it has passed
  const windows = await deleteInBatches(db, 'rate_limits', 'bucket', (q) => q.where('window_start', '<', Math.min(cutoff, now - longestRateWindowMs)));
  const invites = await deleteInBatches(db, 'team_invites', 'id', (q) => q.where((w) => w.where('expires_at', '<', cutoff).orWhere('accepted_at', '<', cutoff).orWhere('revoked_at', '<', cutoff)));
  const links = await deleteInBatches(db, 'support_links', 'id', (q) => q.where((w) => w.where('expires_at', '<', cutoff).orWhere('used_at', '<', cutoff)));
  // webhook event filters of predictions no longer running (finished without a result delivery, which
  // would have removed them, or gone); a young one may belong to a submit still being accepted
  const running = db('predictions').select('id').whereIn('status', ['queued', 'pending', 'processing']);
  const eventFilters = await deleteInBatches(db, 'webhook_event_filters', 'prediction_id', (q) => q.where('created_at', '<', cutoff).whereNotIn('prediction_id', running));
  // the cancels of erased accounts' provider jobs once done (cancelled, unknown, refused, given up); one still trying stays
  const upstreamCancellations = await deleteInBatches(db, 'upstream_cancellations', 'id', (q) => q.whereNotNull('done_at').andWhere('done_at', '<', cutoff));
  return {
    sessions, oauth_states: oauthStates, session_handoffs: handoffs, oauth_tokens: oauthTokens, one_time_codes: codes, idempotency_keys: idempotency,
    rate_limit_windows: windows, team_invites: invites, support_links: links, webhook_event_filters: eventFilters,
    upstream_cancellations: upstreamCancellations,
  };
}

