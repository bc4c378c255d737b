// fal's queue API. Contract from fal's public documentation (Queue API, Webhooks, Model Errors):
//
//   Submit  POST {base}/{upstream_model}[?fal_webhook={callback}]  body: the model's input
//           -> {"request_id", "response_url", "status_url", "cancel_url", "queue_position"?}
//   Status  GET  {base}/{owner}/{app}/requests/{id}/status?logs=1
//           -> {"status": "IN_QUEUE", "queue_position"} | {"status": "IN_PROGRESS", "logs"} |
//              {"status": "COMPLETED", "metrics": {"inference_time"}?, "response_url"}
//   Result  GET  the response_url (same origin as {base}; else {base}/{owner}/{app}/requests/{id})
//           -> the model's output, e.g. {"images": [{"url", "content_type"}], "has_nsfw_concepts": [..]};
//              a failed request answers its error here: 422 {"detail": [{"msg", "type"}]} for the
//              input (type content_policy_violation: a moderation refusal), 5xx for the runner
//   Cancel  PUT  {base}/{owner}/{app}/requests/{id}/cancel -> 202 CANCELLATION_REQUESTED
//           (400 ALREADY_COMPLETED: nothing left to stop)
//   Auth    Authorization: Key {UPSTREAM_FAL_KEY}; {base} defaults to https://queue.fal.run.
// Status and result use the model's {owner}/{app} only (fal-ai/flux/dev -> fal-ai/flux).
// Outputs are every `url` of the result's top-level fields (an object or a list of objects):
// images, image, video, audio, ...; a language model's `output` text becomes one text file.
// `has_nsfw_concepts[i]` flags the i-th image (has_nsfw_contents on the prediction).
// With `logs=1` the status carries the request's whole log so far, oldest first:
// "logs": [{"message", "level", "source", "timestamp": ISO 8601}], kept as timestamped lines.
import type { Adapter, AdapterDefinition, AdapterEnv, JobAdapter, JobContext, JobState, RawLogLine, UpstreamOutput } from './types.ts';
import { AdapterError } from './types.ts';
import { callJson, keyedCall, collectOutputs, defaultNet, joinUrl, runJobInProcess, DOWNLOAD_TIMEOUT_MS } from './upstream-http.ts';
import type { HttpNet, KeyedCall as Call } from './upstream-http.ts';
import { emptyResult, truncate, upstreamError } from './upstream-errors.ts';
import type { Caller } from './upstream-errors.ts';
import { mapInput } from './upstream-config.ts';
import { cleanMetadata, secondsToMs } from '../../lib/prediction-view.ts';
import type { ProviderMetadata } from '../../lib/prediction-view.ts';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The {owner}/{app} part of a model id, which the status, result and cancel paths use. */
export function appOf(upstreamModel: string): string {
  return upstreamModel.split('/').filter(Boolean).slice(0, 2).map(encodeURIComponent).join('/');
}

/** The model path of a submit, each segment encoded. */
function modelPath(upstreamModel: string): string {
  return upstreamModel.split('/').filter(Boolean).map(encodeURIComponent).join('/');
}

/** The `logs` of a status body as raw lines (entries without a message are skipped). */
export function readLogs(body: Record<string, unknown>): RawLogLine[] | undefined {
  if (!Array.isArray(body.logs)) return undefined;
  const lines: RawLogLine[] = [];
  for (const entry of body.logs) {
    if (!isRecord(entry) || typeof entry.message !== 'string') continue;
    const at = typeof entry.timestamp === 'string' ? Date.parse(entry.timestamp) : Number.NaN;
    lines.push({ message: entry.message, ...(Number.isFinite(at) ? { at } : {}) });
  }
  return lines;
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** The outputs of a result body (see the header). */
export function readResult(caller: Caller, body: Record<string, unknown>, text: boolean): UpstreamOutput[] {
  if (text) {
    const answer = typeof body.output === 'string' ? body.output : '';
    return answer === '' ? [] : [{ data: Buffer.from(answer, 'utf8'), contentType: 'text/plain', extension: 'txt' }];
  }
  const flags = Array.isArray(body.has_nsfw_concepts) ? body.has_nsfw_concepts : [];
  const outputs: UpstreamOutput[] = [];
  for (const [field, value] of Object.entries(body)) {
    const files = Array.isArray(value) ? value : [value];
    for (const [i, file] of files.entries()) {
      if (!isRecord(file) || !('url' in file)) continue;
      if (typeof file.url !== 'string' || file.url === '') throw upstreamError(caller, `upstream "${caller.provider}" sent an output that is not a file URL`, false, 'upstream_protocol');
      // the flags are per image, in the order of `images`
      const nsfw = field === 'images' && flags[i] === true;
      outputs.push({ url: file.url, ...(nsfw ? { nsfw: true } : {}) });
    }
  }
  return outputs;
}

/**
 * What a fal result says besides its files: the `seed` it used, the first image's `width` and
 * `height`, an audio's `duration_ms` (or a `duration` in seconds), and its `timings` in seconds.
 * Checked again before it is kept (lib/prediction-view.ts).
 */
export function metadataOf(body: Record<string, unknown>): ProviderMetadata | undefined {
  const first = Array.isArray(body.images) && isRecord(body.images[0]) ? body.images[0] : isRecord(body.image) ? body.image : undefined;
  const duration = typeof body.duration_ms === 'number' ? body.duration_ms / 1000 : body.duration;
  const raw = { seed: body.seed, width: first?.width, height: first?.height, duration, revised_prompt: body.revised_prompt, provider_timings: secondsToMs(body.timings) };
  return cleanMetadata(raw);
}

export function createFal(env: AdapterEnv, netOverrides: Partial<HttpNet> = {}, pollIntervalMs = 1000): Adapter {
  const net = defaultNet(env, netOverrides);

  const call = (ctx: JobContext): Call => keyedCall(env, ctx);
  const auth = (c: Call): Record<string, string> => (c.key ? { authorization: `Key ${c.key}` } : {});
  const isText = (ctx: JobContext) => ctx.model.category === 'llm';
  const requestUrl = (c: Call, ctx: JobContext, jobId: string, suffix = '') => joinUrl(c.url, `/${appOf(ctx.model.upstreamModel!)}/requests/${encodeURIComponent(jobId)}${suffix}`);

  /** The result of a COMPLETED request: its outputs, or the failure fal answers there. */
  async function result(c: Call, ctx: JobContext, jobId: string, responseUrl: unknown, inferenceMs: number | undefined): Promise<JobState> {
    // Our key goes with the call: only to fal's own origin, never to a URL that points elsewhere.
    const fallback = requestUrl(c, ctx, jobId);
    const url = typeof responseUrl === 'string' && URL.canParse(responseUrl) && new URL(responseUrl).origin === new URL(c.url).origin ? responseUrl : fallback;
    let body: Record<string, unknown>;
    try {
      ({ body } = await callJson(c, { method: 'GET', url, headers: auth(c), what: 'fetching the result', aboutJob: true }));
    } catch (err) {
      // The request finished badly (input, moderation, runner): failed, with the mapped reason.
      if (err instanceof AdapterError && !err.retryable) return { kind: 'failed', status: 'COMPLETED', error: err };
      throw err;
    }
    const outputs = readResult(c, body, isText(ctx));
    if (outputs.length === 0) throw emptyResult(c);
    const timings = isRecord(body.timings) ? body.timings : {};
    const seconds = typeof timings.inference === 'number' && Number.isFinite(timings.inference) && timings.inference >= 0 ? timings.inference : undefined;
    const ms = inferenceMs ?? (seconds === undefined ? undefined : Math.round(seconds * 1000));
    const metadata = metadataOf(body);
    return { kind: 'succeeded', status: 'COMPLETED', outputs, ...(ms !== undefined ? { inferenceMs: ms } : {}), ...(metadata ? { report: { metadata } } : {}) };
  }

  /** A status body as a job state (COMPLETED fetches the result). */
  async function readStatus(c: Call, ctx: JobContext, jobId: string, body: Record<string, unknown>, retryAfterMs?: number): Promise<JobState> {
    const status = typeof body.status === 'string' ? body.status : '';
    const logs = readLogs(body);
    switch (status) {
      case 'IN_QUEUE':
      case 'IN_PROGRESS':
        return {
          kind: 'running', status,
          ...(status === 'IN_QUEUE' && isCount(body.queue_position) ? { queuePosition: body.queue_position } : {}),
          ...(logs ? { logs } : {}),
          ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
        };
      case 'COMPLETED': {
        const metrics = isRecord(body.metrics) ? body.metrics : {};
        const seconds = typeof metrics.inference_time === 'number' && Number.isFinite(metrics.inference_time) && metrics.inference_time >= 0 ? metrics.inference_time : undefined;
        const done = await result(c, ctx, jobId, body.response_url, seconds === undefined ? undefined : Math.round(seconds * 1000));
        return logs ? { ...done, logs } : done;
      }
      case 'FAILED':
      case 'CANCELED':
      case 'CANCELLED': {
        const detail = typeof body.error === 'string' && body.error !== '' ? body.error : 'no details given';
        const error = status === 'FAILED'
          ? upstreamError(c, `upstream "${c.provider}" failed: ${truncate(detail)}`, false, 'upstream_failed')
          : upstreamError(c, `upstream "${c.provider}" stopped the job (${status.toLowerCase()})`, false, 'upstream_cancelled');
        return { kind: 'failed', status, error, ...(logs ? { logs } : {}) };
      }
      default:
        throw upstreamError(c, `upstream "${c.provider}" sent a malformed answer: unknown status ${truncate(JSON.stringify(body.status) ?? 'undefined')}`, false, 'upstream_protocol');
    }
  }

  const job: JobAdapter = {
    async submit(input, ctx) {
      const c = call(ctx);
      const hook = ctx.callbackUrl ? `?fal_webhook=${encodeURIComponent(ctx.callbackUrl)}` : '';
      const { body } = await callJson(c, { method: 'POST', url: joinUrl(c.url, `/${modelPath(ctx.model.upstreamModel!)}`) + hook, headers: auth(c), body: mapInput(input, ctx.model), what: 'submission' });
      if (typeof body.request_id !== 'string' || body.request_id === '') throw upstreamError(c, `upstream "${c.provider}" accepted the job without a request_id`, false, 'upstream_protocol');
      return { jobId: body.request_id, state: { kind: 'running', status: 'IN_QUEUE', ...(isCount(body.queue_position) ? { queuePosition: body.queue_position } : {}) } };
    },
    async poll(jobId, ctx) {
      const c = call(ctx);
      const { body, retryAfterMs } = await callJson(c, { method: 'GET', url: `${requestUrl(c, ctx, jobId, '/status')}?logs=1`, headers: auth(c), what: 'polling', aboutJob: true });
      return readStatus(c, ctx, jobId, body, retryAfterMs);
    },
    async cancel(jobId, ctx) {
      const c = call(ctx);
      try {
        await callJson(c, { method: 'PUT', url: requestUrl(c, ctx, jobId, '/cancel'), headers: auth(c), what: 'cancellation', aboutJob: true });
      } catch (err) {
        // 400 ALREADY_COMPLETED: the job ended on its own; there is nothing left to stop.
        if (err instanceof AdapterError && err.code === 'upstream_rejected_input') return;
        throw err;
      }
    },
    async collect(outputs, ctx) {
      return collectOutputs({ caller: call(ctx), net, downloadTimeoutMs: DOWNLOAD_TIMEOUT_MS }, outputs, ctx.predictionId, ctx.tempDir);
    },
  };

  return {
    job,
    /** In-process use only (the worker polls through the queue). */
    run: (input, ctx) => runJobInProcess(job, pollIntervalMs, input, ctx),
  };
}

export const fal: AdapterDefinition = {
  kind: 'upstream',
  // Placeholder: for upstream models the gateway takes the media kind from the spec's x-model.output.
  media: 'image',
  description: "fal's queue API: submit, status with queue position, result via response_url, cancel; copies outputs with their NSFW flags.",
  create: (env) => createFal(env),
};
