// One structured line per request (hapi-pino on the app's own pino logger), a request id on every
// answer, and the HTTP metrics. The line carries reqId, method, route (the operationId, or the
// hapi route path where there is none), callerId/keyId once authenticated, res.statusCode and
// responseTime (ms). Headers, query strings and bodies are never put on it, so no credential
// (Authorization, X-API-Key, cookies, a `code` in a callback query) can reach the log by this way.
import type { Plugin, Request } from '@hapi/hapi';
import HapiPino from 'hapi-pino';
import type { App } from '../lib/context.ts';
import { seconds } from '../lib/metrics.ts';
import { acceptRequestId } from '../lib/request-id.ts';
import { callerOf } from './spec-routes.ts';

declare module '@hapi/hapi' {
  interface RequestApplicationState {
    /** X-Request-Id: the client's when it is acceptable, else generated; logged and passed on to the queue */
    requestId?: string;
  }
}

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** The request's id, assigned on first use: hapi-pino asks for it in its own onRequest step, the first of every request (this plugin is registered first). */
export function requestIdOf(request: Request): string {
  let id = request.app.requestId;
  if (id === undefined) {
    id = acceptRequestId(request.headers['x-request-id']);
    request.app.requestId = id;
    // On the raw response, so it is sent with every answer: hapi's own, errors, and the OAuth
    // token endpoint, which oidc-provider writes itself.
    request.raw.res.setHeader(REQUEST_ID_HEADER, id);
  }
  return id;
}

/** The route label of logs and metrics: the spec's operationId, else the hapi route path (bounded: never the raw path). */
function routeOf(request: Request): string {
  return request.route.settings.id ?? request.route.path;
}

function durationMs(request: Request): number {
  const { info } = request;
  return (info.completed || info.responded || Date.now()) - info.received;
}

export const requestLogPlugin: Plugin<{ app: App }> = {
  name: 'mediagate-request-log',
  async register(server, { app }) {
    // Before hapi-pino's own 'response' listener (podium calls listeners in the order they were
    // added), so the line it writes next carries these. Route and caller are added at the answer,
    // whatever the request went through: refused before authentication (401, 404, 413), answered
    // by a handler, or written by a library on the raw response (the OAuth token endpoint), which
    // never reaches onPreResponse. One listener instead of two lifecycle steps per request.
    server.events.on('response', (request: Request) => {
      const route = routeOf(request);
      const caller = callerOf(request);
      // setBindings: onto the request's own child logger (hapi-pino's onRequest step made it), no second child per request
      request.logger?.setBindings(caller
        ? { route, callerId: caller.userId, ...(caller.apiKeyId !== null ? { keyId: caller.apiKeyId } : {}) }
        : { route });
      const status = String((request.response as { statusCode?: number } | null)?.statusCode ?? request.raw.res.statusCode);
      const labels = { route, method: request.method.toUpperCase(), status };
      app.metrics.httpRequests.inc(labels);
      app.metrics.httpDuration.observe(labels, seconds(0, durationMs(request)));
    });
    await server.register({
      plugin: HapiPino,
      options: {
        // Our pino 10 logger (hapi-pino ships pino 9): it only calls child() and reads levels and
        // serializers, which pino 10 keeps, so the request lines share the app's level, base
        // fields (role) and destination.
        instance: app.log as unknown as NonNullable<HapiPino.Options['instance']>,
        getChildBindings: (request: Request) => ({ reqId: requestIdOf(request), method: request.method.toUpperCase() }),
        serializers: { res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }) },
        customRequestCompleteMessage: () => 'request completed',
        // Only the per-request line: 5xx errors are logged by plugins/errors.ts, with context.
        logEvents: ['response'],
        logRequestStart: false,
        logPayload: false,
        logQueryParams: false,
        logPathParams: false,
      },
    });
  },
};
