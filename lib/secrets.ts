// Secrets at rest: API keys and session tokens are high-entropy random strings, stored as
// SHA-256 digests (a slow hash adds nothing for 256-bit secrets, and lookups stay indexed).
// Passwords are low-entropy, so they get scrypt, a memory-hard function.
import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (pw: string, salt: Buffer, len: number, opts: crypto.ScryptOptions) => Promise<Buffer>;

export const KEY_PREFIX_LIVE = 'mg_live_';
export const KEY_PREFIX_TEST = 'mg_test_';
export const SESSION_PREFIX = 'mgs_';

/** 32 random bytes (256 bits) in base64url, after a recognisable prefix. */
export function newSecret(prefix: string): string {
  return prefix + crypto.randomBytes(32).toString('base64url');
}

export function sha256Hex(secret: string): string {
  // one-shot (no Hash object): every API-key request hashes its key, a quarter of createHash's cost
  return crypto.hash('sha256', secret, 'hex');
}

// N=2^15, r=8, p=1: 32 MiB and ~50-200 ms per hash on the 2-core reference machine (OWASP's scrypt minimum is N=2^17 with r=8,p=1 or equivalents; N=2^15 is the RFC 7914 interactive-login figure).
// N is the default of PASSWORD_HASH_COST (config.ts: its log2, 15); a hash keeps the N it was made with.
export const SCRYPT_PARAMS = { N: 2 ** 15, r: 8, p: 1, keyLen: 32 } as const;

/** A new password hash at cost `N` (a power of two: the gateway's PASSWORD_HASH_COST, 2^15 by default). */
export async function hashPassword(password: string, N: number = SCRYPT_PARAMS.N): Promise<string> {
  const salt = crypto.randomBytes(16);
  const { r, p, keyLen } = SCRYPT_PARAMS;
  const hash = await scrypt(password, salt, keyLen, { N, r, p, maxmem: 128 * N * r * 2 });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

/**
 * Whether `password` is the one `stored` was made from, at the cost it was made with. With no
 * stored hash, a hash all the same at `newN`, the cost new hashes get, so that an unknown account
 * costs the time a known one does.
 */
export async function verifyPassword(password: string, stored: string | null, newN: number = SCRYPT_PARAMS.N): Promise<boolean> {
  const parts = (stored ?? '').split('$');
  const valid = parts.length === 6 && parts[0] === 'scrypt';
  const N = valid ? Number(parts[1]) : newN;
  const r = valid ? Number(parts[2]) : SCRYPT_PARAMS.r;
  const p = valid ? Number(parts[3]) : SCRYPT_PARAMS.p;
  const salt = valid ? Buffer.from(parts[4]!, 'base64url') : crypto.randomBytes(16);
  const expected = valid ? Buffer.from(parts[5]!, 'base64url') : crypto.randomBytes(SCRYPT_PARAMS.keyLen);
  const actual = await scrypt(password, salt, expected.length, { N, r, p, maxmem: 128 * N * r * 2 });
  return crypto.timingSafeEqual(actual, expected) && valid;
}

/** Webhook signing secrets: `whsec_` + base64 of 32 random bytes (Standard Webhooks). */
export function newWebhookSecret(): string {
  return `whsec_${crypto.randomBytes(32).toString('base64')}`;
}

// Secrets the gateway must use (not just check) are sealed with AES-256-GCM under ENCRYPTION_KEY.
// Stored form: v1.<iv>.<tag>.<ciphertext>, each base64url.
export function seal(plaintext: string, key: Buffer): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
}

export function unseal(sealed: string, key: Buffer): string {
  const [version, iv, tag, ct] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || ct === undefined) throw new Error('unsupported sealed secret');
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}
