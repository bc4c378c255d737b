// OpenAI-compatible upstream: OpenAI itself, or a self-hosted server speaking the same API (vLLM,
// Ollama, LocalAI) by base URL. Contract from OpenAI's public API reference:
//
//   Images    POST {base}/images/generations   {"model", "prompt", "n", ...}
//             -> {"created", "data": [{"b64_json"} | {"url"}, ...]}   (GPT image models answer
//                b64_json; dall-e answers url unless response_format is b64_json)
//   Chat      POST {base}/chat/completions      {"model", "messages": [{"role", "content"}], ...}
//             -> {"id", "choices": [{"message": {"content"}, "finish_reason"}]}
//             finish_reason "content_filter" means the content was withheld by a content filter.
//   Errors    {"error": {"message", "type", "param", "code"}}; a refused prompt is HTTP 400 with
//             code content_policy_violation / moderation_blocked (or null and a "safety system" message).
//   Auth      Authorization: Bearer {UPSTREAM_<NAME>_KEY}, left out when no key is set (Ollama).
//
// {base} is UPSTREAM_<NAME>_URL including its /v1 (https://api.openai.com/v1, http://vllm:8000/v1);
// with only UPSTREAM_OPENAI_KEY set, provider `openai` uses OpenAI's. The model's category picks
// the endpoint: `llm` is chat (our `prompt` is the user message, `system_prompt` the system
// message; other fields pass through input_map), anything else is image generation. Both answer
// in one call: submit returns a finished job, so there is nothing to poll or cancel.
import { AdapterError } from './types.ts';
import type { Adapter, AdapterDefinition, AdapterEnv, AdapterResult, JobAdapter, JobContext, JobState, UpstreamOutput } from './types.ts';
import { callJson, collectOutputs, defaultNet, joinUrl, DOWNLOAD_TIMEOUT_MS } from './upstream-http.ts';
import type { HttpNet } from './upstream-http.ts';
import { cancelled, emptyResult, moderated, upstreamError } from './upstream-errors.ts';
import type { Caller } from './upstream-errors.ts';
import { mapInput, requireUpstream } from './upstream-config.ts';

/** Image generation and long chat answers take minutes on a busy server. */
const CALL_TIMEOUT_MS = 5 * 60_000;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface Call extends Caller {
  url: string;
  key: string | undefined;
}

function chatBody(model: string, input: Record<string, unknown>): Record<string, unknown> {
  const { prompt, system_prompt: system, ...rest } = input;
  const messages: Array<{ role: string; content: unknown }> = [];
  if (typeof system === 'string' && system !== '') messages.push({ role: 'system', content: system });
  messages.push({ role: 'user', content: prompt });
  return { ...rest, model, messages };
}

function readChat(caller: Caller, body: Record<string, unknown>): JobState {
  const choice = Array.isArray(body.choices) && isRecord(body.choices[0]) ? body.choices[0] : undefined;
  if (choice?.finish_reason === 'content_filter') throw moderated(caller);
  const message = isRecord(choice?.message) ? choice.message : undefined;
  const content = message?.content;
  if (typeof content !== 'string' || content === '') throw emptyResult(caller);
  return { kind: 'succeeded', status: 'completed', outputs: [{ data: Buffer.from(content, 'utf8'), contentType: 'text/plain', extension: 'txt' }] };
}

function readImages(caller: Caller, body: Record<string, unknown>): JobState {
  const data = Array.isArray(body.data) ? body.data : [];
  const outputs: UpstreamOutput[] = [];
  for (const item of data) {
    if (!isRecord(item)) continue;
    if (typeof item.b64_json === 'string' && item.b64_json !== '') {
      // The worker types the file from its bytes; these are only hints.
      outputs.push({ data: Buffer.from(item.b64_json, 'base64'), contentType: 'application/octet-stream', extension: 'bin' });
    } else if (typeof item.url === 'string' && item.url !== '') {
      outputs.push({ url: item.url });
    }
  }
  if (outputs.length === 0) throw emptyResult(caller);
  return { kind: 'succeeded', status: 'completed', outputs };
}

export function createOpenAiCompatible(env: AdapterEnv, netOverrides: Partial<HttpNet> = {}): Adapter {
  const net = defaultNet(env, netOverrides);

  function call(ctx: JobContext): Call {
    const { name, upstream } = requireUpstream(env, ctx.model);
    return { provider: name, secrets: [upstream.key ?? '', upstream.url], signal: ctx.signal, url: upstream.url, key: upstream.key };
  }

  const job: JobAdapter = {
    async submit(input, ctx) {
      const c = call(ctx);
      const model = ctx.model.upstreamModel!;
      const mapped = mapInput(input, ctx.model);
      const chat = ctx.model.category === 'llm';
      const { body } = await callJson(c, {
        method: 'POST',
        url: joinUrl(c.url, chat ? '/chat/completions' : '/images/generations'),
        headers: c.key ? { authorization: `Bearer ${c.key}` } : {},
        body: chat ? chatBody(model, mapped) : { ...mapped, model },
        what: 'submission',
        timeoutMs: CALL_TIMEOUT_MS,
      });
      const state = chat ? readChat(c, body) : readImages(c, body);
      // One call, finished: the provider's id when it gives one, else our own.
      return { jobId: typeof body.id === 'string' && body.id !== '' ? body.id : ctx.predictionId, state };
    },
    async poll(_jobId, ctx) {
      // Only reached when a worker stopped between the answer and storing it: the answer is gone
      // and the API has no way to fetch it again. Failing (unbilled) beats paying for it twice.
      throw upstreamError(call(ctx), `upstream "${call(ctx).provider}" answered, but the answer was lost when the worker stopped; please submit again`, false, 'upstream_failed');
    },
    async cancel() {
      // a single call: nothing keeps running at the provider
    },
    async collect(outputs, ctx) {
      return collectOutputs({ caller: call(ctx), net, downloadTimeoutMs: DOWNLOAD_TIMEOUT_MS }, outputs, ctx.predictionId, ctx.tempDir);
    },
  };

  return {
    job,
    async run(input, ctx): Promise<AdapterResult> {
      if (ctx.signal.aborted) throw cancelled();
      const started = performance.now();
      const { state } = await job.submit(input, ctx);
      if (state.kind === 'failed') throw state.error;
      if (state.kind !== 'succeeded') throw new AdapterError('unexpected upstream state', false, { code: 'upstream_protocol' });
      const files = await job.collect(state.outputs, ctx);
      return { files, inferenceMs: Math.round(performance.now() - started) };
    },
  };
}

export const openAiCompatible: AdapterDefinition = {
  kind: 'upstream',
  // Placeholder: for upstream models the gateway takes the media kind from the spec's x-model.output.
  media: 'image',
  description: 'OpenAI-compatible API (OpenAI, vLLM, Ollama, LocalAI): images/generations, chat/completions for language models.',
  create: (env) => createOpenAiCompatible(env),
};
