// Every error leaves as JSON: {"detail": "<message>"}, or for validation errors the
// FastAPI-style {"detail": [{loc, msg, type}]}. Nothing internal leaks into a body.
import Boom from '@hapi/boom';
import type { Plugin, Request, ResponseToolkit } from '@hapi/hapi';
import type { ValidationItem } from './validation-errors.ts';
import type { Logger } from 'pino';
import { isDbUnavailable, isLockConflict } from '../db/errors.ts';

export function validationError(items: ValidationItem[], status = 422): Boom.Boom {
  const err = Boom.badData('validation failed');
  err.output.statusCode = status;
  err.output.payload = { detail: items } as unknown as Boom.Payload;
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

export const errorsPlugin: Plugin<{ log: Logger }> = {
  name: 'mediagate-errors',
  register(server, { log }) {
    server.ext('onPreResponse', (request: Request, h: ResponseToolkit) => {
      const response = request.response;
      if (!Boom.isBoom(response)) return h.continue;
      // Wherever the database fails (a credential lookup, a handler), the client sees a 503.
      if (response.output.statusCode === 500 && isDbUnavailable(response)) {
        return h.response({ detail: 'database unavailable, try again shortly' }).code(503);
      }
      // A deadlock or lock wait that outlasted withLockRetry: transient, nothing was recorded.
      if (response.output.statusCode === 500 && isLockConflict(response)) {
        log.warn({ err: response, method: request.method, path: request.path }, 'database lock conflict persisted; answered 503');
        return h.response({ detail: 'the database is busy, try again shortly' }).code(503);
      }
      const status = response.output.statusCode;
      const payload = response.output.payload as unknown as { detail?: unknown };
      if (status >= 500 && !(payload && 'detail' in payload)) {
        log.error({ err: response, method: request.method, path: request.path }, 'request failed');
      }
      if (!(payload && 'detail' in payload)) {
        // A Boom raised by hapi itself (router 404, auth 401, payload 413/415) or by a library:
        // its message may be internal, so the body gets the status's own wording.
        response.output.payload = { detail: DEFAULT_MESSAGES[status] ?? (status >= 500 ? DEFAULT_MESSAGES[500]! : 'request refused') } as unknown as Boom.Payload;
      }
      return h.continue;
    });
  },
};
