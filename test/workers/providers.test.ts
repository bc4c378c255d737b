// Real provider adapters through the HTTP surface and the real worker, on MariaDB with the
// in-process queue (and RabbitMQ for one run): a prediction is submitted once, advanced by poll
// messages, its outputs copied into storage, and charged once; cancel reaches the provider;
// a moderation refusal is failed and unbilled; a restarted worker resumes polling without
// submitting again. The providers are third-party HTTP: nock, with fixtures from their docs.
import test from 'ava';
import { onlyLocalNetwork, replicatePrediction, tinyPng } from '../helpers/adapters.ts';
import nock from 'nock';
import { Writable } from 'node:stream';
import pino from 'pino';
import { loadConfig } from '../../config.ts';
import { createApp } from '../../app.ts';
import { createRunModel } from '../../workers/run-model.ts';
import { finishedRow, startGateway, newAccount, submitModel } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { assertLedger } from '../helpers/ledger.ts';

const REPLICATE = 'https://api.replicate.test';
const OPENAI = 'https://api.openai.test';
const CDN = 'https://replicate.delivery.test';
const REPLICATE_KEY = 'r8_provider_secret_token';
const OPENAI_KEY = 'sk-provider-secret-key';
const PRO = '/api/v1/lumen-pro-text-to-image';
const MAX = '/api/v1/lumen-max-text-to-image';
const CHAT = '/api/v1/lexi-v1-balanced-chat';
const SUBMIT = '/v1/models/black-forest-labs/flux-1.1-pro/predictions';

const PNG_BYTES = tinyPng(3, 2, 90);

const ENV = {
  UPSTREAM_REPLICATE_URL: `${REPLICATE}/v1`,
  UPSTREAM_REPLICATE_KEY: REPLICATE_KEY,
  UPSTREAM_OPENAI_URL: `${OPENAI}/v1`,
  UPSTREAM_OPENAI_KEY: OPENAI_KEY,
  UPSTREAM_POLL_DELAYS_MS: '20,40',
  RETRY_DELAYS_MS: '50,100,150',
  // the nocked CDN host has no public address to check
  UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true',
};

const prediction = (id: string, status: string, extra?: Record<string, unknown>) => replicatePrediction(REPLICATE, id, status, extra);

/** A Replicate job that stays `processing` until released, counting submits and polls. */
function replicateJob(id: string) {
  const seen = { submits: 0, polls: 0, released: false, cancels: 0 };
  nock(REPLICATE).persist()
    .post(SUBMIT).matchHeader('authorization', `Bearer ${REPLICATE_KEY}`).reply(() => {
      seen.submits++;
      return [201, prediction(id, 'starting')];
    })
    .get(`/v1/predictions/${id}`).reply(() => {
      seen.polls++;
      return [200, seen.released ? prediction(id, 'succeeded', { output: [`${CDN}/${id}/out-0.png`], metrics: { predict_time: 1.25 } }) : prediction(id, 'processing')];
    })
    .post(`/v1/predictions/${id}/cancel`).reply(() => {
      seen.cancels++;
      return [200, prediction(id, 'canceled')];
    });
  nock(CDN).persist().get(`/${id}/out-0.png`).reply(200, PNG_BYTES, { 'content-type': 'image/png' });
  return seen;
}

async function row(gw: TestGateway, id: string) {
  return gw.app.db('predictions').where({ id }).first();
}

const finished = finishedRow;

onlyLocalNetwork(test);

async function drivenByPolling(t: import('ava').ExecutionContext, queue: 'memory' | 'amqp', jobId: string) {
  const gw = await startGateway({ worker: true, queue, env: ENV });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const seen = replicateJob(jobId);
  const id = await submitModel(gw, acct.liveKey, PRO, { prompt: 'a fox in the snow', num_images: 1 });

  // Polled through delayed messages while the provider works: processing, with its job recorded.
  const running = await waitFor(async () => {
    const r = await row(gw, id);
    // upstream_polls is 1 once submitted, and moves on with every poll
    return r.status === 'processing' && Number(r.upstream_polls) >= 3 ? r : undefined;
  }, { what: 'the job to be polled twice', timeoutMs: 30_000 });
  t.like(running, { upstream_name: 'replicate', upstream_job_id: jobId, upstream_status: 'processing' });
  const during = await gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${id}/result`, headers: { 'x-api-key': acct.liveKey } });
  t.is((during.result as { status: string }).status, 'processing');

  seen.released = true;
  const done = await finished(gw, id);
  t.is(done.status, 'completed', String(done.error));
  t.is(done.upstream_status, 'succeeded');
  t.is(Number(done.inference_ms), 1250);
  t.is(seen.submits, 1);
  t.true(seen.polls >= 3);

  const view = await gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${id}/result`, headers: { 'x-api-key': acct.liveKey } });
  const outputs = (view.result as { outputs: string[] }).outputs;
  t.is(outputs.length, 1);
  t.false(outputs[0]!.includes('replicate'), 'the output is served by the gateway, not the provider');
  const file = await gw.server.inject({ method: 'GET', url: outputs[0]!.replace('http://gateway.test', '') });
  t.deepEqual(file.rawPayload, PNG_BYTES);
  const debits = await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' });
  t.is(debits.length, 1);
}

test.serial('replicate: a prediction goes queued -> processing -> completed by polling (in-process queue), submitted once and charged once', async (t) => {
  await drivenByPolling(t, 'memory', 'rep-mem-1');
});

test.serial('replicate: the same through RabbitMQ delay queues', async (t) => {
  await drivenByPolling(t, 'amqp', 'rep-amqp-1');
});

test.serial('replicate: the submitting request id reaches every worker line of the poll chain, and the provider calls are in the adapter metrics', async (t) => {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  const gw = await startGateway({ worker: true, queue: 'memory', env: ENV, log: pino({ level: 'info' }, stream) });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const seen = replicateJob('rep-reqid-1');
  const reqId = 'poll-chain-req-1';
  const res = await gw.server.inject({ method: 'POST', url: PRO, headers: { 'x-api-key': acct.liveKey, 'x-request-id': reqId }, payload: { prompt: 'a fox', num_images: 1 } });
  t.is(res.statusCode, 200, res.payload);
  const id = (res.result as { request_id: string }).request_id;
  await waitFor(async () => Number((await row(gw, id)).upstream_polls) >= 2, { what: 'a poll message to be handled', timeoutMs: 30_000 });
  seen.released = true;
  t.is((await finished(gw, id)).status, 'completed');
  const mine = (msg: string) => lines.find((l) => l.msg === msg && l.id === id);
  t.is(mine('upstream job submitted')?.reqId, reqId);
  // completed by a poll message, so the id went down the chain (the line is written just after the row)
  t.is((await waitFor(() => mine('prediction completed'), { what: 'the completion\'s log line' })).reqId, reqId);
  const text = await gw.app.metrics.registry.metrics();
  const calls = new RegExp(`^mediagate_adapter_duration_seconds_count\\{[^}]*provider="replicate"[^}]*outcome="ok"[^}]*\\} (\\d+)$`, 'm').exec(text);
  t.truthy(calls, 'the replicate calls are counted');
  t.true(Number(calls![1]) >= 2, 'the submit and at least one poll');
});

test.serial('http-json: a prediction the upstream queues is polled through messages to completion', async (t) => {
  const LUMEN = 'https://lumen.upstream.test';
  const gw = await startGateway({ worker: true, queue: 'memory', env: { ...ENV, UPSTREAM_LUMEN_URL: LUMEN } });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 1000);
  let polls = 0;
  const api = nock(LUMEN)
    .post('/v1/models/lumen-dev/predictions').once().reply(201, { id: 'hj-1', status: 'queued' })
    .get('/v1/predictions/hj-1').times(3).reply(() => {
      polls++;
      return [200, polls < 3 ? { id: 'hj-1', status: 'processing' } : { id: 'hj-1', status: 'completed', outputs: [`${LUMEN}/o/1.png`], inference_ms: 321 }];
    })
    .get('/o/1.png').reply(200, PNG_BYTES, { 'content-type': 'image/png' });
  const id = await submitModel(gw, acct.liveKey, '/api/v1/lumen-dev-text-to-image', { prompt: 'a fox' });
  const done = await finished(gw, id);
  t.is(done.status, 'completed', String(done.error));
  t.true(api.isDone());
  t.like(done, { upstream_name: 'lumen', upstream_job_id: 'hj-1', upstream_status: 'completed' });
  t.is(Number(done.upstream_polls), 3);
  t.is(Number(done.inference_ms), 321);
});

test.serial('openai-compatible: a chat prediction completes with the reply stored as a text file', async (t) => {
  const gw = await startGateway({ worker: true, queue: 'memory', env: ENV });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 1000);
  const api = nock(OPENAI).post('/v1/chat/completions', (body: { model?: string; messages?: unknown[] }) => body.model === 'gpt-4o-mini' && Array.isArray(body.messages))
    .matchHeader('authorization', `Bearer ${OPENAI_KEY}`)
    .reply(200, { id: 'chatcmpl-9', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'A fox, quiet in fresh snow.' }, finish_reason: 'stop' }] });
  const id = await submitModel(gw, acct.liveKey, CHAT, { prompt: 'Caption: fox in snow' });
  const done = await finished(gw, id);
  t.is(done.status, 'completed', String(done.error));
  t.true(api.isDone());
  t.like(done, { upstream_name: 'openai', upstream_job_id: 'chatcmpl-9' });
  const outputs = JSON.parse(done.outputs) as string[];
  const file = await gw.server.inject({ method: 'GET', url: `/files/${outputs[0]}` });
  t.is(file.payload, 'A fox, quiet in fresh snow.');
});

test.serial('openai-compatible: the async chat endpoint takes a conversation in messages, or a prompt, not both', async (t) => {
  const gw = await startGateway({ worker: true, queue: 'memory', env: ENV });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 1000);
  const conversation = [{ role: 'user', content: 'Name a colour.' }, { role: 'assistant', content: 'Blue.' }, { role: 'user', content: 'Another.' }];
  const api = nock(OPENAI).post('/v1/chat/completions', (body: { messages?: unknown[] }) => JSON.stringify(body.messages) === JSON.stringify(conversation))
    .reply(200, { id: 'chatcmpl-10', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'Green.' }, finish_reason: 'stop' }] });
  // the hold counts the conversation's bytes, like a prompt's
  const short = await gw.server.inject({ method: 'POST', url: '/app/calculate_dynamic_cost', headers: { 'x-api-key': acct.liveKey }, payload: { model: 'lexi-v1-balanced-chat', input: { messages: [{ role: 'user', content: 'x' }] } } });
  const long = await gw.server.inject({ method: 'POST', url: '/app/calculate_dynamic_cost', headers: { 'x-api-key': acct.liveKey }, payload: { model: 'lexi-v1-balanced-chat', input: { messages: [{ role: 'user', content: 'x'.repeat(30000) }] } } });
  t.is(short.statusCode, 200, short.payload);
  t.true((long.result as { cost: number }).cost > (short.result as { cost: number }).cost);
  const id = await submitModel(gw, acct.liveKey, CHAT, { messages: conversation });
  const done = await finished(gw, id);
  t.is(done.status, 'completed', String(done.error));
  t.true(api.isDone());
  const both = await gw.server.inject({ method: 'POST', url: CHAT, headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'x', messages: conversation } });
  t.is(both.statusCode, 422);
  const neither = await gw.server.inject({ method: 'POST', url: CHAT, headers: { 'x-api-key': acct.liveKey }, payload: { max_tokens: 10 } });
  t.is(neither.statusCode, 422);
});

test.serial('a moderation refusal is failed at once with a stable code, never retried and never billed', async (t) => {
  const gw = await startGateway({ worker: true, queue: 'memory', env: ENV });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 1000);
  const api = nock(OPENAI).post('/v1/images/generations').once()
    .reply(400, { error: { message: 'Your request was rejected by the safety system.', type: 'image_generation_user_error', param: null, code: 'moderation_blocked' } });
  const id = await submitModel(gw, acct.liveKey, MAX, { prompt: 'something refused' });
  const done = await finished(gw, id);
  t.true(api.isDone());
  t.is(done.status, 'failed');
  t.is(done.error_code, 'content_moderated');
  t.is(Number(done.attempts), 1);
  t.regex(String(done.error), /content policy/);
  t.false(String(done.error).includes(OPENAI_KEY));
  t.false(String(done.error).includes('openai.test'));
  const user = await gw.app.db('users').where({ id: acct.userId }).first();
  t.deepEqual([Number(user.balance), Number(user.held)], [1000, 0]);
  t.is((await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' })).length, 0);
  const view = await gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${id}/result`, headers: { 'x-api-key': acct.liveKey } });
  t.like(view.result, { status: 'failed', error_code: 'content_moderated' });
});

test.serial('a cancel that lands while a poll is asking the provider still reaches the provider', async (t) => {
  const gw = await startGateway({ worker: true, queue: 'memory', env: ENV });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const id = 'rep-cancel-race';
  const seen = { cancels: 0, submits: 0 };
  let predictionId = '';
  let cancelledDuringPoll = false;
  nock(REPLICATE).persist()
    .post(SUBMIT).reply(() => {
      seen.submits++;
      return [201, prediction(id, 'starting')];
    })
    // The first poll answers only after the owner's cancel went through: the poll read the row
    // as processing before, and finds it cancelled when it goes to schedule the next poll.
    .get(`/v1/predictions/${id}`).reply(async () => {
      if (!cancelledDuringPoll) {
        cancelledDuringPoll = true;
        const res = await gw.server.inject({ method: 'POST', url: `/app/cancel_prediction/${predictionId}`, headers: { 'x-api-key': acct.liveKey } });
        if (res.statusCode !== 200) return [500, { detail: res.payload }];
      }
      return [200, prediction(id, 'processing')];
    })
    .post(`/v1/predictions/${id}/cancel`).reply(() => {
      seen.cancels++;
      return [200, prediction(id, 'canceled')];
    });
  predictionId = await submitModel(gw, acct.liveKey, PRO, { prompt: 'a fox' });
  await waitFor(() => seen.cancels === 1, { what: 'the provider cancel', timeoutMs: 30_000 });
  t.true(cancelledDuringPoll);
  t.is(seen.submits, 1);
  t.is((await row(gw, predictionId)).status, 'cancelled');
  const user = await gw.app.db('users').where({ id: acct.userId }).first();
  t.deepEqual([Number(user.balance), Number(user.held)], [10_000, 0]);
});

test.serial('cancel_prediction on a running upstream job reaches the provider, and the hold is released', async (t) => {
  const gw = await startGateway({ worker: true, queue: 'memory', env: ENV });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const seen = replicateJob('rep-cancel-1');
  const id = await submitModel(gw, acct.liveKey, PRO, { prompt: 'a fox' });
  await waitFor(async () => (await row(gw, id)).upstream_job_id === 'rep-cancel-1', { what: 'the job to be submitted' });
  const res = await gw.server.inject({ method: 'POST', url: `/app/cancel_prediction/${id}`, headers: { 'x-api-key': acct.liveKey } });
  t.is(res.statusCode, 200, res.payload);
  await waitFor(() => seen.cancels === 1, { what: 'the provider cancel', timeoutMs: 30_000 });
  const r = await waitFor(async () => {
    const current = await row(gw, id);
    return current.upstream_status === 'canceled' ? current : undefined;
  }, { what: 'the provider status to be recorded' });
  t.is(r.status, 'cancelled');
  t.is(seen.submits, 1);
  const user = await gw.app.db('users').where({ id: acct.userId }).first();
  t.deepEqual([Number(user.balance), Number(user.held)], [10_000, 0]);
});

test.serial('a restarted worker resumes polling the recorded job without a second submit', async (t) => {
  const gw = await startGateway({ worker: true, queue: 'memory', env: ENV });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const seen = replicateJob('rep-restart-1');
  const id = await submitModel(gw, acct.liveKey, PRO, { prompt: 'a fox' });
  await waitFor(async () => Number((await row(gw, id)).upstream_polls) >= 1, { what: 'the job to be polled' });

  // The first process stops: its in-process queue, and the poll message waiting in it, are gone.
  await gw.app.queue.stopConsuming();
  await gw.app.queue.drain(10_000);
  t.is((await row(gw, id)).status, 'processing');

  // A new process on the same database recovers the unfinished work, as `npm start` does.
  const app = await createApp(loadConfig(gw.env), { log: pino({ level: 'silent' }) });
  t.teardown(() => app.close());
  const runModel = createRunModel(app);
  await app.queue.consume('predictions', runModel.handle, { prefetch: 4 });
  t.true(await app.dispatcher.recover() >= 1);
  const before = seen.polls;
  await waitFor(() => seen.polls > before, { what: 'the new process to poll the job' });
  seen.released = true;
  const done = await finished(gw, id);
  t.is(done.status, 'completed', String(done.error));
  t.is(seen.submits, 1);
  t.is((await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' })).length, 1);
});

test.serial('a poll chain whose message was lost is published again by the sweeper', async (t) => {
  const gw = await startGateway({ worker: true, queue: 'memory', env: ENV });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const seen = replicateJob('rep-lost-1');
  const id = await submitModel(gw, acct.liveKey, PRO, { prompt: 'a fox' });
  await waitFor(async () => Number((await row(gw, id)).upstream_polls) >= 2, { what: 'the job to be polled' });
  // Every message in flight now carries a number the row no longer has: the chain is dead, as
  // if its message had been purged. The row is left untouched for longer than the sweeper waits.
  await gw.app.db('predictions').where({ id }).update({ upstream_polls: 1000, updated_at: Date.now() - 3_600_000 });
  t.true(await gw.app.dispatcher.sweep() >= 1);
  seen.released = true;
  const done = await finished(gw, id);
  t.is(done.status, 'completed', String(done.error));
  t.is(seen.submits, 1);
});

test.serial('with no provider configured, production keys get 503 naming the key to set and sandbox keys still work', async (t) => {
  const gw = await startGateway({ worker: false, queue: 'memory' });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 1000);
  for (const url of [PRO, MAX, CHAT]) {
    const live = await gw.server.inject({ method: 'POST', url, headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'x' } });
    t.is(live.statusCode, 503, url);
    t.regex(live.payload, /set UPSTREAM_(REPLICATE|OPENAI)_KEY/);
    // one provider: "its upstream provider ... is not configured"; several: "none of ... is configured"
    const providers = gw.app.spec.models.get(url.split('/').pop()!)!.providers.map((p) => `"${p.upstream}"`);
    t.true(url !== CHAT || providers.length === 1, 'the chat model has one provider: both wordings are checked');
    const wording = providers.length === 1 ? `its upstream provider ${providers[0]} is not configured` : `none of its upstream providers (${providers.join(', ')}) is configured`;
    t.true((JSON.parse(live.payload) as { detail: string }).detail.includes(`on this gateway: ${wording} (operator: set `), `${url}: ${live.payload}`);
    const sandbox = await gw.server.inject({ method: 'POST', url, headers: { 'x-api-key': acct.testKey }, payload: { prompt: 'x' } });
    t.is(sandbox.statusCode, 200, sandbox.payload);
    const id = (sandbox.result as { request_id: string }).request_id;
    const view = await gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${id}/result`, headers: { 'x-api-key': acct.testKey } });
    t.like(view.result, { status: 'completed' });
  }
});

test.serial('token counts too large to record are not believed: the answer is counted instead and completed, async and inline alike', async (t) => {
  const gw = await startGateway({ worker: true, queue: 'memory', env: ENV });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 1000);
  // 3e9 tokens: a safe integer, but more than a prediction's token counts hold
  const absurd = { prompt_tokens: 3e9, completion_tokens: 3e9, total_tokens: 6e9 };
  nock(OPENAI).post('/v1/chat/completions').times(2)
    .reply(200, { id: 'chatcmpl-big', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'Short.' }, finish_reason: 'stop' }], usage: absurd });
  const id = await submitModel(gw, acct.liveKey, CHAT, { prompt: 'Say something short' });
  const done = await finished(gw, id);
  t.is(done.status, 'completed', String(done.error));
  t.like(await gw.app.db('prediction_usage').where({ prediction_id: id }).first(), { usage_source: 'counted' });

  const inline = await gw.server.inject({ method: 'POST', url: '/v1/chat/completions', headers: { authorization: `Bearer ${acct.liveKey}` }, payload: { model: 'lexi-v1-balanced-chat', messages: [{ role: 'user', content: 'Say something short' }] } });
  t.is(inline.statusCode, 200, inline.payload);
  const inlineId = String(inline.headers['x-prediction-id']);
  t.like(await gw.app.db('predictions').where({ id: inlineId }).first(), { status: 'completed' });
  t.like(await gw.app.db('prediction_usage').where({ prediction_id: inlineId }).first(), { usage_source: 'counted' });
  const user = await gw.app.db('users').where({ id: acct.userId }).first();
  t.is(Number(user.held), 0);
  await assertLedger(t, gw.app.db);
});
