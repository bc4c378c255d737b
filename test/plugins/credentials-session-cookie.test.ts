// The dashboard's cookie session (docs/api/dashboard.md "Sessions in the browser") through the
// real routes on MariaDB: login with session=cookie sets an HttpOnly, SameSite=Strict cookie and
// answers no token; reads need only the cookie; every state-changing request needs the CSRF token
// as well; logout ends the session server-side and clears the cookie; a studio has its own cookie.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { uniqueName } from '../helpers/services.ts';

const PASSWORD = 'correct horse battery';
let gw: TestGateway;
let secureGw: TestGateway;

test.before(async () => {
  gw = await startGateway({ queue: 'memory' });
  secureGw = await startGateway({ queue: 'memory', env: { PUBLIC_URL: 'https://gateway.example' } });
});
test.after.always(async () => {
  await gw?.stop();
  await secureGw?.stop();
});

async function emailOf(g: TestGateway, userId: number): Promise<string> {
  return (await g.app.db('users').where({ id: userId }).first<{ email: string }>('email'))!.email;
}

/** Signs in with session=cookie; returns the Set-Cookie header, the cookie pair to send back, and the answer. */
async function cookieLogin(g: TestGateway, email: string, headers: Record<string, string> = {}) {
  const res = await callOperation<{ token_type: string; csrf_token: string; expires_in: number; access_token?: string }>(g, 'login', { query: { session: 'cookie' }, body: { email, password: PASSWORD }, headers });
  const setCookie = ([] as string[]).concat((res.headers['set-cookie'] as string[] | string | undefined) ?? []);
  const pair = setCookie[0]?.split(';')[0] ?? '';
  return { res, setCookie, cookie: pair };
}

test('a cookie login sets an HttpOnly, SameSite=Strict session cookie and answers only the CSRF token', async (t) => {
  const acct = await newAccount(gw);
  const { res, setCookie, cookie } = await cookieLogin(gw, await emailOf(gw, acct.userId));
  t.is(res.status, 200, res.raw.payload);
  t.is(res.body.token_type, 'cookie');
  t.is(res.body.access_token, undefined);
  t.false(res.raw.payload.includes('mgs_'), 'the session token is never in the body');
  t.regex(res.body.csrf_token, /^[A-Za-z0-9_-]{40,}$/);
  t.is(setCookie.length, 2);
  t.regex(setCookie[0]!, /^mg_session=mgs_/);
  // the page's hint that a session is set: readable by the page, holding nothing secret
  t.regex(setCookie[1]!, /^mg_signed_in=1; Max-Age=604800;.*SameSite=Strict/);
  t.notRegex(setCookie[1]!, /HttpOnly/);
  t.regex(setCookie[0]!, /; HttpOnly/);
  t.regex(setCookie[0]!, /; SameSite=Strict/);
  t.regex(setCookie[0]!, /; Path=\//);
  t.regex(setCookie[0]!, /; Max-Age=604800/);
  // served over http (PUBLIC_URL http://gateway.test): a Secure cookie would never come back
  t.notRegex(setCookie[0]!, /; Secure/);
  t.is(res.headers['cache-control'], 'no-store');
  // the stored row is the digest, as for every session
  const token = cookie.split('=')[1]!;
  t.falsy(await gw.app.db('sessions').where({ token_hash: token }).first());
});

test('over https the cookie is Secure and __Host- prefixed', async (t) => {
  const acct = await newAccount(secureGw);
  const { setCookie, cookie } = await cookieLogin(secureGw, await emailOf(secureGw, acct.userId));
  t.regex(setCookie[0]!, /^__Host-mg_session=mgs_/);
  t.regex(setCookie[0]!, /; Secure/);
  t.notRegex(setCookie[0]!, /; Domain=/);
  const me = await secureGw.server.inject({ method: 'GET', url: '/app/user_details', headers: { cookie } });
  t.is(me.statusCode, 200, me.payload);
});

test('reads need only the cookie; a state-changing request without the CSRF token, or with a wrong one, is 403 and changes nothing', async (t) => {
  const acct = await newAccount(gw);
  const { res, cookie } = await cookieLogin(gw, await emailOf(gw, acct.userId));
  const me = await callOperation<{ id: number }>(gw, 'getUserDetails', { headers: { cookie } });
  t.is(me.status, 200);
  t.is(me.body.id, acct.userId);
  const keysBefore = await gw.app.db('api_keys').where({ user_id: acct.userId }).count<[{ n: number }]>({ n: '*' });
  const none = await callOperation<{ code: string; detail: string }>(gw, 'createApiKey', { headers: { cookie }, body: { name: 'forged', is_test: true } });
  t.is(none.status, 403);
  t.is(none.body.code, 'csrf_token_invalid');
  t.regex(none.body.detail, /X-CSRF-Token/i);
  const wrong = await callOperation<{ code: string }>(gw, 'createApiKey', { headers: { cookie, 'x-csrf-token': `${res.body.csrf_token.slice(0, -2)}AA` }, body: { name: 'forged', is_test: true } });
  t.is(wrong.status, 403);
  t.is(wrong.body.code, 'csrf_token_invalid');
  const keysAfter = await gw.app.db('api_keys').where({ user_id: acct.userId }).count<[{ n: number }]>({ n: '*' });
  t.deepEqual(keysAfter, keysBefore);
  const ok = await callOperation<{ key: string }>(gw, 'createApiKey', { headers: { cookie, 'x-csrf-token': res.body.csrf_token }, body: { name: 'real', is_test: true } });
  t.is(ok.status, 200, ok.raw.payload);
  t.true(ok.body.key.startsWith('mg_test_'));
});

test('another session\'s CSRF token does not work with this cookie', async (t) => {
  const acct = await newAccount(gw);
  const email = await emailOf(gw, acct.userId);
  const first = await cookieLogin(gw, email);
  const second = await cookieLogin(gw, email);
  t.not(first.res.body.csrf_token, second.res.body.csrf_token);
  const mixed = await callOperation<{ code: string }>(gw, 'createApiKey', { headers: { cookie: first.cookie, 'x-csrf-token': second.res.body.csrf_token }, body: { name: 'x', is_test: true } });
  t.is(mixed.status, 403);
});

test('getSession answers the account, the expiry and the same CSRF token, after a reload as in a new tab', async (t) => {
  const acct = await newAccount(gw);
  const email = await emailOf(gw, acct.userId);
  const { res, cookie } = await cookieLogin(gw, email);
  const info = await callOperation<{ user: { email: string }; cookie: boolean; csrf_token: string; expires_at: string; impersonated_by: null }>(gw, 'getSession', { headers: { cookie } });
  t.is(info.status, 200, info.raw.payload);
  t.is(info.body.user.email, email);
  t.true(info.body.cookie);
  t.is(info.body.csrf_token, res.body.csrf_token);
  t.is(info.body.impersonated_by, null);
  t.true(Date.parse(info.body.expires_at) > Date.now() + 6 * 86_400_000);
  // a bearer session has no cookie and needs no CSRF token
  const bearer = await callOperation<{ cookie: boolean; csrf_token: null }>(gw, 'getSession', { as: acct.session });
  t.false(bearer.body.cookie);
  t.is(bearer.body.csrf_token, null);
  // signed out: 401, which the page takes as "show the sign-in"
  t.is((await callOperation(gw, 'getSession', {})).status, 401);
});

test('logout ends the cookie session server-side and clears the cookie; the old cookie is then 401', async (t) => {
  const acct = await newAccount(gw);
  const { res, cookie } = await cookieLogin(gw, await emailOf(gw, acct.userId));
  const forged = await callOperation(gw, 'logout', { headers: { cookie } });
  t.is(forged.status, 403, 'a cross-site page cannot sign the user out either');
  const out = await callOperation(gw, 'logout', { headers: { cookie, 'x-csrf-token': res.body.csrf_token } });
  t.is(out.status, 200, out.raw.payload);
  const cleared = ([] as string[]).concat((out.headers['set-cookie'] as string[] | string) ?? []);
  t.regex(cleared[0] ?? '', /^mg_session=;.*Max-Age=0/);
  t.regex(cleared[1] ?? '', /^mg_signed_in=;.*Max-Age=0/);
  const stale = await callOperation(gw, 'getUserDetails', { headers: { cookie } });
  t.is(stale.status, 401);
  // the ended session's cookie and its hint are removed with the refusal
  const removed = ([] as string[]).concat((stale.headers['set-cookie'] as string[] | string) ?? []);
  t.regex(removed.find((c) => c.startsWith('mg_session=')) ?? '', /Max-Age=0.*HttpOnly/);
  t.regex(removed.find((c) => c.startsWith('mg_signed_in=')) ?? '', /Max-Age=0/);
});

test('an explicit credential wins over the cookie: a bearer session or an API key is used, not the cookie', async (t) => {
  const a = await newAccount(gw);
  const b = await newAccount(gw);
  const { cookie } = await cookieLogin(gw, await emailOf(gw, a.userId));
  const asB = await callOperation<{ id: number }>(gw, 'getUserDetails', { as: b.session, headers: { cookie } });
  t.is(asB.body.id, b.userId);
  // with an API key the cookie's missing CSRF token does not matter: the key is the credential
  const key = await callOperation(gw, 'createApiKey', { as: b.liveKey, headers: { cookie }, body: { name: 'k', is_test: false } });
  t.is(key.status, 200);
  t.is((await gw.app.db('api_keys').where({ name: 'k' }).first<{ user_id: number }>('user_id'))!.user_id, b.userId);
});

test('a cookie that is not a live session is 401; a cookie of another name is no credential', async (t) => {
  t.is((await callOperation(gw, 'getUserDetails', { headers: { cookie: 'mg_session=mgs_not-a-session' } })).status, 401);
  t.is((await callOperation(gw, 'getUserDetails', { headers: { cookie: 'other=mgs_x; theme=dark' } })).status, 401);
});

test('a studio has its own cookie: its user signs in inside it, and neither cookie works on the other site', async (t) => {
  const owner = await newAccount(gw);
  const slug = uniqueName('ck').toLowerCase().replace(/[^a-z0-9-]/g, '').slice(0, 30);
  const created = await callOperation(gw, 'createStudio', { as: owner.session, body: { slug, name: 'Pixel Shop', allowed_models: ['canvas-v1-fast-text-to-image'], payer_mode: 'end_user_pays' } });
  t.is(created.status, 201, created.raw.payload);
  const studio = { 'x-whitelabel-studio': slug };
  const email = `${uniqueName('shopper')}@example.com`;
  t.is((await gw.server.inject({ method: 'POST', url: '/auth/register', headers: studio, payload: { email, password: PASSWORD } })).statusCode, 201);
  const { setCookie, cookie } = await cookieLogin(gw, email, studio);
  t.regex(setCookie[0]!, new RegExp(`^mg_session_${slug}=mgs_`));
  t.is((await callOperation(gw, 'getUserDetails', { headers: { cookie, ...studio } })).status, 200);
  // outside the studio the studio's cookie is not the gateway's: no credential at all
  t.is((await callOperation(gw, 'getUserDetails', { headers: { cookie } })).status, 401);
  // and the gateway's cookie is no credential in the studio
  const gatewayUser = await newAccount(gw);
  const own = await cookieLogin(gw, await emailOf(gw, gatewayUser.userId));
  t.is((await callOperation(gw, 'getUserDetails', { headers: { cookie: own.cookie, ...studio } })).status, 401);
});

test('getSiteInfo names the gateway or the studio, the registration policy, and whether credit can be bought', async (t) => {
  const site = await callOperation<{ name: string; studio: null; registration: string; sign_in: { google: boolean }; payments: { enabled: boolean; presets: number[]; min_amount: number } }>(gw, 'getSiteInfo', {});
  t.is(site.status, 200);
  t.is(site.body.name, 'mediagate');
  t.is(site.body.studio, null);
  t.is(site.body.registration, 'open');
  t.false(site.body.sign_in.google);
  t.false(site.body.payments.enabled, 'no STRIPE_SECRET_KEY here');
  t.deepEqual(site.body.payments.presets, [500, 2000, 5000, 10000]);
  const owner = await newAccount(gw);
  const slug = uniqueName('si').toLowerCase().replace(/[^a-z0-9-]/g, '').slice(0, 30);
  await callOperation(gw, 'createStudio', { as: owner.session, body: { slug, name: 'Lumen Lab', branding: { logo_url: 'https://cdn.example/logo.png', primary_color: '#112233', accent_color: '#abc' }, allowed_models: ['canvas-v1-fast-text-to-image'], payer_mode: 'owner_pays' } });
  const inStudio = await callOperation<{ name: string; studio: { slug: string; name: string; logo_url: string; primary_color: string; payer_mode: string } }>(gw, 'getSiteInfo', { headers: { 'x-whitelabel-studio': slug } });
  t.is(inStudio.body.name, 'Lumen Lab');
  t.like(inStudio.body.studio, { slug, name: 'Lumen Lab', logo_url: 'https://cdn.example/logo.png', primary_color: '#112233', payer_mode: 'owner_pays' });
  t.false(inStudio.raw.payload.includes('mediagate'), 'a storefront names no gateway brand');
  t.is((await callOperation(gw, 'getSiteInfo', { headers: { 'x-whitelabel-studio': 'no-such-studio' } })).status, 404);
});
