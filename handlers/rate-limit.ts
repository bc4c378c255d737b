// Attempts on the credential-guessing and mail-sending routes (login, cli/login, login-otp,
// verify-otp, request-otp, forgot-password, reset-password) share two budgets per window:
// one per email address and one per client address. The counters live in the database,
// so the limits hold across every API process.
import crypto from 'node:crypto';
import type { Request } from '@hapi/hapi';
import ipaddr from 'ipaddr.js';
import { clientIp } from '../plugins/addresses.ts';
import type { HandlerContext } from './types.ts';
import { httpError } from '../plugins/errors.ts';
import { deleteEndedWindows, hitWindow } from '../db/rate-limits.ts';
import { normaliseEmail } from '../db/users.ts';
import { audit } from './audit.ts';

/**
 * The client's address as a rate-limit bucket: plugins/addresses.ts decides the address (the
 * same one key restrictions and logs see); one IPv6 client usually holds a whole /64, so it
 * counts as one.
 */
export function clientAddress(request: Pick<Request, 'info' | 'headers'>, trustedProxies: readonly string[]): string {
  const addr = clientIp(request, trustedProxies);
  if (!addr) return request.info.remoteAddress;
  if (addr.kind() === 'ipv6') return `${ipaddr.IPv6.networkAddressFromCIDR(`${addr.toString()}/64`).toString()}/64`;
  return addr.toString();
}

function bucket(kind: string, value: string): string {
  // Digests, so the table holds no email addresses; 32 hex characters keep the key short.
  return `${kind}:${crypto.createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 32)}`;
}

const SWEEP_EVERY_MS = 60_000;
let lastSweep = 0;

/** Counts one attempt for this email and client; throws 429 with Retry-After when either budget is spent. */
export async function limitAttempts(ctx: HandlerContext, email: string): Promise<void> {
  const { app } = ctx;
  const { windowSeconds, perEmail, perAddress } = app.config.authRateLimit;
  const now = app.clock();
  const windowMs = windowSeconds * 1000;
  const windowStart = now - (now % windowMs);
  const address = clientAddress(ctx.request, app.config.trustedProxies);
  const [byAddress, byEmail] = await Promise.all([
    hitWindow(app.db, bucket('addr', address), windowStart),
    hitWindow(app.db, bucket('email', normaliseEmail(email)), windowStart),
  ]);
  if (now - lastSweep > SWEEP_EVERY_MS) {
    lastSweep = now;
    deleteEndedWindows(app.db, windowStart).catch((err: unknown) => app.log.warn({ err }, 'could not clear ended rate-limit windows'));
  }
  if (byAddress > perAddress || byEmail > perEmail) {
    audit(ctx, 'rate_limited', { budget: byAddress > perAddress ? 'address' : 'email' });
    const retryAfter = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
    throw httpError(429, `too many attempts, try again in ${retryAfter} seconds`, { 'Retry-After': String(retryAfter) });
  }
}
