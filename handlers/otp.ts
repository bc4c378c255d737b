// One-time codes by email: request-otp and forgot-password mail a code; login-otp, verify-otp
// and reset-password use one up. Unknown emails get exactly the answers known ones get: the
// same 200 when a code is asked for, the same 401 when one is presented.
import type { App } from '../lib/context.ts';
import type { Handler, OperationContext } from './types.ts';
import type { User } from '../db/users.ts';
import { findUserByEmail, setPasswordHash, verifyEmail } from '../db/users.ts';
import { consumeOtp, newOtpCode, otpHash, storeOtp } from '../db/otp.ts';
import type { OtpPurpose } from '../db/otp.ts';
import { withLockRetry } from '../db/retry.ts';
import { hashPassword } from '../lib/secrets.ts';
import { revokeUserSessions } from '../db/sessions.ts';
import { revokeAllCredentials, takeBackAccount } from '../db/credentials.ts';
import type { RevokedCredentials, TakenBack } from '../db/credentials.ts';
import { forgetSecrets } from '../workers/deliver-webhook.ts';
import { afterTakeBack, takenBackAudit, takenBackDetail } from './take-back.ts';
import { otpMail, sendInBackground } from '../lib/mail.ts';
import { startSession, userView } from './session.ts';
import { audit } from './audit.ts';
import type { AuthContext } from './audit.ts';
import { UnauthorizedError } from '../lib/errors.ts';

/** Stores a new code for this purpose (the previous one stays valid until either is used) and mails it. */
export async function issueOtp(ctx: AuthContext, user: User, purpose: OtpPurpose): Promise<void> {
  const { app } = ctx;
  const code = newOtpCode();
  await storeOtp(app.db, user.id, purpose, otpHash(app.encryptionKey, user.id, purpose, code), app.clock());
  // in a studio's context the mail carries the studio's name, never the gateway's
  sendInBackground(app, otpMail(user.email, code, purpose, ctx.request.app.studio?.name));
  audit(ctx, 'code_sent', { userId: user.id, purpose });
}

const CODE_SENT = { detail: 'if an account exists for this email, a code has been sent to it; it expires in 10 minutes' };
const BAD_CODE = 'invalid or expired code: a code works once, for 10 minutes, and stops working after 5 wrong attempts; request a new one';

/**
 * Answers at once, the same for every address; the account is looked up, and its code stored and
 * mailed, after the answer. Storing a code costs a few statements an unknown address does not
 * make: awaited, they would tell by the answer's timing which addresses have an account. A
 * failure there is logged (never with the address or code); the caller asks again, as for a lost mail.
 */
function mailCode(ctx: OperationContext<'requestOtp' | 'forgotPassword'>, purpose: OtpPurpose) {
  const { email } = ctx.body;
  const studioId = ctx.studio?.id ?? null;
  setImmediate(() => {
    findUserByEmail(ctx.app.db, email, studioId)
      .then((user) => (user ? issueOtp(ctx, user, purpose) : undefined))
      .catch((err: unknown) => ctx.app.log.error({ err, event: 'code_not_sent', route: ctx.operationId, purpose }, 'a one-time code could not be stored'));
  });
  return CODE_SENT;
}

export const requestOtp: Handler<'requestOtp'> = async (ctx) => mailCode(ctx, 'otp');
export const forgotPassword: Handler<'forgotPassword'> = async (ctx) => mailCode(ctx, 'reset');

/**
 * The account whose code this is, with the code used up, and what `then` did in the same
 * transaction; the same 401 for every failure. The transaction is retried whole when MariaDB picks
 * it as a deadlock victim or its lock wait times out (db/retry.ts): the rollback gives the code
 * back, so only the attempt that commits uses it, and only that attempt's outcome is answered.
 * Nothing in it acts outside the database.
 */
async function redeem<T = undefined>(
  ctx: OperationContext<'loginOtp' | 'verifyOtp' | 'resetPassword'>, purpose: OtpPurpose, then?: (user: User, trx: App['db']) => Promise<T>,
): Promise<{ user: User; done: T | undefined }> {
  const { email, otp: code } = ctx.body;
  const { app } = ctx;
  const user = await findUserByEmail(app.db, email, ctx.studio?.id ?? null);
  const now = app.clock();
  if (!user) {
    // The work a known account's wrong code costs (the digest, the transaction that looks for its
    // live codes), for an id no account has: a quicker 401 would tell which addresses have one.
    await withLockRetry(() => app.db.transaction((trx) => consumeOtp(trx, app.encryptionKey, 0, purpose, code, now)));
    ctx.audit.purpose = purpose;
    throw new UnauthorizedError(BAD_CODE);
  }
  const committed = await withLockRetry(() => app.db.transaction(async (trx) => {
    if (!(await consumeOtp(trx, app.encryptionKey, user.id, purpose, code, now))) return undefined;
    // Holding the code proves the mailbox: the address is verified from now on, and the
    // sign-up credit is granted (once per account, whatever races).
    const granted = await verifyEmail(trx, user.id, app.config.signupCredit, now);
    return { granted, done: await then?.(user, trx) };
  }));
  Object.assign(ctx.audit, { userId: user.id, purpose });
  if (!committed) throw new UnauthorizedError(BAD_CODE);
  if (!user.emailVerified) audit(ctx, 'email_verified', { userId: user.id });
  if (committed.granted) audit(ctx, 'signup_credit_granted', { userId: user.id, amount: app.config.signupCredit });
  return { user: { ...user, emailVerified: true }, done: committed.done };
}

const TAKEN_BACK = 'signed in; this code is the first proof that the address is yours, so what was set up on this account before was taken back from whoever registered it: its password was removed (set one with forgot-password and reset-password), every other session, API key, OAuth client and token was revoked, and the webhook signing secret was replaced';

/**
 * A session for the code's account. A code that is the first proof of the mailbox of a
 * never-verified account takes it back from whoever registered it, in the transaction that uses
 * the code, as a reset of such an account does: they chose the password and could have set up
 * sessions, keys, clients, Google sign-in, embed codes, studios, invites and an alert webhook
 * without owning the address (db/credentials.ts takeBackAccount).
 */
export const loginOtp: Handler<'loginOtp'> = async (ctx) => {
  const now = ctx.app.clock();
  const { user, done: takenBack } = await redeem(ctx, 'otp', async (u, trx) => (u.emailVerified
    ? undefined
    : takeBackAccount(trx, u.id, { passwordHash: null, encryptionKey: ctx.app.encryptionKey, now })));
  ctx.audit.method = 'otp';
  if (!takenBack) return startSession(ctx, user.id, ctx.query.session);
  await afterTakeBack(ctx.app, user.id);
  Object.assign(ctx.audit, { passwordRemoved: true, ...takenBackAudit(takenBack) });
  return startSession(ctx, user.id, ctx.query.session, TAKEN_BACK + takenBackDetail(takenBack));
};

export const verifyOtp: Handler<'verifyOtp'> = async (ctx) => userView((await redeem(ctx, 'otp')).user);

/** What a reset did in its transaction: took a never-verified account back, or changed a verified one's password. */
type ResetDone = { takenBack: TakenBack } | { sessionsEnded: number; revoked: RevokedCredentials | null };

const CREDENTIALS_REVOKED = 'password changed; every session, API key, embed code, OAuth client and token of this account has been revoked and the webhook signing secret replaced';

/**
 * Sets the new password and ends every session of the account (and, when asked, every
 * credential), in the transaction that uses the code. A reset of an account whose address was
 * never verified takes it back from whoever registered it (db/credentials.ts takeBackAccount), as
 * a first code sign-in does.
 */
export const resetPassword: Handler<'resetPassword'> = async (ctx) => {
  // Hashed before the code is checked, for every request alike: the transaction stays short
  // and an unknown email costs what a known one does.
  const passwordHash = await hashPassword(ctx.body.new_password, ctx.app.config.passwordScryptN);
  const now = ctx.app.clock();
  const { user, done } = await redeem(ctx, 'reset', async (u, trx): Promise<ResetDone> => {
    // never verified before this reset: whoever registered it may have planted keys, clients,
    // Google sign-in, embed codes, studios, invites and an alert webhook (issue 16)
    if (!u.emailVerified) return { takenBack: await takeBackAccount(trx, u.id, { passwordHash, encryptionKey: ctx.app.encryptionKey, now }) };
    await setPasswordHash(trx, u.id, passwordHash);
    const sessionsEnded = await revokeUserSessions(trx, u.id, now);
    // "Sign out everywhere" on request
    const revoked = ctx.body.revoke_all_credentials ? await revokeAllCredentials(trx, u.id, ctx.app.encryptionKey, now) : null;
    return { sessionsEnded, revoked };
  });
  if (done && 'takenBack' in done) {
    await afterTakeBack(ctx.app, user.id);
    Object.assign(ctx.audit, takenBackAudit(done.takenBack));
    return { detail: CREDENTIALS_REVOKED + takenBackDetail(done.takenBack) };
  }
  const { sessionsEnded = 0, revoked = null } = done ?? {};
  if (revoked) {
    forgetSecrets(ctx.app.db, { userId: user.id, teamId: null });
    // committed: every API process drops the revoked keys before this answer (README "Credential cache")
    await ctx.app.credentials.invalidate({ userIds: [user.id] });
  }
  Object.assign(ctx.audit, { sessionsEnded, ...(revoked ? { apiKeysRevoked: revoked.apiKeys, oauthClientsRevoked: revoked.oauthClients, embedCodesRevoked: revoked.embedCodes } : {}) });
  return { detail: revoked ? CREDENTIALS_REVOKED : 'password changed; every session of this account has been ended' };
};
