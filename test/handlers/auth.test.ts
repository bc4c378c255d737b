// Password accounts and sessions: register, login, logout, cli/login, user_details. MariaDB.
import test from 'ava';
import crypto from 'node:crypto';
import { startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { hashPassword } from '../../lib/secrets.ts';

let gw: TestGateway;
let offsetMs = 0;
const TTL_SECONDS = 3600;

test.before(async () => {
  gw = await startGateway({ queue: 'memory', clock: () => Date.now() + offsetMs, env: { SESSION_TTL_SECONDS: String(TTL_SECONDS), SIGNUP_CREDIT: '250' } });
});
test.after.always(async () => {
  await gw?.stop();
});

const post = (url: string, payload: object, headers: Record<string, string> = {}) => gw.server.inject({ method: 'POST', url, payload, headers });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function newEmail(): string {
  return `acct-${crypto.randomBytes(5).toString('hex')}@example.com`;
}

async function account(password = 'a long enough password') {
  const email = newEmail();
  const reg = await post('/auth/register', { email, password });
  if (reg.statusCode !== 201) throw new Error(reg.payload);
  return { email, password, id: (reg.result as { id: number }).id };
}

async function login(email: string, password: string): Promise<string> {
  const res = await post('/auth/login', { email, password });
  if (res.statusCode !== 200) throw new Error(res.payload);
  return (res.result as { access_token: string }).access_token;
}

test('registration normalises the email: trimmed, lower-cased, unique whatever the case', async (t) => {
  const local = `Mixed-${crypto.randomBytes(4).toString('hex')}`;
  const res = await post('/auth/register', { email: `  ${local}@Example.COM \t`, password: 'password one' });
  t.is(res.statusCode, 201, res.payload);
  const user = res.result as Record<string, unknown>;
  t.is(user.email, `${local.toLowerCase()}@example.com`);
  t.false(user.email_verified as boolean);
  t.is(user.role, 'user');
  t.regex(String(user.created_at), /^\d{4}-\d\d-\d\dT/);
  t.deepEqual(Object.keys(user).sort(), ['created_at', 'email', 'email_verified', 'id', 'role']);
  t.false(res.payload.includes('password one'));
  for (const variant of [`${local.toUpperCase()}@example.com`, ` ${local.toLowerCase()}@EXAMPLE.com`]) {
    const dup = await post('/auth/register', { email: variant, password: 'password two' });
    t.is(dup.statusCode, 409);
    t.deepEqual(dup.result, { detail: 'an account with this email already exists', code: 'conflict' });
  }
  // Login works with any case and surrounding spaces.
  t.is((await post('/auth/login', { email: ` ${local.toUpperCase()}@example.com `, password: 'password one' })).statusCode, 200);
});

test('passwords are stored as scrypt hashes with the parameters the docs state, at PASSWORD_HASH_COST; one made at another cost still signs in', async (t) => {
  // the test gateways hash at 2^10 (test/helpers/gateway.ts); the default, 2^15, is checked in test/lib/secrets.test.ts
  const { id, email, password } = await account();
  const row = await gw.app.db('users').where({ id }).first();
  t.regex(row.password_hash, /^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  t.false(row.password_hash.includes(password));
  // a password set when the cost was the default
  await gw.app.db('users').where({ id }).update({ password_hash: await hashPassword(password, 2 ** 15) });
  t.truthy(await login(email, password));
  t.is((await post('/auth/login', { email, password: 'not the password' })).statusCode, 401);
});

test('a password shorter than 8 characters, a malformed email or a missing field is 422', async (t) => {
  const short = await post('/auth/register', { email: newEmail(), password: '1234567' });
  t.is(short.statusCode, 422);
  t.deepEqual((short.result as { detail: Array<{ loc: string[]; type: string }> }).detail.map((d) => [d.loc, d.type]), [[['body', 'password'], 'string_too_short']]);
  t.is((await post('/auth/register', { email: newEmail(), password: '12345678' })).statusCode, 201);
  for (const email of ['plainaddress', 'no-domain@', '@example.com', 'a@b', 'two words@example.com', 'a@@example.com', 'a@example..com', 'a@-example.com', 'a,b@example.com']) {
    const res = await post('/auth/register', { email, password: 'long enough password' });
    t.is(res.statusCode, 422, email);
    t.deepEqual((res.result as { detail: Array<{ loc: string[] }> }).detail[0]!.loc, ['body', 'email'], email);
  }
  t.is((await post('/auth/register', { password: 'long enough password' })).statusCode, 422);
  t.is((await post('/auth/register', { email: newEmail(), password: 'long enough password', role: 'admin' })).statusCode, 422);
});

test('login returns an opaque bearer session that expires after SESSION_TTL_SECONDS, stored only as a digest', async (t) => {
  const { email, password } = await account();
  const res = await post('/auth/login', { email, password });
  t.is(res.statusCode, 200);
  const session = res.result as { access_token: string; token_type: string; expires_in: number };
  t.deepEqual(Object.keys(session).sort(), ['access_token', 'expires_in', 'token_type']);
  t.is(session.token_type, 'bearer');
  t.is(session.expires_in, TTL_SECONDS);
  t.regex(session.access_token, /^mgs_[A-Za-z0-9_-]{43}$/);
  const digest = crypto.createHash('sha256').update(session.access_token).digest('hex');
  const row = await gw.app.db('sessions').where({ token_hash: digest }).first();
  t.truthy(row);
  t.is(Number(row.expires_at) - Number(row.created_at), TTL_SECONDS * 1000);
  t.false(JSON.stringify(await gw.app.db('sessions').select()).includes(session.access_token));
});

test.serial('a session stops working when it expires', async (t) => {
  const { email, password } = await account();
  const token = await login(email, password);
  offsetMs = TTL_SECONDS * 1000 - 1000;
  try {
    t.is((await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: bearer(token) })).statusCode, 200);
    offsetMs = TTL_SECONDS * 1000 + 1;
    const expired = await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: bearer(token) });
    t.is(expired.statusCode, 401);
    t.deepEqual(expired.result, { detail: 'invalid or expired session', code: 'unauthorized' });
  } finally {
    offsetMs = 0;
  }
});

test('a wrong password, an unknown email and a password-less account get the same 401', async (t) => {
  const { email } = await account();
  const wrong = await post('/auth/login', { email, password: 'not the password' });
  const unknown = await post('/auth/login', { email: newEmail(), password: 'not the password' });
  t.is(wrong.statusCode, 401);
  t.is(unknown.payload, wrong.payload);
  t.false(wrong.payload.includes('not the password'));
  // An account created by Google sign-in has no password at all.
  const passwordless = await account();
  await gw.app.db('users').where({ id: passwordless.id }).update({ password_hash: null });
  t.is((await post('/auth/login', { email: passwordless.email, password: 'not the password' })).payload, wrong.payload);
});

test('logout ends the presenting session at once and leaves the other sessions alone', async (t) => {
  const { email, password } = await account();
  const a = await login(email, password);
  const b = await login(email, password);
  const out = await post('/auth/logout', {}, bearer(a));
  t.is(out.statusCode, 200, out.payload);
  t.is(typeof (out.result as { detail: string }).detail, 'string');
  t.is((await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: bearer(a) })).statusCode, 401);
  t.is((await post('/auth/logout', {}, bearer(a))).statusCode, 401);
  t.is((await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: bearer(b) })).statusCode, 200);
});

test('logout needs a session: no credential is 401, a valid API key 403 session_required', async (t) => {
  const { email, password } = await account();
  const token = await login(email, password);
  const key = ((await post('/api/v1/keys', { name: 'k', is_test: true }, bearer(token))).result as { key: string }).key;
  t.is((await gw.server.inject({ method: 'POST', url: '/auth/logout' })).statusCode, 401);
  const byKey = await gw.server.inject({ method: 'POST', url: '/auth/logout', headers: { 'x-api-key': key } });
  t.is(byKey.statusCode, 403);
  t.like(byKey.result, { code: 'session_required' });
  t.is((await post('/auth/logout', {}, bearer('mgs_forged'))).statusCode, 401);
});

test('cli/login exchanges email and password for a production key; wrong credentials are 401', async (t) => {
  const { email, password } = await account();
  const res = await post('/auth/cli/login', { email: ` ${email.toUpperCase()}`, password });
  t.is(res.statusCode, 200, res.payload);
  const body = res.result as { api_key: string; key: { prefix: string; is_test: boolean } };
  t.true(body.api_key.startsWith('mg_live_'));
  t.false(body.key.is_test);
  t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': body.api_key } })).statusCode, 200);
  const wrong = await post('/auth/cli/login', { email, password: 'wrong password' });
  const unknown = await post('/auth/cli/login', { email: newEmail(), password: 'wrong password' });
  t.is(wrong.statusCode, 401);
  t.is(unknown.payload, wrong.payload);
});

test('user_details returns the profile with balance and role, for a session and for an API key', async (t) => {
  const { email, password, id } = await account();
  const token = await login(email, password);
  const key = ((await post('/api/v1/keys', { name: 'k', is_test: false }, bearer(token))).result as { key: string }).key;
  const viaSession = await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: bearer(token) });
  const viaKey = await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: { 'x-api-key': key } });
  for (const res of [viaSession, viaKey]) {
    t.is(res.statusCode, 200);
    const u = res.result as Record<string, unknown>;
    t.is(u.id, id);
    t.is(u.email, email);
    t.is(u.email_verified, false);
    t.is(u.role, 'user');
    // SIGNUP_CREDIT is 250, but it comes with the verification of the email (test/handlers/otp.test.ts).
    t.is(u.balance, 0);
    t.regex(String(u.created_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
  }
  t.deepEqual(viaSession.result, viaKey.result);
  t.is((await gw.server.inject({ method: 'GET', url: '/app/user_details' })).statusCode, 401);
});
