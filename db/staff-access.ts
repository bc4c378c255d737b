// What staff did on or for one account, as its owner sees it (listStaffAccess, README
// "Impersonation and support links"): read from the audit log of administrative calls (table
// admin_audit, never updated or deleted), with the impersonated session (sessions.impersonator_id)
// and the support link (support_links) each call opened or redeemed, while they are on record.
// Nothing here reads a token digest, a link or the recorded parameters beyond a few named fields.
import type { Db } from './knex.ts';
import { iso, isoOrNull, num } from './knex.ts';
import { pseudonymiseText } from './pseudonymise.ts';

/** The kind of each listed action, by operationId. */
export const STAFF_ACTION_KINDS = {
  virtualLogin: 'impersonation',
  supportLogin: 'support_login',
  adminSupportLoginLink: 'support_login_link',
  adminPasswordResetLink: 'password_reset_link',
  supportResetPassword: 'password_reset',
  adminTopup: 'credit',
  adminDeductCredits: 'debit',
  adminRefund: 'refund',
  upsertModelDiscounts: 'discount_set',
  deleteModelDiscount: 'discount_removed',
} as const;
export type StaffAccessKind = typeof STAFF_ACTION_KINDS[keyof typeof STAFF_ACTION_KINDS];

/** Actions on the account itself, whatever `team_id` the call carried (ignored by these operations). */
const ACCOUNT_ACTIONS = ['virtualLogin', 'supportLogin', 'adminSupportLoginLink', 'adminPasswordResetLink', 'supportResetPassword'];
/** Actions on a wallet: listed only for the personal one (target_team_id null). */
const WALLET_ACTIONS = ['adminTopup', 'adminDeductCredits', 'adminRefund', 'upsertModelDiscounts', 'deleteModelDiscount'];

/** How long before its audit row a session or link the call made can have been written (the row is written as the answer leaves). */
const MATCH_WINDOW_MS = 60_000;

export interface StaffAccessRow {
  id: number;
  kind: StaffAccessKind;
  at: string;
  staff_role: string;
  reason: string | null;
  expires_at: string | null;
  ended_at: string | null;
  amount: number | null;
}

export interface StaffAccessPaging {
  page: number;
  pageSize: number;
  /** link lifetimes by kind (minutes), to show when a link stopped working */
  linkTtlMinutes: Readonly<Record<'login' | 'reset', number>>;
  /** virtualLogin's default session length (minutes), for a session no longer on record */
  defaultSessionMinutes: number;
}

type AuditRow = { id: number | string; actor_user_id: number | string | null; actor_role: string; action: string; params: string; reason: string | null; created_at: number | string };

function paramsOf(row: AuditRow): { body?: Record<string, unknown> } {
  try {
    const parsed = JSON.parse(row.params) as unknown;
    return typeof parsed === 'object' && parsed !== null ? parsed as { body?: Record<string, unknown> } : {};
  } catch {
    return {};
  }
}

/** The impersonated session a virtualLogin or supportLogin call opened: the actor's latest on this account written just before the row. */
async function sessionOf(db: Db, userId: number, staffId: number, at: number) {
  return db('sessions').where({ user_id: userId, impersonator_id: staffId }).whereBetween('created_at', [at - MATCH_WINDOW_MS, at])
    .orderBy('created_at', 'desc').first<{ expires_at: number | string; revoked_at: number | string | null } | undefined>('expires_at', 'revoked_at');
}

/** The reason of the login link a supportLogin call redeemed. */
async function redeemedLinkReason(db: Db, userId: number, staffId: number, at: number): Promise<string | null> {
  const link = await db('support_links').where({ user_id: userId, created_by: staffId, kind: 'login' }).whereBetween('used_at', [at - MATCH_WINDOW_MS, at])
    .orderBy('used_at', 'desc').first<{ reason: string } | undefined>('reason');
  // stored as staff typed it: an address in it is shown as the audit log shows one
  return link ? pseudonymiseText(db, link.reason) : null;
}

/** One page, newest first, with the total. */
export async function listStaffAccess(db: Db, userId: number, p: StaffAccessPaging): Promise<{ items: StaffAccessRow[]; total: number }> {
  const q = db('admin_audit')
    .where('target_user_id', userId)
    .whereBetween('status', [200, 299])
    // the requests made inside an impersonated session are its own rows (credential `impersonation`); the session is listed once
    .whereNot('credential', 'impersonation')
    .where((w) => w.whereIn('action', ACCOUNT_ACTIONS).orWhere((v) => v.whereIn('action', WALLET_ACTIONS).whereNull('target_team_id')));
  const total = await q.clone().count<{ n: number | string }[]>({ n: '*' }).first();
  const rows = await q.orderBy('id', 'desc').limit(p.pageSize).offset((p.page - 1) * p.pageSize)
    .select<AuditRow[]>('id', 'actor_user_id', 'actor_role', 'action', 'params', 'reason', 'created_at');
  const items: StaffAccessRow[] = [];
  // one after the other: a page is at most 100 rows, and SQLite has one connection
  for (const row of rows) {
    const kind = STAFF_ACTION_KINDS[row.action as keyof typeof STAFF_ACTION_KINDS];
    const at = num(row.created_at);
    const staffId = row.actor_user_id === null ? null : num(row.actor_user_id);
    const body = paramsOf(row).body ?? {};
    const entry: StaffAccessRow = { id: num(row.id), kind, at: iso(at), staff_role: row.actor_role, reason: row.reason ?? null, expires_at: null, ended_at: null, amount: null };
    if (kind === 'impersonation' || kind === 'support_login') {
      const session = staffId === null ? undefined : await sessionOf(db, userId, staffId, at);
      if (session) {
        entry.expires_at = iso(session.expires_at);
        entry.ended_at = session.revoked_at !== null && num(session.revoked_at) < num(session.expires_at) ? isoOrNull(session.revoked_at) : null;
      } else {
        // a session pruned by the retention job: its length as asked (virtualLogin's `minutes`) or the default
        const minutes = kind === 'impersonation' && typeof body.minutes === 'number' ? body.minutes : p.defaultSessionMinutes;
        entry.expires_at = iso(at + minutes * 60_000);
      }
      if (kind === 'support_login' && staffId !== null) entry.reason = await redeemedLinkReason(db, userId, staffId, at);
    } else if (kind === 'support_login_link' || kind === 'password_reset_link') {
      entry.expires_at = iso(at + p.linkTtlMinutes[kind === 'support_login_link' ? 'login' : 'reset'] * 60_000);
    } else if ((kind === 'credit' || kind === 'debit' || kind === 'refund') && typeof body.amount === 'number') {
      entry.amount = kind === 'debit' ? -body.amount : body.amount;
    }
    items.push(entry);
  }
  return { items, total: num(total?.n ?? 0) };
}
