// fal through the real worker and HTTP surface, and provider callbacks (README "Providers"):
// a prediction driven queued -> processing -> completed through fal by polling (its queue
// position on the SSE stream) and by a signed callback; Replicate by a signed callback; tampered
// and unknown callbacks refused; a duplicate callback harmless; cancel reaching fal; a moderation
// refusal failed and unbilled; a 429 with Retry-After retried. Providers are third-party HTTP:
// nock, with fixtures from their documentation; signing keys are the tests' own.
// The shipped catalog maps only video, lipsync and 3D endpoints to fal, so these tests serve lumen-dev-text-to-image
// from fal through an operator model file (MODELS_DIR) whose x-model says so.
import test from 'ava';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { tinyPng } from '../helpers/adapters.ts';
import { startGateway, newAccount, submitModel } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { callbackToken } from '../../lib/upstream-callbacks.ts';

const FAL = 'https://queue.fal.test';
const CDN = 'https://v3.fal.media.test';
const JWKS = 'https://keys.fal.test';
const REPLICATE = 'https://api.replicate.test';
const FAL_KEY = 'fal-key-id:fal-secret-part';
const REPLICATE_KEY = 'r8_callback_test_token';
const REPLICATE_SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const DEV = '/api/v1/lumen-dev-text-to-image';
const PRO = '/api/v1/lumen-pro-text-to-image';
const PNG_BYTES = tinyPng(4, 4, 33);
const falKeys = crypto.generateKeyPairSync('ed25519');

let modelsDir = '';
test.before(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  // An operator model file (MODELS_DIR) replacing Lumen Dev with fal (FLUX schnell) alone, so no failover interferes.
  modelsDir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-fal-models-'));
  await fs.writeFile(path.join(modelsDir, 'lumen-dev-on-fal.yaml'), [
    'models:',
    '  lumen-dev-text-to-image:',
    '    summary: Lumen Dev text-to-image (tier balanced)',
    '    x-model:',
    '      category: text-to-image',
    '      tier: balanced',
    '      family: lumen',
    '      output: image',
    '      adapter: fal',
    '      upstream: fal',
    '      upstream_model: fal-ai/flux/schnell',
    '      input_map: { aspect_ratio: "", negative_prompt: "", output_format: "", num_inference_steps: "", guidance_scale: "", loras: "" }',
    '      fixed_input: { enable_safety_checker: true }',
    '      price: { base: 0, per_unit: { field: num_images, amount: 25 } }',
    "    input: { $ref: '#/components/schemas/LumenDevTextToImageInput' }",
    '',
  ].join('\n'));
  nock(JWKS).persist().get('/.well-known/jwks.json').reply(200, { keys: [falKeys.publicKey.export({ format: 'jwk' })] });
});
test.afterEach.always(() => {
  nock.cleanAll();
  nock(JWKS).persist().get('/.well-known/jwks.json').reply(200, { keys: [falKeys.publicKey.export({ format: 'jwk' })] });
});
test.after.always(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  if (modelsDir) await fs.rm(modelsDir, { recursive: true, force: true });
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    MODELS_DIR: modelsDir, UPSTREAM_FAL_URL: FAL, UPSTREAM_FAL_KEY: FAL_KEY,
    UPSTREAM_REPLICATE_URL: `${REPLICATE}/v1`, UPSTREAM_REPLICATE_KEY: REPLICATE_KEY,
    UPSTREAM_POLL_DELAYS_MS: '20,40', RETRY_DELAYS_MS: '50,100,150', UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true',
    FAL_WEBHOOK_JWKS_URL: `${JWKS}/.well-known/jwks.json`, ...extra,
  };
}
/** Callbacks on, and polls so far apart that only a callback can move a job on. */
const CALLBACKS = { UPSTREAM_CALLBACKS: 'true', REPLICATE_WEBHOOK_SECRET: REPLICATE_SECRET, UPSTREAM_POLL_DELAYS_MS: '600000' };

const urls = (id: string) => ({
  response_url: `${FAL}/fal-ai/flux/requests/${id}`, status_url: `${FAL}/fal-ai/flux/requests/${id}/status`, cancel_url: `${FAL}/fal-ai/flux/requests/${id}/cancel`,
});

interface FalJob { submits: number; polls: number; cancels: number; stage: 'queued' | 'running' | 'done'; position: number; hook: string | null }

const FAL_LOGS = [
  { message: 'Loading weights', level: 'INFO', source: 'USER', timestamp: '2026-11-29T06:00:01.000Z' },
  { message: ' 50%|█████     | 2/4 [00:00<00:00]', level: 'INFO', source: 'USER', timestamp: '2026-11-29T06:00:02.000Z' },
  { message: 'Saved 1 image', level: 'INFO', source: 'USER', timestamp: '2026-11-29T06:00:03.000Z' },
];

/** A fal request whose state the test moves on (stage), counting the calls. */
function falJob(id: string, result: Record<string, unknown> = { images: [{ url: `${CDN}/${id}/0.png`, content_type: 'image/png' }], has_nsfw_concepts: [true], timings: { inference: 0.75 } }): FalJob {
  const seen: FalJob = { submits: 0, polls: 0, cancels: 0, stage: 'queued', position: 2, hook: null };
  nock(FAL).persist()
    .post('/fal-ai/flux/schnell').query((q) => {
      // asked of other requests to the host too: only a submit carries the address
      if (typeof q.fal_webhook === 'string') seen.hook = q.fal_webhook;
      return true;
    }).matchHeader('authorization', `Key ${FAL_KEY}`).reply(() => {
      seen.submits++;
      return [200, { request_id: id, ...urls(id), queue_position: 3 }];
    })
    .get(`/fal-ai/flux/requests/${id}/status?logs=1`).reply(() => {
      seen.polls++;
      if (seen.stage === 'queued') return [200, { status: 'IN_QUEUE', queue_position: seen.position, ...urls(id) }];
      // fal's status with logs=1: the whole log so far, timestamped lines
      if (seen.stage === 'running') return [200, { status: 'IN_PROGRESS', logs: FAL_LOGS.slice(0, 2), ...urls(id) }];
      return [200, { status: 'COMPLETED', logs: FAL_LOGS, metrics: { inference_time: 0.8 }, ...urls(id) }];
    })
    .get(`/fal-ai/flux/requests/${id}`).reply(200, result)
    .put(`/fal-ai/flux/requests/${id}/cancel`).reply(() => {
      seen.cancels++;
      return [202, { status: 'CANCELLATION_REQUESTED' }];
    });
  nock(CDN).persist().get(`/${id}/0.png`).reply(200, PNG_BYTES, { 'content-type': 'image/png' });
  return seen;
}

async function row(gw: TestGateway, id: string) {
  return gw.app.db('predictions').where({ id }).first();
}
async function finished(gw: TestGateway, id: string) {
  return waitFor(async () => {
    const r = await row(gw, id);
    return ['completed', 'failed', 'cancelled'].includes(r.status) ? r : undefined;
  }, { what: 'the prediction to finish', timeoutMs: 30_000 });
}
async function balance(gw: TestGateway, key: string): Promise<{ balance: number; held: number }> {
  const res = await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': key } });
  return res.result as { balance: number; held: number };
}

/** A fal callback as fal sends it: ED25519 over request id, user id, timestamp and the body's SHA-256. */
function falCallback(hook: string, body: Record<string, unknown>, opts: { key?: crypto.KeyObject; tamper?: boolean } = {}) {
  const raw = JSON.stringify(body);
  const ts = String(Math.floor(Date.now() / 1000));
  const requestId = String(body.request_id);
  const digest = crypto.createHash('sha256').update(raw).digest('hex');
  const signature = crypto.sign(null, Buffer.from(`${requestId}\nuser-1\n${ts}\n${digest}`), opts.key ?? falKeys.privateKey).toString('hex');
  return {
    method: 'POST' as const, url: new URL(hook).pathname,
    headers: { 'content-type': 'application/json', 'x-fal-webhook-request-id': requestId, 'x-fal-webhook-user-id': 'user-1', 'x-fal-webhook-timestamp': ts, 'x-fal-webhook-signature': signature },
    payload: opts.tamper ? raw.replace('"OK"', '"ERROR"') : raw,
  };
}

/** A Replicate callback (Standard Webhooks). */
function replicateCallback(hook: string, body: Record<string, unknown>, secret = REPLICATE_SECRET) {
  const raw = JSON.stringify(body);
  const id = `msg_${crypto.randomBytes(6).toString('hex')}`;
  const ts = String(Math.floor(Date.now() / 1000));
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signature = `v1,${crypto.createHmac('sha256', key).update(`${id}.${ts}.${raw}`).digest('base64')}`;
  return { method: 'POST' as const, url: new URL(hook).pathname, headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': signature }, payload: raw };
}

test.serial('fal by polling: queued -> processing -> completed, the queue position on the SSE stream, submitted once, charged once, NSFW flag kept', async (t) => {
  const gw = await startGateway({ worker: true, env: env() });
  await new Promise<void>((resolve) => gw.server.listener.listen(0, '127.0.0.1', resolve));
  t.teardown(async () => {
    gw.server.listener.closeAllConnections();
    await new Promise((resolve) => gw.server.listener.close(resolve));
    await gw.stop();
  });
  const base = `http://127.0.0.1:${(gw.server.listener.address() as AddressInfo).port}`;
  const acct = await newAccount(gw, 10_000);
  const seen = falJob('fal-poll-1');
  const id = await submitModel(gw, acct.liveKey, DEV, { prompt: 'a fox', num_images: 1 });

  const events: Array<{ event: string; data: Record<string, unknown> }> = [];
  const reading = (async () => {
    const res = await fetch(`${base}/api/v1/predictions/${id}/stream?logs=true`, { headers: { 'x-api-key': acct.liveKey } });
    let buffer = '';
    for await (const chunk of res.body!) {
      buffer += Buffer.from(chunk).toString('utf8');
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.+)$/m.exec(block)?.[1];
        const data = /^data: (.+)$/m.exec(block)?.[1];
        if (event && data) events.push({ event, data: JSON.parse(data) as Record<string, unknown> });
      }
    }
  })();

  await waitFor(() => events.some((e) => e.event === 'processing' && e.data.queue_position === 2), { what: 'queue position 2 on the stream', timeoutMs: 30_000 });
  const r = await row(gw, id);
  t.like(r, { status: 'processing', upstream_name: 'fal', upstream_job_id: 'fal-poll-1', upstream_status: 'IN_QUEUE', upstream_queue_position: 2 });
  seen.position = 0;
  await waitFor(() => events.some((e) => e.data.queue_position === 0), { what: 'queue position 0 on the stream', timeoutMs: 30_000 });
  seen.stage = 'running';
  await waitFor(async () => (await row(gw, id)).upstream_status === 'IN_PROGRESS', { what: 'the job to run', timeoutMs: 30_000 });
  seen.stage = 'done';
  await reading;

  const done = await finished(gw, id);
  t.is(done.status, 'completed', String(done.error));
  t.is(Number(done.inference_ms), 800);
  t.is(done.upstream_queue_position, null, 'cleared once the job left the queue');
  t.is(seen.submits, 1);
  t.is(seen.cancels, 0);
  t.is(seen.hook, null, 'callbacks are off: fal is not asked to call back');
  t.deepEqual(events.map((e) => e.event).filter((e) => e !== 'logs').filter((e, i, all) => all.indexOf(e) === i).slice(-2), ['processing', 'completed']);
  const last = events.at(-1)!;
  t.like(last.data, { status: 'completed', queue_position: null, progress: null, has_nsfw_contents: [true] });
  // fal's log lines reached the stream as `logs` events, each line once, in order, with fal's times, before the terminal event
  const streamed = events.filter((e) => e.event === 'logs').flatMap((e) => (e.data as { id: string; lines: Array<{ at: string; message: string }> }).lines);
  const expected = FAL_LOGS.map((l) => ({ at: l.timestamp, message: l.message }));
  t.deepEqual(streamed, expected);
  t.true(events.findIndex((e) => e.event === 'logs') < events.length - 1);
  // and the result gives them on request
  const plain = await gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${id}/result`, headers: { 'x-api-key': acct.liveKey } });
  t.false('logs' in (plain.result as object));
  const withLogs = await gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${id}/result?logs=true`, headers: { 'x-api-key': acct.liveKey } });
  t.deepEqual((withLogs.result as { logs: unknown }).logs, expected);
  // a stream opened without logs=true sends status events only (what older clients understand); with it, the lines first
  const eventsOf = async (query: string) => {
    const text = await (await fetch(`${base}/api/v1/predictions/${id}/stream${query}`, { headers: { 'x-api-key': acct.liveKey } })).text();
    return [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
  };
  t.deepEqual(await eventsOf(''), ['completed']);
  t.deepEqual(await eventsOf('?logs=true'), ['logs', 'completed']);
  t.is((await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' })).length, 1);
  t.deepEqual(await balance(gw, acct.liveKey), { ...(await balance(gw, acct.liveKey)), balance: 10_000 - 25, held: 0 });
});

test.serial('fal by callback: a signed callback completes the job at once; tampered, foreign-key, wrong-token and unknown callbacks are refused; a duplicate changes nothing', async (t) => {
  const gw = await startGateway({ worker: true, env: env(CALLBACKS) });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const seen = falJob('fal-hook-1');
  const id = await submitModel(gw, acct.liveKey, DEV, { prompt: 'a fox', num_images: 1 });
  await waitFor(async () => (await row(gw, id)).upstream_job_id === 'fal-hook-1', { what: 'the job to be submitted', timeoutMs: 30_000 });
  t.regex(seen.hook ?? '', new RegExp(`^http://gateway\\.test/api/v1/upstream-webhooks/fal/${id}\\.[A-Za-z0-9_-]{43}$`));
  const hook = seen.hook!;
  const body = { request_id: 'fal-hook-1', gateway_request_id: 'fal-hook-1', status: 'OK', payload: { images: [{ url: `${CDN}/fal-hook-1/0.png` }] } };

  // refused before anything is read or changed
  const tampered = await gw.server.inject(falCallback(hook, body, { tamper: true }));
  t.is(tampered.statusCode, 401, tampered.payload);
  t.like(JSON.parse(tampered.payload), { code: 'unauthorized' });
  const foreign = await gw.server.inject(falCallback(hook, body, { key: crypto.generateKeyPairSync('ed25519').privateKey }));
  t.is(foreign.statusCode, 401);
  const unsigned = await gw.server.inject({ method: 'POST', url: new URL(hook).pathname, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  t.is(unsigned.statusCode, 401);
  const wrongToken = await gw.server.inject(falCallback(hook.replace(/\.[A-Za-z0-9_-]+$/, '.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), body));
  t.is(wrongToken.statusCode, 404);
  t.like(JSON.parse(wrongToken.payload), { code: 'not_found' });
  const otherProvider = await gw.server.inject({ ...falCallback(hook, body), url: new URL(hook).pathname.replace('/fal/', '/replicate/') });
  t.is(otherProvider.statusCode, 404, 'a fal address is no Replicate address');
  t.is((await row(gw, id)).status, 'processing');
  t.is(seen.polls, 0, 'polling alone would not have moved it for 10 minutes');

  seen.stage = 'done';
  const accepted = await gw.server.inject(falCallback(hook, body));
  t.is(accepted.statusCode, 200, accepted.payload);
  t.deepEqual(JSON.parse(accepted.payload), { status: 'accepted' });
  const done = await finished(gw, id);
  t.is(done.status, 'completed', String(done.error));
  t.is(seen.submits, 1);

  const duplicate = await gw.server.inject(falCallback(hook, body));
  t.is(duplicate.statusCode, 200);
  t.deepEqual(JSON.parse(duplicate.payload), { status: 'ignored' });
  t.is((await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' })).length, 1, 'charged once');
  t.like(await balance(gw, acct.liveKey), { balance: 10_000 - 25, held: 0 });
});

test.serial('callbacks racing each other and out of order: one poll goes through, the prediction is finished and charged once', async (t) => {
  const gw = await startGateway({ worker: true, queue: 'memory', env: env(CALLBACKS) });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const seen = falJob('fal-race-1');
  const id = await submitModel(gw, acct.liveKey, DEV, { prompt: 'a fox', num_images: 1 });
  await waitFor(async () => (await row(gw, id)).upstream_job_id === 'fal-race-1', { what: 'the job to be submitted', timeoutMs: 30_000 });
  seen.stage = 'done';
  const body = { request_id: 'fal-race-1', gateway_request_id: 'fal-race-1', status: 'OK', payload: {} };
  const answers = await Promise.all([1, 2, 3, 4].map(() => gw.server.inject(falCallback(seen.hook!, body))));
  t.true(answers.every((a) => a.statusCode === 200));
  t.true(answers.some((a) => JSON.parse(a.payload).status === 'accepted'));
  t.is((await finished(gw, id)).status, 'completed');
  // a late "still queued" word from the provider after the end changes nothing
  const late = await gw.server.inject(falCallback(seen.hook!, { ...body, status: 'IN_QUEUE' }));
  t.deepEqual(JSON.parse(late.payload), { status: 'ignored' });
  t.is((await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' })).length, 1);
  t.like(await balance(gw, acct.liveKey), { balance: 10_000 - 25, held: 0 });
});

test.serial('replicate by callback: the submit asks for start/completed callbacks; a signed one completes the job, a tampered one is 401', async (t) => {
  const gw = await startGateway({ worker: true, env: env(CALLBACKS) });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  let hook = '';
  let filter: unknown;
  let done = false;
  const prediction = (status: string, extra: Record<string, unknown> = {}) => ({ id: 'rep-hook-1', status, input: {}, output: null, error: null, logs: '', ...extra });
  nock(REPLICATE).persist()
    .post('/v1/models/black-forest-labs/flux-1.1-pro/predictions', (b: { webhook?: string; webhook_events_filter?: unknown }) => {
      hook = b.webhook ?? '';
      filter = b.webhook_events_filter;
      return true;
    }).reply(201, prediction('starting'))
    .get('/v1/predictions/rep-hook-1').reply(() => [200, done ? prediction('succeeded', { output: ['https://replicate.delivery.test/r/0.png'], metrics: { predict_time: 0.5 } }) : prediction('processing')]);
  nock('https://replicate.delivery.test').persist().get('/r/0.png').reply(200, PNG_BYTES, { 'content-type': 'image/png' });
  const id = await submitModel(gw, acct.liveKey, PRO, { prompt: 'a fox', num_images: 1 });
  await waitFor(async () => (await row(gw, id)).upstream_job_id === 'rep-hook-1', { what: 'the job to be submitted', timeoutMs: 30_000 });
  t.regex(hook, new RegExp(`/api/v1/upstream-webhooks/replicate/${id}\\.`));
  t.deepEqual(filter, ['start', 'completed']);

  done = true;
  const body = prediction('succeeded', { output: ['https://replicate.delivery.test/r/0.png'] });
  const tampered = replicateCallback(hook, body, `whsec_${Buffer.alloc(32, 1).toString('base64')}`);
  t.is((await gw.server.inject(tampered)).statusCode, 401);
  const ok = await gw.server.inject(replicateCallback(hook, body));
  t.is(ok.statusCode, 200, ok.payload);
  const r = await finished(gw, id);
  t.is(r.status, 'completed', String(r.error));
  t.is(r.upstream_status, 'succeeded');
  t.is((await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' })).length, 1);
});

test.serial('cancelling a fal prediction reaches fal; the hold is released and nothing is charged', async (t) => {
  const gw = await startGateway({ worker: true, env: env() });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const seen = falJob('fal-cancel-1');
  const id = await submitModel(gw, acct.liveKey, DEV, { prompt: 'a fox', num_images: 1 });
  await waitFor(async () => seen.polls >= 1 || undefined, { what: 'a poll', timeoutMs: 30_000 });
  const res = await gw.server.inject({ method: 'POST', url: `/app/cancel_prediction/${id}`, headers: { 'x-api-key': acct.liveKey } });
  t.is(res.statusCode, 200, res.payload);
  await waitFor(() => seen.cancels >= 1 || undefined, { what: 'the cancel to reach fal', timeoutMs: 30_000 });
  await waitFor(async () => (await row(gw, id)).upstream_status === 'canceled', { what: 'the provider cancel to be recorded', timeoutMs: 30_000 });
  t.is((await row(gw, id)).status, 'cancelled');
  t.like(await balance(gw, acct.liveKey), { balance: 10_000, held: 0 });
});

test.serial('a fal content policy refusal fails the prediction as content_moderated, unbilled and not retried', async (t) => {
  const gw = await startGateway({ worker: true, queue: 'memory', env: env() });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  let results = 0;
  nock(FAL).persist()
    .post('/fal-ai/flux/schnell').reply(200, { request_id: 'fal-mod-1', ...urls('fal-mod-1') })
    .get('/fal-ai/flux/requests/fal-mod-1/status?logs=1').reply(200, { status: 'COMPLETED', ...urls('fal-mod-1') })
    .get('/fal-ai/flux/requests/fal-mod-1').reply(() => {
      results++;
      return [422, { detail: [{ loc: ['body', 'prompt'], msg: 'The content was flagged by a content checker.', type: 'content_policy_violation', url: 'https://docs.fal.ai/errors#content_policy_violation', input: 'x' }] }];
    });
  const id = await submitModel(gw, acct.liveKey, DEV, { prompt: 'something flagged', num_images: 1 });
  const r = await finished(gw, id);
  t.like(r, { status: 'failed', error_code: 'content_moderated' });
  t.notRegex(String(r.error), /fal\.test|docs\.fal\.ai|fal-secret/);
  t.is(results, 1, 'never retried');
  t.is((await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' })).length, 0);
  t.like(await balance(gw, acct.liveKey), { balance: 10_000, held: 0 });
});

test.serial('a fal 429 with Retry-After on submit is retried after the wait it asked for, and the retry completes', async (t) => {
  const gw = await startGateway({ worker: true, queue: 'memory', env: env() });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const times: number[] = [];
  nock(FAL).post('/fal-ai/flux/schnell').reply(() => {
    times.push(Date.now());
    return [429, { detail: 'Too many requests' }, { 'retry-after': '1' }];
  });
  const seen = falJob('fal-429-1');
  seen.stage = 'done';
  const id = await submitModel(gw, acct.liveKey, DEV, { prompt: 'a fox', num_images: 1 });
  const r = await finished(gw, id);
  t.is(r.status, 'completed', String(r.error));
  t.is(times.length, 1);
  t.is(seen.submits, 1);
  const retried = await gw.app.db('predictions').where({ id }).first();
  t.true(Number(retried.attempts) >= 2);
});

test.serial('embedded (SQLite, in-process queue): the queue position is stored and a signed fal callback completes the job', async (t) => {
  const gw = await startGateway({ db: 'sqlite', queue: 'memory', worker: true, env: env({ ...CALLBACKS, ENCRYPTION_KEY: 'ab'.repeat(32) }) });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const seen = falJob('fal-sqlite-1');
  const id = await submitModel(gw, acct.liveKey, DEV, { prompt: 'a fox', num_images: 1 });
  const r = await waitFor(async () => {
    const current = await row(gw, id);
    return current.upstream_job_id === 'fal-sqlite-1' ? current : undefined;
  }, { what: 'the job to be submitted', timeoutMs: 30_000 });
  t.is(Number(r.upstream_queue_position), 3, 'the position fal gave at submit');
  seen.stage = 'done';
  const body = { request_id: 'fal-sqlite-1', gateway_request_id: 'fal-sqlite-1', status: 'OK', payload: {} };
  const accepted = await gw.server.inject(falCallback(seen.hook!, body));
  t.deepEqual(JSON.parse(accepted.payload), { status: 'accepted' });
  const done = await finished(gw, id);
  t.is(done.status, 'completed', String(done.error));
  t.is(done.upstream_queue_position, null);
  t.like(await balance(gw, acct.liveKey), { balance: 10_000 - 25, held: 0 });
});

test.serial('fal callbacks without a signature, to an address nobody was given, or while callbacks are off fetch nothing; a failed key-set load is remembered', async (t) => {
  // a key set that cannot be loaded, at an address of this test's own (key sets are kept per address)
  const DOWN = 'https://keys-down.fal.test';
  let fetches = 0;
  nock(DOWN).persist().get('/jwks.json').reply(() => {
    fetches++;
    return [500, { detail: 'down' }];
  });
  const forged = (url: string) => {
    const ts = String(Math.floor(Date.now() / 1000));
    return {
      method: 'POST' as const, url, payload: JSON.stringify({ request_id: 'r-1', status: 'OK' }),
      headers: { 'content-type': 'application/json', 'x-fal-webhook-request-id': 'r-1', 'x-fal-webhook-user-id': 'u-1', 'x-fal-webhook-timestamp': ts, 'x-fal-webhook-signature': 'ab'.repeat(64) },
    };
  };
  const off = await startGateway({ queue: 'memory', env: env({ FAL_WEBHOOK_JWKS_URL: `${DOWN}/jwks.json` }) });
  t.teardown(() => off.stop());
  const offToken = callbackToken(off.app.config.upstreamCallbacks.key!, 'fal', 'some-prediction');
  for (let i = 0; i < 20; i++) {
    const res = await off.server.inject(forged(`/api/v1/upstream-webhooks/fal/${offToken}`));
    t.is(res.statusCode, 404, res.payload);
  }
  t.is(fetches, 0, 'callbacks off: no callback is ever expected, none fetches a key');

  const on = await startGateway({ queue: 'memory', env: env({ ...CALLBACKS, FAL_WEBHOOK_JWKS_URL: `${DOWN}/jwks.json` }) });
  t.teardown(() => on.stop());
  const token = callbackToken(on.app.config.upstreamCallbacks.key!, 'fal', 'some-prediction');
  for (let i = 0; i < 20; i++) {
    const unsigned = await on.server.inject({ method: 'POST', url: `/api/v1/upstream-webhooks/fal/${token}`, headers: { 'content-type': 'application/json' }, payload: '{}' });
    t.is(unsigned.statusCode, 401, unsigned.payload);
    const stranger = await on.server.inject(forged(`/api/v1/upstream-webhooks/fal/some-prediction.${'A'.repeat(43)}`));
    t.is(stranger.statusCode, 404, stranger.payload);
  }
  t.is(fetches, 0, 'no signature, or an address nobody was given: nothing fetched');
  const answers = await Promise.all(Array.from({ length: 20 }, () => on.server.inject(forged(`/api/v1/upstream-webhooks/fal/${token}`))));
  t.deepEqual([...new Set(answers.map((r) => r.statusCode))], [503]);
  t.is(fetches, 1, 'twenty signed-looking callbacks while the keys cannot be loaded: one fetch, remembered');
});
