// OAuth clients and the token endpoint: client authentication, bodies, narrowing, lifetime with
// the clock controlled, revocation, secrets at rest, error formats. MariaDB, no worker.
import test from 'ava';
import crypto from 'node:crypto';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import { basic, createClient, tokenFor, tokenRequest } from '../helpers/oauth.ts';

let gw: TestGateway;
let acct: Account;
let now = Date.now();
test.before(async () => {
  gw = await startGateway({ queue: 'memory', clock: () => now });
  acct = await newAccount(gw, 5_000);
});
test.after.always(async () => {
  await gw?.stop();
});

const RESOURCE_METADATA = 'resource_metadata="http://gateway.test/.well-known/oauth-protected-resource"';
const get = (url: string, token: string) => gw.server.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
const session = () => ({ authorization: `Bearer ${acct.session}` });
const storedTokens = async (clientId: string) => (await gw.app.db('oauth_provider_records').where({ client_id: clientId }).select('id')).length;

test('a session creates a client whose secret is shown once; the list never shows it', async (t) => {
  const res = await gw.server.inject({ method: 'POST', url: '/oauth/clients', headers: session(), payload: { name: 'ci', scopes: ['account:read', 'generate:write'] } });
  t.is(res.statusCode, 200, res.payload);
  const body = res.result as Record<string, unknown>;
  t.deepEqual(Object.keys(body).sort(), ['allowed_scopes', 'client_id', 'client_secret', 'created_at', 'id', 'name']);
  t.deepEqual(body.allowed_scopes, ['generate:write', 'account:read']);
  t.regex(String(body.client_secret), /^mgcs_[A-Za-z0-9_-]{43}$/);
  const list = await gw.server.inject({ method: 'GET', url: '/oauth/clients', headers: session() });
  t.is(list.statusCode, 200);
  const listed = (list.result as Array<Record<string, unknown>>).find((c) => c.id === body.id);
  t.truthy(listed);
  t.false('client_secret' in listed!);
  t.false(list.payload.includes(String(body.client_secret)));
});

test('client secrets and access tokens are not stored in plaintext', async (t) => {
  const client = await createClient(gw, acct.session, ['account:read']);
  const token = await tokenFor(gw, client);
  const clients = JSON.stringify(await gw.app.db('oauth_clients').select());
  const records = JSON.stringify(await gw.app.db('oauth_provider_records').select());
  t.false(clients.includes(client.client_secret));
  t.false(records.includes(client.client_secret));
  t.false(clients.includes(token) || records.includes(token), 'token rows are keyed by the digest');
  t.true((await get('/account/balance', token)).statusCode === 200);
  t.true(clients.includes(client.client_id));
  // the stored digest is what compareClientSecret checks against
  const row = await gw.app.db('oauth_clients').where({ client_id: client.client_id }).first() as { secret_hash: string };
  t.regex(row.secret_hash, /^[0-9a-f]{64}$/);
  t.truthy(token);
});

test('an API key may not create or list OAuth clients (403 session_required); an invalid one is 401; unknown scopes are 422', async (t) => {
  const byKey = await gw.server.inject({ method: 'POST', url: '/oauth/clients', headers: { 'x-api-key': acct.liveKey }, payload: { name: 'x', scopes: ['account:read'] } });
  t.is(byKey.statusCode, 403);
  t.like(byKey.result, { code: 'session_required', detail: 'this operation needs a login session or an OAuth access token; an API key is not accepted here' });
  const listByKey = await gw.server.inject({ method: 'GET', url: '/oauth/clients', headers: { 'x-api-key': acct.liveKey } });
  t.is(listByKey.statusCode, 403);
  const forged = await gw.server.inject({ method: 'GET', url: '/oauth/clients', headers: { 'x-api-key': 'mg_live_not-a-key' } });
  t.is(forged.statusCode, 401);
  const unknown = await gw.server.inject({ method: 'POST', url: '/oauth/clients', headers: session(), payload: { name: 'x', scopes: ['admin'] } });
  t.is(unknown.statusCode, 422);
  t.deepEqual((unknown.result as { detail: Array<{ loc: unknown[] }> }).detail[0]!.loc.slice(0, 2), ['body', 'scopes']);
});

test('a keys:manage token may create clients only within its own scopes', async (t) => {
  const manager = await createClient(gw, acct.session, ['keys:manage', 'account:read']);
  const token = await tokenFor(gw, manager);
  const within = await gw.server.inject({ method: 'POST', url: '/oauth/clients', headers: { authorization: `Bearer ${token}` }, payload: { name: 'child', scopes: ['account:read'] } });
  t.is(within.statusCode, 200, within.payload);
  const beyond = await gw.server.inject({ method: 'POST', url: '/oauth/clients', headers: { authorization: `Bearer ${token}` }, payload: { name: 'child', scopes: ['generate:write'] } });
  t.is(beyond.statusCode, 403);
  t.regex((beyond.result as { detail: string }).detail, /generate:write/);
});

test('HTTP Basic and client_secret in the body both authenticate, with form and JSON bodies', async (t) => {
  const client = await createClient(gw, acct.session, ['account:read', 'generate:read']);
  const cases = [
    { name: 'basic + form', headers: { authorization: basic(client.client_id, client.client_secret), 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials' },
    { name: 'post + form', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }).toString() },
    { name: 'basic + json', headers: { authorization: basic(client.client_id, client.client_secret), 'content-type': 'application/json' }, payload: JSON.stringify({ grant_type: 'client_credentials' }) },
    { name: 'post + json', headers: { 'content-type': 'application/json; charset=utf-8' }, payload: JSON.stringify({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret, scope: 'account:read' }) },
  ];
  for (const c of cases) {
    const res = await gw.server.inject({ method: 'POST', url: '/oauth/token', headers: c.headers, payload: c.payload });
    t.is(res.statusCode, 200, `${c.name}: ${res.payload}`);
    const body = JSON.parse(res.payload) as Record<string, unknown>;
    t.is(body.token_type, 'Bearer', c.name);
    t.is(body.expires_in, 3600, c.name);
    t.is(body.scope, c.name === 'post + json' ? 'account:read' : 'generate:read account:read', c.name);
    t.is(res.headers['cache-control'], 'no-store');
    const balance = await get('/account/balance', String(body.access_token));
    t.is(balance.statusCode, 200, c.name);
  }
});

test('a JSON body that is not an object of strings is invalid_request, in the RFC 6749 format', async (t) => {
  for (const payload of ['[1,2]', '{"grant_type": 5}', '{nope']) {
    const res = await gw.server.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/json' }, payload });
    t.is(res.statusCode, 400, payload);
    t.is((JSON.parse(res.payload) as { error: string }).error, 'invalid_request', payload);
  }
  const client = await createClient(gw, acct.session, ['account:read']);
  const missing = await tokenRequest(gw, { client_id: client.client_id, client_secret: client.client_secret });
  t.is(missing.status, 400);
  t.is(missing.body.error, 'invalid_request');
  t.false('detail' in missing.body);
});

test('a wrong secret or an unknown client is invalid_client (401); other grant types are unsupported_grant_type', async (t) => {
  const client = await createClient(gw, acct.session, ['account:read']);
  const wrong = await tokenRequest(gw, { grant_type: 'client_credentials', client_id: client.client_id, client_secret: `${client.client_secret}x` });
  t.is(wrong.status, 401);
  t.is(wrong.body.error, 'invalid_client');
  const wrongBasic = await tokenRequest(gw, { grant_type: 'client_credentials' }, { authorization: basic(client.client_id, 'mgcs_wrong') });
  t.is(wrongBasic.status, 401);
  t.is(wrongBasic.body.error, 'invalid_client');
  const unknown = await tokenRequest(gw, { grant_type: 'client_credentials', client_id: 'mgc_nobody', client_secret: 'whatever' });
  t.is(unknown.status, 401);
  t.is(unknown.body.error, 'invalid_client');
  const grants: Array<Record<string, string>> = [
    { grant_type: 'authorization_code', code: 'abc', redirect_uri: 'https://x.test/cb' },
    { grant_type: 'refresh_token', refresh_token: 'abc' },
    { grant_type: 'password', username: 'a', password: 'b' },
  ];
  for (const grant of grants) {
    const res = await tokenRequest(gw, { ...grant, client_id: client.client_id, client_secret: client.client_secret });
    t.is(res.status, 400, grant.grant_type);
    t.is(res.body.error, 'unsupported_grant_type', grant.grant_type);
  }
});

test('scope narrows the token; asking beyond the client or for an unknown scope is invalid_scope', async (t) => {
  const client = await createClient(gw, acct.session, ['account:read', 'keys:manage']);
  const auth = { authorization: basic(client.client_id, client.client_secret) };
  const narrow = await tokenRequest(gw, { grant_type: 'client_credentials', scope: 'account:read' }, auth);
  t.is(narrow.status, 200);
  t.is(narrow.body.scope, 'account:read');
  const token = String(narrow.body.access_token);
  t.is((await get('/account/balance', token)).statusCode, 200);
  const keys = await get('/app/get_user_keys', token);
  t.is(keys.statusCode, 403);
  t.deepEqual(keys.result, { detail: 'insufficient_scope: this operation needs keys:manage', code: 'insufficient_scope' });
  t.is(keys.headers['www-authenticate'], `Bearer error="insufficient_scope", scope="keys:manage", ${RESOURCE_METADATA}`);
  const all = await tokenRequest(gw, { grant_type: 'client_credentials' }, auth);
  t.is(all.body.scope, 'account:read keys:manage');
  t.is((await get('/app/get_user_keys', String(all.body.access_token))).statusCode, 200);
  const beyond = await tokenRequest(gw, { grant_type: 'client_credentials', scope: 'account:read generate:write' }, auth);
  t.is(beyond.status, 400);
  t.is(beyond.body.error, 'invalid_scope');
  const unknown = await tokenRequest(gw, { grant_type: 'client_credentials', scope: 'admin' }, auth);
  t.is(unknown.status, 400);
  t.is(unknown.body.error, 'invalid_scope');
});

test('a token acts for the client\'s owner and never as an administrator', async (t) => {
  const client = await createClient(gw, acct.session, ['account:read']);
  const token = await tokenFor(gw, client);
  const details = await get('/app/user_details', token);
  t.is(details.statusCode, 200);
  t.is((details.result as { id: number }).id, acct.userId);
  await gw.app.db('users').where({ id: acct.userId }).update({ role: 'admin' });
  try {
    const admin = await gw.server.inject({ method: 'GET', url: '/auth/admin_user_info?email=a@example.com', headers: { authorization: `Bearer ${token}` } });
    // README "Roles and administration": a token never carries a role, even its owner's
    t.is(admin.statusCode, 403);
    t.is((admin.result as { code: string }).code, 'session_required');
  } finally {
    await gw.app.db('users').where({ id: acct.userId }).update({ role: 'user' });
  }
});

// serial: ava runs serial tests before the concurrent ones, so moving the clock disturbs nothing else
test.serial('a token expires after one hour by the gateway\'s clock: 401 invalid_token with a resource_metadata pointer', async (t) => {
  const client = await createClient(gw, acct.session, ['account:read']);
  const token = await tokenFor(gw, client);
  // The token's expiry is oidc-provider's issue time (Date.now) + 3600 s; the gateway's clock starts
  // from the moment the token exists, not from when this file loaded (seconds earlier on a busy machine).
  const start = Date.now();
  try {
    now = start + 3590_000;
    t.is((await get('/account/balance', token)).statusCode, 200);
    now = start + 3601_000;
    const expired = await get('/account/balance', token);
    t.is(expired.statusCode, 401);
    t.is(expired.headers['www-authenticate'], `Bearer error="invalid_token", ${RESOURCE_METADATA}`);
  } finally {
    now = start;
  }
});

test('401s on bearer routes carry a Bearer challenge: invalid_token when a token or API key was sent, invalid_request when none was', async (t) => {
  const none = await gw.server.inject({ method: 'GET', url: '/account/balance' });
  t.is(none.statusCode, 401);
  t.is(none.headers['www-authenticate'], `Bearer error="invalid_request", error_description="no credential was sent", ${RESOURCE_METADATA}`);
  const garbage = await get('/account/balance', 'not-a-token');
  t.is(garbage.statusCode, 401);
  t.is(garbage.headers['www-authenticate'], `Bearer error="invalid_token", ${RESOURCE_METADATA}`);
  const badSession = await get('/account/balance', 'mgs_nope');
  t.is(badSession.statusCode, 401);
  t.is(badSession.headers['www-authenticate'], `Bearer error="invalid_token", ${RESOURCE_METADATA}`);
  // an API key was sent: the challenge must not say that no credential was
  const badKey = await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': 'mg_live_nope' } });
  t.is(badKey.statusCode, 401);
  t.is(badKey.headers['www-authenticate'], `Bearer error="invalid_token", ${RESOURCE_METADATA}`);
});

test('deleting a client makes its outstanding tokens fail on their very next use', async (t) => {
  const client = await createClient(gw, acct.session, ['account:read', 'generate:read']);
  const first = await tokenFor(gw, client);
  const second = await tokenFor(gw, client, 'generate:read');
  t.is((await get('/account/balance', first)).statusCode, 200);
  const other = await newAccount(gw);
  const foreign = await gw.server.inject({ method: 'DELETE', url: `/oauth/clients/${client.id}`, headers: { authorization: `Bearer ${other.session}` } });
  t.is(foreign.statusCode, 404, 'only the owner may delete it');
  const del = await gw.server.inject({ method: 'DELETE', url: `/oauth/clients/${client.id}`, headers: session() });
  t.is(del.statusCode, 200);
  t.deepEqual(del.result, { id: client.id, deleted: true });
  t.is((await get('/account/balance', first)).statusCode, 401);
  t.is((await get(`/api/v1/predictions/${'0'.repeat(32)}/result`, second)).statusCode, 401);
  t.is(await storedTokens(client.client_id), 0);
  const again = await tokenRequest(gw, { grant_type: 'client_credentials' }, { authorization: basic(client.client_id, client.client_secret) });
  t.is(again.body.error, 'invalid_client');
  const twice = await gw.server.inject({ method: 'DELETE', url: `/oauth/clients/${client.id}`, headers: session() });
  t.is(twice.statusCode, 404);
  const list = await gw.server.inject({ method: 'GET', url: '/oauth/clients', headers: session() });
  t.false((list.result as Array<{ id: string }>).some((c) => c.id === client.id));
});

test('a token whose client was deleted is refused even if its stored row survived', async (t) => {
  const client = await createClient(gw, acct.session, ['account:read']);
  const token = await tokenFor(gw, client);
  t.is((await get('/account/balance', token)).statusCode, 200);
  // Mark the client deleted without touching the provider's records.
  await gw.app.db('oauth_clients').where({ client_id: client.client_id }).update({ deleted_at: Date.now() });
  t.is(await storedTokens(client.client_id), 1);
  const res = await get('/account/balance', token);
  t.is(res.statusCode, 401);
  t.regex(String(res.headers['www-authenticate']), /error="invalid_token"/);
});

test('GET /oauth/scopes lists the five scopes with descriptions, from the spec', async (t) => {
  const res = await gw.server.inject({ method: 'GET', url: '/oauth/scopes' });
  t.is(res.statusCode, 200);
  const { scopes } = res.result as { scopes: Array<{ name: string; description: string }> };
  t.deepEqual(scopes.map((s) => s.name), ['generate:write', 'generate:read', 'files:write', 'account:read', 'keys:manage']);
  t.true(scopes.every((s) => s.description.length > 10));
});

test('the metadata documents name the issuer, the token endpoint, the scopes and the methods', async (t) => {
  const as = await gw.server.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
  t.is(as.statusCode, 200);
  t.like(as.result as object, {
    issuer: 'http://gateway.test',
    token_endpoint: 'http://gateway.test/oauth/token',
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
  });
  const rs = await gw.server.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource' });
  t.is(rs.statusCode, 200);
  t.like(rs.result as object, { resource: 'http://gateway.test', authorization_servers: ['http://gateway.test'], bearer_methods_supported: ['header'] });
  t.is((rs.result as { scopes_supported: string[] }).scopes_supported.length, 5);
});

/** A DPoP proof (RFC 9449 section 4.2) for a token request, signed with a fresh P-256 key. */
function dpopProof(htu: string): string {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' });
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const input = `${part({ typ: 'dpop+jwt', alg: 'ES256', jwk: { kty, crv, x, y } })}.${part({ htm: 'POST', htu, iat: Math.floor(Date.now() / 1000), jti: crypto.randomUUID() })}`;
  const signature = crypto.sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
  return `${input}.${signature}`;
}

test('a token request with a DPoP proof gets a Bearer token, never a DPoP-bound one the gateway would accept without its proof', async (t) => {
  const client = await createClient(gw, acct.session, ['account:read']);
  const res = await tokenRequest(gw, { grant_type: 'client_credentials' }, { authorization: basic(client.client_id, client.client_secret), host: 'gateway.test', dpop: dpopProof('http://gateway.test/oauth/token') });
  t.is(res.status, 200, JSON.stringify(res.body));
  // RFC 9449 section 5: an authorization server without DPoP answers token_type Bearer, so the
  // client knows its token is not bound to the key
  t.is(res.body.token_type, 'Bearer');
  const row = await gw.app.db('oauth_provider_records').where({ client_id: client.client_id }).first() as { payload: string };
  t.false('jkt' in (JSON.parse(row.payload) as Record<string, unknown>));
  t.is((await get('/account/balance', String(res.body.access_token))).statusCode, 200);
});
