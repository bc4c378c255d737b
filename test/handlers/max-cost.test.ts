// Max-Cost on model submits (header, and the `max_cost` query parameter): a price above it is 402
// max_cost_exceeded with the price, and nothing is held or recorded; on MariaDB and on SQLite.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';

const MODEL = 'canvas-v1-fast-text-to-image';
const BODY = { prompt: 'a lighthouse', width: 64, height: 64 };

const gateways: Record<'mysql' | 'sqlite', TestGateway | undefined> = { mysql: undefined, sqlite: undefined };
test.before(async () => {
  gateways.mysql = await startGateway();
  gateways.sqlite = await startGateway({ db: 'sqlite', queue: 'memory' });
});
test.after.always(async () => {
  await gateways.mysql?.stop();
  await gateways.sqlite?.stop();
});

for (const engine of ['mysql', 'sqlite'] as const) {
  test(`${engine}: a price above Max-Cost is 402 with the price and holds nothing; at the price it is accepted`, async (t) => {
    const gw = gateways[engine]!;
    const acct = await newAccount(gw, 10_000);
    const quote = await callOperation<{ cost: number }>(gw, 'calculateDynamicCost', { as: acct.liveKey, body: { model: MODEL, input: BODY } });
    t.is(quote.status, 200, quote.raw.payload);
    const price = quote.body.cost;
    t.true(price > 0);

    const viaHeader = await callOperation<{ code: string; detail: string }>(gw, MODEL, { as: acct.liveKey, body: BODY, headers: { 'max-cost': String(price - 1) } });
    t.is(viaHeader.status, 402);
    t.is(viaHeader.body.code, 'max_cost_exceeded');
    t.true(viaHeader.body.detail.includes(`${price} credits`), viaHeader.body.detail);
    t.is(viaHeader.headers['x-cost'], String(price));
    const viaQuery = await callOperation<{ code: string }>(gw, MODEL, { as: acct.liveKey, body: BODY, query: { max_cost: 0 } });
    t.is(viaQuery.status, 402);
    t.is(viaQuery.body.code, 'max_cost_exceeded');
    // both sent: the lower applies
    const both = await callOperation<{ code: string }>(gw, MODEL, { as: acct.liveKey, body: BODY, query: { max_cost: price }, headers: { 'max-cost': String(price - 1) } });
    t.is(both.status, 402);

    const balance = await callOperation<{ balance: number; held: number }>(gw, 'getBalance', { as: acct.liveKey });
    t.deepEqual([balance.body.balance, balance.body.held], [10_000, 0]);
    t.is((await gw.app.db('predictions').where({ user_id: acct.userId })).length, 0);
    t.is((await gw.app.db('credit_transactions').where({ user_id: acct.userId, kind: 'hold' })).length, 0);

    const atPrice = await callOperation<{ price: number }>(gw, MODEL, { as: acct.liveKey, body: BODY, headers: { 'max-cost': String(price) } });
    t.is(atPrice.status, 200, atPrice.raw.payload);
    t.is(atPrice.body.price, price);
    const viaQueryOk = await callOperation(gw, MODEL, { as: acct.liveKey, body: BODY, query: { max_cost: price + 100 } });
    t.is(viaQueryOk.status, 200, viaQueryOk.raw.payload);
  });

  test(`${engine}: a Max-Cost that is not a whole number of credits is 422; a sandbox key is never refused by it`, async (t) => {
    const gw = gateways[engine]!;
    const acct = await newAccount(gw, 0);
    for (const bad of ['abc', '-1', '1.5']) {
      const r = await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': acct.liveKey, 'max-cost': bad }, payload: BODY });
      t.is(r.statusCode, 422, `${bad}: ${r.payload}`);
    }
    const q = await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}?max_cost=-3`, headers: { 'x-api-key': acct.liveKey }, payload: BODY });
    t.is(q.statusCode, 422);
    const sandbox = await callOperation(gw, MODEL, { as: acct.testKey, body: BODY, headers: { 'max-cost': '0' } });
    t.is(sandbox.status, 200, sandbox.raw.payload);
  });
}
