// Webhook secrets, the full record of a prediction with its deliveries, and redelivery.
import { findInlineUsage } from '../db/prediction-usage.ts';
import type { Handler, ReplyOf } from './types.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationFailedError } from '../lib/errors.ts';
import { activeSecrets, listDeliveries, listOwnerDeliveries, newDeliveryId, reopenDeadDeliveries, reopenDelivery, rotateSecret } from '../db/webhooks.ts';
import type { Attempt, Delivery, DeliveryCursor, SecretMode } from '../db/webhooks.ts';
import { findPrediction } from '../db/predictions/record.ts';
import type { Prediction } from '../db/predictions/record.ts';
import type { App } from '../lib/context.ts';
import { predictionView } from '../lib/prediction-view.ts';
import { readsAlerts } from './guards.ts';
import { forgetSecrets, sendWebhook, webhookHeaders } from '../workers/deliver-webhook.ts';
import { urlProblem } from '../lib/destination-policy.ts';
import { webhookUrlView } from '../lib/webhook-visibility.ts';
import type { WebhookUrlView } from '../lib/webhook-visibility.ts';

function secretView(list: Array<{ secret: string; createdAt: number; expiresAt: number | null }>, mode: SecretMode) {
  const [current, ...previous] = list;
  return {
    secret: current!.secret,
    sandbox: mode.sandbox,
    created_at: new Date(current!.createdAt).toISOString(),
    // still signing deliveries until they expire (24 hours after a rotation)
    previous: previous.map((p) => ({ created_at: new Date(p.createdAt).toISOString(), expires_at: p.expiresAt === null ? null : new Date(p.expiresAt).toISOString() })),
  };
}

/**
 * Which of the owner's secrets a secret route acts on, or a test event is signed with: a sandbox
 * key's, always the sandbox one (it must never read, replace or sign with the one that signs
 * production deliveries), and asking it for the production one is refused rather than quietly
 * answered with the other; anyone else's, the production one unless `sandbox=true`.
 */
function secretMode(caller: { isTest: boolean }, sandbox: boolean | undefined): SecretMode {
  if (caller.isTest && sandbox === false) {
    throw new ForbiddenError('a sandbox key can read and rotate only the sandbox signing secret, and sign test events only with it; leave out sandbox=false, or use a production key or a session for the production secret');
  }
  return { sandbox: caller.isTest || sandbox === true };
}

/** GET /app/webhook_secret: the owner's signing secret (created on first use): the account's, or with team_id the team's; production or sandbox (secretMode). */
export const getWebhookSecret: Handler<'getWebhookSecret'> = async ({ app, caller, query }) => {
  const mode = secretMode(caller, query.sandbox);
  return secretView(await activeSecrets(app.db, caller.owner, mode, app.encryptionKey, app.clock()), mode);
};

/** POST /app/webhook_secret/rotate: a new secret of the mode (secretMode); the old one keeps signing for 24 hours. */
export const rotateWebhookSecret: Handler<'rotateWebhookSecret'> = async ({ app, caller, query }) => {
  const mode = secretMode(caller, query.sandbox);
  await rotateSecret(app.db, caller.owner, mode, app.encryptionKey, app.clock());
  forgetSecrets(app.db, caller.owner);
  return secretView(await activeSecrets(app.db, caller.owner, mode, app.encryptionKey, app.clock()), mode);
};

/** A webhook delivery with its attempts, as the delivery routes show it (also the account export's alerts'). */
export function deliveryView(d: Omit<Delivery, 'predictionId'> & { attemptLog: Attempt[] }) {
  return {
    id: d.id,
    url: d.url,
    status: d.status,
    attempts: d.attempts,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    created_at: d.createdAt,
    attempt_log: d.attemptLog.map((a) => ({ number: a.number, started_at: a.startedAt, duration_ms: a.durationMs, status_code: a.statusCode, error: a.error, response_excerpt: a.responseExcerpt })),
  };
}

/**
 * GET /app/prediction_response/{request_id}: the prediction with its input, cost and webhook
 * deliveries. Looked up with the caller's owner (another owner's id is unknown); a sandbox key
 * sees only sandbox predictions. Its webhook URL is whole only to a caller who could have set it
 * (lib/webhook-visibility.ts).
 */
export const getPredictionResponse: Handler<'getPredictionResponse'> = async ({ app, caller, params }) => {
  const p = await findPrediction(app.db, caller.owner, params.request_id);
  if (!p || (caller.isTest && !p.isTest)) throw new NotFoundError('prediction not found');
  // a language model's answer (through /v1/chat/completions, or its asynchronous endpoint): its text and tokens; a client that left was charged too
  const inline = await findInlineUsage(app.db, p.id);
  const usage = inline ? {
    output_text: inline.text, tokens: { input: inline.inputTokens, output: inline.outputTokens, source: inline.source },
    ...(p.status === 'cancelled' ? { cost: p.price } : {}),
  } : {};
  const urls = webhookUrlView(caller);
  const deliveries = (await listDeliveries(app.db, p.id)).map((d) => ({ ...deliveryView(d), url: urls.prediction(d.url, p.userId) }));
  return { ...usageLogDetail(app, p, urls), ...usage, webhook_deliveries: deliveries };
};

/** A prediction as UsageLogDetailResponse shows it, its webhook deliveries aside (also the account export's); its webhook URL as `urls` shows it. */
export function usageLogDetail(app: App, p: Prediction, urls: WebhookUrlView) {
  return {
    ...predictionView(app, p),
    request_id: p.id,
    review_status: p.reviewStatus,
    input: p.input,
    cost: p.status === 'completed' ? p.price : 0,
    is_test: p.isTest,
    team_id: p.teamId,
    webhook: p.webhookUrl === null ? null : urls.prediction(p.webhookUrl, p.userId),
  };
}

/** POST /app/webhook_deliveries/{id}/redeliver: a dead or gone delivery tries again, same webhook-id. */
export const redeliverWebhook: Handler<'redeliverWebhook'> = async ({ app, caller, params, h, request }) => {
  const { id } = params;
  // A sandbox key does only sandbox things: a production prediction's delivery is unknown to it.
  // An alert's is unknown to a caller the delivery log lists none to (alerts tell the balance).
  const outcome = await reopenDelivery(app.db, id, caller.owner, app.clock(), { sandboxOnly: caller.isTest, alerts: readsAlerts(caller) });
  if (outcome === 'not-found') throw new NotFoundError('webhook delivery not found');
  if (outcome === 'busy') throw new ConflictError('only a dead-lettered or gone delivery can be redelivered');
  await app.dispatcher.dispatchWebhook(id, request.app.requestId);
  const reply: ReplyOf<'redeliverWebhook'> = { id, status: 'pending' };
  return h.response(reply).code(202);
};

/**
 * POST /app/webhook_test: one signed `webhook.test` event to a URL, at once, with the owner's
 * current secrets of the mode (secretMode: the production ones, or with sandbox=true the sandbox
 * ones; a sandbox key's always the sandbox ones, as its predictions' deliveries are signed); what
 * the receiver answered comes back. Nothing is recorded or retried.
 */
export const sendWebhookTest: Handler<'sendWebhookTest'> = async ({ app, caller, body, query }) => {
  // refused before the URL is looked at: a sandbox key asking for the production secret is told so
  const mode = secretMode(caller, query.sandbox);
  const problem = urlProblem(body.url, { allowInsecure: app.config.webhookAllowInsecure });
  if (problem) throw new ValidationFailedError([{ loc: ['body', 'url'], msg: problem, type: 'value_error' }]);
  const now = app.clock();
  const id = newDeliveryId();
  const payload = JSON.stringify({
    type: 'webhook.test', id, created_at: new Date(now).toISOString(),
    // which secret signed it, in the one field meant for the reader
    message: `A test event from the gateway, signed with your ${mode.sandbox ? 'sandbox' : 'production'} signing secret: if its signature verifies with that secret, your receiver is ready.`,
  });
  // the secrets a delivery of the mode is signed with now (created on first use, as the secret route does)
  const secrets = (await activeSecrets(app.db, caller.owner, mode, app.encryptionKey, now)).map((x) => x.secret);
  const r = await sendWebhook(body.url, payload, webhookHeaders(secrets, id, Math.floor(now / 1000), payload), {
    timeoutMs: app.config.webhookTimeoutMs, policy: { allowInsecure: app.config.webhookAllowInsecure },
  });
  const delivered = r.statusCode !== undefined && r.statusCode >= 200 && r.statusCode < 300;
  return { webhook_id: id, delivered, status_code: r.statusCode ?? null, error: r.error ?? null, duration_ms: Math.round(r.durationMs) };
};

/**
 * GET /app/webhook_deliveries: the owner's delivery log, newest first, a page at a time (a sandbox
 * key sees only sandbox predictions' deliveries; a team member without read_balance, no alert's).
 * Each URL is whole only to a caller who could have set it: a prediction's, or the alert
 * webhook's (lib/webhook-visibility.ts).
 */
export const listWebhookDeliveries: Handler<'listWebhookDeliveries'> = async ({ app, caller, query }) => {
  const limit = query.limit ?? 50;
  const before = query.before === undefined ? undefined : parseCursor(query.before);
  // one more than asked: whether there is a next page
  // alerts (low balance, budget, a key's spend) tell the balance: not listed to a team member
  // without read_balance, nor to a credential without account:read, as listAlerts is not
  const rows = await listOwnerDeliveries(app.db, caller.owner, {
    limit: limit + 1, ...(query.status ? { status: query.status } : {}), ...(before ? { before } : {}), sandboxOnly: caller.isTest, alerts: readsAlerts(caller),
  });
  const urls = webhookUrlView(caller);
  const items = rows.slice(0, limit).map((d) => ({
    ...deliveryView(d), url: d.alertKind === null ? urls.prediction(d.url, d.userId) : urls.alert(d.url),
    prediction_id: d.predictionId, event_type: d.alertKind === null ? 'prediction' : `alert.${d.alertKind}`,
  }));
  const last = items.at(-1);
  return { items, next_before: rows.length > limit && last ? `${last.created_at}${CURSOR_SEPARATOR}${last.id}` : null };
};

/** Between a cursor's time and its delivery id: a character no id (`msg_` and base64url) holds and a URL needs not escape. */
const CURSOR_SEPARATOR = '~';

/**
 * `before`: a page's `next_before` (its last delivery's time and id: the rows of the same
 * millisecond after it are not skipped), or a plain date and time (everything created before it).
 */
function parseCursor(raw: string): DeliveryCursor {
  const [time = '', id] = raw.split(CURSOR_SEPARATOR, 2);
  const at = Date.parse(time);
  // a date alone: before its millisecond, every id (no id sorts below the empty string)
  if (Number.isFinite(at) && /^\d{4}-\d{2}-\d{2}T/.test(time)) return { createdAt: at, id: id ?? '' };
  throw new ValidationFailedError([{ loc: ['query', 'before'], msg: 'must be the previous page\'s next_before, or a date and time such as 2026-11-29T06:00:00Z', type: 'value_error' }]);
}

/** At most this many dead deliveries are sent again by one call. */
const REDELIVER_DEAD_LIMIT = 1000;

/** POST /app/webhook_deliveries/redeliver_dead: every dead delivery since a time, a new round each. */
export const redeliverDeadWebhooks: Handler<'redeliverDeadWebhooks'> = async ({ app, caller, body, h, request }) => {
  const since = Date.parse(body.since);
  if (!Number.isFinite(since)) throw new ValidationFailedError([{ loc: ['body', 'since'], msg: 'must be a date and time such as 2026-11-29T06:00:00Z', type: 'value_error' }]);
  const { ids, more } = await reopenDeadDeliveries(app.db, caller.owner, since, app.clock(), { limit: REDELIVER_DEAD_LIMIT, sandboxOnly: caller.isTest, alerts: readsAlerts(caller) });
  // each published as a redelivery is; one the queue cannot take now is published by the sweeper
  for (const id of ids) await app.dispatcher.dispatchWebhook(id, request.app.requestId);
  const reply: ReplyOf<'redeliverDeadWebhooks'> = { count: ids.length, ids, more };
  return h.response(reply).code(202);
};
