// Alerts and budgets (docs/api/alerts.md): a wallet's settings (low-balance threshold, monthly
// budget soft or hard), a key's soft spend limit, the month's committed
// spend, the hard budget's check inside a submit's transaction (db/store/portable.ts), and the
// crossings: one `alerts` row per (subject, kind, period), inserted by whichever concurrent caller
// gets there first; only that caller sends the alert.
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from './knex.ts';
import { spentOrHeld } from './predictions/record.ts';
import { ownerWhere } from './owner.ts';
import type { Owner } from './owner.ts';
import { walletRow } from './wallet/ledger.ts';
import { affected, bool, num, numOrNull } from './knex.ts';
import { periodStart } from './key-spend.ts';
import type { SpendPeriod } from './key-spend.ts';

export interface AlertSettings {
  lowBalanceThreshold: number | null;
  monthlyBudget: number | null;
  /** hard: submits past the budget are refused; soft: alert only */
  monthlyBudgetHard: boolean;
  lowBalanceEpoch: number;
  /** where alerts also go as signed webhook events; null: by email only */
  webhookUrl: string | null;
  /** the wallet's spendable balance when read */
  balance: number;
}

export const ALERT_KINDS = ['low_balance', 'monthly_budget', 'key_soft_limit'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

const SETTINGS_COLUMNS = ['low_balance_threshold', 'monthly_budget', 'monthly_budget_hard', 'low_balance_epoch', 'alert_webhook_url', 'balance'];

function settingsOf(r: Record<string, unknown> | undefined): AlertSettings | undefined {
  if (!r) return undefined;
  return {
    lowBalanceThreshold: numOrNull(r.low_balance_threshold ?? null),
    monthlyBudget: numOrNull(r.monthly_budget ?? null),
    monthlyBudgetHard: bool(r.monthly_budget_hard),
    lowBalanceEpoch: num(r.low_balance_epoch ?? 0),
    webhookUrl: typeof r.alert_webhook_url === 'string' ? r.alert_webhook_url : null,
    balance: num(r.balance ?? 0),
  };
}

export async function alertSettings(db: Knex, owner: Owner): Promise<AlertSettings | undefined> {
  return settingsOf(await walletRow(db, owner).first(SETTINGS_COLUMNS) as Record<string, unknown> | undefined);
}

export async function updateAlertSettings(db: Db, owner: Owner, s: Omit<AlertSettings, 'lowBalanceEpoch' | 'balance'>): Promise<void> {
  await walletRow(db, owner).update({
    low_balance_threshold: s.lowBalanceThreshold, monthly_budget: s.monthlyBudget, monthly_budget_hard: s.monthlyBudgetHard, alert_webhook_url: s.webhookUrl,
  });
}

/** Removes the wallet's alert webhook URL, keeping its thresholds and budget; whether it had one. */
export async function removeAlertWebhookUrl(db: Db, owner: Owner): Promise<boolean> {
  return affected(await walletRow(db, owner).whereNotNull('alert_webhook_url').update({ alert_webhook_url: null })) > 0;
}

/** YYYY-MM of the UTC month containing `now`. */
export const monthKey = (now: number) => new Date(now).toISOString().slice(0, 7);

/**
 * Credits the wallet has committed this UTC month (held or charged): the prices of its production
 * predictions created this month that did not fail or get cancelled (their holds went back; a
 * cancelled chat call counts what it was charged: db/predictions/record.ts spentOrHeld). The
 * wallet's own runs count unless someone else paid for them (a user of an `owner_pays` studio:
 * its owner paid), and so do the runs it paid for as the owner of such a studio.
 */
export async function monthSpend(db: Knex, payer: Owner, now: number, opts: { locking?: boolean } = {}): Promise<number> {
  const since = periodStart('month', now);
  const sum = async (q: Knex.QueryBuilder): Promise<number> => {
    // a locking read sees the latest committed rows whatever the transaction's snapshot (MariaDB; SQLite has one writer)
    if (opts.locking) q.forShare();
    const row = await spentOrHeld(q.andWhere('created_at', '>=', since))
      .sum<{ spent: number | string | null }[]>({ spent: 'price' })
      .first();
    return num(row?.spent ?? 0);
  };
  const own = await sum(db('predictions').where(ownerWhere(payer)).whereNull('payer_user_id'));
  // the owner_pays studios' runs: found by studio (indexed by studio and time), kept when this wallet paid
  const paid = await sum(db('predictions')
    .whereIn('studio_id', db('studios').where(ownerWhere(payer)).select('id'))
    .where((q) => {
      if (payer.teamId === null) q.where('payer_user_id', payer.userId).whereNull('payer_team_id');
      else q.where('payer_team_id', payer.teamId);
    }));
  return own + paid;
}

/**
 * A hard monthly budget, checked in the submit's transaction after the wallet's row is locked
 * (every submit of the wallet queues on it, so parallel submits admit exactly what fits): the
 * budget read again under the lock, so one set a moment ago applies. Undefined when it admits the
 * price; else the budget.
 */
export async function hardBudgetRefusal(trx: Knex, payer: Owner, price: number, now: number, opts: { locking: boolean }): Promise<number | undefined> {
  const s = await alertSettings(trx, payer);
  if (!s || s.monthlyBudget === null || !s.monthlyBudgetHard) return undefined;
  const spent = await monthSpend(trx, payer, now, opts);
  return spent + price > s.monthlyBudget ? s.monthlyBudget : undefined;
}

export interface Crossing {
  owner: Owner;
  apiKeyId: number | null;
  subject: string;
  kind: AlertKind;
  period: string;
  threshold: number;
  value: number;
  now: number;
}

/**
 * Records a crossing once: an INSERT that a duplicate (subject, kind, period) turns into nothing,
 * then a read of the row's claim. The alert's id for the one caller whose insert made the row;
 * undefined for every other.
 */
export async function recordCrossing(db: Db, c: Crossing): Promise<number | undefined> {
  const claim = crypto.randomBytes(12).toString('hex');
  await db('alerts').insert({
    user_id: c.owner.userId, team_id: c.owner.teamId, api_key_id: c.apiKeyId, subject: c.subject, kind: c.kind, period: c.period,
    threshold: c.threshold, value: c.value, claim, created_at: c.now,
  }).onConflict(['subject', 'kind', 'period']).ignore();
  const row = await db('alerts').where({ subject: c.subject, kind: c.kind, period: c.period }).first('id', 'claim') as { id: number | string; claim: string } | undefined;
  return row?.claim === claim ? num(row.id) : undefined;
}

/** Whether an alert of this kind was recorded for the period (the low-balance alert's current epoch). */
export async function crossingRecorded(db: Db, subject: string, kind: AlertKind, period: string): Promise<boolean> {
  return (await db('alerts').where({ subject, kind, period }).first('id')) !== undefined;
}

/** Moves the low-balance alert on to its next epoch, once (conditional on the epoch read). */
export async function rearmLowBalance(db: Db, owner: Owner, epoch: number): Promise<void> {
  await walletRow(db, owner).where('low_balance_epoch', epoch).update({ low_balance_epoch: epoch + 1 });
}

export interface AlertRecord {
  id: number;
  kind: AlertKind;
  apiKeyId: number | null;
  period: string;
  threshold: number;
  value: number;
  createdAt: number;
}

export function alertFromRow(r: Record<string, unknown>): AlertRecord {
  return {
    id: num(r.id), kind: String(r.kind) as AlertKind, apiKeyId: numOrNull(r.api_key_id ?? null), period: String(r.period),
    threshold: num(r.threshold), value: num(r.value), createdAt: num(r.created_at),
  };
}

export async function listAlerts(db: Db, owner: Owner, limit: number): Promise<AlertRecord[]> {
  const rows = await db('alerts').where(ownerWhere(owner)).orderBy('id', 'desc').limit(limit) as Array<Record<string, unknown>>;
  return rows.map(alertFromRow);
}

/**
 * A key's soft spend limit, its period (the key's hard limit's period, else a month) and the key's
 * owner: its user, or its team for a team key. The key's alert is that owner's, whichever wallet
 * paid for the runs that crossed it (a studio's owner, a team through `team_id`).
 */
export async function keySoftLimit(db: Db, keyId: number): Promise<{ amount: number; period: SpendPeriod; owner: Owner } | undefined> {
  const r = await db('api_keys').where('id', keyId).first('soft_spend_limit', 'spend_limit_period', 'user_id', 'team_id') as Record<string, unknown> | undefined;
  if (!r || r.soft_spend_limit === null || r.soft_spend_limit === undefined) return undefined;
  return {
    amount: num(r.soft_spend_limit), period: r.spend_limit_period === 'day' ? 'day' : 'month',
    owner: { userId: num(r.user_id), teamId: numOrNull(r.team_id ?? null) },
  };
}

/**
 * Who is mailed: the user, or a team's members whose role may add credit (owner, admin, billing),
 * each only once their address is verified; no one for a deleted team. Anyone can register an address they do not own (a
 * typo, or on purpose): an alert tells the balance and spend, which go to a mailbox only when it
 * has proved to be the account's. Unverified, the alert is listed and sent to the webhook only.
 */
export async function alertRecipients(db: Db, owner: Owner, billingRoles: readonly string[]): Promise<string[]> {
  if (owner.teamId === null) {
    const u = await db('users').where('id', owner.userId).andWhere('email_verified', true).first('email') as { email: string } | undefined;
    return u ? [u.email] : [];
  }
  // a deleted team's alert (a crossing its last submit made as it was deleted) goes to no former member
  const rows = await db('team_members').join('users', 'users.id', 'team_members.user_id').join('teams', 'teams.id', 'team_members.team_id')
    .where('team_members.team_id', owner.teamId).whereNull('teams.deleted_at').whereIn('team_members.role', [...billingRoles]).andWhere('users.email_verified', true)
    .select('users.email') as Array<{ email: string }>;
  return rows.map((r) => r.email);
}
