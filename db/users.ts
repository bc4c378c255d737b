import type { Db } from './knex.ts';
import { DuplicateError, isDuplicateKey } from './errors.ts';
import { bool, iso, num } from './rows.ts';

export interface User {
  id: number;
  email: string;
  emailVerified: boolean;
  role: 'user' | 'admin';
  balance: number;
  held: number;
  createdAt: string;
}

interface UserRow {
  id: number;
  email: string;
  password_hash: string | null;
  email_verified: number | boolean;
  role: string;
  balance: number | string;
  held: number | string;
  created_at: number | string;
}

function toUser(r: UserRow): User {
  return {
    id: num(r.id),
    email: r.email,
    emailVerified: bool(r.email_verified),
    role: r.role === 'admin' ? 'admin' : 'user',
    balance: num(r.balance),
    held: num(r.held),
    createdAt: iso(r.created_at),
  };
}

/** Emails are compared trimmed and lower-cased on both engines (MariaDB's collation is case-insensitive, SQLite's is not). */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** A new account with its sign-up credit. `passwordHash` is null for accounts created by Google sign-in. */
export async function createUser(
  db: Db, email: string, passwordHash: string | null, signupCredit: number, now: number, opts: { emailVerified?: boolean } = {},
): Promise<User> {
  try {
    return await db.transaction(async (trx) => {
      const [id] = await trx('users').insert({
        email: normaliseEmail(email),
        password_hash: passwordHash,
        email_verified: opts.emailVerified ?? false,
        balance: signupCredit,
        created_at: now,
      });
      if (signupCredit > 0) {
        await trx('credit_transactions').insert({
          user_id: id, amount: signupCredit, kind: 'signup', description: 'sign-up credit', balance_after: signupCredit, created_at: now,
        });
      }
      const row = await trx<UserRow>('users').where({ id }).first();
      return toUser(row!);
    });
  } catch (err) {
    if (isDuplicateKey(err)) throw new DuplicateError('an account with this email already exists');
    throw err;
  }
}

export async function findUserById(db: Db, id: number): Promise<User | undefined> {
  const row = await db<UserRow>('users').where({ id }).first();
  return row ? toUser(row) : undefined;
}

export async function findUserForLogin(db: Db, email: string): Promise<{ user: User; passwordHash: string | null } | undefined> {
  const row = await db<UserRow>('users').where({ email: normaliseEmail(email) }).first();
  return row ? { user: toUser(row), passwordHash: row.password_hash } : undefined;
}

export async function findUserByEmail(db: Db, email: string): Promise<User | undefined> {
  const row = await db<UserRow>('users').where({ email: normaliseEmail(email) }).first();
  return row ? toUser(row) : undefined;
}

export async function markEmailVerified(db: Db, userId: number): Promise<void> {
  await db('users').where({ id: userId }).update({ email_verified: true });
}

/** Sets (or, with null, removes) the account's password. */
export async function setPasswordHash(db: Db, userId: number, passwordHash: string | null): Promise<void> {
  await db('users').where({ id: userId }).update({ password_hash: passwordHash });
}
