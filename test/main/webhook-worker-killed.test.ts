// A worker killed in the middle of a delivery: the broker redelivers the message and another
// worker sends it again, with the same webhook-id.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { spawnGateway } from '../helpers/processes.ts';

test('a worker killed mid-delivery loses no delivery; the retry carries the same webhook-id', async (t) => {
  const gw = await startGateway({ env: { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_TIMEOUT_MS: '20000' } });
  const receiver = await startReceiver((n) => (n === 1 ? 'hang' : { status: 200 }));
  t.teardown(async () => {
    await receiver.close();
    await gw.stop();
  });
  const workerEnv = { ...gw.env, ROLE: 'worker', LOG_LEVEL: 'warn' };
  const acct = await newAccount(gw, 0);

  const first = spawnGateway(workerEnv);
  t.teardown(() => first.kill());
  const res = await gw.server.inject({ method: 'POST', url: `/api/v1/canvas-v1-fast-text-to-image?webhook=${encodeURIComponent(receiver.url)}`, headers: { 'x-api-key': acct.testKey }, payload: { prompt: 'x' } });
  t.is(res.statusCode, 200, res.payload);
  await waitFor(() => receiver.received.length === 1, { what: 'the first worker to start the delivery', timeoutMs: 30_000 });
  await first.kill('SIGKILL');

  const second = spawnGateway(workerEnv);
  t.teardown(() => second.kill('SIGTERM'));
  await waitFor(() => receiver.received.length === 2, { what: 'the second worker to deliver', timeoutMs: 30_000 });
  t.is(receiver.received[1]!.headers['webhook-id'], receiver.received[0]!.headers['webhook-id']);
  const delivery = await waitFor(async () => {
    const row = await gw.app.db('webhook_deliveries').first();
    return row?.status === 'delivered' ? row : undefined;
  }, { what: 'the delivery to be recorded' });
  t.is(Number(delivery.attempts), 1);
});
