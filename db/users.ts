import { appendLedger } from './wallet/ledger.ts';
import { roleOf } from '../lib/caller.ts';
import type { Role } from '../lib/caller.ts';
import type { Db } from './knex.ts';
import { affected, bool, iso, num } from './knex.ts';
import { DuplicateError, isDuplicateKey } from './errors.ts';
import { normaliseEmail } from './email-address.ts';

export { normaliseEmail };

export interface User {
  id: number;
  email: string;
  emailVerified: boolean;
  role: Role;
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
    role: roleOf(r.role),
    balance: num(r.balance),
    held: num(r.held),
    createdAt: iso(r.created_at),
  };
}


/**
 * A new account, with an empty wallet: the sign-up credit comes when the email is verified
 * (verifyEmail). `passwordHash` is null for accounts created by Google sign-in.
 */
export async function createUser(
  db: Db, email: string, passwordHash: string | null, now: number, opts: { emailVerified?: boolean; studioId?: number | null } = {},
): Promise<User> {
  try {
    return await db.transaction(async (trx) => {
      const [id] = await trx('users').insert({
        email: normaliseEmail(email),
        password_hash: passwordHash,
        email_verified: opts.emailVerified ?? false,
        // registered in a whitelabel studio (README "Whitelabel studios"); the email stays unique gateway-wide
        studio_id: opts.studioId ?? null,
        created_at: now,
      });
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

/**
 * With `studioId` (a number, or null for outside every studio) only an account of that studio is
 * found: a studio's user signs in within the studio, and nowhere else (README "Whitelabel studios").
 */
export async function findUserForLogin(db: Db, email: string, studioId?: number | null): Promise<{ user: User; passwordHash: string | null } | undefined> {
  const q = db<UserRow>('users').where({ email: normaliseEmail(email) });
  if (studioId !== undefined) q.andWhere((w) => { if (studioId === null) w.whereNull('studio_id'); else w.where('studio_id', studioId); });
  const row = await q.first();
  return row ? { user: toUser(row), passwordHash: row.password_hash } : undefined;
}

export async function findUserByEmail(db: Db, email: string, studioId?: number | null): Promise<User | undefined> {
  const q = db<UserRow>('users').where({ email: normaliseEmail(email) });
  if (studioId !== undefined) q.andWhere((w) => { if (studioId === null) w.whereNull('studio_id'); else w.where('studio_id', studioId); });
  const row = await q.first();
  return row ? toUser(row) : undefined;
}

/**
 * An account that has not been erased. An erased account's row stays as an anonymised tombstone
 * (`deleted-<id>@deleted.invalid`, db/account-deletion.ts): staff may read it, but nothing may act
 * on it (credit it, impersonate it, give it a support link or a discount).
 */
export async function findLiveUserByEmail(db: Db, email: string): Promise<User | undefined> {
  const row = await db<UserRow>('users').where({ email: normaliseEmail(email) }).whereNull('deleted_at').first();
  return row ? toUser(row) : undefined;
}

/**
 * Marks the address verified and, the first time only, grants the sign-up credit with its ledger
 * row. The grant is a conditional UPDATE on `signup_credit_granted`, so concurrent verifications
 * grant it once; pass the caller's transaction so the credit commits with what proved the address.
 * True when this call granted it.
 */
export async function verifyEmail(db: Db, userId: number, signupCredit: number, now: number): Promise<boolean> {
  const granted = affected(await db('users').where({ id: userId, signup_credit_granted: false }).update({
    email_verified: true,
    signup_credit_granted: true,
    balance: db.raw('balance + ?', [signupCredit]),
  })) === 1;
  if (!granted) {
    await db('users').where({ id: userId }).update({ email_verified: true });
    return false;
  }
  if (signupCredit > 0) {
    // the UPDATE above added it to the balance; its ledger row reads the balance after
    await appendLedger(db, { userId, teamId: null }, { kind: 'signup', amount: signupCredit, heldChange: 0, description: 'sign-up credit', now });
  }
  return true;
}

/** Sets (or, with null, removes) the account's password. */
export async function setPasswordHash(db: Db, userId: number, passwordHash: string | null): Promise<void> {
  await db('users').where({ id: userId }).update({ password_hash: passwordHash });
}

/** Sets the role of the account with `email`; undefined when there is none (an erased account's row included). Answers its previous role too. */
export async function setUserRole(db: Db, email: string, role: Role): Promise<{ id: number; email: string; previousRole: Role } | undefined> {
  return db.transaction(async (trx) => {
    const row = await trx('users').where({ email: normaliseEmail(email) }).whereNull('deleted_at').first<{ id: number; email: string; role: string } | undefined>('id', 'email', 'role');
    if (!row) return undefined;
    await trx('users').where({ id: row.id }).update({ role });
    return { id: num(row.id), email: row.email, previousRole: roleOf(row.role) };
  });
}

/** The accounts holding a role other than `user`. */
export async function listUsersWithRoles(db: Db): Promise<Array<{ id: number; email: string; role: Role }>> {
  const rows = await db('users').whereNot('role', 'user').orderBy('id').select('id', 'email', 'role') as Array<{ id: number; email: string; role: string }>;
  return rows.map((r) => ({ id: num(r.id), email: r.email, role: roleOf(r.role) }));
}

export async function countUsersWithRole(db: Db, role: Role): Promise<number> {
  const row = await db('users').where({ role }).count<{ n: number | string }[]>({ n: '*' }).first();
  return num(row?.n ?? 0);
}
