// Model discounts (README "Discounts"): one row per wallet (a user's own, or a team's) and model
// slug or `*`. Which one applies to a price is spec/pricing.ts chooseDiscount; this module only
// stores and reads them. `owner_key` ('u<id>' / 't<id>') carries the uniqueness (migration 2201).
import type { Knex } from 'knex';
import type { Db } from './knex.ts';
import type { Owner } from './owner.ts';
import { ownerKey } from '../lib/caller.ts';
import { ownerWhere } from './owner.ts';
import { num, numOrNull } from './knex.ts';
import type { DiscountRule } from '../spec/pricing.ts';

export interface ModelDiscount extends DiscountRule {
  /** for a team's discount, the member the administrator named */
  userId: number;
  email: string;
  teamId: number | null;
  reason: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface NewDiscount {
  owner: Owner;
  model: string;
  percentOff: number;
  expiresAt: number | null;
  reason: string | null;
  /** the administrator who set it */
  createdBy: number;
}

function toDiscount(r: Record<string, unknown>): ModelDiscount {
  return {
    id: num(r.id), userId: num(r.user_id), email: String(r.email ?? ''), teamId: numOrNull(r.team_id ?? null), model: String(r.model),
    percentOff: num(r.percent_off), expiresAt: numOrNull(r.expires_at ?? null), reason: r.reason === null || r.reason === undefined ? null : String(r.reason),
    createdAt: num(r.created_at), updatedAt: num(r.updated_at),
  };
}

/**
 * The wallet row's `discounts` marker (migration 3101): its count of model_discounts rows, which
 * lets the price function skip the lookup for a wallet with none. Every write of an owner's
 * discounts first locks the wallet row (`lockMarker`), so writes of one wallet's discounts run one
 * after the other, then recounts with a locking read (the latest committed rows, not the
 * transaction's snapshot) in the same transaction (`recountMarker`).
 */
const markerRow = (trx: Knex, owner: Owner) => (owner.teamId === null ? trx('users').where('id', owner.userId) : trx('teams').where('id', owner.teamId));

async function lockMarker(trx: Knex, owner: Owner): Promise<void> {
  await markerRow(trx, owner).update({ discounts: trx.raw('discounts') });
}

async function recountMarker(trx: Knex, owner: Owner): Promise<void> {
  const row = await trx('model_discounts').where('owner_key', ownerKey(owner)).forUpdate().count({ n: '*' }).first<{ n: number | string }>();
  await markerRow(trx, owner).update({ discounts: num(row?.n ?? 0) });
}

const withEmail = (db: Db) => db('model_discounts as d').join('users as u', 'u.id', 'd.user_id').select('d.*', 'u.email');

/**
 * Creates or replaces (same wallet and model: percent, expiry and reason are overwritten, the id
 * and created_at kept) each discount, all in one transaction; returns them as stored, in order.
 */
export async function upsertDiscounts(db: Db, items: readonly NewDiscount[], now: number): Promise<ModelDiscount[]> {
  return db.transaction(async (trx) => {
    const out: ModelDiscount[] = [];
    for (const d of items) {
      const key = ownerKey(d.owner);
      await lockMarker(trx, d.owner);
      await trx('model_discounts').insert({
        owner_key: key, user_id: d.owner.userId, team_id: d.owner.teamId, model: d.model, percent_off: d.percentOff, expires_at: d.expiresAt,
        reason: d.reason, created_by: d.createdBy, created_at: now, updated_at: now,
      }).onConflict(['owner_key', 'model']).merge(['user_id', 'percent_off', 'expires_at', 'reason', 'created_by', 'updated_at']);
      const row = await withEmail(trx).where({ 'd.owner_key': key, 'd.model': d.model }).first();
      out.push(toDiscount(row as Record<string, unknown>));
      await recountMarker(trx, d.owner);
    }
    return out;
  });
}

/**
 * Every discount (newest first), or those of one user's own wallet, or of one team's; with
 * `before`, only ids below it, and at most `limit` of them.
 */
export async function listDiscounts(db: Db, filter: { owner?: Owner; before?: number; limit?: number } = {}): Promise<ModelDiscount[]> {
  const q = withEmail(db).orderBy('d.id', 'desc');
  if (filter.owner) q.where(ownerWhere(filter.owner, 'd'));
  if (filter.before !== undefined) q.where('d.id', '<', filter.before);
  if (filter.limit !== undefined) q.limit(filter.limit);
  return (await q as Array<Record<string, unknown>>).map(toDiscount);
}

/** The discounts of the wallet `owner` pays from that have not expired at `now`. */
export async function activeDiscounts(db: Db, owner: Owner, now: number): Promise<ModelDiscount[]> {
  const rows = await withEmail(db).where('d.owner_key', ownerKey(owner))
    .andWhere((q) => q.whereNull('d.expires_at').orWhere('d.expires_at', '>', now)).orderBy('d.id', 'asc') as Array<Record<string, unknown>>;
  return rows.map(toDiscount);
}

/** The discounts that could apply to `model` for the wallet `owner` pays from (the price function picks one). */
export async function discountsForModel(db: Db, owner: Owner, model: string): Promise<DiscountRule[]> {
  const rows = await db('model_discounts').where('owner_key', ownerKey(owner)).whereIn('model', [model, '*'])
    .select('id', 'model', 'percent_off', 'expires_at') as Array<Record<string, unknown>>;
  return rows.map((r) => ({ id: num(r.id), model: String(r.model), percentOff: num(r.percent_off), expiresAt: numOrNull(r.expires_at ?? null) }));
}

/** Deletes one discount; returns it, or undefined when there is none with this id. */
export async function deleteDiscount(db: Db, id: number): Promise<ModelDiscount | undefined> {
  return db.transaction(async (trx) => {
    const row = await withEmail(trx).where('d.id', id).first();
    if (!row) return undefined;
    const deleted = toDiscount(row as Record<string, unknown>);
    const owner: Owner = { userId: deleted.userId, teamId: deleted.teamId };
    await lockMarker(trx, owner);
    await trx('model_discounts').where('id', id).delete();
    await recountMarker(trx, owner);
    return deleted;
  });
}

/** Whether a team exists and is not deleted (the admin routes name a team by id). */
export async function teamExists(db: Db, teamId: number): Promise<boolean> {
  return (await db('teams').where('id', teamId).whereNull('deleted_at').first('id')) !== undefined;
}
