// What every answer carries, whatever route it took:
//   1. its X-Request-Id, its log line and its HTTP metrics (requestLogPlugin);
//   2. an error as JSON, never a bare or internal body (errorsPlugin, and the Boom builders the
//      other plugins answer with);
//   3. with an https PUBLIC_URL, Strict-Transport-Security (transportSecurityPlugin; on the answers
//      written on the socket, the errors plugin's socketHeaders).
import Boom from '@hapi/boom';
import type { Plugin, Request, RequestRoute, ResponseToolkit } from '@hapi/hapi';
import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { App } from '../lib/context.ts';
import { acceptRequestId, seconds } from '../lib/telemetry.ts';
import { clientIp } from '../lib/addresses.ts';
import type { ValidationItem } from '../lib/validation-errors.ts';
import { isDbUnavailable, isLockConflict } from '../db/errors.ts';
import { codeForStatus, DomainError, OpenAIRouteError, ValidationFailedError } from '../lib/errors.ts';
import type { ErrorCode } from '../lib/errors.ts';
import { preflightPathRefused } from './cors.ts';

// ---- 1. The request id, the log line and the metrics
// One structured line per request (on the app's own pino logger), a request id on every answer,
// and the HTTP metrics. The line carries reqId, method, route (the operationId, or the hapi route
// path where there is none), callerId/keyId once authenticated, res.statusCode and responseTime
// (ms), the fields hapi-pino wrote before (issue 15: it made a child logger per request, two
// JSON.stringify calls of its bindings, even with the level silent; one flat line costs a request
// about 0.7-1 µs less at info and 1.4 µs less when request lines are off: test/bench/README.md). Headers, query strings and
// bodies are never put on it, so no credential (Authorization, X-API-Key, cookies, a `code` in a
// callback query) can reach the log by this way.

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

/**
 * The path a log line names: the raw path, except on a route whose path holds a token (a
 * provider's callback address, `{token}`), which is a capability: then the route's template.
 */
export function loggedPath(request: Pick<Request, 'path' | 'params' | 'route'>): string {
  return typeof (request.params as Record<string, unknown> | null)?.token === 'string' ? request.route.path : request.path;
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
      // the caller a credential plugin put on the request (plugins/credentials.ts declares its type)
      const caller = request.auth.credentials?.user?.caller ?? null;
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

// ---- 3. HSTS
// With an https PUBLIC_URL, every answer tells browsers to use https only for this host, for a
// year: no includeSubDomains (other hosts of the domain are not the gateway's to speak for) and no
// preload (a list an operator opts into, hard to leave). Set on the raw response as the request
// arrives, so it is on every answer hapi sends and on those a library writes itself (the OAuth
// token endpoint). An http PUBLIC_URL (the embedded default) sends none: a browser ignores it
// over http anyway, and a local gateway must not pin localhost to https.

// The answers written on the socket before hapi has a request (a malformed request line,
// oversized headers, an unknown Expect: the errors plugin's listeners) get the same header from
// transportSecurityHeaders, passed to that plugin as its `socketHeaders`.

export const HSTS_HEADER = 'Strict-Transport-Security';
export const HSTS_VALUE = 'max-age=31536000';

/** The transport-security headers every answer carries for this PUBLIC_URL: HSTS with https, none with http. */
export function transportSecurityHeaders(publicUrl: string): Readonly<Record<string, string>> {
  return publicUrl.toLowerCase().startsWith('https:') ? { [HSTS_HEADER]: HSTS_VALUE } : {};
}

export const transportSecurityPlugin: Plugin<{ publicUrl: string }> = {
  name: 'mediagate-transport-security',
  register(server, { publicUrl }) {
    const headers = Object.entries(transportSecurityHeaders(publicUrl));
    if (headers.length === 0) return;
    server.ext('onRequest', (request, h) => {
      for (const [name, value] of headers) request.raw.res.setHeader(name, value);
      return h.continue;
    }, { before: ['mediagate-embed', 'mediagate-errors'] });
  },
};

// ---- 2. Errors as JSON
// Every error leaves as JSON: {"detail": "<message>", "code": "<stable code>"}, or for validation
// errors the FastAPI-style {"detail": [{loc, msg, type}], "code": "validation_failed"}. Nothing
// internal leaks into a body. Handlers throw lib/errors.ts classes; httpError and validationError
// stay for the modules not converted yet (and for this edge's own refusals).

type ErrorPayload = { detail?: unknown; code?: ErrorCode };

export function validationError(items: ValidationItem[], status = 422): Boom.Boom {
  const err = Boom.badData('validation failed');
  err.output.statusCode = status;
  err.output.payload = { detail: items, code: status === 422 ? 'validation_failed' : codeForStatus(status) } as unknown as Boom.Payload;
  return err;
}

/** Builds a Boom whose body is exactly {"detail": message}. */
export function httpError(status: number, message: string, headers?: Record<string, string>): Boom.Boom {
  const err = new Boom.Boom(message, { statusCode: status });
  err.output.payload = { detail: message } as unknown as Boom.Payload;
  if (headers) Object.assign(err.output.headers, headers);
  return err;
}

const DEFAULT_MESSAGES: Record<number, string> = {
  400: 'bad request',
  408: 'request body not received in time',
  431: 'request header fields too large',
  401: 'missing or invalid credentials: send x-api-key or Authorization: Bearer <token>',
  403: 'not allowed',
  404: 'not found',
  405: 'method not allowed',
  413: 'request body too large',
  415: 'unsupported media type: send application/json',
  429: 'too many requests',
  500: 'internal server error',
  503: 'service unavailable',
};

declare module '@hapi/hapi' {
  interface RequestApplicationState {
    /** set when the body did not arrive within PAYLOAD_TIMEOUT_MS: the payload step answers 408 */
    payloadTimedOut?: boolean;
    /** the 408's detail when it is not the usual one (a body past its route's deadline) */
    payloadTimeoutDetail?: string;
  }
  interface RouteOptionsApp {
    /**
     * 'idle': the body may take as long as it keeps arriving; 408 when nothing of it has come for
     * PAYLOAD_TIMEOUT_MS while the route waits for it (the upload route: a large video takes longer
     * than that). Otherwise the body must arrive in full within PAYLOAD_TIMEOUT_MS.
     */
    payloadTimeout?: 'idle';
    /**
     * With 'idle': how long (ms from its headers) this request's whole body may take at most,
     * however it keeps arriving; 408 after that. The route's timeouts (server and socket) must
     * outlast the longest, and so must the listener's requestTimeout (server.ts).
     */
    payloadDeadlineMs?: (request: Request) => number;
  }
}

/**
 * How long the server gives a request to be answered (hapi's `timeout.server`) before it answers
 * 503 SERVER_TIMEOUT_DETAIL itself, and how long a socket may stay idle (it must outlast the
 * first); a route whose handler waits by design gets its wait on top of both (plugins/spec-routes.ts).
 */
export const ANSWER_TIMEOUT_MS = 30_000;
export const SOCKET_IDLE_MS = 60_000;

/**
 * Whether hapi's server timeout has run out for this request: its own 503 (Boom.serverUnavailable)
 * is told apart by the time alone, which needs no listener on hapi's request events (one would
 * make hapi build an event for every internal log of every request).
 */
function pastServerTimeout(request: Request): boolean {
  const limit = request.route.settings.timeout?.server;
  return typeof limit === 'number' && Date.now() - request.info.received >= limit;
}

/**
 * The answer to a request the server did not answer in time. Unlike the other 503s (nothing was
 * recorded), its handler may still be running and may still succeed: a submit then runs and is
 * charged. Only a retry with the same Idempotency-Key is safe (plugins/spec-routes.ts: the key
 * stays taken until the first request ends, and then replays its answer).
 */
export const SERVER_TIMEOUT_DETAIL = 'no answer in time: the request may still complete. Retry a model submit only with the same Idempotency-Key (it then answers what the first request did, without running it twice); check the run history (GET /app/get_run_history_data) before sending it again without one';

/** A whole HTTP/1.1 response with a JSON body, for the socket-level paths where hapi has no request; `headers` are added as they are. */
export function rawJsonResponse(status: number, detail: string, headers: Readonly<Record<string, string>> = {}): string {
  const body = JSON.stringify({ detail, code: codeForStatus(status) });
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`;
}

/** The answer to an HTTP/1.1 request without Host (Node's own check is off: server.ts httpListener). */
export const MISSING_HOST_DETAIL = 'the Host header is missing: an HTTP/1.1 request must send one';
/** The answer to an Expect other than 100-continue, which Node would answer with a bare 417. */
export const EXPECTATION_DETAIL = 'the Expect header asks for something this server does not do (it knows only 100-continue); send the request without it';

/** Status and message for an error Node's HTTP parser reports before any request exists. */
function transportError(code: string | undefined): [number, string] {
  if (code === 'HPE_HEADER_OVERFLOW') return [431, DEFAULT_MESSAGES[431]!];
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'request not received in time'];
  return [400, 'malformed HTTP request'];
}

export interface ErrorsOptions {
  log: Logger;
  /** a body must arrive in full within this long (PAYLOAD_TIMEOUT_MS) */
  payloadTimeoutMs?: number;
  trustedProxies?: readonly string[];
  /**
   * Headers for the answers written on the socket, outside hapi's lifecycle (Node's parser
   * errors, an unknown Expect): transportSecurityHeaders(PUBLIC_URL), which hapi's answers get
   * from the transport-security plugin.
   */
  socketHeaders?: Readonly<Record<string, string>>;
}

export const errorsPlugin: Plugin<ErrorsOptions> = {
  name: 'mediagate-errors',
  register(server, { log, payloadTimeoutMs = 10_000, trustedProxies = [], socketHeaders = {} }) {
    // Malformed request lines, oversized headers, header timeouts: Node's parser fails before
    // hapi sees a request, and hapi's own handler answers a bare 400. Answer JSON instead. The
    // raw bytes (err.rawPacket) may hold credentials: never logged.
    server.listener.removeAllListeners('clientError');
    server.listener.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
      const [status, detail] = transportError(err.code);
      const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
      if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
        socket.destroy();
        return;
      }
      log.info({ code: err.code, status, address: socket.remoteAddress }, 'malformed request refused');
      socket.end(rawJsonResponse(status, detail, socketHeaders));
    });

    // An Expect other than 100-continue: without a listener Node answers a bare 417. The same
    // answer, as JSON; the body is not read, so the connection closes after it.
    server.listener.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
      log.info({ code: 'EXPECTATION_FAILED', status: 417, address: req.socket.remoteAddress }, 'malformed request refused');
      const body = JSON.stringify({ detail: EXPECTATION_DETAIL, code: codeForStatus(417) });
      res.writeHead(417, {
        ...socketHeaders,
        [REQUEST_ID_HEADER]: acceptRequestId(req.headers['x-request-id']),
        'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Connection: 'close',
      });
      res.end(body);
    });

    // The smallest body limit of any route (for the 413 below), known once every route is registered.
    let smallestLimit = Infinity;
    server.ext('onPreStart', () => {
      for (const route of server.table()) smallestLimit = Math.min(smallestLimit, route.settings.payload?.maxBytes ?? Infinity);
    });

    // A body trickled in slower than PAYLOAD_TIMEOUT_MS: its reader fails and the request is
    // answered 408 (hapi's own payload timeout would then wait for the rest of the body to drain
    // it, until the 30 s server timeout answered 503). Counted from the end of the headers, on
    // every route that reads a body (whether hapi parses it, hands its raw bytes to the handler
    // (x-raw-body, the OAuth token endpoint) or its stream (uploads)), and on unknown paths (hapi
    // drains their body before its 404). A route with `app.payloadTimeout: 'idle'` gets the same
    // 408 only when nothing of its body has come for that long, or when the whole body has taken
    // longer than its `app.payloadDeadlineMs`.
    server.ext('onRequest', (request: Request, h: ResponseToolkit) => {
      const req = request.raw.req;
      const res = request.raw.res;
      // An HTTP/1.1 request without Host: what Node's requireHostHeader refused with a bare 400
      // (server.ts turns it off), refused here as JSON, before any other plugin's onRequest step
      // (embed's answers preflights) and before the body is read; the connection closes, as Node's did.
      if (!req.headers.host && req.httpVersionMajor === 1 && req.httpVersionMinor === 1) {
        return h.response({ detail: MISSING_HOST_DETAIL, code: codeForStatus(400) }).code(400).header('Connection', 'close').takeover();
      }
      // A preflight for a path the router refuses (a malformed %-escape in a path parameter): the
      // 400 the method itself gets, before hapi's or embed's preflight asserts on the lookup.
      if (request.method === 'options' && preflightPathRefused(request)) throw Boom.badRequest('Invalid request path');
      if (request.method === 'get' || request.method === 'head' || req.complete) return h.continue;
      // A Content-Length over the route's body limit (its payload maxBytes) is 413 on the header,
      // on every route, before anything reads the body. hapi's own check (in its payload step)
      // answers only once it has drained the whole announced body, so a client that sent less
      // than it announced got the payload timeout's 408 instead, and one that sent it all had it
      // read for nothing. The rest is never read: the connection closes after the answer. The
      // route is looked up only for a length over every route's limit (a rare request), so the
      // others pay one comparison. Such a body for no route (an unknown path, or a method the
      // path does not take) is the 404 at once, not read either: hapi would drain all of it first.
      // A smaller body there is drained before the 404, bounded by the payload timeout.
      const declared = Number(req.headers['content-length']);
      if (declared > smallestLimit && request.method !== 'options') {
        const route = matchedRoute(request);
        if (route === null) throw notFoundUnread(request);
        const limit = route?.settings.payload?.maxBytes;
        if (limit !== undefined && declared > limit) {
          throw payloadTooLargeError(`request body too large: this route takes at most ${limit} bytes, and the Content-Length header announces ${declared}`);
        }
      }
      const reading = () => req.readableFlowing === true || req.listenerCount('readable') > 0;
      // The route is asked only if the timer fires (hapi has routed the request by then): a second
      // router lookup on every request with a body cost more than the timer.
      let received = req.socket?.bytesRead ?? 0;
      let deadlineMs: number | undefined;
      const fire = (settled = false) => {
        if (req.complete || res.headersSent) return;
        // A timer that comes due while the process was busy runs before the event loop reads the
        // sockets again: bytes that came in time would look missing. Decided on the next turn,
        // once the loop has read what the socket holds.
        if (!settled) {
          timer = setTimeout(fire, 0, true);
          return;
        }
        const settings = request.route.settings.app;
        let late = false;
        if (settings?.payloadTimeout === 'idle') {
          deadlineMs ??= settings.payloadDeadlineMs?.(request) ?? Infinity;
          const left = deadlineMs - (Date.now() - request.info.received);
          late = left <= 0;
          // still arriving, or held by the server (a handler not reading yet, a slow disk): not the client's delay
          const now = req.socket?.bytesRead ?? 0;
          const moved = now > received;
          received = now;
          if (!late && (moved || !reading())) {
            timer = setTimeout(fire, Math.min(payloadTimeoutMs, left));
            return;
          }
        }
        request.app.payloadTimedOut = true;
        if (late) request.app.payloadTimeoutDetail = `${DEFAULT_MESSAGES[408]}: the whole body may take at most ${Math.ceil(deadlineMs! / 1000)} s`;
        log.info({ method: request.method, path: loggedPath(request), address: clientIp(request, trustedProxies)?.toString(), timeoutMs: payloadTimeoutMs, ...(late ? { deadlineMs } : {}) }, 'request body not received in time');
        // Fails the body for its reader (hapi's payload step, or a handler's stream), which never
        // gets the part that came as if it were the whole body: the payload step's failAction (or
        // the handler's error) becomes the 408; the connection closes after that answer. If
        // nothing reads the body yet (authentication still running), it fails when the reader starts.
        if (reading()) cut();
        else req.once('resume', cut);
      };
      let timer = setTimeout(fire, payloadTimeoutMs);
      // hapi listens for the request's errors (so there is always a listener); its payload step
      // and its drain of an unread body end on one.
      const cut = () => req.emit('error', payloadTimeoutError(request.app.payloadTimeoutDetail));
      const clear = () => {
        clearTimeout(timer);
        req.removeListener('resume', cut);
      };
      // The body read to its end (a slow handler is not a slow body), or an answer without it.
      // Listeners rather than an onPostAuth step: a lifecycle step costs every request, GETs too.
      req.once('end', clear);
      res.once('close', clear);
      res.once('finish', clear);
      return h.continue;
    }, { before: ['mediagate-embed'] });

    server.ext('onPreResponse', (request: Request, h: ResponseToolkit) => {
      const response = request.response;
      if (Boom.isBoom(response) && response.output.statusCode === 503 && !(response instanceof DomainError) && pastServerTimeout(request)) {
        log.warn({ method: request.method, path: loggedPath(request), route: request.route.settings.id }, 'no answer within the server timeout; answered 503, the handler may still finish');
        return h.response({ detail: SERVER_TIMEOUT_DETAIL, code: codeForStatus(503) }).code(503);
      }
      // Whatever a route's payload step made of the cut-off body (a 400, a 404 route), it is a 408.
      if (request.app.payloadTimedOut && !(Boom.isBoom(response) && response.output.statusCode === 408)) {
        return h.response({ detail: request.app.payloadTimeoutDetail ?? DEFAULT_MESSAGES[408], code: codeForStatus(408) }).code(408).header('Connection', 'close');
      }
      if (!Boom.isBoom(response)) return h.continue;
      if (response instanceof DomainError) {
        // hapi boomified it as a 500; the error itself knows its status and code.
        const detail = response instanceof ValidationFailedError ? response.items : response.message;
        response.output.statusCode = response.status;
        response.output.payload = { detail, code: response.code } as unknown as Boom.Payload;
        Object.assign(response.output.headers, response.headers);
        return h.continue;
      }
      // Wherever the database fails (a credential lookup, a handler), the client sees a 503.
      if (response.output.statusCode === 500 && isDbUnavailable(response)) {
        return h.response({ detail: 'database unavailable, try again shortly', code: 'unavailable' }).code(503);
      }
      // A deadlock or lock wait that outlasted withLockRetry: transient, nothing was recorded.
      if (response.output.statusCode === 500 && isLockConflict(response)) {
        log.warn({ err: response, method: request.method, path: loggedPath(request) }, 'database lock conflict persisted; answered 503');
        return h.response({ detail: 'the database is busy, try again shortly', code: 'unavailable' }).code(503);
      }
      // The router's 404 for a path that takes other methods: 405 naming them in `Allow`.
      if (response.output.statusCode === 404 && (request.route.method as string) === '_special') {
        const refused = methodNotAllowed(request);
        if (refused) {
          response.output.statusCode = 405;
          response.output.payload = refused.output.payload;
          Object.assign(response.output.headers, refused.output.headers);
        }
      }
      const status = response.output.statusCode;
      const payload = response.output.payload as unknown as ErrorPayload;
      if (status >= 500 && !(payload && 'detail' in payload)) {
        log.error({ err: response, method: request.method, path: loggedPath(request) }, 'request failed');
      }
      if (!(payload && 'detail' in payload)) {
        // A Boom raised by hapi itself (router 404, auth 401, payload 413/415) or by a library:
        // its message may be internal, so the body gets the status's own wording.
        response.output.payload = { detail: DEFAULT_MESSAGES[status] ?? (status >= 500 ? DEFAULT_MESSAGES[500]! : 'request refused') } as unknown as Boom.Payload;
      }
      const rendered = response.output.payload as unknown as ErrorPayload;
      if (rendered.code === undefined) rendered.code = codeForStatus(status);
      return h.continue;
    });

    // The OpenAI-compatible routes: every error, however made above, in OpenAI's body.
    server.ext('onPreResponse', (request: Request, h: ResponseToolkit) => {
      if (!isOpenAIPath(request.path)) return h.continue;
      const response = request.response;
      if (Boom.isBoom(response)) {
        const param = response instanceof OpenAIRouteError ? response.param : null;
        const { status, body } = openAIErrorBody(response.output.statusCode, response.output.payload as unknown as ErrorPayload, param);
        response.output.statusCode = status;
        response.output.payload = body as unknown as Boom.Payload;
        return h.continue;
      }
      if (response.statusCode >= 400 && typeof response.source === 'object' && response.source !== null && 'detail' in response.source) {
        const { status, body } = openAIErrorBody(response.statusCode, response.source as ErrorPayload);
        return h.response(body).code(status);
      }
      return h.continue;
    });
  },
};

/** The OpenAI-compatible routes (`/v1/...`): their errors use OpenAI's body (docs/api/openai.md). */
export function isOpenAIPath(path: string): boolean {
  return path.startsWith('/v1/');
}

const OPENAI_TYPES: Readonly<Record<number, string>> = {
  401: 'authentication_error', 402: 'insufficient_quota', 403: 'permission_error', 429: 'rate_limit_error',
};

/**
 * A gateway error body ({"detail", "code"}) as OpenAI's: {"error": {message, type, code, param}},
 * with the same status but a validation error's 422, which OpenAI answers 400. `param` is the
 * first field a validation error names, or the one an OpenAIRouteError names.
 */
export function openAIErrorBody(status: number, payload: ErrorPayload, param: string | null = null): { status: number; body: { error: { message: string; type: string; code: string | null; param: string | null } } } {
  const items = Array.isArray(payload.detail) ? payload.detail as ValidationItem[] : undefined;
  const field = (i: ValidationItem) => i.loc.slice(1).join('.');
  const message = items ? items.map((i) => (field(i) ? `${field(i)}: ${i.msg}` : i.msg)).join('; ') : typeof payload.detail === 'string' ? payload.detail : DEFAULT_MESSAGES[status] ?? 'request refused';
  const type = OPENAI_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  return {
    status: status === 422 ? 400 : status,
    body: { error: { message, type, code: payload.code ?? codeForStatus(status), param: param ?? (items?.[0] ? field(items[0]) || null : null) } },
  };
}

/** The 408 a payload step answers after the body timed out: the rest of the body is never read, so the connection closes. */
export function payloadTimeoutError(detail = DEFAULT_MESSAGES[408]!): Boom.Boom {
  return httpError(408, detail, { Connection: 'close' });
}

/** The body limit of the route a request is for, looked up before hapi routes it (undefined: no such route, or a path the router refuses). */
/** The route a request goes to: null when none takes its method and path; undefined when the path cannot be looked up (hapi refuses it later). */
function matchedRoute(request: Request): RequestRoute | null | undefined {
  try {
    return request.server.match(request.method as 'post', request.path, request.info.hostname);
  } catch {
    return undefined;
  }
}

const ROUTED_METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'] as const;

/**
 * The 405 of a request whose path the gateway serves with other methods (`Allow` lists them),
 * or undefined when no route takes the path at all (a 404). A preflight (OPTIONS) is CORS's.
 */
function methodNotAllowed(request: Request): Boom.Boom | undefined {
  if (request.method === 'options') return undefined;
  const allowed = ROUTED_METHODS.filter((method) => {
    try {
      const route = request.server.match(method, request.path, request.info.hostname);
      return route !== null && (route.method as string) !== '_special';
    } catch {
      return false;
    }
  }).map((m) => m.toUpperCase());
  if (allowed.length === 0) return undefined;
  const method = request.method.toUpperCase();
  return httpError(405, `${method} is not allowed on ${request.path}; it takes ${allowed.join(', ')}`, { Allow: allowed.join(', ') });
}

/** The 404 (or 405) of a request no route takes, answered before its body is read: the connection closes. */
function notFoundUnread(request: Request): Boom.Boom {
  const err = methodNotAllowed(request) ?? Boom.notFound();
  err.output.headers.Connection = 'close';
  return err;
}

/** The 413 of a Content-Length over a route's limit: the body is never read, so the connection closes. */
export function payloadTooLargeError(detail: string): Boom.Boom {
  return httpError(413, detail, { Connection: 'close' });
}
