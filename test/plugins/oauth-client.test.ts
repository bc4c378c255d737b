// oauth4webapi as a real client against the gateway listening on a port: strict RFC 8414 and
// RFC 9728 discovery, a client-credentials grant, and a protected call, all made by the library.
import test from 'ava';
import net from 'node:net';
import * as oauth from 'oauth4webapi';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import { createClient } from '../helpers/oauth.ts';

let gw: TestGateway;
let acct: Account;
let base: string;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

test.before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  gw = await startGateway({ queue: 'memory', env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base } });
  await gw.server.start();
  acct = await newAccount(gw, 1_000);
});
test.after.always(async () => {
  await gw?.stop();
});

// The gateway under test speaks plain HTTP on loopback; production issuers are https.
const insecure = { [oauth.allowInsecureRequests]: true } as const;

test('oauth4webapi discovers both metadata documents, obtains a token with client_secret_basic and calls a protected route', async (t) => {
  const issuer = new URL(base);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  t.is(as.issuer, base);
  t.is(as.token_endpoint, `${base}/oauth/token`);
  const rs = await oauth.processResourceDiscoveryResponse(issuer, await oauth.resourceDiscoveryRequest(issuer, insecure));
  t.deepEqual(rs.authorization_servers, [base]);
  t.true(rs.scopes_supported?.includes('account:read'));

  const created = await createClient(gw, acct.session, ['account:read', 'generate:read']);
  const client: oauth.Client = { client_id: created.client_id };
  const response = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic(created.client_secret), new URLSearchParams({ scope: 'account:read' }), insecure);
  const result = await oauth.processClientCredentialsResponse(as, client, response);
  t.is(result.token_type, 'bearer');
  t.is(result.expires_in, 3600);
  t.is(result.scope, 'account:read');

  const balance = await oauth.protectedResourceRequest(result.access_token, 'GET', new URL(`${base}/account/balance`), undefined, undefined, insecure);
  t.is(balance.status, 200);
  t.is(((await balance.json()) as { balance: number }).balance, 1_000);

  // The refusal of a scope it lacks is a challenge the library can read.
  const refused = await t.throwsAsync(oauth.protectedResourceRequest(result.access_token, 'GET', new URL(`${base}/app/get_user_keys`), undefined, undefined, insecure));
  t.true(refused instanceof oauth.WWWAuthenticateChallengeError);
  const challengeError = refused as oauth.WWWAuthenticateChallengeError;
  t.is(challengeError.status, 403);
  const [challenge] = challengeError.cause;
  t.is(challenge?.scheme, 'bearer');
  t.is(challenge?.parameters.error, 'insufficient_scope');
  t.is(challenge?.parameters.scope, 'keys:manage');
  t.is(challenge?.parameters.resource_metadata, `${base}/.well-known/oauth-protected-resource`);
});

test('oauth4webapi authenticates with client_secret_post too, and reads invalid_client as an OAuth error', async (t) => {
  const issuer = new URL(base);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  const created = await createClient(gw, acct.session, ['generate:read']);
  const client: oauth.Client = { client_id: created.client_id };
  const ok = await oauth.processClientCredentialsResponse(as, client,
    await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretPost(created.client_secret), new URLSearchParams(), insecure));
  t.is(ok.scope, 'generate:read');
  const bad = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretPost('mgcs_wrong'), new URLSearchParams(), insecure);
  const err = await t.throwsAsync(oauth.processClientCredentialsResponse(as, client, bad));
  t.is((err as oauth.ResponseBodyError).error, 'invalid_client');
});
