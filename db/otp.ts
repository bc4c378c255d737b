// One-time codes sent by email: six digits, stored as a SHA-256 digest bound to the account
// and purpose, one live code per (account, purpose), single use, with a bounded number of
// guesses. Every guess first claims an attempt with a conditional UPDATE, so concurrent guesses
// cannot exceed the bound, and the digest doubles as a version: a guess that raced a newer
// code never touches it.
import crypto from 'node:crypto';
import type { Db } from './knex.ts';
import { affected } from './knex.ts';
import { num } from './rows.ts';

/** 'otp' serves login-otp and verify-otp (request-otp, register); 'reset' serves reset-password. */
export type OtpPurpose = 'otp' | 'reset';

export const OTP_TTL_MS = 10 * 60 * 1000;
/** guesses per code; the fifth wrong one leaves the code unusable */
export const OTP_MAX_ATTEMPTS = 5;

export function newOtpCode(): string {
  return crypto.randomInt(0, 1_000_000).toString().padStart(6, '0');
}

/** The digest is bound to the account and purpose, so a code never works for another account or route. */
export function otpHash(userId: number, purpose: OtpPurpose, code: string): string {
  return crypto.createHash('sha256').update(`mediagate-otp\0${purpose}\0${userId}\0${code}`, 'utf8').digest('hex');
}

/** Stores a new code for the account and purpose, replacing (and so invalidating) the previous one. */
export async function storeOtp(db: Db, userId: number, purpose: OtpPurpose, codeHash: string, now: number): Promise<void> {
  await db('otp_codes')
    .insert({ user_id: userId, purpose, code_hash: codeHash, attempts: 0, created_at: now, expires_at: now + OTP_TTL_MS, consumed_at: null })
    .onConflict(['user_id', 'purpose'])
    .merge(['code_hash', 'attempts', 'created_at', 'expires_at', 'consumed_at']);
}

/**
 * Checks a code and, when it is right, uses it up. False for no code, an expired, used or
 * locked code, or a wrong guess (which counts against the code). Pass a transaction to make
 * the consumption part of the caller's unit of work.
 */
export async function consumeOtp(db: Db, userId: number, purpose: OtpPurpose, code: string, now: number): Promise<boolean> {
  const guess = otpHash(userId, purpose, code);
  const row = await db('otp_codes').select('id', 'code_hash').where({ user_id: userId, purpose }).first<{ id: number; code_hash: string } | undefined>();
  if (!row) return false;
  const live = () => db('otp_codes').where({ id: num(row.id), code_hash: row.code_hash }).whereNull('consumed_at').andWhere('expires_at', '>', now);
  const claimed = affected(await live().andWhere('attempts', '<', OTP_MAX_ATTEMPTS).increment('attempts', 1));
  if (claimed !== 1) return false;
  if (!crypto.timingSafeEqual(Buffer.from(guess, 'hex'), Buffer.from(row.code_hash, 'hex'))) return false;
  return affected(await live().update({ consumed_at: now })) === 1;
}
