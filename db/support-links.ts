// Support links (table support_links, migration 2501): single-use tokens a staff member makes for
// one account, stored as SHA-256 digests. 'login' links are redeemed by supportLogin (an
// impersonated session), 'reset' links by supportResetPassword. README "Impersonation and support links".
import type { Knex } from 'knex';
import type { Db } from './knex.ts';
import { affected, num } from './knex.ts';

export type SupportLinkKind = 'login' | 'reset';

export interface NewSupportLink {
  kind: SupportLinkKind;
  tokenHash: string;
  userId: number;
  createdBy: number;
  reason: string;
  now: number;
  ttlMs: number;
}

export async function insertSupportLink(db: Db, l: NewSupportLink): Promise<void> {
  await db('support_links').insert({
    kind: l.kind, token_hash: l.tokenHash, user_id: l.userId, created_by: l.createdBy, reason: l.reason.slice(0, 500), created_at: l.now, expires_at: l.now + l.ttlMs,
  });
}

export type RedeemResult =
  | { outcome: 'redeemed'; userId: number; createdBy: number }
  | { outcome: 'unknown' }
  | { outcome: 'used' }
  | { outcome: 'expired' };

/**
 * Uses a link up: one conditional UPDATE (unused, unexpired, of this kind), so of concurrent
 * redemptions exactly one wins. Pass the caller's transaction when what the link does must commit
 * with it (a password reset).
 */
export async function redeemSupportLink(db: Db | Knex.Transaction, kind: SupportLinkKind, tokenHash: string, now: number): Promise<RedeemResult> {
  const won = affected(await db('support_links').where({ token_hash: tokenHash, kind }).whereNull('used_at').andWhere('expires_at', '>', now).update({ used_at: now })) === 1;
  const row = await db('support_links').where({ token_hash: tokenHash, kind })
    .first<{ user_id: number | string; created_by: number | string; expires_at: number | string; used_at: number | string | null } | undefined>('user_id', 'created_by', 'expires_at', 'used_at');
  if (!row) return { outcome: 'unknown' };
  if (won) return { outcome: 'redeemed', userId: num(row.user_id), createdBy: num(row.created_by) };
  return num(row.expires_at) <= now && row.used_at == null ? { outcome: 'expired' } : { outcome: 'used' };
}
