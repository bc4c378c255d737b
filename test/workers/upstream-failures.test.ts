// Upstream failures through the real worker and RabbitMQ: retryable errors are retried with
// backoff and dead-lettered after three retries; a refused input fails at once. Either way the
// hold is released and nothing is charged. The upstream provider is third-party HTTP: nock.
import test from 'ava';
import nock from 'nock';
import { readFileSync } from 'node:fs';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { assertLedger } from '../helpers/ledger.ts';

const UPSTREAM = 'https://lumen.upstream.test';
// A real PNG: the gateway stores an output only when its bytes are the model's kind of file.
const PNG = readFileSync(new URL('../../workers/sandbox/sample.png', import.meta.url));
let gw: TestGateway;
let acct: Account;

test.before(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  gw = await startGateway({ worker: true, env: { UPSTREAM_LUMEN_URL: UPSTREAM, UPSTREAM_LUMEN_KEY: 'sk-upstream-secret', RETRY_DELAYS_MS: '100,200,300', UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true' } });
  acct = await newAccount(gw, 100_000);
});
test.after.always(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  await gw?.stop();
});

async function finished(id: string) {
  return waitFor(async () => {
    const row = await gw.app.db('predictions').where({ id }).first();
    return row.status === 'completed' || row.status === 'failed' ? row : undefined;
  }, { what: 'the prediction to finish', timeoutMs: 30_000 });
}

test.serial('an upstream that keeps failing is retried three times, then the prediction fails and is dead-lettered', async (t) => {
  const calls: number[] = [];
  const scope = nock(UPSTREAM).post(/\/v1\/models\/.*\/predictions/).times(4).reply(() => {
    calls.push(Date.now());
    return [503, { error: 'overloaded' }];
  });
  const res = await gw.server.inject({ method: 'POST', url: '/api/v1/lumen-dev-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'x' } });
  t.is(res.statusCode, 200, res.payload);
  const id = (res.result as { request_id: string }).request_id;
  const row = await finished(id);
  t.is(row.status, 'failed');
  t.is(calls.length, 4);
  t.true(scope.isDone());
  t.is(Number(row.attempts), 4);
  t.false(String(row.error).includes('sk-upstream-secret'));
  // spacing follows the configured delays (100, 200, 300 ms), give or take scheduling
  const gaps = calls.slice(1).map((c, i) => c - calls[i]!);
  t.true(gaps[0]! >= 90 && gaps[1]! >= 190 && gaps[2]! >= 290, `gaps ${gaps.join(', ')}`);
  await waitFor(async () => (await gw.app.queue.deadLetterCount('predictions')) === 1, { what: 'the dead-lettered message' });
  const user = await gw.app.db('users').where({ id: acct.userId }).first();
  t.deepEqual([Number(user.balance), Number(user.held)], [100_000, 0]);
  t.is((await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' })).length, 0);
  const view = await gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${id}/result`, headers: { 'x-api-key': acct.liveKey } });
  t.is((view.result as { status: string }).status, 'failed');
  t.truthy((view.result as { error: string }).error);
});

test.serial('an upstream that refuses the input fails the prediction at once, free of charge', async (t) => {
  nock(UPSTREAM).post(/\/v1\/models\/.*\/predictions/).once().reply(400, { error: 'prompt rejected by safety filter' });
  const res = await gw.server.inject({ method: 'POST', url: '/api/v1/lumen-dev-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'y' } });
  const id = (res.result as { request_id: string }).request_id;
  const row = await finished(id);
  t.is(row.status, 'failed');
  t.is(Number(row.attempts), 1);
  t.regex(String(row.error), /safety filter/);
  const user = await gw.app.db('users').where({ id: acct.userId }).first();
  t.deepEqual([Number(user.balance), Number(user.held)], [100_000, 0]);
});

test.serial('an upstream that fails once and then succeeds completes and is charged once', async (t) => {
  nock(UPSTREAM)
    .post(/\/v1\/models\/.*\/predictions/).once().replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))
    .post(/\/v1\/models\/.*\/predictions/).once().reply(200, { status: 'completed', outputs: [`${UPSTREAM}/files/out.png`] })
    .get('/files/out.png').reply(200, PNG, { 'content-type': 'image/png' });
  const res = await gw.server.inject({ method: 'POST', url: '/api/v1/lumen-dev-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'z' } });
  const id = (res.result as { request_id: string }).request_id;
  const row = await finished(id);
  t.is(row.status, 'completed', String(row.error));
  t.is(Number(row.attempts), 2);
  const debits = await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' });
  t.is(debits.length, 1);
  t.is(Number(debits[0].amount), -Number(row.price));
});

test.serial('an inference time too large to record does not fail a good result: the measured time is kept', async (t) => {
  // 3e9 ms (35 days) does not fit the prediction's inference_ms; the answer is otherwise fine
  nock(UPSTREAM)
    .post(/\/v1\/models\/.*\/predictions/).once().reply(200, { status: 'completed', outputs: [`${UPSTREAM}/files/long.png`], inference_ms: 3e9 })
    .get('/files/long.png').reply(200, PNG, { 'content-type': 'image/png' });
  const res = await gw.server.inject({ method: 'POST', url: '/api/v1/lumen-dev-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'a long one' } });
  const id = (res.result as { request_id: string }).request_id;
  const row = await finished(id);
  t.is(row.status, 'completed', String(row.error));
  t.true(Number(row.inference_ms) >= 0 && Number(row.inference_ms) < 60_000, `inference_ms ${row.inference_ms}`);
  const debits = await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' });
  t.is(debits.length, 1);
  t.is(Number(debits[0].amount), -Number(row.price));
  await assertLedger(t, gw.app.db);
});

test.serial('a job finished in its submit answer, without an id, fails at once when its output cannot be downloaded: there is no job to poll', async (t) => {
  // http-json's "completed at once" names no prediction: the provider has nothing to answer a poll about
  nock(UPSTREAM)
    .post(/\/v1\/models\/.*\/predictions/).once().reply(200, { status: 'completed', outputs: [`${UPSTREAM}/files/blip.png`] })
    .get('/files/blip.png').reply(503);
  const polled = nock(UPSTREAM).get(/\/v1\/predictions\//).reply(404, { error: 'no such prediction' });
  const res = await gw.server.inject({ method: 'POST', url: '/api/v1/lumen-dev-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'once' } });
  const id = (res.result as { request_id: string }).request_id;
  const row = await finished(id);
  t.is(row.status, 'failed');
  t.is(row.error_code, 'upstream_unavailable');
  t.regex(String(row.error), /download of output 1/);
  t.false(polled.isDone(), 'no poll for a job the provider never named');
  t.is(Number(row.attempts), 1);
  const user = await gw.app.db('users').where({ id: acct.userId }).first();
  t.is(Number(user.held), 0);
  t.is((await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' })).length, 0);
  await assertLedger(t, gw.app.db);
});

test.serial('a job the provider accepted and then answers 404 for was lost by the provider: failed as its fault, not the input\'s, and not charged', async (t) => {
  nock(UPSTREAM)
    .post(/\/v1\/models\/.*\/predictions/).once().reply(200, { id: 'up-lost-1', status: 'processing' })
    .get('/v1/predictions/up-lost-1').once().reply(404, { error: 'no such prediction' });
  const before = await gw.app.db('users').where({ id: acct.userId }).first();
  const res = await gw.server.inject({ method: 'POST', url: '/api/v1/lumen-dev-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'lost' } });
  const id = (res.result as { request_id: string }).request_id;
  const row = await finished(id);
  t.is(row.status, 'failed');
  t.is(row.error_code, 'upstream_failed');
  t.regex(String(row.error), /no longer knows the job/);
  t.notRegex(String(row.error), /rejected the input/);
  t.is(Number(row.attempts), 1);
  const user = await gw.app.db('users').where({ id: acct.userId }).first();
  t.deepEqual([Number(user.balance), Number(user.held)], [Number(before.balance), 0], 'the hold is released, nothing charged');
  t.is((await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' })).length, 0);
  await assertLedger(t, gw.app.db);
});
