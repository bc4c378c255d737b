// Password accounts and sessions: register, login, logout, and the CLI's email+password ->
// API key exchange. Their budgets (`x-rate-limit`) and audit events (`x-audit`) are declared in
// the spec and applied by the route bridge (./policies.ts); handlers only add the account id.
import type { Handler, OperationContext } from './types.ts';
import { ConflictError, ForbiddenError, UnauthorizedError, ValidationFailedError } from '../lib/errors.ts';
import { hasPendingInvite } from '../db/teams.ts';
import type { App } from '../lib/context.ts';
import { createUser, findUserForLogin, normaliseEmail } from '../db/users.ts';
import { DuplicateError } from '../db/errors.ts';
import { hashPassword, verifyPassword } from '../lib/secrets.ts';
import { revokeSession } from '../db/sessions.ts';
import type { User } from '../db/users.ts';
import { issueApiKey, keyView } from './keys.ts';
import { issueOtp } from './otp.ts';
import { startSession, userView, withoutSessionCookie } from './session.ts';

export const REGISTRATION_CLOSED = 'registration is closed on this gateway: an account can only be created for an address a team has invited (ask a team owner for an invite, then register with the invited address)';

/** REGISTRATION=closed: a new account only for an address holding a pending team invite. */
export async function assertMayRegister(app: App, email: string): Promise<void> {
  if (app.config.registration === 'closed' && !(await hasPendingInvite(app.db, email, app.clock()))) throw new ForbiddenError(REGISTRATION_CLOSED);
}

/**
 * `.invalid` is reserved never to resolve (RFC 6761 6.4): such an address cannot receive the code
 * that verifies it, and erasure names an account's anonymised row `deleted-<id>@deleted.invalid`,
 * so an account registered under that address first would make the erasure of account <id> fail.
 */
function assertCanReceiveMail(email: string): void {
  if (normaliseEmail(email).endsWith('.invalid')) {
    throw new ValidationFailedError([{ loc: ['body', 'email'], msg: 'this address cannot receive mail: the .invalid domain never resolves (RFC 6761); register with an address that can receive the verification code', type: 'value_error' }]);
  }
}

/** Creates the account and mails it a code for verify-otp; the sign-up credit comes with the verification. */
export const register: Handler<'register'> = async (ctx) => {
  const { app, body: { email, password } } = ctx;
  assertCanReceiveMail(email);
  await assertMayRegister(app, email);
  // The registration budget (x-rate-limit) was counted before this hash: each costs a 32 MiB scrypt.
  let user: User;
  try {
    user = await createUser(app.db, email, await hashPassword(password, app.config.passwordScryptN), app.clock(), { studioId: ctx.studio?.id ?? null });
  } catch (err) {
    if (err instanceof DuplicateError) throw new ConflictError(err.message);
    throw err;
  }
  ctx.audit.userId = user.id;
  await issueOtp(ctx, user, 'otp');
  return ctx.h.response(userView(user)).code(201);
};

/** Checks email and password; the same 401 for an unknown email, a wrong password and an account without a password. */
async function authenticate(ctx: OperationContext<'login' | 'cliLogin'>): Promise<User> {
  const { email, password } = ctx.body;
  const found = await findUserForLogin(ctx.app.db, email, ctx.studio?.id ?? null);
  const ok = await verifyPassword(password, found?.passwordHash ?? null, ctx.app.config.passwordScryptN);
  Object.assign(ctx.audit, { userId: found?.user.id, method: 'password' });
  if (!found || !ok) throw new UnauthorizedError('incorrect email or password');
  return found.user;
}

export const login: Handler<'login'> = async (ctx) => {
  const user = await authenticate(ctx);
  return startSession(ctx, user.id, ctx.query.session);
};

/** Ends the session that authenticated this request, at once: its next use is a 401. A cookie session's cookie is cleared too. */
export const logout: Handler<'logout'> = async (ctx) => {
  const { caller } = ctx;
  if (caller.sessionId === undefined) throw new UnauthorizedError('logout needs the session token as Authorization: Bearer <token>');
  await revokeSession(ctx.app.db, caller.sessionId, ctx.app.clock());
  ctx.audit.userId = caller.userId;
  if (!caller.sessionCookie) return { detail: 'logged out: this session token no longer works' };
  return withoutSessionCookie(ctx.app, ctx.h.response({ detail: 'signed out: this session has ended' }), ctx.studio?.slug);
};

export const cliLogin: Handler<'cliLogin'> = async (ctx) => {
  const user = await authenticate(ctx);
  const { key, record } = await issueApiKey(ctx.app, user.id, { name: 'cli', isTest: false, ipWhitelist: [] });
  return { api_key: key, key: keyView(record) };
};
