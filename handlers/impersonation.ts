// Staff acting for a user (README "Impersonation and support links"): virtualLogin opens an
// impersonated session at once; adminSupportLoginLink and adminPasswordResetLink make single-use
// links redeemed by supportLogin (an impersonated session) and supportResetPassword. The route
// bridge refuses impersonated sessions where the spec says so (`x-impersonation: forbidden`, every
// role operation), audits each of their requests with both identities and marks each answer with
// `X-Impersonated-By`; nothing here repeats that. Each of the three staff routes mails the
// account's verified address a notice once it has succeeded (noticeStaffAccess).
import type { Handler, OperationContext } from './types.ts';
import type { App } from '../lib/context.ts';
import { ImpersonationForbiddenError, GoneError, NotFoundError } from '../lib/errors.ts';
import { clientIp } from '../lib/addresses.ts';
import { IMPERSONATING_ROLES, roleAllows } from '../lib/caller.ts';
import { hashPassword, newSecret, sha256Hex, SESSION_PREFIX } from '../lib/secrets.ts';
import { findLiveUserByEmail, findUserById, setPasswordHash, verifyEmail } from '../db/users.ts';
import type { User } from '../db/users.ts';
import { insertSession, revokeUserSessions } from '../db/sessions.ts';
import { insertSupportLink, redeemSupportLink } from '../db/support-links.ts';
import type { RedeemResult, SupportLinkKind } from '../db/support-links.ts';
import { insertAdminAudit } from '../db/admin-audit.ts';
import { takeBackAccount } from '../db/credentials.ts';
import { withLockRetry } from '../db/retry.ts';
import { afterTakeBack, takenBackAudit, takenBackDetail } from './take-back.ts';
import { pseudonymiseText } from '../db/pseudonymise.ts';
import { sendInBackground, staffAccessNoticeMail } from '../lib/mail.ts';
import type { StaffAccessNoticeKind } from '../lib/mail.ts';
import type { Role } from '../lib/caller.ts';

/** An impersonated session lasts at most this long (virtualLogin's `minutes` is capped by the spec too). */
export const IMPERSONATION_MAX_MINUTES = 60;
/** virtualLogin's default, and the length of a session opened by a support login link. */
export const IMPERSONATION_DEFAULT_MINUTES = 30;
/** How long a link may wait to be used. */
export const LINK_TTL_MINUTES: Readonly<Record<SupportLinkKind, number>> = { login: 15, reset: 60 };
const LINK_PREFIX = 'mgl_';
const LINK_PAGE: Readonly<Record<SupportLinkKind, string>> = { login: 'support-login', reset: 'support-reset-password' };

/** Staff never act as themselves or as other staff (that would be a way around roles). */
function assertMayActFor(target: User, staffUserId: number): void {
  if (target.id === staffUserId) throw new ImpersonationForbiddenError('you cannot impersonate or make a support link for your own account');
  if (target.role !== 'user') throw new ImpersonationForbiddenError(`this account holds the ${target.role} role: staff accounts cannot be impersonated or given support links`);
}

async function targetByEmail(app: App, email: string, audit: Record<string, unknown>): Promise<User> {
  // an erased account's anonymised row is nobody to act for (nor to set a password on)
  const user = await findLiveUserByEmail(app.db, email);
  if (!user) throw new NotFoundError('no account with this email');
  audit.target_user_id = user.id;
  return user;
}

async function openImpersonatedSession(app: App, userId: number, impersonatorId: number, minutes: number): Promise<string> {
  const token = newSecret(SESSION_PREFIX);
  await insertSession(app.db, userId, sha256Hex(token), app.clock(), Math.min(minutes, IMPERSONATION_MAX_MINUTES) * 60, impersonatorId);
  return token;
}

/**
 * Tells the account's owner, at its address when verified (as alert mails do), what staff just
 * did (STAFF_ACCESS_NOTICES, on by default), after the action succeeded. The reason is written as
 * the staff-access list shows it (an address in it as the account it names); never the link or
 * token, nor who the staff member is. Nothing here fails the action: a lost notice is a warning.
 */
async function noticeStaffAccess(app: App, target: User, n: { kind: StaffAccessNoticeKind; at: number; role: Role; reason: string }): Promise<void> {
  if (!app.config.staffAccessNotices || !target.emailVerified) return;
  try {
    const reason = await pseudonymiseText(app.db, n.reason.slice(0, 500));
    sendInBackground(app, staffAccessNoticeMail(target.email, { ...n, reason }), { level: 'warn', event: 'staff_access_notice_failed' });
  } catch (err) {
    app.log.warn({ err, event: 'staff_access_notice_failed', kind: n.kind }, 'the staff access notice could not be sent');
  }
}

/** POST /auth/virtual_login: the token, once, as text/plain. */
export const virtualLogin: Handler<'virtualLogin'> = async ({ app, caller, body, audit, h }) => {
  const target = await targetByEmail(app, body.email, audit);
  assertMayActFor(target, caller.userId);
  const token = await openImpersonatedSession(app, target.id, caller.userId, body.minutes ?? IMPERSONATION_DEFAULT_MINUTES);
  await noticeStaffAccess(app, target, { kind: 'impersonation', at: app.clock(), role: caller.role, reason: body.reason });
  return h.response(token).type('text/plain').header('Cache-Control', 'no-store');
};

async function makeLink(ctx: OperationContext<'adminSupportLoginLink' | 'adminPasswordResetLink'>, kind: SupportLinkKind) {
  const { app, caller, body, audit } = ctx;
  const target = await targetByEmail(app, body.email, audit);
  assertMayActFor(target, caller.userId);
  const token = newSecret(LINK_PREFIX);
  const now = app.clock();
  const ttlMs = LINK_TTL_MINUTES[kind] * 60_000;
  await insertSupportLink(app.db, { kind, tokenHash: sha256Hex(token), userId: target.id, createdBy: caller.userId, reason: body.reason, now, ttlMs });
  await noticeStaffAccess(app, target, { kind: kind === 'login' ? 'support_login_link' : 'password_reset_link', at: now, role: caller.role, reason: body.reason });
  return { url: `${app.config.publicUrl}/dashboard#/${LINK_PAGE[kind]}?token=${token}`, expires_at: new Date(now + ttlMs).toISOString() };
}

/** POST /auth/admin_support_login_link */
export const adminSupportLoginLink: Handler<'adminSupportLoginLink'> = (ctx) => makeLink(ctx, 'login');
/** POST /auth/admin_password_reset_link */
export const adminPasswordResetLink: Handler<'adminPasswordResetLink'> = (ctx) => makeLink(ctx, 'reset');

/** 404 for a token never issued, 410 for one used or expired (a link is single-use). */
function refuseLink(outcome: Exclude<RedeemResult['outcome'], 'redeemed'>): never {
  if (outcome === 'unknown') throw new NotFoundError('unknown link: ask support for a new one');
  throw new GoneError(outcome === 'used' ? 'this link has already been used: ask support for a new one' : 'this link has expired: ask support for a new one');
}

/**
 * At redemption, the link's maker must still hold a staff role that may act, and the account must
 * still be a plain user account (roles may have changed since the link was made).
 */
async function assertStillAllowed(db: App['db'], userId: number, createdBy: number): Promise<User> {
  // one after the other: inside a transaction (SQLite has one connection) reads take turns anyway
  const user = await findUserById(db, userId);
  const staff = await findUserById(db, createdBy);
  if (!user) throw new NotFoundError('this account no longer exists');
  if (!staff || !roleAllows(staff.role, IMPERSONATING_ROLES)) throw new ImpersonationForbiddenError('the staff member who made this link no longer holds a role that may make it');
  assertMayActFor(user, createdBy);
  return user;
}

/** The redemption in the audit log: the link's maker acted on the account through it. */
async function auditRedemption(ctx: OperationContext<'supportLogin' | 'supportResetPassword'>, staffId: number, userId: number): Promise<void> {
  const { app, request, operationId } = ctx;
  const staff = await findUserById(app.db, staffId);
  try {
    await insertAdminAudit(app.db, {
      actorUserId: staffId, actorRole: staff?.role ?? 'user', credential: 'support-link', action: operationId, targetUserId: userId, targetTeamId: null,
      params: {}, reason: null, status: 200, clientAddress: clientIp(request, app.config.trustedProxies)?.toString() ?? request.info.remoteAddress ?? null,
      requestId: request.app.requestId ?? null, now: app.clock(),
    });
  } catch (err) {
    app.log.error({ err, event: 'admin_audit_failed', action: operationId, actor: staffId }, 'could not write the admin audit row');
  }
}

/** POST /auth/support-login: an impersonated session on behalf of the link's maker. */
export const supportLogin: Handler<'supportLogin'> = async (ctx) => {
  const { app, body } = ctx;
  const link = await redeemSupportLink(app.db, 'login', sha256Hex(body.token), app.clock());
  if (link.outcome !== 'redeemed') refuseLink(link.outcome);
  await assertStillAllowed(app.db, link.userId, link.createdBy);
  const token = await openImpersonatedSession(app, link.userId, link.createdBy, IMPERSONATION_DEFAULT_MINUTES);
  await auditRedemption(ctx, link.createdBy, link.userId);
  return { access_token: token, token_type: 'bearer' as const, expires_in: IMPERSONATION_DEFAULT_MINUTES * 60 };
};

/**
 * POST /auth/support-reset-password: in one transaction, uses the link, sets the password, ends
 * every session and marks the address verified (granting the sign-up credit the first time). An
 * address never verified before is verified by this link for the first time, so the account is
 * taken back from whoever registered it, as a reset code does (db/credentials.ts takeBackAccount):
 * a verified account is never taken back after.
 */
export const supportResetPassword: Handler<'supportResetPassword'> = async (ctx) => {
  const { app, body } = ctx;
  const passwordHash = await hashPassword(body.new_password, app.config.passwordScryptN);
  const now = app.clock();
  const outcome = await withLockRetry(() => app.db.transaction(async (trx) => {
    const link = await redeemSupportLink(trx, 'reset', sha256Hex(body.token), now);
    if (link.outcome !== 'redeemed') return link;
    const user = await assertStillAllowed(trx, link.userId, link.createdBy);
    const takenBack = user.emailVerified ? null : await takeBackAccount(trx, link.userId, { passwordHash, encryptionKey: app.encryptionKey, now });
    if (!takenBack) await setPasswordHash(trx, link.userId, passwordHash);
    const sessionsEnded = takenBack ? takenBack.sessionsEnded : await revokeUserSessions(trx, link.userId, now);
    await verifyEmail(trx, link.userId, app.config.signupCredit, now);
    return { ...link, sessionsEnded, takenBack };
  }));
  if (outcome.outcome !== 'redeemed') refuseLink(outcome.outcome);
  Object.assign(ctx.audit, { userId: outcome.userId, sessionsEnded: outcome.sessionsEnded, ...(outcome.takenBack ? takenBackAudit(outcome.takenBack) : {}) });
  if (outcome.takenBack) await afterTakeBack(app, outcome.userId);
  await auditRedemption(ctx, outcome.createdBy, outcome.userId);
  const detail = 'password changed; every session of this account has been ended and its email address is verified';
  if (!outcome.takenBack) return { detail };
  return { detail: `${detail}; it had never been verified, so what was set up on it before was taken back from whoever registered it: every API key, embed code, OAuth client and token was revoked and the webhook signing secret replaced${takenBackDetail(outcome.takenBack)}` };
};
