// Accounts at external identity providers (Google), linked to local accounts by the
// provider's stable subject; the email is only used to find the account the first time.
import type { Db } from './knex.ts';
import { DuplicateError, isDuplicateKey } from './errors.ts';
import { affected, num } from './knex.ts';

export async function findIdentityUserId(db: Db, provider: string, subject: string): Promise<number | undefined> {
  const row = await db('user_identities').select('user_id').where({ provider, subject }).first<{ user_id: number } | undefined>();
  return row ? num(row.user_id) : undefined;
}

export async function linkIdentity(db: Db, userId: number, provider: string, subject: string, now: number): Promise<void> {
  try {
    await db('user_identities').insert({ user_id: userId, provider, subject, created_at: now });
  } catch (err) {
    if (isDuplicateKey(err)) throw new DuplicateError('this identity is already linked to an account');
    throw err;
  }
}

/**
 * Removes every external identity linked to the account; the number removed. For an account taken
 * back from whoever registered it without proving the address: any identity linked until then was
 * linked without a verified address (a verified one would have verified the account).
 */
export async function unlinkIdentities(db: Db, userId: number): Promise<number> {
  return affected(await db('user_identities').where({ user_id: userId }).delete());
}
