import { roleOf } from '../lib/roles.ts';
import type { Role } from '../lib/roles.ts';
import type { Db } from './knex.ts';
import { affected } from './knex.ts';
import { num } from './rows.ts';

export async function insertSession(db: Db, userId: number, tokenHash: string, now: number, ttlSeconds: number): Promise<void> {
  await db('sessions').insert({ user_id: userId, token_hash: tokenHash, created_at: now, expires_at: now + ttlSeconds * 1000 });
}

/** The owner of a live, unexpired session, or undefined. */
export async function findSessionUser(db: Db, tokenHash: string, now: number): Promise<{ sessionId: number; userId: number; role: Role; studioId: number | null } | undefined> {
  const row = await db('sessions')
    .join('users', 'users.id', 'sessions.user_id')
    .select('sessions.id', 'sessions.user_id', 'users.role', 'users.studio_id')
    .where('sessions.token_hash', tokenHash)
    .whereNull('sessions.revoked_at')
    .andWhere('sessions.expires_at', '>', now)
    .first<{ id: number; user_id: number; role: string; studio_id: number | string | null } | undefined>();
  return row ? { sessionId: num(row.id), userId: num(row.user_id), role: roleOf(row.role), studioId: row.studio_id === null ? null : num(row.studio_id) } : undefined;
}

/** Ends one session; true when it was live. */
export async function revokeSession(db: Db, sessionId: number, now: number): Promise<boolean> {
  return affected(await db('sessions').where({ id: sessionId }).whereNull('revoked_at').update({ revoked_at: now })) === 1;
}

/** Ends every live session of an account (password reset, takeover protection); returns how many. */
export async function revokeUserSessions(db: Db, userId: number, now: number): Promise<number> {
  return affected(await db('sessions').where({ user_id: userId }).whereNull('revoked_at').update({ revoked_at: now }));
}
