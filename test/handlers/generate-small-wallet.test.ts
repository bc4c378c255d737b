// Concurrent submits against a small wallet: exactly as many are accepted as the credit
// covers, the balance never goes negative, and completion debits each accepted one once.
import test from 'ava';
import { raceSubmits } from '../helpers/race.ts';
import { assertLedger } from '../helpers/ledger.ts';
import { startGateway, newAccount } from '../helpers/gateway.ts';

test('concurrent submits never overdraw a small wallet', async (t) => {
  const gw = await startGateway({ worker: true });
  t.teardown(() => gw.stop());
  // canvas-v1-fast-text-to-image at one 64x64 image: price is fixed by the spec
  const probe = await newAccount(gw, 1_000_000);
  const one = await gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { 'x-api-key': probe.liveKey }, payload: { prompt: 'p', width: 64, height: 64 } });
  const price = Number((await gw.app.db('predictions').where({ id: (one.result as { request_id: string }).request_id }).first()).price);
  t.true(price > 0);

  const affordable = 7;
  const acct = await newAccount(gw, price * affordable + price - 1);
  const attempts = 60;
  const { statuses } = await raceSubmits(gw, { url: '/api/v1/canvas-v1-fast-text-to-image', key: acct.liveKey, payload: { prompt: 'race', width: 64, height: 64 }, attempts });
  t.is(statuses.filter((s) => s === 200).length, affordable);
  t.is(statuses.filter((s) => s === 402).length, attempts - affordable);
  const user = await gw.app.db('users').where({ id: acct.userId }).first();
  t.is(Number(user.balance), price - 1);
  t.is(Number(user.held), 0);
  const debits = await gw.app.db('credit_transactions').where({ user_id: acct.userId, kind: 'prediction' });
  t.is(debits.length, affordable);
  t.true(debits.every((d: { amount: number | string }) => Number(d.amount) === -price));
  await assertLedger(t, gw.app.db);
});
