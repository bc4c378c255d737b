// The last attempt of a prediction whose handler throws (the database failing the write that
// would have failed the prediction) is dead-lettered by the queue. The prediction must not be
// left `processing` for ever with its hold kept: the worker fails it and releases the hold.
// The provider is third-party HTTP: nock.
import test from 'ava';
import nock from 'nock';
import { onlyLocalNetwork } from '../helpers/adapters.ts';
import { finishedRow, newAccount, startGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';

const UPSTREAM = 'https://lumen.last-attempt.test';

onlyLocalNetwork(test);

for (const queue of ['memory', 'amqp'] as const) test.serial(`${queue}: a last attempt whose failure could not be written the first time still fails the prediction and releases its hold, once`, async (t) => {
  const gw = await startGateway({ worker: true, queue, env: { UPSTREAM_LUMEN_URL: UPSTREAM, UPSTREAM_LUMEN_KEY: 'sk-last-attempt', RETRY_DELAYS_MS: '20,40,60' } });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 100_000);
  nock(UPSTREAM).persist().post(/\/v1\/models\/.*\/predictions/).reply(503, { error: 'overloaded' });
  // the first write of a failure hits a dropped connection; the next one goes through
  const store = gw.app.store;
  const realFail = store.fail.bind(store);
  let blips = 0;
  store.fail = async (...args: Parameters<typeof store.fail>) => {
    if (blips++ === 0) throw new Error('Connection lost: The server closed the connection.');
    return realFail(...args);
  };
  t.teardown(() => { store.fail = realFail; });
  const res = await gw.server.inject({ method: 'POST', url: '/api/v1/lumen-dev-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'x' } });
  t.is(res.statusCode, 200, res.payload);
  const id = (res.result as { request_id: string }).request_id;
  await waitFor(async () => (await gw.app.queue.deadLetterCount('predictions')) === 1, { what: 'the dead-lettered message' });
  const row = await finishedRow(gw, id);
  t.is(row.status, 'failed');
  const user = await gw.app.db('users').where({ id: acct.userId }).first();
  t.deepEqual([Number(user.balance), Number(user.held)], [100_000, 0], 'the hold is released, nothing charged');
  t.is((await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'release' })).length, 1, 'released once');
  t.is((await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' })).length, 0);
});
