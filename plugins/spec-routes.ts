// The spec -> route bridge. One hapi route per spec operation, generated at start-up, so
// routing is hapi's (constant in the number of operations) instead of openapi-backend's
// per-request scan; openapi-backend validates each request against its operation object
// and holds the operationId -> handler map. Also here, because only the bridge runs them: the
// limits on a client's JSON (checked before anything else reads a body), the spec validation
// from hapi's own parse, and the Idempotency-Key convention.
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import Boom from '@hapi/boom';
import type { Plugin, Request, ResponseObject, ResponseToolkit, RouteOptions, Lifecycle, RouteDefMethods, Server, ServerRoute } from '@hapi/hapi';
import type { Operation } from 'openapi-backend';
import type { App } from '../lib/context.ts';
import { ANSWER_TIMEOUT_MS, httpError, payloadTimeoutError, SOCKET_IDLE_MS, validationError } from './responses.ts';
import { bearerChallenge } from '../lib/oauth-challenge.ts';
import { toValidationItems } from '../lib/validation-errors.ts';
import type { AjvLikeError } from '../lib/validation-errors.ts';
import type { AnyHandler, HandlerContext, IdempotentRun } from '../handlers/types.ts';
import type { Config } from '../config.ts';
import type { ModelInfo } from '../spec/catalog.ts';
import { isRole, isTeamPermission, resolveOwnerAccess, roleAllows, ROLES, TEAM_PERMISSIONS } from '../lib/caller.ts';
import type { Role, TeamPermission } from '../lib/caller.ts';
import { longestRouteWaitMs, longestWaitMs, NOT_YET } from '../handlers/index.ts';
import { hasPolicies, policiesOf, withPolicies } from '../handlers/policies.ts';
import { scopeNames } from '../spec/scopes.ts';
import { ConflictError, ImpersonationForbiddenError, InvalidInputError, NotFoundError, RoleRequiredError, SessionRequiredError, UnauthorizedError } from '../lib/errors.ts';
import { auditAdminCall } from './admin-audit.ts';
import { claimIdempotencyKey, completeIdempotencyKey, findIdempotencyKey, handOverIdempotencyKey, isAbandoned, releaseIdempotencyKey } from '../db/idempotency.ts';
import { newPredictionId } from '../db/predictions/record.ts';
import type { StoredResponse } from '../db/idempotency.ts';

export type SecurityRequirement = Record<string, string[]>;

/**
 * What the bridge needs of a credential plugin: a hapi plugin that implements one of the spec's
 * securitySchemes (`securityScheme`) with one hapi strategy (`strategy`) it registers.
 */
export type CredentialPlugin<Options = { app: App }> = Plugin<Options> & {
  name: string;
  securityScheme: string;
  strategy: string;
};

/** The caller a credential plugin put on the request (its type is declared with the credentials, plugins/credentials.ts). */
export function callerOf(request: Request) {
  return request.auth.credentials?.user?.caller ?? null;
}

/**
 * The spec's security scheme -> hapi strategy map, from the credential plugins. Start-up refuses a
 * scheme the spec declares that no plugin implements, a plugin for a scheme the spec does not
 * declare, and two plugins for one scheme.
 */
export function strategyMapFor(declaredSchemes: readonly string[], credentials: ReadonlyArray<Pick<CredentialPlugin, 'name' | 'securityScheme' | 'strategy'>>): Map<string, string> {
  const map = new Map<string, string>();
  for (const plugin of credentials) {
    if (!declaredSchemes.includes(plugin.securityScheme)) throw new Error(`credential plugin ${plugin.name} implements security scheme "${plugin.securityScheme}", which the spec does not declare`);
    if (map.has(plugin.securityScheme)) throw new Error(`security scheme "${plugin.securityScheme}" is implemented by more than one credential plugin`);
    map.set(plugin.securityScheme, plugin.strategy);
  }
  for (const scheme of declaredSchemes) {
    if (!map.has(scheme)) throw new Error(`security scheme "${scheme}" is implemented by no credential plugin`);
  }
  return map;
}

/** hapi strategies for an operation's security alternatives; [] means public. A scheme no credential plugin implements stops start-up. */
export function strategiesFor(operationId: string, security: SecurityRequirement[] | undefined, strategyFor: ReadonlyMap<string, string>): string[] {
  const strategies: string[] = [];
  for (const requirement of security ?? []) {
    for (const scheme of Object.keys(requirement)) {
      const strategy = strategyFor.get(scheme);
      if (strategy === undefined) throw new Error(`${operationId}: security scheme "${scheme}" is implemented by no credential plugin`);
      if (!strategies.includes(strategy)) strategies.push(strategy);
    }
  }
  return strategies;
}

/**
 * The scopes an OAuth token needs for an operation: those of its OAuth2 requirement. Every scope
 * must be one the OAuth2 scheme declares, and there is at most one OAuth2 alternative.
 */
export function requiredScopes(operationId: string, security: SecurityRequirement[], declared: ReadonlySet<string>): string[] {
  const oauth = security.filter((r) => 'OAuth2' in r);
  if (oauth.length > 1) throw new Error(`${operationId}: more than one OAuth2 security alternative`);
  const scopes = oauth[0]?.OAuth2 ?? [];
  for (const scope of scopes) {
    if (!declared.has(scope)) throw new Error(`${operationId}: OAuth2 scope "${scope}" is not declared by the OAuth2 security scheme`);
  }
  return scopes;
}

/**
 * The roles an operation requires (`x-required-role`: one role or a list, each a name of
 * lib/caller.ts, `admin` always among them); undefined when it requires none.
 */
export function requiredRoles(operationId: string, declared: unknown): Role[] | undefined {
  if (declared === undefined) return undefined;
  const list = Array.isArray(declared) ? declared : [declared];
  if (list.length === 0 || !list.every(isRole)) throw new Error(`${operationId}: x-required-role must be one or a list of ${ROLES.join(', ')}`);
  if (!list.includes('admin')) throw new Error(`${operationId}: x-required-role must include admin (the administrator may call every role route)`);
  return list;
}

/**
 * Whether every answer of an operation is `Cache-Control: no-store` (`x-no-store: true`): those
 * that carry a secret (a session or CSRF token, an API key, a client secret, an upload address, a
 * signing secret, a support link), which no browser or proxy may keep. Every other answer is
 * hapi's `no-cache`.
 */
export function noStoreOf(operationId: string, declared: unknown): boolean {
  if (declared !== undefined && declared !== true) throw new Error(`${operationId}: x-no-store must be true when present`);
  return declared === true;
}

/**
 * Whether an impersonated session (virtualLogin, supportLogin) is refused on an operation. Default
 * deny: every operation a session can call says so with `x-impersonation: allowed | forbidden`, and
 * start-up refuses one that does not; every role operation refuses it and may not say `allowed`.
 */
export function refusesImpersonation(operationId: string, declared: unknown, roles: readonly Role[] | undefined, sessionMayCall: boolean): boolean {
  if (declared !== undefined && declared !== 'forbidden' && declared !== 'allowed') throw new Error(`${operationId}: x-impersonation must be "allowed" or "forbidden"`);
  if (roles !== undefined) {
    if (declared === 'allowed') throw new Error(`${operationId}: x-impersonation: a role operation always refuses an impersonated session; it may not declare "allowed"`);
    return true;
  }
  if (declared === undefined && sessionMayCall) {
    throw new Error(`${operationId}: a login session may call it, so it must declare x-impersonation: allowed or forbidden (whether a staff member acting as the user may)`);
  }
  if (declared !== undefined && !sessionMayCall) throw new Error(`${operationId}: declares x-impersonation but no login session may call it`);
  return declared === 'forbidden';
}

/** The scheme a login session authenticates with, and the other credentials a session-only route turns away with 403 rather than 401. */
const SESSION_SCHEME = 'SessionAuth';
const OTHER_USER_SCHEMES = ['ApiKeyAuth', 'OAuth2'] as const;

/**
 * The strategies of the credentials an operation that takes a login session does not accept (an
 * API key on `createOAuthClient`, an OAuth token on `requestAccountDeletion`). They authenticate on
 * its route only so that a valid credential of the wrong kind is told 403 `session_required`, as on
 * the role routes, instead of 401 "missing or invalid credentials"; onPostAuth refuses them.
 */
export function refusedStrategiesFor(security: SecurityRequirement[], strategyFor: ReadonlyMap<string, string>): string[] {
  const declared = new Set(security.flatMap((r) => Object.keys(r)));
  if (!declared.has(SESSION_SCHEME)) return [];
  return OTHER_USER_SCHEMES.filter((scheme) => !declared.has(scheme) && strategyFor.has(scheme)).map((scheme) => strategyFor.get(scheme)!);
}

/** The header every answer to an impersonated session carries: the staff member's user id. */
export const IMPERSONATED_BY_HEADER = 'X-Impersonated-By';

/** A token or an API key was sent (and refused): the 401's challenge says `invalid_token`, not that none was. */
function sentCredential(request: Request): boolean {
  const header = request.headers.authorization;
  const key = request.headers['x-api-key'];
  return (typeof header === 'string' && /^Bearer\s+\S/i.test(header)) || (typeof key === 'string' && key.trim() !== '');
}

/** Stands in for a missing Content-Type so hapi refuses it (415) instead of parsing the body as JSON. */
const NO_CONTENT_TYPE = 'application/x-missing-content-type';

/** true when the request carries no body bytes (no Content-Length above 0, no chunked body). */
function bodyless(request: Request): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] === undefined && (length === undefined || Number(length) === 0);
}

const payloadFailAction: Lifecycle.Method = (request, h, err) => {
  if (request.app.payloadTimedOut) throw payloadTimeoutError(request.app.payloadTimeoutDetail);
  const status = Boom.isBoom(err) ? err.output.statusCode : 400;
  // No Content-Type and no body (e.g. POST /auth/logout): nothing to refuse; validation decides
  // whether the operation needed a body.
  if (status === 415 && request.headers['content-type'] === undefined && bodyless(request)) return h.continue;
  if (status === 413) throw httpError(413, 'request body too large');
  if (status === 415) throw validationError([{ loc: ['body'], msg: 'Unsupported media type: send application/json', type: 'content_type' }], 415);
  throw validationError([{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }]);
};

declare module '@hapi/hapi' {
  interface RequestApplicationState {
    /** the body's exact bytes, on operations that declare `x-raw-body: true` (a sender's signature covers them) */
    rawBody?: Buffer;
  }
}

// ---- the JSON limits ----
// Limits on what a client's JSON may hold, checked at the edge before anything else reads it.
// Depth: every recursive walk over a request body (validation, audit redaction, canonical hashing,
// adapters' input maps) is bounded by refusing deeper bodies, so no client can drive one of them
// into a stack overflow. Numbers: a number past 2^53 - 1 cannot be kept exactly (an id, an amount
// of credit), so none reaches a handler or the database.
// (Audit redaction cuts what it records instead: plugins/admin-audit.ts cutBelow.)

/** The deepest nesting of objects and arrays a JSON body may have; deeper bodies are refused with 422. */
export const MAX_JSON_DEPTH = 32;

/**
 * true when `value` nests objects or arrays deeper than `limit` levels (a scalar is depth 0, `{}`
 * and `[]` are 1). Iterative, and it stops at the first node past the limit, so any input is safe.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * Where `value` holds a number whose magnitude is past Number.MAX_SAFE_INTEGER, or that is not
 * finite, as the path of keys that leads to it ([] for the value itself); undefined when it holds
 * none. Iterative, like nestsDeeperThan; call it on values already known not to nest too deeply.
 */
export function unsafeNumberAt(value: unknown): Array<string | number> | undefined {
  const stack: Array<[unknown, Array<string | number>]> = [[value, []]];
  while (stack.length > 0) {
    const [node, at] = stack.pop()!;
    if (typeof node === 'number') {
      if (!Number.isFinite(node) || Math.abs(node) > Number.MAX_SAFE_INTEGER) return at;
    } else if (Array.isArray(node)) {
      node.forEach((child, i) => stack.push([child, [...at, i]]));
    } else if (typeof node === 'object' && node !== null) {
      for (const [k, child] of Object.entries(node)) stack.push([child, [...at, k]]);
    }
  }
  return undefined;
}

// ---- validation from hapi's parse ----
// Spec validation of a request from what hapi already parsed. openapi-backend's validateRequest
// parses the request again on every call (the path template compiled to a regex and matched,
// the query deep-cloned, headers re-keyed, cookies parsed) before running the operation's
// compiled ajv validators; for an operation whose parameters need none of its special parsing,
// this builds the same object those validators check from hapi's params, query and headers, and
// runs them the same way (same validators, same order, same coercion and defaults). Any other
// operation, or a body that is not a JSON object or array, goes through openapi-backend.

/** What validation answers: openapi-backend's ValidationResult, as the bridge reads it. */
export interface ValidationOutcome {
  valid: boolean;
  errors?: unknown[] | null;
  coerced?: { query?: unknown; params?: unknown };
}

/** An operation's compiled ajv validators (openapi-backend's requestValidators[operationId]). */
type ValidateFn = ((data: unknown) => boolean) & { errors?: unknown[] | null };

/** Worked out once per operation: which query parameters are arrays (a single value becomes [value]). */
export interface ParsedValidationPlan {
  arrayQuery: ReadonlySet<string>;
}

type Parameter = { $ref?: string; in?: string; name?: string; schema?: { type?: unknown }; content?: unknown; explode?: boolean };

/**
 * The plan for validating from hapi's parse, or null when the operation needs openapi-backend's
 * own parsing: a cookie or JSON-content parameter, a non-exploded one, a body other than JSON.
 */
export function parsedValidationPlan(operation: Operation): ParsedValidationPlan | null {
  const params = (operation.parameters ?? []) as Parameter[];
  if (params.some((p) => p.$ref !== undefined || p.in === 'cookie' || p.content !== undefined || p.explode === false)) return null;
  const bodyTypes = Object.keys((operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content ?? {});
  if (bodyTypes.some((type) => type !== 'application/json')) return null;
  return { arrayQuery: new Set(params.filter((p) => p.in === 'query' && p.schema?.type === 'array').map((p) => p.name!)) };
}

/**
 * Validates with the operation's compiled validators. `body` is what the bridge validates (the
 * parsed JSON, or undefined without one); ajv's defaults and coercion apply to it and to the
 * copies of query and path parameters returned in `coerced`, as openapi-backend's do.
 * Returns undefined when the body needs openapi-backend's own handling (a JSON scalar).
 */
export function validateParsed(validators: readonly ValidateFn[], plan: ParsedValidationPlan, request: Request, body: unknown): ValidationOutcome | undefined {
  if (body !== undefined && typeof body !== 'object') return undefined;
  const query: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(request.query as Record<string, unknown>)) {
    query[name] = Array.isArray(value) ? [...value] : typeof value === 'string' && plan.arrayQuery.has(name) ? [value] : value;
  }
  const parameters: Record<string, unknown> = { path: { ...request.params }, query, header: { ...request.headers }, cookie: {} };
  const rawType = request.headers['content-type'];
  const contentType = String((Array.isArray(rawType) ? rawType[0] : rawType) || '').split(';')[0]!.trim().toLowerCase();
  if (typeof body === 'object' || contentType === 'application/json') parameters.requestBody = body;
  const errors: unknown[] = [];
  for (const validate of validators) {
    validate(parameters);
    if (validate.errors) errors.push(...validate.errors);
  }
  if (errors.length > 0) return { valid: false, errors };
  return { valid: true, errors: null, coerced: { query: parameters.query, params: parameters.path } };
}

// ---- the route bridge (continued) ----

/** `x-raw-body` operations: hapi keeps the bytes; they are parsed here, refused as the parsed routes refuse. */
function parseRawBody(request: Request): unknown {
  const raw = Buffer.isBuffer(request.payload) ? request.payload : Buffer.alloc(0);
  request.app.rawBody = raw;
  const type = String(request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') throw validationError([{ loc: ['body'], msg: 'Unsupported media type: send application/json', type: 'content_type' }], 415);
  if (raw.length === 0) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    throw validationError([{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }]);
  }
  if (nestsDeeperThan(parsed, MAX_JSON_DEPTH)) throw tooDeep();
  return parsed;
}

/** A body nested deeper than MAX_JSON_DEPTH: refused before anything walks it (the JSON limits above). */
function tooDeep() {
  return validationError([{ loc: ['body'], msg: `JSON nested more than ${MAX_JSON_DEPTH} levels deep`, type: 'json_too_deep' }]);
}

/**
 * No number a client sends may be one the gateway cannot keep exactly: an id or an amount past
 * 2^53 - 1 would be rounded (and misreported) by JavaScript or refused by the database, so it is 422
 * here, whatever the schema allows (ajv's strictNumbers already refuses Infinity and NaN).
 */
function refuseUnsafeNumbers(sections: Record<'path' | 'query' | 'body', unknown>): void {
  for (const [section, value] of Object.entries(sections)) {
    const at = unsafeNumberAt(value);
    if (at !== undefined) {
      throw validationError([{ loc: [section, ...at], msg: `Number must be between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER} (2^53 - 1)`, type: 'number_unsafe' }]);
    }
  }
}

/** How the credential kinds are named in a refusal. */
const CREDENTIAL_NAMES: Readonly<Record<string, string>> = { 'api-key': 'an API key', session: 'a login session', oauth: 'an OAuth access token' };
const SCHEME_NAMES: Readonly<Record<string, string>> = { ApiKeyAuth: 'an API key', SessionAuth: 'a login session', OAuth2: 'an OAuth access token', EmbedCodeAuth: 'an embed code', AgentEmbedCodeAuth: 'an agent embed code' };

/** "a login session or an OAuth access token": what an operation's security accepts, in words. */
function describeSchemes(security: SecurityRequirement[]): string {
  const names = [...new Set(security.flatMap((r) => Object.keys(r)).map((s) => SCHEME_NAMES[s] ?? s))];
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What every route of one server shares; computed once by `routeDepsFor`. */
export interface SharedRouteDeps {
  app: App;
  /** spec security scheme -> the hapi strategy of the credential plugin implementing it */
  strategyFor: ReadonlyMap<string, string>;
  /** the schemes whose credential is a bearer token (OAuth2, http bearer): their 401s carry a Bearer challenge */
  bearerSchemes: ReadonlySet<string>;
  /** the document's top-level security, for operations that declare none */
  globalSecurity: SecurityRequirement[];
  /** the scopes the OAuth2 scheme declares */
  declaredScopes: ReadonlySet<string>;
}

export interface RouteDeps extends SharedRouteDeps {
  handler: AnyHandler;
  /** false for a declared operation that still answers 501 (handlers/index.ts NOT_YET) */
  live?: boolean;
  /** set on model endpoints */
  model?: ModelInfo;
}

export function routeDepsFor(app: App, credentials: ReadonlyArray<Pick<CredentialPlugin, 'name' | 'securityScheme' | 'strategy'>>): SharedRouteDeps {
  const { document } = app.spec;
  const schemes = (document.components?.securitySchemes ?? {}) as Record<string, { type?: string; scheme?: string }>;
  return {
    app,
    strategyFor: strategyMapFor(Object.keys(schemes), credentials),
    bearerSchemes: new Set(Object.keys(schemes).filter((name) => schemes[name]!.type === 'oauth2' || (schemes[name]!.type === 'http' && schemes[name]!.scheme?.toLowerCase() === 'bearer'))),
    globalSecurity: (document.security as SecurityRequirement[] | undefined) ?? [],
    declaredScopes: new Set(scopeNames(document)),
  };
}

/**
 * The team permission an operation that takes `team_id` needs (`x-team-permission`, a name from
 * lib/caller.ts). A live operation that takes `team_id` without declaring one stops
 * start-up, so no team route is ever open to every role by omission.
 */
export function teamPermissionOf(operationId: string, operation: Operation, live: boolean): TeamPermission | undefined {
  const declared = (operation as unknown as Record<string, unknown>)['x-team-permission'];
  if (declared !== undefined && !isTeamPermission(declared)) {
    throw new Error(`${operationId}: x-team-permission must be one of ${TEAM_PERMISSIONS.join(', ')}`);
  }
  const params = (operation.parameters ?? []) as Array<{ name?: string; in?: string }>;
  const body = (operation.requestBody as { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } | undefined)?.content?.['application/json']?.schema?.properties ?? {};
  const takesTeam = params.some((p) => p.name === 'team_id' && p.in !== 'path') || 'team_id' in body;
  if (takesTeam && declared === undefined && live) {
    throw new Error(`${operationId}: takes team_id but declares no x-team-permission (one of ${TEAM_PERMISSIONS.join(', ')})`);
  }
  return declared;
}

/**
 * `team_id` from the query or the body, where the operation declares it (validation checked its
 * type), or from the path of an operation that declares `x-team-permission` (the team key routes,
 * /app/teams/{team_id}/keys). Team management routes without `x-team-permission` check the team
 * in their handler (handlers/teams.ts), so their path `team_id` is not an owner.
 */
function teamIdOf(query: Record<string, unknown>, body: Record<string, unknown>, params: Record<string, unknown>, permission: TeamPermission | undefined): number | undefined {
  const v = query.team_id ?? body.team_id ?? (permission !== undefined && params.team_id !== undefined ? Number(params.team_id) : undefined);
  return typeof v === 'number' ? v : undefined;
}

/**
 * One operation's hapi route options: credentials, scopes and role from its security, payload
 * limits, and the handler step (spec validation, owner resolution, the handler). Pure: it
 * registers nothing, and throws naming the operation when the spec asks for something unknown.
 */
export function routeOptionsFor(operation: Operation, deps: RouteDeps): RouteOptions {
  const { app, handler, model } = deps;
  const operationId = operation.operationId!;
  const extensions = operation as unknown as Record<string, unknown>;
  const security = (operation.security as SecurityRequirement[] | undefined) ?? deps.globalSecurity;
  const isProtected = security.length > 0;
  const routeStrategies = strategiesFor(operationId, security, deps.strategyFor);
  const scopes = requiredScopes(operationId, security, deps.declaredScopes);
  const roles = requiredRoles(operationId, extensions['x-required-role']);
  const sessionMayCall = security.some((requirement) => SESSION_SCHEME in requirement);
  const noImpersonation = refusesImpersonation(operationId, extensions['x-impersonation'], roles, sessionMayCall);
  const refusedStrategies = refusedStrategiesFor(security, deps.strategyFor);
  // On a role operation `team_id` names the team acted on (a wallet to credit), not the caller's
  // owner: the caller always acts as itself there.
  const teamPermission = roles ? undefined : teamPermissionOf(operationId, operation, deps.live ?? true);
  // x-rate-limit, x-audit, x-audit-refusal (handlers/policies.ts); an unknown name stops start-up here.
  const policies = policiesOf(operationId, operation);
  const guarded = hasPolicies(policies);
  // a handler that waits by design (Prefer: wait, an OpenAI-style call) answers within its own bound
  const waitsMs = longestWaitMs(app.config, operationId, model !== undefined);
  const bearerRoute = security.some((requirement) => Object.keys(requirement).some((scheme) => deps.bearerSchemes.has(scheme)));
  const contentTypes = Object.keys((operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content ?? {});
  const hasBody = !['get', 'head', 'delete'].includes(operation.method);
  const rawBody = hasBody && (operation as unknown as Record<string, unknown>)['x-raw-body'] === true;
  const noStore = noStoreOf(operationId, extensions['x-no-store']);
  const { publicUrl } = app.config;
  // Declaring the Idempotency-Key header is the opt-in (its part of this file, below); keys are kept
  // per owner, so a public operation cannot have them.
  const idempotent = declaresIdempotencyKey(operation);
  if (idempotent && !isProtected) throw new Error(`${operationId}: declares the Idempotency-Key header but is public; idempotency keys are kept per caller`);
  // validated from hapi's own parse where the operation allows it (validateParsed, above)
  const validationPlan = parsedValidationPlan(operation);
  // a model endpoint's operation after a catalog reload: its own plan (the input schema may have changed)
  const plans = new WeakMap<Operation, ReturnType<typeof parsedValidationPlan>>();
  // the answer's headers and the rewording of hapi's own refusals (after the audit row, where there is one)
  const answer = (request: Request, h: ResponseToolkit, impersonator: { userId: number } | undefined) => {
    const response = request.response;
    if (impersonator) {
      if (Boom.isBoom(response)) response.output.headers[IMPERSONATED_BY_HEADER] = String(impersonator.userId);
      else response.header(IMPERSONATED_BY_HEADER, String(impersonator.userId));
    }
    const limits = request.app.rateLimitHeaders;
    if (!Boom.isBoom(response)) {
      // an admitted model submit reports its generation limits (handlers/policies.ts)
      if (limits) for (const name of Object.keys(limits)) response.header(name, limits[name]!);
      return h.continue;
    }
    if (limits) for (const name of Object.keys(limits)) response.output.headers[name] ??= limits[name]!;
    const status = response.output.statusCode;
    if (status === 403 && response.message === 'Insufficient scope' && scopes.length) {
      // hapi's own scope refusal, reworded (RFC 6750 section 3.1)
      const missing = scopes.filter((s) => !(callerOf(request)?.scopes as readonly string[] | undefined)?.includes(s)).join(' ');
      response.output.payload = { detail: `insufficient_scope: this operation needs ${missing}`, code: 'insufficient_scope' } as unknown as Boom.Payload;
      response.output.headers['WWW-Authenticate'] = bearerChallenge(publicUrl, { error: 'insufficient_scope', scope: missing });
    } else if (status === 401 && bearerRoute) {
      response.output.headers['WWW-Authenticate'] = bearerChallenge(publicUrl, { error: sentCredential(request) ? 'invalid_token' : 'invalid_request' });
    }
    return h.continue;
  };

  return {
    id: operationId,
    // hapi checks the scopes after authentication and before anything reads the body; API keys
    // and sessions hold all five, an OAuth token exactly its own.
    auth: !isProtected ? false : { strategies: [...routeStrategies, ...refusedStrategies], mode: 'required', ...(scopes.length ? { access: { scope: scopes.map((s) => `+${s}`) } } : {}) },
    ext: {
      onPostAuth: {
        // After authentication (and hapi's scope check), before the handler: the steps that refuse a
        // caller or a body whatever the handler would do. hapi has parsed the body by now.
        method: (request: Request, h: ResponseToolkit) => {
          const caller = callerOf(request);
          if (refusedStrategies.includes(request.auth.strategy ?? '')) {
            throw new SessionRequiredError(`this operation needs ${describeSchemes(security)}; ${CREDENTIAL_NAMES[request.auth.strategy ?? ''] ?? 'this credential'} is not accepted here`);
          }
          // someone acting as a user never does what only the user (or staff as themselves) may
          if (noImpersonation && caller?.impersonator) throw new ImpersonationForbiddenError(`this operation is refused to an impersonated session (opened by user ${caller.impersonator.userId}): only the account's owner may do it`);
          if (roles) {
            // A role, never a scope: only a login session carries its user's role, so no API key,
            // OAuth token or other credential reaches a role route, whoever owns it.
            if (caller?.via !== 'session') throw new SessionRequiredError(`this operation needs a login session of a user with the role ${roles.join(' or ')}; API keys and OAuth tokens are never accepted here`);
            if (!roleAllows(caller.role, roles)) throw new RoleRequiredError(`this operation needs the role ${roles.join(' or ')}; yours is ${caller.role}`);
          }
          if (hasBody && !rawBody && nestsDeeperThan(request.payload, MAX_JSON_DEPTH)) throw tooDeep();
          return h.continue;
        },
      },
      onPreResponse: {
        // A promise only where an audit row is written: every other answer passes without one.
        method: (request: Request, h: ResponseToolkit) => {
          // Every call of a role operation by an authenticated caller is recorded, refusals included,
          // and every request of an impersonated session, with both identities.
          const impersonator = callerOf(request)?.impersonator;
          if (roles || impersonator) return auditAdminCall(app, request, operationId, Boolean(roles)).then(() => answer(request, h, impersonator));
          return answer(request, h, impersonator);
        },
      },
    },
    ...(waitsMs > 0 ? { timeout: { server: ANSWER_TIMEOUT_MS + waitsMs, socket: SOCKET_IDLE_MS + waitsMs } } : {}),
    // an answer that already says (a download's, a redirect's) keeps its own
    ...(noStore ? { cache: { otherwise: 'no-store' } } : {}),
    ...(hasBody ? {
      payload: {
        allow: contentTypes.length ? contentTypes : ['application/json'],
        maxBytes: app.config.maxBodyBytes,
        // A body must say it is JSON: without Content-Type it is refused (415), never guessed.
        defaultContentType: NO_CONTENT_TYPE,
        // plugins/responses.ts times the body out (PAYLOAD_TIMEOUT_MS) and this route answers 408;
        // hapi's own timeout would wait for the rest of the body before answering.
        timeout: false as const,
        parse: !rawBody,
        output: 'data' as const,
        failAction: payloadFailAction,
      },
    } : {}),
    handler: async (request: Request, h: ResponseToolkit) => {
      // The catalog this request runs on, whatever a reload does meanwhile (lib/catalog-reload.ts):
      // a model endpoint takes its operation and model from it; one a reload removed is 404.
      const spec = app.spec;
      let op = operation;
      let current = model;
      if (model) {
        current = spec.models.get(operationId);
        const found = spec.operationById.get(operationId);
        if (!current || !found) throw new NotFoundError(`no model ${operationId} on this gateway; GET /api/v1/models lists them`);
        op = found;
      }
      let plan = validationPlan;
      if (op !== operation) {
        if (!plans.has(op)) plans.set(op, parsedValidationPlan(op));
        plan = plans.get(op) ?? null;
      }
      const idempotencyKey = idempotent ? idempotencyKeyOf(request) : undefined;
      const body = rawBody ? parseRawBody(request) : request.payload === null || request.payload === undefined ? undefined : request.payload;
      const { validator } = spec.api;
      // Compiled from the operation object we hold: openapi-backend's own lazy path looks the
      // operation up by id, a scan over every operation.
      if (validator.requestValidators[operationId] === undefined) {
        validator.requestValidators[operationId] = validator.buildRequestValidatorsForOperation(op);
      }
      const validation: ValidationOutcome = (plan && validateParsed(validator.requestValidators[operationId] ?? [], plan, request, body)) ?? validator.validateRequest(
        {
          method: request.method,
          path: request.path,
          headers: request.headers as Record<string, string | string[]>,
          query: request.query as Record<string, string | string[]>,
          ...(body === undefined ? {} : { body: body as Record<string, unknown> }),
        },
        op,
      );
      if (!validation.valid) throw validationError(toValidationItems((validation.errors ?? []) as unknown as AjvLikeError[]));
      const coerced: { query?: unknown; params?: unknown } = validation.coerced ?? {};
      const query = isObject(coerced.query) ? coerced.query : {};
      const payload = isObject(body) ? body : {};
      const params = isObject(coerced.params) ? coerced.params : { ...request.params };
      refuseUnsafeNumbers({ path: params, query, body });
      const caller = callerOf(request);
      // hapi's auth already refused protected requests without a credential; this keeps the
      // handler's never-null promise even if a route were misconfigured.
      if (isProtected && !caller) throw new UnauthorizedError('missing or invalid credentials: send x-api-key or Authorization: Bearer <token>');
      const ctx: HandlerContext = {
        app,
        request,
        h,
        operationId,
        body: payload,
        query,
        params,
        // The owner is resolved here, once, before the handler runs (membership checked in lib/caller.ts),
        // with the caller's permissions in the owner's team.
        caller: caller && isProtected ? { ...caller, ...await resolveOwnerAccess(app, caller, roles ? undefined : teamIdOf(query, payload, params, teamPermission), teamPermission) } as HandlerContext['caller'] : null,
        audit: {},
        ...(current ? { model: current } : {}),
        // the whitelabel studio's context (plugins/credentials.ts whitelabelPlugin resolved and checked it); handlers apply it
        ...(request.app.studio ? { studio: request.app.studio } : {}),
      };
      // what a role operation's handler adds to its audit row (target, reason), read at onPreResponse
      if (roles) request.app.adminAudit = ctx.audit;
      const run = () => (handler as (ctx: HandlerContext) => Promise<unknown>)(ctx);
      const guardedRun = () => (guarded ? withPolicies(policies, ctx, run) : run());
      if (idempotencyKey === undefined || !ctx.caller) return guardedRun();
      return runIdempotent({
        app, h, operationId, key: idempotencyKey, caller: ctx.caller as NonNullable<HandlerContext['caller']> & { owner: { userId: number; teamId: number | null } },
        request: { method: request.method, path: request.path, query, body: payload },
      }, (idempotency) => {
        ctx.idempotency = idempotency;
        return guardedRun();
      });
    },
  };
}

/** The registered handler of an operation (see registerHandler). */
export function handlerOf(api: App['spec']['api'], operationId: string): AnyHandler | undefined {
  return api.handlers[operationId] as unknown as AnyHandler | undefined;
}

/**
 * The bridge. Route options are computed (and the spec checked) at registration; the routes are
 * added once every credential plugin it is given has registered (hapi's `server.dependency`
 * with an `after` step), so their order in server.register does not matter.
 */
export const specRoutesPlugin: Plugin<{ app: App; credentials: readonly CredentialPlugin[] }> = {
  name: 'mediagate-spec-routes',
  dependencies: ['mediagate-errors'],
  register(server, { app, credentials }) {
    const { api, operations, models } = app.spec;
    const shared = routeDepsFor(app, credentials);
    const routes: ServerRoute[] = [];
    for (const operation of operations) {
      const operationId = operation.operationId!;
      // A plugin serves this one itself (issueToken: plugins/oauth.ts); the catalog checked the value.
      if ((operation as unknown as Record<string, unknown>)['x-handled-by'] !== undefined) continue;
      const handler = handlerOf(api, operationId);
      if (!handler) throw new Error(`${operationId}: no handler registered`);
      const model = models.get(operationId);
      const options = routeOptionsFor(operation, { ...shared, handler, live: !NOT_YET.includes(operationId), ...(model ? { model } : {}) });
      routes.push({ method: operation.method.toUpperCase() as RouteDefMethods, path: operation.path, options });
    }
    let realm: Server | null = null;
    // model endpoints that have a route: a reload adds routes for new ones (a removed one keeps
    // its route, which answers 404 while the catalog lacks it)
    const routed = new Set(routes.filter((r) => models.has((r.options as RouteOptions).id!)).map((r) => (r.options as RouteOptions).id!));
    app.catalog.onNewModels((added, next) => {
      const fresh = added.filter((op) => !routed.has(op.operationId!));
      if (fresh.length === 0) return;
      if (!realm) throw new Error('the server has not started: new model endpoints cannot get routes yet');
      const newRoutes = fresh.map((op): ServerRoute => {
        const handler = handlerOf(next.api, op.operationId!);
        if (!handler) throw new Error(`${op.operationId}: no handler registered`);
        const options = routeOptionsFor(op, { ...shared, handler, live: true, model: next.models.get(op.operationId!)! });
        return { method: op.method.toUpperCase() as RouteDefMethods, path: op.path, options };
      });
      realm.route(newRoutes);
      for (const op of fresh) routed.add(op.operationId!);
    });
    server.dependency(credentials.map((c) => c.name), async (srv) => {
      realm = srv;
      srv.route(routes);
    });
  },
};

/**
 * Registers one operation's handler in openapi-backend's map (the operationId -> handler map
 * spec-routes reads). The bridge calls it with the context it built; openapi-backend's own
 * request handling is not used.
 */
export function registerHandler(api: App['spec']['api'], operationId: string, fn: AnyHandler): void {
  api.handlers[operationId] = fn as unknown as (typeof api.handlers)[string];
}

// ---- the Idempotency-Key convention ----
// The Idempotency-Key convention (README "Idempotent requests"), applied by the route bridge
// (plugins/spec-routes.ts) to every operation that declares the `Idempotency-Key` header
// parameter (`#/components/parameters/IdempotencyKey`): all model endpoints, and any
// money-moving route that adds the same one line to its `parameters`.
//
// The same key and the same request (operation, path, query, body) from the same owner within
// 24 hours get the first answer again (same status, body and headers, plus
// `Idempotent-Replayed: true`) and run nothing. A concurrent duplicate waits for the first to
// answer. Another request under a used key is 409. Only a successful (2xx) answer is kept: a
// failed request frees its key, so the retry runs again. The key is stored only hashed with its
// scope, the request only as a hash.
//
// A request whose process died before its answer was stored (OOM, SIGKILL, a crash, shutdown's
// hard stop) leaves its key `running`. Once that record is older than abandonedAfterMs (below)
// the next retry with the same request takes the key over and runs it. What the dead run may
// already have done is the handler's to find (IdempotentRun in handlers/types.ts): the key's
// first claim records the id its work is to have, a submit creates its prediction under that id,
// and a retry that takes over answers with that prediction when it exists, or creates it under
// the same id (whose primary key forbids a second one); an admin money move stores its answer in
// the transaction that moves the money, so a record still `running` means nothing moved.

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** How long a duplicate waits for the first request to answer before it gets 409. */
const WAIT_MS = 15_000;
const POLL_MS = 40;
/** The least time after which a `running` record counts as abandoned (abandonedAfterMs). */
export const ABANDONED_MIN_MS = 10 * 60_000;
/** How many times the longest route deadline a `running` record must be older than to count as abandoned. */
const ABANDONED_DEADLINES = 3;

/**
 * How long a `running` record must have been held before its request counts as dead and a retry
 * with the key takes it over. Taking over a request that is still alive would run it twice, so
 * this is far above the longest a live request can run: the longest route deadline is hapi's
 * answer timeout (ANSWER_TIMEOUT_MS, 30 s) plus the longest by-design wait of any route under
 * this configuration (longestRouteWaitMs: a `Prefer: wait` submit 60 s, a chat call 2 x
 * CHAT_UPSTREAM_TIMEOUT_MS, up to 2 x 600 s, images IMAGES_WAIT_MS + 20 s). A handler can
 * outlive that deadline (it keeps running after the 503: a database wait of up to 10 s, lock
 * retries, Stripe's 20 s timeout with two retries per call), so the bound is three such
 * deadlines, and never less than 10 minutes: 13.5 minutes with the defaults, at most about an
 * hour. A retry is refused 409 "still being processed" until then. Even past it, a run that was
 * taken over cannot record an answer, move money or create a second prediction (its claim token
 * no longer matches; the prediction id is the key's), so the bound is not the only guard.
 */
export function abandonedAfterMs(config: Config): number {
  return Math.max(ABANDONED_MIN_MS, ABANDONED_DEADLINES * (ANSWER_TIMEOUT_MS + longestRouteWaitMs(config)));
}

/** true when the operation declares the `Idempotency-Key` header parameter: the opt-in. */
export function declaresIdempotencyKey(operation: Operation): boolean {
  const params = (operation.parameters ?? []) as Array<{ name?: string; in?: string }>;
  return params.some((p) => p.in === 'header' && p.name?.toLowerCase() === 'idempotency-key');
}

/** The request's Idempotency-Key, or undefined without one; a malformed key is 400. */
export function idempotencyKeyOf(request: Request): string | undefined {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > IDEMPOTENCY_KEY_MAX_LENGTH || !/^[\x20-\x7e]+$/.test(raw)) {
    throw new InvalidInputError(`Idempotency-Key must be 1-${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters (a UUID is a good choice)`);
  }
  return raw;
}

/** JSON with object keys sorted, so that the same body in another key order is the same request. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).sort().filter((k) => o[k] !== undefined).map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

export interface IdempotentCall {
  app: App;
  h: ResponseToolkit;
  operationId: string;
  key: string;
  /**
   * who the key belongs to: an owner's keys are its own, sandbox and production never share one,
   * and each visitor of an embed code has its own (visitors are strangers to each other)
   */
  caller: { userId: number; isTest: boolean; owner: { userId: number; teamId: number | null }; embed?: { codeId: number; visitorHash: string } };
  /** what makes two requests "the same": method, path, query and body */
  request: { method: string; path: string; query: unknown; body: unknown };
}

function isResponseObject(v: unknown): v is ResponseObject {
  return typeof v === 'object' && v !== null && 'statusCode' in v && 'source' in v && typeof (v as { header?: unknown }).header === 'function';
}

function stored(result: unknown): StoredResponse {
  if (!isResponseObject(result)) return { status: 200, body: result, headers: {} };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers)) {
    if (typeof value === 'string' || typeof value === 'number') headers[name] = String(value);
  }
  // hapi fills in the default status (200) only when it prepares the response
  return { status: result.statusCode ?? 200, body: result.source, headers };
}

function replay(h: ResponseToolkit, answer: StoredResponse): ResponseObject {
  const response = h.response(answer.body as object).code(answer.status);
  for (const [name, value] of Object.entries(answer.headers)) response.header(name, value);
  return response.header('Idempotent-Replayed', 'true');
}

/** The stored name of a key: a hash of the key and whose it is (IdempotentCall['caller']). */
export function idempotencyKeyHash(caller: Pick<IdempotentCall['caller'], 'isTest' | 'owner' | 'embed'>, key: string): string {
  const visitor = caller.embed ? `:embed:${caller.embed.codeId}:${caller.embed.visitorHash}` : '';
  const scope = `${caller.owner.userId}:${caller.owner.teamId ?? '-'}:${caller.isTest ? 'test' : 'live'}${visitor}`;
  return sha256(`${scope}\n${key}`);
}

/** Runs `run` at most once per (owner, key, request) within 24 hours; see the top of this file. */
export async function runIdempotent(call: IdempotentCall, run: (idempotency: IdempotentRun) => Promise<unknown>): Promise<unknown> {
  const { app, caller } = call;
  const keyHash = idempotencyKeyHash(caller, call.key);
  const requestHash = sha256(canonicalJson({ operationId: call.operationId, ...call.request }));
  const abandonAfter = abandonedAfterMs(app.config);
  const deadline = Date.now() + WAIT_MS;
  let token: string;
  let ref: string;
  let takenOver: boolean;
  for (let round = 0; ; round++) {
    const now = app.clock();
    const claim = await claimIdempotencyKey(app.db, { keyHash, userId: caller.userId, operationId: call.operationId, requestHash, ref: newPredictionId(now) }, now, IDEMPOTENCY_TTL_MS, abandonAfter);
    if (claim.kind === 'claimed') {
      ({ token, ref, takenOver } = claim);
      if (takenOver) app.log.warn({ operationId: call.operationId }, 'idempotency key taken over from a request that never answered');
      break;
    }
    let record: typeof claim.record | undefined = claim.record;
    if (record.requestHash !== requestHash) throw usedForAnother();
    // the first request is still running: wait for its answer (or for it to fail and free the key)
    const live = (r: typeof record): boolean => r?.state === 'running' && !isAbandoned(r, app.clock(), abandonAfter);
    while (live(record) && Date.now() < deadline) {
      await sleep(POLL_MS);
      record = await findIdempotencyKey(app.db, keyHash);
      // freed by a failed first request and claimed by another request meanwhile: never its answer
      if (record && record.requestHash !== requestHash) throw usedForAnother();
    }
    if (record?.state === 'done' && record.response) return replay(call.h, record.response);
    // (a key freed or taken over again and again by other requests: this one gives up too)
    if (live(record) || round >= 5) {
      throw new ConflictError('a request with this Idempotency-Key is still being processed; retry once it has answered');
    }
    // freed by a failed first request, or left by a dead or failed one: this one runs (loop to claim it)
  }

  let workDone: (() => Promise<boolean>) | undefined;
  const idempotency: IdempotentRun = {
    workId: ref,
    takenOver,
    watch(done) {
      workDone = done;
    },
    async completeWithin(trx, body) {
      if (!await completeIdempotencyKey(trx, keyHash, token, { status: 200, body, headers: {} })) throw lostKey();
    },
  };
  // A run that failed frees its key, unless its work was done all the same (the handler watches
  // it): the key then stays for the retry, which finds that work instead of doing it again.
  const free = async () => {
    try {
      if (workDone !== undefined && await workDone()) await handOverIdempotencyKey(app.db, keyHash, token);
      else await releaseIdempotencyKey(app.db, keyHash, token);
    } catch (err) {
      app.log.error({ err }, 'could not free an idempotency key');
    }
  };
  let result: unknown;
  try {
    result = await run(idempotency);
  } catch (err) {
    await free();
    throw err;
  }
  const answer = stored(result);
  if (answer.status < 200 || answer.status >= 300) {
    await free();
    return result;
  }
  try {
    // false when completeWithin stored it already
    await completeIdempotencyKey(app.db, keyHash, token, answer);
  } catch (err) {
    // The work is done: answer it. The key stays `running` until it counts as abandoned; the
    // retry that takes it over then finds the work (a submit's prediction under the key's id).
    app.log.error({ err, operationId: call.operationId }, 'could not record an idempotent answer');
  }
  return result;
}

function usedForAnother(): ConflictError {
  return new ConflictError('this Idempotency-Key was already used with a different request (another body, query or operation) in the last 24 hours; send a new key for a new request');
}

function lostKey(): ConflictError {
  return new ConflictError('a retry with this Idempotency-Key took this request over (it had been running too long); it was not run again');
}
