// Chat completions run inline, for POST /v1/chat/completions: the API process calls an
// OpenAI-compatible provider (OpenAI, OpenRouter, Together, vLLM, llama.cpp, Ollama: anything
// that serves `POST {base}/chat/completions`) while its client waits, and relays the answer.
// Contract from OpenAI's API reference:
//
//   POST {base}/chat/completions {"model", "messages", ...}
//     stream false -> {"id", "object": "chat.completion", "choices": [...], "usage": {...}}
//     stream true  -> text/event-stream of `data: {chat.completion.chunk}` events, then
//                     `data: [DONE]`; with stream_options.include_usage a last chunk with
//                     `choices: []` and `usage` (servers that do not know the option ignore it
//                     or report no usage: the caller then counts what it relayed)
//   Errors {"error": {"message", "type", "param", "code"}} with an HTTP status.
//
// Failover between the model's providers happens before the first token only: a provider that
// cannot be reached, answers an error status, or ends its stream before any chunk is tried after
// the next one; once a chunk has been handed on, a failure ends the call.
import { requireUpstream } from './upstream-config.ts';
import { readCapped } from '../../lib/read-capped.ts';
import { describeSize, joinUrl, MAX_ANSWER_BYTES } from './upstream-http.ts';
import { redact } from './upstream-errors.ts';
import type { AdapterEnv, ModelRef } from './types.ts';

/**
 * The most tokens a provider's reported usage may count, each of input and output: what a
 * prediction's token counts hold (32-bit columns). A larger count is not believed (the tokens
 * are counted by the gateway instead, as when no usage is reported); the charge is capped by the
 * hold either way.
 */
const MAX_REPORTED_TOKENS = 2_147_483_647;

/** A token count a provider reported, when the gateway believes and can record it (a whole number from 0 to MAX_REPORTED_TOKENS). */
export const reportedTokenCount = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= MAX_REPORTED_TOKENS ? v : undefined);

/** One provider of a model, as configured. */
export interface ChatProvider {
  name: string;
  url: string;
  key: string | undefined;
  upstreamModel: string;
}

/** Why a chat call ended without an answer; `status` is the provider's HTTP status when it sent one. */
export class ChatUpstreamError extends Error {
  readonly code: 'upstream_timeout' | 'upstream_failed' | 'upstream_rejected_input' | 'cancelled';
  readonly status: number | undefined;
  /** the provider's own error body, when it sent one */
  readonly upstreamError: Record<string, unknown> | undefined;
  constructor(message: string, code: ChatUpstreamError['code'], status?: number, upstreamError?: Record<string, unknown>) {
    super(message);
    this.code = code;
    this.status = status;
    this.upstreamError = upstreamError;
  }
}

/**
 * A provider's failure, worded for the caller (it reaches the API answer, the stream's error event
 * and the prediction's recorded error): the provider's key and URL cut out, and any other URL in
 * its text too (it may carry a token or name an internal host), as the job adapters do.
 */
function providerError(provider: ChatProvider, message: string, code: ChatUpstreamError['code'], status?: number, upstreamError?: Record<string, unknown>): ChatUpstreamError {
  return new ChatUpstreamError(redact(message, [provider.key ?? '', provider.url]), code, status, upstreamError);
}

/** What a failed fetch or body read says without its message (undici's can name the URL): the cause's code, as ECONNREFUSED. */
function causeCode(err: unknown): string {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  return cause instanceof Error && 'code' in cause && typeof cause.code === 'string' ? ` (${cause.code})` : '';
}

/** The configured providers of a model, in failover order (its providers the environment configures). */
export function chatProviders(env: AdapterEnv, model: ModelRef & { providers?: ReadonlyArray<{ upstream?: string; upstreamModel?: string }> }): ChatProvider[] {
  const list = model.providers?.length ? model.providers : [model];
  const out: ChatProvider[] = [];
  for (const p of list) {
    if (!p.upstream || !p.upstreamModel || !env.upstreams.has(p.upstream)) continue;
    const { name, upstream } = requireUpstream(env, { ...model, upstream: p.upstream, upstreamModel: p.upstreamModel });
    out.push({ name, url: upstream.url, key: upstream.key, upstreamModel: p.upstreamModel });
  }
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface ChatCallOptions {
  /** the client went away: the provider's call is aborted */
  signal: AbortSignal;
  /** the longest wait for the provider's answer (non-stream), its first chunk, or the next chunk (stream) */
  timeoutMs: number;
  /**
   * the longest wait for an answer (non-stream) or a first chunk (stream) across the providers
   * tried in turn: past it no other provider is tried, and the one being tried has only what is
   * left of it; none when absent
   */
  totalMs?: number;
  /** tells the operator of a provider's misbehaviour the caller's error does not show (a warn log line) */
  warn?: (fields: Record<string, unknown>, message: string) => void;
}

/**
 * A non-streamed answer's body (or an error's), at most MAX_ANSWER_BYTES of it: past that reading
 * stops, the connection is closed and the operator warned; undefined then.
 */
async function answerText(res: Response, provider: ChatProvider, opts: ChatCallOptions): Promise<string | undefined> {
  const text = await readCapped(res, MAX_ANSWER_BYTES);
  if (text === undefined) {
    opts.warn?.({ provider: provider.name, status: res.status, limitBytes: MAX_ANSWER_BYTES }, `the chat provider "${provider.name}" sent an answer larger than ${describeSize(MAX_ANSWER_BYTES)}: the rest was not read and the connection was closed`);
  }
  return text;
}

/**
 * A provider's error answer as a ChatUpstreamError: its 4xx (but 401/403/408/429) are the input's
 * fault, never failed over. A redirect (never followed, see post) is the provider's fault, as the
 * job adapters take it: its body is not read.
 */
async function refusal(res: Response, provider: ChatProvider, opts: ChatCallOptions): Promise<ChatUpstreamError> {
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel().catch(() => undefined);
    return providerError(provider, `the provider "${provider.name}" answered with unexpected HTTP ${res.status} (a redirect, which the gateway does not follow)`, 'upstream_failed', res.status);
  }
  let body: unknown;
  try {
    // an error body past the cap says nothing: the status alone decides
    body = JSON.parse((await answerText(res, provider, opts)) ?? '');
  } catch {
    body = undefined;
  }
  const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  const message = typeof error?.message === 'string' ? error.message : `answered HTTP ${res.status}`;
  const inputFault = res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429 && res.status !== 401 && res.status !== 403;
  return providerError(provider, `the provider "${provider.name}" refused the call: ${message.slice(0, 500)}`, inputFault ? 'upstream_rejected_input' : 'upstream_failed', res.status, error);
}

/** One POST to a provider, bounded by the timeout until its headers arrive. */
async function post(provider: ChatProvider, body: Record<string, unknown>, opts: ChatCallOptions, dog: Watchdog): Promise<Response> {
  const signal = AbortSignal.any([opts.signal, dog.controller.signal]);
  try {
    return await fetch(joinUrl(provider.url, '/chat/completions'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: body.stream ? 'text/event-stream' : 'application/json', ...(provider.key ? { authorization: `Bearer ${provider.key}` } : {}) },
      body: JSON.stringify({ ...body, model: provider.upstreamModel }),
      // No redirects, as on the job adapters' API calls (upstream-http.ts callJson): following one
      // would send the key and the caller's messages somewhere the operator did not configure.
      redirect: 'manual',
      signal,
    });
  } catch (err) {
    throw aborted(opts, dog, provider) ?? providerError(provider, `the provider "${provider.name}" could not be reached${causeCode(err)}`, 'upstream_failed');
  }
}

function aborted(opts: ChatCallOptions, dog: Watchdog, provider: ChatProvider): ChatUpstreamError | undefined {
  if (opts.signal.aborted) return new ChatUpstreamError('the client closed the connection', 'cancelled');
  if (dog.controller.signal.aborted) return new ChatUpstreamError(`the provider "${provider.name}" did not answer within ${Math.max(1, Math.round(dog.limitMs / 1000))} s`, 'upstream_timeout');
  return undefined;
}

interface Watchdog {
  controller: AbortController;
  /** the wait now being timed */
  limitMs: number;
  restart(): void;
  stop(): void;
}

/** A timer that aborts its controller unless restarted in time: `firstMs` at first, `ms` after each restart. */
function watchdog(ms: number, firstMs = ms): Watchdog {
  const controller = new AbortController();
  let t = setTimeout(() => controller.abort(), firstMs);
  const dog: Watchdog = {
    controller,
    limitMs: firstMs,
    restart() {
      clearTimeout(t);
      dog.limitMs = ms;
      t = setTimeout(() => controller.abort(), ms);
    },
    stop: () => clearTimeout(t),
  };
  return dog;
}

/**
 * The providers' attempts within opts.totalMs: each attempt's first wait, or undefined once the
 * total has passed (the call then ends as timed out, with `last` if an attempt failed before).
 */
function attempts(opts: ChatCallOptions): () => number | undefined {
  const until = opts.totalMs === undefined ? Infinity : performance.now() + opts.totalMs;
  return () => {
    const left = until - performance.now();
    return left >= 1 ? Math.min(opts.timeoutMs, left) : undefined;
  };
}

const outOfTime = (opts: ChatCallOptions) => new ChatUpstreamError(`no provider answered within ${Math.round((opts.totalMs ?? 0) / 1000)} s`, 'upstream_timeout');

/**
 * A non-streamed completion: the first provider (in order) that answers; one that cannot be
 * reached, times out or fails (5xx, 429) gives way to the next. Answers the provider's body.
 */
export async function completeChat(providers: readonly ChatProvider[], body: Record<string, unknown>, opts: ChatCallOptions): Promise<{ provider: ChatProvider; body: Record<string, unknown> }> {
  let last: ChatUpstreamError | undefined;
  const nextWait = attempts(opts);
  for (const provider of providers) {
    const wait = nextWait();
    // the call's time is up: the providers not tried yet are not
    if (wait === undefined) throw last ?? outOfTime(opts);
    const dog = watchdog(opts.timeoutMs, wait);
    try {
      const res = await post(provider, { ...body, stream: false }, opts, dog);
      if (!res.ok) throw await refusal(res, provider, opts);
      let text: string | undefined;
      try {
        text = await answerText(res, provider, opts);
      } catch (err) {
        throw aborted(opts, dog, provider) ?? providerError(provider, `the provider "${provider.name}" broke off its answer${causeCode(err)}`, 'upstream_failed');
      }
      if (text === undefined) throw providerError(provider, `the provider "${provider.name}" sent an answer larger than ${describeSize(MAX_ANSWER_BYTES)}; it was not read`, 'upstream_failed');
      let answer: unknown;
      try {
        answer = JSON.parse(text);
      } catch {
        throw providerError(provider, `the provider "${provider.name}" sent an answer that is not JSON`, 'upstream_failed');
      }
      if (!isRecord(answer) || !Array.isArray(answer.choices)) throw new ChatUpstreamError(`the provider "${provider.name}" sent no choices`, 'upstream_failed');
      return { provider, body: answer };
    } catch (err) {
      const e = err instanceof ChatUpstreamError ? err : providerError(provider, `the call to the provider "${provider.name}" failed`, 'upstream_failed');
      if (e.code === 'cancelled' || e.code === 'upstream_rejected_input') throw e;
      last = e;
    } finally {
      dog.stop();
    }
  }
  throw last ?? new ChatUpstreamError('no provider of this model is configured', 'upstream_failed');
}

/** An open stream: the provider that answers, and its chunks as they arrive. */
export interface ChatStream {
  provider: ChatProvider;
  /** each `data:` event's JSON, in order, until `[DONE]`; throws ChatUpstreamError when the stream fails */
  chunks: AsyncGenerator<Record<string, unknown>, void, undefined>;
}

/** The `data:` payloads of an event stream, as they arrive. */
/**
 * The longest streamed event read (a chat chunk is a few KB; one with log probabilities tens):
 * a provider that streams without ever ending an event is cut off there, as an answer is at
 * MAX_ANSWER_BYTES, instead of growing the buffer without end.
 */
export const MAX_EVENT_CHARS = 8 * 1024 * 1024;

async function* events(res: Response, provider: ChatProvider, opts: ChatCallOptions, dog: Watchdog): AsyncGenerator<string, void, undefined> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  // where the search for an event's end goes on from: what was searched before holds none
  let searched = 0;
  try {
    for (;;) {
      let read: Awaited<ReturnType<typeof reader.read>>;
      try {
        read = await reader.read();
      } catch (err) {
        throw aborted(opts, dog, provider) ?? providerError(provider, `the provider "${provider.name}" broke off its stream${causeCode(err)}`, 'upstream_failed');
      }
      if (read.done) break;
      buffer += decoder.decode(read.value, { stream: true });
      // events end with a blank line; a line of an event is `field: value` (the SSE format)
      for (;;) {
        const blank = /\r?\n\r?\n/g;
        blank.lastIndex = searched;
        const found = blank.exec(buffer);
        if (!found) break;
        const event = buffer.slice(0, found.index);
        buffer = buffer.slice(found.index + found[0].length);
        searched = 0;
        const data = event.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n');
        if (data === '') continue;
        // the wait restarts with an event that carries data, not with any bytes: a provider that
        // only sends keep-alive comments (`: ping`) has not answered, and would otherwise hold the
        // call open without end, its first chunk or its next one never timed out
        dog.restart();
        yield data;
      }
      // an event's end may straddle the next read: its first three characters are searched again
      searched = Math.max(0, buffer.length - 3);
      if (buffer.length > MAX_EVENT_CHARS) {
        opts.warn?.({ provider: provider.name, limitChars: MAX_EVENT_CHARS }, `the chat provider "${provider.name}" streamed an event longer than ${MAX_EVENT_CHARS} characters without ending it: the rest was not read and the connection was closed`);
        throw providerError(provider, `the provider "${provider.name}" streamed an event longer than ${MAX_EVENT_CHARS} characters; it was not read`, 'upstream_failed');
      }
    }
  } finally {
    reader.releaseLock();
    await res.body!.cancel().catch(() => undefined);
  }
}

async function* chunksOf(first: IteratorResult<string, void>, rest: AsyncGenerator<string, void, undefined>, provider: ChatProvider, dog: Watchdog): AsyncGenerator<Record<string, unknown>, void, undefined> {
  try {
    let next = first;
    let done = false;
    while (!next.done) {
      if (next.value === '[DONE]') {
        done = true;
        break;
      }
      yield parseChunk(next.value, provider);
      next = await rest.next();
    }
    if (!done) throw new ChatUpstreamError(`the provider "${provider.name}" ended its stream before it was done`, 'upstream_failed');
  } finally {
    dog.stop();
    await rest.return(undefined);
  }
}

function parseChunk(data: string, provider: ChatProvider): Record<string, unknown> {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    throw new ChatUpstreamError(`the provider "${provider.name}" sent an event that is not JSON`, 'upstream_failed');
  }
  if (!isRecord(chunk)) throw new ChatUpstreamError(`the provider "${provider.name}" sent an event that is not an object`, 'upstream_failed');
  // an error reported inside the stream (OpenRouter, vLLM do so after a 200)
  if (isRecord(chunk.error)) throw providerError(provider, `the provider "${provider.name}" failed mid-answer: ${String(chunk.error.message ?? 'error').slice(0, 500)}`, 'upstream_failed', undefined, chunk.error);
  return chunk;
}

/**
 * Opens a streamed completion at the first provider (in order) whose stream yields a first event
 * within the timeout; each chunk after it must arrive within the timeout of the one before.
 */
export async function streamChat(providers: readonly ChatProvider[], body: Record<string, unknown>, opts: ChatCallOptions): Promise<ChatStream> {
  let last: ChatUpstreamError | undefined;
  const nextWait = attempts(opts);
  for (const provider of providers) {
    const wait = nextWait();
    // the call's time is up: the providers not tried yet are not
    if (wait === undefined) throw last ?? outOfTime(opts);
    const dog = watchdog(opts.timeoutMs, wait);
    try {
      const res = await post(provider, { ...body, stream: true, stream_options: { include_usage: true } }, opts, dog);
      if (!res.ok || !res.body) throw await refusal(res, provider, opts);
      const stream = events(res, provider, opts, dog);
      const first = await stream.next();
      if (first.done || first.value === '[DONE]') {
        await stream.return(undefined);
        throw new ChatUpstreamError(`the provider "${provider.name}" ended its stream without an answer`, 'upstream_failed');
      }
      return { provider, chunks: chunksOf(first, stream, provider, dog) };
    } catch (err) {
      dog.stop();
      const e = err instanceof ChatUpstreamError ? err : providerError(provider, `the call to the provider "${provider.name}" failed`, 'upstream_failed');
      if (e.code === 'cancelled' || e.code === 'upstream_rejected_input') throw e;
      last = e;
    }
  }
  throw last ?? new ChatUpstreamError('no provider of this model is configured', 'upstream_failed');
}
