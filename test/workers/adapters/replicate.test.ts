// The replicate adapter against fixtures shaped as Replicate's public HTTP API reference documents
// them (the prediction object, create/get/cancel). Third-party HTTP: nock.
import test from 'ava';
import { tinyPng, publicResolve, bytes, failure } from '../../helpers/adapters.ts';
import nock from 'nock';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createReplicate, submitTarget } from '../../../workers/adapters/replicate.ts';
import type { AdapterEnv, RunContext } from '../../../workers/adapters/types.ts';

const API = 'https://api.replicate.test';
const BASE = `${API}/v1`;
const CDN = 'https://replicate.delivery.test';
const KEY = 'r8_very_secret_token';
const VERSION = '5c7d5dc6dd8bf75c1acaa8565735e7986bc5b66206b55cca93cb72c9bf15ccaa';

const PNG_BYTES = tinyPng(2, 2, 64);

nock.disableNetConnect();
test.afterEach.always(() => {
  nock.cleanAll();
});

let tempDir = '';
test.before(async () => {
  tempDir = await fs.mkdtemp(path.join(os.tmpdir(), 'replicate-test-'));
});
test.after.always(async () => {
  await fs.rm(tempDir, { recursive: true, force: true });
});

const env: AdapterEnv = { upstreams: new Map([['replicate', { url: BASE, key: KEY }]]) };

function context(upstreamModel = 'black-forest-labs/flux-dev', category = 'text-to-image', signal = new AbortController().signal): RunContext {
  return { signal, predictionId: 'p-1', tempDir, model: { operationId: 'lumen-pro-text-to-image', category, upstream: 'replicate', upstreamModel, inputMap: { num_images: 'num_outputs' } } };
}


const adapter = () => createReplicate(env, { resolve: publicResolve }, 1);

/** A prediction object as Replicate returns it. */
function prediction(id: string, status: string, extra: Record<string, unknown> = {}) {
  return {
    id, model: 'black-forest-labs/flux-dev', version: VERSION, input: { prompt: 'a fox' }, logs: '', output: null, error: null, status,
    created_at: '2026-11-23T16:19:34.765994Z', data_removed: false, started_at: null, completed_at: null,
    urls: { cancel: `${BASE}/predictions/${id}/cancel`, get: `${BASE}/predictions/${id}` }, ...extra,
  };
}



test('an official model is submitted by name, a pinned version through /predictions', (t) => {
  t.deepEqual(submitTarget('black-forest-labs/flux-dev'), { path: '/models/black-forest-labs/flux-dev/predictions' });
  t.deepEqual(submitTarget(`replicate/hello-world:${VERSION}`), { path: '/predictions', version: VERSION });
  t.deepEqual(submitTarget(VERSION), { path: '/predictions', version: VERSION });
});

test.serial('accepted (starting), processing, then succeeded: outputs are copied from the CDN', async (t) => {
  const api = nock(API)
    .post('/v1/models/black-forest-labs/flux-dev/predictions', { input: { prompt: 'a fox', num_outputs: 2 } })
    .matchHeader('authorization', `Bearer ${KEY}`)
    .reply(201, prediction('gm3q', 'starting'))
    .get('/v1/predictions/gm3q').matchHeader('authorization', `Bearer ${KEY}`).reply(200, prediction('gm3q', 'processing'))
    .get('/v1/predictions/gm3q').reply(200, prediction('gm3q', 'succeeded', { output: [`${CDN}/a/out-0.png`, `${CDN}/a/out-1.png`], metrics: { predict_time: 2.5 } }));
  const cdn = nock(CDN, { badheaders: ['authorization'] })
    .get('/a/out-0.png').reply(200, PNG_BYTES, { 'content-type': 'image/png' })
    .get('/a/out-1.png').reply(200, PNG_BYTES, { 'content-type': 'image/png' });
  const result = await adapter().run({ prompt: 'a fox', num_images: 2 }, context());
  t.true(api.isDone());
  t.true(cdn.isDone());
  t.is(result.inferenceMs, 2500);
  t.is(result.files.length, 2);
  t.deepEqual(await bytes(result.files[1]!), PNG_BYTES);
});

test.serial('the job contract maps every status: starting and processing run, succeeded finishes', async (t) => {
  const job = adapter().job!;
  nock(API).post(`/v1/predictions`, { version: VERSION, input: { text: 'Alice' } }).reply(201, prediction('v1', 'starting'));
  const submitted = await job.submit({ text: 'Alice' }, context(`replicate/hello-world:${VERSION}`));
  t.deepEqual(submitted, { jobId: 'v1', state: { kind: 'running', status: 'starting', logs: [] } });
  nock(API).get('/v1/predictions/v1').reply(200, prediction('v1', 'processing'), { 'retry-after': '3' });
  t.deepEqual(await job.poll('v1', context()), { kind: 'running', status: 'processing', logs: [], retryAfterMs: 3000 });
});

test.serial('a language model\'s output pieces are joined into one text file', async (t) => {
  const job = adapter().job!;
  nock(API).get('/v1/predictions/t1').reply(200, prediction('t1', 'succeeded', { output: ['A ', 'fox ', 'at dusk.'] }));
  const state = await job.poll('t1', context('meta/meta-llama-3-8b-instruct', 'llm'));
  t.is(state.kind, 'succeeded');
  const files = await job.collect(state.kind === 'succeeded' ? state.outputs : [], context());
  t.is((await bytes(files[0]!)).toString('utf8'), 'A fox at dusk.');
});

test.serial('failed carries Replicate\'s error; an NSFW refusal is content_moderated; canceled and aborted fail', async (t) => {
  const job = adapter().job!;
  nock(API).get('/v1/predictions/f1').reply(200, prediction('f1', 'failed', { error: 'CUDA out of memory' }));
  const failed = await job.poll('f1', context());
  t.is(failed.kind, 'failed');
  if (failed.kind === 'failed') t.like(failed.error, { code: 'upstream_failed', retryable: false, message: 'upstream "replicate" failed: CUDA out of memory' });

  nock(API).get('/v1/predictions/f2').reply(200, prediction('f2', 'failed', { error: 'NSFW content detected. Try running it again, or try a different prompt.' }));
  const nsfw = await job.poll('f2', context());
  if (nsfw.kind === 'failed') t.is(nsfw.error.code, 'content_moderated');
  else t.fail('expected failed');

  for (const status of ['canceled', 'aborted']) {
    nock(API).get('/v1/predictions/c1').reply(200, prediction('c1', status));
    const state = await job.poll('c1', context());
    t.is(state.kind, 'failed');
    if (state.kind === 'failed') t.is(state.error.code, 'upstream_cancelled');
  }
});

test.serial('succeeded with no output is an empty result, never retried', async (t) => {
  nock(API).get('/v1/predictions/e1').reply(200, prediction('e1', 'succeeded', { output: [] }));
  const error = await failure(t, adapter().job!.poll('e1', context()));
  t.is(error.code, 'empty_result');
  t.false(error.retryable);
});

test.serial('429 on submit is retryable with its Retry-After; 422 input errors are not', async (t) => {
  nock(API).post('/v1/models/black-forest-labs/flux-dev/predictions').reply(429, { title: 'Request was throttled.', detail: 'Request was throttled. Expected available in 7 seconds.', status: 429 }, { 'retry-after': '7' });
  const limited = await failure(t, adapter().run({ prompt: 'a fox' }, context()));
  t.true(limited.retryable);
  t.is(limited.retryAfterMs, 7000);

  nock(API).post('/v1/models/black-forest-labs/flux-dev/predictions').reply(422, { title: 'Input validation failed', detail: '- input.guidance: Must be less than or equal to 10', status: 422 });
  const invalid = await failure(t, adapter().run({ prompt: 'a fox' }, context()));
  t.false(invalid.retryable);
  t.is(invalid.code, 'upstream_rejected_input');
  t.regex(invalid.message, /less than or equal to 10/);
});

test.serial('cancel posts to the prediction\'s cancel endpoint', async (t) => {
  const api = nock(API).post('/v1/predictions/k1/cancel').matchHeader('authorization', `Bearer ${KEY}`).reply(200, prediction('k1', 'canceled'));
  await adapter().job!.cancel('k1', context());
  t.true(api.isDone());
});

test.serial('aborting an in-process run cancels the job at Replicate', async (t) => {
  const controller = new AbortController();
  // Aborted while it waits for its first poll (a long one), never during a request: once the
  // submit has fully answered (a timer could fire mid-response and trip undici under nock).
  nock(API).post('/v1/models/black-forest-labs/flux-dev/predictions').reply(201, prediction('r1', 'starting'));
  const cancel = nock(API).post('/v1/predictions/r1/cancel').reply(200, prediction('r1', 'canceled'));
  const replicate = createReplicate(env, { resolve: publicResolve }, 60_000);
  const submit = replicate.job!.submit.bind(replicate.job);
  replicate.job!.submit = async (input, ctx) => {
    const submitted = await submit(input, ctx);
    setImmediate(() => controller.abort());
    return submitted;
  };
  const run = replicate.run({ prompt: 'a fox' }, context(undefined, undefined, controller.signal));
  const error = await failure(t, run);
  t.is(error.message, 'cancelled');
  t.true(cancel.isDone());
});

test.serial('progress: Replicate\'s logs text becomes lines, and the last progress bar in it the progress', async (t) => {
  const job = adapter().job!;
  // a prediction's `logs` is its whole output so far; diffusion models print tqdm bars per step
  const logs = 'Using seed: 4242\nLoading pipeline...\n  0%|          | 0/28 [00:00<?, ?it/s]\n 25%|██▌       | 7/28 [00:01<00:03,  6.1it/s]\n';
  nock(API).get('/v1/predictions/g1').reply(200, prediction('g1', 'processing', { logs }));
  t.deepEqual(await job.poll('g1', context()), {
    kind: 'running', status: 'processing', progress: 0.25,
    logs: [{ message: 'Using seed: 4242' }, { message: 'Loading pipeline...' }, { message: '  0%|          | 0/28 [00:00<?, ?it/s]' }, { message: ' 25%|██▌       | 7/28 [00:01<00:03,  6.1it/s]' }],
  });
  // a bar without a percentage: its steps
  nock(API).get('/v1/predictions/g1').reply(200, prediction('g1', 'processing', { logs: 'step |   9/12 [00:03<00:01]' }));
  const steps = await job.poll('g1', context());
  t.is(steps.kind === 'running' ? steps.progress : undefined, 0.75);
  // no bar: no progress, still the lines
  nock(API).get('/v1/predictions/g1').reply(200, prediction('g1', 'starting', { logs: 'booting' }));
  t.deepEqual(await job.poll('g1', context()), { kind: 'running', status: 'starting', logs: [{ message: 'booting' }] });
});
