// Completions through the worker (workers/run-model.ts and the store's completion groups, README
// "No request lost, none charged twice"): parallel production predictions complete in groups and
// are each charged once, a redelivered message of a completed one charges nothing, and two workers
// grouping completions of one wallet while submits and a cancel race them stay exact. The store's
// own behaviour on every engine is the contract's (test/db/store-contract.ts).
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { assertLedger } from '../helpers/ledger.ts';
import { waitFor } from '../helpers/services.ts';
import { newPredictionId } from '../../db/predictions/record.ts';
import { openStore } from '../../db/store/index.ts';
import { createRunModel } from '../../workers/run-model.ts';
import { assertRowsInSequence, claimed, completion, MODEL, secondMysqlDb } from '../db/store-contract.ts';

test('through the worker: parallel production predictions of one wallet complete, each charged once, and a redelivered message of a completed one charges nothing', async (t) => {
  const gw = await startGateway({ worker: true });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 100_000);
  const body = { prompt: 'a lighthouse', width: 64, height: 64, num_inference_steps: 1 };
  const ids = await Promise.all(Array.from({ length: 24 }, async () => {
    const r = await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': acct.liveKey }, payload: body });
    t.is(r.statusCode, 200, r.payload);
    return (JSON.parse(r.payload) as { request_id: string }).request_id;
  }));
  await waitFor(async () => {
    const n = await gw.app.db('predictions').whereIn('id', ids).andWhere('status', 'completed').count({ n: '*' }).first();
    return Number(n?.n) === ids.length;
  }, { what: 'every prediction completed', timeoutMs: 60_000 });
  const price = Number((await gw.app.db('predictions').where({ id: ids[0] }).first('price')).price);
  t.true(price > 0);
  const expect = [100_000 - 24 * price, 0];
  const wallet = async () => {
    const u = await gw.app.db('users').where({ id: acct.userId }).first('balance', 'held');
    return [Number(u.balance), Number(u.held)];
  };
  t.deepEqual(await wallet(), expect);
  // the broker hands a completed prediction's message again (its worker died before the ack)
  const outcome = await createRunModel(gw.app).handle({ body: { id: ids[0]! }, attempt: 0, redelivered: true });
  t.deepEqual(outcome, { kind: 'ack' });
  t.deepEqual(await wallet(), expect);
  t.is((await gw.app.db('credit_transactions').where({ prediction_id: ids[0], kind: 'prediction' })).length, 1);
  await assertRowsInSequence(t, gw.app.db, { userId: acct.userId, teamId: null });
  await assertLedger(t, gw.app.db);
});

test('through the worker: parallel production predictions of three wallets complete, each charged once on its own wallet, every wallet\'s rows in sequence', async (t) => {
  const gw = await startGateway({ worker: true });
  t.teardown(() => gw.stop());
  const accts = [await newAccount(gw, 100_000), await newAccount(gw, 100_000), await newAccount(gw, 100_000)];
  const body = { prompt: 'a lighthouse', width: 64, height: 64, num_inference_steps: 1 };
  const ids = await Promise.all(Array.from({ length: 30 }, async (_, i) => {
    const r = await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': accts[i % 3]!.liveKey }, payload: body });
    t.is(r.statusCode, 200, r.payload);
    return (JSON.parse(r.payload) as { request_id: string }).request_id;
  }));
  await waitFor(async () => {
    const n = await gw.app.db('predictions').whereIn('id', ids).andWhere('status', 'completed').count({ n: '*' }).first();
    return Number(n?.n) === ids.length;
  }, { what: 'every prediction completed', timeoutMs: 60_000 });
  const price = Number((await gw.app.db('predictions').where({ id: ids[0] }).first('price')).price);
  for (const a of accts) {
    const u = await gw.app.db('users').where({ id: a.userId }).first('balance', 'held');
    t.deepEqual([Number(u.balance), Number(u.held)], [100_000 - 10 * price, 0]);
    t.is((await assertRowsInSequence(t, gw.app.db, { userId: a.userId, teamId: null })).filter((r) => r.kind === 'prediction').length, 10);
  }
  await assertLedger(t, gw.app.db);
});

test('two workers grouping completions of one wallet while submits hold on it and a cancel races them: each completed one charged once, the cancelled one released', async (t) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  const other = secondMysqlDb(gw);
  t.teardown(() => other.destroy());
  const stores = [gw.app.store, await openStore(other)];
  const acct = await newAccount(gw, 100_000);
  const ps = await claimed(gw, acct.userId, 40);
  const cancelled = ps[17]!.id;
  const results = await Promise.all([
    ...ps.map((p, i) => stores[i % 2]!.complete(completion(p, i))),
    gw.app.store.cancel({ userId: acct.userId, teamId: null }, cancelled, Date.now()),
    ...Array.from({ length: 10 }, () => gw.app.store.submit({ p: {
      id: newPredictionId(Date.now()), userId: acct.userId, apiKeyId: null, model: MODEL, input: { prompt: 'q' }, price: 50, webhookUrl: null,
    }, now: Date.now() })),
  ]);
  const finished = results.slice(0, 40) as Array<{ recorded: boolean }>;
  const cancel = results[40];
  const completedHere = finished.filter((f) => f.recorded).length;
  // the cancel either came first (not charged, released) or found it completed (409 in the API)
  t.is(completedHere, cancel === 'cancelled' ? 39 : 40);
  const charged = await gw.app.db('credit_transactions').where({ user_id: acct.userId, kind: 'prediction' }).count({ n: '*' }).first();
  t.is(Number(charged?.n), completedHere);
  const user = await gw.app.db('users').where({ id: acct.userId }).first('balance', 'held');
  t.deepEqual([Number(user.balance), Number(user.held)], [100_000 - completedHere * 50 - 10 * 50, 10 * 50]);
  await assertRowsInSequence(t, gw.app.db, { userId: acct.userId, teamId: null });
  await assertLedger(t, gw.app.db);
});
