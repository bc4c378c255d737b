// Work whose message keeps getting lost is republished by the sweeper, and the copy carries on
// the attempts its row records: a prediction or a webhook delivery that fails every time, its
// retry message lost each time, is still dead-lettered after three retries, not retried for ever.
// The app's clock is fixed and moved by the test; each consumer drops the retry its outcome asks
// for (the lost message), so only the sweeper's copies bring the work back. The provider and the
// receiver fail every time (the provider is third-party HTTP: nock).
import test from 'ava';
import nock from 'nock';
import { onlyLocalNetwork } from '../helpers/adapters.ts';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { createRunModel } from '../../workers/run-model.ts';
import { createDeliverWebhook } from '../../workers/deliver-webhook.ts';
import type { Delivery, Outcome } from '../../workers/queue/types.ts';

const UPSTREAM = 'https://lumen.swept-attempts.test';
const MINUTE = 60_000;

onlyLocalNetwork(test);

for (const queue of ['memory', 'amqp'] as const) test.serial(`${queue}: a prediction whose retry messages are all lost still fails after three retries, its hold released`, async (t) => {
  let now = Date.UTC(2026, 11, 1, 6, 0, 0);
  const gw = await startGateway({ queue, clock: () => now, env: { UPSTREAM_LUMEN_URL: UPSTREAM, UPSTREAM_LUMEN_KEY: 'sk-swept', PENDING_REPUBLISH_AFTER_MS: '1000' } });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 100_000);
  nock(UPSTREAM).persist().post(/\/v1\/models\/.*\/predictions/).reply(503, { error: 'overloaded' });
  const runModel = createRunModel(gw.app);
  const seen: number[] = [];
  const outcomes: Outcome['kind'][] = [];
  await gw.app.queue.consume('predictions', async (d: Delivery<never>) => {
    seen.push(d.attempt);
    const o = await runModel.handle(d);
    outcomes.push(o.kind);
    // the retry's message is lost
    return o.kind === 'retry' ? { kind: 'ack' } : o;
  }, { prefetch: 1 });
  const res = await gw.server.inject({ method: 'POST', url: '/api/v1/lumen-dev-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'lost retries' } });
  t.is(res.statusCode, 200, res.payload);
  const id = (res.result as { request_id: string }).request_id;
  await waitFor(() => outcomes.length === 1, { what: 'the first run' });
  for (let sweep = 1; sweep <= 6 && outcomes.at(-1) === 'retry'; sweep++) {
    now += 2_000;
    t.is(await gw.app.dispatcher.sweep(), 1, `sweep ${sweep} republishes the prediction`);
    await waitFor(() => outcomes.length === sweep + 1, { what: `run ${sweep + 1}` });
  }
  t.deepEqual(seen, [0, 1, 2, 3], 'each copy carries on the attempts made');
  t.deepEqual(outcomes, ['retry', 'retry', 'retry', 'dead-letter']);
  const row = await gw.app.db('predictions').where({ id }).first();
  t.is(row.status, 'failed');
  t.is(Number(row.attempts), 4);
  await waitFor(async () => (await gw.app.queue.deadLetterCount('predictions')) === 1, { what: 'the dead-lettered message' });
  const user = await gw.app.db('users').where({ id: acct.userId }).first();
  t.deepEqual([Number(user.balance), Number(user.held)], [100_000, 0], 'nothing charged, the hold released');
  now += 2_000;
  t.is(await gw.app.dispatcher.sweep(), 0, 'nothing left to republish');
});

test.serial('the sweeper\'s copy carrying attempts does not take over a prediction another worker is running', async (t) => {
  let now = Date.UTC(2026, 11, 1, 7, 0, 0);
  const gw = await startGateway({ queue: 'memory', clock: () => now, env: { PENDING_REPUBLISH_AFTER_MS: '1000' } });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const copies: Array<Delivery<never>> = [];
  await gw.app.queue.consume('predictions', async (d: Delivery<never>) => {
    copies.push(d);
    return { kind: 'ack' };
  }, { prefetch: 1 });
  const res = await gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'late original', width: 64, height: 64 } });
  t.is(res.statusCode, 200, res.payload);
  const id = (res.result as { request_id: string }).request_id;
  await waitFor(() => copies.length === 1, { what: 'the first message' });
  // as after one run that failed retryably: pending again, one attempt made
  await gw.app.db('predictions').where({ id }).update({ status: 'pending', attempts: 1, updated_at: now });
  now += 2_000;
  t.is(await gw.app.dispatcher.sweep(), 1);
  await waitFor(() => copies.length === 2, { what: 'the sweeper\'s copy' });
  const copy = copies[1]!;
  t.is(copy.attempt, 1);
  // the retry message was only late: a worker took it and is running the prediction
  await gw.app.db('predictions').where({ id }).update({ status: 'processing', attempts: 2 });
  const runModel = createRunModel(gw.app);
  t.deepEqual(await runModel.handle(copy), { kind: 'ack' });
  const row = await gw.app.db('predictions').where({ id }).first();
  t.deepEqual([row.status, Number(row.attempts)], ['processing', 2], 'the running prediction is left alone');
  t.is((await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' })).length, 0);
});

test.serial('a webhook delivery whose retry messages are all lost is still dead after three retries, and a reopened one gets a fresh round', async (t) => {
  let now = Date.UTC(2026, 11, 1, 8, 0, 0);
  const gw = await startGateway({ queue: 'memory', clock: () => now, env: { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_TIMEOUT_MS: '1000' } });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 1000);
  const receiver = await startReceiver(() => ({ status: 503 }));
  t.teardown(() => receiver.close());
  const runModel = createRunModel(gw.app);
  await gw.app.queue.consume('predictions', runModel.handle, { prefetch: 1 });
  const deliver = createDeliverWebhook(gw.app, gw.app.encryptionKey, { random: () => 0.5 }).handle;
  const seen: number[] = [];
  const outcomes: Outcome['kind'][] = [];
  await gw.app.queue.consume('webhooks', async (d: Delivery<never>) => {
    seen.push(d.attempt);
    const o = await deliver(d);
    outcomes.push(o.kind);
    return o.kind === 'retry' ? { kind: 'ack' } : o;
  }, { prefetch: 1 });
  const res = await gw.server.inject({ method: 'POST', url: `/api/v1/canvas-v1-fast-text-to-image?webhook=${encodeURIComponent(receiver.url)}`, headers: { 'x-api-key': acct.testKey }, payload: { prompt: 'lost webhook retries', width: 64, height: 64 } });
  t.is(res.statusCode, 200, res.payload);
  await waitFor(() => outcomes.length === 1, { what: 'the first attempt' });
  const sweepUntil = async (runs: number) => {
    while (outcomes.at(-1) === 'retry' && outcomes.length < runs) {
      // past the retry's due time and the sweeper's grace
      now += 5 * 60 * MINUTE;
      const n = outcomes.length;
      t.is(await gw.app.dispatcher.sweep(), 1);
      await waitFor(() => outcomes.length === n + 1, { what: `attempt ${n + 1}` });
    }
  };
  await sweepUntil(8);
  t.deepEqual(seen, [0, 1, 2, 3], 'each copy carries on the attempts made');
  t.deepEqual(outcomes, ['retry', 'retry', 'retry', 'dead-letter']);
  const id = String((await gw.app.db('webhook_deliveries').first()).id);
  let row = await gw.app.db('webhook_deliveries').where({ id }).first();
  t.deepEqual([row.status, Number(row.attempts)], ['dead', 4]);
  t.is(receiver.received.length, 4);

  // The owner redelivers it: a fresh round of attempts, whose lost retries the sweeper carries on too.
  const redeliver = await gw.server.inject({ method: 'POST', url: `/app/webhook_deliveries/${id}/redeliver`, headers: { 'x-api-key': acct.testKey } });
  t.true(redeliver.statusCode < 300, redeliver.payload);
  await waitFor(() => outcomes.length === 5, { what: 'the redelivery\'s first attempt' });
  await sweepUntil(12);
  t.deepEqual(seen.slice(4), [0, 1, 2, 3]);
  t.deepEqual(outcomes.slice(4), ['retry', 'retry', 'retry', 'dead-letter']);
  row = await gw.app.db('webhook_deliveries').where({ id }).first();
  t.deepEqual([row.status, Number(row.attempts)], ['dead', 8]);
});
