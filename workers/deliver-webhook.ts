// The deliver-webhook consumer: one attempt per message. Sign at send time over the exact bytes
// sent, record the attempt, then ack, retry on the schedule (WEBHOOK_RETRY_SCHEDULE_MS, or a
// longer Retry-After), or dead-letter after the third retry. Transport-free: it returns an Outcome.
// A delivery is a prediction's result or an alert's event (db/alert-deliveries.ts): the same ids,
// signing, schedule and attempt records, each kind in its own tables.
import type { App } from '../lib/context.ts';
import { ALERT_DELIVERIES, findPendingDelivery, PREDICTION_DELIVERIES, recordAttempt as recordDeliveryAttempt } from '../db/webhooks.ts';
import type { DeliveryTables } from '../db/webhooks.ts';
import { findPendingAlertDelivery } from '../db/alert-deliveries.ts';
import { alertEventPayload } from './webhooks/alert-event.ts';
import type { Owner } from '../lib/caller.ts';
import { signingSecrets } from './webhooks/secret-cache.ts';
import type { Delivery as QueueDelivery, Outcome } from './queue/types.ts';
import type { WebhookMessage } from './dispatch.ts';
import { webhookPayload } from './webhooks/payload.ts';
import { providerMetadataOf } from '../db/provider-costs.ts';
import { webhookHeaders } from './webhooks/sign.ts';
import { sendWebhook } from './webhooks/send.ts';
import { closeRunningEvents } from './webhooks/events.ts';
import { MAX_WEBHOOK_RETRIES, nextDelay, parseRetryAfter } from './webhooks/backoff.ts';
import { isRequestId } from '../lib/telemetry.ts';

/** `random` draws the retry jitter (tests fix it). */
export function createDeliverWebhook(app: App, encryptionKey: Buffer, opts: { random?: () => number } = {}) {
  const { config } = app;
  const policy = { allowInsecure: config.webhookAllowInsecure };

  const { metrics } = app;

  async function handle(message: QueueDelivery<WebhookMessage>): Promise<Outcome> {
    metrics.workerInFlight.inc({ topic: 'webhooks' });
    try {
      return await attempt(message);
    } finally {
      metrics.workerInFlight.dec({ topic: 'webhooks' });
    }
  }

  async function attempt(message: QueueDelivery<WebhookMessage>): Promise<Outcome> {
    const id = message.body?.id;
    if (typeof id !== 'string') return { kind: 'dead-letter', reason: 'message without a delivery id' };
    // The request that submitted the prediction, when the message carries it (see dispatch.ts).
    const reqId = isRequestId(message.body.reqId) ? message.body.reqId : undefined;
    const log = reqId ? app.log.child({ reqId }) : app.log;
    const found = await findPendingDelivery(app.db, id);
    if (!found) {
      // an alert's delivery; else delivered, gone or dead already (a duplicate message), or deleted with its account
      const alert = await findPendingAlertDelivery(app.db, id);
      if (!alert) return { kind: 'ack' };
      const body = JSON.stringify(alertEventPayload(alert.id, alert.alert, alert.owner));
      return sendSigned(message, alert, body, alert.owner, { alert: alert.alert.id }, ALERT_DELIVERIES, log);
    }
    const { delivery: d, prediction: p } = found;
    // webhook_events_filter: no start, progress or logs event after the result (webhooks/events.ts)
    await closeRunningEvents(app, p.id);

    // what the provider said of a completed result (seed, size, timings), beside the interface's fields
    const metadata = await providerMetadataOf(app.db, p);
    const body = JSON.stringify(metadata ? { ...webhookPayload(app, p), provider_metadata: metadata } : webhookPayload(app, p));
    // A team prediction is signed with the team's secrets, whichever member (or team key) submitted it.
    return sendSigned(message, d, body, { userId: p.userId, teamId: p.teamId }, { prediction: d.predictionId }, PREDICTION_DELIVERIES, log);
  }

  /** One signed attempt of a delivery (of `tables`), recorded, and what the queue does next. */
  async function sendSigned(
    message: QueueDelivery<WebhookMessage>, d: { id: string; url: string; attempts: number }, body: string, owner: Owner,
    about: Record<string, unknown>, tables: DeliveryTables, log: App['log'],
  ): Promise<Outcome> {
    type Args = Parameters<typeof recordDeliveryAttempt>;
    const recordAttempt = (x: Args[1], a: Args[2], next: Args[3], now: number) => recordDeliveryAttempt(app.db, x, a, next, now, tables);
    const secrets = await signingSecrets(app.db, owner, encryptionKey, app.clock());
    const startedAt = app.clock();
    // One line per attempt; never the URL (its query may hold the receiver's token) nor the body.
    const logAttempt = (outcome: 'delivered' | 'gone' | 'retry' | 'dead', extra: Record<string, unknown>) => {
      metrics.webhookAttempts.inc({ outcome });
      log.info({ delivery: d.id, ...about, attempt: d.attempts + 1, outcome, ...extra }, 'webhook attempt');
    };
    if (secrets.length === 0) {
      // Its team was deleted with its secrets: nothing the receiver could verify is left to send.
      const reason = 'the team was deleted: no secret to sign with';
      await recordAttempt(d, { number: d.attempts + 1, startedAt, durationMs: 0, error: reason }, { status: 'dead', nextAttemptAt: startedAt }, startedAt);
      logAttempt('dead', { reason });
      return { kind: 'dead-letter', reason };
    }
    const headers = webhookHeaders(secrets, d.id, Math.floor(startedAt / 1000), body);
    const r = await sendWebhook(d.url, body, headers, { timeoutMs: config.webhookTimeoutMs, policy });
    const now = app.clock();
    const sent = { statusCode: r.statusCode, durationMs: Math.round(r.durationMs) };
    const attempt = { number: d.attempts + 1, startedAt, durationMs: r.durationMs, ...(r.statusCode !== undefined ? { statusCode: r.statusCode } : {}), ...(r.error ? { error: r.error } : {}), ...(r.excerpt !== undefined ? { excerpt: r.excerpt } : {}) };

    if (r.statusCode !== undefined && r.statusCode >= 200 && r.statusCode < 300) {
      await recordAttempt(d, attempt, { status: 'delivered', nextAttemptAt: now }, now);
      logAttempt('delivered', sent);
      return { kind: 'ack' };
    }
    if (r.statusCode === 410) {
      // The receiver says the endpoint is gone for good: stop at once.
      await recordAttempt(d, attempt, { status: 'gone', nextAttemptAt: now }, now);
      logAttempt('gone', sent);
      return { kind: 'ack' };
    }
    const reason = r.error ?? `receiver answered ${r.statusCode}`;
    if (message.attempt >= MAX_WEBHOOK_RETRIES) {
      await recordAttempt(d, attempt, { status: 'dead', nextAttemptAt: now }, now);
      logAttempt('dead', { ...sent, reason });
      return { kind: 'dead-letter', reason };
    }
    const honoured = r.statusCode === 429 || r.statusCode === 503 ? parseRetryAfter(r.retryAfter, now) : undefined;
    const delayMs = nextDelay(config.webhookRetryScheduleMs, message.attempt, {
      maxRetryAfterMs: config.webhookMaxRetryAfterMs,
      ...(opts.random ? { random: opts.random } : {}),
      ...(honoured !== undefined ? { retryAfterMs: honoured } : {}),
    });
    await recordAttempt(d, attempt, { status: 'pending', nextAttemptAt: now + delayMs }, now);
    logAttempt('retry', { ...sent, reason, delayMs });
    return { kind: 'retry', delayMs, reason };
  }

  return { handle };
}
