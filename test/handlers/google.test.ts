// Google sign-in against a real local OpenID provider (oidc-provider) standing in for Google:
// the authorization URL, the callback with a real code exchange, ID-token validation. MariaDB.
import test from 'ava';
import crypto from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { rsaKey, signJwt, startProvider } from '../helpers/oidc.ts';
import type { LocalProvider, TestClient } from '../helpers/oidc.ts';
import { freePort } from '../helpers/processes.ts';
import { publishChallenges, startDns } from '../helpers/dns.ts';
import type { TestDns } from '../helpers/dns.ts';

const WEB: TestClient = { client_id: 'gateway-web', client_secret: 'gateway-web-secret', redirect_uri: 'http://gateway.test/auth/google_callback' };
const OTHER: TestClient = { client_id: 'someone-elses-app', client_secret: 'other-secret', redirect_uri: 'http://other.test/callback' };

let op: LocalProvider;
let gw: TestGateway;
let dns: TestDns;
let offsetMs = 0;
const logLines: string[] = [];

test.before(async () => {
  op = await startProvider([WEB, OTHER]);
  dns = await startDns();
  const sink = new Writable({ write(chunk: Buffer, _enc, done) { logLines.push(chunk.toString('utf8')); done(); } });
  gw = await startGateway({
    queue: 'memory',
    clock: () => Date.now() + offsetMs,
    log: pino({ level: 'trace' }, sink),
    env: { GOOGLE_CLIENT_ID: WEB.client_id, GOOGLE_CLIENT_SECRET: WEB.client_secret, GOOGLE_ISSUER: op.issuer, SIGNUP_CREDIT: '300', STUDIO_DNS_SERVERS: dns.server },
  });
});
test.after.always(async () => {
  await gw?.stop();
  await op?.close();
  await dns?.close();
});

interface Session { access_token: string; token_type: string; expires_in: number }

async function googleUrl(headers: Record<string, string> = {}): Promise<URL> {
  const res = await gw.server.inject({ method: 'GET', url: '/auth/get-google-url', headers });
  if (res.statusCode !== 200) throw new Error(`get-google-url: ${res.statusCode} ${res.payload}`);
  return new URL((res.result as { url: string }).url);
}

/** The browser's round trip: the sign-in URL, the provider, and back to the gateway's callback. */
async function signInThroughBrowser(sub: string) {
  const back = await op.authorize((await googleUrl()).href, sub);
  return { back, res: await gw.server.inject({ method: 'GET', url: `/auth/google_callback${back.search}` }) };
}

async function me(token: string) {
  const res = await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: { authorization: `Bearer ${token}` } });
  return { status: res.statusCode, user: res.result as { id: number; email: string; email_verified: boolean } };
}

function newSub(): string {
  return `sub-${crypto.randomBytes(6).toString('hex')}`;
}

test('the sign-in URL is an authorization-code request with state, nonce and an S256 PKCE challenge', async (t) => {
  const url = await googleUrl();
  t.is(url.origin, op.issuer);
  const q = url.searchParams;
  t.is(q.get('response_type'), 'code');
  t.is(q.get('client_id'), WEB.client_id);
  t.is(q.get('redirect_uri'), WEB.redirect_uri);
  t.true(q.get('scope')!.split(' ').includes('openid'));
  t.true(q.get('scope')!.split(' ').includes('email'));
  t.is(q.get('code_challenge_method'), 'S256');
  t.regex(q.get('code_challenge')!, /^[A-Za-z0-9_-]{43}$/);
  t.true(q.get('state')!.length >= 32);
  t.true(q.get('nonce')!.length >= 32);
  // Kept server-side under the state's digest, with the verifier (not the challenge) and nonce.
  const rows = await gw.app.db('oauth_states').select('state_hash', 'nonce', 'code_verifier');
  const row = rows.find((r: { state_hash: string }) => r.state_hash === crypto.createHash('sha256').update(q.get('state')!).digest('hex'));
  t.truthy(row);
  t.is(row.nonce, q.get('nonce'));
  t.is(crypto.createHash('sha256').update(row.code_verifier).digest('base64url'), q.get('code_challenge')!);
  t.false(rows.some((r: { state_hash: string }) => r.state_hash === q.get('state')));
});

test('the first sign-in creates a verified account without a password; the second signs into the same account', async (t) => {
  const sub = newSub();
  op.accounts.set(sub, { email: `${sub}@Gmail.example`, email_verified: true });
  const first = await signInThroughBrowser(sub);
  t.is(first.res.statusCode, 200, first.res.payload);
  const s1 = first.res.result as Session;
  t.is(s1.token_type, 'bearer');
  t.true(s1.access_token.startsWith('mgs_'));
  t.is(s1.expires_in, gw.app.config.sessionTtlSeconds);
  const who = await me(s1.access_token);
  t.is(who.status, 200);
  t.is(who.user.email, `${sub}@gmail.example`);
  t.true(who.user.email_verified);
  const row = await gw.app.db('users').where({ id: who.user.id }).first();
  t.is(row.password_hash, null);
  // No password: password login for this account is the ordinary 401.
  const pw = await gw.server.inject({ method: 'POST', url: '/auth/login', payload: { email: `${sub}@gmail.example`, password: 'anything at all' } });
  t.is(pw.statusCode, 401);

  const second = await signInThroughBrowser(sub);
  t.is(second.res.statusCode, 200, second.res.payload);
  t.is((await me((second.res.result as Session).access_token)).user.id, who.user.id);
  t.is((await gw.app.db('users').where({ email: `${sub}@gmail.example` }).count({ n: '*' }))[0]!.n as number, 1);
});

test('a verified Google email links to the existing verified account, which keeps its password', async (t) => {
  const sub = newSub();
  const email = `${sub}@example.com`;
  const reg = await gw.server.inject({ method: 'POST', url: '/auth/register', payload: { email, password: 'my own password' } });
  await gw.app.db('users').where({ id: (reg.result as { id: number }).id }).update({ email_verified: true });
  op.accounts.set(sub, { email, email_verified: true });
  const { res } = await signInThroughBrowser(sub);
  t.is(res.statusCode, 200, res.payload);
  t.is((await me((res.result as Session).access_token)).user.id, (reg.result as { id: number }).id);
  const pw = await gw.server.inject({ method: 'POST', url: '/auth/login', payload: { email, password: 'my own password' } });
  t.is(pw.statusCode, 200);
});

test('linking to an unverified account removes the password and sessions that whoever registered it set', async (t) => {
  const sub = newSub();
  const email = `${sub}@example.com`;
  // Someone registered the address before its owner ever signed in, and never verified it.
  const reg = await gw.server.inject({ method: 'POST', url: '/auth/register', payload: { email, password: 'squatter password' } });
  const squatter = await gw.server.inject({ method: 'POST', url: '/auth/login', payload: { email, password: 'squatter password' } });
  const squatterToken = (squatter.result as Session).access_token;
  op.accounts.set(sub, { email, email_verified: true });
  const { res } = await signInThroughBrowser(sub);
  t.is(res.statusCode, 200, res.payload);
  const owner = await me((res.result as Session).access_token);
  t.is(owner.user.id, (reg.result as { id: number }).id);
  t.true(owner.user.email_verified);
  t.is((await me(squatterToken)).status, 401);
  t.is((await gw.server.inject({ method: 'POST', url: '/auth/login', payload: { email, password: 'squatter password' } })).statusCode, 401);
});

test('linking to an unverified account also takes back every API key, OAuth client and token, and the webhook secret', async (t) => {
  const sub = newSub();
  const email = `${sub}@example.com`;
  await gw.server.inject({ method: 'POST', url: '/auth/register', payload: { email, password: 'squatter password' } });
  const login = await gw.server.inject({ method: 'POST', url: '/auth/login', payload: { email, password: 'squatter password' } });
  const squatter = { authorization: `Bearer ${(login.result as Session).access_token}` };
  const keys: string[] = [];
  for (const isTest of [false, true]) {
    const k = await gw.server.inject({ method: 'POST', url: '/api/v1/keys', headers: squatter, payload: { name: 'planted', is_test: isTest } });
    keys.push((k.result as { key: string }).key);
  }
  const client = (await gw.server.inject({ method: 'POST', url: '/oauth/clients', headers: squatter, payload: { name: 'planted', scopes: ['keys:manage', 'account:read'] } })).result as { client_id: string; client_secret: string };
  const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
  const tokenRequest = () => gw.server.inject({ method: 'POST', url: '/oauth/token', headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials' });
  const token = (JSON.parse((await tokenRequest()).payload) as { access_token: string }).access_token;
  await gw.server.inject({ method: 'POST', url: '/app/webhook_secret/rotate', headers: squatter });
  const planted = (await gw.server.inject({ method: 'GET', url: '/app/webhook_secret', headers: squatter })).result as { secret: string };
  for (const key of keys) t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': key } })).statusCode, 200);
  t.is((await me(token)).status, 200);

  op.accounts.set(sub, { email, email_verified: true });
  const { res } = await signInThroughBrowser(sub);
  t.is(res.statusCode, 200, res.payload);
  const owner = { authorization: `Bearer ${(res.result as Session).access_token}` };
  for (const key of keys) t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': key } })).statusCode, 401);
  t.is((await me(token)).status, 401);
  t.is((await tokenRequest()).statusCode, 401);
  t.deepEqual((await gw.server.inject({ method: 'GET', url: '/app/get_user_keys', headers: owner })).result, []);
  t.deepEqual((await gw.server.inject({ method: 'GET', url: '/oauth/clients', headers: owner })).result, []);
  // a new signing secret, and neither old one signs any more (no overlap)
  const now = (await gw.server.inject({ method: 'GET', url: '/app/webhook_secret', headers: owner })).result as { secret: string; previous: unknown[] };
  t.not(now.secret, planted.secret);
  t.deepEqual(now.previous, []);
});

test('linking to a verified account keeps its API keys', async (t) => {
  const sub = newSub();
  const email = `${sub}@example.com`;
  const reg = await gw.server.inject({ method: 'POST', url: '/auth/register', payload: { email, password: 'my own password' } });
  await gw.app.db('users').where({ id: (reg.result as { id: number }).id }).update({ email_verified: true });
  const login = await gw.server.inject({ method: 'POST', url: '/auth/login', payload: { email, password: 'my own password' } });
  const k = await gw.server.inject({ method: 'POST', url: '/api/v1/keys', headers: { authorization: `Bearer ${(login.result as Session).access_token}` }, payload: { name: 'mine' } });
  op.accounts.set(sub, { email, email_verified: true });
  t.is((await signInThroughBrowser(sub)).res.statusCode, 200);
  t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': (k.result as { key: string }).key } })).statusCode, 200);
});

test('the sign-up credit comes with an email Google verified, once per account', async (t) => {
  const balance = async (token: string) => ((await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: { authorization: `Bearer ${token}` } })).result as { balance: number }).balance;
  // A new account with a verified email: credited once, however often it signs in.
  const sub = newSub();
  op.accounts.set(sub, { email: `${sub}@example.com`, email_verified: true });
  const first = await signInThroughBrowser(sub);
  t.is(first.res.statusCode, 200, first.res.payload);
  t.is(await balance((first.res.result as Session).access_token), 300);
  const again = await signInThroughBrowser(sub);
  t.is(await balance((again.res.result as Session).access_token), 300);
  // An unverified Google email: no credit until the address is verified.
  const unverified = newSub();
  op.accounts.set(unverified, { email: `${unverified}@example.com`, email_verified: false });
  const u = await signInThroughBrowser(unverified);
  t.is(u.res.statusCode, 200, u.res.payload);
  t.is(await balance((u.res.result as Session).access_token), 0);
  // A registered, never verified account that Google links: credited when linked, and only then.
  const linked = newSub();
  const email = `${linked}@example.com`;
  t.is((await gw.server.inject({ method: 'POST', url: '/auth/register', payload: { email, password: 'a long password' } })).statusCode, 201);
  op.accounts.set(linked, { email, email_verified: true });
  const l = await signInThroughBrowser(linked);
  t.is(l.res.statusCode, 200, l.res.payload);
  t.is(await balance((l.res.result as Session).access_token), 300);
  const userId = (await me((l.res.result as Session).access_token)).user.id;
  t.is((await gw.app.db('credit_transactions').where({ user_id: userId, kind: 'signup' })).length, 1);
});

test('an email Google has not verified never links to an existing account', async (t) => {
  const sub = newSub();
  const email = `${sub}@example.com`;
  await gw.server.inject({ method: 'POST', url: '/auth/register', payload: { email, password: 'a real password' } });
  op.accounts.set(sub, { email, email_verified: false });
  const { res } = await signInThroughBrowser(sub);
  t.is(res.statusCode, 409);
  t.is(await gw.app.db('user_identities').where({ subject: sub }).first(), undefined);
});

test('a state is single use: replaying a callback is 400, and so are unknown states', async (t) => {
  const sub = newSub();
  op.accounts.set(sub, { email: `${sub}@example.com`, email_verified: true });
  const { back, res } = await signInThroughBrowser(sub);
  t.is(res.statusCode, 200, res.payload);
  const replay = await gw.server.inject({ method: 'GET', url: `/auth/google_callback${back.search}` });
  t.is(replay.statusCode, 400);
  t.regex((replay.result as { detail: string }).detail, /state/);
  const forged = new URLSearchParams(back.search);
  forged.set('state', 'x'.repeat(43));
  t.is((await gw.server.inject({ method: 'GET', url: `/auth/google_callback?${forged.toString()}` })).statusCode, 400);
});

test.serial('a state older than 10 minutes is 400', async (t) => {
  const sub = newSub();
  op.accounts.set(sub, { email: `${sub}@example.com`, email_verified: true });
  const back = await op.authorize((await googleUrl()).href, sub);
  offsetMs = 10 * 60 * 1000 + 1;
  try {
    const res = await gw.server.inject({ method: 'GET', url: `/auth/google_callback${back.search}` });
    t.is(res.statusCode, 400);
  } finally {
    offsetMs = 0;
  }
});

test('a callback whose code the provider refuses is 401, and an error from the provider is 401', async (t) => {
  const sub = newSub();
  op.accounts.set(sub, { email: `${sub}@example.com`, email_verified: true });
  const back = await op.authorize((await googleUrl()).href, sub);
  const tampered = new URLSearchParams(back.search);
  tampered.set('code', 'not-the-code-the-provider-issued');
  const res = await gw.server.inject({ method: 'GET', url: `/auth/google_callback?${tampered.toString()}` });
  t.is(res.statusCode, 401);
  t.false(res.payload.includes('not-the-code'));

  const url = await googleUrl();
  const denied = new URLSearchParams({ state: url.searchParams.get('state')!, error: 'access_denied', iss: op.issuer });
  const refused = await gw.server.inject({ method: 'GET', url: `/auth/google_callback?${denied.toString()}` });
  t.is(refused.statusCode, 401);
  t.regex((refused.result as { detail: string }).detail, /access_denied/);
});

test('google/mobile accepts an ID token the provider issued for this gateway', async (t) => {
  const sub = newSub();
  op.accounts.set(sub, { email: `${sub}@example.com`, email_verified: true });
  const idToken = await op.idTokenFor(WEB, sub);
  const res = await gw.server.inject({ method: 'POST', url: '/auth/google/mobile', payload: { id_token: idToken } });
  t.is(res.statusCode, 200, res.payload);
  const who = await me((res.result as Session).access_token);
  t.is(who.user.email, `${sub}@example.com`);
  // The same Google identity through the browser flow lands in the same account.
  const { res: web } = await signInThroughBrowser(sub);
  t.is((await me((web.result as Session).access_token)).user.id, who.user.id);
});

test('google/mobile refuses a token for another audience, signed by another key, expired or from another issuer', async (t) => {
  const sub = newSub();
  op.accounts.set(sub, { email: `${sub}@example.com`, email_verified: true });
  const mobile = (id_token: string) => gw.server.inject({ method: 'POST', url: '/auth/google/mobile', payload: { id_token } });
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: op.issuer, sub, aud: WEB.client_id, iat: now, exp: now + 600, email: `${sub}@example.com`, email_verified: true };

  // Control: a token minted with the provider's own key and these claims is accepted.
  t.is((await mobile(signJwt(claims, op.signingKey, op.kid))).statusCode, 200);

  const wrongAudience = await op.idTokenFor(OTHER, sub);
  const forger = rsaKey(op.kid);
  const cases: Array<[string, string]> = [
    ['a real token for another app', wrongAudience],
    ['signed by another key under the same key id', signJwt(claims, forger.key, op.kid)],
    ['signed by an unknown key', signJwt(claims, forger.key, 'unknown-kid')],
    ['expired', signJwt({ ...claims, iat: now - 7200, exp: now - 3600 }, op.signingKey, op.kid)],
    ['from another issuer', signJwt({ ...claims, iss: 'https://accounts.example.net' }, op.signingKey, op.kid)],
    ['for another audience', signJwt({ ...claims, aud: OTHER.client_id }, op.signingKey, op.kid)],
    ['unsigned (alg none)', `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`],
    ['not a JWT', 'not-a-jwt'],
  ];
  for (const [what, token] of cases) {
    const res = await mobile(token);
    t.is(res.statusCode, 401, `${what}: ${res.payload}`);
    t.false(res.payload.includes(token), what);
  }
});

test('google/mobile refuses with 401, not 500, a signed token whose subject or email is longer than OpenID and mail allow', async (t) => {
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: op.issuer, aud: WEB.client_id, iat: now, exp: now + 600, email_verified: true };
  const cases: Array<[string, Record<string, unknown>]> = [
    // OpenID Connect Core 1.0 section 2: sub "MUST NOT exceed 255 ASCII characters"
    ['a 256-character subject', { ...claims, sub: 's'.repeat(256), email: `${newSub()}@example.com` }],
    // RFC 5321 section 4.5.3.1: 64 for the local part, 255 for the domain
    ['a 321-character email', { ...claims, sub: newSub(), email: `${'a'.repeat(309)}@example.com` }],
  ];
  for (const [what, c] of cases) {
    const res = await gw.server.inject({ method: 'POST', url: '/auth/google/mobile', payload: { id_token: signJwt(c, op.signingKey, op.kid) } });
    t.is(res.statusCode, 401, `${what}: ${res.payload}`);
  }
  // the longest allowed subject still signs in
  const sub = 's'.repeat(255);
  const ok = await gw.server.inject({ method: 'POST', url: '/auth/google/mobile', payload: { id_token: signJwt({ ...claims, sub, email: `${newSub()}@example.com` }, op.signingKey, op.kid) } });
  t.is(ok.statusCode, 200, ok.payload);
});

test('unconfigured, every Google route answers 503 naming the variables to set', async (t) => {
  const bare = await startGateway({ queue: 'memory' });
  try {
    const detail = 'Google sign-in is not configured on this gateway (set GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET)';
    const url = await bare.server.inject({ method: 'GET', url: '/auth/get-google-url' });
    const callback = await bare.server.inject({ method: 'GET', url: '/auth/google_callback?code=abc&state=def' });
    const mobile = await bare.server.inject({ method: 'POST', url: '/auth/google/mobile', payload: { id_token: 'x.y.z' } });
    for (const res of [url, callback, mobile]) {
      t.is(res.statusCode, 503);
      t.deepEqual(res.result, { detail, code: 'unavailable' });
    }
  } finally {
    await bare.stop();
  }
});

test('an unreachable issuer is 503, not 500', async (t) => {
  const down = await startGateway({
    queue: 'memory',
    env: { GOOGLE_CLIENT_ID: 'x', GOOGLE_CLIENT_SECRET: 'y', GOOGLE_ISSUER: `http://127.0.0.1:${await freePort()}` },
  });
  try {
    const res = await down.server.inject({ method: 'GET', url: '/auth/get-google-url' });
    t.is(res.statusCode, 503);
    t.regex((res.result as { detail: string }).detail, /could not be reached/);
    const mobile = await down.server.inject({ method: 'POST', url: '/auth/google/mobile', payload: { id_token: 'x.y.z' } });
    t.is(mobile.statusCode, 503);
  } finally {
    await down.stop();
  }
});

test('no authorization code, state, ID token or session token reaches the log', async (t) => {
  const sub = newSub();
  op.accounts.set(sub, { email: `${sub}@example.com`, email_verified: true });
  const { back, res } = await signInThroughBrowser(sub);
  t.is(res.statusCode, 200);
  const idToken = await op.idTokenFor(WEB, sub);
  const mobile = await gw.server.inject({ method: 'POST', url: '/auth/google/mobile', payload: { id_token: idToken } });
  const refused = await gw.server.inject({ method: 'POST', url: '/auth/google/mobile', payload: { id_token: signJwt({ sub }, rsaKey('k').key, 'k') } });
  t.is(refused.statusCode, 401);
  const secrets = [back.searchParams.get('code')!, back.searchParams.get('state')!, idToken, (res.result as Session).access_token, (mobile.result as Session).access_token];
  const lines = logLines.join('');
  t.true(lines.includes(`"event":"signed_in"`));
  for (const secret of secrets) t.false(lines.includes(secret), secret.slice(0, 8));
});

test('in a whitelabel studio, Google sign-in creates and finds only that studio\'s accounts; outside it, the studio account is refused', async (t) => {
  const owner = await newAccount(gw, 0);
  const slug = `g-${crypto.randomBytes(4).toString('hex')}`;
  const created = await gw.server.inject({ method: 'POST', url: '/app/studios', headers: { authorization: `Bearer ${owner.session}` }, payload: { slug, name: 'Google studio', allowed_models: ['canvas-v1-fast-text-to-image'], payer_mode: 'end_user_pays' } });
  t.is(created.statusCode, 201, created.payload);
  const studioId = (created.result as { id: number }).id;
  const inStudio = { 'x-whitelabel-studio': slug };

  // the browser flow started in the studio (Google's redirect back carries no studio header)
  const sub = newSub();
  op.accounts.set(sub, { email: `${sub}@example.com`, email_verified: true });
  const back = await op.authorize((await googleUrl(inStudio)).href, sub);
  const res = await gw.server.inject({ method: 'GET', url: `/auth/google_callback${back.search}` });
  t.is(res.statusCode, 200, res.payload);
  const row = await gw.app.db('users').where({ email: `${sub}@example.com` }).first();
  t.is(Number(row.studio_id), studioId, 'the new account belongs to the studio');
  const token = (res.result as Session).access_token;
  t.is((await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: { authorization: `Bearer ${token}`, ...inStudio } })).statusCode, 200);

  // the same Google identity outside the studio: 401, no session
  const idToken = await op.idTokenFor(WEB, sub);
  const outside = await gw.server.inject({ method: 'POST', url: '/auth/google/mobile', payload: { id_token: idToken } });
  t.is(outside.statusCode, 401, outside.payload);
  // in the studio it signs in
  const inside = await gw.server.inject({ method: 'POST', url: '/auth/google/mobile', headers: inStudio, payload: { id_token: await op.idTokenFor(WEB, sub) } });
  t.is(inside.statusCode, 200, inside.payload);

  // an account outside every studio cannot be signed into (or linked) from the studio
  const plain = newSub();
  op.accounts.set(plain, { email: `${plain}@example.com`, email_verified: true });
  t.is((await gw.server.inject({ method: 'POST', url: '/auth/google/mobile', payload: { id_token: await op.idTokenFor(WEB, plain) } })).statusCode, 200);
  const refused = await gw.server.inject({ method: 'POST', url: '/auth/google/mobile', headers: inStudio, payload: { id_token: await op.idTokenFor(WEB, plain) } });
  t.is(refused.statusCode, 401, refused.payload);
  t.is((await gw.app.db('users').where({ email: `${plain}@example.com` }).first()).studio_id, null);
});


/** The Set-Cookie values of an answer. */
function setCookies(res: { headers: Record<string, unknown> }): string[] {
  return ([] as string[]).concat((res.headers['set-cookie'] as string[] | string | undefined) ?? []);
}

/** The `name=value` pairs of Set-Cookie values that set (not clear) a cookie, as a Cookie header. */
function cookieHeader(set: string[]): string {
  return set.map((c) => c.split(';')[0]!).filter((p) => !p.endsWith('=')).join('; ');
}

test('a cookie sign-in ends only in the browser that started it: its callback opened elsewhere is 400 and sets no session', async (t) => {
  const sub = newSub();
  op.accounts.set(sub, { email: `${sub}@example.com`, email_verified: true });
  // someone starts a dashboard sign-in with their own Google account and stops before the callback
  const start = await gw.server.inject({ method: 'GET', url: '/auth/get-google-url?session=cookie' });
  t.is(start.statusCode, 200, start.payload);
  const back = await op.authorize((start.result as { url: string }).url, sub);
  // ...then sends the callback address to someone else, whose browser never started that sign-in
  const elsewhere = await gw.server.inject({ method: 'GET', url: `/auth/google_callback${back.search}` });
  t.is(elsewhere.statusCode, 400, elsewhere.payload);
  t.regex((elsewhere.result as { detail: string }).detail, /not started in this browser/);
  t.false(setCookies(elsewhere).some((c) => /^mg_session=mgs_/.test(c)), 'no session cookie for the other browser');
  t.falsy(await gw.app.db('users').where({ email: `${sub}@example.com` }).first(), 'nothing was signed in to');
  // a browser that started a sign-in (it holds the cookie the start set) finishes it, and the cookie goes
  const mine = await gw.server.inject({ method: 'GET', url: '/auth/get-google-url?session=cookie' });
  const started = setCookies(mine);
  t.regex(started.find((c) => c.startsWith('mg_google_state=')) ?? '', /HttpOnly.*SameSite=Lax|SameSite=Lax.*HttpOnly/);
  const mineBack = await op.authorize((mine.result as { url: string }).url, sub);
  const own = await gw.server.inject({ method: 'GET', url: `/auth/google_callback${mineBack.search}`, headers: { cookie: cookieHeader(started) } });
  t.is(own.statusCode, 302, own.payload);
  t.true(setCookies(own).some((c) => /^mg_session=mgs_/.test(c)));
  t.true(setCookies(own).some((c) => /^mg_google_state=;.*Max-Age=0/.test(c)));
});

test('on a studio\'s own domain the hand-off sets the session only in the browser that started the sign-in there', async (t) => {
  const owner = await newAccount(gw, 0);
  const slug = `h-${crypto.randomBytes(4).toString('hex')}`;
  const domain = `${slug}.studio.test`;
  const created = await gw.server.inject({ method: 'POST', url: '/app/studios', headers: { authorization: `Bearer ${owner.session}` }, payload: { slug, name: 'Hand-off studio', domains: [domain], allowed_models: ['canvas-v1-fast-text-to-image'], payer_mode: 'end_user_pays' } });
  t.is(created.statusCode, 201, created.payload);
  publishChallenges(dns, created.result as never);
  const verified = await gw.server.inject({ method: 'POST', url: `/app/studios/${(created.result as { id: number }).id}/verify-domains`, headers: { authorization: `Bearer ${owner.session}` } });
  t.is(verified.statusCode, 200, verified.payload);
  const sub = newSub();
  op.accounts.set(sub, { email: `${sub}@example.com`, email_verified: true });
  const start = await gw.server.inject({ method: 'GET', url: '/auth/get-google-url?session=cookie', headers: { host: domain } });
  t.is(start.statusCode, 200, start.payload);
  const back = await op.authorize((start.result as { url: string }).url, sub);
  // Google returns to the gateway's address, which hands over to the studio's domain
  const callback = await gw.server.inject({ method: 'GET', url: `/auth/google_callback${back.search}` });
  t.is(callback.statusCode, 302, callback.payload);
  const handoff = new URL(callback.headers.location as string);
  t.is(handoff.hostname, domain);
  // the hand-off address opened by another browser: 400, no session
  const elsewhere = await gw.server.inject({ method: 'GET', url: handoff.pathname + handoff.search, headers: { host: domain } });
  t.is(elsewhere.statusCode, 400, elsewhere.payload);
  t.false(setCookies(elsewhere).some((c) => c.startsWith(`mg_session_${slug}=mgs_`)));
  // the browser that started on the studio's domain gets the studio's session
  const own = await gw.server.inject({ method: 'GET', url: handoff.pathname + handoff.search, headers: { host: domain, cookie: cookieHeader(setCookies(start)) } });
  t.is(own.statusCode, 302, own.payload);
  t.true(setCookies(own).some((c) => c.startsWith(`mg_session_${slug}=mgs_`)));
  // and only once, even with the state cookie kept
  const again = await gw.server.inject({ method: 'GET', url: handoff.pathname + handoff.search, headers: { host: domain, cookie: cookieHeader(setCookies(start)) } });
  t.is(again.statusCode, 400, again.payload);
  t.regex((again.result as { detail: string }).detail, /already used/);
});

test('starting a Google sign-in is limited per client address: past the budget 429 with Retry-After, and no state is kept', async (t) => {
  // a window that starts one second before the gateway's clock, so the test never straddles two
  const windowMs = 900_000;
  const realStart = Date.now();
  const clockStart = realStart - (realStart % windowMs) + windowMs + 1000;
  const limited = await startGateway({
    queue: 'memory',
    clock: () => clockStart + (Date.now() - realStart),
    env: { GOOGLE_CLIENT_ID: WEB.client_id, GOOGLE_CLIENT_SECRET: WEB.client_secret, GOOGLE_ISSUER: op.issuer, AUTH_RATE_PER_ADDRESS: '3' },
  });
  try {
    const start = (remoteAddress: string) => limited.server.inject({ method: 'GET', url: '/auth/get-google-url', remoteAddress });
    for (let i = 0; i < 3; i++) t.is((await start('10.40.0.1')).statusCode, 200);
    const states = Number((await limited.app.db('oauth_states').count({ n: '*' }).first<{ n: number | string }>())!.n);
    const refused = await start('10.40.0.1');
    t.is(refused.statusCode, 429);
    const retryAfter = Number(refused.headers['retry-after']);
    t.true(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 900, String(refused.headers['retry-after']));
    t.deepEqual(refused.result, { detail: `too many attempts, try again in ${retryAfter} seconds`, code: 'rate_limited' });
    t.is(Number((await limited.app.db('oauth_states').count({ n: '*' }).first<{ n: number | string }>())!.n), states, 'a refused start keeps no state');
    // another client is not held back
    t.is((await start('10.40.0.2')).statusCode, 200);
  } finally {
    await limited.stop();
  }
});
