// One-time codes sent by email: six digits, stored as an HMAC keyed by the gateway's key and
// bound to the account and purpose, single use, with a bounded number of guesses per code. Mails can arrive out of
// order, so the last OTP_KEPT unexpired codes per (account, purpose) stay valid until one of
// them is used, which consumes them all. Every guess first claims an attempt on each live code
// with a conditional UPDATE, so concurrent guesses cannot exceed any code's bound.
import crypto from 'node:crypto';
import type { Db } from './knex.ts';
import { affected, num } from './knex.ts';

/** 'otp' serves login-otp and verify-otp (request-otp, register); 'reset' serves reset-password. */
export type OtpPurpose = 'otp' | 'reset';

export const OTP_TTL_MS = 10 * 60 * 1000;
/** guesses per code; the fifth wrong one leaves the code unusable */
export const OTP_MAX_ATTEMPTS = 5;
/** live codes kept per (account, purpose): a newer code does not kill the one whose mail may still arrive later */
export const OTP_KEPT = 2;

export function newOtpCode(): string {
  return crypto.randomInt(0, 1_000_000).toString().padStart(6, '0');
}

/**
 * The digest stored for a code: bound to the account and purpose, so a code never works for
 * another account or route, and keyed by a sub-key of ENCRYPTION_KEY. A plain hash of a code of
 * a million values would give it back to anyone who reads the table (a backup, a replica) in a
 * second; without the key, its digest says nothing of it.
 */
export function otpHash(key: Buffer, userId: number, purpose: OtpPurpose, code: string): string {
  return crypto.createHmac('sha256', otpKey(key)).update(`${purpose}\0${userId}\0${code}`, 'utf8').digest('hex');
}

const otpKeys = new WeakMap<Buffer, Buffer>();
/** The codes' key: a sub-key of ENCRYPTION_KEY, so one secret never serves two purposes. */
function otpKey(key: Buffer): Buffer {
  let k = otpKeys.get(key);
  if (k === undefined) otpKeys.set(key, k = Buffer.from(crypto.hkdfSync('sha256', key, Buffer.alloc(0), 'mediagate one-time codes v1', 32)));
  return k;
}

/**
 * Stores a new code for the account and purpose. The previous one stays valid (mails can
 * overtake each other); older ones, and used or expired ones, are deleted.
 */
export async function storeOtp(db: Db, userId: number, purpose: OtpPurpose, codeHash: string, now: number): Promise<void> {
  await db('otp_codes').insert({ user_id: userId, purpose, code_hash: codeHash, attempts: 0, created_at: now, expires_at: now + OTP_TTL_MS, consumed_at: null });
  // No transaction needed: a concurrent store only ever deletes rows below the newest OTP_KEPT it saw.
  const kept = await liveCodes(db, userId, purpose, now);
  if (kept.length === 0) return;
  const oldestKept = Math.min(...kept.map((r) => num(r.id)));
  await db('otp_codes').where({ user_id: userId, purpose })
    .andWhere((q) => q.where('id', '<', oldestKept).orWhereNotNull('consumed_at').orWhere('expires_at', '<=', now))
    .delete();
}

function liveCodes(db: Db, userId: number, purpose: OtpPurpose, now: number): Promise<Array<{ id: number; code_hash: string }>> {
  return db('otp_codes').select('id', 'code_hash').where({ user_id: userId, purpose }).whereNull('consumed_at').andWhere('expires_at', '>', now)
    .orderBy('id', 'desc').limit(OTP_KEPT);
}

/**
 * Checks a code against the account's live codes and, when it matches one, uses them all up.
 * False for no code, an expired, used or locked code, or a wrong guess (which counts against
 * every live code). Pass a transaction to make the consumption part of the caller's unit of work.
 */
export async function consumeOtp(db: Db, key: Buffer, userId: number, purpose: OtpPurpose, code: string, now: number): Promise<boolean> {
  const guess = Buffer.from(otpHash(key, userId, purpose, code), 'hex');
  const live = (id: number) => db('otp_codes').where({ id }).whereNull('consumed_at').andWhere('expires_at', '>', now);
  let match: number | undefined;
  for (const row of await liveCodes(db, userId, purpose, now)) {
    const id = num(row.id);
    const claimed = affected(await live(id).andWhere('attempts', '<', OTP_MAX_ATTEMPTS).increment('attempts', 1));
    if (claimed === 1 && crypto.timingSafeEqual(guess, Buffer.from(row.code_hash, 'hex'))) match = id;
  }
  if (match === undefined) return false;
  if (affected(await live(match).update({ consumed_at: now })) !== 1) return false;
  // Using one code uses up the others: none of them may work again.
  await db('otp_codes').where({ user_id: userId, purpose }).whereNull('consumed_at').update({ consumed_at: now });
  return true;
}
