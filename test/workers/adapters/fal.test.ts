// The fal adapter against fixtures shaped as fal's public Queue API, Webhooks and Model Errors
// documentation shows them (submit, status with queue position, result via response_url,
// cancel). Third-party HTTP: nock.
import test from 'ava';
import { tinyPng, publicResolve, bytes, failure } from '../../helpers/adapters.ts';
import nock from 'nock';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { appOf, createFal } from '../../../workers/adapters/fal.ts';
import type { AdapterEnv, JobContext, RunContext } from '../../../workers/adapters/types.ts';

const QUEUE = 'https://queue.fal.test';
const CDN = 'https://v3.fal.media.test';
const KEY = 'fal-key-id:very-secret-part';
const REQ = '80e732af-660e-45cd-bd63-580e4f2a94cc';
const PNG_BYTES = tinyPng(2, 3, 70);

nock.disableNetConnect();
test.afterEach.always(() => {
  nock.cleanAll();
});

let tempDir = '';
test.before(async () => {
  tempDir = await fs.mkdtemp(path.join(os.tmpdir(), 'fal-test-'));
});
test.after.always(async () => {
  await fs.rm(tempDir, { recursive: true, force: true });
});

const env: AdapterEnv = { upstreams: new Map([['fal', { url: QUEUE, key: KEY }]]) };
const adapter = (interval = 1) => createFal(env, { resolve: publicResolve }, interval);

function context(extra: Partial<RunContext & JobContext> = {}, upstreamModel = 'fal-ai/flux/schnell', category = 'text-to-image'): RunContext & JobContext {
  return {
    signal: new AbortController().signal, predictionId: 'p-fal', tempDir,
    model: { operationId: 'lumen-effects-text-to-image', category, upstream: 'fal', upstreamModel, inputMap: { aspect_ratio: 'image_size', negative_prompt: '' }, fixedInput: { enable_safety_checker: true } },
    ...extra,
  };
}

const urls = (id: string) => ({
  response_url: `${QUEUE}/fal-ai/flux/requests/${id}`,
  status_url: `${QUEUE}/fal-ai/flux/requests/${id}/status`,
  cancel_url: `${QUEUE}/fal-ai/flux/requests/${id}/cancel`,
});

test('status, result and cancel use the model\'s owner/app only', (t) => {
  t.is(appOf('fal-ai/flux/schnell'), 'fal-ai/flux');
  t.is(appOf('fal-ai/kling-video/v2/master/text-to-video'), 'fal-ai/kling-video');
  t.is(appOf('fal-ai/fast-sdxl'), 'fal-ai/fast-sdxl');
});

test.serial('submitted, in queue (position 2), in progress, completed: the images are copied with their NSFW flags', async (t) => {
  const api = nock(QUEUE, { reqheaders: { authorization: `Key ${KEY}` } })
    .post('/fal-ai/flux/schnell', { prompt: 'a fox', image_size: 'square', enable_safety_checker: true })
    .reply(200, { request_id: REQ, ...urls(REQ), queue_position: 3 })
    .get(`/fal-ai/flux/requests/${REQ}/status?logs=1`).reply(200, { status: 'IN_QUEUE', queue_position: 2, ...urls(REQ) })
    .get(`/fal-ai/flux/requests/${REQ}/status?logs=1`).reply(200, { status: 'IN_PROGRESS', logs: [], ...urls(REQ) })
    .get(`/fal-ai/flux/requests/${REQ}/status?logs=1`).reply(200, { status: 'COMPLETED', logs: [], metrics: { inference_time: 1.5 }, ...urls(REQ) })
    .get(`/fal-ai/flux/requests/${REQ}`).reply(200, {
      images: [{ url: `${CDN}/files/a.png`, content_type: 'image/png', width: 2, height: 3 }, { url: `${CDN}/files/b.png`, content_type: 'image/png' }],
      timings: { inference: 1.4 }, seed: 42, has_nsfw_concepts: [false, true], prompt: 'a fox',
    });
  const cdn = nock(CDN, { badheaders: ['authorization'] })
    .get('/files/a.png').reply(200, PNG_BYTES, { 'content-type': 'image/png' })
    .get('/files/b.png').reply(200, PNG_BYTES, { 'content-type': 'image/png' });

  const job = adapter().job!;
  const submitted = await job.submit({ prompt: 'a fox', aspect_ratio: 'square', negative_prompt: 'blur' }, context());
  t.deepEqual(submitted, { jobId: REQ, state: { kind: 'running', status: 'IN_QUEUE', queuePosition: 3 } });
  t.deepEqual(await job.poll(REQ, context()), { kind: 'running', status: 'IN_QUEUE', queuePosition: 2 });
  t.deepEqual(await job.poll(REQ, context()), { kind: 'running', status: 'IN_PROGRESS', logs: [] });
  const done = await job.poll(REQ, context());
  if (done.kind !== 'succeeded') return t.fail(`expected succeeded, got ${done.kind}`);
  t.is(done.inferenceMs, 1500);
  const files = await job.collect(done.outputs, context());
  t.true(api.isDone());
  t.true(cdn.isDone());
  t.deepEqual(files.map((f) => f.nsfw === true), [false, true]);
  t.deepEqual(await bytes(files[0]!), PNG_BYTES);
  await bytes(files[1]!);
});

test.serial('a callback address goes with the submit as fal_webhook', async (t) => {
  const hook = 'https://gw.example/api/v1/upstream-webhooks/fal/p-fal.abc';
  const api = nock(QUEUE).post('/fal-ai/flux/schnell').query({ fal_webhook: hook }).reply(200, { request_id: 'w1', ...urls('w1') });
  await adapter().job!.submit({ prompt: 'a fox' }, context({ callbackUrl: hook }));
  t.true(api.isDone());
});

test.serial('a response_url on another origin is not followed with our key: the result is fetched from the queue itself', async (t) => {
  const api = nock(QUEUE)
    .get('/fal-ai/flux/requests/o1/status?logs=1').reply(200, { status: 'COMPLETED', response_url: 'https://elsewhere.test/steal' })
    .get('/fal-ai/flux/requests/o1').matchHeader('authorization', `Key ${KEY}`).reply(200, { images: [{ url: `${CDN}/o1.png` }] });
  const state = await adapter().job!.poll('o1', context());
  t.is(state.kind, 'succeeded');
  t.true(api.isDone());
});

test.serial('a content policy refusal (422 content_policy_violation) fails as content_moderated, not retried', async (t) => {
  nock(QUEUE)
    .get('/fal-ai/flux/requests/m1/status?logs=1').reply(200, { status: 'COMPLETED', ...urls('m1') })
    .get('/fal-ai/flux/requests/m1').reply(422, { detail: [{ loc: ['body', 'prompt'], msg: 'The content was flagged by a content checker.', type: 'content_policy_violation', url: 'https://docs.fal.ai/errors#content_policy_violation', input: 'x' }] }, { 'x-fal-retryable': 'false' });
  const state = await adapter().job!.poll('m1', context());
  if (state.kind !== 'failed') return t.fail('expected failed');
  t.is(state.error.code, 'content_moderated');
  t.false(state.error.retryable);
  t.notRegex(state.error.message, /docs\.fal\.ai|fal\.test/);
});

test.serial('a validation error on the result is upstream_rejected_input with fal\'s message', async (t) => {
  nock(QUEUE)
    .get('/fal-ai/flux/requests/v1/status?logs=1').reply(200, { status: 'COMPLETED', ...urls('v1') })
    .get('/fal-ai/flux/requests/v1').reply(422, { detail: [{ loc: ['body', 'num_images'], msg: 'Input should be less than or equal to 4', type: 'less_than_equal' }] });
  const state = await adapter().job!.poll('v1', context());
  if (state.kind !== 'failed') return t.fail('expected failed');
  t.is(state.error.code, 'upstream_rejected_input');
  t.regex(state.error.message, /less than or equal to 4/);
});

test.serial('429 with Retry-After on submit is retryable with its delay; 503 on status too; an empty result is not', async (t) => {
  nock(QUEUE).post('/fal-ai/flux/schnell').reply(429, { detail: 'Too many requests' }, { 'retry-after': '9' });
  const limited = await failure(t, adapter().job!.submit({ prompt: 'a fox' }, context()));
  t.true(limited.retryable);
  t.is(limited.retryAfterMs, 9000);

  nock(QUEUE).get('/fal-ai/flux/requests/s1/status?logs=1').reply(503, 'upstream busy');
  const busy = await failure(t, adapter().job!.poll('s1', context()));
  t.true(busy.retryable);
  t.is(busy.code, 'upstream_unavailable');

  nock(QUEUE)
    .get('/fal-ai/flux/requests/e1/status?logs=1').reply(200, { status: 'COMPLETED', ...urls('e1') })
    .get('/fal-ai/flux/requests/e1').reply(200, { images: [], seed: 1 });
  const empty = await failure(t, adapter().job!.poll('e1', context()));
  t.is(empty.code, 'empty_result');
  t.false(empty.retryable);
});

test.serial('cancel PUTs to the request\'s cancel endpoint; ALREADY_COMPLETED is not an error', async (t) => {
  const api = nock(QUEUE).put(`/fal-ai/flux/requests/${REQ}/cancel`).matchHeader('authorization', `Key ${KEY}`).reply(202, { status: 'CANCELLATION_REQUESTED' });
  await adapter().job!.cancel(REQ, context());
  t.true(api.isDone());
  nock(QUEUE).put('/fal-ai/flux/requests/done/cancel').reply(400, { status: 'ALREADY_COMPLETED' });
  await t.notThrowsAsync(adapter().job!.cancel('done', context()));
});

test.serial('a language model\'s output text is one text file; a video result is downloaded from its url', async (t) => {
  nock(QUEUE)
    .get('/fal-ai/any-llm/requests/t1/status?logs=1').reply(200, { status: 'COMPLETED' })
    .get('/fal-ai/any-llm/requests/t1').reply(200, { output: 'A fox at dusk.', partial: false });
  const text = await adapter().job!.poll('t1', context({}, 'fal-ai/any-llm', 'llm'));
  if (text.kind !== 'succeeded') return t.fail('expected succeeded');
  const [file] = await adapter().job!.collect(text.outputs, context());
  t.is((await bytes(file!)).toString('utf8'), 'A fox at dusk.');

  nock(QUEUE)
    .get('/fal-ai/kling-video/requests/k1/status?logs=1').reply(200, { status: 'COMPLETED' })
    .get('/fal-ai/kling-video/requests/k1').reply(200, { video: { url: `${CDN}/k1.mp4`, content_type: 'video/mp4' } });
  const video = await adapter().job!.poll('k1', context({}, 'fal-ai/kling-video/v2/master/text-to-video', 'text-to-video'));
  t.like(video, { kind: 'succeeded', outputs: [{ url: `${CDN}/k1.mp4` }] });
});

test.serial('aborting an in-process run cancels the request at fal', async (t) => {
  const controller = new AbortController();
  nock(QUEUE).post('/fal-ai/flux/schnell').reply(200, { request_id: 'r1', ...urls('r1') });
  const cancel = nock(QUEUE).put('/fal-ai/flux/requests/r1/cancel').reply(202, { status: 'CANCELLATION_REQUESTED' });
  const fal = adapter(60_000);
  // Abort once the submit has fully answered: a timer could fire mid-response, which trips an
  // assertion inside undici under nock (an uncaught exception that fails the file under load).
  const submit = fal.job!.submit.bind(fal.job);
  fal.job!.submit = async (input, ctx) => {
    const submitted = await submit(input, ctx);
    setImmediate(() => controller.abort());
    return submitted;
  };
  const error = await failure(t, fal.run({ prompt: 'a fox' }, context({ signal: controller.signal })));
  t.is(error.message, 'cancelled');
  t.true(cancel.isDone());
});

test.serial('progress: the status asks for logs (logs=1), and fal\'s timestamped lines come back as the whole log so far, with the queue position while queued', async (t) => {
  // fal's Queue API status with logs=1: every line so far, each {message, level, source, timestamp}
  const line = (message: string, timestamp: string) => ({ message, level: 'INFO', source: 'USER', timestamp });
  nock(QUEUE, { reqheaders: { authorization: `Key ${KEY}` } })
    .get(`/fal-ai/flux/requests/${REQ}/status`).query({ logs: '1' }).reply(200, { status: 'IN_QUEUE', queue_position: 4, ...urls(REQ) })
    .get(`/fal-ai/flux/requests/${REQ}/status`).query({ logs: '1' }).reply(200, {
      status: 'IN_PROGRESS', ...urls(REQ),
      logs: [line('Loading model', '2026-11-29T06:00:01.250Z'), line('  4%|▍         | 1/28 [00:00<00:05,  4.9it/s]', '2026-11-29T06:00:02.000Z'), { level: 'INFO' }],
    });
  const job = adapter().job!;
  t.deepEqual(await job.poll(REQ, context()), { kind: 'running', status: 'IN_QUEUE', queuePosition: 4 });
  const running = await job.poll(REQ, context());
  t.deepEqual(running, {
    kind: 'running', status: 'IN_PROGRESS',
    logs: [
      { message: 'Loading model', at: Date.parse('2026-11-29T06:00:01.250Z') },
      { message: '  4%|▍         | 1/28 [00:00<00:05,  4.9it/s]', at: Date.parse('2026-11-29T06:00:02.000Z') },
    ],
  });
});
