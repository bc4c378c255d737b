// Credential plugins, one per kind: each implements one of the spec's securitySchemes with one
// hapi strategy, and says which (`securityScheme`, `strategy`); spec-routes builds its
// scheme -> strategy map from the plugins it is given (the OAuth2 one is plugins/oauth.ts).
//   apiKeyPlugin   ApiKeyAuth  -> 'api-key'  (x-api-key header)
//   sessionPlugin  SessionAuth -> 'session'  (Authorization: Bearer mgs_..., or the dashboard's
//                  HttpOnly cookie with its CSRF token on state-changing requests: lib/session-cookie.ts)
// A scheme that finds no credential of its kind reports "missing" so hapi tries the next
// strategy the route allows; a credential that is present but wrong is a final 401.
import Boom from '@hapi/boom';
import type { Request, ResponseToolkit, Server } from '@hapi/hapi';
import { clientIp, inAnyRange } from '../lib/addresses.ts';
import type { App, Caller } from '../lib/context.ts';
import { findActiveKeyByHash, touchKey } from '../db/api-keys.ts';
import { findSessionUser } from '../db/sessions.ts';
import { sha256Hex, KEY_PREFIX_LIVE, KEY_PREFIX_TEST, SESSION_PREFIX } from '../lib/secrets.ts';
import { httpError, isOpenAIPath } from './errors.ts';
import { ApiKeyExpiredError, CsrfTokenError } from '../lib/errors.ts';
/** The spec's OAuth2 scopes (declared once in the spec): API keys and sessions hold them all. */
import { CODE_SCOPES as ALL_SCOPES } from '../spec/scopes.ts';
import type { CredentialPlugin } from './spec-routes.ts';
import { IMPERSONATING_ROLES, roleAllows } from '../lib/caller.ts';
import { CSRF_HEADER, clearingCookies, cookieSecure, csrfTokenMatches, isSafeMethod, sessionCookieName } from '../lib/session-cookie.ts';

declare module '@hapi/hapi' {
  interface UserCredentials {
    caller: Caller;
  }
}

function missing(h: ResponseToolkit, scheme: string) {
  return h.unauthenticated(Boom.unauthorized(null, scheme));
}

/** A key's IP restriction is checked against the client address (through trusted proxies), never the proxy's. */
function ipAllowed(request: Request, trustedProxies: readonly string[], whitelist: readonly string[]): boolean {
  if (whitelist.length === 0) return true;
  const addr = clientIp(request, trustedProxies);
  return addr !== null && inAnyRange(addr, whitelist);
}

const TOUCH_EVERY_MS = 60_000;

export const apiKeyPlugin = {
  name: 'mediagate-api-key',
  dependencies: ['mediagate-errors'],
  securityScheme: 'ApiKeyAuth',
  strategy: 'api-key',
  register(server: Server, { app }: { app: App }) {
    const lastTouched = new Map<number, number>();
    server.auth.scheme('api-key', () => ({
      async authenticate(request: Request, h: ResponseToolkit) {
        let header = request.headers['x-api-key'];
        // The OpenAI-compatible routes also take a key as `Authorization: Bearer <key>`, as the
        // OpenAI SDKs send it (a Bearer value that is not a key is another strategy's).
        if ((typeof header !== 'string' || header === '') && isOpenAIPath(request.path)) {
          const m = /^Bearer\s+(\S+)$/i.exec(String(request.headers.authorization ?? ''));
          if (m && (m[1]!.startsWith(KEY_PREFIX_LIVE) || m[1]!.startsWith(KEY_PREFIX_TEST))) header = m[1]!;
        }
        if (typeof header !== 'string' || header === '') return missing(h, 'ApiKey');
        if (!header.startsWith(KEY_PREFIX_LIVE) && !header.startsWith(KEY_PREFIX_TEST)) throw httpError(401, 'invalid API key');
        const hash = sha256Hex(header);
        // README "Credential cache": served from this process's cache while its lease holds; a key of a
        // staff account (support, billing, admin) is always read afresh, so a role is never stale upwards.
        const key = app.credentials.keys
          ? await app.credentials.keys.lookup(hash, () => findActiveKeyByHash(app.db, hash), (k) => k.teamId !== null || k.ownerRole === 'user')
          : await findActiveKeyByHash(app.db, hash);
        if (!key) throw httpError(401, 'invalid or revoked API key');
        // An expired key is refused before anything else about it is checked or counted.
        if (key.retiredSecret && Date.parse(key.expiresAt!) <= app.clock()) throw new ApiKeyExpiredError(`this API key was rotated and the grace period of this secret ended at ${key.expiresAt}; use the key's new secret`);
        if (key.expiresAt !== null && Date.parse(key.expiresAt) <= app.clock()) throw new ApiKeyExpiredError(`this API key expired at ${key.expiresAt}; create a new key or extend it (PUT /app/update_api_key/{key_id})`);
        // README "Deleting an account": a personal key stops with the request (a team's key is the team's)
        if (key.ownerDeletionPending && key.teamId === null) throw httpError(401, 'this account is scheduled for deletion: sign in and cancel the deletion to use its API keys again');
        if (!ipAllowed(request, app.config.trustedProxies, key.ipWhitelist)) throw httpError(403, 'this API key may not be used from this address');
        const now = app.clock();
        if ((lastTouched.get(key.id) ?? 0) < now - TOUCH_EVERY_MS) {
          lastTouched.set(key.id, now);
          touchKey(app.db, key.id, now).catch((err: unknown) => app.log.warn({ err }, 'could not record key use'));
        }
        // A key created by an OAuth token acts with at most that token's scopes (null: all of them).
        const scopes = key.scopes === null ? ALL_SCOPES : ALL_SCOPES.filter((s) => key.scopes!.includes(s));
        // A team key never carries its creator's administrator role.
        const caller: Caller = {
          userId: key.userId, role: key.teamId === null ? key.ownerRole : 'user', via: 'api-key', apiKeyId: key.id, isTest: key.isTest, scopes, ...(key.teamId === null ? {} : { keyTeamId: key.teamId }),
          keyLimits: { rateLimitPerMinute: key.rateLimitPerMinute, maxConcurrent: key.maxConcurrent },
          // a team key is the team's, never a studio user's (plugins/whitelabel.ts)
          studioId: key.teamId === null ? key.ownerStudioId : null,
          ...(key.spendLimit === null ? {} : { keySpendLimited: true }),
          ...(key.teamId === null ? { keyOwnerDiscounts: key.ownerDiscounts } : {}),
        };
        return h.authenticated({ credentials: { user: { caller }, scope: [...scopes] } });
      },
    }));
    server.auth.strategy('api-key', 'api-key');
  },
} satisfies CredentialPlugin;

export const sessionPlugin = {
  name: 'mediagate-session',
  dependencies: ['mediagate-errors'],
  securityScheme: 'SessionAuth',
  strategy: 'session',
  register(server: Server, { app }: { app: App }) {
    const secure = cookieSecure(app.config.publicUrl);
    /**
     * The dashboard's cookie, only when the request names no credential of its own (an explicit
     * Authorization or x-api-key header always wins). The cookie of the studio whose context the
     * request is in (plugins/whitelabel.ts ran in onPreAuth), else the gateway's own.
     */
    const fromCookie = (request: Request): string | undefined => {
      const h = request.headers;
      if (h.authorization !== undefined || h['x-api-key'] !== undefined || h['x-embed-code'] !== undefined || h['x-agent-embed-code'] !== undefined) return undefined;
      const value = (request.state as Record<string, unknown> | null)?.[sessionCookieName(secure, request.app.studio?.slug)];
      return typeof value === 'string' && value.startsWith(SESSION_PREFIX) ? value : undefined;
    };
    server.auth.scheme('session', () => ({
      async authenticate(request: Request, h: ResponseToolkit) {
        const header = request.headers.authorization;
        const m = typeof header === 'string' ? /^Bearer\s+(\S+)$/i.exec(header) : null;
        const cookie = fromCookie(request);
        // Bearer tokens that are not sessions belong to another strategy (OAuth access tokens).
        const token = m && m[1]!.startsWith(SESSION_PREFIX) ? m[1]! : cookie;
        if (token === undefined) return missing(h, 'Bearer');
        // A browser attaches the cookie to any request to this site by itself: a state-changing one
        // must prove it was made by the dashboard's own page, which alone can read the CSRF token.
        if (token === cookie && !isSafeMethod(request.method) && !csrfTokenMatches(app.encryptionKey, token, request.headers[CSRF_HEADER])) {
          throw new CsrfTokenError(`this request carries the dashboard's session cookie but not its CSRF token: send the csrf_token of GET /auth/session in the ${CSRF_HEADER} header`);
        }
        const user = await findSessionUser(app.db, sha256Hex(token), app.clock());
        if (!user) {
          const err = httpError(401, 'invalid or expired session', { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
          // a cookie that no longer opens a session is removed, with its hint, so the page stops sending it
          if (token === cookie) (err.output.headers as Record<string, unknown>)['set-cookie'] = clearingCookies(secure, request.app.studio?.slug);
          throw err;
        }
        // an impersonated session lives only while its staff member may still impersonate (README "Impersonation and support links")
        if (user.impersonator && !roleAllows(user.impersonator.role, IMPERSONATING_ROLES)) {
          throw httpError(401, 'this session was opened by a staff member who no longer holds the support or admin role', { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
        }
        const caller: Caller = { userId: user.userId, role: user.role, via: 'session', apiKeyId: null, isTest: false, scopes: ALL_SCOPES, sessionId: user.sessionId, studioId: user.studioId, ...(token === cookie ? { sessionCookie: true } : {}), ...(user.impersonator ? { impersonator: user.impersonator } : {}) };
        return h.authenticated({ credentials: { user: { caller }, scope: [...ALL_SCOPES] } });
      },
    }));
    server.auth.strategy('session', 'session');
  },
} satisfies CredentialPlugin;
