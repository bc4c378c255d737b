import { roleOf } from '../lib/caller.ts';
import type { Role } from '../lib/caller.ts';
import type { Db } from './knex.ts';
import { affected, num } from './knex.ts';

/** A new session; `impersonatorId` names the staff member acting as the user (README "Impersonation and support links"). */
export async function insertSession(db: Db, userId: number, tokenHash: string, now: number, ttlSeconds: number, impersonatorId: number | null = null): Promise<void> {
  await db('sessions').insert({ user_id: userId, token_hash: tokenHash, created_at: now, expires_at: now + ttlSeconds * 1000, impersonator_id: impersonatorId });
}

export interface SessionUser {
  sessionId: number;
  userId: number;
  role: Role;
  /** the whitelabel studio the account belongs to (README "Whitelabel studios"); null: none */
  studioId: number | null;
  /** set on an impersonated session: the staff member acting as the user, and their role now */
  impersonator?: { userId: number; role: Role };
}

/** The owner of a live, unexpired session, or undefined. */
export async function findSessionUser(db: Db, tokenHash: string, now: number): Promise<SessionUser | undefined> {
  const row = await db('sessions')
    .join('users', 'users.id', 'sessions.user_id')
    .leftJoin('users as staff', 'staff.id', 'sessions.impersonator_id')
    .select('sessions.id', 'sessions.user_id', 'users.role', 'users.studio_id', 'sessions.impersonator_id', 'staff.role as impersonator_role')
    .where('sessions.token_hash', tokenHash)
    .whereNull('sessions.revoked_at')
    // an erased account has no sessions: one a sign-in racing the erasure wrote after it opens nothing
    .whereNull('users.deleted_at')
    .andWhere('sessions.expires_at', '>', now)
    .first<{ id: number; user_id: number; role: string; studio_id: number | string | null; impersonator_id: number | string | null; impersonator_role: string | null } | undefined>();
  if (!row) return undefined;
  return {
    sessionId: num(row.id), userId: num(row.user_id), role: roleOf(row.role), studioId: row.studio_id === null ? null : num(row.studio_id),
    ...(row.impersonator_id == null ? {} : { impersonator: { userId: num(row.impersonator_id), role: roleOf(row.impersonator_role) } }),
  };
}

/** Ends one session; true when it was live. */
export async function revokeSession(db: Db, sessionId: number, now: number): Promise<boolean> {
  return affected(await db('sessions').where({ id: sessionId }).whereNull('revoked_at').update({ revoked_at: now })) === 1;
}

/**
 * Ends every live session of an account (password reset, takeover protection), and the sign-in
 * and password-reset links staff made for it that nobody used yet (each would open a session or
 * set the password after this): they expire now, and a use is 410. A staff account's sessions
 * also include those it opened acting as someone else, and its links those it made for others:
 * whoever held the account until now made them. (A plain user's such sessions already stopped
 * with its role, on their next use.) Returns how many sessions.
 */
export async function revokeUserSessions(db: Db, userId: number, now: number): Promise<number> {
  const role = (await db('users').where({ id: userId }).first<{ role: string } | undefined>('role'))?.role;
  const asStaff = role !== undefined && roleOf(role) !== 'user';
  await db('support_links').where((w) => { w.where({ user_id: userId }); if (asStaff) w.orWhere({ created_by: userId }); })
    .whereNull('used_at').andWhere('expires_at', '>', now).update({ expires_at: now });
  let ended = affected(await db('sessions').where({ user_id: userId }).whereNull('revoked_at').update({ revoked_at: now }));
  // impersonator_id has no index: only a staff account's reset looks there
  if (asStaff) ended += affected(await db('sessions').where({ impersonator_id: userId }).whereNull('revoked_at').update({ revoked_at: now }));
  return ended;
}

/** When a session expires (epoch ms); undefined when there is no such session. */
export async function sessionExpiry(db: Db, sessionId: number): Promise<number | undefined> {
  const row = await db('sessions').select('expires_at').where({ id: sessionId }).first<{ expires_at: number | string } | undefined>();
  return row ? num(row.expires_at) : undefined;
}
