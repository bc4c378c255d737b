// One error mapping for every upstream adapter (README "Providers", "Retries and dead-lettering"):
//   network errors, timeouts, 408, 425, 429 (with its Retry-After) and 5xx   -> retryable
//   401/403 (the gateway's own credentials)                                   -> not retryable
//   a moderation refusal                                                      -> content_moderated, never retried
//   404/410 asking about a job the provider accepted (it lost the job)        -> upstream_failed, not retryable
//   other 4xx (the input)                                                     -> not retryable
// Messages reach the API user: they name the provider, never its URL or key, and quote at most
// a truncated detail of the provider's answer with every configured secret redacted.
import { AdapterError } from './types.ts';
import type { AdapterErrorCode } from './types.ts';

const MAX_UPSTREAM_TEXT = 500;
/** statuses a later attempt may well get past (RFC 9110 §15.5.9, RFC 8470 §5.2, RFC 6585 §4) */
const RETRYABLE_STATUS = new Set([408, 425, 429]);
/** error codes providers use for a moderation refusal (OpenAI: content_policy_violation, moderation_blocked) */
const MODERATION_CODES = new Set(['content_policy_violation', 'moderation_blocked', 'content_filter']);

/** Who is being called, for wording errors; `secrets` are cut out of anything shown. */
export interface Caller {
  provider: string;
  secrets: readonly string[];
  signal: AbortSignal;
  /** the wall clock an HTTP-date Retry-After is measured against (tests pin it); Date.now by default */
  wallNow?: () => number;
  /** tells the operator of a provider's misbehaviour the user's error does not show (a warn log line); silent when absent */
  warn?: (fields: Record<string, unknown>, message: string) => void;
}

export function truncate(text: string): string {
  return text.length > MAX_UPSTREAM_TEXT ? `${text.slice(0, MAX_UPSTREAM_TEXT)}...` : text;
}

/** Defence in depth: a provider that echoes our key (or its own URL) must not get it shown to the user. */
export function redact(message: string, secrets: readonly string[]): string {
  let safe = message;
  for (const secret of secrets) if (secret) safe = safe.split(secret).join('[redacted]');
  // Any URL left in a provider's text may carry a signed token or an internal host.
  return safe.replace(/\bhttps?:\/\/[^\s"'<>]+/gi, '[url]');
}

export function upstreamError(caller: Caller, message: string, retryable: boolean, code: AdapterErrorCode, retryAfterMs?: number): AdapterError {
  return new AdapterError(redact(message, caller.secrets), retryable, { code, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
}

export function cancelled(): AdapterError {
  return new AdapterError('cancelled', false, { code: 'upstream_cancelled' });
}

/** Maps a rejected fetch (or body read) to cancellation, timeout or network failure. */
export function transportError(caller: Caller, error: unknown, what: string): AdapterError {
  if (caller.signal.aborted) return cancelled();
  if (error instanceof Error && error.name === 'TimeoutError') {
    return upstreamError(caller, `upstream "${caller.provider}" timed out during ${what}`, true, 'upstream_timeout');
  }
  // undici puts the useful part (ECONNREFUSED, ENOTFOUND...) in `cause`; the URL is left out on purpose.
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const code = cause instanceof Error && 'code' in cause && typeof cause.code === 'string' ? ` (${cause.code})` : '';
  return upstreamError(caller, `could not reach upstream "${caller.provider}" during ${what}${code}`, true, 'upstream_unavailable');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The human detail and machine code of an error body. Understands the shapes the supported
 * providers document: OpenAI's `{"error": {"message", "type", "code"}}`, Replicate's problem
 * details `{"detail", "title"}`, our http-json `{"error": "..."}`, and plain text.
 */
export function errorDetail(body: string): { detail: string; code?: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { detail: body.trim() || 'no details given' };
  }
  if (isRecord(parsed) && Array.isArray(parsed.detail) && isRecord(parsed.detail[0])) {
    // fal's model errors (FastAPI's shape): {"detail": [{"loc", "msg", "type", "url", "input"}]}
    const first = parsed.detail[0];
    const code = typeof first.type === 'string' ? first.type : undefined;
    const detail = typeof first.msg === 'string' && first.msg !== '' ? first.msg : 'no details given';
    return { detail, ...(code ? { code } : {}) };
  }
  if (isRecord(parsed)) {
    const nested = isRecord(parsed.error) ? parsed.error : undefined;
    const code = [nested?.code, nested?.type, parsed.code, parsed.type].find((c): c is string => typeof c === 'string');
    for (const value of [nested?.message, parsed.error, parsed.detail, parsed.message, parsed.title]) {
      if (typeof value === 'string' && value !== '') return { detail: value, ...(code ? { code } : {}) };
    }
    return { detail: 'no details given', ...(code ? { code } : {}) };
  }
  return { detail: body.trim() || 'no details given' };
}

export function isModerationCode(code: string | undefined): boolean {
  return code !== undefined && MODERATION_CODES.has(code);
}

/** OpenAI has refused prompts with `code: null` and only this wording ("...rejected as a result of our safety system"). */
const MODERATION_WORDING = /\brejected (as a result of|by) (our|the) safety system\b/i;

/** A moderation refusal: failed, never retried and never billed. */
export function moderated(caller: Caller, detail?: string): AdapterError {
  const why = detail ? `: ${truncate(detail)}` : '';
  return upstreamError(caller, `upstream "${caller.provider}" refused the request on content policy grounds${why}`, false, 'content_moderated');
}

/** A finished job with nothing in it: failed, never retried and never billed. */
export function emptyResult(caller: Caller): AdapterError {
  return upstreamError(caller, `upstream "${caller.provider}" finished without any output`, false, 'empty_result');
}

/**
 * The error for a non-2xx answer. `retryAfterMs` comes from the answer's Retry-After header.
 * `aboutJob`: the call asked about a job the provider accepted (its status or result), so a 404 or
 * 410 means the provider lost the job: its fault, not the input's.
 */
export function errorForStatus(caller: Caller, status: number, body: string, what: string, retryAfterMs?: number, aboutJob = false): AdapterError {
  const { detail, code } = errorDetail(body);
  if (RETRYABLE_STATUS.has(status) || status >= 500) {
    return upstreamError(caller, `upstream "${caller.provider}" is unavailable (HTTP ${status} during ${what})`, true, 'upstream_unavailable', retryAfterMs);
  }
  if (status === 401 || status === 403) {
    // Our credentials, not the user's input: say so, or the user would keep editing a valid request.
    return upstreamError(caller, `upstream "${caller.provider}" refused the gateway's credentials (HTTP ${status})`, false, 'upstream_credentials');
  }
  if (status >= 400 && status < 500 && (isModerationCode(code) || MODERATION_WORDING.test(detail))) return moderated(caller, detail);
  if (aboutJob && (status === 404 || status === 410)) {
    return upstreamError(caller, `upstream "${caller.provider}" no longer knows the job it accepted (HTTP ${status} during ${what}): it was lost at the provider`, false, 'upstream_failed');
  }
  if (status >= 400) return upstreamError(caller, `upstream rejected the input: ${truncate(detail)}`, false, 'upstream_rejected_input');
  return upstreamError(caller, `upstream "${caller.provider}" answered ${what} with unexpected HTTP ${status}`, false, 'upstream_protocol');
}

/**
 * A Retry-After value (delay-seconds or an HTTP date) in milliseconds from now, or undefined when
 * absent or unreadable. Bounding it is the caller's job.
 */
export function parseRetryAfter(value: string | null | undefined, wallNow = Date.now()): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - wallNow);
}
