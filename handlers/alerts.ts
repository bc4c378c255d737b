// Alerts and budgets (docs/api/alerts.md): the settings routes, the alert list and the test
// event. What a submit does after it is recorded (the alerts whose line it crossed) and the
// settings cache it reads are handlers/admission.ts.
import type { App } from '../lib/context.ts';
import type { Handler } from './types.ts';
import { alertSettings, listAlerts, updateAlertSettings } from '../db/alerts.ts';
import type { AlertSettings } from '../db/alerts.ts';
import { activeSecrets, newDeliveryId } from '../db/webhooks.ts';
import { alertEventPayload, alertView, sendWebhook, webhookHeaders } from '../workers/deliver-webhook.ts';
import type { AlertFacts } from '../workers/deliver-webhook.ts';
import { urlProblem } from '../lib/destination-policy.ts';
import { ValidationFailedError } from '../lib/errors.ts';
import { forgetWalletAlertSettings } from './admission.ts';
import { refuseSandboxKey } from './guards.ts';
import { webhookUrlView } from '../lib/webhook-visibility.ts';
import type { WebhookUrlView } from '../lib/webhook-visibility.ts';

/** A wallet's alert settings as the API shows them (also the account export's); the webhook URL as `urls` shows it. */
export function settingsView(s: AlertSettings | undefined, urls: WebhookUrlView) {
  return {
    low_balance_threshold: s?.lowBalanceThreshold ?? null,
    monthly_budget: s?.monthlyBudget ?? null,
    monthly_budget_mode: s?.monthlyBudgetHard ? 'hard' as const : 'soft' as const,
    webhook_url: s?.webhookUrl ? urls.alert(s.webhookUrl) : null,
  };
}

/** A 422 naming what is wrong with an alert webhook URL: the destination policy of a submit's `webhook`. */
function checkWebhookUrl(app: App, url: string, field: string): void {
  const problem = urlProblem(url, { allowInsecure: app.config.webhookAllowInsecure });
  if (problem) throw new ValidationFailedError([{ loc: ['body', field], msg: problem, type: 'value_error' }]);
}

/** GET /app/alert_settings */
export const getAlertSettings: Handler<'getAlertSettings'> = async ({ app, caller }) => settingsView(await alertSettings(app.db, caller.owner), webhookUrlView(caller));

/** PUT /app/alert_settings: every field (null turns one off). */
export const updateAlertSettingsRoute: Handler<'updateAlertSettings'> = async ({ app, caller, body }) => {
  refuseSandboxKey(caller, 'change alert settings (a budget applies to production submits)');
  const next = {
    lowBalanceThreshold: body.low_balance_threshold ?? null,
    monthlyBudget: body.monthly_budget ?? null,
    monthlyBudgetHard: (body.monthly_budget_mode ?? 'soft') === 'hard',
    webhookUrl: body.webhook_url ?? null,
  };
  if (next.webhookUrl !== null) checkWebhookUrl(app, next.webhookUrl, 'webhook_url');
  await updateAlertSettings(app.db, caller.owner, next);
  forgetWalletAlertSettings(app, caller.owner);
  return settingsView(await alertSettings(app.db, caller.owner), webhookUrlView(caller));
};

/** GET /app/alerts: the alerts sent, newest first. */
export const listAlertsRoute: Handler<'listAlerts'> = async ({ app, caller }) => ({
  items: (await listAlerts(app.db, caller.owner, 100)).map(alertView),
});

/**
 * POST /app/alert_settings/test: one signed `alert.test` event, at once, to `url` or the saved
 * alert webhook URL, with a sample low-balance alert; what the receiver answered comes back.
 * Nothing is recorded or retried (as POST /app/webhook_test, whose per-minute budget it shares).
 */
export const sendAlertTest: Handler<'sendAlertTest'> = async ({ app, caller, body }) => {
  // signed with the production secret, which a sandbox key must never get a signature of
  refuseSandboxKey(caller, 'send a test alert (alerts are signed with the production signing secret)');
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
  // the secrets an alert's delivery is signed with now: the production ones (created on first use, as the secret route does)
  const secrets = (await activeSecrets(app.db, caller.owner, { sandbox: false }, app.encryptionKey, now)).map((x) => x.secret);
  const r = await sendWebhook(url, payload, webhookHeaders(secrets, id, Math.floor(now / 1000), payload), {
    timeoutMs: app.config.webhookTimeoutMs, policy: { allowInsecure: app.config.webhookAllowInsecure },
  });
  const delivered = r.statusCode !== undefined && r.statusCode >= 200 && r.statusCode < 300;
  return { webhook_id: id, delivered, status_code: r.statusCode ?? null, error: r.error ?? null, duration_ms: Math.round(r.durationMs) };
};
