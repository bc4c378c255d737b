import { roleOf } from '../lib/caller.ts';
import type { Role } from '../lib/caller.ts';
import type { Db } from './knex.ts';
import { bool, iso, isoOrNull, jsonOr, num } from './knex.ts';
import { SPEND_PERIODS } from './key-spend.ts';
import type { SpendPeriod } from './key-spend.ts';

export interface ApiKeyRecord {
  id: number;
  /** the user who created the key (for a team key: the member, kept after they leave) */
  userId: number;
  /** the team the key belongs to; null for a personal key */
  teamId: number | null;
  name: string;
  prefix: string;
  isTest: boolean;
  ipWhitelist: string[];
  /** the scopes the key acts with; null: all of them (a key created by a session or an unrestricted key) */
  scopes: string[] | null;
  createdAt: string;
  lastUsedAt: string | null;
  /** the key's own generation limits; null: the gateway's defaults (config generateRateLimit) */
  rateLimitPerMinute: number | null;
  maxConcurrent: number | null;
  /** after this instant the key is refused (401 api_key_expired); null: never (README "Key restrictions") */
  expiresAt: string | null;
  /** credits the key may commit per `spendLimitPeriod` (UTC day or month); null: no limit */
  spendLimit: number | null;
  spendLimitPeriod: SpendPeriod | null;
  /** credits after which the key's spending alerts (db/alerts.ts); null: none */
  softSpendLimit: number | null;
  /** the last rotation (a new secret in place); null: never rotated */
  rotatedAt: string | null;
  /** until then the secret the last rotation replaced still works; null: it no longer does */
  previousValidUntil: string | null;
}

/** A key's own generation limits, as set on create. */
export interface KeyLimits {
  rateLimitPerMinute: number | null;
  maxConcurrent: number | null;
}

/** A key's expiry and spend limit, as set on create or update (README "Key restrictions"). */
export interface KeyRestrictions {
  /** epoch ms, or null: never */
  expiresAt: number | null;
  /** null: no limit */
  spendLimit: { amount: number; period: SpendPeriod } | null;
}

/** The columns of a key's restrictions, for an insert. */
export function restrictionColumns(r: KeyRestrictions | undefined): Record<string, unknown> {
  return { expires_at: r?.expiresAt ?? null, spend_limit: r?.spendLimit?.amount ?? null, spend_limit_period: r?.spendLimit?.period ?? null };
}

export interface ApiKeyRow {
  id: number;
  user_id: number;
  team_id?: number | string | null;
  name: string;
  prefix: string;
  key_hash: string;
  is_test: number | boolean;
  ip_whitelist: string | null;
  scopes: string | null;
  created_at: number | string;
  last_used_at: number | string | null;
  revoked_at: number | string | null;
  rate_limit_per_minute?: number | string | null;
  max_concurrent?: number | string | null;
  expires_at?: number | string | null;
  spend_limit?: number | string | null;
  spend_limit_period?: string | null;
  soft_spend_limit?: number | string | null;
  previous_key_hash?: string | null;
  previous_valid_until?: number | string | null;
  /** the member holding the secret `previous_key_hash` is of (a team key), while it works */
  previous_holder?: number | string | null;
  rotated_at?: number | string | null;
}

/** Maps an api_keys row (also for team keys: db/team-resources.ts). */
export function apiKeyFromRow(r: ApiKeyRow): ApiKeyRecord {
  return {
    id: num(r.id),
    userId: num(r.user_id),
    teamId: r.team_id === null || r.team_id === undefined ? null : num(r.team_id),
    name: r.name,
    prefix: r.prefix,
    isTest: bool(r.is_test),
    ipWhitelist: jsonOr<string[]>(r.ip_whitelist, []),
    scopes: r.scopes === null || r.scopes === undefined ? null : jsonOr<string[]>(r.scopes, []),
    createdAt: iso(r.created_at),
    lastUsedAt: isoOrNull(r.last_used_at),
    rateLimitPerMinute: r.rate_limit_per_minute === null || r.rate_limit_per_minute === undefined ? null : num(r.rate_limit_per_minute),
    maxConcurrent: r.max_concurrent === null || r.max_concurrent === undefined ? null : num(r.max_concurrent),
    expiresAt: r.expires_at === null || r.expires_at === undefined ? null : iso(r.expires_at),
    spendLimit: r.spend_limit === null || r.spend_limit === undefined ? null : num(r.spend_limit),
    spendLimitPeriod: r.spend_limit === null || r.spend_limit === undefined ? null : (SPEND_PERIODS.find((x) => x === r.spend_limit_period) ?? null),
    softSpendLimit: r.soft_spend_limit === null || r.soft_spend_limit === undefined ? null : num(r.soft_spend_limit),
    rotatedAt: r.rotated_at === null || r.rotated_at === undefined ? null : iso(r.rotated_at),
    previousValidUntil: r.previous_key_hash === null || r.previous_key_hash === undefined || r.previous_valid_until === null || r.previous_valid_until === undefined
      ? null : iso(r.previous_valid_until),
  };
}

export async function insertApiKey(
  db: Db,
  k: { userId: number; name: string; prefix: string; keyHash: string; isTest: boolean; ipWhitelist: string[]; scopes: readonly string[] | null; limits?: KeyLimits; restrictions?: KeyRestrictions },
  now: number,
): Promise<ApiKeyRecord> {
  const [id] = await db('api_keys').insert({
    user_id: k.userId,
    name: k.name,
    prefix: k.prefix,
    key_hash: k.keyHash,
    is_test: k.isTest,
    ip_whitelist: k.ipWhitelist.length ? JSON.stringify(k.ipWhitelist) : null,
    scopes: k.scopes === null ? null : JSON.stringify(k.scopes),
    rate_limit_per_minute: k.limits?.rateLimitPerMinute ?? null,
    max_concurrent: k.limits?.maxConcurrent ?? null,
    ...restrictionColumns(k.restrictions),
    created_at: now,
  });
  const row = await db<ApiKeyRow>('api_keys').where({ id }).first();
  return apiKeyFromRow(row!);
}

/**
 * Looks a live key up by the SHA-256 of its value, with what its owner's row says about it: one
 * indexed query. Nothing here changes per request (no balance), so API processes may cache it
 * (README "Credential cache"); every write of these columns invalidates it.
 */
export async function findActiveKeyByHash(db: Db, keyHash: string): Promise<(ApiKeyRecord & { ownerRole: Role; ownerDeletionPending: boolean; ownerStudioId: number | null; ownerDiscounts: number; retiredSecret?: true }) | undefined> {
  const byColumn = (column: 'key_hash' | 'previous_key_hash') => db('api_keys')
    .join('users', 'users.id', 'api_keys.user_id')
    .select<Array<ApiKeyRow & { owner_role: string; owner_deletion_requested_at: number | string | null; owner_studio_id: number | string | null; owner_discounts: number | string }>>(
      'api_keys.*', 'users.role as owner_role', 'users.deletion_requested_at as owner_deletion_requested_at', 'users.studio_id as owner_studio_id', 'users.discounts as owner_discounts',
    )
    .where(`api_keys.${column}`, keyHash)
    .whereNull('api_keys.revoked_at')
    .first();
  const row = await byColumn('key_hash');
  // Only a secret that is not a key's current one costs the second lookup: the one a rotation
  // replaced, which works until its grace period ends (the expiry below, checked on every use).
  const previous = row ? undefined : await byColumn('previous_key_hash');
  const found = row ?? previous;
  if (!found) return undefined;
  const record = apiKeyFromRow(found);
  const owner = { ownerRole: roleOf(found.owner_role), ownerDeletionPending: found.owner_deletion_requested_at != null, ownerStudioId: found.owner_studio_id === null ? null : Number(found.owner_studio_id), ownerDiscounts: num(found.owner_discounts) };
  if (!previous) return { ...record, ...owner };
  const until = found.previous_valid_until === null || found.previous_valid_until === undefined ? 0 : num(found.previous_valid_until);
  const expiresAt = record.expiresAt !== null && Date.parse(record.expiresAt) < until ? record.expiresAt : iso(until);
  return { ...record, ...owner, expiresAt, retiredSecret: true };
}

/**
 * Gives a live key a new secret in place: the current one becomes the previous secret, valid
 * until `previousValidUntil` (null: it stops at once). A secret replaced earlier stops now.
 * A team key's `user_id` (its creator, `created_by`) becomes `next.holder`, the member the new
 * secret is answered to: removing a member revokes the team keys whose secret they hold, and
 * after the rotation that is the rotator. Answers the key, or undefined when the owner has no
 * such live key.
 */
export async function rotateKey(db: Db, owner: KeyOwner, keyId: number, next: { prefix: string; keyHash: string; holder?: number }, previousValidUntil: number | null, now: number): Promise<ApiKeyRecord | undefined> {
  return db.transaction(async (trx) => {
    const scope = () => {
      const q = trx<ApiKeyRow>('api_keys').where({ id: keyId }).whereNull('revoked_at');
      return 'teamId' in owner ? q.where({ team_id: owner.teamId }) : q.where({ user_id: owner.userId }).whereNull('team_id');
    };
    const current = await scope().forUpdate().first();
    if (!current) return undefined;
    await scope().update({
      key_hash: next.keyHash, prefix: next.prefix, rotated_at: now,
      ...('teamId' in owner && next.holder !== undefined ? { user_id: next.holder } : {}),
      previous_key_hash: previousValidUntil === null ? null : current.key_hash, previous_valid_until: previousValidUntil,
      // who holds the replaced secret while it works: removing them from the team ends it (db/teams.ts endRetiredSecretsHeldBy)
      previous_holder: previousValidUntil !== null && 'teamId' in owner ? current.user_id : null,
    });
    const row = await scope().first();
    return row ? apiKeyFromRow(row) : undefined;
  });
}

/** The user's personal keys: keys of a team the user created (team_id set) belong to the team (db/team-resources.ts). */
export async function listUserKeys(db: Db, userId: number): Promise<ApiKeyRecord[]> {
  const rows = await db<ApiKeyRow>('api_keys').where({ user_id: userId }).whereNull('team_id').whereNull('revoked_at').orderBy('id', 'asc');
  return rows.map(apiKeyFromRow);
}

/** A live personal key of this user (not a team's), or undefined. */
export async function findUserKey(db: Db, userId: number, keyId: number): Promise<ApiKeyRecord | undefined> {
  const row = await db<ApiKeyRow>('api_keys').where({ id: keyId, user_id: userId }).whereNull('team_id').whereNull('revoked_at').first();
  return row ? apiKeyFromRow(row) : undefined;
}

/** Revokes a personal key of this user; false when there is no such live key (a team's key included). */
export async function revokeKey(db: Db, userId: number, keyId: number, now: number): Promise<boolean> {
  const n = await db('api_keys').where({ id: keyId, user_id: userId }).whereNull('team_id').whereNull('revoked_at').update({ revoked_at: now });
  return n === 1;
}

export async function touchKey(db: Db, keyId: number, now: number): Promise<void> {
  await db('api_keys').where({ id: keyId }).update({ last_used_at: now });
}

/** What updateApiKey may change; an absent field is left as it is. */
export interface KeyUpdate {
  name?: string;
  ipWhitelist?: string[];
  /** epoch ms, or null to remove the expiry */
  expiresAt?: number | null;
  /** null removes the limit */
  spendLimit?: { amount: number; period: SpendPeriod } | null;
  /** null removes it */
  softSpendLimit?: number | null;
  /** null: the gateway's default */
  rateLimitPerMinute?: number | null;
  maxConcurrent?: number | null;
  /** the scopes it acts with; null: all of them */
  scopes?: string[] | null;
}

/** Whose key: a user's personal key (team_id null), or a team's. */
export type KeyOwner = { userId: number } | { teamId: number };

/** Updates a live key of this owner; undefined when it has no such key (for a user, a team's key included). */
export async function updateKey(db: Db, owner: KeyOwner, keyId: number, u: KeyUpdate): Promise<ApiKeyRecord | undefined> {
  const changes: Record<string, unknown> = {};
  if (u.name !== undefined) changes.name = u.name;
  if (u.ipWhitelist !== undefined) changes.ip_whitelist = u.ipWhitelist.length ? JSON.stringify(u.ipWhitelist) : null;
  if (u.expiresAt !== undefined) changes.expires_at = u.expiresAt;
  if (u.scopes !== undefined) changes.scopes = u.scopes === null ? null : JSON.stringify(u.scopes);
  if (u.spendLimit !== undefined) {
    changes.spend_limit = u.spendLimit?.amount ?? null;
    changes.spend_limit_period = u.spendLimit?.period ?? null;
  }
  if (u.softSpendLimit !== undefined) changes.soft_spend_limit = u.softSpendLimit;
  if (u.rateLimitPerMinute !== undefined) changes.rate_limit_per_minute = u.rateLimitPerMinute;
  if (u.maxConcurrent !== undefined) changes.max_concurrent = u.maxConcurrent;
  const scope = () => {
    const q = db<ApiKeyRow>('api_keys').where({ id: keyId }).whereNull('revoked_at');
    return 'teamId' in owner ? q.where({ team_id: owner.teamId }) : q.where({ user_id: owner.userId }).whereNull('team_id');
  };
  if (Object.keys(changes).length) await scope().update(changes);
  const row = await scope().first();
  return row ? apiKeyFromRow(row) : undefined;
}

/** Updates a live personal key of this user; undefined when there is no such key (a team's key included). */
export async function updateUserKey(db: Db, userId: number, keyId: number, u: KeyUpdate): Promise<ApiKeyRecord | undefined> {
  return updateKey(db, { userId }, keyId, u);
}
