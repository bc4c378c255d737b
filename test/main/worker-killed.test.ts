// A worker process killed mid-task: RabbitMQ redelivers the unacknowledged message, another
// worker finishes the prediction, and the account is charged exactly once.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { startUpstream } from '../helpers/upstream.ts';
import { spawnGateway } from '../helpers/processes.ts';

test('a worker killed mid-task leaves the prediction to another worker, charged once', async (t) => {
  const upstream = await startUpstream();
  const gw = await startGateway({ env: { UPSTREAM_LUMEN_URL: upstream.url, UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true' } });
  t.teardown(async () => {
    await gw.stop();
    await upstream.close();
  });
  const workerEnv = { ...gw.env, ROLE: 'worker', LOG_LEVEL: 'warn' };
  const acct = await newAccount(gw, 10_000);

  upstream.hold = true;
  const first = spawnGateway(workerEnv);
  t.teardown(() => first.kill());
  const submit = await gw.server.inject({ method: 'POST', url: '/api/v1/lumen-dev-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'killed mid-task' } });
  t.is(submit.statusCode, 200, submit.payload);
  const id = (submit.result as { request_id: string }).request_id;

  await waitFor(() => upstream.calls === 1, { what: 'the first worker to call the upstream', timeoutMs: 30_000 });
  const during = await gw.app.db('predictions').where({ id }).first();
  t.is(during.status, 'processing');
  await first.kill('SIGKILL');

  upstream.release();
  const second = spawnGateway(workerEnv);
  t.teardown(() => second.kill('SIGTERM'));
  const done = await waitFor(async () => {
    const row = await gw.app.db('predictions').where({ id }).first();
    return row.status === 'completed' || row.status === 'failed' ? row : undefined;
  }, { what: 'the second worker to finish', timeoutMs: 30_000 });
  t.is(done.status, 'completed', `${done.error}\n${second.output()}`);
  t.is(upstream.calls, 2);
  t.is(Number(done.attempts), 2);

  const debits = await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' });
  t.is(debits.length, 1);
  const user = await gw.app.db('users').where({ id: acct.userId }).first();
  t.is(Number(user.held), 0);
  t.is(Number(user.balance), 10_000 - Number(done.price));
});
