// Whitelabel studios (README "Whitelabel studios"): rows scoped to their owner (a user or a team,
// db/owner.ts), the lookups the whitelabel plugin makes (by slug, by domain), and the owner's
// usage and revenue report.
import type { Knex } from 'knex';
import crypto from 'node:crypto';
import type { Db } from './knex.ts';
import { spentOrHeld } from './predictions/record.ts';
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

/**
 * One hostname set on a studio: it serves the studio only once verified (`serving`), by the DNS
 * record carrying `token` (lib/domain-verification.ts).
 */
export interface DomainClaim {
  hostname: string;
  token: string;
  serving: boolean;
  verifiedAt: number | null;
  checkedAt: number | null;
  checkError: string | null;
}

export interface Studio extends StudioSettings {
  /** every hostname the owner set (StudioSettings.domains), with its verification */
  domainClaims: DomainClaim[];
  /** the verified hostnames that select this studio now */
  servingDomains: string[];
  id: number;
  slug: string;
  userId: number;
  teamId: number | null;
  createdAt: number;
  disabledAt: number | null;
  /**
   * findActiveStudio only: a personal studio whose owner has scheduled their account's deletion
   * (the grace period; README "Deleting an account"). Always false for a team's studio.
   */
  ownerDeletionPending?: boolean;
}

interface StudioRow {
  id: number; slug: string; user_id: number; team_id: number | null; name: string; branding: string; allowed_models: string;
  markup_percent: number | string; model_prices: string; payer_mode: string; created_at: number | string; disabled_at: number | string | null;
}

interface ClaimRow {
  studio_id: number | string; hostname: string; token: string; verified_at: number | string | null; checked_at: number | string | null;
  check_error: string | null; serving_studio: number | string | null;
}

async function claimsOf(db: Knex, ids: number[]): Promise<Map<number, DomainClaim[]>> {
  const map = new Map<number, DomainClaim[]>();
  if (ids.length === 0) return map;
  const rows = await db('studio_domain_claims as c')
    .leftJoin('studio_domains as d', (j) => { j.on('d.hostname', 'c.hostname').andOn('d.studio_id', 'c.studio_id'); })
    .whereIn('c.studio_id', ids).orderBy('c.hostname')
    .select('c.studio_id', 'c.hostname', 'c.token', 'c.verified_at', 'c.checked_at', 'c.check_error', 'd.studio_id as serving_studio') as ClaimRow[];
  for (const r of rows) {
    const claim: DomainClaim = {
      hostname: r.hostname, token: r.token, serving: r.serving_studio !== null, verifiedAt: numOrNull(r.verified_at),
      checkedAt: numOrNull(r.checked_at), checkError: r.check_error,
    };
    map.set(num(r.studio_id), [...(map.get(num(r.studio_id)) ?? []), claim]);
  }
  return map;
}

function toStudio(r: StudioRow, claims: DomainClaim[]): Studio {
  return {
    id: num(r.id), slug: r.slug, userId: num(r.user_id), teamId: numOrNull(r.team_id), name: r.name,
    branding: jsonOr<StudioBranding>(r.branding, {}), allowedModels: jsonOr<string[]>(r.allowed_models, []),
    domains: claims.map((c) => c.hostname), domainClaims: claims, servingDomains: claims.filter((c) => c.serving).map((c) => c.hostname),
    markupPercent: num(r.markup_percent), modelPrices: jsonOr<Record<string, number>>(r.model_prices, {}),
    payerMode: r.payer_mode as PayerMode, createdAt: num(r.created_at), disabledAt: numOrNull(r.disabled_at),
  };
}

async function withDomains(db: Knex, rows: StudioRow[]): Promise<Studio[]> {
  const claims = await claimsOf(db, rows.map((r) => num(r.id)));
  return rows.map((r) => toStudio(r, claims.get(num(r.id)) ?? []));
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

/**
 * Makes `domains` the studio's claimed hostnames: a removed one stops serving it, a new one is a
 * claim with its own token that serves once verified (verifyStudioDomains); one kept keeps its
 * token and state. Another studio's hostname may be claimed too: it moves only on proof.
 */
async function setDomains(trx: Knex, studioId: number, domains: string[], now: number): Promise<void> {
  const removed = trx('studio_domain_claims').where('studio_id', studioId);
  if (domains.length) removed.whereNotIn('hostname', domains);
  await removed.delete();
  const unserved = trx('studio_domains').where('studio_id', studioId);
  if (domains.length) unserved.whereNotIn('hostname', domains);
  await unserved.delete();
  const kept = new Set((await trx('studio_domain_claims').where('studio_id', studioId).select('hostname') as Array<{ hostname: string }>).map((r) => r.hostname));
  const added = domains.filter((d) => !kept.has(d));
  if (added.length) await trx('studio_domain_claims').insert(added.map((hostname) => newClaim(studioId, hostname, now)));
}

function newClaim(studioId: number, hostname: string, now: number): Record<string, unknown> {
  return { studio_id: studioId, hostname, token: crypto.randomBytes(16).toString('hex'), created_at: now };
}

/** Frees a studio's domains: its claims and the hostnames it serves. */
async function dropDomains(trx: Knex, ids: number[]): Promise<void> {
  await trx('studio_domains').whereIn('studio_id', ids).delete();
  await trx('studio_domain_claims').whereIn('studio_id', ids).delete();
}

async function duplicateAware<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isDuplicateKey(err)) throw new DuplicateError('this slug is already used by another studio');
    throw err;
  }
}

export async function createStudio(db: Db, owner: Owner, slug: string, s: StudioSettings, now: number): Promise<Studio> {
  // a deadlock victim (concurrent creates touching the domain index) is rolled back whole and run again
  return duplicateAware(() => withLockRetry(() => db.transaction(async (trx) => {
    await trx('studios').insert({ slug, user_id: owner.userId, team_id: owner.teamId, ...settingsRow(s), created_at: now, updated_at: now });
    const row = await trx<StudioRow>('studios').where({ slug }).first();
    if (s.domains.length) await trx('studio_domain_claims').insert(s.domains.map((hostname) => newClaim(num(row!.id), hostname, now)));
    return (await withDomains(trx, [row!]))[0]!;
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
    if (s.domains !== undefined) await setDomains(trx, id, s.domains, now);
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
    await dropDomains(trx, [id]);
    return true;
  });
}

/** What checking one claim's DNS record found: null when the record is there, otherwise why not. */
export type ClaimCheck = (hostname: string, token: string) => Promise<string | null>;

/**
 * Checks the DNS record of each domain of an enabled studio that does not serve it yet, records
 * what was found, and makes each whose record is there serve this studio, taking it over from a
 * studio it served before (whoever controls the DNS now decides; that studio's claim then says
 * so). False when the owner has no such enabled studio.
 */
export async function verifyStudioDomains(db: Db, owner: Owner, id: number, check: ClaimCheck, now: number): Promise<boolean> {
  const studio = await findStudio(db, owner, id);
  if (!studio || studio.disabledAt !== null) return false;
  const found = await Promise.all(studio.domainClaims.filter((c) => !c.serving).map(async (c) => ({ c, problem: await check(c.hostname, c.token) })));
  for (const { c, problem } of found) {
    // `token` in each write: a claim removed and set again while DNS was asked is a new claim
    const claim = { studio_id: id, hostname: c.hostname, token: c.token };
    if (problem !== null) {
      await db('studio_domain_claims').where(claim).update({ checked_at: now, check_error: problem });
      continue;
    }
    await withLockRetry(() => db.transaction(async (trx) => {
      const live = await trx('studio_domain_claims as c').join('studios as s', 's.id', 'c.studio_id')
        .where({ 'c.studio_id': id, 'c.hostname': c.hostname, 'c.token': c.token }).whereNull('s.disabled_at').forUpdate().first('c.hostname');
      if (!live) return;
      const before = await trx('studio_domains').where('hostname', c.hostname).forUpdate().first<{ studio_id: number | string } | undefined>('studio_id');
      if (before && num(before.studio_id) !== id) {
        await trx('studio_domains').where({ hostname: c.hostname, studio_id: before.studio_id }).delete();
        await trx('studio_domain_claims').where({ studio_id: before.studio_id, hostname: c.hostname }).update({
          verified_at: null,
          check_error: `on ${new Date(now).toISOString()} another studio proved control of this domain's DNS, so the domain serves that studio now`,
        });
      }
      if (!before || num(before.studio_id) !== id) await trx('studio_domains').insert({ hostname: c.hostname, studio_id: id });
      await trx('studio_domain_claims').where(claim).update({ verified_at: now, checked_at: now, check_error: null });
    }));
  }
  return true;
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
  await dropDomains(db, ids);
  return ids.length;
}

/**
 * Disables every studio of a team being deleted and frees their domains, as disableStudio does,
 * in the deleting transaction (db/teams.ts deleteTeam): nobody can manage them any more, so they
 * serve their users only what a disabled studio does, and their domains can serve another studio.
 */
export async function disableTeamStudios(trx: Knex, teamId: number, now: number): Promise<void> {
  const ids = (await trx('studios').where('team_id', teamId).select<Array<{ id: number | string }>>('id')).map((r) => num(r.id));
  if (ids.length === 0) return;
  await trx('studios').whereIn('id', ids).whereNull('disabled_at').update({ disabled_at: now, updated_at: now });
  await dropDomains(trx, ids);
}

/**
 * The enabled studio a request names, by slug or by one of its domains; undefined for an unknown
 * or disabled one, one whose owning team is deleted, or a personal one whose owner is another
 * studio's user (who runs models only within that studio: handlers/studios.ts refuses to create
 * one; one made before is not served).
 */
export async function findActiveStudio(db: Db, by: { slug: string } | { hostname: string }): Promise<Studio | undefined> {
  const q = db<StudioRow>('studios').select('studios.*', 'owner.deletion_due_at as owner_deletion_due_at')
    .leftJoin('teams', 'teams.id', 'studios.team_id')
    .leftJoin('users as owner', 'owner.id', 'studios.user_id')
    .whereNull('studios.disabled_at')
    .andWhere((w) => { w.whereNull('studios.team_id').orWhereNull('teams.deleted_at'); })
    .andWhere((w) => { w.whereNotNull('studios.team_id').orWhereNull('owner.studio_id'); });
  if ('slug' in by) q.where('studios.slug', by.slug);
  else q.whereIn('studios.id', db('studio_domains').select('studio_id').where('hostname', by.hostname));
  const row = await q.first() as (StudioRow & { owner_deletion_due_at: number | string | null }) | undefined;
  if (!row) return undefined;
  const [studio] = await withDomains(db, [row]);
  return { ...studio!, ownerDeletionPending: row.team_id == null && row.owner_deletion_due_at != null };
}

/**
 * A disabled studio by its slug, for the little its context still serves its users (sign-in,
 * export, deletion: plugins/credentials.ts whitelabelPlugin); undefined for an unknown or enabled
 * one, and for a personal one whose owner is another studio's user (findActiveStudio would not
 * serve it either). A deleted team's studio is a disabled one: team deletion disables it, and one
 * whose team was deleted before that rule (still enabled, its domains still attached) counts as
 * disabled since the team's deletion. Its domains were freed when it was disabled, so only the
 * slug names it: it serves no domain (`servingDomains` is empty).
 */
export async function findDisabledStudio(db: Db, slug: string): Promise<Studio | undefined> {
  const row = await db<StudioRow>('studios').select('studios.*', 'teams.deleted_at as team_deleted_at')
    .leftJoin('teams', 'teams.id', 'studios.team_id')
    .leftJoin('users as owner', 'owner.id', 'studios.user_id')
    .where('studios.slug', slug)
    .andWhere((w) => { w.whereNotNull('studios.disabled_at').orWhereNotNull('teams.deleted_at'); })
    .andWhere((w) => { w.whereNotNull('studios.team_id').orWhereNull('owner.studio_id'); })
    .first() as (StudioRow & { team_deleted_at: number | string | null }) | undefined;
  if (!row) return undefined;
  const [studio] = await withDomains(db, [{ ...row, disabled_at: row.disabled_at ?? row.team_deleted_at }]);
  return { ...studio!, servingDomains: [] };
}

/** The studio a user registered in (null: none). */
export async function studioOfUser(db: Db, userId: number): Promise<number | null> {
  const row = await db('users').where('id', userId).first<{ studio_id: number | string | null } | undefined>('studio_id');
  return numOrNull(row?.studio_id ?? null);
}

export interface UsageRow { runs: number; spend: number; revenue: number }

/**
 * A studio's production runs created in [from, to) that were charged or are held (spentOrHeld): their count,
 * what they cost the paying wallets (price) and the owner's markup (credited once charged: the
 * `studio_revenue` rows, less what refunds took back), in total, by UTC day and by model.
 */
export async function studioUsage(db: Db, studioId: number, from: number, to: number): Promise<UsageRow & { byDay: Array<UsageRow & { day: string }>; byModel: Array<UsageRow & { model: string }> }> {
  // the markup net of what refunds took back: a run has its revenue row and one negative row per refund
  const revenue = db('credit_transactions as c').whereRaw('c.prediction_id = p.id').andWhere('c.kind', 'studio_revenue').sum('c.amount');
  const rows = await spentOrHeld(db('predictions as p')
    .where('p.studio_id', studioId).andWhere('p.is_test', false)
    .andWhere('p.created_at', '>=', from).andWhere('p.created_at', '<', to), 'p')
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
