// The administrative routes of issue 11 that move or show money, and the audit log. Who may call
// each is the spec's `x-required-role` (README "Roles"), checked by the route bridge before the
// handler runs, which also writes every call's audit row; a handler adds the target it resolved
// (`audit.target_user_id`, `audit.target_team_id`).
import type { Handler } from './types.ts';
import type { AuditFields } from './audit.ts';
import type { App } from '../lib/context.ts';
import { ConflictError, NotFoundError, RoleRequiredError, ValidationFailedError } from '../lib/errors.ts';
import { findLiveUserByEmail, findUserByEmail } from '../db/users.ts';
import type { User } from '../db/users.ts';
import { membership } from '../db/teams.ts';
import { adminDeduct, adminTopUp, refundPrediction } from '../db/wallet/admin.ts';
import type { AdminMove, Refunded } from '../db/wallet/admin.ts';
import type { Owner } from '../lib/caller.ts';
import { activeKeyCount, deletionScheduledAt, keysOf, lastSignIn, openHolds, recentLedger, teamsOf } from '../db/user-info.ts';
import { listAdminAudit } from '../db/admin-audit.ts';
import { subscriptionView } from './subscription-view.ts';
import type { components } from '../spec/v1.generated.ts';

/** The most a `support` caller may refund in one call (5 USD); billing and admin have no cap. */
export const SUPPORT_REFUND_MAX = 5000;

const AUDIT_PAGE_SIZE = 50;

/** The account with `email`; with `live`, never an erased one (its tombstone is read, not acted on). */
async function userByEmail(app: App, email: string, audit: AuditFields, live = false): Promise<User> {
  const user = await (live ? findLiveUserByEmail : findUserByEmail)(app.db, email);
  if (!user) throw new NotFoundError('no account with this email');
  audit.target_user_id = user.id;
  return user;
}

/** The wallet an admin move acts on: the user's own, or with `team_id` that team's (the user must be a member). */
export async function walletFor(app: App, email: string, teamId: number | undefined, audit: AuditFields): Promise<{ user: User; payer: Owner }> {
  const user = await userByEmail(app, email, audit, true);
  if (teamId === undefined) return { user, payer: { userId: user.id, teamId: null } };
  audit.target_team_id = teamId;
  if (!Number.isSafeInteger(teamId) || await membership(app.db, teamId, user.id) === undefined) throw new NotFoundError('team not found, or this user is not a member of it');
  return { user, payer: { userId: user.id, teamId } };
}

/** The 404 of a wallet walletFor found that is gone by the time its move locks it (an account erased, a team deleted meanwhile). */
function walletGone(payer: Owner): NotFoundError {
  return new NotFoundError(payer.teamId === null ? 'no account with this email' : 'team not found, or this user is not a member of it');
}

// With an Idempotency-Key, each money move below stores its answer in the transaction that moves
// the money (IdempotentRun.completeWithin): a retry that takes over the key of a run that died
// finds either the move and its answer, or neither, and never moves the money twice.

/** POST /auth/admin_topup */
export const adminTopup: Handler<'adminTopup'> = async ({ app, query, body, audit, idempotency }) => {
  const { user, payer } = await walletFor(app, body.email, query.team_id, audit);
  const answer = (move: AdminMove) => ({
    user_id: user.id, email: user.email, team_id: payer.teamId, amount: body.amount, balance: move.balance, held: move.held, transaction_id: move.transactionId,
  });
  const move = await adminTopUp(app.db, payer, body.amount, body.reason?.trim() || 'top-up', app.clock(), idempotency && ((trx, m) => idempotency.completeWithin(trx, answer(m))));
  // deleted or erased since walletFor found it: credit never lands on a wallet that is gone
  if (!move) throw walletGone(payer);
  return answer(move);
};

/** POST /auth/admin_deduct_credits: never below zero unless allow_negative (409 otherwise). */
export const adminDeductCredits: Handler<'adminDeductCredits'> = async ({ app, query, body, audit, idempotency }) => {
  const { user, payer } = await walletFor(app, body.email, query.team_id, audit);
  const answer = (move: AdminMove) => ({
    user_id: user.id, email: user.email, team_id: payer.teamId, amount: -body.amount, balance: move.balance, held: move.held, transaction_id: move.transactionId,
  });
  const move = await adminDeduct(
    app.db, payer, body.amount, body.reason?.trim() || 'deduction', app.clock(), body.allow_negative === true,
    idempotency && ((trx, m) => idempotency.completeWithin(trx, answer(m))),
  );
  // deleted or erased since walletFor found it, as for a top-up
  if (move === 'gone') throw walletGone(payer);
  if (!move) throw new ConflictError(`the balance is smaller than ${body.amount} credits; nothing was deducted (send "allow_negative": true to let it go below zero)`);
  return answer(move);
};

/** POST /auth/admin_refund: credits back for a prediction, at most what it was charged in all. */
export const adminRefund: Handler<'adminRefund'> = async ({ app, caller, body, audit, idempotency }) => {
  const max = caller.role === 'support' ? SUPPORT_REFUND_MAX : Number.MAX_SAFE_INTEGER;
  const answer = (r: Refunded) => ({
    request_id: body.request_id, user_id: r.payer.userId, team_id: r.payer.teamId, amount: r.amount, charged: r.charged, refunded_total: r.refundedTotal,
    balance: r.balance, transaction_id: r.transactionId,
  });
  const out = await refundPrediction(
    app.db, body.request_id, body.amount, max, body.reason?.trim() || 'refund', app.clock(), idempotency && ((trx, r) => idempotency.completeWithin(trx, answer(r))),
  );
  if (out.outcome === 'not-found') throw new NotFoundError('prediction not found');
  // the audit row names whose wallet it was, refusals included
  audit.target_user_id = out.payer.userId;
  if (out.payer.teamId !== null) audit.target_team_id = out.payer.teamId;
  switch (out.outcome) {
    case 'not-charged': throw new ConflictError('this prediction was not charged (unfinished, failed, cancelled or sandbox): nothing to refund');
    case 'team-deleted': throw new ConflictError('the team that paid for this prediction was deleted: its wallet cannot be credited');
    case 'exceeds': throw new ConflictError(`only ${out.remaining} of the ${out.charged} credits charged are left to refund`);
    case 'over-limit': throw new RoleRequiredError(`the support role refunds at most ${SUPPORT_REFUND_MAX} credits per call (this is ${out.amount}); ask billing or an administrator`);
  }
  return answer(out);
};

/** GET /auth/admin_user_info?email= */
export const adminUserInfo: Handler<'adminUserInfo'> = async ({ app, query, audit }) => {
  const user = await userByEmail(app, query.email, audit);
  const [lastSignInAt, holds, teams, keys, activeKeys, ledger, deletion, subscription] = await Promise.all([
    lastSignIn(app.db, user.id), openHolds(app.db, user.id), teamsOf(app.db, user.id), keysOf(app.db, user.id), activeKeyCount(app.db, user.id), recentLedger(app.db, user.id),
    deletionScheduledAt(app.db, user.id), subscriptionView(app, { userId: user.id, teamId: null }),
  ]);
  return {
    id: user.id, email: user.email, email_verified: user.emailVerified, role: user.role, created_at: user.createdAt,
    balance: user.balance, held: user.held,
    subscription,
    api_key_count: activeKeys,
    deletion_scheduled_at: deletion, last_sign_in_at: lastSignInAt, open_holds: holds,
    teams: await Promise.all(teams.map(async (t) => ({ ...t, subscription: await subscriptionView(app, { userId: user.id, teamId: t.id }) }))) as components['schemas']['AdminUserInfoResponse']['teams'],
    api_keys: keys, recent_transactions: ledger,
  };
};

/**
 * A `since` or `until` as epoch ms. The spec's date-time format admits a leap second (23:59:60),
 * which no JavaScript date holds: 422 naming the parameter, not a query with NaN.
 */
function epoch(at: string | undefined, name: 'since' | 'until'): number | undefined {
  if (at === undefined) return undefined;
  const ms = Date.parse(at);
  if (!Number.isFinite(ms)) throw new ValidationFailedError([{ loc: ['query', name], msg: 'must be a date and time such as 2026-11-29T06:00:00Z (a leap second cannot be used)', type: 'value_error' }]);
  return ms;
}

/** GET /auth/admin_audit_log */
export const adminAuditLog: Handler<'adminAuditLog'> = async ({ app, query }) => {
  const page = query.page ?? 1;
  const { items, total } = await listAdminAudit(app.db, {
    ...(query.actor_id === undefined ? {} : { actorUserId: query.actor_id }),
    ...(query.target_user_id === undefined ? {} : { targetUserId: query.target_user_id }),
    ...(query.action === undefined ? {} : { action: query.action }),
    ...(query.since === undefined ? {} : { since: epoch(query.since, 'since') }),
    ...(query.until === undefined ? {} : { until: epoch(query.until, 'until') }),
    page, pageSize: AUDIT_PAGE_SIZE,
  });
  return { items, page, page_size: AUDIT_PAGE_SIZE, total, has_more: page * AUDIT_PAGE_SIZE < total };
};
