// Errors the client throws. A gateway error carries the body's stable `code` (one of the gateway's
// ErrorCode values; a newer gateway may send one this client does not know yet), its status and
// its request id; the class says what kind of failure it is, so callers can `instanceof` or
// switch on `code`.
import type { ErrorCode } from './generated/v1.ts';
import type { Prediction } from './types.ts';

export type { ErrorCode };

/** One entry of a 422's `detail` list: where (`["body", "width"]`) and what. */
export interface ValidationIssue {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

export interface GatewayErrorFields {
  status: number;
  code: ErrorCode | (string & {});
  detail: string;
  requestId?: string | undefined;
  /** seconds, from `Retry-After` */
  retryAfter?: number | undefined;
  issues?: ValidationIssue[] | undefined;
  body?: unknown;
}

/** Every error this client throws. */
export class MediagateError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The gateway answered with an error status. */
export class GatewayError extends MediagateError {
  readonly status: number;
  readonly code: ErrorCode | (string & {});
  readonly detail: string;
  readonly requestId: string | undefined;
  readonly retryAfter: number | undefined;
  readonly issues: ValidationIssue[];
  readonly body: unknown;

  constructor(fields: GatewayErrorFields) {
    super(`${fields.status} ${fields.code}: ${fields.detail}`);
    this.status = fields.status;
    this.code = fields.code;
    this.detail = fields.detail;
    this.requestId = fields.requestId;
    this.retryAfter = fields.retryAfter;
    this.issues = fields.issues ?? [];
    this.body = fields.body;
  }
}

/** 401: no credential, or one the gateway refused (unknown, revoked, expired). */
export class AuthenticationError extends GatewayError {}
/** 403: a valid credential that may not do this (scope, role, IP restriction, embed rule). */
export class PermissionError extends GatewayError {}
/** 402: the wallet, or the key's spend limit, cannot cover the price. */
export class InsufficientCreditError extends GatewayError {}
/** 404: no such resource for this caller (another account's ids are not found too). */
export class NotFoundError extends GatewayError {}
/** 409 or 410: the request conflicts with the resource's state (or an Idempotency-Key's first use). */
export class ConflictError extends GatewayError {}
/** 400, 413, 415, 422: the input was refused; `issues` lists the fields of a 422. */
export class ValidationError extends GatewayError {}
/** 429: a rate limit; `retryAfter` says when to try again. */
export class RateLimitError extends GatewayError {}
/** 503 and other 5xx: the gateway or a dependency is unavailable. */
export class ServerError extends GatewayError {}

/** The gateway could not be reached (DNS, connection refused, reset). */
export class ConnectionError extends MediagateError {}

/** A request or a wait outlived its time limit. */
export class TimeoutError extends MediagateError {
  /** the prediction being waited for, when a wait timed out */
  readonly prediction: Prediction | undefined;
  constructor(message: string, prediction?: Prediction) {
    super(message);
    this.prediction = prediction;
  }
}

/** The caller's AbortSignal fired. */
export class AbortError extends MediagateError {}

/** `run` or `wait` ended on a prediction that failed or was cancelled. */
export class PredictionFailedError extends MediagateError {
  readonly prediction: Prediction;
  constructor(prediction: Prediction) {
    super(`prediction ${prediction.id} ${prediction.status}${prediction.error ? `: ${prediction.error}` : ''}`);
    this.prediction = prediction;
  }
}

/** A webhook request whose signature or timestamp does not check out. */
export class WebhookVerificationError extends MediagateError {}

/**
 * Refuses an answer that is a redirect. Requests that may carry a credential follow none
 * (`redirect: 'manual'`): fetch sends every header but Authorization on to the address a redirect
 * names, so an API key or embed code would leave the gateway it was issued for.
 */
export async function refuseRedirect(baseUrl: string, res: Response): Promise<void> {
  // a browser hides a redirect it did not follow: an opaque answer, status 0, no Location
  const opaque = res.type === 'opaqueredirect';
  if (!opaque && (res.status < 300 || res.status >= 400)) return;
  await res.body?.cancel().catch(() => {});
  const location = opaque ? null : res.headers.get('location');
  let where = 'another address';
  if (location) {
    try { where = new URL(location, baseUrl).href; } catch { where = JSON.stringify(location.slice(0, 200)); }
  }
  throw new MediagateError(`the gateway at ${baseUrl} answered a redirect${opaque ? '' : ` (${res.status})`} to ${where}; redirects are not followed, so the credential goes to no other address: if that is the gateway, use it as baseUrl`);
}

function classFor(status: number): typeof GatewayError {
  if (status === 401) return AuthenticationError;
  if (status === 402) return InsufficientCreditError;
  if (status === 403) return PermissionError;
  if (status === 404) return NotFoundError;
  if (status === 409 || status === 410) return ConflictError;
  if (status === 429) return RateLimitError;
  if (status === 400 || status === 413 || status === 415 || status === 422) return ValidationError;
  if (status >= 500) return ServerError;
  return GatewayError;
}

const CODE_FOR_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: 'invalid_input', 401: 'unauthorized', 402: 'insufficient_credit', 403: 'forbidden', 404: 'not_found',
  405: 'method_not_allowed', 408: 'request_timeout', 409: 'conflict', 410: 'gone', 413: 'payload_too_large',
  415: 'unsupported_media_type', 422: 'validation_failed', 429: 'rate_limited', 431: 'headers_too_large',
  500: 'internal', 501: 'not_implemented', 502: 'bad_gateway', 503: 'unavailable', 504: 'timeout',
};

function isIssue(x: unknown): x is ValidationIssue {
  return typeof x === 'object' && x !== null && Array.isArray((x as ValidationIssue).loc) && typeof (x as ValidationIssue).msg === 'string';
}

/** `Retry-After` as seconds: a number of seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * The error for an answer: `{"detail": "...", "code": "..."}`, a 422's list in `detail`, an OAuth
 * token endpoint's `{"error", "error_description"}`, or no JSON at all (a proxy's page).
 */
export function errorFromResponse(status: number, headers: Headers, body: unknown, now: number): GatewayError {
  let detail = `the gateway answered ${status}`;
  let code: string = CODE_FOR_STATUS[status] ?? (status >= 500 ? 'internal' : 'invalid_input');
  let issues: ValidationIssue[] | undefined;
  if (typeof body === 'object' && body !== null) {
    const b = body as Record<string, unknown>;
    if (typeof b.code === 'string') code = b.code;
    else if (typeof b.error === 'string') code = b.error;
    if (typeof b.detail === 'string') detail = b.detail;
    else if (Array.isArray(b.detail)) {
      issues = b.detail.filter(isIssue);
      detail = issues.map((i) => `${i.loc.slice(1).join('.') || i.loc.join('.')}: ${i.msg}`).join('; ') || detail;
    } else if (typeof b.error_description === 'string') detail = b.error_description;
  } else if (typeof body === 'string' && body.trim() !== '') {
    detail = body.trim().slice(0, 200);
  }
  const Kind = classFor(status);
  return new Kind({
    status,
    code,
    detail,
    requestId: headers.get('x-request-id') ?? undefined,
    retryAfter: parseRetryAfter(headers.get('retry-after'), now),
    issues,
    body,
  });
}
