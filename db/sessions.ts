import type { Db } from './knex.ts';
import { num } from './rows.ts';

export async function insertSession(db: Db, userId: number, tokenHash: string, now: number, ttlSeconds: number): Promise<void> {
  await db('sessions').insert({ user_id: userId, token_hash: tokenHash, created_at: now, expires_at: now + ttlSeconds * 1000 });
}

/** The user id of a live, unexpired session, or undefined. */
export async function findSessionUser(db: Db, tokenHash: string, now: number): Promise<number | undefined> {
  const row = await db('sessions')
    .select('user_id')
    .where({ token_hash: tokenHash })
    .whereNull('revoked_at')
    .andWhere('expires_at', '>', now)
    .first<{ user_id: number } | undefined>();
  return row ? num(row.user_id) : undefined;
}
