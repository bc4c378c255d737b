// What a team owns besides its wallet (issue 8): API keys and predictions with team_id set.
// The rows keep user_id (the member who created or submitted them) for audit; ownership, and
// so visibility, is team_id. Removing a member, or erasing their account, revokes the team keys
// they created (db/teams.ts revokeTeamKeysCreatedBy); the rest of the team's keys keep working.
import type { Db } from './knex.ts';
import { affected, num } from './knex.ts';
import { apiKeyFromRow, restrictionColumns, updateKey } from './api-keys.ts';
import type { ApiKeyRecord, ApiKeyRow, KeyLimits, KeyRestrictions, KeyUpdate } from './api-keys.ts';
import { predictionFromRow } from './predictions/record.ts';
import type { Prediction } from './predictions/record.ts';

export interface TeamApiKeyRecord extends ApiKeyRecord {
  teamId: number;
}

type Row = Record<string, unknown>;

function toKey(r: Row): TeamApiKeyRecord {
  return { ...apiKeyFromRow(r as unknown as ApiKeyRow), teamId: num(r.team_id) };
}

/** A live key of this team, or undefined (another team's or a personal key's id included). */
export async function findTeamKey(db: Db, teamId: number, keyId: number): Promise<TeamApiKeyRecord | undefined> {
  const row: Row | undefined = await db('api_keys').where({ id: keyId, team_id: teamId }).whereNull('revoked_at').first();
  return row ? toKey(row) : undefined;
}

export async function insertTeamApiKey(
  db: Db,
  k: { teamId: number; createdBy: number; name: string; prefix: string; keyHash: string; isTest: boolean; ipWhitelist: string[]; scopes?: readonly string[] | null; limits?: KeyLimits; restrictions?: KeyRestrictions },
  now: number,
): Promise<TeamApiKeyRecord> {
  const [id] = await db('api_keys').insert({
    user_id: k.createdBy,
    team_id: k.teamId,
    name: k.name,
    prefix: k.prefix,
    key_hash: k.keyHash,
    is_test: k.isTest,
    ip_whitelist: k.ipWhitelist.length ? JSON.stringify(k.ipWhitelist) : null,
    scopes: k.scopes ? JSON.stringify(k.scopes) : null,
    rate_limit_per_minute: k.limits?.rateLimitPerMinute ?? null,
    max_concurrent: k.limits?.maxConcurrent ?? null,
    ...restrictionColumns(k.restrictions),
    created_at: now,
  });
  return toKey(await db('api_keys').where({ id }).first());
}

export async function listTeamKeys(db: Db, teamId: number): Promise<TeamApiKeyRecord[]> {
  const rows: Row[] = await db('api_keys').where({ team_id: teamId }).whereNull('revoked_at').orderBy('id', 'asc');
  return rows.map(toKey);
}

/** Updates a live key of this team (updateTeamApiKey); undefined when the team has no such key. */
export async function updateTeamKey(db: Db, teamId: number, keyId: number, u: KeyUpdate): Promise<TeamApiKeyRecord | undefined> {
  const k = await updateKey(db, { teamId }, keyId, u);
  return k ? { ...k, teamId } : undefined;
}

/** Revokes a live key of this team; false when the team has no such key (another owner's id included). */
export async function revokeTeamKey(db: Db, teamId: number, keyId: number, now: number): Promise<boolean> {
  return affected(await db('api_keys').where({ id: keyId, team_id: teamId }).whereNull('revoked_at').update({ revoked_at: now })) === 1;
}

/** The team a key belongs to, or null for a personal key (or no such key). */
export async function teamOfKey(db: Db, keyId: number): Promise<number | null> {
  const row = await db('api_keys').select('team_id').where({ id: keyId }).first();
  return row && row.team_id !== null ? num(row.team_id) : null;
}

/** The team's predictions, newest first; `before` (a prediction id) pages backwards. */
export async function listTeamPredictions(db: Db, teamId: number, opts: { limit: number; before?: string }): Promise<Prediction[]> {
  const q = db('predictions').where({ team_id: teamId });
  if (opts.before) q.andWhere('id', '<', opts.before);
  const rows: Row[] = await q.orderBy('id', 'desc').limit(opts.limit);
  return rows.map(predictionFromRow);
}

/** One prediction of the team, or undefined (another owner's id included). */
export async function findTeamPrediction(db: Db, teamId: number, id: string): Promise<Prediction | undefined> {
  const row: Row | undefined = await db('predictions').where({ id, team_id: teamId }).first();
  return row ? predictionFromRow(row) : undefined;
}
