// The error vocabulary: every expected failure a handler or db/ module raises, each with its HTTP
// status and a stable machine-readable `code`. Transport-free: plugins/errors.ts renders any
// DomainError as {"detail": message, "code": code}; handlers throw these and never import plugins/.
// README "Errors" lists the codes.

/** Stable codes: clients may branch on them; `detail` is for humans and may be reworded. */
export type ErrorCode =
  | 'invalid_input'
  | 'unauthorized'
  | 'insufficient_credit'
  | 'api_key_expired'
  | 'key_spend_limit_exceeded'
  | 'forbidden'
  | 'insufficient_scope'
  | 'session_required'
  | 'role_required'
  | 'impersonation_forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'gone'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'validation_failed'
  | 'rate_limited'
  | 'internal'
  | 'not_implemented'
  | 'bad_gateway'
  | 'unavailable'
  | 'timeout'
  | 'request_timeout'
  | 'headers_too_large'
  // embed codes (README "Embeds")
  | 'embed_code_invalid'
  | 'embed_origin_missing'
  | 'embed_origin_not_allowed'
  | 'embed_operation_not_allowed'
  | 'embed_model_not_allowed'
  | 'embed_field_not_allowed'
  | 'embed_webhook_not_allowed'
  | 'embed_team_not_allowed'
  | 'embed_visitor_invalid'
  | 'embed_cost_cap_exceeded'
  | 'embed_daily_cap_reached'
  | 'embed_monthly_cap_reached'
  // whitelabel studios (README "Whitelabel studios")
  | 'studio_not_found'
  | 'studio_forbidden'
  | 'studio_required'
  // the dashboard's cookie session (lib/session-cookie.ts)
  | 'csrf_token_invalid';

const CODE_FOR_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: 'invalid_input',
  401: 'unauthorized',
  402: 'insufficient_credit',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  410: 'gone',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'validation_failed',
  429: 'rate_limited',
  431: 'headers_too_large',
  500: 'internal',
  501: 'not_implemented',
  502: 'bad_gateway',
  503: 'unavailable',
  504: 'timeout',
};

/** The code of an error that carries only a status (hapi's own, a library's, a legacy httpError). */
export function codeForStatus(status: number): ErrorCode {
  return CODE_FOR_STATUS[status] ?? (status >= 500 ? 'internal' : 'invalid_input');
}

export abstract class DomainError extends Error {
  abstract readonly status: number;
  abstract readonly code: ErrorCode;
  /** response headers the error implies (Retry-After, WWW-Authenticate) */
  readonly headers: Readonly<Record<string, string>>;
  constructor(message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = new.target.name;
    this.headers = headers;
  }
}

export class InvalidInputError extends DomainError {
  readonly status = 400;
  readonly code = 'invalid_input';
}

export class UnauthorizedError extends DomainError {
  readonly status = 401;
  readonly code = 'unauthorized';
}

/** The wallet cannot cover the price; raised by db/wallet.ts hold(). */
export class InsufficientCreditError extends DomainError {
  readonly status = 402;
  readonly code = 'insufficient_credit';
  readonly needed: number;
  constructor(needed: number) {
    super(`insufficient credit: this request costs ${needed} credits; see GET /account/balance`);
    this.needed = needed;
  }
}

/** An API key past its `expires_at` (README "Key restrictions"); raised by the api-key credential plugin. */
export class ApiKeyExpiredError extends DomainError {
  readonly status = 401;
  readonly code = 'api_key_expired';
}

/** The submitting key's spend limit for its period cannot cover the price (README "Key restrictions"). */
export class KeySpendLimitError extends DomainError {
  readonly status = 402;
  readonly code = 'key_spend_limit_exceeded';
}

export class ForbiddenError extends DomainError {
  readonly status = 403;
  readonly code = 'forbidden';
}

/** A role operation called with another credential than a login session (an API key, an OAuth token). */
export class SessionRequiredError extends DomainError {
  readonly status = 403;
  readonly code = 'session_required';
}

/** A role operation called by a signed-in user whose role is not among those it requires. */
export class RoleRequiredError extends DomainError {
  readonly status = 403;
  readonly code = 'role_required';
}

/**
 * An impersonated session (virtualLogin, supportLogin) on an operation that refuses it, or an
 * impersonation that may not be opened (oneself, a staff account). README "Impersonation and support links".
 */
export class ImpersonationForbiddenError extends DomainError {
  readonly status = 403;
  readonly code = 'impersonation_forbidden';
}

/** Unknown ids and ids that belong to another owner alike. */
export class NotFoundError extends DomainError {
  readonly status = 404;
  readonly code = 'not_found';
}

export class ConflictError extends DomainError {
  readonly status = 409;
  readonly code = 'conflict';
}

/** A unique key already holds this value; raised by db/ (the driver code is mapped in db/errors.ts). */
export class DuplicateError extends ConflictError {}

export class RateLimitedError extends DomainError {
  readonly status = 429;
  readonly code = 'rate_limited';
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number, headers: Record<string, string> = {}) {
    super(message, { ...headers, 'Retry-After': String(retryAfterSeconds) });
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export class NotImplementedError extends DomainError {
  readonly status = 501;
  readonly code = 'not_implemented';
  constructor(message = 'not implemented') {
    super(message);
  }
}

/** A dependency (database, queue, upstream provider) cannot serve the request now. */
export class UnavailableError extends DomainError {
  readonly status = 503;
  readonly code = 'unavailable';
}

/** One entry of a 422 body's `detail` array (FastAPI's shape). */
export interface ValidationItem {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

/** Input the spec's schema accepts but a rule in code refuses; rendered like schema failures. */
export class ValidationFailedError extends DomainError {
  readonly status = 422;
  readonly code = 'validation_failed';
  readonly items: readonly ValidationItem[];
  constructor(items: ValidationItem[]) {
    super('validation failed');
    this.items = items;
  }
}

/** A one-time address or token that has expired (an upload address past its `expires_at`). */
export class GoneError extends DomainError {
  readonly status = 410;
  readonly code = 'gone';
}

/** A body larger than the limit that applies to it (an upload over its media type's limit). */
export class PayloadTooLargeError extends DomainError {
  readonly status = 413;
  readonly code = 'payload_too_large';
}

/** A body of another content type than the one the request was issued for (an upload). */
export class UnsupportedMediaTypeError extends DomainError {
  readonly status = 415;
  readonly code = 'unsupported_media_type';
}

/** A refusal of an embed-code caller (README "Embeds"): the status and one of the embed_* codes. */
export class EmbedRefusedError extends DomainError {
  readonly status: number;
  readonly code: ErrorCode;
  constructor(status: 401 | 402 | 403 | 404 | 422, code: Extract<ErrorCode, `embed_${string}`>, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** A refusal in a whitelabel studio's context (README "Whitelabel studios"): the status and one of the studio_* codes. */
export class StudioRefusedError extends DomainError {
  readonly status: number;
  readonly code: ErrorCode;
  constructor(status: 403 | 404, code: Extract<ErrorCode, `studio_${string}`>, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** A state-changing request made with the dashboard's session cookie but without its CSRF token (lib/session-cookie.ts). */
export class CsrfTokenError extends DomainError {
  readonly status = 403;
  readonly code = 'csrf_token_invalid';
}
