// Issue 11, virtualLogin: a staff member opens a short-lived session acting as a user. The token
// is answered once as text/plain (only its digest is stored), works until it expires (the app
// clock, moved by the test), is refused on every operation the spec marks `x-impersonation:
// forbidden` and on every role operation, and every request made with it is audited with both
// identities and answered with X-Impersonated-By.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { sha256Hex } from '../../lib/secrets.ts';

type Staff = 'user' | 'support' | 'billing' | 'admin';
let gw: TestGateway;
let now = Date.UTC(2026, 10, 24, 12);
const as: Record<Staff, Account & { email: string }> = {} as never;

async function account(credit = 0): Promise<Account & { email: string }> {
  const acct = await newAccount(gw, credit);
  const row = await gw.app.db('users').where({ id: acct.userId }).first('email');
  return { ...acct, email: String(row.email) };
}

test.before(async () => {
  gw = await startGateway({ queue: 'memory', clock: () => now });
  for (const role of ['user', 'support', 'billing', 'admin'] as const) {
    as[role] = await account();
    await gw.app.db('users').where({ id: as[role].userId }).update({ role });
  }
});
test.after.always(async () => { await gw?.stop(); });

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function impersonate(staff: Account, email: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await callOperation<string>(gw, 'virtualLogin', { as: staff.session, body: { email, reason: 'ticket 42', ...extra } });
  if (res.status !== 200) throw new Error(`virtualLogin: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

test.serial('the token is answered once as text/plain, acts as the user, names the impersonator, and only its digest is stored', async (t) => {
  const target = await account(500);
  const res = await callOperation<string>(gw, 'virtualLogin', { as: as.support.session, body: { email: target.email.toUpperCase(), reason: 'ticket 42' } });
  t.is(res.status, 200);
  t.regex(String(res.headers['content-type']), /^text\/plain/);
  t.regex(res.body, /^mgs_[A-Za-z0-9_-]{43}$/);
  t.is(res.headers['cache-control'], 'no-store');

  const me = await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: bearer(res.body) });
  t.is(me.statusCode, 200);
  t.is((me.result as { id: number }).id, target.userId);
  t.is(me.headers['x-impersonated-by'], String(as.support.userId));

  const session = await gw.app.db('sessions').where({ token_hash: sha256Hex(res.body) }).first();
  t.is(Number(session.user_id), target.userId);
  t.is(Number(session.impersonator_id), as.support.userId);
  t.is(Number(session.expires_at) - Number(session.created_at), 30 * 60_000, 'the default is 30 minutes');
  t.falsy(await gw.app.db('sessions').where({ token_hash: res.body }).first(), 'the token itself is never stored');
  // the target's own session is not marked
  const own = await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: bearer(target.session) });
  t.is(own.headers['x-impersonated-by'], undefined);
});

test.serial('the session expires after its minutes (at most 60)', async (t) => {
  const target = await account();
  const token = await impersonate(as.admin, target.email, { minutes: 5 });
  const balance = () => gw.server.inject({ method: 'GET', url: '/account/balance', headers: bearer(token) });
  now += 5 * 60_000 - 1;
  t.is((await balance()).statusCode, 200);
  now += 1;
  t.is((await balance()).statusCode, 401);
  const tooLong = await callOperation(gw, 'virtualLogin', { as: as.admin.session, body: { email: target.email, reason: 'ticket 42', minutes: 61 } });
  t.is(tooLong.status, 422);
});

test.serial('a reason is required; unknown emails are 404; roles other than support and admin are refused', async (t) => {
  const target = await account();
  t.is((await callOperation(gw, 'virtualLogin', { as: as.admin.session, body: { email: target.email } })).status, 422);
  t.is((await callOperation(gw, 'virtualLogin', { as: as.admin.session, body: { email: target.email, reason: '' } })).status, 422);
  t.is((await callOperation(gw, 'virtualLogin', { as: as.admin.session, body: { email: 'nobody-here@example.com', reason: 'ticket 42' } })).status, 404);
  for (const role of ['user', 'billing'] as const) {
    const res = await callOperation<{ code: string }>(gw, 'virtualLogin', { as: as[role].session, body: { email: target.email, reason: 'ticket 42' } });
    t.like(res, { status: 403, body: { code: 'role_required' } }, role);
  }
  const byKey = await callOperation<{ code: string }>(gw, 'virtualLogin', { as: as.admin.liveKey, body: { email: target.email, reason: 'ticket 42' } });
  t.like(byKey, { status: 403, body: { code: 'session_required' } });
  t.is(Number((await gw.app.db('sessions').where({ user_id: target.userId }).whereNotNull('impersonator_id').count({ n: '*' }).first())!.n), 0);
});

test.serial('never for oneself nor for a staff account', async (t) => {
  for (const [staff, target] of [['admin', 'admin'], ['admin', 'support'], ['admin', 'billing'], ['support', 'admin'], ['support', 'support']] as const) {
    const res = await callOperation<{ code: string }>(gw, 'virtualLogin', { as: as[staff].session, body: { email: as[target].email, reason: 'ticket 42' } });
    t.like(res, { status: 403, body: { code: 'impersonation_forbidden' } }, `${staff} -> ${target}`);
  }
});

/** Every operation that must refuse an impersonated session: marked in the spec, or a role operation. */
function guardedOperations() {
  return gw.app.spec.operations.filter((op) => {
    const ext = op as unknown as Record<string, unknown>;
    return ext['x-impersonation'] === 'forbidden' || ext['x-required-role'] !== undefined;
  });
}

test.serial('refused with 403 impersonation_forbidden on every guarded operation, each refusal audited and marked', async (t) => {
  const target = await account(1000);
  const token = await impersonate(as.admin, target.email);
  const guarded = guardedOperations();
  // the list, pinned so that a lost marker fails here
  for (const op of ['createApiKey', 'generateApiKey', 'deleteApiKey', 'createOAuthClient', 'deleteOAuthClient', 'createTeamApiKey', 'revokeTeamApiKey',
    'requestAccountDeletion', 'cancelAccountDeletion', 'exportAccount', 'rotateWebhookSecret', 'adminTopup', 'adminDeleteUser', 'virtualLogin',
    // issue 35: a team key's changes, people's access to a team, studios others may spend through, the webhook secret
    'updateTeamApiKey', 'createTeamInvite', 'changeTeamMemberRole', 'removeTeamMember', 'acceptTeamInvite', 'createStudio', 'updateStudio', 'getWebhookSecret',
    // the alert webhook URL receives signed alerts after the session ends
    'updateAlertSettings', 'sendAlertTest']) {
    t.true(guarded.some((g) => g.operationId === op), `${op} refuses impersonation`);
  }
  const keysBefore = await gw.app.db('api_keys').where({ user_id: target.userId }).count({ n: '*' }).first();
  for (const op of guarded) {
    const url = op.path.replace(/\{[^}]+\}/g, '1');
    const hasBody = !['get', 'delete', 'head'].includes(op.method);
    const res = await gw.server.inject({ method: op.method.toUpperCase(), url, headers: bearer(token), ...(hasBody ? { payload: {} } : {}) });
    t.is(res.statusCode, 403, `${op.operationId}: ${res.payload}`);
    t.is((res.result as { code?: string }).code, 'impersonation_forbidden', op.operationId);
    t.is(res.headers['x-impersonated-by'], String(as.admin.userId), op.operationId);
  }
  t.deepEqual(await gw.app.db('api_keys').where({ user_id: target.userId }).count({ n: '*' }).first(), keysBefore, 'no key was created');
  const refusals = await gw.app.db('admin_audit').where({ credential: 'impersonation', target_user_id: target.userId, status: 403 });
  t.is(refusals.length, guarded.length, 'one audit row per refused request');
  // the target's own session still may do these
  t.is((await gw.server.inject({ method: 'POST', url: '/api/v1/keys', headers: bearer(target.session), payload: { name: 'mine', is_test: true } })).statusCode, 200);
});

test.serial('every request of the session is audited with both identities', async (t) => {
  const target = await account(1000);
  const token = await impersonate(as.support, target.email);
  await gw.server.inject({ method: 'GET', url: '/account/balance', headers: bearer(token) });
  await gw.server.inject({ method: 'GET', url: '/app/credit_transactions', headers: bearer(token) });
  await gw.server.inject({ method: 'POST', url: '/app/webhook_secret/rotate', headers: bearer(token) });
  const rows = await gw.app.db('admin_audit').where({ target_user_id: target.userId }).orderBy('id');
  t.deepEqual(rows.map((r: { action: string; status: number | string }) => [r.action, Number(r.status)]),
    [['virtualLogin', 200], ['getBalance', 200], ['listCreditTransactions', 200], ['rotateWebhookSecret', 403]]);
  for (const r of rows.slice(1)) {
    t.is(Number(r.actor_user_id), as.support.userId, 'the actor is the staff member');
    t.is(r.actor_role, 'support');
    t.is(r.credential, 'impersonation');
    t.truthy(r.request_id);
  }
  t.is(rows[0].reason, 'ticket 42', 'the opening names the reason');
  t.is(rows[0].credential, 'session');
  // the log route shows them
  const log = await callOperation<{ items: Array<{ action: string }> }>(gw, 'adminAuditLog', { as: as.admin.session, query: { target_user_id: target.userId } });
  t.is(log.body.items.length, 4);
});

test.serial('a session stops when its staff member loses the role (read per request); logout ends one', async (t) => {
  const target = await account();
  const staff = await account();
  await gw.app.db('users').where({ id: staff.userId }).update({ role: 'support' });
  const lost = await impersonate(staff, target.email);
  t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: bearer(lost) })).statusCode, 200);
  await gw.app.db('users').where({ id: staff.userId }).update({ role: 'billing' });
  t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: bearer(lost) })).statusCode, 401);

  const token = await impersonate(as.admin, target.email);
  t.is((await gw.server.inject({ method: 'POST', url: '/auth/logout', headers: bearer(token) })).statusCode, 200);
  t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: bearer(token) })).statusCode, 401);
});

test.serial('an impersonated session reads the webhook URLs redacted: the tokens in them outlive the session', async (t) => {
  const target = await account(500);
  const alertHook = 'https://alerts.example.com/in?key=receiver-secret';
  const hook = 'https://hooks.example.com/in?token=receiver-token';
  t.is((await callOperation(gw, 'updateAlertSettings', { as: target.session, body: { webhook_url: alertHook } })).status, 200);
  const run = await callOperation<{ request_id: string }>(gw, 'canvas-v1-fast-text-to-image', { as: target.testKey, body: { prompt: 'x', width: 64, height: 64 }, query: { webhook: hook } });
  t.is(run.status, 200, JSON.stringify(run.body));
  const token = await impersonate(as.support, target.email);
  const settings = await callOperation<{ webhook_url: string }>(gw, 'getAlertSettings', { as: token });
  t.is(settings.status, 200);
  t.is(settings.body.webhook_url, 'https://alerts.example.com/in?key=redacted');
  const prediction = await callOperation<{ webhook: string }>(gw, 'getPredictionResponse', { as: token, params: { request_id: run.body.request_id } });
  t.is(prediction.status, 200, JSON.stringify(prediction.body));
  t.is(prediction.body.webhook, 'https://hooks.example.com/in?token=redacted');
  // the user's own session sees them whole
  t.is((await callOperation<{ webhook_url: string }>(gw, 'getAlertSettings', { as: target.session })).body.webhook_url, alertHook);
});
