// The WaveSpeed adapter against fixtures shaped as WaveSpeed's public v3 documentation shows them
// (submit and result envelopes, status values, outputs with has_nsfw_contents, task error codes,
// delete, webhook signatures). Third-party HTTP: nock.
import test from 'ava';
import { tinyPng, publicResolve, bytes, failure } from '../../helpers/adapters.ts';
import nock from 'nock';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createWaveSpeed } from '../../../workers/adapters/wavespeed.ts';
import { verifyWaveSpeedWebhook } from '../../../lib/upstream-callbacks.ts';
import type { AdapterEnv, JobContext, RunContext } from '../../../workers/adapters/types.ts';

const API = 'https://api.wavespeed.test';
const BASE = `${API}/api/v3`;
const CDN = 'https://d1q70pf5vjeyhc.cloudfront.test';
const KEY = 'ws-very-secret-key';
const ID = '0d2a4c3e9b1f4e7a8c6d5b4a3f2e1d0c';
const PNG_BYTES = tinyPng(3, 2, 90);

nock.disableNetConnect();
test.afterEach.always(() => {
  nock.cleanAll();
});

let tempDir = '';
test.before(async () => {
  tempDir = await fs.mkdtemp(path.join(os.tmpdir(), 'wavespeed-test-'));
});
test.after.always(async () => {
  await fs.rm(tempDir, { recursive: true, force: true });
});

const env: AdapterEnv = { upstreams: new Map([['wavespeed', { url: BASE, key: KEY }]]) };
const adapter = (interval = 1) => createWaveSpeed(env, { resolve: publicResolve }, interval);

function context(extra: Partial<RunContext & JobContext> = {}, upstreamModel = 'wavespeed-ai/flux-dev', category = 'text-to-image'): RunContext & JobContext {
  return {
    signal: new AbortController().signal, predictionId: 'p-ws', tempDir,
    model: { operationId: 'lumen-dev-text-to-image', category, upstream: 'wavespeed', upstreamModel, inputMap: { aspect_ratio: '', negative_prompt: '' }, fixedInput: { enable_safety_checker: true } },
    ...extra,
  };
}

/** A prediction object as the docs show it, in its envelope. */
function prediction(id: string, status: string, extra: Record<string, unknown> = {}) {
  return {
    code: 200, message: 'success',
    data: { id, model: 'wavespeed-ai/flux-dev', outputs: [], urls: { get: `${BASE}/predictions/${id}/result` }, has_nsfw_contents: [], status, created_at: '2026-11-23T12:34:56.789Z', error: '', timings: { inference: 0 }, ...extra },
  };
}

test.serial('submitted (created), processing, completed: the outputs are copied with their NSFW flags', async (t) => {
  const api = nock(BASE, { reqheaders: { authorization: `Bearer ${KEY}` } })
    .post('/wavespeed-ai/flux-dev', { prompt: 'a fox', num_images: 2, enable_safety_checker: true })
    .reply(200, prediction(ID, 'created'))
    .get(`/predictions/${ID}/result`).reply(200, prediction(ID, 'processing'))
    .get(`/predictions/${ID}/result`).reply(200, prediction(ID, 'completed', {
      outputs: [`${CDN}/outputs/a.png`, `${CDN}/outputs/b.png`], has_nsfw_contents: [false, true], timings: { inference: 2500 },
    }));
  const cdn = nock(CDN, { badheaders: ['authorization'] })
    .get('/outputs/a.png').reply(200, PNG_BYTES, { 'content-type': 'image/png' })
    .get('/outputs/b.png').reply(200, PNG_BYTES, { 'content-type': 'image/png' });

  const job = adapter().job!;
  const submitted = await job.submit({ prompt: 'a fox', num_images: 2, aspect_ratio: '1:1', negative_prompt: 'blur' }, context());
  t.deepEqual(submitted, { jobId: ID, state: { kind: 'running', status: 'created' } });
  t.deepEqual(await job.poll(ID, context()), { kind: 'running', status: 'processing' });
  const done = await job.poll(ID, context());
  if (done.kind !== 'succeeded') return t.fail(`expected succeeded, got ${done.kind}`);
  t.is(done.inferenceMs, 2500);
  const files = await job.collect(done.outputs, context());
  t.true(api.isDone());
  t.true(cdn.isDone());
  t.deepEqual(files.map((f) => f.nsfw === true), [false, true]);
  t.deepEqual(await bytes(files[0]!), PNG_BYTES);
  await bytes(files[1]!);
});

test.serial('a callback address goes with the submit as ?webhook=', async (t) => {
  const hook = 'https://gw.example/api/v1/upstream-webhooks/wavespeed/p-ws.abc';
  const api = nock(BASE).post('/wavespeed-ai/flux-dev').query({ webhook: hook }).reply(200, prediction('w1', 'created'));
  await adapter().job!.submit({ prompt: 'a fox' }, context({ callbackUrl: hook }));
  t.true(api.isDone());
});

test.serial('a validation error (HTTP 400) is upstream_rejected_input with WaveSpeed\'s message, never retried', async (t) => {
  nock(BASE).post('/wavespeed-ai/flux-dev').reply(400, { code: 400, message: 'size: must be between 512*512 and 1536*1536' });
  const error = await failure(t, adapter().job!.submit({ prompt: 'a fox' }, context()));
  t.is(error.code, 'upstream_rejected_input');
  t.false(error.retryable);
  t.regex(error.message, /must be between/);
});

test.serial('a failed task: 1200 is content_moderated, 1401 the input, 5000 upstream_failed; none retried; no URL or key shown', async (t) => {
  nock(BASE).get('/predictions/m1/result').reply(200, prediction('m1', 'failed', { code: 1200, error: 'The content contains sensitive information. See https://wavespeed.test/x' }));
  const moderated = await adapter().job!.poll('m1', context());
  if (moderated.kind !== 'failed') return t.fail('expected failed');
  t.is(moderated.error.code, 'content_moderated');
  t.false(moderated.error.retryable);
  t.notRegex(moderated.error.message, /wavespeed\.test|ws-very-secret/);

  nock(BASE).get('/predictions/v1/result').reply(200, prediction('v1', 'failed', { code: 1401, error: 'Invalid parameter: duration' }));
  const invalid = await adapter().job!.poll('v1', context());
  t.like(invalid, { kind: 'failed', status: 'failed', error: { code: 'upstream_rejected_input', retryable: false } });

  nock(BASE).get('/predictions/f1/result').reply(200, prediction('f1', 'failed', { code: 5000, error: 'internal error' }));
  const failed = await adapter().job!.poll('f1', context());
  t.like(failed, { kind: 'failed', error: { code: 'upstream_failed', retryable: false } });
});

test.serial('429 with Retry-After on submit is retryable with its delay; 503 on the result too; an envelope code is read as a status; an empty result is not retryable', async (t) => {
  nock(BASE).post('/wavespeed-ai/flux-dev').reply(429, { code: 429, message: 'Too many requests' }, { 'retry-after': '7' });
  const limited = await failure(t, adapter().job!.submit({ prompt: 'a fox' }, context()));
  t.true(limited.retryable);
  t.is(limited.retryAfterMs, 7000);

  nock(BASE).get('/predictions/s1/result').reply(503, 'service unavailable');
  const busy = await failure(t, adapter().job!.poll('s1', context()));
  t.true(busy.retryable);
  t.is(busy.code, 'upstream_unavailable');

  nock(BASE).get('/predictions/s2/result').reply(200, { code: 401, message: 'invalid authentication', data: null });
  const refused = await failure(t, adapter().job!.poll('s2', context()));
  t.is(refused.code, 'upstream_credentials');

  nock(BASE).get('/predictions/e1/result').reply(200, prediction('e1', 'completed', { outputs: [] }));
  const empty = await failure(t, adapter().job!.poll('e1', context()));
  t.is(empty.code, 'empty_result');
  t.false(empty.retryable);
});

test.serial('cancel deletes the task (WaveSpeed has no cancel)', async (t) => {
  const api = nock(BASE).post('/predictions/delete', { ids: [ID] }).matchHeader('authorization', `Bearer ${KEY}`).reply(200, { code: 200, message: 'success', data: { deleted_count: 1 } });
  await adapter().job!.cancel(ID, context());
  t.true(api.isDone());
});

test.serial('aborting an in-process run deletes the task at WaveSpeed', async (t) => {
  const controller = new AbortController();
  nock(BASE).post('/wavespeed-ai/flux-dev').reply(200, prediction('r1', 'created'));
  const cancel = nock(BASE).post('/predictions/delete', { ids: ['r1'] }).reply(200, { code: 200, message: 'success', data: { deleted_count: 1 } });
  const ws = adapter(60_000);
  // Abort once the submit has fully answered (never mid-response), during the wait before the first poll.
  const submit = ws.job!.submit.bind(ws.job);
  ws.job!.submit = async (input, ctx) => {
    const submitted = await submit(input, ctx);
    setImmediate(() => controller.abort());
    return submitted;
  };
  const error = await failure(t, ws.run({ prompt: 'a fox' }, context({ signal: controller.signal })));
  t.is(error.message, 'cancelled');
  t.true(cancel.isDone());
});

test.serial('a video model\'s output is downloaded from its url; a model id with a path is submitted as it is', async (t) => {
  nock(BASE).post('/kwaivgi/kling-v2.1-i2v-pro').reply(200, prediction('k1', 'processing'));
  nock(BASE).get('/predictions/k1/result').reply(200, prediction('k1', 'completed', { outputs: [`${CDN}/k1.mp4`] }));
  const job = adapter().job!;
  const ctx = context({}, 'kwaivgi/kling-v2.1-i2v-pro', 'image-to-video');
  t.like(await job.submit({ prompt: 'a fox runs', image: 'https://x.test/fox.png' }, ctx), { jobId: 'k1' });
  t.like(await job.poll('k1', ctx), { kind: 'succeeded', outputs: [{ url: `${CDN}/k1.mp4` }] });
});

test('a webhook signature: v3 hex HMAC over id.timestamp.body with the secret minus whsec_; tampered, stale and other versions refused', (t) => {
  const secret = 'whsec_c2VjcmV0LWZvci10ZXN0cy0xMjM0NTY';
  const body = Buffer.from(JSON.stringify({ id: ID, status: 'completed', outputs: [`${CDN}/a.png`] }));
  const now = 1_758_798_328_000;
  const ts = String(now / 1000);
  const sign = (b: Buffer, key = secret.slice('whsec_'.length)) => crypto.createHmac('sha256', key).update(`wh-1.${ts}.`).update(b).digest('hex');
  const headers = (sig: string) => ({ 'webhook-id': 'wh-1', 'webhook-timestamp': ts, 'webhook-signature': sig });
  t.is(verifyWaveSpeedWebhook(secret, headers(`v3,${sign(body)}`), body, now), null);
  t.is(verifyWaveSpeedWebhook(secret, headers(`v1,abc v3,${sign(body)}`), body, now), null, 'any listed v3 signature');
  t.is(verifyWaveSpeedWebhook(secret, headers(`v3,${sign(body)}`), Buffer.from(body.toString().replace('completed', 'failed')), now), 'signature does not match');
  t.is(verifyWaveSpeedWebhook(secret, headers(`v3,${sign(body, secret)}`), body, now), 'signature does not match', 'the whsec_ prefix is not part of the key');
  t.is(verifyWaveSpeedWebhook(secret, headers(`v3,${Buffer.from(sign(body), 'hex').toString('base64')}`), body, now), 'signature does not match', 'hex, not base64');
  t.is(verifyWaveSpeedWebhook(secret, headers(`v3,${sign(body)}`), body, now + 301_000), 'timestamp outside the 5-minute tolerance');
  t.is(verifyWaveSpeedWebhook(secret, { 'webhook-timestamp': ts }, body, now), 'missing webhook-id or webhook-signature');
});
