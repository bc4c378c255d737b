// The retention job (README "Retention"): every RETENTION_INTERVAL_SECONDS, in worker processes,
// removes output files of old predictions (the row stays, marked), uploads no media library took,
// old webhook attempt records and finished deliveries, and expired or used sessions, OAuth states and tokens, sign-in hand-offs, one-time codes,
// idempotency records, ended rate-limit windows and finished team invites. With several workers
// one run happens per period: each tick asks for the `scheduled_jobs` lease (a conditional UPDATE),
// and only the worker that moved it forward runs. Never touches ledger rows or prediction rows.
import crypto from 'node:crypto';
import type { App } from '../lib/context.ts';
import { REGISTER_WINDOW_SECONDS } from '../db/rate-limits.ts';
import {
  RETENTION_BATCH, deleteExpiredRecords, deleteOldWebhookAttempts, deleteOldWebhookDeliveries, deleteUploadRows, findExpiringOutputs, findStaleUploads, markOutputsExpired, takeJobLease,
} from '../db/retention.ts';
import type { RetentionCounts } from '../db/retention.ts';
import { accountsDueForDeletion, eraseAccount, personalOutputs, personalUploadKeys } from '../db/account-deletion.ts';
import type { ErasedFiles, EraseOptions, EraseResult } from '../db/account-deletion.ts';
import { startStripeCancellation } from './stripe-cancellations.ts';
import { cancelRecordedUpstreamJobs } from './upstream-cancellations.ts';
import { uploadSettledAfterMs } from '../lib/uploads.ts';

const DAY_MS = 86_400_000;

type EraserApp = Pick<App, 'db' | 'storage' | 'credentials' | 'spec' | 'adapterEnv' | 'log' | 'config'>;
export const RETENTION_JOB = 'retention';

/**
 * The one eraser of an account (README "Deleting an account"): the files of its personal
 * predictions and uploads, then its rows (db/account-deletion.ts eraseAccount). Used by this job
 * after a grace period and by adminDeleteUser at once (`immediate`). A file removal that fails
 * leaves the rows for the next try.
 */
export async function eraseAccountAndFiles(app: EraserApp, userId: number, now: number, opts: EraseOptions = {}): Promise<EraseResult> {
  const { db, storage } = app;
  const outputs = await personalOutputs(db, userId);
  const uploads = await personalUploadKeys(db, userId);
  for (const p of outputs) await storage.removeOutputs(p.id, p.outputs);
  for (const key of uploads) await storage.removeUpload(key);
  const result = await eraseAccount(db, userId, now, opts);
  if (result.kind === 'erased') {
    // its personal keys are gone and the team keys it created revoked: no API process may still
    // serve one from its cache (README "Credential cache")
    const teamIds = [...new Set([...result.revokedTeamKeys, ...result.endedTeamKeySecrets].map((k) => k.teamId))];
    await app.credentials.invalidate({ userIds: [userId], ...(teamIds.length ? { teamIds } : {}) });
    if (result.revokedTeamKeys.length) {
      app.log.info({ event: 'team_keys_revoked_with_erasure', userId, keyIds: result.revokedTeamKeys.map((k) => k.id) }, 'erasure: the team keys the erased account created were revoked');
    }
    await removeLateFiles(app, userId, result.files, { outputs, uploads });
    // the rows are gone, so no poll will tell the providers: the erasing transaction recorded
    // each job still running for cancelling; each is tried now, then by the subscription job until
    // the provider has stopped it (workers/upstream-cancellations.ts)
    await cancelRecordedUpstreamJobs(app, result.upstreamJobs, now, { userId });
    // Stripe would charge the wallet's subscriptions every period, and nobody could stop them any
    // more: the erasing transaction recorded each for cancelling; each is tried now, then by the
    // subscription job until Stripe has (workers/stripe-cancellations.ts)
    for (const sub of result.stripeCancellations) startStripeCancellation(app, sub, { userId, teamId: null });
  }
  return result;
}

/**
 * The files of rows the erasing transaction removed that were not there when the files were
 * removed first (a run that completed, an upload made, in between): their rows are gone, so they
 * go now. A removal that fails is logged; nothing will try again.
 */
async function removeLateFiles(app: EraserApp, userId: number, erased: ErasedFiles, removed: ErasedFiles): Promise<void> {
  const done = new Set(removed.outputs.map((p) => `${p.id} ${p.outputs.join(' ')}`));
  const doneUploads = new Set(removed.uploads);
  const attempt = async (what: Record<string, unknown>, remove: () => Promise<unknown>) => {
    try {
      await remove();
    } catch (err) {
      app.log.warn({ userId, ...what, err: (err as Error).message }, 'could not remove a file of an erased account');
    }
  };
  for (const p of erased.outputs) {
    if (p.outputs.length > 0 && !done.has(`${p.id} ${p.outputs.join(' ')}`)) await attempt({ id: p.id }, () => app.storage.removeOutputs(p.id, p.outputs));
  }
  for (const key of erased.uploads) if (!doneUploads.has(key)) await attempt({ key }, () => app.storage.removeUpload(key));
}


export interface Retention {
  /** takes the lease and runs once; null when another worker holds this period (or retention is off) */
  runOnce(): Promise<RetentionCounts | null>;
  /** ticks every period (RETENTION_INTERVAL_SECONDS), starting now; no-op when the interval is off */
  start(): void;
  /** stops the timer and waits for a run in progress */
  stop(): Promise<void>;
}

export function createRetention(app: Pick<App, 'db' | 'storage' | 'log' | 'clock' | 'metrics' | 'config' | 'credentials' | 'spec' | 'adapterEnv'>): Retention {
  const { db, storage, clock, metrics } = app;
  const cfg = app.config.retention;
  const log = app.log.child({ job: RETENTION_JOB });
  const holder = `${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  let stopped = false;

  async function expireOutputs(now: number): Promise<number> {
    if (cfg.outputDays === null) return 0;
    const before = now - cfg.outputDays * DAY_MS;
    let n = 0;
    for (;;) {
      const batch = await findExpiringOutputs(db, before, RETENTION_BATCH);
      for (const p of batch) await storage.removeOutputs(p.id, p.outputs);
      // marked after the files are gone: a run stopped in between removes them again next time
      n += await markOutputsExpired(db, batch.map((p) => p.id), now);
      if (batch.length < RETENTION_BATCH || stopped) return n;
    }
  }

  /** Uploads no media library owns, older than UPLOAD_RETENTION_DAYS and past their address's use: the row, then the file. */
  async function expireUploads(now: number): Promise<number> {
    if (cfg.uploadDays === null) return 0;
    const before = now - cfg.uploadDays * DAY_MS;
    let n = 0;
    for (;;) {
      const batch = await findStaleUploads(db, before, now - uploadSettledAfterMs(app.config.uploadLimits), RETENTION_BATCH);
      const gone = new Set(await deleteUploadRows(db, batch.map((u) => u.id)));
      for (const u of batch) {
        if (!gone.has(u.id)) continue;
        // the row is gone, so nothing refers to the file any more; a failed removal is logged, not retried
        await storage.removeUpload(u.storageKey).catch((err: unknown) => log.warn({ err, key: u.storageKey }, 'could not remove an expired upload\'s file'));
      }
      n += gone.size;
      if (batch.length < RETENTION_BATCH || stopped) return n;
    }
  }

  async function run(now: number): Promise<RetentionCounts> {
    const outputs = await expireOutputs(now);
    const uploads = await expireUploads(now);
    let attempts = 0;
    let deliveries = 0;
    if (cfg.webhookAttemptDays !== null) {
      const before = now - cfg.webhookAttemptDays * DAY_MS;
      attempts = await deleteOldWebhookAttempts(db, before);
      deliveries = await deleteOldWebhookDeliveries(db, before);
    }
    const longestWindow = Math.max(app.config.authRateLimit.windowSeconds, REGISTER_WINDOW_SECONDS) * 1000;
    const rest = await deleteExpiredRecords(db, now, now - cfg.expiredGraceDays * DAY_MS, longestWindow);
    const accounts = await eraseDueAccounts(now);
    return { outputs, uploads, webhook_attempts: attempts, webhook_deliveries: deliveries, ...rest, accounts };
  }

  /**
   * Accounts past their deletion's grace period: files first, then the rows in one transaction
   * (a run stopped in between removes the remaining files next time). One that still owns a team
   * alone waits, logged, until ownership moves.
   */
  async function eraseDueAccounts(now: number): Promise<number> {
    let erased = 0;
    for (const userId of await accountsDueForDeletion(db, now, RETENTION_BATCH)) {
      if (stopped) break;
      const result = await eraseAccountAndFiles(app, userId, now);
      if (result.kind === 'erased') {
        erased += 1;
        log.info({ userId }, 'account erased after its deletion grace period');
      } else if (result.kind === 'sole-owner') {
        log.warn({ userId, teams: result.teams.map((t) => t.id) }, 'account due for deletion still owns a team alone: waiting until ownership moves');
      } else if (result.kind === 'last-admin') {
        log.warn({ userId }, 'account due for deletion is the last administrator: waiting until another account holds the admin role');
      }
    }
    return erased;
  }

  async function runOnce(): Promise<RetentionCounts | null> {
    if (cfg.intervalMs === null) return null;
    const started = clock();
    if (!(await takeJobLease(db, RETENTION_JOB, holder, started, cfg.intervalMs))) return null;
    const wallStart = Date.now();
    try {
      const counts = await run(started);
      for (const [kind, n] of Object.entries(counts)) if (n > 0) metrics.retentionRemoved.inc({ kind }, n);
      metrics.retentionRuns.inc({ outcome: 'ok' });
      log.info({ removed: counts, durationMs: Date.now() - wallStart }, 'retention run finished');
      return counts;
    } catch (err) {
      metrics.retentionRuns.inc({ outcome: 'error' });
      throw err;
    }
  }

  function tick(): void {
    if (running || stopped) return;
    running = runOnce()
      .catch((err: unknown) => log.warn({ err: (err as Error).message ?? String(err) }, 'retention run failed; the next period tries again'))
      .finally(() => { running = null; });
  }

  return {
    runOnce,
    start() {
      if (cfg.intervalMs === null || timer || stopped) return;
      tick();
      timer = setInterval(tick, cfg.intervalMs);
      timer.unref();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
