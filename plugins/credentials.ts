// Who is calling, and in what context: the hapi plugins that read a request's credential, in
// three parts (server.ts registers each plugin object); the OAuth2 credential plugin is
// plugins/oauth.ts.
//   API keys and sessions  apiKeyPlugin, sessionPlugin
//   embed codes            embedCodePlugin, agentEmbedCodePlugin, and embedPolicyPlugin
//   whitelabel studios     whitelabelPlugin (not a credential: the studio context a credential must belong to)
import Boom from '@hapi/boom';
import type { Plugin, Request, ResponseToolkit, Server } from '@hapi/hapi';
import net from 'node:net';
import { clientIp, inAnyRange } from '../lib/addresses.ts';
import type { App, Caller, StudioContext } from '../lib/context.ts';
import { findActiveKeyByHash, touchKey } from '../db/api-keys.ts';
import { findSessionUser } from '../db/sessions.ts';
import { sha256Hex, KEY_PREFIX_LIVE, KEY_PREFIX_TEST, SESSION_PREFIX } from '../lib/secrets.ts';
import { httpError, isOpenAIPath } from './responses.ts';
import { ApiKeyExpiredError, CsrfTokenError, EmbedRefusedError, StudioRefusedError } from '../lib/errors.ts';
/** The spec's OAuth2 scopes (declared once in the spec): API keys and sessions hold them all. */
import { CODE_SCOPES as ALL_SCOPES } from '../spec/scopes.ts';
import { callerOf } from './spec-routes.ts';
import type { CredentialPlugin } from './spec-routes.ts';
import { EMBED_CODE_SCOPES, IMPERSONATING_ROLES, roleAllows } from '../lib/caller.ts';
import { CSRF_HEADER, clearingCookies, cookieSecure, csrfTokenMatches, isSafeMethod, sessionCookieName } from '../lib/session-cookie.ts';
import { newVisitorId, VISITOR_PATTERN } from '../lib/embed-origins.ts';
import { EMBED_PREFIX, anyCodeAllowsOrigin, findActiveEmbedCode } from '../db/embed-codes.ts';
import type { EmbedCode, EmbedKind } from '../db/embed-codes.ts';
import { checkEmbedOrigin, embedInput, refuseOwnerDeletionPending, studioUserCodeRefusal } from '../handlers/embeds.ts';
import { studioForbiddenRefusal } from '../handlers/guards.ts';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS } from './cors.ts';
import { findActiveStudio, findDisabledStudio, studioOfUser } from '../db/studios.ts';
import type { Studio } from '../db/studios.ts';

// ---- API keys and sessions ----
// Credential plugins, one per kind: each implements one of the spec's securitySchemes with one
// hapi strategy, and says which (`securityScheme`, `strategy`); spec-routes builds its
// scheme -> strategy map from the plugins it is given (the OAuth2 one is plugins/oauth.ts).
//   apiKeyPlugin   ApiKeyAuth  -> 'api-key'  (x-api-key header)
//   sessionPlugin  SessionAuth -> 'session'  (Authorization: Bearer mgs_..., or the dashboard's
//                  HttpOnly cookie with its CSRF token on state-changing requests: lib/session-cookie.ts)
// A scheme that finds no credential of its kind reports "missing" so hapi tries the next
// strategy the route allows; a credential that is present but wrong is a final 401.

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
          // a team key is the team's, never a studio user's (whitelabelPlugin, below)
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
     * request is in (whitelabelPlugin, below, ran in onPreAuth), else the gateway's own.
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

// ---- embed codes ----
// Embed codes (README "Embeds"): two credential plugins, one per kind, each implementing one of
// the spec's securitySchemes, and the policy plugin both depend on.
//   embedCodePlugin       EmbedCodeAuth      -> 'embed-code'        (x-embed-code: emb_…)
//   agentEmbedCodePlugin  AgentEmbedCodeAuth -> 'agent-embed-code'  (x-agent-embed-code: aemb_…)
// An operation accepts a code when its spec `security` lists the scheme (model endpoints,
// getPredictionResult and the OpenAI-compatible chat and images routes, whose body names the
// model); the policy plugin refuses the code on every other protected operation with 403
// `embed_operation_not_allowed`, checks the bound model, `webhook` and `team_id`, applies the
// code's input rules before validation (the images route applies them to the input it builds),
// answers CORS for the code's origins and issues visitor ids. Spend caps, the per-address rate limit and concurrency are checked at submit
// (handlers/generate.ts, handlers/policies.ts, db/embed-codes.ts).

/** The visitor id header: answered on a visitor's first call, sent back on the next ones. */
export const VISITOR_HEADER = 'X-Embed-Visitor';

const KINDS: ReadonlyArray<{ kind: EmbedKind; header: string; strategy: string }> = [
  { kind: 'embed', header: 'x-embed-code', strategy: 'embed-code' },
  { kind: 'agent_embed', header: 'x-agent-embed-code', strategy: 'agent-embed-code' },
];

const PREFLIGHT_MAX_AGE = 600;
const ALLOWED_HEADERS = CORS_ALLOWED_HEADERS;
const EXPOSED_HEADERS = CORS_EXPOSED_HEADERS;

function routeStrategies(route: Request['route'] | null | undefined): string[] | null {
  const auth = route?.settings.auth as { strategies?: string[] } | false | undefined;
  return auth ? auth.strategies ?? [] : null;
}

function embedKindOf(request: Request) {
  return KINDS.find((k) => typeof request.headers[k.header] === 'string' && request.headers[k.header] !== '');
}

function credentialPlugin(kind: EmbedKind, securityScheme: string, header: string, strategy: string) {
  return {
    name: `mediagate-${strategy}`,
    dependencies: ['mediagate-errors', 'mediagate-embed'],
    securityScheme,
    strategy,
    register(server: Server, { app }: { app: App }) {
      server.auth.scheme(strategy, () => ({
        async authenticate(request: Request, h: ResponseToolkit) {
          const value = request.headers[header];
          if (typeof value !== 'string' || value === '') return h.unauthenticated(Boom.unauthorized(null, securityScheme));
          const refused = () => new EmbedRefusedError(401, 'embed_code_invalid', `invalid or revoked ${kind === 'embed' ? 'embed' : 'agent embed'} code`);
          if (!value.startsWith(EMBED_PREFIX[kind])) throw refused();
          const code = await findActiveEmbedCode(app.db, value);
          if (!code || code.kind !== kind) throw refused();
          refuseOwnerDeletionPending(code);
          const corsOrigin = checkEmbedOrigin(code, request.headers);
          if (corsOrigin !== null) request.app.embedCorsOrigin = corsOrigin;
          const sent = request.headers[VISITOR_HEADER.toLowerCase()];
          let visitor: string;
          if (typeof sent === 'string' && sent !== '') {
            if (!VISITOR_PATTERN.test(sent)) throw new EmbedRefusedError(422, 'embed_visitor_invalid', `${VISITOR_HEADER} must be an id this gateway issued (send none to get one)`);
            visitor = sent;
          } else {
            visitor = newVisitorId();
            request.app.embedVisitorIssued = visitor;
          }
          request.app.embedCode = code;
          const caller: Caller = {
            userId: code.userId, role: 'user', via: kind, apiKeyId: null, isTest: false, scopes: EMBED_CODE_SCOPES,
            // a team's code acts for its team only, like a team's API key (lib/caller.ts)
            ...(code.teamId === null ? {} : { keyTeamId: code.teamId }),
            // a personal code carries its user's studio, which refuses it (whitelabelPlugin, below); a team's code is the team's
            studioId: code.teamId === null ? code.ownerStudioId : null,
            embed: {
              codeId: code.id, kind, models: code.models, maxCostPerRun: code.maxCostPerRun, dailyCap: code.dailyCap, monthlyCap: code.monthlyCap,
              rateLimitPerMinute: code.rateLimitPerMinute, maxConcurrent: code.maxConcurrent, visitorHash: sha256Hex(visitor),
            },
          };
          return h.authenticated({ credentials: { user: { caller }, scope: [...EMBED_CODE_SCOPES] } });
        },
      }));
      server.auth.strategy(strategy, strategy);
    },
  } satisfies CredentialPlugin;
}

export const embedCodePlugin = credentialPlugin('embed', 'EmbedCodeAuth', 'x-embed-code', 'embed-code');
export const agentEmbedCodePlugin = credentialPlugin('agent_embed', 'AgentEmbedCodeAuth', 'x-agent-embed-code', 'agent-embed-code');

/** Whether CORS_ORIGINS covers the origin (`*`, an exact origin, or `scheme://*.domain`), as hapi matches it. */
function operatorAllows(origins: readonly string[], origin: string): boolean {
  return origins.some((o) => {
    if (o === '*' || o === origin) return true;
    const star = o.indexOf('*');
    return star !== -1 && origin.startsWith(o.slice(0, star)) && origin.endsWith(o.slice(star + 1)) && origin.length > o.length;
  });
}

function setHeader(request: Request, name: string, value: string) {
  const response = request.response;
  if (!response) return;
  if (Boom.isBoom(response)) response.output.headers[name] = value;
  else response.header(name, value);
}

function statusOf(request: Request): number {
  const response = request.response;
  if (!response) return 0;
  return Boom.isBoom(response) ? response.output.statusCode : response.statusCode;
}

/**
 * The origin to name on an error answer to a code that was refused before its origin was checked
 * (an unknown or revoked code, a deleted team's, an account being deleted, an origin the code does
 * not allow), so that the page can read why: the request's own Origin. Only error answers, only on
 * the operations that take a code, and only when the code is the request's only credential (a
 * session cookie is ignored when a code is sent): such an answer says nothing but the refusal,
 * the same for any page, and credentials are never allowed, so no page reads anything else.
 */
function refusalOrigin(request: Request): string | undefined {
  const origin = request.headers.origin;
  if (typeof origin !== 'string' || origin === '' || statusOf(request) < 400) return undefined;
  // resolving a code is public: the code is in its query
  if (request.route.settings.id === 'getModelNameForEmbedcode') return origin;
  const kind = embedKindOf(request);
  if (!kind || request.headers['x-api-key'] !== undefined || request.headers.authorization !== undefined) return undefined;
  return routeStrategies(request.route)?.includes(kind.strategy) ? origin : undefined;
}

/** An HTTP method as RFC 9110 writes it: a token of one or more of these characters. */
const METHOD_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The OpenAI-compatible routes a code may call: their body's `model` is checked against the code's. */
const OPENAI_MODEL_ROUTES: ReadonlySet<string> = new Set(['createChatCompletion', 'createImage']);

/** Whether a code fixes or restricts fields of the model's input (its preset, locked inputs, allowed fields or prompt template). */
function presetsInput(app: App, code: EmbedCode, model: string): boolean {
  if (!app.spec.models.has(model)) return false;
  return code.allowedFields !== null || code.preset?.prompt_template !== undefined || Object.keys(embedInput(app, { ...code, allowedFields: null }, model, {})).length > 0;
}

export const embedPolicyPlugin: Plugin<{ app: App }> = {
  name: 'mediagate-embed',
  dependencies: ['mediagate-errors'],
  register(server, { app }) {
    // Preflights of a browser about to send a code: the code is not in a preflight, so it is
    // answered for an origin some active code of that kind allows, naming exactly that origin.
    // Not an async function: every other request passes with no promise of its own.
    const preflight = async (request: Request, h: ResponseToolkit) => {
      const origin = request.headers.origin;
      const method = request.headers['access-control-request-method'];
      const asked = String(request.headers['access-control-request-headers'] ?? '').toLowerCase().split(',').map((s) => s.trim()).filter(Boolean);
      const kind = KINDS.find((k) => asked.includes(k.header));
      // a method that is no HTTP token (RFC 9110: an empty header, spaces) matches no route: hapi answers the preflight
      if (typeof origin !== 'string' || typeof method !== 'string' || !METHOD_TOKEN.test(method) || !kind) return h.continue;
      // an origin CORS_ORIGINS allows gets hapi's own preflight (plugins/cors.ts), which allows the same headers
      if (operatorAllows(app.config.corsOrigins, origin)) return h.continue;
      const route = request.server.match(method.toLowerCase() as 'get', request.path);
      if (!routeStrategies(route)?.includes(kind.strategy)) return h.continue;
      const allowedLower = ALLOWED_HEADERS.map((x) => x.toLowerCase());
      const response = h.response().code(200).header('Vary', 'Origin');
      if (asked.every((x) => allowedLower.includes(x)) && await anyCodeAllowsOrigin(app.db, kind.kind, origin)) {
        response.header('Access-Control-Allow-Origin', origin)
          .header('Access-Control-Allow-Methods', method.toUpperCase())
          .header('Access-Control-Allow-Headers', ALLOWED_HEADERS.join(','))
          .header('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE));
      }
      return response.takeover();
    };
    server.ext('onRequest', (request, h) => (request.method === 'options' ? preflight(request, h) : h.continue));

    // A code sent to an operation that does not list its scheme: 403, unless another credential came with it.
    server.ext('onPreAuth', (request, h) => {
      const kind = embedKindOf(request);
      if (!kind || request.headers['x-api-key'] !== undefined || request.headers.authorization !== undefined) return h.continue;
      const strategies = routeStrategies(request.route);
      if (strategies === null || strategies.length === 0 || strategies.includes(kind.strategy)) return h.continue;
      throw new EmbedRefusedError(403, 'embed_operation_not_allowed', `an ${kind.kind === 'embed' ? 'embed' : 'agent embed'} code may only submit to its model(s), read its own results and resolve itself; this operation needs an API key or a session`);
    });

    // The code's bound model(s), no webhook, no team_id, and the input rules (before validation).
    server.ext('onPostAuth', (request, h) => {
      const grant = callerOf(request)?.embed;
      const code = request.app.embedCode;
      if (!grant || !code) return h.continue;
      const operationId = request.route.settings.id ?? '';
      if (request.query.team_id !== undefined) throw new EmbedRefusedError(403, 'embed_team_not_allowed', 'an embed code acts for its owner only: send no team_id');
      if (OPENAI_MODEL_ROUTES.has(operationId)) {
        // the model is named in the body: the same binding as the model's own endpoint
        const payload = request.payload as { model?: unknown } | null;
        const model = typeof payload === 'object' && payload !== null && !Buffer.isBuffer(payload) ? payload.model : undefined;
        if (typeof model === 'string' && !grant.models.includes(model)) throw new EmbedRefusedError(403, 'embed_model_not_allowed', `this embed code is not bound to ${model}`);
        if (operationId === 'createChatCompletion' && typeof model === 'string' && presetsInput(app, code, model)) {
          throw new EmbedRefusedError(422, 'embed_field_not_allowed', `this embed code presets or restricts the input fields of ${model}, which a conversation cannot be held to: send its visitors' calls to POST /api/v1/${model}`);
        }
      } else if (app.spec.models.has(operationId)) {
        if (!grant.models.includes(operationId)) throw new EmbedRefusedError(403, 'embed_model_not_allowed', `this embed code is not bound to ${operationId}`);
        if (request.query.webhook !== undefined) throw new EmbedRefusedError(422, 'embed_webhook_not_allowed', 'an embed code cannot set a webhook: poll the result with the same code and visitor id');
        const payload = request.payload;
        if (typeof payload === 'object' && payload !== null && !Array.isArray(payload) && !Buffer.isBuffer(payload)) {
          (request as { payload: unknown }).payload = embedInput(app, code, operationId, payload as Record<string, unknown>);
        }
      }
      return h.continue;
    });

    // CORS for the code's origin, and the visitor id, on every answer to a code (errors included);
    // a refusal made before the origin was checked names the request's origin (refusalOrigin).
    server.ext('onPreResponse', (request, h) => {
      const origin = request.app.embedCorsOrigin ?? refusalOrigin(request);
      if (origin !== undefined) {
        setHeader(request, 'Access-Control-Allow-Origin', origin);
        setHeader(request, 'Access-Control-Expose-Headers', EXPOSED_HEADERS.join(','));
        setHeader(request, 'Vary', 'Origin');
      }
      if (request.app.embedVisitorIssued !== undefined) setHeader(request, VISITOR_HEADER, request.app.embedVisitorIssued);
      return h.continue;
    }, { after: ['mediagate-errors'] });
  },
};

// ---- whitelabel studios ----
// Whitelabel studios (README "Whitelabel studios"): the studio context of a request. Not a
// credential: `x-whitelabel-studio: <slug>` (or a `Host` that is one of a studio's domains)
// selects a studio, and the request's own credential must belong to it.
//   onPreAuth   the header's studio (unknown: 404 `studio_not_found`; disabled: only the operations
//               that let its users sign in, take their data and leave, else 403 `studio_disabled`),
//               else the Host's
//   onPostAuth  a credential in a studio's context must be of a user of that studio, of its owner or
//               of a member of its owning team (403 `studio_forbidden`, embed codes always, and so
//               is resolving one in the context, handlers/embeds.ts); a studio's
//               user outside any studio context is 403 `studio_required`, and so is a personal embed
//               code of a studio's user (handlers/embeds.ts no longer creates one)
// The route bridge (plugins/spec-routes.ts) hands the context to the handler as `ctx.studio`;
// handlers apply it (catalog filter, studio price, source `studio`, studio users at /auth).

declare module '@hapi/hapi' {
  interface RequestApplicationState {
    /** the studio whose context this request is in (whitelabelPlugin, plugins/credentials.ts) */
    studio?: StudioContext;
  }
}

export const STUDIO_HEADER = 'x-whitelabel-studio';

function contextOf(s: Studio, by: 'header' | 'domain'): StudioContext {
  return {
    by, name: s.name,
    id: s.id, slug: s.slug, userId: s.userId, teamId: s.teamId, allowedModels: s.allowedModels,
    payerMode: s.payerMode, markupPercent: s.markupPercent, modelPrices: s.modelPrices,
    ...(s.ownerDeletionPending ? { ownerDeletionPending: true } : {}),
    ...(s.disabledAt !== null ? { disabled: true } : {}),
  };
}

/**
 * What a disabled studio's context still answers: its users' accounts live only inside it, so
 * without these they could neither take their data nor delete their account. Signing in (not
 * the CLI's, which makes a key, nor Google's, whose callback finds enabled studios only), the
 * session, the export and the deletion; nothing that registers, spends or makes a credential.
 * The storefront's page needs the site (getSiteInfo, which says the studio is disabled) and the
 * profile (getUserDetails: whether a deletion is scheduled; the export holds the same).
 */
export const DISABLED_STUDIO_OPERATIONS: ReadonlySet<string> = new Set([
  'login', 'requestOtp', 'loginOtp', 'verifyOtp', 'forgotPassword', 'resetPassword',
  'getSession', 'logout', 'exportAccount', 'requestAccountDeletion', 'cancelAccountDeletion',
  'getSiteInfo', 'getUserDetails',
]);

/** The gateway's own hostname (PUBLIC_URL's), lower-cased; '' when it has none. */
function publicHostname(publicUrl: string): string {
  try {
    return new URL(publicUrl).hostname.toLowerCase();
  } catch {
    return '';
  }
}

/** Hostnames that never name a studio: the gateway's own, localhost, IP literals (so most requests cost no lookup). */
function ownHostname(own: string, hostname: string): boolean {
  if (hostname === '' || hostname === 'localhost' || net.isIP(hostname) !== 0) return true;
  return own !== '' && own === hostname;
}

function hostnameOf(request: Request): string {
  const host = request.headers.host;
  if (typeof host !== 'string') return '';
  return host.replace(/:\d+$/, '').replace(/^\[|\]$/g, '').toLowerCase();
}

/** Whether the caller may act in the studio: its user belongs to it, owns it, or is in its owning team. */
async function mayUse(app: App, caller: Caller, studio: StudioContext, userStudio: number | null): Promise<boolean> {
  if (caller.embed) return false;
  if (userStudio === studio.id) return true;
  if (userStudio !== null) return false;
  if (studio.teamId === null) return caller.keyTeamId === undefined && caller.userId === studio.userId;
  if (caller.keyTeamId !== undefined) return caller.keyTeamId === studio.teamId;
  return (await app.teams?.membership(studio.teamId, caller.userId)) !== undefined;
}

export const whitelabelPlugin: Plugin<{ app: App }> = {
  name: 'mediagate-whitelabel',
  dependencies: ['mediagate-errors'],
  register(server, { app }) {
    // parsed once, not per request
    const own = publicHostname(app.config.publicUrl);
    // The steps below are plain functions that return a promise only when they look something up:
    // most requests (no studio header, the gateway's own host, a credential that carries its
    // user's studio) pass without one.
    const bySlug = async (request: Request, h: ResponseToolkit, sent: string) => {
      const valid = /^[a-z0-9-]{1,40}$/.test(sent);
      // a disabled one is looked up only once no enabled one matched, so a served studio costs nothing more
      const studio = valid ? await findActiveStudio(app.db, { slug: sent }) ?? await findDisabledStudio(app.db, sent) : undefined;
      if (!studio) throw new StudioRefusedError(404, 'studio_not_found', `no studio "${sent.slice(0, 40)}" on this gateway`);
      // A studio's domain is that studio's only: another studio named there would sign its users
      // in, and set its cookies, on a domain whose DNS another partner holds.
      const hostname = hostnameOf(request);
      const atItsDomain = studio.servingDomains.includes(hostname);
      if (!atItsDomain && !ownHostname(own, hostname) && await findActiveStudio(app.db, { hostname })) {
        throw new StudioRefusedError(404, 'studio_not_found', `no studio "${sent}" at this domain, which serves another studio: call it at the gateway's address or at one of its own domains`);
      }
      if (studio.disabledAt !== null && !DISABLED_STUDIO_OPERATIONS.has(request.route.settings.id ?? '')) {
        throw new StudioRefusedError(403, 'studio_disabled', `the studio "${studio.slug}" is disabled: its users may still sign in, export their account (GET /app/account/export) and delete it (POST /app/account/request-deletion), nothing else`);
      }
      request.app.studio = contextOf(studio, atItsDomain ? 'domain' : 'header');
      return h.continue;
    };
    const byHostname = async (request: Request, h: ResponseToolkit, hostname: string) => {
      const studio = await findActiveStudio(app.db, { hostname });
      if (studio) request.app.studio = contextOf(studio, 'domain');
      return h.continue;
    };
    server.ext('onPreAuth', (request, h) => {
      if (request.method === 'options') return h.continue;
      const sent = request.headers[STUDIO_HEADER];
      if (typeof sent === 'string' && sent !== '') return bySlug(request, h, sent);
      const hostname = hostnameOf(request);
      if (ownHostname(own, hostname)) return h.continue;
      return byHostname(request, h, hostname);
    });

    const inStudio = (request: Request, h: ResponseToolkit, caller: Caller, studio: StudioContext | undefined, userStudio: number | null) => {
      if (!studio) {
        if (userStudio !== null && caller.embed) {
          // a studio's user runs models only in the studio, and a code never acts in one (mayUse)
          throw studioUserCodeRefusal();
        }
        if (userStudio !== null) throw new StudioRefusedError(403, 'studio_required', `this account belongs to a studio: send ${STUDIO_HEADER} with its slug, or call through one of its domains`);
        return h.continue;
      }
      return mayUse(app, caller, studio, userStudio).then((may) => {
        if (!may) throw studioForbiddenRefusal(studio);
        return h.continue;
      });
    };
    server.ext('onPostAuth', (request, h) => {
      const caller = callerOf(request);
      if (!caller) return h.continue;
      const studio = request.app.studio;
      // an embed code carries its user's studio (null for a team's code): a personal code of a
      // studio's user is 403 studio_required, as its user would be outside the studio
      if (caller.studioId !== undefined) return inStudio(request, h, caller, studio, caller.studioId);
      return studioOfUser(app.db, caller.userId).then((userStudio) => inStudio(request, h, caller, studio, userStudio));
    });
  },
};
