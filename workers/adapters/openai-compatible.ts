// OpenAI-compatible upstream: OpenAI itself, or a self-hosted server speaking the same API (vLLM,
// Ollama, LocalAI) by base URL. Contract from OpenAI's public API reference:
//
//   Images    POST {base}/images/generations   {"model", "prompt", "n", ...}
//             -> {"created", "data": [{"b64_json"} | {"url"}, ...]}   (GPT image models answer
//                b64_json; dall-e answers url unless response_format is b64_json)
//   Edits     POST {base}/images/edits          multipart/form-data: "image" (the file), "prompt",
//             "model", "n", ... -> the same answer as generations. Used for the image-to-image
//             category: the input field mapped to `image` (input_map: {image_url: image}) is a URL
//             the adapter downloads under the output destination policy (public addresses only,
//             at most 25 MB, PNG, JPEG or WebP by its bytes) and uploads. Multipart rather than
//             OpenAI's newer JSON form (`images: [{image_url}]`) so that self-hosted servers,
//             which implement the multipart form, work too.
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
// message; other fields pass through input_map), `image-to-image` is an edit, anything else is
// image generation. All answer in one call: submit returns a finished job, so there is nothing
// to poll or cancel. Video: OpenAI's Videos API (sora-2) is deprecated and shuts down on
// 24 September 2026 (OpenAI's video generation guide), so no video endpoint is mapped to it.
import { AdapterError, removeTemporary } from './types.ts';
import type { Adapter, AdapterDefinition, AdapterEnv, AdapterResult, JobAdapter, JobContext, JobState, ProviderReport, UpstreamOutput } from './types.ts';
import { bearer, callJson, keyedCall, collectOutputs, defaultNet, download, joinUrl, DOWNLOAD_TIMEOUT_MS } from './upstream-http.ts';
import fs from 'node:fs/promises';
import os from 'node:os';
import type { HttpNet, KeyedCall as Call } from './upstream-http.ts';
import { cancelled, emptyResult, moderated, upstreamError } from './upstream-errors.ts';
import type { Caller } from './upstream-errors.ts';
import { mapInput } from './upstream-config.ts';
import { reportedTokenCount as count } from './openai-chat.ts';

/** Image generation and long chat answers take minutes on a busy server. */
const CALL_TIMEOUT_MS = 5 * 60_000;
/** OpenAI's limit for an image to edit with GPT image models ("less than 25MB") */
const MAX_EDIT_IMAGE_BYTES = 25_000_000;
/** the provider's field (after input_map) that holds the URL of the image to edit */
const EDIT_IMAGE_FIELD = 'image';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The chat request: `system_prompt` first when set, then the input's `messages` (a conversation) or its `prompt` as the user's message. */
function chatBody(model: string, input: Record<string, unknown>): Record<string, unknown> {
  const { prompt, system_prompt: system, messages: conversation, ...rest } = input;
  const messages: Array<{ role: string; content: unknown }> = [];
  if (typeof system === 'string' && system !== '') messages.push({ role: 'system', content: system });
  if (Array.isArray(conversation)) messages.push(...(conversation as Array<{ role: string; content: unknown }>));
  else messages.push({ role: 'user', content: prompt });
  return { ...rest, model, messages };
}

/**
 * What the answer says besides the outputs: `usage` (chat: prompt_tokens and completion_tokens;
 * GPT image models: input_tokens and output_tokens), its `cost` in US dollars where the server
 * reports one (OpenRouter's usage accounting), and a rewritten prompt (dall-e-3's revised_prompt).
 */
function reportOf(body: Record<string, unknown>, revisedPrompt?: unknown): ProviderReport | undefined {
  const usage = isRecord(body.usage) ? body.usage : {};
  const inputTokens = count(usage.prompt_tokens) ?? count(usage.input_tokens);
  const outputTokens = count(usage.completion_tokens) ?? count(usage.output_tokens);
  const cost = typeof usage.cost === 'number' && Number.isFinite(usage.cost) && usage.cost >= 0 ? usage.cost : undefined;
  const report: ProviderReport = {
    ...(inputTokens !== undefined && outputTokens !== undefined ? { usage: { inputTokens, outputTokens } } : {}),
    ...(cost !== undefined ? { costUsd: cost } : {}),
    ...(typeof revisedPrompt === 'string' && revisedPrompt !== '' ? { metadata: { revised_prompt: revisedPrompt } } : {}),
  };
  return Object.keys(report).length ? report : undefined;
}

function readChat(caller: Caller, body: Record<string, unknown>): JobState {
  const choice = Array.isArray(body.choices) && isRecord(body.choices[0]) ? body.choices[0] : undefined;
  if (choice?.finish_reason === 'content_filter') throw moderated(caller);
  const message = isRecord(choice?.message) ? choice.message : undefined;
  const content = message?.content;
  if (typeof content !== 'string' || content === '') throw emptyResult(caller);
  const report = reportOf(body);
  return { kind: 'succeeded', status: 'completed', outputs: [{ data: Buffer.from(content, 'utf8'), contentType: 'text/plain', extension: 'txt' }], ...(report ? { report } : {}) };
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
  const first = isRecord(data[0]) ? data[0] : {};
  const report = reportOf(body, first.revised_prompt);
  return { kind: 'succeeded', status: 'completed', outputs, ...(report ? { report } : {}) };
}

/** The image's type from its first bytes: the edits API takes PNG, JPEG and WebP. */
function imageType(data: Buffer): { type: string; extension: string } | undefined {
  if (data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return { type: 'image/png', extension: 'png' };
  if (data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return { type: 'image/jpeg', extension: 'jpg' };
  if (data.subarray(0, 4).toString('latin1') === 'RIFF' && data.subarray(8, 12).toString('latin1') === 'WEBP') return { type: 'image/webp', extension: 'webp' };
  return undefined;
}

function formValue(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

export function createOpenAiCompatible(env: AdapterEnv, netOverrides: Partial<HttpNet> = {}): Adapter {
  const net = defaultNet(env, netOverrides);

  /**
   * Fetches the image to edit from the user's URL (the output destination policy applies: this is
   * a URL the user chose). Its problems are the input's: not retried, and never a reason to fail
   * over to another provider.
   */
  async function imageToEdit(c: Call, raw: unknown, ctx: JobContext): Promise<{ data: Buffer; type: string; extension: string }> {
    const inputError = (why: string) => new AdapterError(`the image to edit could not be used: ${why}`, false, { code: 'upstream_rejected_input' });
    if (typeof raw !== 'string' || raw === '') throw inputError('no image URL was given');
    const tempDir = (ctx as JobContext & { tempDir?: string }).tempDir ?? os.tmpdir();
    let file;
    try {
      file = await download({ caller: c, net: { ...net, maxOutputBytes: MAX_EDIT_IMAGE_BYTES }, downloadTimeoutMs: DOWNLOAD_TIMEOUT_MS }, raw, 0, false, tempDir, `${ctx.predictionId}-edit-input`);
    } catch (err) {
      if (ctx.signal.aborted) throw cancelled();
      // download() words its errors for outputs; say it of the input instead.
      const message = err instanceof Error ? err.message.replace(`upstream "${c.provider}" output 1`, 'it').replace(/^upstream "[^"]*" /, '') : 'download failed';
      throw inputError(message);
    }
    try {
      const data = file.data ? Buffer.from(file.data) : await fs.readFile(file.path!);
      const kind = imageType(data);
      if (!kind) throw inputError('it is not a PNG, JPEG or WebP image');
      return { data, ...kind };
    } finally {
      await removeTemporary([file]);
    }
  }

  const call = (ctx: JobContext): Call => keyedCall(env, ctx);

  const job: JobAdapter = {
    async submit(input, ctx) {
      const c = call(ctx);
      const model = ctx.model.upstreamModel!;
      const mapped = mapInput(input, ctx.model);
      const chat = ctx.model.category === 'llm';
      if (ctx.model.category === 'image-to-image') {
        const { [EDIT_IMAGE_FIELD]: imageUrl, ...fields } = mapped;
        const image = await imageToEdit(c, imageUrl, ctx);
        const form = new FormData();
        form.append('model', model);
        for (const [name, value] of Object.entries(fields)) if (value !== undefined && value !== null) form.append(name, formValue(value));
        form.append('image', new Blob([image.data], { type: image.type }), `image.${image.extension}`);
        const { body } = await callJson(c, {
          method: 'POST', url: joinUrl(c.url, '/images/edits'), headers: bearer(c), form, what: 'submission', timeoutMs: CALL_TIMEOUT_MS,
        });
        return { jobId: typeof body.id === 'string' && body.id !== '' ? body.id : ctx.predictionId, state: readImages(c, body) };
      }
      const { body } = await callJson(c, {
        method: 'POST',
        url: joinUrl(c.url, chat ? '/chat/completions' : '/images/generations'),
        headers: bearer(c),
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
    answersOnce: true,
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
      return { files, inferenceMs: Math.round(performance.now() - started), ...(state.report ? { report: state.report } : {}) };
    },
  };
}

export const openAiCompatible: AdapterDefinition = {
  kind: 'upstream',
  // Placeholder: for upstream models the gateway takes the media kind from the spec's x-model.output.
  media: 'image',
  description: 'OpenAI-compatible API (OpenAI, vLLM, Ollama, LocalAI): images/generations, images/edits for image-to-image, chat/completions for language models.',
  create: (env) => createOpenAiCompatible(env),
};
