// Copies of one webhook delivery's message: the sweeper's republished copy of a delivery whose
// message is only late, a broker's redelivery, a 429's Retry-After that the delay queues round up.
// Whatever the copies, a delivery makes one attempt per due time and keeps one retry chain. The
// app's clock is fixed and moved by the test; the consumer is called directly, as the transport
// would deliver each copy.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { startReceiver } from '../helpers/receiver.ts';
import type { Receiver } from '../helpers/receiver.ts';
import { createRunModel } from '../../workers/run-model.ts';
import { createDeliverWebhook } from '../../workers/deliver-webhook.ts';
import { topics } from '../../app.ts';
import { pickRetryDelay } from '../../workers/queue/topics.ts';
import { findStalledDeliveries, touchDelivery } from '../../db/webhooks.ts';

const MINUTE = 60_000;
let now = Date.UTC(2026, 10, 29, 6, 0, 0);
let gw: TestGateway;
let acct: Account;

test.before(async () => {
  gw = await startGateway({ queue: 'memory', clock: () => now, env: { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_TIMEOUT_MS: '1000' } });
  const runModel = createRunModel(gw.app);
  // only predictions are consumed: the test plays the webhooks transport itself
  await gw.app.queue.consume('predictions', runModel.handle, { prefetch: 1 });
  acct = await newAccount(gw, 1000);
});
test.after.always(async () => {
  await gw?.stop();
});

/** A sandbox prediction with a webhook to `receiver`, and its delivery's id once the row is there. */
async function deliveryTo(receiver: Receiver): Promise<string> {
  const res = await gw.server.inject({ method: 'POST', url: `/api/v1/canvas-v1-fast-text-to-image?webhook=${encodeURIComponent(receiver.url)}`, headers: { 'x-api-key': acct.testKey }, payload: { prompt: 'copies', width: 64, height: 64 } });
  if (res.statusCode !== 200) throw new Error(res.payload);
  const id = (res.result as { request_id: string }).request_id;
  const row = await waitFor(() => gw.app.db('webhook_deliveries').where({ prediction_id: id }).first(), { what: 'the delivery row' });
  return String(row.id);
}

const handle = () => createDeliverWebhook(gw.app, gw.app.encryptionKey, { random: () => 0.5 }).handle;

test.serial('a Retry-After is waited out in the delay queue the retry really takes, so the sweeper never republishes it meanwhile', async (t) => {
  const receiver = await startReceiver(() => ({ status: 429, headers: { 'retry-after': '120' } }));
  t.teardown(() => receiver.close());
  const id = await deliveryTo(receiver);
  const outcome = await handle()({ body: { id }, attempt: 0, redelivered: false });
  t.is(outcome.kind, 'retry');
  if (outcome.kind !== 'retry') return;
  t.true(outcome.delayMs >= 2 * MINUTE, `${outcome.delayMs} ms`);
  // the recorded due time is when the transport hands the retry back, not earlier
  const webhooks = topics(gw.app.config).find((x) => x.name === 'webhooks')!;
  const waits = pickRetryDelay(webhooks.retryDelaysMs, outcome.delayMs)!;
  t.is(waits, outcome.delayMs);
  const row = await gw.app.db('webhook_deliveries').where({ id }).first();
  t.is(Number(row.next_attempt_at), now + waits);
  // up to the moment the retry comes back, the sweeper takes it for a message still on its way
  now += waits - 1;
  t.is(await gw.app.dispatcher.sweep(), 0);
  now += 1;
});

test.serial('a copy of a delivery that comes after its attempt was made sends nothing until the retry is due; then one attempt goes', async (t) => {
  const receiver = await startReceiver(() => ({ status: 503 }));
  t.teardown(() => receiver.close());
  const id = await deliveryTo(receiver);
  const first = await handle()({ body: { id }, attempt: 0, redelivered: false });
  t.is(first.kind, 'retry');
  if (first.kind !== 'retry') return;
  t.is(receiver.received.length, 1);
  // the sweeper's copy of a message that was only late, consumed after the original
  const copy = await handle()({ body: { id }, attempt: 0, redelivered: false });
  t.is(copy.kind, 'ack');
  t.is(receiver.received.length, 1);
  let row = await gw.app.db('webhook_deliveries').where({ id }).first();
  t.is(Number(row.attempts), 1);
  t.is(row.status, 'pending');
  // the retry the first attempt asked for still goes when it is due
  now += first.delayMs;
  const retry = await handle()({ body: { id }, attempt: 1, redelivered: false });
  t.is(retry.kind, 'retry');
  t.is(receiver.received.length, 2);
  row = await gw.app.db('webhook_deliveries').where({ id }).first();
  t.is(Number(row.attempts), 2);
  t.is((await gw.app.db('webhook_attempts').where({ delivery_id: id })).length, 2);
});

test.serial('two copies of a delivery sent at once leave one retry chain: the second to finish schedules nothing', async (t) => {
  // both attempts are under way before either is answered
  const receiver = await startReceiver(() => 'hang');
  t.teardown(() => receiver.close());
  const id = await deliveryTo(receiver);
  const h = handle();
  const outcomes = await Promise.all([
    h({ body: { id }, attempt: 0, redelivered: false }),
    h({ body: { id }, attempt: 0, redelivered: false }),
  ]);
  t.deepEqual(outcomes.map((o) => o.kind).sort(), ['ack', 'retry']);
  const row = await gw.app.db('webhook_deliveries').where({ id }).first();
  t.is(Number(row.attempts), 1);
  t.is(row.status, 'pending');
  t.is((await gw.app.db('webhook_attempts').where({ delivery_id: id })).length, 1);
});

test.serial('a copy the broker redelivers after a worker died mid-send is sent again at once, as the same attempt', async (t) => {
  const receiver = await startReceiver(() => ({ status: 200 }));
  t.teardown(() => receiver.close());
  const id = await deliveryTo(receiver);
  // the worker that held the message died before recording anything: the row is as it was
  const outcome = await handle()({ body: { id }, attempt: 0, redelivered: true });
  t.is(outcome.kind, 'ack');
  t.is(receiver.received.length, 1);
  const row = await gw.app.db('webhook_deliveries').where({ id }).first();
  t.is(row.status, 'delivered');
  t.is(Number(row.attempts), 1);
});

test.serial('the sweeper\'s touch leaves alone a delivery whose attempt was recorded after the sweeper found it overdue', async (t) => {
  const receiver = await startReceiver(() => ({ status: 503 }));
  t.teardown(() => receiver.close());
  const id = await deliveryTo(receiver);
  now += 10 * MINUTE;
  const dueBefore = now - MINUTE;
  t.true((await findStalledDeliveries(gw.app.db, dueBefore, 500)).some((d) => d.id === id));
  // meanwhile the late message is consumed: the attempt is made and its retry scheduled
  const outcome = await handle()({ body: { id }, attempt: 0, redelivered: false });
  t.is(outcome.kind, 'retry');
  if (outcome.kind !== 'retry') return;
  await touchDelivery(gw.app.db, id, now, dueBefore);
  const row = await gw.app.db('webhook_deliveries').where({ id }).first();
  t.is(Number(row.next_attempt_at), now + outcome.delayMs);
});
