// Issue 11, support links: adminSupportLoginLink (15 minutes) and adminPasswordResetLink (60
// minutes) make single-use links whose token is stored as a digest; supportLogin redeems the
// first for an impersonated session, supportResetPassword the second (new password, every
// session ended, address verified). Used and expired links are 410, unknown ones 404. Time is
// the app clock, moved by the test.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { ledgerCheckedAfterEach } from '../helpers/ledger.ts';
import { sha256Hex } from '../../lib/secrets.ts';
import { otpHash, storeOtp } from '../../db/otp.ts';

type Staff = 'user' | 'support' | 'billing' | 'admin';
let gw: TestGateway;
let now = Date.UTC(2026, 10, 24, 12);
const MINUTE = 60_000;
const PUBLIC_URL = 'https://gateway.example';
const as: Record<Staff, Account & { email: string }> = {} as never;

async function account(credit = 0): Promise<Account & { email: string }> {
  const acct = await newAccount(gw, credit);
  const row = await gw.app.db('users').where({ id: acct.userId }).first('email');
  return { ...acct, email: String(row.email) };
}

test.before(async () => {
  gw = await startGateway({ queue: 'memory', clock: () => now, env: { PUBLIC_URL, SIGNUP_CREDIT: '250' } });
  for (const role of ['user', 'support', 'billing', 'admin'] as const) {
    as[role] = await account();
    await gw.app.db('users').where({ id: as[role].userId }).update({ role });
  }
});
test.after.always(async () => { await gw?.stop(); });
ledgerCheckedAfterEach(test, () => gw?.app.db);

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
type Link = { url: string; expires_at: string };

async function link(op: 'adminSupportLoginLink' | 'adminPasswordResetLink', staff: Account, email: string): Promise<{ url: string; token: string; expiresAt: number }> {
  const res = await callOperation<Link>(gw, op, { as: staff.session, body: { email, reason: 'ticket 7' } });
  if (res.status !== 200) throw new Error(`${op}: ${res.status} ${JSON.stringify(res.body)}`);
  return { url: res.body.url, token: new URLSearchParams(res.body.url.split('?')[1]).get('token')!, expiresAt: Date.parse(res.body.expires_at) };
}

const redeemLogin = (token: string) => callOperation<{ access_token: string; expires_in: number; code?: string }>(gw, 'supportLogin', { body: { token } });
const redeemReset = (token: string, password = 'a brand new password') =>
  callOperation<{ detail: string; code?: string }>(gw, 'supportResetPassword', { body: { token, new_password: password } });

test.serial('a login link opens an impersonated session once; its token is stored as a digest', async (t) => {
  const target = await account();
  const l = await link('adminSupportLoginLink', as.support, target.email);
  t.true(l.url.startsWith(`${PUBLIC_URL}/dashboard#/support-login?token=mgl_`), l.url);
  t.is(l.expiresAt, now + 15 * MINUTE);
  const row = await gw.app.db('support_links').where({ token_hash: sha256Hex(l.token) }).first();
  t.like({ ...row, user_id: Number(row.user_id), created_by: Number(row.created_by) }, { kind: 'login', user_id: target.userId, created_by: as.support.userId, reason: 'ticket 7', used_at: null });
  t.falsy(await gw.app.db('support_links').where({ token_hash: l.token }).first());

  const res = await redeemLogin(l.token);
  t.is(res.status, 200);
  t.is(res.body.expires_in, 30 * 60);
  const me = await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: bearer(res.body.access_token) });
  t.is((me.result as { id: number }).id, target.userId);
  t.is(me.headers['x-impersonated-by'], String(as.support.userId));
  // impersonated like virtualLogin: the guarded routes refuse it
  const key = await gw.server.inject({ method: 'POST', url: '/api/v1/keys', headers: bearer(res.body.access_token), payload: { name: 'x', is_test: true } });
  t.like(key.result, { code: 'impersonation_forbidden' });

  t.like(await redeemLogin(l.token), { status: 410, body: { code: 'gone' } }, 'single use');
  t.like(await redeemLogin(`mgl_${'A'.repeat(43)}`), { status: 404, body: { code: 'not_found' } });
  // the redemption is in the audit log, made by the link's maker
  const audit = await gw.app.db('admin_audit').where({ target_user_id: target.userId }).orderBy('id');
  t.deepEqual(audit.slice(0, 2).map((r: { action: string; credential: string; actor_user_id: number | string }) => [r.action, r.credential, Number(r.actor_user_id)]),
    [['adminSupportLoginLink', 'session', as.support.userId], ['supportLogin', 'support-link', as.support.userId]]);
});

test.serial('a login link expires after 15 minutes, a reset link after 60: 410', async (t) => {
  const target = await account();
  const login = await link('adminSupportLoginLink', as.admin, target.email);
  const reset = await link('adminPasswordResetLink', as.admin, target.email);
  t.is(reset.expiresAt, now + 60 * MINUTE);
  now += 15 * MINUTE;
  t.like(await redeemLogin(login.token), { status: 410, body: { code: 'gone' } });
  now += 45 * MINUTE - 1;
  const late = await link('adminPasswordResetLink', as.admin, target.email);
  t.is((await redeemReset(reset.token)).status, 200, 'still valid a millisecond before');
  now += 60 * MINUTE;
  t.like(await redeemReset(late.token), { status: 410, body: { code: 'gone' } });
});

test.serial('a reset link sets the password, ends every session, verifies the address (granting the sign-up credit once), and works once', async (t) => {
  const target = await account();
  t.false(Boolean((await gw.app.db('users').where({ id: target.userId }).first()).email_verified));
  const second = await gw.server.inject({ method: 'POST', url: '/auth/login', payload: { email: target.email, password: 'correct horse battery' } });
  const sessions = [target.session, (second.result as { access_token: string }).access_token];
  const l = await link('adminPasswordResetLink', as.support, target.email);
  t.true(l.url.startsWith(`${PUBLIC_URL}/dashboard#/support-reset-password?token=mgl_`));
  t.is((await redeemLogin(l.token)).status, 404, 'a reset link is no login link');

  const res = await redeemReset(l.token);
  t.is(res.status, 200, JSON.stringify(res.body));
  for (const s of sessions) t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: bearer(s) })).statusCode, 401);
  const user = await gw.app.db('users').where({ id: target.userId }).first();
  t.truthy(user.email_verified);
  t.is(Number(user.balance), 250, 'the sign-up credit, once');
  t.is((await gw.server.inject({ method: 'POST', url: '/auth/login', payload: { email: target.email, password: 'correct horse battery' } })).statusCode, 401);
  t.is((await gw.server.inject({ method: 'POST', url: '/auth/login', payload: { email: target.email, password: 'a brand new password' } })).statusCode, 200);

  t.like(await redeemReset(l.token, 'yet another password'), { status: 410, body: { code: 'gone' } });
  t.is((await gw.server.inject({ method: 'POST', url: '/auth/login', payload: { email: target.email, password: 'a brand new password' } })).statusCode, 200);
  t.is((await redeemReset(l.token, 'short')).status, 422);
});

test.serial('roles, reasons, unknown emails and staff targets', async (t) => {
  const target = await account();
  for (const op of ['adminSupportLoginLink', 'adminPasswordResetLink'] as const) {
    for (const role of ['user', 'billing'] as const) {
      t.like(await callOperation(gw, op, { as: as[role].session, body: { email: target.email, reason: 'ticket 7' } }), { status: 403, body: { code: 'role_required' } }, `${op} ${role}`);
    }
    t.like(await callOperation(gw, op, { as: as.admin.liveKey, body: { email: target.email, reason: 'ticket 7' } }), { status: 403, body: { code: 'session_required' } });
    t.is((await callOperation(gw, op, { as: as.admin.session, body: { email: target.email } })).status, 422, 'a reason is required');
    t.is((await callOperation(gw, op, { as: as.admin.session, body: { email: 'nobody-here@example.com', reason: 'ticket 7' } })).status, 404);
    for (const staff of ['support', 'admin', 'billing'] as const) {
      t.like(await callOperation(gw, op, { as: as.support.session, body: { email: as[staff].email, reason: 'ticket 7' } }), { status: 403, body: { code: 'impersonation_forbidden' } }, `${op} for ${staff}`);
    }
  }
  t.is(Number((await gw.app.db('support_links').where({ user_id: target.userId }).count({ n: '*' }).first())!.n), 0);
});

test.serial("a link stops working when its maker loses the role, or the account becomes staff", async (t) => {
  const target = await account();
  const staff = await account();
  await gw.app.db('users').where({ id: staff.userId }).update({ role: 'support' });
  const login = await link('adminSupportLoginLink', staff, target.email);
  const reset = await link('adminPasswordResetLink', staff, target.email);
  await gw.app.db('users').where({ id: staff.userId }).update({ role: 'user' });
  t.like(await redeemLogin(login.token), { status: 403, body: { code: 'impersonation_forbidden' } });
  t.like(await redeemReset(reset.token), { status: 403, body: { code: 'impersonation_forbidden' } });
  t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: bearer(target.session) })).statusCode, 200, 'nothing changed');

  const other = await account();
  const l2 = await link('adminPasswordResetLink', as.admin, other.email);
  await gw.app.db('users').where({ id: other.userId }).update({ role: 'billing' });
  t.like(await redeemReset(l2.token), { status: 403, body: { code: 'impersonation_forbidden' } });
});

test.serial("a staff member's password reset also ends the sessions they opened as others and the links they made", async (t) => {
  const target = await account();
  const staff = await account();
  await gw.app.db('users').where({ id: staff.userId }).update({ role: 'support', email_verified: true });
  const acting = await callOperation<string>(gw, 'virtualLogin', { as: staff.session, body: { email: target.email, reason: 'ticket 9' } });
  t.is(acting.status, 200);
  const login = await link('adminSupportLoginLink', staff, target.email);
  const reset = await link('adminPasswordResetLink', staff, target.email);
  // whoever held the staff account did all of that; its owner takes it back with a reset code
  await storeOtp(gw.app.db, staff.userId, 'reset', otpHash(gw.app.encryptionKey, staff.userId, 'reset', '246810'), now);
  const res = await callOperation<{ detail: string }>(gw, 'resetPassword', { body: { email: staff.email, otp: '246810', new_password: 'the owner is back' } });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.is((await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: bearer(acting.body) })).statusCode, 401, 'the session opened as the user ended');
  t.like(await redeemLogin(login.token), { status: 410 });
  t.like(await redeemReset(reset.token), { status: 410 });
  t.is((await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: bearer(target.session) })).statusCode, 200, "the user's own session is the user's");
});

test.serial('a reset link for an address never verified takes the account back, as a reset code does: keys, clients and embed codes set up before go', async (t) => {
  const target = await account();
  t.false(Boolean((await gw.app.db('users').where({ id: target.userId }).first()).email_verified));
  t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': target.liveKey } })).statusCode, 200);
  const l = await link('adminPasswordResetLink', as.support, target.email);
  const res = await redeemReset(l.token);
  t.is(res.status, 200, JSON.stringify(res.body));
  t.regex(res.body.detail, /revoked/);
  // whoever registered the address set these up before anyone proved it
  t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': target.liveKey } })).statusCode, 401);
  t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': target.testKey } })).statusCode, 401);
  const signIn = await gw.server.inject({ method: 'POST', url: '/auth/login', payload: { email: target.email, password: 'a brand new password' } });
  t.is(signIn.statusCode, 200);
  // verified now: a second link for it only sets the password
  const fresh = await callOperation<{ api_key: string }>(gw, 'createApiKey', { as: (signIn.result as { access_token: string }).access_token, body: { name: 'mine', is_test: true } });
  t.is(fresh.status, 200, JSON.stringify(fresh.body));
  const again = await redeemReset((await link('adminPasswordResetLink', as.support, target.email)).token, 'the third password');
  t.is(again.status, 200);
  t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': fresh.body.api_key } })).statusCode, 200, 'a verified account keeps its keys');
});
