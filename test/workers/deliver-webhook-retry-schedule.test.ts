// The retry schedule of a failing webhook delivery, with the app's clock fixed and moved by the
// test and the jitter drawn by the test: the consumer is called directly, one attempt per
// message, as the transport would deliver the retries; nothing sleeps.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { createRunModel } from '../../workers/run-model.ts';
import { createDeliverWebhook } from '../../workers/deliver-webhook.ts';
import { topics } from '../../app.ts';
import { pickRetryDelay } from '../../workers/queue/topics.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

test('a receiver down for hours gets retries 1 min, 15 min and 4 h after the first failure, then the delivery is dead', async (t) => {
  let now = Date.UTC(2026, 10, 29, 6, 0, 0);
  const gw = await startGateway({ queue: 'memory', clock: () => now, env: { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_TIMEOUT_MS: '2000' } });
  t.teardown(() => gw.stop());
  const receiver = await startReceiver(() => ({ status: 503 }));
  t.teardown(() => receiver.close());
  const runModel = createRunModel(gw.app);
  t.teardown(() => runModel.abortAll());
  // only predictions are consumed: the test plays the webhooks transport itself
  await gw.app.queue.consume('predictions', runModel.handle, { prefetch: 1 });
  const acct = await newAccount(gw, 1000);

  const res = await gw.server.inject({ method: 'POST', url: `/api/v1/canvas-v1-fast-text-to-image?webhook=${encodeURIComponent(receiver.url)}`, headers: { 'x-api-key': acct.testKey }, payload: { prompt: 'down for a deploy', width: 64, height: 64 } });
  t.is(res.statusCode, 200);
  const id = (res.result as { request_id: string }).request_id;
  const delivery = await waitFor(() => gw.app.db('webhook_deliveries').where({ prediction_id: id }).first(), { what: 'the delivery row' });

  const handle = createDeliverWebhook(gw.app, gw.app.encryptionKey, { random: () => 0.5 }).handle;
  const webhooks = topics(gw.app.config).find((x) => x.name === 'webhooks')!;
  const firstFailure = now;
  const dueTimes: number[] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    const outcome = await handle({ body: { id: delivery.id }, attempt, redelivered: false });
    t.is(outcome.kind, 'retry');
    if (outcome.kind !== 'retry') return;
    // the delay queue the transport picks waits exactly this long
    t.is(pickRetryDelay(webhooks.retryDelaysMs, outcome.delayMs), outcome.delayMs);
    const row = await gw.app.db('webhook_deliveries').where({ id: delivery.id }).first();
    t.is(row.status, 'pending');
    t.is(Number(row.next_attempt_at), now + outcome.delayMs);
    now += outcome.delayMs;
    dueTimes.push(now - firstFailure);
  }
  t.deepEqual(dueTimes, [MINUTE, 15 * MINUTE, 4 * HOUR]);
  const last = await handle({ body: { id: delivery.id }, attempt: 3, redelivered: false });
  t.is(last.kind, 'dead-letter');
  t.is(receiver.received.length, 4);
  // one webhook-id, and each attempt signed with its own time
  t.is(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size, 1);
  t.deepEqual(receiver.received.map((r) => Number(r.headers['webhook-timestamp']) * 1000 - firstFailure), [0, MINUTE, 15 * MINUTE, 4 * HOUR]);
  const row = await gw.app.db('webhook_deliveries').where({ id: delivery.id }).first();
  t.is(row.status, 'dead');
  t.is(Number(row.attempts), 4);
  const attempts = await gw.app.db('webhook_attempts').where({ delivery_id: delivery.id }).orderBy('number');
  t.deepEqual(attempts.map((a: { started_at: number | string }) => Number(a.started_at) - firstFailure), [0, MINUTE, 15 * MINUTE, 4 * HOUR]);
});

test('every jittered wait of the default schedule has a delay queue, up to 4.5 hours', async (t) => {
  const gwConfig = (await import('../../config.ts')).loadConfig({});
  const webhooks = topics(gwConfig).find((x) => x.name === 'webhooks')!;
  for (const d of [48_000, 72_000, 672_000, 1_008_000, 10_800_000, 16_200_000]) t.true(webhooks.retryDelaysMs.includes(d), `${d} ms`);
  t.is(webhooks.maxRetries, 3);
});
