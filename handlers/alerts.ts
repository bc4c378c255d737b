// Alerts and budgets (docs/api/alerts.md): the settings routes, the alert list, and what a submit
// does after it is recorded: each alert whose line it crossed is recorded once (db/alerts.ts:
// recordCrossing) and sent by email to the wallet's owner (a team's members who may add credit).
import type { App } from '../lib/context.ts';
import type { Handler } from './types.ts';
import type { Owner } from '../lib/owner.ts';
import { sendInBackground } from '../lib/mail.ts';
import type { Mail } from '../lib/mail.ts';
import { can, TEAM_ROLES } from '../lib/team-permissions.ts';
import {
  alertRecipients, alertSettings, crossingRecorded, keySoftLimit, listAlerts, monthKey, monthSpend, rearmLowBalance, recordCrossing, updateAlertSettings,
} from '../db/alerts.ts';
import type { AlertKind, AlertSettings, Crossing } from '../db/alerts.ts';
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

function alertMail(to: string, c: Crossing, walletName: string): Mail {
  const what: Record<AlertKind, string> = {
    low_balance: `The balance of ${walletName.toLowerCase()} is ${c.value} credits, below your low-balance alert of ${c.threshold} credits.`,
    monthly_budget: `${walletName} has committed ${c.value} credits this month (${c.period}), reaching its monthly budget of ${c.threshold} credits.`,
    key_soft_limit: `An API key (id ${c.apiKeyId ?? ''}) of ${walletName.toLowerCase()} has spent ${c.value} credits in its period (${c.period}), reaching its soft spend limit of ${c.threshold} credits.`,
  };
  return {
    to,
    subject: c.kind === 'low_balance' ? 'mediagate: low balance' : c.kind === 'monthly_budget' ? 'mediagate: monthly budget reached' : 'mediagate: API key spend alert',
    text: `${what[c.kind]}\n\nYou get this message once each time the line is crossed. Change your alerts on the Usage page of the dashboard.\n`,
  };
}

/** Sends a crossing this process recorded: one mail to each recipient. */
async function sendAlert(app: App, c: Crossing): Promise<void> {
  const walletName = c.owner.teamId === null ? 'Your account' : `Your team (id ${c.owner.teamId})`;
  for (const to of await alertRecipients(app.db, c.owner, BILLING_ROLES)) sendInBackground(app, alertMail(to, c, walletName));
  app.log.info({ event: 'alert_sent', kind: c.kind, subject: c.subject, period: c.period }, 'alerts: crossing sent');
}

async function crossed(app: App, c: Crossing): Promise<void> {
  if (await recordCrossing(app.db, c)) await sendAlert(app, c);
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
  };
}

/** GET /app/alert_settings */
export const getAlertSettings: Handler<'getAlertSettings'> = async ({ app, caller }) => settingsView(await alertSettings(app.db, caller.owner));

/** PUT /app/alert_settings: every field (null turns one off). */
export const updateAlertSettingsRoute: Handler<'updateAlertSettings'> = async ({ app, caller, body }) => {
  const next = {
    lowBalanceThreshold: body.low_balance_threshold ?? null,
    monthlyBudget: body.monthly_budget ?? null,
    monthlyBudgetHard: (body.monthly_budget_mode ?? 'soft') === 'hard',
  };
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
