import type { Db } from './knex.ts';
import { num } from './rows.ts';

export async function insertSession(db: Db, userId: number, tokenHash: string, now: number, ttlSeconds: number): Promise<void> {
  await db('sessions').insert({ user_id: userId, token_hash: tokenHash, created_at: now, expires_at: now + ttlSeconds * 1000 });
}

/** The owner of a live, unexpired session, or undefined. */
export async function findSessionUser(db: Db, tokenHash: string, now: number): Promise<{ userId: number; role: 'user' | 'admin' } | undefined> {
  const row = await db('sessions')
    .join('users', 'users.id', 'sessions.user_id')
    .select('sessions.user_id', 'users.role')
    .where('sessions.token_hash', tokenHash)
    .whereNull('sessions.revoked_at')
    .andWhere('sessions.expires_at', '>', now)
    .first<{ user_id: number; role: string } | undefined>();
  return row ? { userId: num(row.user_id), role: row.role === 'admin' ? 'admin' : 'user' } : undefined;
}
