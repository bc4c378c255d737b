// Item 7 of issue 16: a queue message lost after the broker confirmed it (here: the queue is
// purged) does not strand the prediction `pending` with its credit held. The sweeper publishes
// requests pending longer than PENDING_REPUBLISH_AFTER_MS again; claiming stays idempotent.
import test from 'ava';
import { connect } from 'amqplib';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { AMQP_URL, waitFor } from '../helpers/services.ts';
import { topologyNames } from '../../workers/queue/amqp.ts';
import { createRunModel } from '../../workers/run-model.ts';

const LOCAL_MODEL = '/api/v1/canvas-v1-fast-text-to-image';

test('a prediction whose message was purged from RabbitMQ still completes once, charged once', async (t) => {
  const gw = await startGateway({ env: { PENDING_REPUBLISH_AFTER_MS: '1000' } });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const submit = await gw.server.inject({ method: 'POST', url: LOCAL_MODEL, headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'lost message', width: 64, height: 64 } });
  t.is(submit.statusCode, 200, submit.payload);
  const id = (submit.result as { request_id: string }).request_id;
  await waitFor(async () => (await gw.app.db('predictions').where({ id }).first()).status === 'pending', { what: 'the publish to be confirmed' });

  // The message is lost after the confirm (an operator purges the queue).
  const conn = await connect(AMQP_URL);
  t.teardown(() => conn.close().catch(() => {}));
  const ch = await conn.createChannel();
  const { messageCount } = await ch.purgeQueue(topologyNames(gw.app.config.amqpPrefix, 'predictions').queue);
  t.is(messageCount, 1);

  const runModel = createRunModel(gw.app);
  await gw.app.queue.consume('predictions', runModel.handle, { prefetch: 2 });
  // Sweeps until it is old enough to be republished (the sweeper does this every 5 s in a worker).
  await waitFor(async () => (await gw.app.dispatcher.sweep()) > 0, { what: 'the sweeper to republish the stranded prediction', timeoutMs: 20_000, intervalMs: 200 });
  const done = await waitFor(async () => {
    const row = await gw.app.db('predictions').where({ id }).first();
    return row.status === 'completed' || row.status === 'failed' ? row : undefined;
  }, { what: 'the prediction to finish', timeoutMs: 30_000 });
  t.is(done.status, 'completed', done.error ?? '');
  t.is(Number(done.attempts), 1);

  // A late duplicate of the message (the original reappearing, a second sweep) changes nothing.
  await gw.app.queue.publish('predictions', { id });
  t.deepEqual(await runModel.handle({ body: { id }, attempt: 0, redelivered: false }), { kind: 'ack' });
  t.is(await gw.app.dispatcher.sweep(), 0, 'nothing left to republish');
  await gw.app.queue.drain(10_000);
  const debits = await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' });
  t.is(debits.length, 1);
  const user = await gw.app.db('users').where({ id: acct.userId }).first();
  t.is(Number(user.held), 0);
  t.is(Number(user.balance), 10_000 - Number(done.price));
  t.is(Number((await gw.app.db('predictions').where({ id }).first()).attempts), 1);
});

test('a copy of the message for a running prediction is acknowledged unused; a redelivery or a retry copy takes it over', async (t) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const { newPredictionId } = await import('../../db/predictions/record.ts');
  const runModel = createRunModel(gw.app);
  const running = async (): Promise<string> => {
    const id = newPredictionId(Date.now());
    await gw.app.store.submit({ p: { id, userId: acct.userId, apiKeyId: null, model: 'canvas-v1-fast-text-to-image', input: { prompt: id, width: 64, height: 64 }, price: 100, webhookUrl: null }, now: Date.now() });
    // Claimed by a worker that is running it.
    await gw.app.db('predictions').where({ id }).update({ status: 'processing', attempts: 1 });
    return id;
  };
  const state = async (id: string) => {
    const row = await gw.app.db('predictions').where({ id }).first();
    return [row.status, Number(row.attempts), (await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' })).length];
  };

  const a = await running();
  t.deepEqual(await runModel.handle({ body: { id: a }, attempt: 0, redelivered: false }), { kind: 'ack' });
  t.deepEqual(await state(a), ['processing', 1, 0], 'a duplicate copy leaves the running prediction alone');
  // The broker redelivers only what a dead consumer held: that copy recovers the prediction.
  t.deepEqual(await runModel.handle({ body: { id: a }, attempt: 0, redelivered: true }), { kind: 'ack' });
  t.deepEqual(await state(a), ['completed', 2, 1]);

  // A retry copy is only published once the handler holding the row returned (e.g. it threw
  // before recording anything), so it takes the row over too.
  const b = await running();
  t.deepEqual(await runModel.handle({ body: { id: b }, attempt: 1, redelivered: false }), { kind: 'ack' });
  t.deepEqual(await state(b), ['completed', 2, 1]);

  const user = await gw.app.db('users').where({ id: acct.userId }).first();
  t.deepEqual([Number(user.balance), Number(user.held)], [10_000 - 200, 0]);
});
