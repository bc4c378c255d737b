// Generic upstream adapter: runs a model on a provider that speaks our small JSON protocol.
// A provider that does not speak it natively is fronted by a thin shim; the gateway stays generic.
//
// Protocol (ours; version 1)
//   Submit  POST {url}/v1/models/{upstream_model}/predictions
//           Authorization: Bearer {key}            (only when UPSTREAM_<NAME>_KEY is set)
//           Content-Type: application/json
//           {"input": {...}}                       (the validated model input, as received)
//     {upstream_model} keeps its slashes ("acme/flux-dev"); each segment is percent-encoded.
//   Answer, either finished at once:
//           {"status": "completed", "outputs": ["https://...", ...],
//            "has_nsfw_contents"?: [false, ...], "inference_ms"?: 1234}
//     or accepted for later:
//           {"id": "abc", "status": "queued" | "processing"}
//   Poll    GET {url}/v1/predictions/{id}  (same Authorization), for up to 30 minutes, until the
//           answer is "completed" (as above) or {"status": "failed", "error": "..."}. Waits back
//           off: 500 ms doubling to 30 s, ±20% jitter; a Retry-After (seconds or HTTP date) on a
//           poll answer is honoured, up to 5 minutes.
//   Outputs are plain http(s) URLs fetched without credentials (they are usually on a CDN), only
//   from public unicast addresses (the webhook destination policy, each redirect re-checked),
//   each at most 512 MiB, streamed to a temporary file. The worker types them from their bytes.
//
// Failure mapping: upstream-errors.ts, shared by every upstream adapter. "failed" predictions and
// malformed answers are not retryable. Messages reach the API user, so they never carry the key
// or the upstream's URL, and upstream text is truncated.
//
// The worker drives it through `job` (submit, then one poll per delayed queue message; there is
// no cancel in this protocol). `run` polls in-process with the backoff above, for direct use.

import { setTimeout as sleep } from 'node:timers/promises';
import { AdapterError } from './types.ts';
import type { Adapter, AdapterDefinition, AdapterEnv, AdapterResult, JobAdapter, JobContext, JobState, RunContext, UpstreamConfig } from './types.ts';
import { callJson, collectOutputs, defaultNet, joinUrl, warnFor, DOWNLOAD_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from './upstream-http.ts';
import type { HttpNet } from './upstream-http.ts';
import { cancelled, emptyResult, truncate, upstreamError } from './upstream-errors.ts';
import type { Caller } from './upstream-errors.ts';
import { mapInput, requireUpstream } from './upstream-config.ts';

export { parseRetryAfter } from './upstream-errors.ts';
export type HttpJsonNet = HttpNet;

export interface HttpJsonTiming {
  /** first wait between polls; it doubles after each poll, up to pollMaxIntervalMs */
  pollIntervalMs: number;
  pollMaxIntervalMs: number;
  /** longest Retry-After honoured while polling */
  maxRetryAfterMs: number;
  /** give up on a prediction the upstream has not finished after this long */
  maxWaitMs: number;
  /** per submit / poll request */
  requestTimeoutMs: number;
  /** per output download, which may be hundreds of MiB */
  downloadTimeoutMs: number;
  /** the clock the poll loop reads (milliseconds, monotonic); tests advance a fake one */
  now: () => number;
  /** the wall clock (epoch milliseconds) a Retry-After HTTP date is measured from */
  wallNow: () => number;
  /** waits between polls; rejects when the signal aborts */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** jitter source in [0, 1) */
  random: () => number;
}

const DEFAULT_TIMING: HttpJsonTiming = {
  pollIntervalMs: 500,
  pollMaxIntervalMs: 30_000,
  maxRetryAfterMs: 5 * 60_000,
  now: () => performance.now(),
  wallNow: () => Date.now(),
  sleep: (ms, signal) => sleep(ms, undefined, { signal }),
  random: Math.random,
  maxWaitMs: 30 * 60_000,
  requestTimeoutMs: REQUEST_TIMEOUT_MS,
  downloadTimeoutMs: DOWNLOAD_TIMEOUT_MS,
};
/** a poll that hits a blip should not throw away (and re-bill) a prediction already running upstream */
const MAX_CONSECUTIVE_POLL_FAILURES = 3;

/** Everything one call needs to talk to its upstream, and to word its errors safely. */
interface Session extends Caller {
  upstream: UpstreamConfig;
  timing: HttpJsonTiming;
}


function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function describeDuration(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} minutes` : `${Math.round(ms / 1000)} seconds`;
}

function headers(session: Session): Record<string, string> {
  return session.upstream.key ? { authorization: `Bearer ${session.upstream.key}` } : {};
}

/** Validates one protocol answer; anything unexpected is a non-retryable protocol error. */
function readAnswer(session: Session, answer: Record<string, unknown>, pendingId?: string): { id: string; state: JobState } {
  const malformed = (why: string) => upstreamError(session, `upstream "${session.provider}" sent a malformed answer: ${why}`, false, 'upstream_protocol');
  switch (answer.status) {
    case 'completed': {
      const { outputs, has_nsfw_contents: nsfw, inference_ms: ms } = answer;
      if (Array.isArray(outputs) && outputs.length === 0) throw emptyResult(session);
      if (!isStringList(outputs)) throw malformed('"outputs" must be a non-empty list of URLs');
      const flags = Array.isArray(nsfw) ? nsfw.map((flag) => flag === true) : [];
      const inferenceMs = typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms : undefined;
      return {
        id: pendingId ?? (typeof answer.id === 'string' ? answer.id : ''),
        state: { kind: 'succeeded', status: 'completed', outputs: outputs.map((url, i) => ({ url, nsfw: flags[i] === true })), ...(inferenceMs !== undefined ? { inferenceMs } : {}) },
      };
    }
    case 'queued':
    case 'processing': {
      const id = pendingId ?? answer.id;
      if (typeof id !== 'string' || id === '') throw malformed('a pending prediction needs an "id"');
      return { id, state: { kind: 'running', status: answer.status } };
    }
    case 'failed': {
      const error = typeof answer.error === 'string' ? truncate(answer.error) : 'no details given';
      return { id: pendingId ?? '', state: { kind: 'failed', status: 'failed', error: upstreamError(session, error, false, 'upstream_failed') } };
    }
    default:
      throw malformed(`unknown status ${truncate(JSON.stringify(answer.status) ?? 'undefined')}`);
  }
}

/** The job contract of this protocol, over one configured environment. */
function createJob(env: AdapterEnv, timing: HttpJsonTiming, net: HttpNet): JobAdapter & { session(ctx: JobContext): Session } {
  function session(ctx: JobContext): Session {
    const { name, upstream } = requireUpstream(env, ctx.model);
    return { provider: name, secrets: [upstream.key ?? '', upstream.url], signal: ctx.signal, wallNow: timing.wallNow, warn: warnFor(env, name, ctx), upstream, timing };
  }
  return {
    session,
    async submit(input, ctx) {
      const s = session(ctx);
      const upstreamModel = ctx.model.upstreamModel!;
      const modelPath = upstreamModel.split('/').map(encodeURIComponent).join('/');
      const { body } = await callJson(s, {
        method: 'POST', url: joinUrl(s.upstream.url, `/v1/models/${modelPath}/predictions`), headers: headers(s),
        body: { input: mapInput(input, ctx.model) }, what: 'submission', timeoutMs: timing.requestTimeoutMs,
      });
      const first = readAnswer(s, body);
      if (first.id !== '') return { jobId: first.id, state: first.state };
      // A job finished at once has no id to poll; the prediction's own id stands for it, and the
      // worker is told this answer is the only one (an output it could not download fails at once).
      return { jobId: ctx.predictionId, state: first.state.kind === 'succeeded' ? { ...first.state, answeredOnce: true } : first.state };
    },
    async poll(jobId, ctx) {
      const s = session(ctx);
      if (jobId === ctx.predictionId) {
        // A job finished in its submit's answer (no id): only reached when a worker stopped between
        // that answer and storing its outputs. The upstream never named it, so there is nothing to
        // ask; failing (unbilled) beats submitting and paying for it twice.
        throw upstreamError(s, `upstream "${s.provider}" answered, but the answer was lost when the worker stopped; please submit again`, false, 'upstream_failed');
      }
      const { body, retryAfterMs } = await callJson(s, {
        method: 'GET', url: joinUrl(s.upstream.url, `/v1/predictions/${encodeURIComponent(jobId)}`), headers: headers(s), what: 'polling', timeoutMs: timing.requestTimeoutMs, aboutJob: true,
      });
      const { state } = readAnswer(s, body, jobId);
      return state.kind === 'running' && retryAfterMs !== undefined ? { ...state, retryAfterMs } : state;
    },
    async cancel() {
      // protocol version 1 has no cancel: the upstream finishes the job and the worker ignores it
    },
    async collect(outputs, ctx) {
      const s = session(ctx);
      return collectOutputs({ caller: s, net, downloadTimeoutMs: timing.downloadTimeoutMs }, outputs, ctx.predictionId, ctx.tempDir);
    },
  };
}

/**
 * Polls until the upstream finishes. The wait starts at pollIntervalMs and doubles after every
 * poll up to pollMaxIntervalMs, each wait jittered by ±20% so that many workers do not poll in
 * step; a Retry-After on a poll answer (any status) is honoured up to maxRetryAfterMs. With the
 * defaults a job stuck for the whole 30 minutes costs about 65 polls, not 3,600.
 */
async function waitFor(job: JobAdapter, s: Session, id: string, ctx: JobContext): Promise<JobState> {
  const { timing } = s;
  const deadline = timing.now() + timing.maxWaitMs;
  let interval = timing.pollIntervalMs;
  let retryAfterMs: number | undefined;
  let failures = 0;
  for (;;) {
    const now = timing.now();
    if (now >= deadline) {
      // Not retryable: a second attempt would most likely sit in the same stuck queue for as long.
      throw upstreamError(s, `upstream "${s.provider}" did not finish within ${describeDuration(timing.maxWaitMs)}`, false, 'upstream_timeout');
    }
    const backoff = interval * (0.8 + 0.4 * timing.random());
    const wait = Math.max(backoff, Math.min(retryAfterMs ?? 0, timing.maxRetryAfterMs));
    interval = Math.min(interval * 2, timing.pollMaxIntervalMs);
    retryAfterMs = undefined;
    try {
      await timing.sleep(Math.round(Math.min(wait, deadline - now)), s.signal);
    } catch {
      throw cancelled();
    }
    let state: JobState;
    try {
      state = await job.poll(id, ctx);
      failures = 0;
    } catch (error) {
      if (error instanceof AdapterError && error.retryable && ++failures < MAX_CONSECUTIVE_POLL_FAILURES) {
        retryAfterMs = error.retryAfterMs;
        continue;
      }
      throw error;
    }
    if (state.kind === 'running') retryAfterMs = state.retryAfterMs;
    else return state;
  }
}

/** `create` with the clock knobs exposed, so tests can poll every few milliseconds instead of 500. */
export function createHttpJson(env: AdapterEnv, overrides: Partial<HttpJsonTiming> = {}, netOverrides: Partial<HttpNet> = {}): Adapter {
  const timing: HttpJsonTiming = { ...DEFAULT_TIMING, ...overrides };
  const net = defaultNet(env, netOverrides);
  const job = createJob(env, timing, net);
  return {
    job,
    async run(input: Record<string, unknown>, ctx: RunContext): Promise<AdapterResult> {
      if (ctx.signal.aborted) throw cancelled();
      const s = job.session(ctx);
      const started = timing.now();
      const submitted = await job.submit(input, ctx);
      const state = submitted.state.kind === 'running' ? await waitFor(job, s, submitted.jobId, ctx) : submitted.state;
      if (state.kind === 'failed') throw state.error;
      if (state.kind !== 'succeeded') throw upstreamError(s, `upstream "${s.provider}" did not finish`, false, 'upstream_protocol');
      const inferenceMs = Math.round(state.inferenceMs ?? timing.now() - started);
      const files = await job.collect(state.outputs, ctx);
      return { files, inferenceMs };
    },
  };
}

export const httpJson: AdapterDefinition = {
  kind: 'upstream',
  // Placeholder: for upstream models the gateway takes the media kind from the spec's x-model.output.
  media: 'image',
  description: 'Generic upstream provider speaking the mediagate JSON prediction protocol (submit, poll, download outputs).',
  create: (env) => createHttpJson(env),
};
