// Failover across a model's providers (x-model.providers; README "Providers") through the HTTP
// surface and the real worker: lumen-pro-text-to-image lists Replicate's FLUX1.1 [pro], then OpenAI's GPT Image 1 Mini. The gateway
// moves to OpenAI when Replicate is unconfigured, refuses the submit retryably, or has its circuit
// open, and never once Replicate accepted the job. The providers are third-party HTTP: nock.
import test from 'ava';
import nock from 'nock';
import { onlyLocalNetwork, tinyPng } from '../helpers/adapters.ts';
import { finishedRow, startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';

const REPLICATE = 'https://api.replicate.test';
const OPENAI = 'https://api.openai.test';
const REPLICATE_KEY = 'r8_failover_secret';
const OPENAI_KEY = 'sk-failover-secret';
const PRO = '/api/v1/lumen-pro-text-to-image';
const SUBMIT = '/v1/models/black-forest-labs/flux-1.1-pro/predictions';
const PNG = tinyPng(4, 4, 60);

const BOTH = {
  UPSTREAM_REPLICATE_URL: `${REPLICATE}/v1`, UPSTREAM_REPLICATE_KEY: REPLICATE_KEY,
  UPSTREAM_OPENAI_URL: `${OPENAI}/v1`, UPSTREAM_OPENAI_KEY: OPENAI_KEY,
  UPSTREAM_POLL_DELAYS_MS: '20,40', RETRY_DELAYS_MS: '50,100,150',
  // the nocked output host has no public address to check
  UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true',
};

onlyLocalNetwork(test);

/** OpenAI's image API answering every call with one PNG (b64_json), counting the calls. */
function openAiImages() {
  const seen = { calls: 0, bodies: [] as Array<Record<string, unknown>> };
  nock(OPENAI).persist().post('/v1/images/generations', (body: Record<string, unknown>) => {
    seen.bodies.push(body);
    return true;
  }).matchHeader('authorization', `Bearer ${OPENAI_KEY}`).reply(() => {
    seen.calls++;
    return [200, { created: 1763900000, data: [{ b64_json: PNG.toString('base64') }] }];
  });
  return seen;
}

/** Replicate's submit answering `status` every time, counting the calls. */
function replicateSubmits(status: number, body: Record<string, unknown>) {
  const seen = { calls: 0 };
  nock(REPLICATE).persist().post(SUBMIT).reply(() => {
    seen.calls++;
    return [status, body];
  });
  return seen;
}

async function submit(gw: TestGateway, key: string): Promise<string> {
  const res = await gw.server.inject({ method: 'POST', url: PRO, headers: { 'x-api-key': key }, payload: { prompt: 'a lighthouse at dusk', num_images: 1 } });
  if (res.statusCode !== 200) throw new Error(`submit failed: ${res.statusCode} ${res.payload}`);
  return (res.result as { request_id: string }).request_id;
}

const finished = finishedRow;

test.serial('a provider that refuses the submit with a retryable answer hands the prediction to the next one, which runs it once and is recorded', async (t) => {
  const gw = await startGateway({ worker: true, queue: 'memory', env: BOTH });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const replicate = replicateSubmits(503, { detail: 'Service unavailable' });
  const openai = openAiImages();
  const id = await submit(gw, acct.liveKey);
  const done = await finished(gw, id);
  t.is(done.status, 'completed', String(done.error));
  t.is(replicate.calls, 1, 'Replicate was asked once');
  t.is(openai.calls, 1, 'OpenAI ran it once');
  // OpenAI's own field names, from its entry's input_map
  t.like(openai.bodies[0], { model: 'gpt-image-1-mini', n: 1, prompt: 'a lighthouse at dusk' });
  t.like(done, { upstream_name: 'openai', upstream_model: 'gpt-image-1-mini', attempts: 1 });
  const debits = await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' });
  t.is(debits.length, 1);
  // the user sees the gateway's result, not who ran it
  const view = await gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${id}/result`, headers: { 'x-api-key': acct.liveKey } });
  t.false(view.payload.includes('openai'));
  t.false(view.payload.includes('replicate'));
});

test.serial('an unconfigured first provider is skipped: one key (OpenAI\'s) runs the model', async (t) => {
  const gw = await startGateway({ worker: true, queue: 'memory', env: { UPSTREAM_OPENAI_URL: `${OPENAI}/v1`, UPSTREAM_OPENAI_KEY: OPENAI_KEY, UPSTREAM_POLL_DELAYS_MS: '20' } });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const models = await gw.server.inject({ method: 'GET', url: '/api/v1/models?category=text-to-image' });
  const pro = (models.result as { models: Array<{ slug: string; available: boolean }> }).models.find((m) => m.slug === 'lumen-pro-text-to-image');
  t.true(pro?.available, 'listed as available: one of its providers is configured');
  const openai = openAiImages();
  const done = await finished(gw, await submit(gw, acct.liveKey));
  t.is(done.status, 'completed', String(done.error));
  t.is(openai.calls, 1);
  t.is(done.upstream_name, 'openai');
});

test.serial('an open circuit skips the provider without calling it; after the cool-down one trial goes to it again', async (t) => {
  let now = Date.now();
  const gw = await startGateway({ worker: true, queue: 'memory', clock: () => now, env: { ...BOTH, UPSTREAM_BREAKER_FAILURES: '2', UPSTREAM_BREAKER_COOLDOWN_MS: '60000' } });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const replicate = replicateSubmits(429, { detail: 'Request was throttled.' });
  const openai = openAiImages();
  for (let i = 0; i < 2; i++) t.is((await finished(gw, await submit(gw, acct.liveKey))).upstream_name, 'openai');
  t.is(replicate.calls, 2, 'two refusals open the circuit');
  const skipped = await finished(gw, await submit(gw, acct.liveKey));
  t.is(skipped.upstream_name, 'openai');
  t.is(replicate.calls, 2, 'the open circuit was not called');
  now += 60_000;
  nock.cleanAll();
  const recovered = { calls: 0 };
  nock(REPLICATE).post(SUBMIT).reply(() => {
    recovered.calls++;
    return [201, { id: 'rep-trial-1', status: 'succeeded', output: [`${REPLICATE}/out/trial.png`], metrics: { predict_time: 0.5 } }];
  });
  nock(REPLICATE).get('/out/trial.png').reply(200, PNG, { 'content-type': 'image/png' });
  const trial = await finished(gw, await submit(gw, acct.liveKey));
  t.is(trial.status, 'completed', String(trial.error));
  t.is(recovered.calls, 1, 'the half-open trial went to Replicate');
  t.like(trial, { upstream_name: 'replicate', upstream_model: 'black-forest-labs/flux-1.1-pro' });
  t.is(openai.calls, 3);
});

test.serial('no failover once the provider accepted the job: a provider that stops answering polls fails the prediction unbilled, and the next provider is never asked', async (t) => {
  const gw = await startGateway({ worker: true, queue: 'memory', env: BOTH });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  replicateSubmits(201, { id: 'rep-accepted-1', status: 'starting', output: null, error: null });
  let polls = 0;
  nock(REPLICATE).persist().get('/v1/predictions/rep-accepted-1').reply(() => {
    polls++;
    return [503, { detail: 'down' }];
  });
  nock(REPLICATE).persist().post('/v1/predictions/rep-accepted-1/cancel').reply(200, { id: 'rep-accepted-1', status: 'canceled' });
  const openai = openAiImages();
  const done = await finished(gw, await submit(gw, acct.liveKey));
  t.is(done.status, 'failed');
  t.is(done.upstream_name, 'replicate');
  t.true(polls >= 2);
  t.is(openai.calls, 0, 'the job was never submitted twice');
  t.is((await gw.app.db('credit_transactions').where({ prediction_id: done.id, kind: 'prediction' })).length, 0);
});

test.serial('a refusal about the input is not failed over: the prediction fails at once with the first provider\'s answer', async (t) => {
  const gw = await startGateway({ worker: true, queue: 'memory', env: BOTH });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  replicateSubmits(422, { title: 'Input validation failed', detail: 'input.prompt: too long', status: 422 });
  const openai = openAiImages();
  const done = await finished(gw, await submit(gw, acct.liveKey));
  t.is(done.status, 'failed');
  t.is(done.error_code, 'upstream_rejected_input');
  t.is(openai.calls, 0);
});

test.serial('every provider refusing: the prediction is retried later as one retryable failure, then fails unbilled', async (t) => {
  const gw = await startGateway({ worker: true, queue: 'memory', env: { ...BOTH, UPSTREAM_BREAKER_FAILURES: '100' } });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const replicate = replicateSubmits(503, { detail: 'down' });
  let openai = 0;
  nock(OPENAI).persist().post('/v1/images/generations').reply(() => {
    openai++;
    return [500, { error: { message: 'The server had an error while processing your request.', type: 'server_error' } }];
  });
  const done = await finished(gw, await submit(gw, acct.liveKey));
  t.is(done.status, 'failed');
  t.is(Number(done.attempts), 4, 'the first claim and three retries');
  t.is(replicate.calls, 4);
  t.is(openai, 4);
  t.false(String(done.error).includes(OPENAI_KEY));
  t.false(String(done.error).includes('api.openai.test'));
  const user = await gw.app.db('users').where({ id: acct.userId }).first();
  t.deepEqual([Number(user.balance), Number(user.held)], [10_000, 0]);
});
