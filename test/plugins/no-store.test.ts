// An answer that carries a secret (a session token, a CSRF token, an API key, an OAuth client's
// secret, an upload address, the webhook signing secret, a support link) is `Cache-Control:
// no-store`, so no browser or proxy keeps a copy; other authenticated JSON stays `no-cache`.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import { basic, createClient, tokenRequest } from '../helpers/oauth.ts';
import { noStoreOf } from '../../plugins/spec-routes.ts';

let gw: TestGateway;
let acct: Account;
let admin: Account;

test.before(async () => {
  gw = await startGateway({ queue: 'memory' });
  acct = await newAccount(gw, 10_000);
  admin = await newAccount(gw);
  await gw.app.db('users').where({ id: admin.userId }).update({ role: 'admin' });
});
test.after.always(async () => {
  await gw?.stop();
});

type Headers = Record<string, string>;
const bearer = (t: string): Headers => ({ authorization: `Bearer ${t}` });
const emailOf = async (a: Account) => (await gw.app.db('users').where({ id: a.userId }).first<{ email: string }>('email'))!.email;

async function call(method: string, url: string, headers: Headers, payload?: object) {
  const res = await gw.server.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  return { status: res.statusCode, body: res.result as Record<string, unknown>, cache: res.headers['cache-control'] };
}

/** Asserts the answer's status and that it is no-store. */
function noStore(t: import('ava').ExecutionContext, what: string, res: { status: number; cache: unknown; body: unknown }, status: number) {
  t.is(res.status, status, `${what}: ${JSON.stringify(res.body)}`);
  t.is(res.cache, 'no-store', what);
}

test('the sign-in answers that carry a session token, and the session that answers its CSRF token, are no-store', async (t) => {
  const email = await emailOf(acct);
  noStore(t, 'login', await call('POST', '/auth/login', {}, { email, password: 'correct horse battery' }), 200);
  noStore(t, 'cli/login', await call('POST', '/auth/cli/login', {}, { email, password: 'correct horse battery' }), 200);
  noStore(t, 'getSession', await call('GET', '/auth/session', bearer(acct.session)), 200);
  const cookieLogin = await gw.server.inject({ method: 'POST', url: '/auth/login?session=cookie', payload: { email, password: 'correct horse battery' } });
  t.is(cookieLogin.headers['cache-control'], 'no-store');
  const cookie = String(cookieLogin.headers['set-cookie']).split(';')[0]!;
  noStore(t, 'getSession (cookie)', await call('GET', '/auth/session', { cookie }), 200);
  // a wrong password or code gets the same header: the route's every answer is no-store
  noStore(t, 'login refused', await call('POST', '/auth/login', {}, { email, password: 'not the password' }), 401);
  noStore(t, 'login-otp refused', await call('POST', '/auth/login-otp', {}, { email, otp: '000000' }), 401);
  // Google sign-in is not configured here: its answers that would carry a session are still no-store
  noStore(t, 'google/mobile', await call('POST', '/auth/google/mobile', {}, { id_token: 'x'.repeat(40) }), 503);
  noStore(t, 'google_callback', await call('GET', '/auth/google_callback?code=c&state=s', {}), 503);
});

test('support links and the sign-in they open are no-store', async (t) => {
  const target = await newAccount(gw);
  const email = await emailOf(target);
  const link = await call('POST', '/auth/admin_support_login_link', bearer(admin.session), { email, reason: 'ticket 1' });
  noStore(t, 'admin_support_login_link', link, 200);
  const token = /[?#&]token=([^&#]+)/.exec(String(link.body.url))?.[1];
  t.truthy(token, String(link.body.url));
  noStore(t, 'support-login', await call('POST', '/auth/support-login', {}, { token: decodeURIComponent(token!) }), 200);
  noStore(t, 'admin_password_reset_link', await call('POST', '/auth/admin_password_reset_link', bearer(admin.session), { email, reason: 'ticket 2' }), 200);
  noStore(t, 'virtual_login', await call('POST', '/auth/virtual_login', bearer(admin.session), { email, reason: 'ticket 3' }), 200);
});

test('key creation and rotation, OAuth client creation and tokens, upload addresses and the webhook secret are no-store', async (t) => {
  const auth = bearer(acct.session);
  const created = await call('POST', '/api/v1/keys', auth, { name: 'k' });
  noStore(t, 'createApiKey', created, 200);
  noStore(t, 'generateApiKey', await call('POST', '/app/generate-api-key', auth, { name: 'k2' }), 200);
  noStore(t, 'rotateApiKey', await call('POST', `/app/api_keys/${String(created.body.id)}/rotate`, auth, {}), 200);
  const team = (await call('POST', '/app/teams', auth, { name: 'T' })).body;
  const teamKey = await call('POST', `/app/teams/${String(team.id)}/keys`, auth, { name: 'tk' });
  noStore(t, 'createTeamApiKey', teamKey, 201);
  noStore(t, 'rotateTeamApiKey', await call('POST', `/app/teams/${String(team.id)}/keys/${String(teamKey.body.id)}/rotate`, auth, {}), 200);
  noStore(t, 'createOAuthClient', await call('POST', '/oauth/clients', auth, { name: 'c', scopes: ['account:read'] }), 200);
  const client = await createClient(gw, acct.session, ['account:read']);
  const token = await tokenRequest(gw, { grant_type: 'client_credentials' }, { authorization: basic(client.client_id, client.client_secret) });
  t.is(token.status, 200);
  t.is(token.headers['cache-control'], 'no-store', 'oauth/token');
  noStore(t, 'getFileUploadUrl', await call('GET', '/app/get_file_upload_url?filename=a.png', auth), 200);
  noStore(t, 'getWebhookSecret', await call('GET', '/app/webhook_secret', auth), 200);
  noStore(t, 'rotateWebhookSecret', await call('POST', '/app/webhook_secret/rotate', auth, {}), 200);
  // Stripe is not configured here: the billing portal's answer (a signed-in link to it) is still no-store
  noStore(t, 'createBillingPortalSession', await call('POST', '/app/billing_portal_sessions', auth, {}), 503);
});

test('other authenticated JSON answers stay no-cache', async (t) => {
  for (const url of ['/account/balance', '/app/user_details', '/app/get_user_keys', '/oauth/clients']) {
    const res = await call('GET', url, bearer(acct.session));
    t.is(res.status, 200, url);
    t.is(res.cache, 'no-cache', url);
  }
});

test('x-no-store is true or absent: start-up refuses anything else, naming the operation', (t) => {
  t.true(noStoreOf('op', true));
  t.false(noStoreOf('op', undefined));
  t.throws(() => noStoreOf('op', 'yes'), { message: /op: x-no-store must be true/ });
  t.throws(() => noStoreOf('op', false), { message: /x-no-store/ });
});
