// WaveSpeed through the real worker and HTTP surface (README "Providers"): an operator model file
// (MODELS_DIR) makes aurora-v3-standard-text-to-video list its own http-json server, then WaveSpeed
// (Kling 3.0 Standard). A prediction driven created -> processing -> completed by polling and by a
// signed callback (tampered and unsigned ones refused, a duplicate harmless); a moderation refusal
// failed and unbilled; cancel reaching WaveSpeed (delete); failover from a down aurora server to
// WaveSpeed. WaveSpeed and the aurora server are third-party HTTP: nock, fixtures from WaveSpeed's
// documentation; the webhook secret is the tests' own.
import test from 'ava';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { assertLedger } from '../helpers/ledger.ts';

const WS = 'https://api.wavespeed.test';
const CDN = 'https://d1q70pf5vjeyhc.cloudfront.test';
const AURORA = 'https://aurora.test';
const WS_KEY = 'ws-http-test-secret-key';
const WS_SECRET = 'whsec_aGVsbG8td2F2ZXNwZWVkLXdlYmhvb2stc2VjcmV0';
const MODEL = '/api/v1/aurora-v3-standard-text-to-video';
const SUBMIT = '/api/v3/kwaivgi/kling-v3.0-std/text-to-video';

let MP4 = Buffer.alloc(0);
let modelsDir = '';
test.before(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  MP4 = await fs.readFile(path.join(import.meta.dirname, '../../workers/sandbox/sample.mp4'));
  modelsDir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-ws-models-'));
  await fs.writeFile(path.join(modelsDir, 'aurora-on-wavespeed.yaml'), [
    'models:',
    '  aurora-v3-standard-text-to-video:',
    '    summary: Aurora v3 Standard text-to-video (tier balanced)',
    '    x-model:',
    '      category: text-to-video',
    '      tier: balanced',
    '      family: aurora-v3',
    '      output: video',
    '      providers:',
    '        - { adapter: http-json, upstream: aurora, upstream_model: aurora-v3-standard-t2v }',
    '        - adapter: wavespeed',
    '          upstream: wavespeed',
    '          upstream_model: kwaivgi/kling-v3.0-std/text-to-video',
    "          input_map: { generate_audio: sound, resolution: '', seed: '' }",
    '      price: { base: 100, per_unit: { field: duration, amount: 40 }, multipliers: { generate_audio: { "true": 130 } } }',
    "    input: { $ref: '#/components/schemas/AuroraV3TextToVideoInput' }",
    '',
  ].join('\n'));
});
test.afterEach.always(() => {
  nock.cleanAll();
});
test.after.always(async () => {
  nock.enableNetConnect();
  await fs.rm(modelsDir, { recursive: true, force: true });
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    UPSTREAM_WAVESPEED_URL: `${WS}/api/v3`, UPSTREAM_WAVESPEED_KEY: WS_KEY,
    UPSTREAM_POLL_DELAYS_MS: '20,40', RETRY_DELAYS_MS: '50,100,150', UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true', MODELS_DIR: modelsDir, ...extra,
  };
}
/** Callbacks on, and polls so far apart that only a callback can move a job on. */
const CALLBACKS = { UPSTREAM_CALLBACKS: 'true', WAVESPEED_WEBHOOK_SECRET: WS_SECRET, UPSTREAM_POLL_DELAYS_MS: '600000' };

interface WsJob { submits: number; polls: number; deletes: number; stage: 'created' | 'processing' | 'done' | 'refused'; hook: string | null; body: Record<string, unknown> | null }

function prediction(id: string, status: string, extra: Record<string, unknown> = {}) {
  return {
    code: 200, message: 'success',
    data: { id, model: 'kwaivgi/kling-v3.0-std/text-to-video', outputs: [], urls: { get: `${WS}/api/v3/predictions/${id}/result` }, has_nsfw_contents: [], status, created_at: '2026-11-24T00:00:00.000Z', error: '', timings: { inference: 0 }, ...extra },
  };
}

/** A WaveSpeed task whose state the test moves on (stage), counting the calls. */
function wsJob(id: string): WsJob {
  const seen: WsJob = { submits: 0, polls: 0, deletes: 0, stage: 'created', hook: null, body: null };
  nock(WS).persist()
    .post(SUBMIT, (body: Record<string, unknown> | string) => {
      // nock may run this matcher more than once for one request, once with the body not yet read
      // (''; seen once in a loaded CI run): keep the body that was sent. `submits`, counted in the
      // reply, still proves the submit happened once.
      if (typeof body === 'object' && body !== null) seen.body = body;
      return true;
    }).query((q) => {
      if (typeof q.webhook === 'string') seen.hook = q.webhook;
      return true;
    }).matchHeader('authorization', `Bearer ${WS_KEY}`).reply(() => {
      seen.submits++;
      return [200, prediction(id, 'created')];
    })
    .get(`/api/v3/predictions/${id}/result`).reply(() => {
      seen.polls++;
      if (seen.stage === 'done') return [200, prediction(id, 'completed', { outputs: [`${CDN}/${id}/out.mp4`], has_nsfw_contents: [true], timings: { inference: 1234 } })];
      if (seen.stage === 'refused') return [200, prediction(id, 'failed', { code: 1200, error: 'The content contains sensitive information.' })];
      return [200, prediction(id, seen.stage)];
    })
    .post('/api/v3/predictions/delete', { ids: [id] }).reply(() => {
      seen.deletes++;
      return [200, { code: 200, message: 'success', data: { deleted_count: 1 } }];
    });
  nock(CDN).persist().get(`/${id}/out.mp4`).reply(200, MP4, { 'content-type': 'video/mp4' });
  return seen;
}

async function row(gw: TestGateway, id: string) {
  return gw.app.db('predictions').where({ id }).first();
}
async function submit(gw: TestGateway, key: string): Promise<string> {
  const res = await gw.server.inject({ method: 'POST', url: MODEL, headers: { 'x-api-key': key }, payload: { prompt: 'a red fox runs through snow', duration: 5 } });
  if (res.statusCode !== 200) throw new Error(`submit failed: ${res.statusCode} ${res.payload}`);
  return (res.result as { request_id: string }).request_id;
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

/** A WaveSpeed callback: v3 hex HMAC-SHA256 of id.timestamp.body, keyed by the secret without whsec_. */
function wsCallback(hook: string, body: Record<string, unknown>, opts: { secret?: string; tamper?: boolean } = {}) {
  const raw = JSON.stringify(body);
  const id = crypto.randomBytes(12).toString('hex');
  const ts = String(Math.floor(Date.now() / 1000));
  const key = (opts.secret ?? WS_SECRET).slice('whsec_'.length);
  const signature = `v3,${crypto.createHmac('sha256', key).update(`${id}.${ts}.${raw}`).digest('hex')}`;
  return {
    method: 'POST' as const, url: new URL(hook).pathname,
    headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': signature },
    payload: opts.tamper ? raw.replace('"completed"', '"failed"') : raw,
  };
}

test.serial('by polling: created -> processing -> completed on WaveSpeed, our fields mapped to Kling\'s, submitted once, charged once, NSFW flag kept', async (t) => {
  const gw = await startGateway({ worker: true, env: env() });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const seen = wsJob('ws-poll-1');
  const id = await submit(gw, acct.liveKey);
  const { held } = await balance(gw, acct.liveKey);
  t.true(held > 0);

  await waitFor(async () => (await row(gw, id))?.upstream_status === 'created', { what: 'the task to be created', timeoutMs: 30_000 });
  t.like(await row(gw, id), { status: 'processing', upstream_name: 'wavespeed', upstream_model: 'kwaivgi/kling-v3.0-std/text-to-video', upstream_job_id: 'ws-poll-1' });
  // generate_audio -> sound; resolution and seed are not Kling's fields; defaults filled in
  t.like(seen.body, { prompt: 'a red fox runs through snow', duration: 5, aspect_ratio: '16:9', sound: true, cfg_scale: 0.5 });
  t.false('resolution' in (seen.body ?? {}) || 'generate_audio' in (seen.body ?? {}));
  t.is(seen.hook, null, 'callbacks are off: WaveSpeed is not asked to call back');
  seen.stage = 'processing';
  await waitFor(async () => (await row(gw, id)).upstream_status === 'processing', { what: 'the task to run', timeoutMs: 30_000 });
  seen.stage = 'done';

  const done = await finished(gw, id);
  t.is(done.status, 'completed', String(done.error));
  t.is(Number(done.inference_ms), 1234);
  t.is(seen.submits, 1);
  t.is(seen.deletes, 0);
  const result = await gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${id}/result`, headers: { 'x-api-key': acct.liveKey } });
  t.like(JSON.parse(result.payload), { status: 'completed', has_nsfw_contents: [true] });
  t.is((await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' })).length, 1);
  t.deepEqual(await balance(gw, acct.liveKey), { ...(await balance(gw, acct.liveKey)), balance: 10_000 - held, held: 0 });
  await assertLedger(t, gw.app.db);
});

test.serial('by callback: a signed WaveSpeed callback completes the task at once; tampered, foreign-secret and unsigned ones are refused; a duplicate changes nothing', async (t) => {
  const gw = await startGateway({ worker: true, env: env(CALLBACKS) });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const seen = wsJob('ws-hook-1');
  const id = await submit(gw, acct.liveKey);
  const { held } = await balance(gw, acct.liveKey);
  await waitFor(async () => (await row(gw, id)).upstream_job_id === 'ws-hook-1', { what: 'the task to be submitted', timeoutMs: 30_000 });
  t.regex(seen.hook ?? '', new RegExp(`^http://gateway\\.test/api/v1/upstream-webhooks/wavespeed/${id}\\.[A-Za-z0-9_-]{43}$`));
  const hook = seen.hook!;
  const body = prediction('ws-hook-1', 'completed', { outputs: [`${CDN}/ws-hook-1/out.mp4`], has_nsfw_contents: [true] }).data;

  const tampered = await gw.server.inject(wsCallback(hook, body, { tamper: true }));
  t.is(tampered.statusCode, 401, tampered.payload);
  t.like(JSON.parse(tampered.payload), { code: 'unauthorized' });
  const foreign = await gw.server.inject(wsCallback(hook, body, { secret: 'whsec_c29tZW9uZS1lbHNlcy1zZWNyZXQtMTIz' }));
  t.is(foreign.statusCode, 401);
  const unsigned = await gw.server.inject({ method: 'POST', url: new URL(hook).pathname, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  t.is(unsigned.statusCode, 401);
  const otherProvider = await gw.server.inject({ ...wsCallback(hook, body), url: new URL(hook).pathname.replace('/wavespeed/', '/fal/') });
  t.not(otherProvider.statusCode, 200, 'a WaveSpeed signature is not fal\'s');
  t.is((await row(gw, id)).status, 'processing');
  t.is(seen.polls, 0, 'polling alone would not have moved it for 10 minutes');

  seen.stage = 'done';
  const accepted = await gw.server.inject(wsCallback(hook, body));
  t.is(accepted.statusCode, 200, accepted.payload);
  t.deepEqual(JSON.parse(accepted.payload), { status: 'accepted' });
  const done = await finished(gw, id);
  t.is(done.status, 'completed', String(done.error));
  t.is(seen.submits, 1);

  const duplicate = await gw.server.inject(wsCallback(hook, body));
  t.is(duplicate.statusCode, 200);
  t.deepEqual(JSON.parse(duplicate.payload), { status: 'ignored' });
  t.is((await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' })).length, 1, 'charged once');
  t.like(await balance(gw, acct.liveKey), { balance: 10_000 - held, held: 0 });
  await assertLedger(t, gw.app.db);
});

test.serial('a moderation refusal (task code 1200) fails the prediction unbilled; a cancel deletes the task at WaveSpeed', async (t) => {
  const gw = await startGateway({ worker: true, env: env() });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const refused = wsJob('ws-mod-1');
  refused.stage = 'refused';
  const id = await submit(gw, acct.liveKey);
  const failed = await finished(gw, id);
  t.like(failed, { status: 'failed', error_code: 'content_moderated' });
  t.notRegex(String(failed.error), /wavespeed\.test|ws-http-test/);
  t.like(await balance(gw, acct.liveKey), { balance: 10_000, held: 0 });

  nock.cleanAll();
  const running = wsJob('ws-cancel-1');
  running.stage = 'processing';
  const id2 = await submit(gw, acct.liveKey);
  await waitFor(async () => (await row(gw, id2)).upstream_status === 'processing', { what: 'the task to run', timeoutMs: 30_000 });
  const cancel = await gw.server.inject({ method: 'POST', url: `/app/cancel_prediction/${id2}`, headers: { 'x-api-key': acct.liveKey } });
  t.is(cancel.statusCode, 200, cancel.payload);
  await waitFor(() => running.deletes > 0 || undefined, { what: 'the delete to reach WaveSpeed', timeoutMs: 30_000 });
  t.like(await row(gw, id2), { status: 'cancelled' });
  t.like(await balance(gw, acct.liveKey), { balance: 10_000, held: 0 });
  await assertLedger(t, gw.app.db);
});

test.serial('failover: the aurora server refuses the submit (503), WaveSpeed runs the job and is recorded', async (t) => {
  const gw = await startGateway({ worker: true, queue: 'memory', env: env({ UPSTREAM_AURORA_URL: AURORA }) });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const aurora = { calls: 0 };
  nock(AURORA).persist().post('/v1/models/aurora-v3-standard-t2v/predictions').reply(() => {
    aurora.calls++;
    return [503, { error: 'down for maintenance' }];
  });
  const seen = wsJob('ws-failover-1');
  seen.stage = 'done';
  const id = await submit(gw, acct.liveKey);
  const done = await finished(gw, id);
  t.is(done.status, 'completed', String(done.error));
  t.like(done, { upstream_name: 'wavespeed', upstream_model: 'kwaivgi/kling-v3.0-std/text-to-video', upstream_job_id: 'ws-failover-1' });
  t.true(aurora.calls >= 1);
  t.is(seen.submits, 1);
  await assertLedger(t, gw.app.db);
});
