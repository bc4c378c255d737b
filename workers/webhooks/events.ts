// Events a webhook receives while its prediction runs, when the submit asked for them with
// `webhook_events_filter` (docs/api/webhooks.md "Events while it runs"): `start` when a worker
// starts it, `progress` and `logs` as the provider or local adapter reports, at most one of those
// two every WEBHOOK_EVENTS_INTERVAL_MS. Signed like the result (same secrets, Standard Webhooks),
// each with its own webhook-id; tried once, never retried and not recorded: a later event or the
// result supersedes it. Never after the result: see db/webhooks.ts for the lease that orders them.
import type { App } from '../../lib/context.ts';
import { findPredictionById } from '../../db/predictions/record.ts';
import { closeEvents, dropFilter, eventLease, findFilter, newDeliveryId, releaseEventLease, takeEventLease } from '../../db/webhooks.ts';
import type { EventFilter } from '../../db/webhooks.ts';
import type { RunningEvent } from '../../lib/webhook-events.ts';
import { runningEventPayload } from './payload.ts';
import { signingSecrets } from './secret-cache.ts';
import { webhookHeaders } from './sign.ts';
import { sendWebhook } from './send.ts';

/** The lease outlasts the send's own deadline by this much (a slow database write after it). */
const LEASE_MARGIN_MS = 5_000;

/** What a running prediction reports: a start, or an update (progress, queue position, new log lines when `logs`). */
export type RunSignal = { kind: 'start' } | { kind: 'update'; logs: boolean };

/** The event a signal makes for a filter; undefined when the filter asks for none. */
export function eventFor(filter: EventFilter, signal: RunSignal): RunningEvent | undefined {
  const wants = (e: RunningEvent) => filter.events.includes(e);
  if (signal.kind === 'start') return wants('start') ? 'start' : undefined;
  if (signal.logs && wants('logs')) return 'logs';
  if (wants('progress')) return 'progress';
  return undefined;
}

/**
 * Sends the event `signal` makes for the prediction, if its filter asks for one and the lease is
 * free (db/webhooks.ts takeEventLease): 'sent' (whatever the receiver answered) or 'skipped'.
 * `filter`: already looked up by the caller (undefined: none; omitted: looked up here).
 * Never throws: an event is a courtesy, and its failure never touches the run.
 */
export async function sendRunningEvent(app: App, predictionId: string, signal: RunSignal, filter?: EventFilter | null): Promise<'sent' | 'skipped'> {
  const leased = await leaseRunningEvent(app, predictionId, signal, filter);
  return leased ? leased.sending : 'skipped';
}

/**
 * The first half of sendRunningEvent: resolves once the event holds its lease (or was skipped:
 * undefined), with the send still under way. A result's delivery waits for a held lease, so an
 * event leased before the run can finish always reaches the receiver before the result.
 */
async function leaseRunningEvent(app: App, predictionId: string, signal: RunSignal, filter?: EventFilter | null): Promise<{ sending: Promise<'sent' | 'skipped'> } | undefined> {
  try {
    const f = filter === undefined ? await findFilter(app.db, predictionId) : filter;
    if (!f) return undefined;
    const event = eventFor(f, signal);
    if (!event) return undefined;
    const now = app.clock();
    const leaseUntil = now + app.config.webhookTimeoutMs + LEASE_MARGIN_MS;
    const lease = { intervalMs: app.config.webhookEventsIntervalMs, afterStart: f.events.includes('start') };
    if (!(await takeEventLease(app.db, predictionId, event, now, leaseUntil, lease))) return undefined;
    return { sending: sendLeased(app, predictionId, f, event, now, leaseUntil) };
  } catch (err) {
    app.log.warn({ prediction: predictionId, err: (err as Error).message }, 'could not send a webhook event');
    return undefined;
  }
}

async function sendLeased(app: App, predictionId: string, f: EventFilter, event: RunningEvent, now: number, leaseUntil: number): Promise<'sent' | 'skipped'> {
  try {
    // read after the lease: what the run has recorded up to now, not what it had when it reported
    const p = await findPredictionById(app.db, predictionId);
    if (!p || !['queued', 'pending', 'processing'].includes(p.status)) return 'skipped';
    const secrets = await signingSecrets(app.db, { userId: p.userId, teamId: p.teamId }, app.encryptionKey, now);
    if (secrets.length === 0) return 'skipped';
    const body = JSON.stringify(runningEventPayload(app, p, event));
    const id = newDeliveryId();
    const headers = webhookHeaders(secrets, id, Math.floor(app.clock() / 1000), body);
    const r = await sendWebhook(f.url, body, headers, { timeoutMs: app.config.webhookTimeoutMs, policy: { allowInsecure: app.config.webhookAllowInsecure } });
    // never the URL (its query may hold the receiver's token) nor the body
    app.log.info({ prediction: predictionId, event, webhookId: id, statusCode: r.statusCode, ...(r.error ? { error: r.error } : {}), durationMs: r.durationMs }, 'webhook event');
    return 'sent';
  } catch (err) {
    app.log.warn({ prediction: predictionId, err: (err as Error).message }, 'could not send a webhook event');
    return 'skipped';
  } finally {
    await releaseEventLease(app.db, predictionId, leaseUntil).catch((err: Error) => app.log.warn({ prediction: predictionId, err: err.message }, 'could not release a webhook event lease'));
  }
}

/** sendRunningEvent without waiting for it (a run must not wait on a receiver). */
export function sendRunningEventLater(app: App, predictionId: string, signal: RunSignal, filter?: EventFilter | null): void {
  void sendRunningEvent(app, predictionId, signal, filter);
}

/**
 * A run's start: waits only for the lease (one UPDATE), never for the receiver, so that however
 * fast the provider answers, the start goes before the result.
 */
export async function leaseStartEvent(app: App, predictionId: string, filter: EventFilter): Promise<void> {
  await leaseRunningEvent(app, predictionId, { kind: 'start' }, filter);
}

/**
 * Called before each attempt of a prediction's result: no event of it starts from now on, and one
 * under way is waited for (until its lease runs out at the latest), so the result is the last
 * thing its receiver gets. Then the filter's row goes: with no row, no event can start either.
 * One UPDATE matching nothing for a prediction without a filter (or after the first attempt).
 */
export async function closeRunningEvents(app: App, predictionId: string): Promise<void> {
  let until = await closeEvents(app.db, predictionId);
  if (until === undefined) return;
  // bounded in real time too: a lease is never longer than this, whatever the app's clock says
  const deadline = performance.now() + app.config.webhookTimeoutMs + LEASE_MARGIN_MS;
  while (until !== null && until > app.clock() && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    until = await eventLease(app.db, predictionId);
  }
  await dropFilter(app.db, predictionId);
}
