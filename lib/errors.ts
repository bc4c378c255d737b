// The error vocabulary: every expected failure a handler or db/ module raises, each with its HTTP
// status and a stable machine-readable `code`. Transport-free: plugins/errors.ts renders any
// DomainError as {"detail": message, "code": code}; handlers throw these and never import plugins/.
// ERRORS is the one table of codes (fastify's lib/errors.js shape): `npm run docs:gen` renders it
// into docs/api/errors.md, and a test fails when that page is stale.

export interface ErrorInfo {
  /** the statuses this code is answered with */
  readonly status: readonly number[];
  /** when a client gets it, in words a client developer reads (rendered into the errors page) */
  readonly meaning: string;
}

/** Stable codes: clients may branch on them; `detail` is for humans and may be reworded. */
export const ERRORS = {
  invalid_input: { status: [400, 417], meaning: 'a malformed request: an `Idempotency-Key` that is empty, too long or not printable ASCII; a Google sign-in callback whose `state` is unknown, expired or already used; a request the HTTP parser cannot read (a malformed request line or header), or an HTTP/1.1 request without `Host`; a path whose id is a malformed %-escape (`%zz`, a UTF-8 sequence cut short), and the CORS preflight for it; 417: an `Expect` header other than `100-continue` (the connection is then closed)' },
  unauthorized: { status: [401], meaning: 'the credential is missing, unknown, revoked or expired (the account may be scheduled for deletion); a provider callback whose signature does not verify' },
  api_key_expired: { status: [401], meaning: 'an API key used after the `expires_at` set on it' },
  insufficient_credit: { status: [402], meaning: "the paying wallet cannot cover the request's price; `detail` names the price, never the balance" },
  key_spend_limit_exceeded: { status: [402], meaning: "the submitting API key's spend limit for its day or month (UTC) cannot cover the price" },
  budget_exceeded: { status: [402], meaning: "the price would take the paying wallet's credits committed this UTC month past its hard monthly budget (set with `PUT /app/alert_settings`); `detail` names the price and the budget when the wallet is the caller's own; to a user of an `owner_pays` studio or an embed code's visitor it says only that the account that pays has reached its monthly budget. Nothing was held" },
  max_cost_exceeded: { status: [402], meaning: 'the price of a model submit is above the most the request said it would pay (`Max-Cost` header or `max_cost` query parameter); `detail` and `X-Cost` give the price, and nothing was held' },
  forbidden: { status: [403], meaning: "the credential is valid but not allowed: an IP-restricted key used from another address, a team role without the permission, a credential asking for more than it holds, registration closed to this address, a studio's user creating an embed code, creating or joining a team, or creating a team API key" },
  insufficient_scope: { status: [403], meaning: "an OAuth access token without the operation's scope; `WWW-Authenticate` names the scope" },
  session_required: { status: [403], meaning: 'an administrative operation called with an API key or an OAuth token (only a signed-in session carries a role); a valid API key or OAuth token on an operation that takes a signed-in session but not that credential (creating an OAuth client with an API key, requesting account deletion with a token, signing out)' },
  role_required: { status: [403], meaning: "an administrative operation called by a session whose user lacks the role it needs; a support refund above its cap" },
  impersonation_forbidden: { status: [403], meaning: 'an operation a staff member acting as a user may not perform: anything that creates, changes or reveals a credential or secret (API keys, OAuth clients, embed codes, the webhook signing secret), changes who belongs to a team, creates or changes a studio, exports or deletes the account, and every administrative operation; impersonating oneself or a staff account' },
  not_found: { status: [404], meaning: 'an unknown route or id, including an id that belongs to another account and a `team_id` the caller is not a member of: the answer is the same, so it tells nothing about other accounts' },
  method_not_allowed: { status: [405], meaning: 'a method the path does not take (`DELETE /account/balance`); the `Allow` header lists the ones it does. A path the gateway does not serve at all is 404' },
  request_timeout: { status: [408], meaning: 'the request body did not arrive in full within `PAYLOAD_TIMEOUT_MS` of its headers (an upload to `PUT /uploads/…`: nothing of it came for that long, or it took longer in all than its size takes at 100 KiB a second, with at least 5 minutes); the connection is then closed' },
  conflict: { status: [409], meaning: 'the request conflicts with the current state: a duplicate email, slug or name; cancelling a finished prediction; an `Idempotency-Key` reused for another request or still being processed; a deduction or refund beyond what the wallet or charge allows' },
  gone: { status: [410], meaning: 'a one-time link or address already used or expired: a support link, an upload address past its expiry' },
  payload_too_large: { status: [413], meaning: 'a body larger than `MAX_BODY_BYTES`, or an upload over its media type\'s limit. A `Content-Length` over the limit is refused at once, before any of the body is read, and the connection is then closed' },
  unsupported_media_type: { status: [415], meaning: 'a body that is not `application/json` (or sent without `Content-Type`; a POST without a body needs none), or an upload of another content type than the one its address was issued for' },
  validation_failed: { status: [422], meaning: "the input does not match the operation's schema, or is malformed JSON; `detail` is a list of `{loc, msg, type}` naming each field. Unknown body fields and query parameters are refused (`extra_forbidden`); so is a body nested more than 32 levels deep (`json_too_deep`) and, whatever the schema, a number past 2^53 - 1 either way in the path, query or body (`number_unsafe`)" },
  balance_limit: { status: [422], meaning: 'a move of credit (a top-up, a purchase, a refund, a deduction below zero) that would take the wallet past 9,007,199,254,740,991 credits either way (2^53 - 1, the most the gateway keeps exactly); nothing moves' },
  rate_limited: { status: [429], meaning: 'too many requests: failed sign-in, code or reset attempts, code mails, registrations, or model submits past a generation limit; `Retry-After` says when to try again' },
  headers_too_large: { status: [431], meaning: 'request headers larger than 16 KiB' },
  internal: { status: [500], meaning: 'a bug in the gateway; the body never says more, and the request id in `X-Request-Id` finds it in the log' },
  not_implemented: { status: [501], meaning: 'an operation the interface declares that this gateway does not offer yet' },
  bad_gateway: { status: [502], meaning: 'an error answer that reached the gateway from a service in front of it or behind it, without a code of its own' },
  unavailable: { status: [503], meaning: "a dependency is down or the database stayed busy (nothing was recorded: retry), the model's upstream provider is not configured on this gateway, or the request was not answered in time: within 30 s, plus its own wait for a `Prefer: wait` submit and the OpenAI-compatible calls, and plus the time an upload to `PUT /uploads/…` may take (it may still complete: retry with the same `Idempotency-Key`)" },
  timeout: { status: [504], meaning: 'a service the request waited on did not answer in time' },
  embed_code_invalid: { status: [401], meaning: "an unknown or revoked embed code (one of a deleted team included), a code sent in the header of the other kind, or a personal code whose account is scheduled for deletion (also when the code is resolved)" },
  embed_origin_missing: { status: [403], meaning: 'the embed code has allowed origins and the request sent neither `Origin` nor `Referer`' },
  embed_origin_not_allowed: { status: [403], meaning: "the request's `Origin` (else `Referer`) matches none of the embed code's allowed origins" },
  embed_operation_not_allowed: { status: [403], meaning: 'an embed code used on an operation other than a submit to its model(s), reading its own results and resolving itself' },
  embed_model_not_allowed: { status: [403], meaning: 'a model the embed code is not bound to' },
  embed_team_not_allowed: { status: [403], meaning: 'a `team_id` sent with an embed code: a code acts for its owner only' },
  embed_field_not_allowed: { status: [422], meaning: "an input field outside the embed code's `allowed_fields`" },
  embed_webhook_not_allowed: { status: [422], meaning: 'a `webhook` sent with an embed code' },
  embed_visitor_invalid: { status: [422], meaning: 'an `X-Embed-Visitor` this gateway did not issue (send none to get one)' },
  embed_cost_cap_exceeded: { status: [402], meaning: "the price is above the embed code's `max_cost_per_run`" },
  embed_daily_cap_reached: { status: [402], meaning: "the embed code's spend today (UTC) plus this price is above its `daily_cap`" },
  embed_monthly_cap_reached: { status: [402], meaning: "the embed code's spend this month (UTC) plus this price is above its `monthly_cap`" },
  studio_not_found: { status: [404], meaning: 'the whitelabel studio named by `x-whitelabel-studio` is unknown, or is named at a domain that serves another studio' },
  studio_disabled: { status: [403], meaning: "the whitelabel studio named by `x-whitelabel-studio` is disabled (by its owner, or with its owner's erased account or deleted team): in its context its users may only sign in (password, one-time code, password reset), read and end their session, read their profile and the site (getSiteInfo, which says the studio is disabled), export their account and request or cancel its deletion; everything else (registration, runs, keys, the catalog) is refused" },
  studio_forbidden: { status: [403], meaning: "the credential does not belong to the studio: not one of its users, its owner, a member of its owning team, or the team's key" },
  studio_required: { status: [403], meaning: "a studio's user called without the studio's context: send `x-whitelabel-studio` with its slug, or call through one of its domains; also an embed code of a studio's user (made before they were refused one), which never runs" },
  studio_owner_deletion_pending: { status: [403], meaning: "a run (or other spending) by a user of a personal `owner_pays` studio whose owner has scheduled their account's deletion: the owner's wallet would pay, so the studio refuses until the owner cancels the deletion. `end_user_pays` studios and a team's studios are unaffected" },
  // the OpenAI-compatible routes (/v1/chat/completions, /v1/images/generations, /v1/models)
  model_not_found: { status: [404], meaning: 'the `model` of an OpenAI-compatible call names no model of this gateway (or of the studio whose context the request is in); `GET /v1/models` lists them' },
  wrong_model_category: { status: [400], meaning: 'the `model` of an OpenAI-compatible call is of another category than the route serves (an image model on `/v1/chat/completions`); the message names the route to use' },
  upstream_failed: { status: [502], meaning: "the provider of an inline call (`/v1/chat/completions`) failed, refused or broke off its answer, on every provider of the model; nothing is charged. A provider's refusal of the input is a 400 with this code" },
  upstream_timeout: { status: [504], meaning: 'the provider of an inline call sent no answer (or no next chunk of a stream) within `CHAT_UPSTREAM_TIMEOUT_MS`; nothing is charged' },
  // the dashboard's cookie session (lib/session-cookie.ts)
  csrf_token_invalid: { status: [403], meaning: "a state-changing request carried the dashboard's session cookie but not its CSRF token in `X-CSRF-Token` (a page on another site cannot send it); nothing was changed" },
} as const satisfies Readonly<Record<string, ErrorInfo>>;

export type ErrorCode = keyof typeof ERRORS;

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

/** The wallet cannot cover the price; raised by db/wallet/moves.ts holdFor(). */
export class InsufficientCreditError extends DomainError {
  readonly status = 402;
  readonly code = 'insufficient_credit';
  readonly needed: number;
  constructor(needed: number) {
    super(`insufficient credit: this request costs ${needed} credits; see GET /account/balance`);
    this.needed = needed;
  }
}

/** An API key past its `expires_at`; raised by the api-key credential plugin. */
export class ApiKeyExpiredError extends DomainError {
  readonly status = 401;
  readonly code = 'api_key_expired';
}

/** The submitting key's spend limit for its period cannot cover the price. */
export class KeySpendLimitError extends DomainError {
  readonly status = 402;
  readonly code = 'key_spend_limit_exceeded';
}

/**
 * A submit past the paying wallet's hard monthly budget: nothing was held. `detail` (the price and
 * the budget) only when the wallet is the caller's own: a studio's user whose owner pays, or an
 * embed code's visitor, learns that the paying account reached its budget, never the budget.
 */
export class BudgetExceededError extends DomainError {
  readonly status = 402;
  readonly code = 'budget_exceeded';
  constructor(detail: { price: number; budget: number } | null) {
    super(detail
      ? `this request costs ${detail.price} credits, which would take this month's spend past the monthly budget of ${detail.budget} credits; nothing was held`
      : 'the account that pays for this request has reached its monthly budget, so it cannot run now; nothing was held');
  }
}

/** A model submit whose price is above the caller's `Max-Cost`: nothing was held. */
export class MaxCostExceededError extends DomainError {
  readonly status = 402;
  readonly code = 'max_cost_exceeded';
  constructor(price: number, maxCost: number) {
    super(`this request costs ${price} credits, more than its Max-Cost of ${maxCost}; nothing was held`, { 'X-Cost': String(price) });
  }
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
 * impersonation that may not be opened (oneself, a staff account).
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

/** An OpenAI-compatible route's refusal with its own code and status (model_not_found, wrong_model_category, upstream_failed, upstream_timeout). */
export class OpenAIRouteError extends DomainError {
  readonly status: number;
  readonly code: 'model_not_found' | 'wrong_model_category' | 'upstream_failed' | 'upstream_timeout';
  /** the request field at fault, for OpenAI's `param` */
  readonly param: string | null;
  constructor(status: number, code: OpenAIRouteError['code'], message: string, param: string | null = null, headers: Record<string, string> = {}) {
    super(message, headers);
    this.status = status;
    this.code = code;
    this.param = param;
  }
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

/** A move of credit that would take a wallet past 2^53 - 1 credits either way, the most the gateway keeps exactly. */
export class BalanceLimitError extends DomainError {
  readonly status = 422;
  readonly code = 'balance_limit';
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

/** A refusal of an embed-code caller: the status and one of the embed_* codes. */
export class EmbedRefusedError extends DomainError {
  readonly status: number;
  readonly code: ErrorCode;
  constructor(status: 401 | 402 | 403 | 404 | 422, code: Extract<ErrorCode, `embed_${string}`>, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** A refusal in a whitelabel studio's context: the status and one of the studio_* codes. */
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
