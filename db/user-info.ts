// What an administrator sees of one account (adminUserInfo): the reads behind it, each scoped to
// the user id the handler looked up by email.
import type { Db } from './knex.ts';
import { bool, iso, isoOrNull, num, numOrNull } from './knex.ts';
import { unfinishedSql } from './unfinished.ts';

export async function lastSignIn(db: Db, userId: number): Promise<string | null> {
  const row = await db('sessions').where('user_id', userId).max({ at: 'created_at' }).first<{ at: number | string | null }>();
  return row?.at === null || row?.at === undefined ? null : iso(row.at);
}

/** Unfinished predictions paid from the personal wallet, with what each holds. */
export async function openHolds(db: Db, userId: number) {
  const rows = await db('predictions').where('user_id', userId).whereNull('team_id').whereRaw(unfinishedSql(db)).where('price', '>', 0)
    .orderBy('created_at', 'desc').limit(100).select('id', 'model', 'status', 'price', 'created_at') as Array<Record<string, unknown>>;
  return rows.map((r) => ({ request_id: String(r.id), model: String(r.model), status: String(r.status), amount: num(r.price), created_at: iso(r.created_at) }));
}

/**
 * The most keys and teams one look-up reads: nothing bounds how many an account may create, and
 * each team listed costs a subscription read too.
 */
export const USER_INFO_LIST_MAX = 100;

/**
 * The account's teams, at most USER_INFO_LIST_MAX: the live ones oldest first, then the deleted
 * ones it was in when they were deleted (its runs, keys and ledger rows still name them), each
 * with when it was deleted.
 */
export async function teamsOf(db: Db, userId: number) {
  const rows = await db('team_members').join('teams', 'teams.id', 'team_members.team_id').where('team_members.user_id', userId)
    .orderByRaw('case when teams.deleted_at is null then 0 else 1 end').orderBy('teams.id').limit(USER_INFO_LIST_MAX)
    .select('teams.id', 'teams.name', 'team_members.role', 'teams.balance', 'teams.held', 'teams.deleted_at') as Array<Record<string, unknown>>;
  return rows.map((r) => ({
    id: num(r.id), name: String(r.name), role: String(r.role), balance: num(r.balance), held: num(r.held),
    deleted_at: isoOrNull(r.deleted_at),
  }));
}

/** The newest USER_INFO_LIST_MAX keys the user created, revoked ones included; never a key value or digest. */
export async function keysOf(db: Db, userId: number) {
  const rows = await db('api_keys').where('user_id', userId).orderBy('id', 'desc').limit(USER_INFO_LIST_MAX)
    .select('id', 'name', 'prefix', 'is_test', 'team_id', 'created_at', 'last_used_at', 'revoked_at') as Array<Record<string, unknown>>;
  return rows.map((r) => ({
    id: num(r.id), name: String(r.name), prefix: String(r.prefix), is_test: bool(r.is_test), team_id: numOrNull(r.team_id ?? null),
    created_at: iso(r.created_at), last_used_at: isoOrNull(r.last_used_at), revoked_at: isoOrNull(r.revoked_at),
  }));
}

/** The newest rows of the personal ledger. */
export async function recentLedger(db: Db, userId: number, limit = 20) {
  const rows = await db('credit_transactions').where('user_id', userId).whereNull('team_id').orderBy('id', 'desc').limit(limit) as Array<Record<string, unknown>>;
  return rows.map((r) => ({
    id: num(r.id), kind: String(r.kind), amount: num(r.amount), held_change: num(r.held_change), balance_after: num(r.balance_after),
    held_after: numOrNull(r.held_after ?? null), request_id: r.prediction_id === null || r.prediction_id === undefined ? null : String(r.prediction_id),
    description: String(r.description), created_at: iso(r.created_at),
  }));
}

export async function deletionScheduledAt(db: Db, userId: number): Promise<string | null> {
  const row = await db('users').where('id', userId).first() as Record<string, unknown> | undefined;
  const at = row?.deletion_scheduled_at ?? row?.scheduled_deletion_at ?? null;
  return at === null || at === undefined ? null : iso(at);
}

/** How many of the user's keys are not revoked, listed by keysOf or not. */
export async function activeKeyCount(db: Db, userId: number): Promise<number> {
  const row = await db('api_keys').where('user_id', userId).whereNull('revoked_at').count({ n: '*' }).first<{ n: number | string }>();
  return num(row?.n ?? 0);
}
