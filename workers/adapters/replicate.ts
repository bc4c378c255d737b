// Replicate's predictions API. Contract from Replicate's public HTTP API reference:
//
//   Submit  POST {base}/models/{owner}/{name}/predictions  {"input"}            (an official model)
//           POST {base}/predictions                        {"version", "input"} (upstream_model
//                "owner/name:version" or a bare version id)
//           -> 201 the prediction object {"id", "status", "output", "error", "metrics", "urls"}
//   Poll    GET  {base}/predictions/{id}
//   Cancel  POST {base}/predictions/{id}/cancel
//   Auth    Authorization: Bearer {UPSTREAM_REPLICATE_KEY}; {base} defaults to https://api.replicate.com/v1.
//
// Status mapping: starting, processing -> running; succeeded -> outputs; failed -> failed with
// Replicate's `error` (an NSFW refusal is content_moderated); canceled, aborted -> failed
// (upstream_cancelled). `output` is a URL, a list of URLs, or (language models) a list of text
// pieces, joined into one text file. Outputs are copied into the gateway's storage before the
// prediction completes: Replicate deletes its files after an hour. We never send `Prefer: wait`:
// the worker polls through delayed queue messages instead of holding a connection.
// `logs` is the prediction's whole log so far, as text: its lines are kept (timestamped when the
// gateway first sees them: Replicate's lines carry no time), and the last progress bar in it
// (tqdm's ` 45%|████▌     | 9/20 [...]`, which most models print per step) is its progress.
import type { Adapter, AdapterDefinition, AdapterEnv, JobAdapter, JobContext, JobState, UpstreamOutput } from './types.ts';
import { bearer, callJson, keyedCall, collectOutputs, defaultNet, joinUrl, runJobInProcess, DOWNLOAD_TIMEOUT_MS } from './upstream-http.ts';
import type { HttpNet, KeyedCall as Call } from './upstream-http.ts';
import { emptyResult, moderated, truncate, upstreamError } from './upstream-errors.ts';
import type { Caller } from './upstream-errors.ts';
import { mapInput } from './upstream-config.ts';
import { secondsToMs } from '../../lib/prediction-view.ts';
import { progressOfText, textLines } from '../../lib/run-logs.ts';

const VERSION_ID = /^[0-9a-f]{64}$/;
/** Replicate's failure text for a safety-checker refusal ("NSFW content detected...") */
const NSFW = /\bnsfw\b/i;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Where and what to submit for an upstream_model: an official model, or a pinned version. */
export function submitTarget(upstreamModel: string): { path: string; version?: string } {
  const colon = upstreamModel.indexOf(':');
  if (colon >= 0) return { path: '/predictions', version: upstreamModel.slice(colon + 1) };
  if (VERSION_ID.test(upstreamModel)) return { path: '/predictions', version: upstreamModel };
  const [owner, name] = upstreamModel.split('/');
  return { path: `/models/${encodeURIComponent(owner ?? '')}/${encodeURIComponent(name ?? '')}/predictions` };
}

function readOutputs(caller: Caller, output: unknown, text: boolean): UpstreamOutput[] {
  const items = Array.isArray(output) ? output : output === null || output === undefined ? [] : [output];
  if (text) {
    // Language models stream their answer as a list of pieces; the joined text is the output.
    const joined = items.filter((piece): piece is string => typeof piece === 'string').join('');
    return joined === '' ? [] : [{ data: Buffer.from(joined, 'utf8'), contentType: 'text/plain', extension: 'txt' }];
  }
  const urls = items.filter((item): item is string => typeof item === 'string' && item !== '');
  if (urls.length !== items.length) throw upstreamError(caller, `upstream "${caller.provider}" sent an output that is not a file URL`, false, 'upstream_protocol');
  return urls.map((url) => ({ url }));
}

/** One prediction object as a job state. */
export function readPrediction(caller: Caller, body: Record<string, unknown>, text: boolean): JobState {
  const status = typeof body.status === 'string' ? body.status : '';
  const logText = typeof body.logs === 'string' ? body.logs : undefined;
  const logs = logText === undefined ? {} : { logs: textLines(logText) };
  switch (status) {
    case 'starting':
    case 'processing': {
      const progress = logText === undefined ? undefined : progressOfText(logText);
      return { kind: 'running', status, ...logs, ...(progress !== undefined ? { progress } : {}) };
    }
    case 'succeeded': {
      const outputs = readOutputs(caller, body.output, text);
      if (outputs.length === 0) throw emptyResult(caller);
      const metrics = isRecord(body.metrics) ? body.metrics : {};
      const seconds = typeof metrics.predict_time === 'number' && Number.isFinite(metrics.predict_time) && metrics.predict_time >= 0 ? metrics.predict_time : undefined;
      // Replicate's metrics (predict_time, total_time, in seconds) are its timings
      const timings = secondsToMs(metrics);
      return { kind: 'succeeded', status, outputs, ...logs, ...(seconds !== undefined ? { inferenceMs: Math.round(seconds * 1000) } : {}), ...(timings ? { report: { metadata: { provider_timings: timings } } } : {}) };
    }
    case 'failed': {
      const detail = typeof body.error === 'string' && body.error !== '' ? body.error : 'no details given';
      const error = NSFW.test(detail) ? moderated(caller, detail) : upstreamError(caller, `upstream "${caller.provider}" failed: ${truncate(detail)}`, false, 'upstream_failed');
      return { kind: 'failed', status, error, ...logs };
    }
    case 'canceled':
    case 'aborted':
      return { kind: 'failed', status, error: upstreamError(caller, `upstream "${caller.provider}" stopped the job (${status})`, false, 'upstream_cancelled') };
    default:
      throw upstreamError(caller, `upstream "${caller.provider}" sent a malformed answer: unknown status ${truncate(JSON.stringify(body.status) ?? 'undefined')}`, false, 'upstream_protocol');
  }
}

export function createReplicate(env: AdapterEnv, netOverrides: Partial<HttpNet> = {}, pollIntervalMs = 1000): Adapter {
  const net = defaultNet(env, netOverrides);

  const call = (ctx: JobContext): Call => keyedCall(env, ctx);
  const isText = (ctx: JobContext) => ctx.model.category === 'llm';

  const job: JobAdapter = {
    async submit(input, ctx) {
      const c = call(ctx);
      const target = submitTarget(ctx.model.upstreamModel!);
      const { body } = await callJson(c, {
        method: 'POST', url: joinUrl(c.url, target.path), headers: bearer(c),
        body: {
          ...(target.version ? { version: target.version } : {}), input: mapInput(input, ctx.model),
          // Callbacks on (README "Providers"): Replicate posts the prediction when it starts and ends; polling goes on.
          ...(ctx.callbackUrl ? { webhook: ctx.callbackUrl, webhook_events_filter: ['start', 'completed'] } : {}),
        }, what: 'submission',
      });
      if (typeof body.id !== 'string' || body.id === '') throw upstreamError(c, `upstream "${c.provider}" accepted the job without an id`, false, 'upstream_protocol');
      return { jobId: body.id, state: readPrediction(c, body, isText(ctx)) };
    },
    async poll(jobId, ctx) {
      const c = call(ctx);
      const { body, retryAfterMs } = await callJson(c, { method: 'GET', url: joinUrl(c.url, `/predictions/${encodeURIComponent(jobId)}`), headers: bearer(c), what: 'polling', aboutJob: true });
      const state = readPrediction(c, body, isText(ctx));
      return state.kind === 'running' && retryAfterMs !== undefined ? { ...state, retryAfterMs } : state;
    },
    async cancel(jobId, ctx) {
      const c = call(ctx);
      await callJson(c, { method: 'POST', url: joinUrl(c.url, `/predictions/${encodeURIComponent(jobId)}/cancel`), headers: bearer(c), what: 'cancellation', aboutJob: true });
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

export const replicate: AdapterDefinition = {
  kind: 'upstream',
  // Placeholder: for upstream models the gateway takes the media kind from the spec's x-model.output.
  media: 'image',
  description: "Replicate's predictions API (official models or pinned versions): submit, poll, cancel, copy outputs.",
  create: (env) => createReplicate(env),
};
