// The broker restarted under load: no accepted request is lost and none is charged twice.
// Requests accepted while RabbitMQ is down stay `queued` in the database and the sweeper
// publishes them once it is back. The broker it restarts is a RabbitMQ node of this test's own
// (test/helpers/own-services.ts): the one other tests use is never touched.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { startOwnRabbit } from '../helpers/own-services.ts';

test('a broker restart under load loses no accepted request and charges each once', async (t) => {
  const rabbit = await startOwnRabbit();
  t.teardown(() => rabbit.stop());
  const gw = await startGateway({ worker: true, amqpUrl: rabbit.url, env: { DISPATCH_GRACE_MS: '500', WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '200,1000,4200', WEBHOOK_TIMEOUT_MS: '2000' } });
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  gw.app.dispatcher.start(250);
  t.teardown(async () => {
    await rabbit.startApp().catch(() => undefined);
    await gw.stop();
  });
  const acct = await newAccount(gw, 10_000_000);

  const total = 150;
  const statuses: number[] = [];
  const ids: string[] = [];
  let next = 0;
  let restart: Promise<void> | null = null;
  let healthDuringOutage: { statusCode: number; result: unknown } | undefined;
  const submitter = async () => {
    while (next < total) {
      const n = next++;
      if (n === 40) {
        restart = (async () => {
          await rabbit.stopApp();
          healthDuringOutage = await waitFor(async () => {
            const res = await gw.server.inject({ method: 'GET', url: '/health' });
            return res.statusCode === 503 ? res : undefined;
          }, { what: '/health to report the queue down', timeoutMs: 10_000 });
          await new Promise((r) => setTimeout(r, 1000));
          await rabbit.startApp();
        })();
      }
      const res = await gw.server.inject({
        method: 'POST', url: `/api/v1/canvas-v1-fast-text-to-image?webhook=${encodeURIComponent(receiver.url)}`, headers: { 'x-api-key': acct.liveKey }, payload: { prompt: `load ${n}`, width: 64, height: 64 },
      });
      statuses.push(res.statusCode);
      if (res.statusCode === 200) ids.push((res.result as { request_id: string }).request_id);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  await Promise.all(Array.from({ length: 4 }, submitter));
  await restart;

  t.deepEqual(healthDuringOutage?.result, { status: 'unavailable', database: 'ok', queue: 'unreachable', detail: 'queue unreachable' });
  const healthAfter = await waitFor(async () => {
    const res = await gw.server.inject({ method: 'GET', url: '/health' });
    return res.statusCode === 200 ? res : undefined;
  }, { what: '/health to recover', timeoutMs: 30_000 });
  t.is(healthAfter.statusCode, 200);
  t.true(statuses.every((s) => s === 200 || s === 503), `unexpected statuses: ${[...new Set(statuses)].join(', ')}`);
  t.true(ids.length >= total - 10, `only ${ids.length} of ${total} accepted`);
  const queuedDuringOutage = await gw.app.db('predictions').whereIn('id', ids).andWhere('attempts', '>', 0).count<{ n: number }[]>({ n: '*' });
  t.log(`accepted ${ids.length}/${total}; already started when the load ended: ${queuedDuringOutage[0]!.n}`);

  await waitFor(async () => {
    const [row] = await gw.app.db('predictions').whereIn('id', ids).andWhere('status', 'completed').count<{ n: number }[]>({ n: '*' });
    return Number(row?.n) === ids.length;
  }, { what: 'every accepted request to complete after the restart', timeoutMs: 90_000, intervalMs: 250 });

  // Every webhook delivery arrives too (duplicates allowed: same webhook-id).
  await waitFor(() => new Set(receiver.received.map((r) => (JSON.parse(r.body) as { id: string }).id)).size === ids.length,
    { what: 'a webhook for every prediction', timeoutMs: 60_000, intervalMs: 250 });
  const byPrediction = new Map<string, Set<string>>();
  for (const r of receiver.received) {
    const pid = (JSON.parse(r.body) as { id: string }).id;
    byPrediction.set(pid, (byPrediction.get(pid) ?? new Set()).add(String(r.headers['webhook-id'])));
  }
  t.true([...byPrediction.values()].every((set) => set.size === 1), 'one webhook-id per prediction');
  t.log(`webhook requests: ${receiver.received.length} for ${ids.length} predictions`);

  const debits = await gw.app.db('credit_transactions').whereIn('prediction_id', ids).where('kind', 'prediction');
  t.is(debits.length, ids.length);
  t.is(new Set(debits.map((d: { prediction_id: string }) => d.prediction_id)).size, ids.length);
  const prices = await gw.app.db('predictions').whereIn('id', ids).sum<{ s: number }[]>({ s: 'price' });
  const user = await gw.app.db('users').where({ id: acct.userId }).first();
  t.is(Number(user.held), 0);
  t.is(Number(user.balance), 10_000_000 - Number(prices[0]!.s));
});
