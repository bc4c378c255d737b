// The signed delivery of a webhook, whole, in the order a delivery goes:
//   1. the deliver-webhook consumer (createDeliverWebhook): one attempt per message, recorded;
//   2. the bodies: a prediction's result (webhookPayload) and its running events, an alert's event
//      (alertEventPayload);
//   3. the owner's signing secrets, read once every few seconds (signingSecrets, forgetSecrets);
//   4. Standard Webhooks signing (webhookHeaders);
//   5. one attempt over HTTP (sendWebhook);
//   6. the start, progress and logs events a `webhook_events_filter` asks for while the prediction
//      runs (sendRunningEvent, leaseStartEvent), closed before its result (closeRunningEvents).
// The retry schedule is workers/webhook-backoff.ts (config.ts reads it too).
import http from 'node:http';
import https from 'node:https';
import crypto from 'node:crypto';
import ipaddr from 'ipaddr.js';
import type { App } from '../lib/context.ts';
import { activeSecrets, ALERT_DELIVERIES, closeEvents, dropFilter, eventLease, findFilter, findPendingDelivery, newDeliveryId, PREDICTION_DELIVERIES, recordAttempt as recordDeliveryAttempt, releaseEventLease, takeEventLease } from '../db/webhooks.ts';
import type { DeliveryTables, EventFilter, SecretMode } from '../db/webhooks.ts';
import { findPendingAlertDelivery } from '../db/alert-deliveries.ts';
import type { AlertKind, AlertRecord } from '../db/alerts.ts';
import type { Db } from '../db/knex.ts';
import { findPredictionById } from '../db/predictions/record.ts';
import type { Prediction } from '../db/predictions/record.ts';
import { ownerKey } from '../lib/caller.ts';
import type { Owner } from '../lib/caller.ts';
import { predictionView } from '../lib/prediction-view.ts';
import { parseRunLogs } from '../lib/run-logs.ts';
import type { RunningEvent } from '../lib/webhook-events.ts';
import { addressPermitted, pinnedLookup } from '../lib/destination-policy.ts';
import type { DestinationPolicy } from '../lib/destination-policy.ts';
import { isRequestId } from '../lib/telemetry.ts';
import type { Delivery as QueueDelivery, Outcome } from './queue/types.ts';
import type { WebhookMessage } from './dispatch.ts';
import { MAX_WEBHOOK_RETRIES, nextDelay, parseRetryAfter } from './webhook-backoff.ts';

// ---- 1. The consumer
// The deliver-webhook consumer: one attempt per message. Sign at send time over the exact bytes
// sent, record the attempt, then ack, retry on the schedule (WEBHOOK_RETRY_SCHEDULE_MS, or a
// longer Retry-After), or dead-letter after the third retry. Transport-free: it returns an Outcome.
// A delivery is a prediction's result or an alert's event (db/alert-deliveries.ts): the same ids,
// signing, schedule and attempt records, each kind in its own tables.

/** The recorded error of an alert delivery not sent because its URL is no longer the wallet's (docs/api/usage.md). */
const ALERT_URL_WITHDRAWN = 'not sent: the alert webhook URL was changed or removed after this alert was queued, and an alert goes only to the URL set when it is sent (set this one again and redeliver to send it there)';

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
      // An alert goes to the wallet's alert webhook URL as it is when sent: one queued (or between
      // retries) for a URL since changed or removed, by its owner or with the take-back of the
      // account (db/credentials.ts takeBackAccount), is not sent to it.
      if (alert.currentUrl !== alert.url) return withdrawn(alert, log);
      const body = JSON.stringify(alertEventPayload(alert.id, alert.alert, alert.owner));
      // an alert is about the owner's money: signed with the production secrets only
      return sendSigned(message, alert, body, alert.owner, { sandbox: false }, { alert: alert.alert.id }, ALERT_DELIVERIES, log, alert.teamDeleted);
    }
    const { delivery, prediction: p, providerMetadata: metadata } = found;
    const d = { ...delivery, nextAttemptAt: found.nextAttemptAt };
    // webhook_events_filter: no start, progress or logs event after the result (closeRunningEvents, part 6)
    if (found.eventFilter) await closeRunningEvents(app, p.id);

    // what the provider said of a completed result (seed, size, timings), beside the interface's fields
    const body = JSON.stringify(metadata ? { ...webhookPayload(app, p), provider_metadata: metadata } : webhookPayload(app, p));
    // A team prediction is signed with the team's secrets, whichever member (or team key) submitted
    // it; a sandbox prediction with the sandbox ones only, a production one with the production ones.
    return sendSigned(message, d, body, { userId: p.userId, teamId: p.teamId }, { sandbox: p.isTest }, { prediction: d.predictionId }, PREDICTION_DELIVERIES, log, found.teamDeleted);
  }

  /** An alert delivery whose URL is no longer the wallet's: recorded as dead without a request, with why. */
  async function withdrawn(d: { id: string; attempts: number; alert: { id: number } }, log: App['log']): Promise<Outcome> {
    const now = app.clock();
    await recordDeliveryAttempt(app.db, d, { number: d.attempts + 1, startedAt: now, durationMs: 0, error: ALERT_URL_WITHDRAWN }, { status: 'dead', nextAttemptAt: now }, now, ALERT_DELIVERIES);
    metrics.webhookAttempts.inc({ outcome: 'dead' });
    log.info({ delivery: d.id, alert: d.alert.id, attempt: d.attempts + 1, outcome: 'dead', reason: 'alert webhook URL changed or removed' }, 'webhook attempt');
    // nothing failed: the owner took the URL away, so the dead-letter queue has nothing to look at
    return { kind: 'ack' };
  }

  /**
   * One signed attempt of a delivery (of `tables`), recorded, and what the queue does next.
   * `mode`: which of the owner's secrets sign it. `teamDeleted`: the owner is a team deleted since
   * (as the delivery's own query read it).
   */
  async function sendSigned(
    message: QueueDelivery<WebhookMessage>, d: { id: string; url: string; attempts: number; nextAttemptAt: number }, body: string, owner: Owner, mode: SecretMode,
    about: Record<string, unknown>, tables: DeliveryTables, log: App['log'], teamDeleted: boolean,
  ): Promise<Outcome> {
    type Args = Parameters<typeof recordDeliveryAttempt>;
    const recordAttempt = (x: Args[1], a: Args[2], next: Args[3], now: number) => recordDeliveryAttempt(app.db, x, a, next, now, tables);
    // A copy of a message whose attempt another copy made already (the sweeper's copy of a
    // message that was only late, a publish confirmed twice): the retry that attempt scheduled
    // is on its way, and sending now would be an extra, early attempt with a second retry chain.
    // A redelivery after a worker died mid-send finds the delivery still due, and sends.
    if (d.nextAttemptAt > app.clock() + CLOCK_SKEW_MS) {
      log.info({ delivery: d.id, ...about, dueAt: new Date(d.nextAttemptAt).toISOString() }, 'webhook copy dropped: its attempt was made and its retry is scheduled');
      return { kind: 'ack' };
    }
    // A deleted team's secrets went with it, but this process (or another) may still hold them
    // for a few seconds (part 3): the deletion as the delivery's query read it decides.
    const secrets = teamDeleted ? [] : await signingSecrets(app.db, owner, mode, encryptionKey, app.clock());
    const startedAt = app.clock();
    // One line per attempt; never the URL (its query may hold the receiver's token) nor the body.
    const logAttempt = (outcome: 'delivered' | 'gone' | 'retry' | 'dead', extra: Record<string, unknown>) => {
      metrics.webhookAttempts.inc({ outcome });
      log.info({ delivery: d.id, ...about, attempt: d.attempts + 1, outcome, ...extra }, 'webhook attempt');
    };
    // Another copy of the message, sent at the same time, recorded this attempt first: its outcome
    // (and its retry, if any) stands; this copy was a duplicate the receiver can tell by webhook-id.
    const overtaken = (extra: Record<string, unknown> = {}): Outcome => {
      log.info({ delivery: d.id, ...about, attempt: d.attempts + 1, ...extra }, 'webhook copy sent twice: another copy recorded this attempt');
      return { kind: 'ack' };
    };
    if (secrets.length === 0) {
      // Its team was deleted with its secrets: nothing the receiver could verify is left to send.
      const reason = 'the team was deleted: no secret to sign with';
      if (!(await recordAttempt(d, { number: d.attempts + 1, startedAt, durationMs: 0, error: reason }, { status: 'dead', nextAttemptAt: startedAt }, startedAt))) return overtaken();
      logAttempt('dead', { reason });
      return { kind: 'dead-letter', reason };
    }
    const headers = webhookHeaders(secrets, d.id, Math.floor(startedAt / 1000), body);
    const r = await sendWebhook(d.url, body, headers, { timeoutMs: config.webhookTimeoutMs, policy });
    const now = app.clock();
    const sent = { statusCode: r.statusCode, durationMs: Math.round(r.durationMs) };
    const attempt = { number: d.attempts + 1, startedAt, durationMs: r.durationMs, ...(r.statusCode !== undefined ? { statusCode: r.statusCode } : {}), ...(r.error ? { error: r.error } : {}), ...(r.excerpt !== undefined ? { excerpt: r.excerpt } : {}) };

    if (r.statusCode !== undefined && r.statusCode >= 200 && r.statusCode < 300) {
      if (!(await recordAttempt(d, attempt, { status: 'delivered', nextAttemptAt: now }, now))) return overtaken(sent);
      logAttempt('delivered', sent);
      return { kind: 'ack' };
    }
    if (r.statusCode === 410) {
      // The receiver says the endpoint is gone for good: stop at once.
      if (!(await recordAttempt(d, attempt, { status: 'gone', nextAttemptAt: now }, now))) return overtaken(sent);
      logAttempt('gone', sent);
      return { kind: 'ack' };
    }
    const reason = r.error ?? `receiver answered ${r.statusCode}`;
    if (message.attempt >= MAX_WEBHOOK_RETRIES) {
      if (!(await recordAttempt(d, attempt, { status: 'dead', nextAttemptAt: now }, now))) return overtaken(sent);
      logAttempt('dead', { ...sent, reason });
      return { kind: 'dead-letter', reason };
    }
    const honoured = r.statusCode === 429 || r.statusCode === 503 ? parseRetryAfter(r.retryAfter, now) : undefined;
    const delayMs = nextDelay(config.webhookRetryScheduleMs, message.attempt, {
      maxRetryAfterMs: config.webhookMaxRetryAfterMs,
      ...(opts.random ? { random: opts.random } : {}),
      ...(honoured !== undefined ? { retryAfterMs: honoured } : {}),
    });
    if (!(await recordAttempt(d, attempt, { status: 'pending', nextAttemptAt: now + delayMs }, now))) return overtaken(sent);
    logAttempt('retry', { ...sent, reason, delayMs });
    return { kind: 'retry', delayMs, reason };
  }

  return { handle };
}

/**
 * How far another process's clock may be ahead of this one's: a copy of a delivery's message due
 * within this is sent (the retry the transport hands back, recorded by another worker).
 */
const CLOCK_SKEW_MS = 1_000;

// ---- 2. The bodies: a prediction's result and running events
// The webhook body of interface spec 2.2, exactly those fields: `outputs` only when completed,
// `error` only when failed.

export function webhookPayload(app: App, p: Prediction): Record<string, unknown> {
  const v = predictionView(app, p);
  return {
    id: v.id,
    ...(p.status === 'completed' ? { outputs: v.outputs } : {}),
    urls: { get: v.urls.get },
    has_nsfw_contents: v.has_nsfw_contents,
    status: v.status,
    created_at: v.created_at,
    ...(p.status === 'failed' ? { error: v.error ?? 'the prediction failed' } : {}),
    executionTime: v.executionTime,
    timings: { inference: v.timings.inference },
  };
}

/**
 * The body of an event sent while the prediction runs (docs/api/webhooks.md "Events while it
 * runs"): the result's fields as they are now (`status` queued or processing), which event it is,
 * and what the provider says of the run: `progress` (0..1) and `queue_position`, null when not
 * known, and for a `logs` event the log lines so far (as the result route's `?logs=true`).
 */
export function runningEventPayload(app: App, p: Prediction, event: RunningEvent): Record<string, unknown> {
  const lines = event === 'logs' ? parseRunLogs(p.logsText)?.lines ?? [] : [];
  return {
    ...webhookPayload(app, p),
    event,
    progress: p.progress,
    queue_position: p.queuePosition,
    ...(event === 'logs' ? { logs: lines.map((l) => ({ at: new Date(l.at).toISOString(), message: l.message })) } : {}),
  };
}

// ---- 2. The bodies: an alert's event
// The body of an alert's webhook event (docs/api/alerts.md): `type` names the event
// (`alert.low_balance`, `alert.monthly_budget`, `alert.key_soft_limit`; `alert.test` for the
// sample the alert settings send on demand), `alert` is the alert as GET /app/alerts lists it, and
// `message` the sentence the alert's email carries.

/** An alert as GET /app/alerts lists it; its id null in a test event (no alert was recorded). */
export type AlertFacts = Omit<AlertRecord, 'id'> & { id: number | null };

/** What crossed which line, in a sentence. */
export function alertSentence(a: AlertFacts, owner: Owner): string {
  const wallet = owner.teamId === null ? 'Your account' : `Your team (id ${owner.teamId})`;
  const what: Record<AlertKind, string> = {
    low_balance: `The balance of ${wallet.toLowerCase()} is ${a.value} credits, below your low-balance alert of ${a.threshold} credits.`,
    monthly_budget: `${wallet} has committed ${a.value} credits this month (${a.period}), reaching its monthly budget of ${a.threshold} credits.`,
    key_soft_limit: `An API key (id ${a.apiKeyId ?? ''}) of ${wallet.toLowerCase()} has spent ${a.value} credits in its period (${a.period}), reaching its soft spend limit of ${a.threshold} credits.`,
  };
  return what[a.kind];
}

/** An alert as GET /app/alerts lists it, as an alert event carries it and as the account export holds it. */
export function alertView<A extends AlertFacts>(a: A) {
  return { id: a.id as A['id'], kind: a.kind, api_key_id: a.apiKeyId, period: a.period, threshold: a.threshold, value: a.value, created_at: new Date(a.createdAt).toISOString() };
}

export function alertEventPayload(webhookId: string, a: AlertFacts, owner: Owner, opts: { test?: boolean } = {}): Record<string, unknown> {
  return {
    type: opts.test ? 'alert.test' : `alert.${a.kind}`,
    id: webhookId,
    created_at: new Date(a.createdAt).toISOString(),
    team_id: owner.teamId,
    alert: alertView(a),
    message: opts.test
      ? `A test alert from the gateway: if its signature verifies with your signing secret, your receiver is ready for alerts. A real one would say: ${alertSentence(a, owner)}`
      : alertSentence(a, owner),
  };
}

// ---- 3. The signing secrets
// Signing secrets are read once per owner (an account, or a team for its predictions) every few
// seconds, not once per delivery. Another process may see a rotation a few seconds late, which
// is harmless: the previous secret keeps signing for 24 hours. This process forgets at once (the
// rotate handler calls forgetSecrets). The cache belongs to the database it was read from: two
// gateways in one process (the tests run several) each have a user 1, with different secrets.
// An owner's production and sandbox secrets are held apart, and forgotten together.

const TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;
type SecretCache = Map<string, { at: number; secrets: string[] }>;
const caches = new WeakMap<Db, SecretCache>();

function cacheOf(db: Db): SecretCache {
  let cache = caches.get(db);
  if (!cache) caches.set(db, cache = new Map());
  return cache;
}

/** The cache's key: the owner's, and which of its secrets. */
const secretsKey = (owner: Owner, mode: SecretMode) => `${ownerKey(owner)}:${mode.sandbox ? 'sandbox' : 'production'}`;

export async function signingSecrets(db: Db, owner: Owner, mode: SecretMode, key: Buffer, now: number): Promise<string[]> {
  // a team's secrets are the team's whichever member submitted: the key names the team alone
  const k = secretsKey(owner, mode);
  const cache = cacheOf(db);
  const hit = cache.get(k);
  if (hit && now - hit.at < TTL_MS) return hit.secrets;
  const secrets = (await activeSecrets(db, owner, mode, key, now)).map((s) => s.secret);
  if (cache.size >= MAX_ENTRIES) cache.clear();
  cache.set(k, { at: now, secrets });
  return secrets;
}

/** Both modes' secrets of the owner: a take-back replaces both, and a rotation either. */
export function forgetSecrets(db: Db, owner: Owner): void {
  const cache = caches.get(db);
  for (const sandbox of [false, true]) cache?.delete(secretsKey(owner, { sandbox }));
}

// ---- 4. Signing
// Standard Webhooks v1 signing (https://www.standardwebhooks.com): HMAC-SHA256 over
// "<webhook-id>.<webhook-timestamp>.<body>" with the base64-decoded part of each `whsec_`
// secret; several signatures, space-separated, let receivers rotate secrets without downtime.
// Pure: the caller passes the clock's timestamp and the exact bytes it will send.

export function signatureFor(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const mac = crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

export function webhookHeaders(secrets: readonly string[], id: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((s) => signatureFor(s, id, timestampSeconds, body)).join(' '),
  };
}

// ---- 5. Sending
// One delivery attempt: POST the exact body bytes with their signature headers, no redirects,
// a hard timeout, and at most a small piece of the receiver's answer read; its first bytes are
// kept as the attempt's excerpt in the delivery log.

const MAX_RESPONSE_BYTES = 4096;

export interface AttemptResult {
  /** HTTP status, when the receiver answered */
  statusCode?: number;
  retryAfter?: string;
  /** network error, timeout or refused destination */
  error?: string;
  /** the first bytes of the receiver's answer as text (responseExcerpt), when it answered with a body */
  excerpt?: string;
  durationMs: number;
}

/** How much of a receiver's answer the delivery log keeps. */
export const RESPONSE_EXCERPT_BYTES = 512;

/**
 * The first RESPONSE_EXCERPT_BYTES of an answer as UTF-8 text, safe to show in a log or a page:
 * a character cut in half at the end, or bytes that are not UTF-8, become U+FFFD; line breaks and
 * tabs become spaces and every other control character U+FFFD. Undefined for an empty body.
 */
export function responseExcerpt(body: Buffer): string | undefined {
  if (body.length === 0) return undefined;
  const text = body.subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8');
  return text.replace(/[\t\n\r]/g, ' ').replace(/[\u0000-\u001f\u007f-\u009f]/g, '\ufffd');
}

/**
 * How long a connection kept alive between deliveries to one receiver may stay idle before the
 * gateway closes it (less when the receiver's Keep-Alive header says so). Receivers are hosts users
 * name: one that never closes an idle connection itself must not hold a worker's socket for ever.
 */
export const WEBHOOK_IDLE_SOCKET_MS = 5_000;

// `timeout` closes only a socket idle in the pool: a request under way keeps its own deadline.
const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 64, timeout: WEBHOOK_IDLE_SOCKET_MS }),
  https: new https.Agent({ keepAlive: true, maxSockets: 64, timeout: WEBHOOK_IDLE_SOCKET_MS }),
};

export function sendWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: { timeoutMs: number; policy: DestinationPolicy },
): Promise<AttemptResult> {
  const started = performance.now();
  const done = (r: Omit<AttemptResult, 'durationMs'>): AttemptResult => ({ ...r, durationMs: Math.round(performance.now() - started) });
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(done({ error: 'invalid URL' }));
  }
  const host = target.hostname.replace(/^\[|\]$/g, '');
  // A literal address never goes through `lookup`, so it is checked here.
  if (ipaddr.isValid(host) && !addressPermitted(host, opts.policy)) return Promise.resolve(done({ error: 'destination not permitted' }));
  if (target.protocol !== 'https:' && !(opts.policy.allowInsecure && target.protocol === 'http:')) return Promise.resolve(done({ error: 'destination not permitted' }));

  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (r: Omit<AttemptResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(r));
    };
    const req = client.request(target, {
      method: 'POST',
      agent: target.protocol === 'https:' ? agents.https : agents.http,
      lookup: pinnedLookup(opts.policy),
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'mediagate-webhooks/1',
      },
    });
    // One deadline for connect, headers and body alike.
    const timer = setTimeout(() => {
      req.destroy();
      finish({ error: `timed out after ${opts.timeoutMs} ms` });
    }, opts.timeoutMs);
    req.on('response', (res) => {
      let read = 0;
      const head: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        if (read < RESPONSE_EXCERPT_BYTES) head.push(chunk.subarray(0, RESPONSE_EXCERPT_BYTES - read));
        read += chunk.length;
        if (read > MAX_RESPONSE_BYTES) res.destroy();
      });
      const retryAfter = res.headers['retry-after'];
      const result = () => {
        const excerpt = responseExcerpt(Buffer.concat(head));
        return { statusCode: res.statusCode ?? 0, ...(typeof retryAfter === 'string' ? { retryAfter } : {}), ...(excerpt !== undefined ? { excerpt } : {}) };
      };
      res.on('end', () => finish(result()));
      res.on('close', () => finish(result()));
      res.on('error', () => finish(result()));
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      finish({ error: err.code === 'EDESTINATION' ? 'destination not permitted' : `${err.code ?? 'network error'}: ${err.message}`.slice(0, 300) });
    });
    req.end(body);
  });
}

// ---- 6. Events while it runs
// Events a webhook receives while its prediction runs, when the submit asked for them with
// `webhook_events_filter` (docs/api/webhooks.md "Events while it runs"): `start` when a worker
// starts it, `progress` and `logs` as the provider or local adapter reports, at most one of those
// two every WEBHOOK_EVENTS_INTERVAL_MS. Signed like the result (same secrets, Standard Webhooks),
// each with its own webhook-id; tried once, never retried and not recorded: a later event or the
// result supersedes it. Never after the result: see db/webhook-events.ts for the lease that orders them.

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
 * free (db/webhook-events.ts takeEventLease): 'sent' (whatever the receiver answered) or 'skipped'.
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
    const secrets = await signingSecrets(app.db, { userId: p.userId, teamId: p.teamId }, { sandbox: p.isTest }, app.encryptionKey, now);
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
