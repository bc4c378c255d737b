// One structured line per request (on the app's own pino logger), a request id on every answer,
// and the HTTP metrics. The line carries reqId, method, route (the operationId, or the hapi route
// path where there is none), callerId/keyId once authenticated, res.statusCode and responseTime
// (ms), the fields hapi-pino wrote before (issue 15: it made a child logger per request, two
// JSON.stringify calls of its bindings, even with the level silent; one flat line costs a request
// about 0.7-1 µs less at info and 1.4 µs less when request lines are off: test/bench/README.md). Headers, query strings and
// bodies are never put on it, so no credential (Authorization, X-API-Key, cookies, a `code` in a
// callback query) can reach the log by this way.
import type { Plugin, Request } from '@hapi/hapi';
import type { App } from '../lib/context.ts';
import { acceptRequestId, seconds } from '../lib/telemetry.ts';
import { callerOf } from './spec-routes.ts';

declare module '@hapi/hapi' {
  interface RequestApplicationState {
    /** X-Request-Id: the client's when it is acceptable, else generated; logged and passed on to the queue */
    requestId?: string;
  }
}

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** The request's id, assigned on first use: this plugin's onRequest step asks for it, before any other plugin's (embed's may answer a preflight there). */
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

/** hapi's own tags of a server log event -> the level of its line (hapi-pino's mapping: the highest level named among the tags, else info). */
const LEVEL_TAGS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

export const requestLogPlugin: Plugin<{ app: App }> = {
  name: 'mediagate-request-log',
  register(server, { app }) {
    const { log } = app;
    server.ext('onRequest', (request, h) => {
      requestIdOf(request);
      return h.continue;
    }, { before: ['mediagate-embed', 'mediagate-errors'] });
    // At the answer, whatever the request went through: refused before authentication (401, 404,
    // 413), answered by a handler, or written by a library on the raw response (the OAuth token
    // endpoint), which never reaches onPreResponse. One listener instead of lifecycle steps.
    server.events.on('response', (request: Request) => {
      const route = routeOf(request);
      const method = request.method.toUpperCase();
      const status = String((request.response as { statusCode?: number } | null)?.statusCode ?? request.raw.res.statusCode);
      const labels = { route, method, status };
      const ms = durationMs(request);
      app.metrics.httpRequests.inc(labels);
      app.metrics.httpDuration.observe(labels, seconds(0, ms));
      if (!log.isLevelEnabled('info')) return;
      const caller = callerOf(request);
      // the status the client was sent (a library's raw answer included)
      const res = { statusCode: request.raw.res.statusCode };
      const who = caller ? { callerId: caller.userId, ...(caller.apiKeyId !== null ? { keyId: caller.apiKeyId } : {}) } : {};
      log.info({ reqId: requestIdOf(request), method, route, ...who, res, responseTime: ms }, 'request completed');
    });
    // hapi's own server events (a client's malformed request: ['connection', 'client', 'error'])
    server.events.on('log', (event) => {
      if (event.error) {
        log.error({ err: event.error, tags: event.tags });
        return;
      }
      const level = LEVEL_TAGS.find((l) => event.tags.includes(l)) ?? 'info';
      log[level]({ tags: event.tags, data: event.data });
    });
  },
};
