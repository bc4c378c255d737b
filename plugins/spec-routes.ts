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

    for (const operation of operations) {
      const operationId = operation.operationId!;
      const handler = api.handlers[operationId] as unknown as ((c: Context, ctx: HandlerContext) => Promise<unknown>) | undefined;
      if (!handler) throw new Error(`${operationId}: no handler registered`);
      const model = models.get(operationId);
      const security = (operation.security as SecurityRequirement[] | undefined) ?? globalSecurity;
      const routeStrategies = strategiesFor(security, strategies);
      if (security.length > 0 && routeStrategies.length === 0) {
        // Every alternative needs a credential this build cannot check yet: the route stays closed.
        app.log.debug({ operationId }, 'no credential strategy available; route answers 401');
      }
      const contentTypes = Object.keys((operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content ?? {});
      const hasBody = !['get', 'head', 'delete'].includes(operation.method);
      const { validator } = api;

      const options: RouteOptions = {
        id: operationId,
        auth: security.length === 0 ? false : routeStrategies.length ? { strategies: routeStrategies, mode: 'required' } : { strategies: ['closed'], mode: 'required' },
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
