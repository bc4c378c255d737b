// OAuth 2.0 client credentials (interface spec 5.2; RFC 6749 section 4.4).
// oidc-provider is the authorization server: it owns POST /oauth/token (client authentication,
// narrowing, token issue) and stores its tokens in the database (db/oauth-provider-store.ts).
// This credential plugin mounts that one endpoint inside hapi and implements the spec's OAuth2
// security scheme with the 'oauth' strategy, which accepts its access tokens.
//
// The provider, and oidc-provider itself (some 300 ms to import), are made by the first request
// that needs them (a token request, or a bearer token that is not a session token), not at
// start-up: most processes never see one.
import crypto from 'node:crypto';
import { IncomingMessage } from 'node:http';
import Boom from '@hapi/boom';
import type { Request, ResponseToolkit, Server } from '@hapi/hapi';
import type Provider from 'oidc-provider';
import type { Configuration } from 'oidc-provider';
import type { App } from '../lib/context.ts';
import { findLiveOAuthClient, findTokenClient } from '../db/oauth-clients.ts';
import { providerAdapter } from '../db/oauth-provider-store.ts';
import { SESSION_PREFIX, sha256Hex } from '../lib/secrets.ts';
import type { Caller } from '../lib/context.ts';
import { CODE_SCOPES as ALL_SCOPES } from '../spec/scopes.ts';
import type { Scope } from '../spec/scopes.ts';
import { bearerChallenge } from '../lib/oauth-challenge.ts';
import { onFirstUse } from '../lib/first-use.ts';
import type { CredentialPlugin } from './spec-routes.ts';
import { oauthTokenPath } from '../spec/scopes.ts';

const TOKEN_TTL_SECONDS = 3600;

function isScope(s: string): s is Scope {
  return (ALL_SCOPES as readonly string[]).includes(s);
}

function oauthError(h: ResponseToolkit, status: number, error: string, description: string) {
  return h.response({ error, error_description: description }).code(status).header('cache-control', 'no-store').type('application/json');
}

function isStringRecord(v: unknown): v is Record<string, string> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');
}

/** client_id from the body or from HTTP Basic (RFC 6749 2.3.1: form-encoded, then base64). */
function presentedClientId(params: URLSearchParams, authorization: string | undefined): string | null {
  const fromBody = params.get('client_id');
  if (fromBody) return fromBody;
  const m = typeof authorization === 'string' ? /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(authorization) : null;
  if (!m) return null;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i <= 0) return null;
  try {
    return decodeURIComponent(decoded.slice(0, i).replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

async function signingKeys(): Promise<{ keys: crypto.JsonWebKey[] }> {
  // Access tokens are opaque (looked up in the database), so nothing this provider signs has to
  // verify on another process: a key per process, generated when the provider is made, is enough.
  // oidc-provider needs one signing key to start.
  const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' });
  return { keys: [{ ...jwk, kid: crypto.randomBytes(8).toString('hex'), alg: 'ES256', use: 'sig' }] };
}

async function createProvider(app: App, tokenPath: string): Promise<Provider> {
  const configuration: Configuration = {
    adapter: providerAdapter(app.db),
    clients: [],
    jwks: (await signingKeys()) as Configuration['jwks'],
    scopes: [...ALL_SCOPES],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    responseTypes: [],
    ttl: { ClientCredentials: TOKEN_TTL_SECONDS },
    routes: { token: tokenPath },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
    // no ID tokens are ever issued, but client metadata is validated against the signing keys
    clientDefaults: { id_token_signed_response_alg: 'ES256', grant_types: ['client_credentials'], response_types: [] },
    features: {
      clientCredentials: { enabled: true },
      // On by default in oidc-provider: a DPoP proof would bind the token to the client's key
      // (token_type DPoP), but the resource server takes every token as a plain Bearer token and
      // checks no proof, so the binding would be a promise nobody keeps. Without it the answer is
      // token_type Bearer (RFC 9449 section 5), which tells the client its token is not bound.
      dPoP: { enabled: false },
      devInteractions: { enabled: false },
      introspection: { enabled: false },
      revocation: { enabled: false },
      registration: { enabled: false },
      userinfo: { enabled: false },
      resourceIndicators: { enabled: false },
    },
  };
  const { default: OidcProvider } = await import('oidc-provider');
  const provider = new OidcProvider(app.config.publicUrl, configuration);
  // Secrets are stored as SHA-256 digests (they are 256-bit random, like API keys), so the
  // client metadata's client_secret is that digest: hash what the client sent and compare the
  // digests in constant time. Undocumented hook; see LIBRARY-NOTES.
  provider.Client.prototype.compareClientSecret = function compareClientSecret(actual: string): boolean {
    const stored = Buffer.from(String(this.clientSecret ?? ''), 'hex');
    const presented = Buffer.from(sha256Hex(actual), 'hex');
    return stored.length === presented.length && crypto.timingSafeEqual(stored, presented);
  };
  provider.on('server_error', (_ctx: unknown, err: unknown) => app.log.error({ err }, 'oauth token endpoint failed'));
  return provider;
}

/**
 * An unread copy of the token request carrying `body`, for oidc-provider: hapi has read the
 * original stream, and the provider would otherwise fall back to `req.body` and print its
 * "already parsed request body" warning to the console (a non-JSON line in the log).
 */
function unreadCopy(req: IncomingMessage, body: string): IncomingMessage {
  const copy = new IncomingMessage(req.socket);
  copy.method = req.method!;
  copy.url = req.url!;
  copy.httpVersion = req.httpVersion;
  copy.httpVersionMajor = req.httpVersionMajor;
  copy.httpVersionMinor = req.httpVersionMinor;
  copy.headers = { ...req.headers, 'content-length': String(Buffer.byteLength(body)) };
  delete copy.headers['transfer-encoding'];
  // Complete: once read, the copy is destroyed, and an incomplete message counts as aborted and
  // destroys its socket, the client's connection.
  copy.complete = true;
  copy.push(body);
  copy.push(null);
  return copy;
}

export const oauthPlugin = {
  name: 'mediagate-oauth',
  dependencies: ['mediagate-errors'],
  securityScheme: 'OAuth2',
  strategy: 'oauth',
  async register(server: Server, { app }: { app: App }) {
    // Served where the spec's OAuth2 scheme says (its tokenUrl), like the metadata handler says.
    const tokenPath = oauthTokenPath(app.spec.document);
    // made once, by the first request that needs it; a failed start is tried again by the next
    const providerStarted = onFirstUse(async () => {
      const provider = await createProvider(app, tokenPath);
      return { provider, callback: provider.callback() };
    });
    const publicUrl = app.config.publicUrl;

    const invalidToken = (message: string) => {
      const err = Boom.unauthorized(message);
      err.output.payload = { detail: message } as unknown as Boom.Payload;
      err.output.headers['WWW-Authenticate'] = bearerChallenge(publicUrl, { error: 'invalid_token' });
      return err;
    };

    server.auth.scheme('oauth', () => ({
      async authenticate(request: Request, h: ResponseToolkit) {
        const header = request.headers.authorization;
        const m = typeof header === 'string' ? /^Bearer\s+(\S+)$/i.exec(header) : null;
        // Session tokens (mgs_...) belong to the 'session' strategy.
        if (!m || m[1]!.startsWith(SESSION_PREFIX)) return h.unauthenticated(Boom.unauthorized(null, 'Bearer'));
        const { provider } = await providerStarted();
        const token = await provider.ClientCredentials.find(m[1]!);
        // oidc-provider checks expiry against its own clock (Date.now); the gateway's clock decides too.
        if (!token || typeof token.exp !== 'number' || token.exp * 1000 <= app.clock()) throw invalidToken('invalid or expired access token');
        // A deleted client's tokens are destroyed with it; this re-check covers any that survived.
        const found = token.clientId ? await findTokenClient(app.db, token.clientId) : null;
        if (!found) throw invalidToken('the access token\'s client has been revoked');
        // README "Deleting an account": refused while the deletion is pending, as the account's API keys are
        if (found.ownerDeletionPending) throw invalidToken('this account is scheduled for deletion: sign in and cancel the deletion to use its OAuth clients again');
        const { client } = found;
        const scopes = (token.scope ?? '').split(' ').filter((s): s is Scope => isScope(s) && client.allowedScopes.includes(s));
        const caller: Caller = { userId: client.userId, role: 'user', via: 'oauth', apiKeyId: null, isTest: false, scopes };
        return h.authenticated({ credentials: { user: { caller }, scope: [...scopes] } });
      },
    }));
    server.auth.strategy('oauth', 'oauth');

    // The token endpoint. Not generated by spec-routes (x-handled-by: oauth-provider): its errors
    // are RFC 6749 section 5.2 JSON, not the gateway's 422s.
    server.route({
      method: 'POST',
      path: tokenPath,
      options: {
        auth: false,
        payload: { output: 'data', parse: false, maxBytes: app.config.maxBodyBytes },
        handler: async (request: Request, h: ResponseToolkit) => {
          const raw = request.payload instanceof Buffer ? request.payload : Buffer.alloc(0);
          const req = request.raw.req;
          const type = String(request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
          let params: URLSearchParams | null = null;
          if (type === 'application/json') {
            let parsed: unknown;
            try {
              parsed = JSON.parse(raw.toString('utf8'));
            } catch {
              return oauthError(h, 400, 'invalid_request', 'the request body is not valid JSON');
            }
            if (!isStringRecord(parsed)) return oauthError(h, 400, 'invalid_request', 'a JSON body must be an object whose values are strings');
            params = new URLSearchParams(parsed);
          } else if (type === 'application/x-www-form-urlencoded') {
            params = new URLSearchParams(raw.toString('utf8'));
          }
          if (params) {
            const requested = (params.get('scope') ?? '').split(' ').filter(Boolean);
            const unknown = requested.filter((s) => !isScope(s));
            if (unknown.length) return oauthError(h, 400, 'invalid_scope', `unknown scope: ${unknown.join(' ')}`);
            if (requested.length === 0 && params.get('grant_type') === 'client_credentials') {
              // No scope means every scope the client is allowed (interface spec 4.1); oidc-provider
              // would issue a token without scopes. Authentication is still the provider's.
              const clientId = presentedClientId(params, request.headers.authorization as string | undefined);
              const client = clientId ? await findLiveOAuthClient(app.db, clientId) : null;
              if (client) params.set('scope', client.allowedScopes.join(' '));
              else params.delete('scope');
            }
            const { callback } = await providerStarted();
            // oidc-provider reads only form bodies: it gets the (re-encoded) body as a form.
            const copy = unreadCopy(req, params.toString());
            copy.headers['content-type'] = 'application/x-www-form-urlencoded';
            await callback(copy, request.raw.res);
          } else {
            const { callback } = await providerStarted();
            await callback(unreadCopy(req, raw.toString('utf8')), request.raw.res);
          }
          return h.abandon;
        },
      },
    });
  },
} satisfies CredentialPlugin;
