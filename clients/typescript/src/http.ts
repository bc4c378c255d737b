// One JSON request to the gateway: credentials, a time limit per attempt, the caller's
// AbortSignal, and retries with backoff on 429 and 503 that honour Retry-After.
//
// What is retried: a 429 always (the gateway refused it before doing anything); a 503, 502, 504 or
// a connection failure only when repeating the request is safe: a read, a DELETE, or a write that
// carries an Idempotency-Key (the gateway answers a repeat with the first answer, charged once).
import type { Authenticator } from './auth.ts';
import { AbortError, ConnectionError, errorFromResponse, GatewayError, MediagateError, refuseRedirect, TimeoutError } from './errors.ts';
import { linkSignal, sleep, throwIfAborted } from './signal.ts';

export interface RetryPolicy {
  /** retries after the first attempt (default 3) */
  maxRetries: number;
  /** the first backoff step in ms, doubled each retry (default 500) */
  baseDelayMs: number;
  /** the longest backoff, and the longest Retry-After the client waits for (default 30,000) */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 30_000 };

export type Query = Record<string, string | number | boolean | null | undefined>;

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Query | undefined;
  body?: unknown;
  headers?: Record<string, string> | undefined;
  signal?: AbortSignal | undefined;
  /** per attempt; default the client's */
  timeoutMs?: number | undefined;
  /** send no credential (public routes) */
  anonymous?: boolean | undefined;
  /** safe to repeat after a 5xx or a dropped connection (reads, DELETE and idempotent writes are) */
  idempotent?: boolean | undefined;
}

export interface Answer<T> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TransportOptions {
  baseUrl: string;
  fetch: typeof fetch;
  auth: Authenticator | undefined;
  timeoutMs: number;
  retry: RetryPolicy;
  now(): number;
  random(): number;
  /** extra headers on every request */
  headers: Record<string, string>;
}

/** Backoff before retry `n` (0-based): half fixed, half random ("equal jitter"), capped. */
export function backoffMs(n: number, policy: RetryPolicy, random: () => number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** n);
  return Math.round(step / 2 + random() * (step / 2));
}

const RETRY_STATUSES_WHEN_SAFE = new Set([502, 503, 504]);

export class Transport {
  readonly options: TransportOptions;

  constructor(options: TransportOptions) {
    this.options = options;
  }

  url(path: string, query: Query = {}): string {
    const url = new URL(this.options.baseUrl + path);
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
    return url.toString();
  }

  /** The credential and default headers of a request (also used by the event stream). */
  async headersFor(spec: Pick<RequestSpec, 'headers' | 'anonymous'>, signal: AbortSignal | undefined): Promise<Record<string, string>> {
    const auth = spec.anonymous || !this.options.auth ? {} : await this.options.auth.headers(signal);
    return { accept: 'application/json', ...this.options.headers, ...auth, ...spec.headers };
  }

  async request<T>(spec: RequestSpec): Promise<Answer<T>> {
    const { retry } = this.options;
    const safe = spec.idempotent ?? (spec.method === 'GET' || spec.method === 'DELETE');
    let reauthenticated = false;
    for (let attempt = 0; ; attempt++) {
      throwIfAborted(spec.signal);
      let answer: Answer<unknown>;
      try {
        answer = await this.once(spec);
      } catch (err) {
        if (err instanceof ConnectionError && safe && attempt < retry.maxRetries) {
          await sleep(backoffMs(attempt, retry, this.options.random), spec.signal);
          continue;
        }
        throw err;
      }
      const { status, headers, body } = answer;
      if (status < 400) return answer as Answer<T>;
      const error = errorFromResponse(status, headers, body, this.options.now());
      if (status === 401 && !reauthenticated && !spec.anonymous && this.options.auth?.refused()) {
        // a token that lapsed early: one more try with a fresh one, not counted as a retry
        reauthenticated = true;
        attempt--;
        continue;
      }
      const retryable = status === 429 || (safe && RETRY_STATUSES_WHEN_SAFE.has(status));
      if (!retryable || attempt >= retry.maxRetries) throw error;
      const delay = this.delayFor(error, attempt);
      if (delay === undefined) throw error;
      await sleep(delay, spec.signal);
    }
  }

  /** How long to wait before retrying: Retry-After when given (too long: give up), else backoff. */
  private delayFor(error: GatewayError, attempt: number): number | undefined {
    const { retry, random } = this.options;
    if (error.retryAfter !== undefined) {
      const ms = error.retryAfter * 1000;
      if (ms > retry.maxDelayMs) return undefined;
      // a little jitter on top, so clients told the same second do not come back together
      return ms + Math.round(random() * Math.min(1000, retry.baseDelayMs));
    }
    return backoffMs(attempt, retry, random);
  }

  /**
   * The upload's PUT to the address the gateway gave: its own headers only (never the credential:
   * the address may be a storage service's), no time limit but the caller's signal, no retry (the
   * gateway's own addresses are single-use).
   */
  async put(url: string, method: string, headers: Record<string, string>, body: NonNullable<RequestInit['body']>, signal: AbortSignal | undefined): Promise<void> {
    let res: Response;
    try {
      res = await this.options.fetch(url, { method, headers, body, ...(signal ? { signal } : {}) });
    } catch (err) {
      if (signal?.aborted) throw new AbortError('the operation was aborted', { cause: signal.reason });
      throw new ConnectionError(`the upload to ${new URL(url).origin} failed: ${describe(err)}`, { cause: err });
    }
    const text = await res.text();
    if (res.status < 300) return;
    let parsed: unknown = text;
    try { parsed = JSON.parse(text); } catch { /* a storage service's XML or text */ }
    throw errorFromResponse(res.status, res.headers, parsed, this.options.now());
  }

  private async once(spec: RequestSpec): Promise<Answer<unknown>> {
    const linked = linkSignal(spec.signal, spec.timeoutMs ?? this.options.timeoutMs);
    try {
      const headers = await this.headersFor(spec, linked.signal);
      if (spec.body !== undefined) headers['content-type'] = 'application/json';
      const res = await this.options.fetch(this.url(spec.path, spec.query), {
        method: spec.method,
        headers,
        signal: linked.signal,
        ...(spec.body !== undefined ? { body: JSON.stringify(spec.body) } : {}),
        // a redirect would carry the credential to the address it names
        redirect: 'manual',
      });
      await refuseRedirect(this.options.baseUrl, res);
      this.options.auth?.observe(res);
      const text = await res.text();
      let body: unknown = text;
      if ((res.headers.get('content-type') ?? '').includes('json') && text !== '') {
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
      }
      return { status: res.status, headers: res.headers, body };
    } catch (err) {
      if (err instanceof MediagateError) throw err;
      if (linked.timedOut()) throw new TimeoutError(`${spec.method} ${spec.path} got no answer within ${spec.timeoutMs ?? this.options.timeoutMs} ms`);
      if (spec.signal?.aborted) throw new AbortError('the operation was aborted', { cause: spec.signal.reason });
      throw new ConnectionError(`cannot reach the gateway at ${this.options.baseUrl}: ${describe(err)}`, { cause: err });
    } finally {
      linked.done();
    }
  }
}

export function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error ? cause.message : err.message;
  }
  return String(err);
}
