// The spec -> route bridge. One hapi route per spec operation, generated at start-up, so
// routing is hapi's (constant in the number of operations) instead of openapi-backend's
// per-request scan; openapi-backend validates each request against its operation object
// and holds the operationId -> handler map.
import Boom from '@hapi/boom';
import type { Plugin, Request, ResponseToolkit, RouteOptions, Lifecycle, RouteDefMethods } from '@hapi/hapi';
import type { Operation, Context } from 'openapi-backend';
import type { App } from '../app.ts';
import { callerOf, STRATEGY_FOR_SCHEME } from './auth.ts';
import { httpError, validationError } from './errors.ts';
import { bearerChallenge } from './oauth-challenge.ts';
import { toValidationItems } from './validation-errors.ts';
import type { AjvLikeError } from './validation-errors.ts';
import type { Handler, HandlerContext } from '../handlers/types.ts';

type SecurityRequirement = Record<string, string[]>;

/** hapi strategies for an operation's security alternatives; [] means public. */
export function strategiesFor(security: SecurityRequirement[] | undefined, available: ReadonlySet<string>): string[] {
  const strategies: string[] = [];
  for (const requirement of security ?? []) {
    for (const scheme of Object.keys(requirement)) {
      const strategy = STRATEGY_FOR_SCHEME[scheme];
      if (strategy && available.has(strategy) && !strategies.includes(strategy)) strategies.push(strategy);
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

const ROLES = ['admin'] as const;

function hasBearer(request: Request): boolean {
  const header = request.headers.authorization;
  return typeof header === 'string' && /^Bearer\s+\S/i.test(header);
}

const payloadFailAction: Lifecycle.Method = (_request, _h, err) => {
  const status = Boom.isBoom(err) ? err.output.statusCode : 400;
  if (status === 413) throw httpError(413, 'request body too large');
  if (status === 415) throw validationError([{ loc: ['body'], msg: 'Unsupported media type: send application/json', type: 'content_type' }], 415);
  throw validationError([{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }]);
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export const specRoutesPlugin: Plugin<{ app: App; strategies: ReadonlySet<string> }> = {
  name: 'mediagate-spec-routes',
  dependencies: ['mediagate-errors', 'mediagate-auth'],
  register(server, { app, strategies }) {
    const { api, operations, models, document } = app.spec;
    const globalSecurity = (document.security as SecurityRequirement[] | undefined) ?? [];
    const schemes = document.components.securitySchemes as Record<string, { flows?: { clientCredentials?: { scopes?: Record<string, string> } } }> | undefined;
    const declaredScopes = new Set(Object.keys(schemes?.OAuth2?.flows?.clientCredentials?.scopes ?? {}));
    const { publicUrl } = app.config;

    for (const operation of operations) {
      const operationId = operation.operationId!;
      const extensions = operation as unknown as Record<string, unknown>;
      // A plugin serves this one itself (issueToken: plugins/oauth.ts); the catalog checked the value.
      if (extensions['x-handled-by'] !== undefined) continue;
      const handler = api.handlers[operationId] as unknown as ((c: Context, ctx: HandlerContext) => Promise<unknown>) | undefined;
      if (!handler) throw new Error(`${operationId}: no handler registered`);
      const model = models.get(operationId);
      const security = (operation.security as SecurityRequirement[] | undefined) ?? globalSecurity;
      const routeStrategies = strategiesFor(security, strategies);
      const scopes = requiredScopes(operationId, security, declaredScopes);
      const role = extensions['x-required-role'];
      if (role !== undefined && !(ROLES as readonly unknown[]).includes(role)) throw new Error(`${operationId}: x-required-role must be one of ${ROLES.join(', ')}`);
      const bearerRoute = routeStrategies.includes('session') || routeStrategies.includes('oauth');
      if (security.length > 0 && routeStrategies.length === 0) {
        // Every alternative needs a credential this build cannot check yet: the route stays closed.
        app.log.debug({ operationId }, 'no credential strategy available; route answers 401');
      }
      const contentTypes = Object.keys((operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content ?? {});
      const hasBody = !['get', 'head', 'delete'].includes(operation.method);
      const { validator } = api;

      const options: RouteOptions = {
        id: operationId,
        auth: security.length === 0 ? false : routeStrategies.length
          // hapi checks the scopes after authentication and before anything reads the body; API keys
          // and sessions hold all five, an OAuth token exactly its own.
          ? { strategies: routeStrategies, mode: 'required', ...(scopes.length ? { access: { scope: scopes.map((s) => `+${s}`) } } : {}) }
          : { strategies: ['closed'], mode: 'required' },
        ext: {
          ...(role === 'admin' ? {
            // A role, never a scope: no token or key of a normal user reaches an admin route.
            onPostAuth: {
              method: (request: Request, h: ResponseToolkit) => {
                if (callerOf(request)?.role !== 'admin') throw httpError(403, 'this operation needs the administrator role');
                return h.continue;
              },
            },
          } : {}),
          onPreResponse: {
            method: (request: Request, h: ResponseToolkit) => {
              const response = request.response;
              if (!Boom.isBoom(response)) return h.continue;
              const status = response.output.statusCode;
              if (status === 403 && response.message === 'Insufficient scope' && scopes.length) {
                // hapi's own scope refusal, reworded (RFC 6750 section 3.1)
                const missing = scopes.filter((s) => !(callerOf(request)?.scopes as readonly string[] | undefined)?.includes(s)).join(' ');
                response.output.payload = { detail: `insufficient_scope: this operation needs ${missing}`, code: 'insufficient_scope' } as unknown as Boom.Payload;
                response.output.headers['WWW-Authenticate'] = bearerChallenge(publicUrl, { error: 'insufficient_scope', scope: missing });
              } else if (status === 401 && bearerRoute) {
                response.output.headers['WWW-Authenticate'] = bearerChallenge(publicUrl, { error: hasBearer(request) ? 'invalid_token' : 'invalid_request' });
              }
              return h.continue;
            },
          },
        },
        ...(hasBody ? {
          payload: {
            allow: contentTypes.length ? contentTypes : ['application/json'],
            maxBytes: app.config.maxBodyBytes,
            parse: true,
            output: 'data' as const,
            failAction: payloadFailAction,
          },
        } : {}),
        handler: async (request: Request, h: ResponseToolkit) => {
          const body = request.payload === null || request.payload === undefined ? undefined : request.payload;
          // Compiled from the operation object we hold: openapi-backend's own lazy path looks the
          // operation up by id, a scan over every operation.
          if (validator.requestValidators[operationId] === undefined) {
            validator.requestValidators[operationId] = validator.buildRequestValidatorsForOperation(operation);
          }
          const validation = validator.validateRequest(
            {
              method: request.method,
              path: request.path,
              headers: request.headers as Record<string, string | string[]>,
              query: request.query as Record<string, string | string[]>,
              ...(body === undefined ? {} : { body: body as Record<string, unknown> }),
            },
            operation,
          );
          if (!validation.valid) throw validationError(toValidationItems((validation.errors ?? []) as unknown as AjvLikeError[]));
          const coerced: { query?: unknown; params?: unknown } = validation.coerced ?? {};
          const ctx: HandlerContext = {
            app,
            request,
            h,
            operationId,
            body: isObject(body) ? body : {},
            query: isObject(coerced.query) ? coerced.query : {},
            params: isObject(coerced.params) ? coerced.params : { ...request.params },
            caller: callerOf(request),
            ...(model ? { model } : {}),
          };
          return handler({ api, operation, request: coerced, validation } as unknown as Context, ctx);
        },
      };
      server.route({ method: operation.method.toUpperCase() as RouteDefMethods, path: operation.path, options });
    }
  },
};

/** Registers one operation's handler with openapi-backend, wrapped to receive the gateway's context. */
export function registerHandler(api: App['spec']['api'], operationId: string, fn: Handler): void {
  api.handlers[operationId] = (_c: Context, ctx: HandlerContext) => fn(ctx);
}
