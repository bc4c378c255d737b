// The minimum of /auth needed to reach generation (issue 2): register, password login,
// and the CLI's email+password -> API key exchange.
import type { Handler } from './types.ts';
import { httpError } from '../plugins/errors.ts';
import { createUser, findUserForLogin } from '../db/users.ts';
import { DuplicateError } from '../db/errors.ts';
import { hashPassword, newSecret, sha256Hex, verifyPassword, SESSION_PREFIX } from '../db/secrets.ts';
import { insertSession } from '../db/sessions.ts';
import type { User } from '../db/users.ts';
import { issueApiKey, keyView } from './keys.ts';

function userView(u: User) {
  return { id: u.id, email: u.email, email_verified: u.emailVerified, role: u.role, created_at: u.createdAt };
}

function credentials(ctx: Parameters<Handler>[0]): { email: string; password: string } {
  return { email: String(ctx.body.email), password: String(ctx.body.password) };
}

export const register: Handler = async (ctx) => {
  const { email, password } = credentials(ctx);
  const { app } = ctx;
  try {
    const user = await createUser(app.db, email, await hashPassword(password), app.config.signupCredit, app.clock());
    return ctx.h.response(userView(user)).code(201);
  } catch (err) {
    if (err instanceof DuplicateError) throw httpError(409, err.message);
    throw err;
  }
};

/** Checks email and password; the same 401 for an unknown email and a wrong password. */
async function authenticate(ctx: Parameters<Handler>[0]): Promise<User> {
  const { email, password } = credentials(ctx);
  const found = await findUserForLogin(ctx.app.db, email);
  const ok = await verifyPassword(password, found?.passwordHash ?? null);
  if (!found || !ok) throw httpError(401, 'incorrect email or password');
  return found.user;
}

export const login: Handler = async (ctx) => {
  const user = await authenticate(ctx);
  const { app } = ctx;
  const token = newSecret(SESSION_PREFIX);
  await insertSession(app.db, user.id, sha256Hex(token), app.clock(), app.config.sessionTtlSeconds);
  return { access_token: token, token_type: 'bearer', expires_in: app.config.sessionTtlSeconds };
};

export const cliLogin: Handler = async (ctx) => {
  const user = await authenticate(ctx);
  const { key, record } = await issueApiKey(ctx.app, user.id, { name: 'cli', isTest: false, ipWhitelist: [] });
  return { api_key: key, key: keyView(record) };
};
