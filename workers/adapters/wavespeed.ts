// WaveSpeed AI's v3 API. Contract from WaveSpeed's public documentation ("What are Predictions",
// "Result Query Parameters", "Webhooks", "Verifying Webhook", "Delete Task", "Error Codes"):
//
//   Submit  POST {base}/{upstream_model}[?webhook={callback}]  body: the model's input
//           (e.g. wavespeed-ai/flux-dev, bytedance/seedream-v4, kwaivgi/kling-v2.1-i2v-pro)
//           -> {"code": 200, "message": "success", "data": <prediction>}
//   Result  GET  {base}/predictions/{id}/result -> {"code", "message", "data": <prediction>}
//   Delete  POST {base}/predictions/delete {"ids": [id]} -> {"data": {"deleted_count"}}
//   Auth    Authorization: Bearer {UPSTREAM_WAVESPEED_KEY}; {base} defaults to https://api.wavespeed.ai/api/v3.
//
//   <prediction> = {"id", "model", "status": created | processing | completed | failed,
//                   "outputs": [url...], "has_nsfw_contents": [bool...], "error", "code"?,
//                   "timings": {"inference": ms}, "urls": {"get"}}
//
// A failed task carries a numeric `code` (Error Codes): 1200 content moderation (content_moderated,
// never retried or billed); 1400-1402 the input (missing/invalid parameter, media not reachable:
// upstream_rejected_input); anything else (1403, 1405, 5xxx) upstream_failed. The task is over
// either way: a 5xxx-failed task is not resubmitted (that would run it twice).
// An envelope whose `code` is not 200 is read as that HTTP status (the same error mapping).
//
// Not in the documentation, and decided here: there is no cancel endpoint, only delete, so
// `cancel` deletes the task (the docs do not say whether deleting stops a running job or what is
// billed; README "Providers", Cancellation). `has_nsfw_contents[i]` flags outputs[i].
import type { Adapter, AdapterDefinition, AdapterEnv, JobAdapter, JobContext, JobState, UpstreamOutput } from './types.ts';
import { bearer, callJson, keyedCall, collectOutputs, defaultNet, joinUrl, runJobInProcess, DOWNLOAD_TIMEOUT_MS } from './upstream-http.ts';
import type { HttpNet, KeyedCall as Call } from './upstream-http.ts';
import { emptyResult, errorForStatus, moderated, truncate, upstreamError } from './upstream-errors.ts';
import type { Caller } from './upstream-errors.ts';
import { mapInput } from './upstream-config.ts';

/** WaveSpeed's task error codes (Error Codes page) */
const MODERATION_CODE = 1200;
const INPUT_CODES = new Set([1400, 1401, 1402]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The model path of a submit, each segment encoded. */
function modelPath(upstreamModel: string): string {
  return upstreamModel.split('/').filter(Boolean).map(encodeURIComponent).join('/');
}

/**
 * The `data` of an envelope; a non-200 envelope code is an error like that HTTP status (`aboutJob`:
 * the call asked about an accepted job, as errorForStatus's).
 */
export function unwrap(caller: Caller, body: Record<string, unknown>, what: string, aboutJob = false): Record<string, unknown> {
  if (typeof body.code === 'number' && body.code !== 200 && body.code >= 400 && body.code < 600) {
    throw errorForStatus(caller, body.code, JSON.stringify({ message: body.message }), what, undefined, aboutJob);
  }
  if (!isRecord(body.data)) throw upstreamError(caller, `upstream "${caller.provider}" sent a malformed answer during ${what}: no data`, false, 'upstream_protocol');
  return body.data;
}

function readOutputs(caller: Caller, data: Record<string, unknown>, text: boolean): UpstreamOutput[] {
  const items = Array.isArray(data.outputs) ? data.outputs : [];
  if (text) {
    const joined = items.filter((piece): piece is string => typeof piece === 'string').join('');
    return joined === '' ? [] : [{ data: Buffer.from(joined, 'utf8'), contentType: 'text/plain', extension: 'txt' }];
  }
  const flags = Array.isArray(data.has_nsfw_contents) ? data.has_nsfw_contents : [];
  return items.map((url, i) => {
    if (typeof url !== 'string' || url === '') throw upstreamError(caller, `upstream "${caller.provider}" sent an output that is not a file URL`, false, 'upstream_protocol');
    return { url, ...(flags[i] === true ? { nsfw: true } : {}) };
  });
}

/** One prediction object (a result or a callback body's) as a job state. */
export function readPrediction(caller: Caller, data: Record<string, unknown>, text: boolean): JobState {
  const status = typeof data.status === 'string' ? data.status : '';
  switch (status) {
    case 'created':
    case 'processing':
      return { kind: 'running', status };
    case 'completed': {
      const outputs = readOutputs(caller, data, text);
      if (outputs.length === 0) throw emptyResult(caller);
      const timings = isRecord(data.timings) ? data.timings : {};
      const ms = typeof timings.inference === 'number' && Number.isFinite(timings.inference) && timings.inference >= 0 ? Math.round(timings.inference) : undefined;
      // WaveSpeed's timings are in milliseconds already
      const given = Object.fromEntries(Object.entries(timings).filter(([, v]) => typeof v === 'number' && Number.isFinite(v) && v >= 0));
      return { kind: 'succeeded', status, outputs, ...(ms !== undefined ? { inferenceMs: ms } : {}), ...(Object.keys(given).length ? { report: { metadata: { provider_timings: given as Record<string, number> } } } : {}) };
    }
    case 'failed': {
      const detail = typeof data.error === 'string' && data.error !== '' ? data.error : 'no details given';
      const code = typeof data.code === 'number' ? data.code : undefined;
      const error = code === MODERATION_CODE
        ? moderated(caller, detail)
        : code !== undefined && INPUT_CODES.has(code)
          ? upstreamError(caller, `upstream rejected the input: ${truncate(detail)}`, false, 'upstream_rejected_input')
          : upstreamError(caller, `upstream "${caller.provider}" failed: ${truncate(detail)}`, false, 'upstream_failed');
      return { kind: 'failed', status, error };
    }
    default:
      throw upstreamError(caller, `upstream "${caller.provider}" sent a malformed answer: unknown status ${truncate(JSON.stringify(data.status) ?? 'undefined')}`, false, 'upstream_protocol');
  }
}

export function createWaveSpeed(env: AdapterEnv, netOverrides: Partial<HttpNet> = {}, pollIntervalMs = 1000): Adapter {
  const net = defaultNet(env, netOverrides);

  const call = (ctx: JobContext): Call => keyedCall(env, ctx);
  const isText = (ctx: JobContext) => ctx.model.category === 'llm';

  const job: JobAdapter = {
    async submit(input, ctx) {
      const c = call(ctx);
      // Callbacks on (README "Providers"): WaveSpeed posts the prediction when it completes or fails.
      const hook = ctx.callbackUrl ? `?webhook=${encodeURIComponent(ctx.callbackUrl)}` : '';
      const { body } = await callJson(c, { method: 'POST', url: joinUrl(c.url, `/${modelPath(ctx.model.upstreamModel!)}`) + hook, headers: bearer(c), body: mapInput(input, ctx.model), what: 'submission' });
      const data = unwrap(c, body, 'submission');
      if (typeof data.id !== 'string' || data.id === '') throw upstreamError(c, `upstream "${c.provider}" accepted the job without an id`, false, 'upstream_protocol');
      return { jobId: data.id, state: readPrediction(c, data, isText(ctx)) };
    },
    async poll(jobId, ctx) {
      const c = call(ctx);
      const { body, retryAfterMs } = await callJson(c, { method: 'GET', url: joinUrl(c.url, `/predictions/${encodeURIComponent(jobId)}/result`), headers: bearer(c), what: 'polling', aboutJob: true });
      const state = readPrediction(c, unwrap(c, body, 'polling', true), isText(ctx));
      return state.kind === 'running' && retryAfterMs !== undefined ? { ...state, retryAfterMs } : state;
    },
    async cancel(jobId, ctx) {
      const c = call(ctx);
      // No cancel in WaveSpeed's API: deleting the task is the only way to give it up.
      const { body } = await callJson(c, { method: 'POST', url: joinUrl(c.url, '/predictions/delete'), headers: bearer(c), body: { ids: [jobId] }, what: 'cancellation', aboutJob: true });
      unwrap(c, body, 'cancellation', true);
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

export const wavespeed: AdapterDefinition = {
  kind: 'upstream',
  // Placeholder: for upstream models the gateway takes the media kind from the spec's x-model.output.
  media: 'image',
  description: "WaveSpeed AI's v3 API: submit, result polling, delete as cancel; copies outputs with their NSFW flags.",
  create: (env) => createWaveSpeed(env),
};
