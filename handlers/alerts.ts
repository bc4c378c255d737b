// Alerts and budgets (docs/api/alerts.md): the settings routes, the alert list, and what a submit
// does after it is recorded: each alert whose line it crossed is recorded once (db/alerts.ts:
// recordCrossing) and sent by email to the wallet's owner (a team's members who may add credit)
// and, when the wallet has an alert webhook URL, as a signed webhook event (a delivery row that
// the delivery worker attempts and retries like a prediction's).
import type { App } from '../lib/context.ts';
import type { Handler } from './types.ts';
import type { Owner } from '../lib/caller.ts';
import { sendInBackground } from '../lib/mail.ts';
import type { Mail } from '../lib/mail.ts';
import { can, TEAM_ROLES } from '../lib/caller.ts';
import {
  alertRecipients, alertSettings, crossingRecorded, keySoftLimit, listAlerts, monthKey, monthSpend, rearmLowBalance, recordCrossing, updateAlertSettings,
} from '../db/alerts.ts';
import type { AlertSettings, Crossing } from '../db/alerts.ts';
import { insertAlertDelivery } from '../db/alert-deliveries.ts';
import { activeSecrets, newDeliveryId } from '../db/webhooks.ts';
import { alertEventPayload, alertSentence, sendWebhook, webhookHeaders } from '../workers/deliver-webhook.ts';
import type { AlertFacts } from '../workers/deliver-webhook.ts';
import { urlProblem } from '../lib/destination-policy.ts';
import { ValidationFailedError } from '../lib/errors.ts';
import { keySpend } from '../db/key-spend.ts';

/** How long a process trusts what it read of a wallet's settings or a key's soft limit (another process's change applies within it). */
const SETTINGS_TTL_MS = 5_000;

const walletSubject = (o: Owner) => (o.teamId === null ? `u:${o.userId}` : `t:${o.teamId}`);

interface Cached<T> { at: number; value: T }
const caches = new WeakMap<App, { wallets: Map<string, Cached<AlertSettings | undefined>>; keys: Map<number, Cached<Awaited<ReturnType<typeof keySoftLimit>>>> }>();
function cacheOf(app: App) {
  let c = caches.get(app);
  if (!c) caches.set(app, c = { wallets: new Map(), keys: new Map() });
  return c;
}
async function cached<K, T>(map: Map<K, Cached<T>>, key: K, read: () => Promise<T>): Promise<T> {
  const hit = map.get(key);
  if (hit && Date.now() - hit.at < SETTINGS_TTL_MS) return hit.value;
  const value = await read();
  map.set(key, { at: Date.now(), value });
  return value;
}

/** The paying wallet's settings as this process last read them (at most SETTINGS_TTL_MS old). */
export function walletAlertSettings(app: App, payer: Owner): Promise<AlertSettings | undefined> {
  return cached(cacheOf(app).wallets, walletSubject(payer), () => alertSettings(app.db, payer));
}

/** This process forgets a key's soft limit (it was just changed here). */
export function forgetKeySoftLimit(app: App, keyId: number): void {
  cacheOf(app).keys.delete(keyId);
}

const BILLING_ROLES = TEAM_ROLES.filter((r) => can(r, 'top_up'));

const factsOf = (c: Crossing, id: number | null): AlertFacts => ({
  id, kind: c.kind, apiKeyId: c.apiKeyId, period: c.period, threshold: c.threshold, value: c.value, createdAt: c.now,
});

function alertMail(to: string, c: Crossing): Mail {
  return {
    to,
    subject: c.kind === 'low_balance' ? 'mediagate: low balance' : c.kind === 'monthly_budget' ? 'mediagate: monthly budget reached' : 'mediagate: API key spend alert',
    text: `${alertSentence(factsOf(c, null), c.owner)}\n\nYou get this message once each time the line is crossed. Change your alerts on the Usage page of the dashboard.\n`,
  };
}

/**
 * Sends a crossing this process recorded: one mail to each recipient and, when the wallet has an
 * alert webhook URL, a delivery (recorded first: one whose message is lost is published again by
 * the sweeper).
 */
async function sendAlert(app: App, c: Crossing, alertId: number): Promise<void> {
  for (const to of await alertRecipients(app.db, c.owner, BILLING_ROLES)) sendInBackground(app, alertMail(to, c));
  const url = (await alertSettings(app.db, c.owner))?.webhookUrl ?? null;
  if (url !== null) {
    const id = newDeliveryId();
    await insertAlertDelivery(app.db, { id, alertId, owner: c.owner, url }, app.clock());
    await app.dispatcher.dispatchWebhook(id);
  }
  app.log.info({ event: 'alert_sent', kind: c.kind, subject: c.subject, period: c.period, webhook: url !== null }, 'alerts: crossing sent');
}

async function crossed(app: App, c: Crossing): Promise<void> {
  const alertId = await recordCrossing(app.db, c);
  if (alertId !== undefined) await sendAlert(app, c, alertId);
}

/**
 * After a submit was recorded (or refused by a hard budget): the alerts whose line it crossed.
 * Cheap when nothing is set: the settings come from this process's short cache. Runs after the
 * answer's work, never failing the submit: an error is logged.
 */
export async function alertsAfterSubmit(app: App, a: { payer: Owner; apiKeyId: number | null; now: number }): Promise<void> {
  const { payer, apiKeyId, now } = a;
  const s = await walletAlertSettings(app, payer);
  if (s && s.lowBalanceThreshold !== null) {
    // read now, not as the hold left it: a check that runs late must not see a balance older
    // than another's crossing (and re-arm the alert for nothing)
    const fresh = await alertSettings(app.db, payer);
    if (fresh && fresh.lowBalanceThreshold !== null) {
      const subject = walletSubject(payer);
      const period = String(fresh.lowBalanceEpoch);
      if (fresh.balance < fresh.lowBalanceThreshold) {
        await crossed(app, { owner: payer, apiKeyId: null, subject, kind: 'low_balance', period, threshold: fresh.lowBalanceThreshold, value: fresh.balance, now });
      } else if (await crossingRecorded(app.db, subject, 'low_balance', period)) {
        // back above the line after an alert: the next crossing alerts again
        await rearmLowBalance(app.db, payer, fresh.lowBalanceEpoch);
      }
    }
  }
  if (s && s.monthlyBudget !== null) {
    const spent = await monthSpend(app.db, payer, now);
    if (spent >= s.monthlyBudget) {
      await crossed(app, { owner: payer, apiKeyId: null, subject: walletSubject(payer), kind: 'monthly_budget', period: monthKey(now), threshold: s.monthlyBudget, value: spent, now });
    }
  }
  if (apiKeyId !== null) {
    const soft = await cached(cacheOf(app).keys, apiKeyId, () => keySoftLimit(app.db, apiKeyId));
    if (soft) {
      const spent = await keySpend(app.db, apiKeyId, soft.period, now);
      const period = soft.period === 'day' ? new Date(now).toISOString().slice(0, 10) : monthKey(now);
      if (spent >= soft.amount) await crossed(app, { owner: payer, apiKeyId, subject: `k:${apiKeyId}`, kind: 'key_soft_limit', period, threshold: soft.amount, value: spent, now });
    }
  }
}

/** A hard budget refused a submit: the budget's alert for the month (once), whatever the spend read now. */
export async function budgetRefused(app: App, payer: Owner, budget: number, now: number): Promise<void> {
  const spent = await monthSpend(app.db, payer, now);
  await crossed(app, { owner: payer, apiKeyId: null, subject: walletSubject(payer), kind: 'monthly_budget', period: monthKey(now), threshold: budget, value: spent, now });
}

// ---- routes ----

function settingsView(s: AlertSettings | undefined) {
  return {
    low_balance_threshold: s?.lowBalanceThreshold ?? null,
    monthly_budget: s?.monthlyBudget ?? null,
    monthly_budget_mode: s?.monthlyBudgetHard ? 'hard' as const : 'soft' as const,
    webhook_url: s?.webhookUrl ?? null,
  };
}

/** A 422 naming what is wrong with an alert webhook URL: the destination policy of a submit's `webhook`. */
function checkWebhookUrl(app: App, url: string, field: string): void {
  const problem = urlProblem(url, { allowInsecure: app.config.webhookAllowInsecure });
  if (problem) throw new ValidationFailedError([{ loc: ['body', field], msg: problem, type: 'value_error' }]);
}

/** GET /app/alert_settings */
export const getAlertSettings: Handler<'getAlertSettings'> = async ({ app, caller }) => settingsView(await alertSettings(app.db, caller.owner));

/** PUT /app/alert_settings: every field (null turns one off). */
export const updateAlertSettingsRoute: Handler<'updateAlertSettings'> = async ({ app, caller, body }) => {
  const next = {
    lowBalanceThreshold: body.low_balance_threshold ?? null,
    monthlyBudget: body.monthly_budget ?? null,
    monthlyBudgetHard: (body.monthly_budget_mode ?? 'soft') === 'hard',
    webhookUrl: body.webhook_url ?? null,
  };
  if (next.webhookUrl !== null) checkWebhookUrl(app, next.webhookUrl, 'webhook_url');
  await updateAlertSettings(app.db, caller.owner, next);
  cacheOf(app).wallets.delete(walletSubject(caller.owner));
  return settingsView(await alertSettings(app.db, caller.owner));
};

/** GET /app/alerts: the alerts sent, newest first. */
export const listAlertsRoute: Handler<'listAlerts'> = async ({ app, caller }) => ({
  items: (await listAlerts(app.db, caller.owner, 100)).map((a) => ({
    id: a.id, kind: a.kind, api_key_id: a.apiKeyId, period: a.period, threshold: a.threshold, value: a.value, created_at: new Date(a.createdAt).toISOString(),
  })),
});

/**
 * POST /app/alert_settings/test: one signed `alert.test` event, at once, to `url` or the saved
 * alert webhook URL, with a sample low-balance alert; what the receiver answered comes back.
 * Nothing is recorded or retried (as POST /app/webhook_test, whose per-minute budget it shares).
 */
export const sendAlertTest: Handler<'sendAlertTest'> = async ({ app, caller, body }) => {
  const s = await alertSettings(app.db, caller.owner);
  const url = body.url ?? s?.webhookUrl ?? null;
  if (url === null) {
    throw new ValidationFailedError([{ loc: ['body', 'url'], msg: 'no alert webhook URL is saved: set webhook_url in the alert settings, or pass url', type: 'missing' }]);
  }
  checkWebhookUrl(app, url, 'url');
  const now = app.clock();
  const id = newDeliveryId();
  const threshold = s?.lowBalanceThreshold ?? 1000;
  const sample: AlertFacts = { id: null, kind: 'low_balance', apiKeyId: null, period: String(s?.lowBalanceEpoch ?? 0), threshold, value: Math.min(s?.balance ?? 0, threshold - 1), createdAt: now };
  const payload = JSON.stringify(alertEventPayload(id, sample, caller.owner, { test: true }));
  // the secrets a delivery is signed with now (created on first use, as the secret route does)
  const secrets = (await activeSecrets(app.db, caller.owner, app.encryptionKey, now)).map((x) => x.secret);
  const r = await sendWebhook(url, payload, webhookHeaders(secrets, id, Math.floor(now / 1000), payload), {
    timeoutMs: app.config.webhookTimeoutMs, policy: { allowInsecure: app.config.webhookAllowInsecure },
  });
  const delivered = r.statusCode !== undefined && r.statusCode >= 200 && r.statusCode < 300;
  return { webhook_id: id, delivered, status_code: r.statusCode ?? null, error: r.error ?? null, duration_ms: Math.round(r.durationMs) };
};
