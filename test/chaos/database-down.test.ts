// MariaDB stopped under a running gateway: requests get 503 with a JSON detail (never a 500
// or a hang), /health names the database, and everything works again once it is back. The server
// it stops is a MariaDB of this test's own (test/helpers/own-services.ts): the one other tests use
// is never touched.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { startOwnMariadb } from '../helpers/own-services.ts';

test('with the database down, requests answer 503 and health names the database', async (t) => {
  const mariadb = await startOwnMariadb();
  t.teardown(() => mariadb.stop());
  const gw = await startGateway({ worker: true, mysqlRootUrl: mariadb.rootUrl });
  let down = false;
  t.teardown(async () => {
    if (down) await mariadb.start();
    await gw.stop();
  });
  const acct = await newAccount(gw, 10_000);

  // resolves once the server process has exited
  await mariadb.shutdown();
  down = true;

  const health = await gw.server.inject({ method: 'GET', url: '/health' });
  t.is(health.statusCode, 503);
  t.deepEqual(health.result, { status: 'unavailable', database: 'unreachable', queue: 'ok', detail: 'database unreachable' });

  const submit = await gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'x' } });
  t.is(submit.statusCode, 503, submit.payload);
  t.is(typeof (submit.result as { detail: unknown }).detail, 'string');

  await mariadb.start();
  down = false;
  const ok = await waitFor(async () => {
    const res = await gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'y', width: 64, height: 64 } });
    return res.statusCode === 200 ? res : undefined;
  }, { what: 'submits to work again', timeoutMs: 30_000, intervalMs: 250 });
  const id = (ok.result as { request_id: string }).request_id;
  const done = await waitFor(async () => {
    const row = await gw.app.db('predictions').where({ id }).first();
    return row?.status === 'completed' ? row : undefined;
  }, { what: 'the prediction to complete', timeoutMs: 30_000 });
  t.is(done.status, 'completed');
  t.is((await gw.server.inject({ method: 'GET', url: '/health' })).statusCode, 200);
});
