// Following a prediction to its end: the gateway's Server-Sent Events stream
// (GET /api/v1/predictions/{id}/stream: one event per state change, the current state first, the
// stream closed after the terminal one or after its time cap), reconnected when it ends early, and
// polling of the result route when a stream cannot be had (an embed code may not open one, a proxy
// buffers it, the runtime gives no readable body).
import { createParser } from 'eventsource-parser';
import type { EventSourceMessage } from 'eventsource-parser';
import { AbortError, ConnectionError, errorFromResponse, GatewayError, MediagateError, refuseRedirect, TimeoutError } from './errors.ts';
import type { Transport } from './http.ts';
import { describe } from './http.ts';
import { linkSignal, sleep, throwIfAborted } from './signal.ts';
import { isTerminal } from './types.ts';
import type { Prediction } from './types.ts';

/** The stream cannot be used here; the caller polls instead. */
export class StreamUnavailableError extends MediagateError {}

export interface StreamOptions {
  signal?: AbortSignal | undefined;
  teamId?: number | undefined;
  /** connection failures in a row before giving up (default 3) */
  maxReconnects?: number | undefined;
}

function resultPath(id: string): string {
  return `/api/v1/predictions/${encodeURIComponent(id)}/result`;
}

/** One connection to the event stream: yields each event's prediction until the stream ends. */
async function* connect(transport: Transport, id: string, opts: StreamOptions): AsyncGenerator<Prediction> {
  const headers = await transport.headersFor({ headers: { accept: 'text/event-stream' } }, opts.signal);
  // the caller's abort reaches the connection for its whole life; the time limit only bounds the
  // wait for the answer's headers (events may be minutes apart)
  const controller = new AbortController();
  const forward = () => controller.abort(opts.signal?.reason);
  if (opts.signal?.aborted) forward();
  else opts.signal?.addEventListener('abort', forward, { once: true });
  let reader: ReadableStreamDefaultReader<string> | undefined;
  try {
    let res: Response;
    let headersTimedOut = false;
    const timer = setTimeout(() => { headersTimedOut = true; controller.abort(); }, transport.options.timeoutMs);
    try {
      res = await transport.options.fetch(transport.url(`/api/v1/predictions/${encodeURIComponent(id)}/stream`, { team_id: opts.teamId }), {
        headers,
        signal: controller.signal,
        redirect: 'manual',
      });
    } catch (err) {
      if (headersTimedOut) throw new ConnectionError(`the event stream of ${id} did not answer within ${transport.options.timeoutMs} ms`);
      if (opts.signal?.aborted) throw new AbortError('the operation was aborted', { cause: opts.signal.reason });
      throw new ConnectionError(`cannot open the event stream of ${id}: ${describe(err)}`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
    await refuseRedirect(transport.options.baseUrl, res);
    transport.options.auth?.observe(res);
    if (res.status >= 400) {
      const text = await res.text();
      let body: unknown = text;
      try { body = JSON.parse(text); } catch { /* not JSON */ }
      const error = errorFromResponse(res.status, res.headers, body, transport.options.now());
      // a credential that may read results but not stream them (an embed code): poll instead
      if (error.code === 'embed_operation_not_allowed') throw new StreamUnavailableError(error.message, { cause: error });
      throw error;
    }
    if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream') || !res.body) {
      await res.body?.cancel();
      throw new StreamUnavailableError(`the event stream of ${id} answered ${res.headers.get('content-type') ?? 'no content type'}, not text/event-stream`);
    }
    const events: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (event) => { events.push(event); } });
    reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (err) {
        if (opts.signal?.aborted) throw new AbortError('the operation was aborted', { cause: opts.signal.reason });
        throw new ConnectionError(`the event stream of ${id} broke: ${describe(err)}`, { cause: err });
      }
      if (chunk.done) return;
      parser.feed(chunk.value);
      while (events.length > 0) {
        const event = events.shift()!;
        if (!event.data) continue;
        let prediction: Prediction;
        try {
          prediction = JSON.parse(event.data) as Prediction;
        } catch {
          throw new MediagateError(`the event stream of ${id} sent data that is not JSON`);
        }
        yield prediction;
      }
    }
  } finally {
    opts.signal?.removeEventListener('abort', forward);
    // leaving early (a terminal event, the caller's break) closes the connection
    await reader?.cancel().catch(() => {});
  }
}

/**
 * Every state the prediction goes through, from the current one to the terminal one. Reconnects
 * when a stream ends before that (the gateway caps a stream's length; a reconnection starts with
 * the current state, so nothing is missed).
 */
export async function* streamPrediction(transport: Transport, id: string, opts: StreamOptions = {}): AsyncGenerator<Prediction> {
  const maxReconnects = opts.maxReconnects ?? 3;
  let failures = 0;
  let reauthenticated = false;
  for (let attempt = 0; ; attempt++) {
    throwIfAborted(opts.signal);
    try {
      for await (const prediction of connect(transport, id, opts)) {
        failures = 0;
        yield prediction;
        if (isTerminal(prediction.status)) return;
      }
    } catch (err) {
      // an OAuth token that lapsed early: one more connection with a fresh one
      if (err instanceof GatewayError && err.status === 401 && !reauthenticated && transport.options.auth?.refused()) {
        reauthenticated = true;
        continue;
      }
      if (!(err instanceof ConnectionError) || ++failures > maxReconnects) throw err;
      await sleep(Math.min(250 * 2 ** failures, 5000), opts.signal);
    }
  }
}

export interface WaitOptions {
  signal?: AbortSignal | undefined;
  teamId?: number | undefined;
  /** give up after this long (default 10 minutes); the prediction itself goes on */
  timeoutMs?: number | undefined;
  /** called with each new state, queue position or progress */
  onProgress?: ((prediction: Prediction) => void) | undefined;
  /** `auto` (default): the event stream, polling when it cannot be had; `poll`: polling only */
  mode?: 'auto' | 'poll' | undefined;
  /** between polls, ms (default 1000) */
  pollIntervalMs?: number | undefined;
}

export const DEFAULT_WAIT_MS = 10 * 60_000;

async function poll(transport: Transport, id: string, opts: WaitOptions, signal: AbortSignal, report: (p: Prediction) => void): Promise<Prediction> {
  const interval = opts.pollIntervalMs ?? 1000;
  for (;;) {
    const { body } = await transport.request<Prediction>({ method: 'GET', path: resultPath(id), query: { team_id: opts.teamId }, signal });
    report(body);
    if (isTerminal(body.status)) return body;
    await sleep(interval, signal);
  }
}

/** Follows a prediction until it is completed, failed or cancelled, and returns it. */
export async function waitForPrediction(transport: Transport, id: string, opts: WaitOptions = {}): Promise<Prediction> {
  const limit = opts.timeoutMs ?? DEFAULT_WAIT_MS;
  const linked = linkSignal(opts.signal, limit);
  let last: Prediction | undefined;
  let lastKey = '';
  const report = (p: Prediction) => {
    last = p;
    const key = `${p.status}|${p.queue_position ?? ''}|${p.progress ?? ''}`;
    if (key !== lastKey) {
      lastKey = key;
      opts.onProgress?.(p);
    }
  };
  try {
    // the gateway never lets an embed code open the stream: in a browser the refusal would only
    // show as CORS failures, so such a client polls from the start
    if ((opts.mode ?? 'auto') === 'auto' && !transport.options.auth?.embed) {
      try {
        for await (const p of streamPrediction(transport, id, { signal: linked.signal, teamId: opts.teamId })) {
          report(p);
          if (isTerminal(p.status)) return p;
        }
      } catch (err) {
        // a stream refused or broken beyond its reconnects: the result route still answers
        if (!(err instanceof StreamUnavailableError || err instanceof ConnectionError)) throw err;
      }
    }
    return await poll(transport, id, opts, linked.signal, report);
  } catch (err) {
    if (linked.timedOut()) {
      // no state seen in time (a slow connection): read it once, so the error says where it stands
      last ??= await transport.request<Prediction>({ method: 'GET', path: resultPath(id), query: { team_id: opts.teamId }, signal: opts.signal, timeoutMs: 5000 })
        .then((answer) => answer.body, () => undefined);
      throw new TimeoutError(`prediction ${id} is still ${last?.status ?? 'unfinished'} after ${limit} ms; wait for it again, or cancel it`, last);
    }
    if (err instanceof GatewayError || err instanceof MediagateError) throw err;
    throw new MediagateError(describe(err), { cause: err });
  } finally {
    linked.done();
  }
}
