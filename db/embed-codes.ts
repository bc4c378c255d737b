// Embed codes and agent embed codes (README "Embeds"): rows scoped to their owner (a user or a
// team, db/owner.ts), the lookup the credential plugins make, and the spend and concurrency
// checks a submit makes inside its hold's transaction (the store's submit, db/store/portable.ts submitAlone).
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from './knex.ts';
import { spentOrHeld } from './predictions/record.ts';
import { affected, jsonOr, num, numOrNull } from './knex.ts';
import { ownerWhere } from './owner.ts';
import type { Owner } from './owner.ts';
import { withLockRetry } from './retry.ts';
import { unfinishedOfSql } from './unfinished.ts';
import { originAllowed, originCandidates, originHostKey, originKeys } from '../lib/embed-origins.ts';

export type EmbedKind = 'embed' | 'agent_embed';
export const EMBED_PREFIX: Record<EmbedKind, string> = { embed: 'emb_', agent_embed: 'aemb_' };

export interface EmbedPreset {
  /** owner-fixed inputs, merged over the visitor's (under locked_inputs) */
  inputs?: Record<string, unknown>;
  /** the prompt sent: `{prompt}` is replaced by the visitor's prompt */
  prompt_template?: string;
}

export interface EmbedCode extends EmbedSettings {
  id: number;
  code: string;
  kind: EmbedKind;
  userId: number;
  teamId: number | null;
  createdAt: number;
  updatedAt: number;
  revokedAt: number | null;
}

interface EmbedRow {
  id: number; code: string; kind: string; user_id: number; team_id: number | null; name: string;
  models: string; preset: string | null; locked_inputs: string | null; allowed_fields: string | null; allowed_origins: string;
  max_cost_per_run: number | string | null; daily_cap: number | string | null; monthly_cap: number | string | null;
  rate_limit_per_minute: number | null; max_concurrent: number | null;
  created_at: number | string; updated_at: number | string; revoked_at: number | string | null;
}

function toEmbed(r: EmbedRow): EmbedCode {
  return {
    id: num(r.id), code: r.code, kind: r.kind as EmbedKind, userId: num(r.user_id), teamId: numOrNull(r.team_id), name: r.name,
    models: jsonOr<string[]>(r.models, []), preset: jsonOr<EmbedPreset | null>(r.preset, null),
    lockedInputs: jsonOr<Record<string, unknown>>(r.locked_inputs, {}), allowedFields: jsonOr<string[] | null>(r.allowed_fields, null),
    allowedOrigins: jsonOr<string[]>(r.allowed_origins, []),
    maxCostPerRun: numOrNull(r.max_cost_per_run), dailyCap: numOrNull(r.daily_cap), monthlyCap: numOrNull(r.monthly_cap),
    rateLimitPerMinute: numOrNull(r.rate_limit_per_minute), maxConcurrent: numOrNull(r.max_concurrent),
    createdAt: num(r.created_at), updatedAt: num(r.updated_at), revokedAt: numOrNull(r.revoked_at),
  };
}

/**
 * The most a code's `locked_inputs` or `preset` may take as stored: JSON in UTF-8 bytes. Their
 * columns are TEXT, which holds 65,535 bytes on MariaDB (SQLite has no such limit); the handler
 * refuses more on both engines alike, with a margin below the column's size.
 */
export const EMBED_JSON_MAX_BYTES = 60_000;

/** What an owner sets on a code (create: all of it; update: any part). */
export interface EmbedSettings {
  name: string;
  models: string[];
  preset: EmbedPreset | null;
  lockedInputs: Record<string, unknown>;
  /** null: every input field the model declares (the locked ones are overwritten anyway) */
  allowedFields: string[] | null;
  /** empty: any origin (and none) */
  allowedOrigins: string[];
  maxCostPerRun: number | null;
  dailyCap: number | null;
  monthlyCap: number | null;
  rateLimitPerMinute: number | null;
  maxConcurrent: number | null;
}

function settingsRow(s: Partial<EmbedSettings>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  if (s.name !== undefined) row.name = s.name;
  if (s.models !== undefined) row.models = JSON.stringify(s.models);
  if (s.preset !== undefined) row.preset = s.preset === null ? null : JSON.stringify(s.preset);
  if (s.lockedInputs !== undefined) row.locked_inputs = JSON.stringify(s.lockedInputs);
  if (s.allowedFields !== undefined) row.allowed_fields = s.allowedFields === null ? null : JSON.stringify(s.allowedFields);
  if (s.allowedOrigins !== undefined) row.allowed_origins = JSON.stringify(s.allowedOrigins);
  if (s.maxCostPerRun !== undefined) row.max_cost_per_run = s.maxCostPerRun;
  if (s.dailyCap !== undefined) row.daily_cap = s.dailyCap;
  if (s.monthlyCap !== undefined) row.monthly_cap = s.monthlyCap;
  if (s.rateLimitPerMinute !== undefined) row.rate_limit_per_minute = s.rateLimitPerMinute;
  if (s.maxConcurrent !== undefined) row.max_concurrent = s.maxConcurrent;
  return row;
}

/** The prefix plus 192 random bits in base64url: unguessable, though not a secret once published. */
export function newEmbedCode(kind: EmbedKind): string {
  return EMBED_PREFIX[kind] + crypto.randomBytes(24).toString('base64url');
}

/** The code's entries in the origin index (migration 0402): one per allowed origin, `*` for a code without a list. */
async function writeOrigins(trx: Knex, codeId: number, kind: EmbedKind, origins: readonly string[], replace: boolean): Promise<void> {
  // a new code has no entries: no DELETE, whose gap locks would make concurrent creations deadlock
  if (replace) await trx('embed_code_origins').where('code_id', codeId).delete();
  const rows = origins.length === 0 ? [{ code_id: codeId, kind, host_key: '*', pattern: '*' }]
    : origins.map((p) => ({ code_id: codeId, kind, host_key: originHostKey(p), pattern: p }));
  await trx('embed_code_origins').insert(rows);
}

export async function createEmbedCode(db: Db, owner: Owner, kind: EmbedKind, s: EmbedSettings, now: number): Promise<EmbedCode> {
  const code = newEmbedCode(kind);
  return withLockRetry(() => db.transaction(async (trx) => {
    await trx('embed_codes').insert({ code, kind, user_id: owner.userId, team_id: owner.teamId, ...settingsRow(s), created_at: now, updated_at: now });
    const row = await trx<EmbedRow>('embed_codes').where({ code }).first();
    await writeOrigins(trx, num(row!.id), kind, s.allowedOrigins, false);
    return toEmbed(row!);
  }));
}

/**
 * Whether an active code of this kind lets `origin` call (a code without an origin list lets every
 * origin): a CORS preflight carries no code. Reads only the index entries whose host could match,
 * and among them asks for the exact entries that match (originCandidates): anyone can write entries
 * under any host (other ports, other schemes), and no number of those may hide the one that matches.
 */
export async function anyCodeAllowsOrigin(db: Db, kind: EmbedKind, origin: string): Promise<boolean> {
  const keys = originKeys(origin);
  if (keys.length === 0) return false;
  // active as findActiveEmbedCode has it (not revoked, and not of a deleted team), and not a personal
  // code that every request refuses: of an account whose deletion is pending (handlers/embeds.ts
  // refuseOwnerDeletionPending), or of a studio's user (studio_required, plugins/credentials.ts
  // whitelabelPlugin); a team's code is the team's
  const row = await db('embed_code_origins as o').join('embed_codes as c', 'c.id', 'o.code_id').leftJoin('teams as t', 't.id', 'c.team_id')
    .leftJoin('users as u', 'u.id', 'c.user_id')
    .where('o.kind', kind).whereIn('o.host_key', [...keys, '*']).whereIn('o.pattern', [...originCandidates(origin), '*'])
    .whereNull('c.revoked_at').andWhere((q) => { q.whereNull('c.team_id').orWhereNull('t.deleted_at'); })
    .andWhere((q) => { q.whereNotNull('c.team_id').orWhere((p) => { p.whereNull('u.deletion_requested_at').whereNull('u.studio_id'); }); })
    .first('o.pattern') as { pattern: string } | undefined;
  return row !== undefined && (row.pattern === '*' || originAllowed(origin, [row.pattern]));
}

/** The owner's codes, revoked ones included (marked), newest first. */
export async function listEmbedCodes(db: Db, owner: Owner): Promise<EmbedCode[]> {
  const rows = await db<EmbedRow>('embed_codes').where(ownerWhere(owner)).orderBy('id', 'desc');
  return rows.map(toEmbed);
}

export async function findEmbedCode(db: Db, owner: Owner, id: number): Promise<EmbedCode | undefined> {
  const row = await db<EmbedRow>('embed_codes').where('id', id).andWhere(ownerWhere(owner)).first();
  return row ? toEmbed(row) : undefined;
}

/** Changes an active code's settings; undefined when the owner has no such active code. */
export async function updateEmbedCode(db: Db, owner: Owner, id: number, s: Partial<EmbedSettings>, now: number): Promise<EmbedCode | undefined> {
  const n = await withLockRetry(() => db.transaction(async (trx) => {
    const changed = affected(await trx('embed_codes').where('id', id).andWhere(ownerWhere(owner)).whereNull('revoked_at').update({ ...settingsRow(s), updated_at: now }));
    if (changed === 1 && s.allowedOrigins !== undefined) {
      const { kind } = await trx('embed_codes').where('id', id).first<{ kind: EmbedKind }>('kind');
      await writeOrigins(trx, id, kind, s.allowedOrigins, true);
    }
    return changed;
  }));
  if (n !== 1) return undefined;
  return findEmbedCode(db, owner, id);
}

/** Revokes a code (idempotent); false when the owner has no such code. */
export async function revokeEmbedCode(db: Db, owner: Owner, id: number, now: number): Promise<boolean> {
  const found = await findEmbedCode(db, owner, id);
  if (!found) return false;
  await db('embed_codes').where('id', id).whereNull('revoked_at').update({ revoked_at: now, updated_at: now });
  return true;
}

/**
 * Revokes every active personal code of the user, embed and agent embed alike (a team's codes are
 * the team's and stay); how many. For an account taken back (db/credentials.ts takeBackAccount).
 */
export async function revokePersonalEmbedCodes(db: Db, userId: number, now: number): Promise<number> {
  return affected(await db('embed_codes').where(ownerWhere({ userId, teamId: null })).whereNull('revoked_at').update({ revoked_at: now, updated_at: now }));
}

/** An active code as a request presents it: with the studio its owning user belongs to. */
export interface ActiveEmbedCode extends EmbedCode {
  /** users.studio_id of the code's user (null: none); a personal code of a studio's user is refused (plugins/credentials.ts) */
  ownerStudioId: number | null;
  /** the code's user has asked for the account's deletion: a personal code is refused meanwhile, as its personal API keys are */
  ownerDeletionPending: boolean;
}

/**
 * The active code a request presents, looked up on every request (a revoked code is refused on
 * the next one): not revoked, and when it belongs to a team, the team is not deleted. Read with
 * its user's studio and whether the user's deletion is pending, in the same query.
 */
export async function findActiveEmbedCode(db: Db, code: string): Promise<ActiveEmbedCode | undefined> {
  const row = await db<EmbedRow>('embed_codes').select('embed_codes.*', 'users.studio_id as owner_studio_id', 'users.deletion_requested_at as owner_deletion_requested_at')
    .leftJoin('teams', 'teams.id', 'embed_codes.team_id')
    .leftJoin('users', 'users.id', 'embed_codes.user_id')
    .where('embed_codes.code', code).whereNull('embed_codes.revoked_at')
    .andWhere((q) => { q.whereNull('embed_codes.team_id').orWhereNull('teams.deleted_at'); })
    .first();
  if (!row) return undefined;
  const r = row as EmbedRow & { owner_studio_id: number | string | null; owner_deletion_requested_at: number | string | null };
  return { ...toEmbed(r), ownerStudioId: numOrNull(r.owner_studio_id), ownerDeletionPending: r.owner_deletion_requested_at != null };
}

/** Start of the UTC day and of the UTC month `now` falls in (epoch ms). */
export function periodStarts(now: number): { day: number; month: number } {
  const d = new Date(now);
  return { day: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()), month: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) };
}

export interface EmbedLimits {
  codeId: number;
  dailyCap: number | null;
  monthlyCap: number | null;
  /** unfinished predictions of the code at once; 0 or null: none */
  maxConcurrent: number | null;
}

export type EmbedLimitOutcome = { ok: true } | { ok: false; reason: 'concurrency' | 'daily' | 'monthly'; limit: number };

/**
 * Inside the submit's transaction, before the hold: locks the code's row (every submit of the
 * code, whichever process serves it, queues on it), then counts its unfinished predictions and
 * sums the price of its predictions of this day and month that are held or were charged
 * (spentOrHeld). The new price must fit under each cap. Serialised by the lock, so parallel
 * submits can never spend past a cap together.
 */
export async function checkEmbedLimits(trx: Knex, l: EmbedLimits, price: number, now: number): Promise<EmbedLimitOutcome> {
  await trx('embed_codes').where('id', l.codeId).update({ updated_at: trx.raw('updated_at') });
  if (l.maxConcurrent) {
    const row = await trx('predictions').whereRaw(unfinishedOfSql(trx, 'embed_code_id'), [l.codeId]).count<{ n: number | string }[]>({ n: '*' }).first();
    if (num(row?.n ?? 0) >= l.maxConcurrent) return { ok: false, reason: 'concurrency', limit: l.maxConcurrent };
  }
  const { day, month } = periodStarts(now);
  const spent = async (since: number) => {
    const row = await spentOrHeld(trx('predictions').where('embed_code_id', l.codeId).andWhere('created_at', '>=', since)).sum<{ s: number | string | null }[]>({ s: 'price' }).first();
    return num(row?.s ?? 0);
  };
  if (l.dailyCap !== null && (await spent(day)) + price > l.dailyCap) return { ok: false, reason: 'daily', limit: l.dailyCap };
  if (l.monthlyCap !== null && (await spent(month)) + price > l.monthlyCap) return { ok: false, reason: 'monthly', limit: l.monthlyCap };
  return { ok: true };
}
