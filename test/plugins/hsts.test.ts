// HSTS: with an https PUBLIC_URL every answer carries `Strict-Transport-Security: max-age=31536000`
// (no includeSubDomains, no preload), whatever route it took: a handler's, a refusal, an unknown
// path, a preflight, a static file, the OAuth token endpoint (written by oidc-provider); with an
// http one (the embedded default) none does.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { basic, createClient, tokenRequest } from '../helpers/oauth.ts';

let secure: TestGateway;
let plain: TestGateway;

test.before(async () => {
  [secure, plain] = await Promise.all([
    startGateway({ db: 'sqlite', queue: 'memory', env: { PUBLIC_URL: 'https://gateway.test', CORS_ORIGINS: 'https://app.test' } }),
    startGateway({ db: 'sqlite', queue: 'memory', env: { PUBLIC_URL: 'http://gateway.test', CORS_ORIGINS: 'https://app.test' } }),
  ]);
});
test.after.always(async () => {
  await Promise.all([secure?.stop(), plain?.stop()]);
});

/** One answer of each kind, with its status and Strict-Transport-Security header. */
async function answers(gw: TestGateway) {
  const acct = await newAccount(gw);
  const inject = async (what: string, opts: Parameters<TestGateway['server']['inject']>[0]) => {
    const res = await gw.server.inject(opts);
    return { what, status: res.statusCode, hsts: res.headers['strict-transport-security'] };
  };
  const client = await createClient(gw, acct.session, ['account:read']);
  const token = await tokenRequest(gw, { grant_type: 'client_credentials' }, { authorization: basic(client.client_id, client.client_secret) });
  return [
    await inject('a handler', { method: 'GET', url: '/account/balance', headers: { 'x-api-key': acct.liveKey } }),
    await inject('a refusal', { method: 'GET', url: '/account/balance' }),
    await inject('an unknown path', { method: 'GET', url: '/no/such/path' }),
    await inject('a public route', { method: 'GET', url: '/livez' }),
    await inject('a preflight', { method: 'OPTIONS', url: '/account/balance', headers: { origin: 'https://app.test', 'access-control-request-method': 'GET' } }),
    await inject('the dashboard', { method: 'GET', url: '/dashboard' }),
    await inject('the spec', { method: 'GET', url: '/openapi.json' }),
    { what: 'the OAuth token endpoint', status: token.status, hsts: token.headers['strict-transport-security'] },
  ];
}

test('with an https PUBLIC_URL every answer carries Strict-Transport-Security for a year, without includeSubDomains or preload', async (t) => {
  for (const a of await answers(secure)) {
    t.true(a.status > 0, a.what);
    t.is(a.hsts, 'max-age=31536000', `${a.what} (${a.status})`);
  }
});

test('with an http PUBLIC_URL (the embedded default) no answer carries it', async (t) => {
  for (const a of await answers(plain)) t.is(a.hsts, undefined, `${a.what} (${a.status})`);
});
