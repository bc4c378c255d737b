// The openai-compatible adapter against fixtures shaped as OpenAI's public API reference
// documents them (images/generations, chat/completions, the error object). Third-party HTTP: nock.
import test from 'ava';
import { tinyPng, publicResolve, bytes, failure } from '../../helpers/adapters.ts';
import nock from 'nock';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { createOpenAiCompatible } from '../../../workers/adapters/openai-compatible.ts';
import type { AdapterEnv, RunContext } from '../../../workers/adapters/types.ts';

const API = 'https://api.openai.test';
const BASE = `${API}/v1`;
const CDN = 'https://images.openai.test';
const KEY = 'sk-proj-very-secret-key';

const PNG_BYTES = tinyPng();

nock.disableNetConnect();
test.afterEach.always(() => {
  nock.cleanAll();
});

let tempDir = '';
test.before(async () => {
  tempDir = await fs.mkdtemp(path.join(os.tmpdir(), 'openai-test-'));
});
test.after.always(async () => {
  await fs.rm(tempDir, { recursive: true, force: true });
});

function env(key: string | null = KEY): AdapterEnv {
  return { upstreams: new Map([['openai', { url: BASE, ...(key ? { key } : {}) }]]) };
}

function imageContext(extra: Partial<RunContext['model']> = {}): RunContext {
  return {
    signal: new AbortController().signal,
    predictionId: 'p-1',
    tempDir,
    model: { operationId: 'lumen-max-text-to-image', category: 'text-to-image', upstream: 'openai', upstreamModel: 'gpt-image-1', ...extra },
  };
}

function chatContext(): RunContext {
  return { signal: new AbortController().signal, predictionId: 'p-2', tempDir, model: { operationId: 'lexi-v1-balanced-chat', category: 'llm', upstream: 'openai', upstreamModel: 'gpt-4o-mini' } };
}


const adapter = (e: AdapterEnv = env()) => createOpenAiCompatible(e, { resolve: publicResolve });



test.serial('an image generation answered in b64_json gives the PNG bytes, with input_map and fixed_input applied', async (t) => {
  const api = nock(API)
    .post('/v1/images/generations', { prompt: 'a lighthouse', n: 2, model: 'gpt-image-1', quality: 'high' })
    .matchHeader('authorization', `Bearer ${KEY}`)
    .reply(200, { created: 1_713_833_628, data: [{ b64_json: PNG_BYTES.toString('base64') }, { b64_json: PNG_BYTES.toString('base64') }] });
  const ctx = imageContext({ inputMap: { num_images: 'n', seed: '' }, fixedInput: { quality: 'high' } });
  const result = await adapter().run({ prompt: 'a lighthouse', num_images: 2, seed: 7 }, ctx);
  t.true(api.isDone());
  t.is(result.files.length, 2);
  t.deepEqual(await bytes(result.files[0]!), PNG_BYTES);
});

test.serial('an image generation answered with URLs downloads them without the key', async (t) => {
  nock(API).post('/v1/images/generations').reply(200, { created: 1, data: [{ url: `${CDN}/img-1.png`, revised_prompt: 'a lighthouse at dusk' }] });
  const cdn = nock(CDN, { badheaders: ['authorization'] }).get('/img-1.png').reply(200, PNG_BYTES, { 'content-type': 'image/png' });
  const result = await adapter().run({ prompt: 'a lighthouse' }, imageContext());
  t.true(cdn.isDone());
  t.deepEqual(await bytes(result.files[0]!), PNG_BYTES);
  t.like(result.files[0], { contentType: 'image/png', extension: 'png' });
});

test.serial('a chat completion becomes one UTF-8 text file; system_prompt is the system message', async (t) => {
  const api = nock(API)
    .post('/v1/chat/completions', {
      model: 'gpt-4o-mini', max_tokens: 64, temperature: 0.2,
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Caption a lighthouse photo.' }],
    })
    .reply(200, {
      id: 'chatcmpl-123', object: 'chat.completion', created: 1, model: 'gpt-4o-mini',
      choices: [{ index: 0, message: { role: 'assistant', content: 'A lighthouse glows at dusk — ünïcode kept.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 },
    });
  const job = adapter().job!;
  const submitted = await job.submit({ prompt: 'Caption a lighthouse photo.', system_prompt: 'Be brief.', max_tokens: 64, temperature: 0.2 }, chatContext());
  t.true(api.isDone());
  t.is(submitted.jobId, 'chatcmpl-123');
  t.is(submitted.state.kind, 'succeeded');
  const files = await job.collect(submitted.state.kind === 'succeeded' ? submitted.state.outputs : [], chatContext());
  t.is((await bytes(files[0]!)).toString('utf8'), 'A lighthouse glows at dusk — ünïcode kept.');
});

test.serial('a conversation in messages is sent as it is, after system_prompt', async (t) => {
  const conversation = [{ role: 'user', content: 'Name a colour.' }, { role: 'assistant', content: 'Blue.' }, { role: 'user', content: 'Another.' }];
  const api = nock(API)
    .post('/v1/chat/completions', { model: 'gpt-4o-mini', max_tokens: 16, messages: [{ role: 'system', content: 'One word.' }, ...conversation] })
    .reply(200, { id: 'chatcmpl-456', object: 'chat.completion', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'Green.' }, finish_reason: 'stop' }] });
  const submitted = await adapter().job!.submit({ messages: conversation, system_prompt: 'One word.', max_tokens: 16 }, chatContext());
  t.true(api.isDone());
  t.is(submitted.state.kind, 'succeeded');
});

test.serial('a self-hosted server without a key (Ollama, vLLM) gets no Authorization header', async (t) => {
  const api = nock(API, { badheaders: ['authorization'] }).post('/v1/chat/completions').reply(200, { id: 'x', choices: [{ message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }] });
  await adapter(env(null)).run({ prompt: 'hello' }, chatContext());
  t.true(api.isDone());
});

test.serial('a 400 validation error is not retryable and says what was rejected', async (t) => {
  nock(API).post('/v1/images/generations').reply(400, { error: { message: "Invalid value: 'n' must be at most 10.", type: 'invalid_request_error', param: 'n', code: 'invalid_value' } });
  const error = await failure(t, adapter().run({ prompt: 'x' }, imageContext()));
  t.false(error.retryable);
  t.is(error.code, 'upstream_rejected_input');
  t.regex(error.message, /must be at most 10/);
});

test.serial('a moderation refusal is content_moderated and never retried, with or without an error code', async (t) => {
  nock(API).post('/v1/images/generations').reply(400, { error: { message: 'Your request was rejected by the safety system.', type: 'image_generation_user_error', param: null, code: 'moderation_blocked' } });
  const coded = await failure(t, adapter().run({ prompt: 'x' }, imageContext()));
  t.false(coded.retryable);
  t.is(coded.code, 'content_moderated');

  nock(API).post('/v1/images/generations').reply(400, { error: { code: null, message: 'Your request was rejected as a result of our safety system. ', param: null, type: 'invalid_request_error' } });
  const uncoded = await failure(t, adapter().run({ prompt: 'x' }, imageContext()));
  t.is(uncoded.code, 'content_moderated');

  nock(API).post('/v1/chat/completions').reply(200, { id: 'c', choices: [{ index: 0, message: { role: 'assistant', content: null }, finish_reason: 'content_filter' }] });
  const chat = await failure(t, adapter().run({ prompt: 'x' }, chatContext()));
  t.is(chat.code, 'content_moderated');
  t.false(chat.retryable);
});

test.serial('an empty result is failed, never retried', async (t) => {
  nock(API).post('/v1/images/generations').reply(200, { created: 1, data: [] });
  const error = await failure(t, adapter().run({ prompt: 'x' }, imageContext()));
  t.is(error.code, 'empty_result');
  t.false(error.retryable);
});

test.serial('429 is retryable and carries its Retry-After; 503 is retryable', async (t) => {
  nock(API).post('/v1/images/generations').reply(429, { error: { message: 'Rate limit reached for requests', type: 'requests', param: null, code: 'rate_limit_exceeded' } }, { 'retry-after': '20' });
  const limited = await failure(t, adapter().run({ prompt: 'x' }, imageContext()));
  t.true(limited.retryable);
  t.is(limited.retryAfterMs, 20_000);
  t.is(limited.code, 'upstream_unavailable');

  nock(API).post('/v1/images/generations').reply(503, { error: { message: 'The engine is currently overloaded, please try again later', type: 'server_error', param: null, code: null } });
  const overloaded = await failure(t, adapter().run({ prompt: 'x' }, imageContext()));
  t.true(overloaded.retryable);
});

test.serial('neither the key nor the provider URL reaches an error message', async (t) => {
  nock(API).post('/v1/images/generations').reply(400, { error: { message: `Incorrect API key provided: ${KEY}. See ${BASE}/keys`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
  const error = await failure(t, adapter().run({ prompt: 'x' }, imageContext()));
  t.false(error.message.includes(KEY), error.message);
  t.false(error.message.includes('openai.test'), error.message);
});
