// A real OpenID provider (oidc-provider) on 127.0.0.1 standing in for Google. Interactions
// are finished programmatically: the test names the account that "signs in" next, and the
// provider's own login/consent pages are never used.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import * as oidc from 'openid-client';

export interface TestAccount {
  email?: string;
  email_verified?: boolean;
}

export interface TestClient {
  client_id: string;
  client_secret: string;
  redirect_uri: string;
}

export interface LocalProvider {
  issuer: string;
  /** the provider's signing key (private), for tests that mint their own tokens */
  signingKey: crypto.KeyObject;
  kid: string;
  accounts: Map<string, TestAccount>;
  /** follows an authorization URL as account `sub` and returns the redirect back to the client */
  authorize(authorizationUrl: string, sub: string): Promise<URL>;
  /** an ID token for `client`, obtained the way an app does: a code flow and a code exchange */
  idTokenFor(client: TestClient, sub: string): Promise<string>;
  close(): Promise<void>;
}

export function rsaKey(kid: string): { key: crypto.KeyObject; jwk: crypto.JsonWebKey & { kid: string } } {
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { key: privateKey, jwk: { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' } };
}

/** An RS256 JWT, for tokens the provider would never issue (wrong key, expired, other issuer). */
export function signJwt(payload: Record<string, unknown>, key: crypto.KeyObject, kid: string): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const input = `${part({ alg: 'RS256', typ: 'JWT', kid })}.${part(payload)}`;
  return `${input}.${crypto.sign('sha256', Buffer.from(input), key).toString('base64url')}`;
}

/** The provider's storage, in memory (its own default works too, but announces itself on every start). */
function memoryAdapter(): (name: string) => Adapter {
  const store = new Map<string, AdapterPayload>();
  return (name) => {
    const key = (id: string) => `${name}:${id}`;
    return {
      async upsert(id, payload) { store.set(key(id), payload); },
      async find(id) { return store.get(key(id)); },
      async findByUid(uid) { return [...store.entries()].find(([k, v]) => k.startsWith(`${name}:`) && v.uid === uid)?.[1]; },
      async findByUserCode(code) { return [...store.entries()].find(([k, v]) => k.startsWith(`${name}:`) && v.userCode === code)?.[1]; },
      async consume(id) { const p = store.get(key(id)); if (p) p.consumed = Math.floor(Date.now() / 1000); },
      async destroy(id) { store.delete(key(id)); },
      async revokeByGrantId(grantId) { for (const [k, v] of store) if (v.grantId === grantId) store.delete(k); },
    };
  };
}

export async function startProvider(clients: TestClient[]): Promise<LocalProvider> {
  let handler: http.RequestListener = (_req, res) => res.writeHead(503).end();
  const server = http.createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const kid = 'test-key-1';
  const { key, jwk } = rsaKey(kid);
  const accounts = new Map<string, TestAccount>();

  const provider = new Provider(issuer, {
    clients: clients.map((c) => ({
      client_id: c.client_id,
      client_secret: c.client_secret,
      redirect_uris: [c.redirect_uri],
      response_types: ['code'],
      grant_types: ['authorization_code'],
      token_endpoint_auth_method: 'client_secret_post',
    })),
    jwks: { keys: [jwk] },
    adapter: memoryAdapter(),
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 3600, IdToken: 600, Interaction: 600, Session: 3600 },
    cookies: { keys: [crypto.randomBytes(32).toString('hex')] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    // Like Google: the ID token itself carries the email claims.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx, sub) {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: async () => ({ sub, ...account }) };
    },
  });
  // Finishes every interaction at once as the account named by `login_hint`, with consent to what was asked.
  provider.use(async (ctx, next) => {
    if (!ctx.path.startsWith('/interaction/')) return next();
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const accountId = String(details.params.login_hint);
    const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
    grant.addOIDCScope(String(details.params.scope));
    const grantId = await grant.save();
    const to = await provider.interactionResult(ctx.req, ctx.res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
    ctx.status = 303;
    ctx.redirect(to);
  });
  handler = provider.callback();

  async function authorize(authorizationUrl: string, sub: string): Promise<URL> {
    const jar = new Map<string, string>();
    // The user who signs in at the provider, per request (tests run concurrently).
    const start = new URL(authorizationUrl);
    start.searchParams.set('login_hint', sub);
    let url = start.href;
    for (let hop = 0; hop < 10; hop++) {
      const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
      for (const c of res.headers.getSetCookie()) {
        const pair = c.split(';')[0]!;
        jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
      }
      const location = res.headers.get('location');
      if (!location) throw new Error(`the provider stopped with ${res.status}: ${await res.text()}`);
      const next = new URL(location, url);
      if (next.origin !== issuer) return next;
      url = next.href;
    }
    throw new Error('too many redirects');
  }

  return {
    issuer,
    signingKey: key,
    kid,
    accounts,
    authorize,
    async idTokenFor(client, sub) {
      const config = await oidc.discovery(new URL(issuer), client.client_id, undefined, oidc.ClientSecretPost(client.client_secret), { execute: [oidc.allowInsecureRequests] });
      const verifier = oidc.randomPKCECodeVerifier();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: client.redirect_uri, scope: 'openid email', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
      });
      const back = await authorize(url.href, sub);
      const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier, idTokenExpected: true });
      return tokens.id_token!;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
