// Whitelabel studios (README "Whitelabel studios"): rows scoped to their owner (a user or a team,
// db/owner.ts), the lookups the whitelabel plugin makes (by slug, by domain), and the owner's
// usage and revenue report.
import type { Knex } from 'knex';
import type { Db } from './knex.ts';
import { affected, jsonOr, num, numOrNull } from './knex.ts';
import { ownerWhere } from './owner.ts';
import type { Owner } from './owner.ts';
import { DuplicateError, isDuplicateKey } from './errors.ts';
import { withLockRetry } from './retry.ts';

export type PayerMode = 'owner_pays' | 'end_user_pays';

export interface StudioBranding {
  logo_url?: string | null;
  primary_color?: string | null;
  accent_color?: string | null;
}

/** What an owner sets on a studio (create: all of it; update: any part). */
export interface StudioSettings {
  name: string;
  branding: StudioBranding;
  domains: string[];
  allowedModels: string[];
  markupPercent: number;
  modelPrices: Record<string, number>;
  payerMode: PayerMode;
}

export interface Studio extends StudioSettings {
  id: number;
  slug: string;
  userId: number;
  teamId: number | null;
  createdAt: number;
  disabledAt: number | null;
}

interface StudioRow {
  id: number; slug: string; user_id: number; team_id: number | null; name: string; branding: string; allowed_models: string;
  markup_percent: number | string; model_prices: string; payer_mode: string; created_at: number | string; disabled_at: number | string | null;
}

async function domainsOf(db: Knex, ids: number[]): Promise<Map<number, string[]>> {
  const map = new Map<number, string[]>();
  if (ids.length === 0) return map;
  const rows = await db('studio_domains').whereIn('studio_id', ids).orderBy('hostname') as Array<{ hostname: string; studio_id: number }>;
  for (const r of rows) map.set(num(r.studio_id), [...(map.get(num(r.studio_id)) ?? []), r.hostname]);
  return map;
}

function toStudio(r: StudioRow, domains: string[]): Studio {
  return {
    id: num(r.id), slug: r.slug, userId: num(r.user_id), teamId: numOrNull(r.team_id), name: r.name,
    branding: jsonOr<StudioBranding>(r.branding, {}), domains, allowedModels: jsonOr<string[]>(r.allowed_models, []),
    markupPercent: num(r.markup_percent), modelPrices: jsonOr<Record<string, number>>(r.model_prices, {}),
    payerMode: r.payer_mode as PayerMode, createdAt: num(r.created_at), disabledAt: numOrNull(r.disabled_at),
  };
}

async function withDomains(db: Knex, rows: StudioRow[]): Promise<Studio[]> {
  const domains = await domainsOf(db, rows.map((r) => num(r.id)));
  return rows.map((r) => toStudio(r, domains.get(num(r.id)) ?? []));
}

function settingsRow(s: Partial<StudioSettings>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  if (s.name !== undefined) row.name = s.name;
  if (s.branding !== undefined) row.branding = JSON.stringify(s.branding);
  if (s.allowedModels !== undefined) row.allowed_models = JSON.stringify(s.allowedModels);
  if (s.markupPercent !== undefined) row.markup_percent = s.markupPercent;
  if (s.modelPrices !== undefined) row.model_prices = JSON.stringify(s.modelPrices);
  if (s.payerMode !== undefined) row.payer_mode = s.payerMode;
  return row;
}

/** Replaces a studio's domains; a hostname another studio has is a DuplicateError (the primary key). */
async function setDomains(trx: Knex, studioId: number, domains: string[]): Promise<void> {
  await trx('studio_domains').where('studio_id', studioId).delete();
  if (domains.length) await trx('studio_domains').insert(domains.map((hostname) => ({ hostname, studio_id: studioId })));
}

async function duplicateAware<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isDuplicateKey(err)) throw new DuplicateError('this slug or one of these domains is already used by another studio');
    throw err;
  }
}

export async function createStudio(db: Db, owner: Owner, slug: string, s: StudioSettings, now: number): Promise<Studio> {
  // a deadlock victim (concurrent creates touching the domain index) is rolled back whole and run again
  return duplicateAware(() => withLockRetry(() => db.transaction(async (trx) => {
    await trx('studios').insert({ slug, user_id: owner.userId, team_id: owner.teamId, ...settingsRow(s), created_at: now, updated_at: now });
    const row = await trx<StudioRow>('studios').where({ slug }).first();
    if (s.domains.length) await trx('studio_domains').insert(s.domains.map((hostname) => ({ hostname, studio_id: num(row!.id) })));
    return toStudio(row!, [...s.domains].sort());
  })));
}

/** The owner's studios, disabled ones included, newest first. */
export async function listStudios(db: Db, owner: Owner): Promise<Studio[]> {
  return withDomains(db, await db<StudioRow>('studios').where(ownerWhere(owner)).orderBy('id', 'desc'));
}

export async function findStudio(db: Db, owner: Owner, id: number): Promise<Studio | undefined> {
  const row = await db<StudioRow>('studios').where('id', id).andWhere(ownerWhere(owner)).first();
  return row ? (await withDomains(db, [row]))[0] : undefined;
}

/** Changes an enabled studio's settings; undefined when the owner has no such enabled studio. */
export async function updateStudio(db: Db, owner: Owner, id: number, s: Partial<StudioSettings>, now: number): Promise<Studio | undefined> {
  const done = await duplicateAware(() => withLockRetry(() => db.transaction(async (trx) => {
    const n = await trx('studios').where('id', id).andWhere(ownerWhere(owner)).whereNull('disabled_at').update({ ...settingsRow(s), updated_at: now });
    if (affected(n) !== 1) return false;
    if (s.domains !== undefined) await setDomains(trx, id, s.domains);
    return true;
  })));
  return done ? findStudio(db, owner, id) : undefined;
}

/** Disables a studio (idempotent) and frees its domains; false when the owner has no such studio. */
export async function disableStudio(db: Db, owner: Owner, id: number, now: number): Promise<boolean> {
  return db.transaction(async (trx) => {
    const row = await trx('studios').where('id', id).andWhere(ownerWhere(owner)).first('id');
    if (!row) return false;
    await trx('studios').where('id', id).whereNull('disabled_at').update({ disabled_at: now, updated_at: now });
    await trx('studio_domains').where('studio_id', id).delete();
    return true;
  });
}

/**
 * Disables every enabled personal studio of the user and frees their domains, as disableStudio
 * does (a team's studios are the team's and stay); how many. For an account taken back
 * (db/credentials.ts takeBackAccount).
 */
export async function disablePersonalStudios(db: Db, userId: number, now: number): Promise<number> {
  const rows = await db('studios').where(ownerWhere({ userId, teamId: null })).whereNull('disabled_at').select<Array<{ id: number | string }>>('id');
  if (rows.length === 0) return 0;
  const ids = rows.map((r) => num(r.id));
  await db('studios').whereIn('id', ids).whereNull('disabled_at').update({ disabled_at: now, updated_at: now });
  await db('studio_domains').whereIn('studio_id', ids).delete();
  return ids.length;
}

/**
 * The enabled studio a request names, by slug or by one of its domains; undefined for an unknown
 * or disabled one, one whose owning team is deleted, or a personal one whose owner is another
 * studio's user (who runs models only within that studio: handlers/studios.ts refuses to create
 * one; one made before is not served).
 */
export async function findActiveStudio(db: Db, by: { slug: string } | { hostname: string }): Promise<Studio | undefined> {
  const q = db<StudioRow>('studios').select('studios.*')
    .leftJoin('teams', 'teams.id', 'studios.team_id')
    .leftJoin('users as owner', 'owner.id', 'studios.user_id')
    .whereNull('studios.disabled_at')
    .andWhere((w) => { w.whereNull('studios.team_id').orWhereNull('teams.deleted_at'); })
    .andWhere((w) => { w.whereNotNull('studios.team_id').orWhereNull('owner.studio_id'); });
  if ('slug' in by) q.where('studios.slug', by.slug);
  else q.whereIn('studios.id', db('studio_domains').select('studio_id').where('hostname', by.hostname));
  const row = await q.first();
  return row ? (await withDomains(db, [row as StudioRow]))[0] : undefined;
}

/** The studio a user registered in (null: none). */
export async function studioOfUser(db: Db, userId: number): Promise<number | null> {
  const row = await db('users').where('id', userId).first<{ studio_id: number | string | null } | undefined>('studio_id');
  return numOrNull(row?.studio_id ?? null);
}

export interface UsageRow { runs: number; spend: number; revenue: number }

/**
 * A studio's production runs created in [from, to) that were not failed or cancelled: their count,
 * what they cost the paying wallets (price) and the owner's markup (credited once charged: the
 * `studio_revenue` rows, less what refunds took back), in total, by UTC day and by model.
 */
export async function studioUsage(db: Db, studioId: number, from: number, to: number): Promise<UsageRow & { byDay: Array<UsageRow & { day: string }>; byModel: Array<UsageRow & { model: string }> }> {
  // the markup net of what refunds took back: a run has its revenue row and one negative row per refund
  const revenue = db('credit_transactions as c').whereRaw('c.prediction_id = p.id').andWhere('c.kind', 'studio_revenue').sum('c.amount');
  const rows = await db('predictions as p')
    .where('p.studio_id', studioId).andWhere('p.is_test', false)
    .andWhere('p.created_at', '>=', from).andWhere('p.created_at', '<', to)
    .whereNotIn('p.status', ['failed', 'cancelled'])
    .select('p.model', 'p.created_at', 'p.price', revenue.as('amount')) as Array<{ model: string; created_at: number | string; price: number | string; amount: number | string | null }>;
  const total: UsageRow = { runs: 0, spend: 0, revenue: 0 };
  const byDay = new Map<string, UsageRow>();
  const byModel = new Map<string, UsageRow>();
  const add = (into: UsageRow, price: number, revenue: number) => { into.runs++; into.spend += price; into.revenue += revenue; };
  for (const r of rows) {
    const price = num(r.price);
    const revenue = num(r.amount ?? 0);
    const day = new Date(num(r.created_at)).toISOString().slice(0, 10);
    add(total, price, revenue);
    if (!byDay.has(day)) byDay.set(day, { runs: 0, spend: 0, revenue: 0 });
    add(byDay.get(day)!, price, revenue);
    if (!byModel.has(r.model)) byModel.set(r.model, { runs: 0, spend: 0, revenue: 0 });
    add(byModel.get(r.model)!, price, revenue);
  }
  return {
    ...total,
    byDay: [...byDay].sort(([a], [b]) => a.localeCompare(b)).map(([day, u]) => ({ day, ...u })),
    byModel: [...byModel].sort(([a], [b]) => a.localeCompare(b)).map(([model, u]) => ({ model, ...u })),
  };
}
