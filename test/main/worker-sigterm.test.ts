// Item 8 of issue 16: a deploy (SIGTERM) never fails work. The worker stops consuming, waits
// SHUTDOWN_GRACE_MS for running predictions, then hands the rest back: the row goes back to
// `pending`, the message back to RabbitMQ, and another worker completes it, charged once.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { startUpstream } from '../helpers/upstream.ts';
import { spawnGateway } from '../helpers/processes.ts';

test('a worker sent SIGTERM mid-task hands the prediction back; another worker completes it, charged once', async (t) => {
  const upstream = await startUpstream();
  const gw = await startGateway({ env: { UPSTREAM_LUMEN_URL: upstream.url, UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true' } });
  t.teardown(async () => {
    await gw.stop();
    await upstream.close();
  });
  const workerEnv = { ...gw.env, ROLE: 'worker', LOG_LEVEL: 'info', SHUTDOWN_GRACE_MS: '200' };
  const acct = await newAccount(gw, 10_000);

  upstream.hold = true;
  const first = spawnGateway(workerEnv);
  t.teardown(() => first.kill());
  const submit = await gw.server.inject({ method: 'POST', url: '/api/v1/lumen-dev-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'deployed mid-task' } });
  t.is(submit.statusCode, 200, submit.payload);
  const id = (submit.result as { request_id: string }).request_id;

  await waitFor(() => upstream.calls === 1, { what: 'the first worker to call the upstream', timeoutMs: 30_000 });
  t.is((await gw.app.db('predictions').where({ id }).first()).status, 'processing');
  const code = await first.kill('SIGTERM');
  t.is(code, 0, first.output());
  t.regex(first.output(), /handed back at shutdown/);
  const handedBack = await gw.app.db('predictions').where({ id }).first();
  t.is(handedBack.status, 'pending', `not failed: ${handedBack.error}`);

  upstream.release();
  const second = spawnGateway({ ...workerEnv, LOG_LEVEL: 'warn' });
  t.teardown(() => second.kill('SIGTERM'));
  const done = await waitFor(async () => {
    const row = await gw.app.db('predictions').where({ id }).first();
    return row.status === 'completed' || row.status === 'failed' ? row : undefined;
  }, { what: 'the second worker to finish', timeoutMs: 30_000 });
  t.is(done.status, 'completed', `${done.error}\n${second.output()}`);
  t.is(upstream.calls, 2);

  const debits = await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' });
  t.is(debits.length, 1);
  const user = await gw.app.db('users').where({ id: acct.userId }).first();
  t.is(Number(user.held), 0);
  t.is(Number(user.balance), 10_000 - Number(done.price));
});

test('a worker sent SIGTERM lets a prediction that finishes within the grace period complete', async (t) => {
  const upstream = await startUpstream();
  const gw = await startGateway({ env: { UPSTREAM_LUMEN_URL: upstream.url, UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true' } });
  t.teardown(async () => {
    await gw.stop();
    await upstream.close();
  });
  const acct = await newAccount(gw, 10_000);
  upstream.hold = true;
  const worker = spawnGateway({ ...gw.env, ROLE: 'worker', LOG_LEVEL: 'info', SHUTDOWN_GRACE_MS: '60000' });
  t.teardown(() => worker.kill());
  const submit = await gw.server.inject({ method: 'POST', url: '/api/v1/lumen-dev-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'finishes in grace' } });
  const id = (submit.result as { request_id: string }).request_id;
  await waitFor(() => upstream.calls === 1, { what: 'the worker to call the upstream', timeoutMs: 30_000 });
  const exited = worker.kill('SIGTERM');
  // The worker is now draining; once it answers, the upstream lets the request through.
  await waitFor(() => worker.output().includes('shutting down'), { what: 'the worker to start shutting down' });
  upstream.release();
  t.is(await exited, 0, worker.output());
  const row = await gw.app.db('predictions').where({ id }).first();
  t.is(row.status, 'completed', row.error ?? '');
  t.is(upstream.calls, 1);
  t.is((await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' })).length, 1);
});
