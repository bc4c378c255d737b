// What only the MariaDB engine shows (db/store/mariadb.ts): its units of work as programs (one
// statement holding the transaction: the submit hold-first, the claim batch, the completion
// group), its ticket (a first claim takes its row without reading it), and each program's
// fallback to the portable path. These tests watch the statements the engine sends, since sending
// fewer is the point; the behaviours every engine shares are the contract's (store-contract.ts).
import test from 'ava';
import type { ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { assertLedger } from '../helpers/ledger.ts';
import { openStore } from '../../db/store/index.ts';
import type { ConcurrencyLimits, Store } from '../../db/store/types.ts';
import { findPredictionById, newPredictionId } from '../../db/predictions/record.ts';
import type { NewPrediction } from '../../db/predictions/record.ts';
import { holdFor } from '../../db/wallet/moves.ts';
import { addGrants, answer, assertRowsInSequence, claimed, completion, keyIds, MODEL, request, secondMysqlDb, teamOf, wallet, walletHolds } from './store-contract.ts';

const gatewayFor = async (t: ExecutionContext) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  return gw;
};
const personal = (userId: number) => ({ userId, teamId: null });

/** Every statement `db` is sent from now on, with what a program answered (its mg_outcome) when it is one. */
function watch(db: Knex): Array<{ sql: string; bindings: unknown[]; outcome?: string }> {
  const seen: Array<{ sql: string; bindings: unknown[]; outcome?: string }> = [];
  db.on('query', (q: { sql: string; bindings?: unknown[]; __knexQueryUid?: string }) => { seen.push({ sql: q.sql, bindings: q.bindings ?? [] }); });
  db.on('query-response', (response: unknown, q: { sql: string }) => {
    if (!/^begin not atomic/.test(q.sql)) return;
    const found = /"mg_outcome":"([^"]+)"/.exec(JSON.stringify(response));
    const entry = [...seen].reverse().find((s) => s.sql === q.sql && s.outcome === undefined);
    if (entry && found) entry.outcome = found[1]!;
  });
  return seen;
}

const isProgram = (sql: string, kind: RegExp) => /^begin not atomic/.test(sql) && kind.test(sql);
const HOLD_FIRST = /@mg_b0 :=[\s\S]*returning balance_after/;
const CLAIM_BATCH = /set status = 'processing'[\s\S]*not every row claimed/;
const COMPLETE_GROUP = /set status = 'completed'[\s\S]*insert into `credit_transactions`/;

/** A hold and its prediction row written in `trx` and not committed: another process's submit holding the wallet's lock. */
async function heldIn(trx: Knex.Transaction, p: NewPrediction): Promise<void> {
  await holdFor(trx, { userId: p.userId, teamId: null }, p.price, { predictionId: p.id, model: p.model, now: Date.now() });
  await trx('predictions').insert({ id: p.id, user_id: p.userId, api_key_id: p.apiKeyId, model: p.model, status: 'queued', is_test: false, input: '{}', price: p.price, webhook_url: null, created_at: Date.now(), updated_at: Date.now() });
}

// ============================================================
// The ticket
// ============================================================

test('a first claim with its ticket takes the row in one statement, for multi-byte, trailing-space, empty, null and negative values; a large input carries no ticket', async (t) => {
  const gw = await gatewayFor(t);
  const acct = await newAccount(gw, 10_000);
  const p: NewPrediction = {
    id: newPredictionId(Date.now()), userId: acct.userId, apiKeyId: null, model: MODEL, input: { prompt: 'h\u00e9 \u20ac \u{1F600} \u4e2d ', n: -3, empty: '' }, price: 50, listPrice: 60, discountPercent: null,
    webhookUrl: 'https://example.com/h\u00e9?q= ', httpRequestId: null, embedVisitor: '', studioMarkup: 0,
  };
  const outcome = await gw.app.store.submit({ p, now: Date.now() });
  if (!outcome.accepted) throw new Error('refused');
  t.truthy(outcome.ticket);
  const sent = watch(gw.app.db);
  const claim = await gw.app.store.claim({ id: p.id, now: Date.now(), takeOver: false, ticket: JSON.parse(JSON.stringify(outcome.ticket)) });
  t.is(sent.length, 1, 'the UPDATE alone: the row as the ticket carried it');
  t.deepEqual(claim, await findPredictionById(gw.app.db, p.id));
  t.false('claim_digest' in (await gw.app.db('predictions').where({ id: p.id }).first()), 'SELECT * does not list the digest');

  const big = await gw.app.store.submit({ p: { ...p, id: newPredictionId(Date.now()), input: { prompt: 'x'.repeat(70_000) } }, now: Date.now() });
  t.like(big, { accepted: true });
  t.false('ticket' in big);
});

test('a row changed after its submit is not taken with its ticket: the claim goes on the state and reads the row', async (t) => {
  const gw = await gatewayFor(t);
  const acct = await newAccount(gw, 10_000);
  for (const change of [{ price: 49 }, { input: '{"prompt":"a lighthouse "}' }, { discount_percent: null }]) {
    const p = request(acct.userId, 50);
    const outcome = await gw.app.store.submit({ p, now: Date.now() });
    if (!outcome.accepted) throw new Error('refused');
    await gw.app.db('predictions').where({ id: p.id }).update(change);
    const sent = watch(gw.app.db);
    const claim = await gw.app.store.claim({ id: p.id, now: Date.now(), takeOver: false, ticket: outcome.ticket });
    t.is(sent.length, 3, `the carried UPDATE took nothing; on the state, then a read: ${JSON.stringify(change)}`);
    t.deepEqual(claim, await findPredictionById(gw.app.db, p.id));
  }
});

// ============================================================
// The claim batch
// ============================================================

async function submittedWithTickets(gw: TestGateway, userId: number, n: number): Promise<Array<{ id: string; ticket: unknown }>> {
  const out: Array<{ id: string; ticket: unknown }> = [];
  for (let i = 0; i < n; i++) {
    const p = { ...request(userId, 50), input: { prompt: `p${i}` } };
    const outcome = await gw.app.store.submit({ p, now: Date.now() });
    if (!outcome.accepted) throw new Error('refused');
    out.push({ id: p.id, ticket: JSON.parse(JSON.stringify(outcome.ticket)) });
  }
  return out;
}

test('first claims that arrive together share one program that commits; the same messages again roll it back and each alone takes nothing', async (t) => {
  const gw = await gatewayFor(t);
  const acct = await newAccount(gw, 10_000);
  const subs = await submittedWithTickets(gw, acct.userId, 10);
  const now = Date.now();
  const sent = watch(gw.app.db);
  const got = await Promise.all(subs.map((s) => gw.app.store.claim({ id: s.id, now, takeOver: false, ticket: s.ticket })));
  t.deepEqual(sent.map((s) => [isProgram(s.sql, CLAIM_BATCH), s.outcome]), [[true, 'committed']], 'one program for the ten');
  for (const [i, p] of got.entries()) t.deepEqual(p, await findPredictionById(gw.app.db, subs[i]!.id));
  sent.length = 0;
  const again = await Promise.all(subs.map((s) => gw.app.store.claim({ id: s.id, now, takeOver: false, ticket: s.ticket })));
  t.deepEqual(again, subs.map(() => undefined));
  t.deepEqual(sent.filter((s) => isProgram(s.sql, CLAIM_BATCH)).map((s) => s.outcome), ['not every row claimed']);
  const rows = await gw.app.db('predictions').whereIn('id', subs.map((s) => s.id)).select('status', 'attempts') as Array<{ status: string; attempts: number | string }>;
  t.deepEqual(rows.map((r) => [r.status, Number(r.attempts)]), subs.map(() => ['processing', 1]));
});

test('a claim batch with one row that differs from its ticket rolls back whole, and each claim alone takes its row as stored', async (t) => {
  const gw = await gatewayFor(t);
  const acct = await newAccount(gw, 10_000);
  const subs = await submittedWithTickets(gw, acct.userId, 6);
  await gw.app.db('predictions').where({ id: subs[2]!.id }).update({ input: '{"prompt":"P2"}' });
  const sent = watch(gw.app.db);
  const got = await Promise.all(subs.map((s) => gw.app.store.claim({ id: s.id, now: Date.now(), takeOver: false, ticket: s.ticket })));
  t.deepEqual(sent.filter((s) => isProgram(s.sql, CLAIM_BATCH)).map((s) => s.outcome), ['not every row claimed']);
  for (const [i, p] of got.entries()) t.deepEqual(p, await findPredictionById(gw.app.db, subs[i]!.id));
  t.deepEqual(got[2]?.input, { prompt: 'P2' }, 'the row as stored, not as the ticket said');
});

test('a claim batch whose program fails fails each of its claims and claims nothing; the retries take the rows', async (t) => {
  const gw = await gatewayFor(t);
  const acct = await newAccount(gw, 10_000);
  const subs = await submittedWithTickets(gw, acct.userId, 4);
  // a time no statement can bind (a worker passes its clock; here the claim is called directly)
  const run = await Promise.allSettled(subs.map((s, i) => gw.app.store.claim({ id: s.id, now: i === 1 ? Number.NaN : Date.now(), takeOver: false, ticket: s.ticket })));
  t.deepEqual(run.map((r) => r.status), subs.map(() => 'rejected'));
  const rows = await gw.app.db('predictions').whereIn('id', subs.map((s) => s.id)).select('status', 'attempts') as Array<{ status: string; attempts: number | string }>;
  t.deepEqual(rows.map((r) => [r.status, Number(r.attempts)]), subs.map(() => ['queued', 0]));
  const retried = await Promise.all(subs.map((s) => gw.app.store.claim({ id: s.id, now: Date.now(), takeOver: true })));
  for (const [i, p] of retried.entries()) t.deepEqual(p, await findPredictionById(gw.app.db, subs[i]!.id));
});

// ============================================================
// The completion group
// ============================================================

test('a group of completions, and a completion alone, is one program each: the transitions, every wallet\'s charge, the ledger and the delivery rows', async (t) => {
  const gw = await gatewayFor(t);
  const acct = await newAccount(gw, 10_000);
  const teamId = await teamOf(gw, acct, 10_000);
  const ps = [...await claimed(gw, acct.userId, 20), ...await claimed(gw, acct.userId, 10, 70, teamId)];
  const sent = watch(gw.app.db);
  const finished = await Promise.all(ps.map((p, i) => gw.app.store.complete(completion(p, i))));
  t.true(finished.every((f) => f.recorded));
  t.deepEqual(sent.map((s) => [isProgram(s.sql, COMPLETE_GROUP), s.outcome]), [[true, 'committed']]);
  // the users' UPDATE before the teams', each wallet once
  const program = sent[0]!.sql;
  t.true(program.indexOf('update `users` set') < program.indexOf('update `teams` set'));
  const [alone] = await claimed(gw, acct.userId, 1);
  sent.length = 0;
  const one = await gw.app.store.complete(completion(alone!, 0));
  t.true(one.recorded);
  t.deepEqual(sent.map((s) => [isProgram(s.sql, COMPLETE_GROUP), s.outcome]), [[true, 'committed']], 'alone too, as a group of one');
  t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 10_000 - 21 * 50, held: 0 });
  await assertRowsInSequence(t, gw.app.db, { userId: acct.userId, teamId });
  await assertLedger(t, gw.app.db);
});

test('a group with a wallet that has expiring grants rolls the program back before writing, and the portable path spends them', async (t) => {
  const gw = await gatewayFor(t);
  const d = gw.app.db;
  const [plain, granted] = [await newAccount(gw, 10_000), await newAccount(gw, 10_000)];
  await addGrants(d, personal(granted.userId), [100], Date.now());
  const [x, y] = [await claimed(gw, plain.userId, 3), await claimed(gw, granted.userId, 3)];
  const ps = [x[0]!, y[0]!, x[1]!, y[1]!, x[2]!, y[2]!];
  const sent = watch(d);
  const finished = await Promise.all(ps.map((p, i) => gw.app.store.complete(completion(p, i))));
  t.true(finished.every((f) => f.recorded));
  t.deepEqual(sent.filter((s) => /^begin not atomic/.test(s.sql)).map((s) => s.outcome), ['a wallet not settled']);
  t.true(sent.length > 5, 'then the group statement by statement');
  // 150 charged: the grant's 100 spent first, the marker recounted to none
  t.deepEqual((await d('credit_grants').where('wallet', `user:${granted.userId}`).select('remaining')).map((g: { remaining: unknown }) => Number(g.remaining)), [0]);
  for (const a of [plain, granted]) {
    const user = await d('users').where({ id: a.userId }).first('balance', 'held', 'grants');
    t.deepEqual([Number(user.balance), Number(user.held), Number(user.grants)], [10_000 - 3 * 50, 0, 0]);
  }
  await assertLedger(t, d);
});

test('an error inside a completion program rolls back everything it wrote and leaves its connection outside any transaction; each completion is then recorded alone', async (t) => {
  const gw = await gatewayFor(t);
  const { default: knexFactory } = await import('knex');
  // one connection, so what follows the error runs on the connection it failed on
  const one = knexFactory({ client: 'mysql2', connection: gw.app.db.client.config.connection, pool: { min: 1, max: 1 } });
  t.teardown(() => one.destroy());
  const store = await openStore(one);
  const acct = await newAccount(gw, 10_000);
  const ps = await claimed(gw, acct.userId, 4);
  // prediction 3's delivery row names a user that does not exist: its INSERT, the program's last, fails its foreign key
  const items = ps.map((p, i) => (i === 3 ? { ...completion(p, i), p: { ...p, userId: 2_000_000_000 } } : completion(p, i)));
  t.truthy(items[3]!.p.webhookUrl);
  const sent = watch(one);
  const finished = await Promise.allSettled(items.map((c) => store.complete(c)));
  t.true(isProgram(sent[0]!.sql, COMPLETE_GROUP) && sent[0]!.outcome === undefined, 'the program raised its error');
  // had the program kept any of its writes, the completions alone would have found their rows completed
  t.deepEqual(finished.map((f) => (f.status === 'fulfilled' ? f.value.recorded : 'failed')), [true, true, true, 'failed']);
  const [[state]] = await one.raw('select @@in_transaction as open') as unknown as [[{ open: number }]];
  t.is(Number(state!.open), 0);
  t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 10_000 - 4 * 50, held: 50 });
  t.is((await gw.app.db('webhook_deliveries').whereIn('prediction_id', ps.map((p) => p.id))).length, 1, 'prediction 0\'s delivery, written alone');
  await assertLedger(t, gw.app.db);
});

// ============================================================
// The submit hold-first program
// ============================================================

test('submits of several wallets that all cover their sums take their locks with the holds themselves: one program, no locking read, users\' UPDATE before teams\'', async (t) => {
  const gw = await gatewayFor(t);
  const [a, b, c] = [await newAccount(gw, 300), await newAccount(gw, 1000), await newAccount(gw, 100)];
  const teamId = await teamOf(gw, a!, 250);
  const [A, B, C] = [a!.userId, b!.userId, c!.userId];
  const sent = watch(gw.app.db);
  // c's wallet covered exactly; a free request rides along with a wallet that takes holds
  const ps = [request(B, 100), request(A, 100), request(C, 60), request(A, 100, null, teamId), request(A, 100), request(B, 100),
    request(A, 100), request(A, 0), request(A, 100, null, teamId), request(C, 40)];
  const outcomes = ps.map((p) => gw.app.store.submit({ p, now: Date.now(), limits: { perKey: 0, perAccount: 10 } }));
  t.deepEqual(await Promise.all(outcomes.map(answer)), ps.map(() => 'ok'));
  t.deepEqual(await Promise.all(outcomes.map((o) => o.then((x) => (x.accepted ? x.balance : undefined)))), [900, 200, 40, 150, 100, 800, 0, undefined, 50, 0]);
  const programs = sent.filter((s) => isProgram(s.sql, HOLD_FIRST));
  t.deepEqual(programs.map((s) => s.outcome), ['committed']);
  t.deepEqual(sent.filter((s) => /for update$/i.test(s.sql)), [], 'no locking read');
  t.regex(programs[0]!.sql, /start transaction;\nupdate `users` [^\n]*\nif ok then update `teams` /);
  // after the balance, held and submit_seq cases (an id and a sum each, three wallets): the IN list in id order
  t.deepEqual(programs[0]!.bindings.slice(18, 21).map(Number), [A, B, C].sort((x, y) => x - y));
  t.deepEqual(await walletHolds(gw.app.db, personal(C)), [[ps[2]!.id, 40, 60], [ps[9]!.id, 0, 100]]);
  await assertLedger(t, gw.app.db);
});

test('after a hold-first program of a wallet rolled back, that wallet\'s next submits go straight to the locked path, another wallet\'s still hold first; a submit alone holds first too', async (t) => {
  const gw = await gatewayFor(t);
  const [a, b, c] = [await newAccount(gw, 250), await newAccount(gw, 1000), await newAccount(gw, 250)];
  const sent = watch(gw.app.db);
  const path = () => sent.flatMap((s) => (isProgram(s.sql, HOLD_FIRST) ? [`hold-first ${s.outcome ?? ''}`.trim()] : /for update$/i.test(s.sql) ? ['locked'] : []));
  const run = (userId: number, prices: number[]) => Promise.all(prices.map((price) => answer(gw.app.store.submit({ p: request(userId, price), now: Date.now(), limits: { perKey: 0, perAccount: 100 } }))));
  // 300 asked of 250: the program's UPDATE matches nothing, the locked path decides
  t.deepEqual(await run(a!.userId, [100, 100, 100]), ['ok', 'ok', '402']);
  t.deepEqual(path(), ['hold-first not every request accepted', 'locked']);
  t.deepEqual(await run(a!.userId, [10, 10, 40]), ['ok', 'ok', '402']);
  t.deepEqual(path().slice(2), ['locked'], 'the same wallet, straight to the locked path');
  t.deepEqual(await run(b!.userId, [100, 100]), ['ok', 'ok']);
  t.deepEqual(path().slice(3), ['hold-first committed'], 'another wallet holds first');
  t.deepEqual(await run(c!.userId, [100]), ['ok']);
  t.deepEqual(path().slice(4), ['hold-first committed'], 'alone too');
  t.deepEqual(await run(c!.userId, [200]), ['402']);
  t.deepEqual(path().slice(5), ['hold-first not every request accepted'], 'short of credit alone: rolled back, then refused on its own transaction');
  t.deepEqual(await wallet(gw.app.db, personal(a!.userId)), { balance: 30, held: 220 });
  t.deepEqual(await wallet(gw.app.db, personal(c!.userId)), { balance: 150, held: 100 });
  await assertLedger(t, gw.app.db);
});

/** Commits `trx` as soon as `db` has the answer of a hold-first batch's read of the counts (its next statement is the program, whose UPDATE takes the wallet locks). */
function commitOnRead(db: Knex, trx: Knex.Transaction): Promise<void> {
  return new Promise((resolve, reject) => {
    const onResponse = (_response: unknown, q: { sql: string }) => {
      if (!/submit_seq from users/.test(q.sql)) return;
      db.off('query-response', onResponse);
      trx.commit().then(() => resolve(), reject);
    };
    db.on('query-response', onResponse);
  });
}

test('a hold-first program counts before its lock; submits of the wallet that commit in between are added to those counts, and a bound at the limit counts again under the lock: 429 exactly at the limit', async (t) => {
  const gw = await gatewayFor(t);
  const other = secondMysqlDb(gw);
  t.teardown(() => other.destroy());
  const store = gw.app.store;
  const sent = watch(gw.app.db);
  const steps = () => sent.flatMap((s) => {
    if (/submit_seq from users/.test(s.sql)) return ['read'];
    if (isProgram(s.sql, HOLD_FIRST)) return ['hold-first'];
    if (/^select \(select count/i.test(s.sql)) return ['count'];
    if (/for update$/i.test(s.sql)) return ['locked path'];
    return [];
  });
  const acct = await newAccount(gw, 10_000);
  const limits: ConcurrencyLimits = { perKey: 0, perAccount: 4 };
  for (let i = 0; i < 3; i++) t.is(await answer(store.submit({ p: request(acct.userId, 10), now: Date.now(), limits })), 'ok');
  // another process's submit holds the wallet's lock, its prediction written but not committed
  const trx = await other.transaction();
  await heldIn(trx, request(acct.userId, 10));
  sent.length = 0;
  // the program reads the counts (3: the fourth is not committed yet); the other commits as that read answers
  const committed = commitOnRead(gw.app.db, trx);
  const batched = [request(acct.userId, 10), request(acct.userId, 10)].map((p) => answer(store.submit({ p, now: Date.now(), limits: { ...limits, perAccount: 5 } })));
  await committed;
  // 4 unfinished once the other committed: one more fits the limit of 5, the second is refused
  t.deepEqual(await Promise.all(batched), ['ok', '429 account']);
  // counted again under the lock inside the program (5: the other's included), refused there; the locked path decides
  t.deepEqual(steps(), ['read', 'hold-first', 'locked path', 'count']);
  t.is(Number((await gw.app.db('predictions').where({ user_id: acct.userId }).count({ n: '*' }))[0]!.n), 5);

  // committed in between, far from the limit: the counts read plus it decide, no count under the lock
  const acct3 = await newAccount(gw, 10_000);
  const trx3 = await other.transaction();
  await heldIn(trx3, request(acct3.userId, 10));
  sent.length = 0;
  const committed3 = commitOnRead(gw.app.db, trx3);
  const far = [request(acct3.userId, 10), request(acct3.userId, 10)].map((p) => answer(store.submit({ p, now: Date.now(), limits: { perKey: 0, perAccount: 100 } })));
  await committed3;
  t.deepEqual(await Promise.all(far), ['ok', 'ok']);
  t.deepEqual(steps(), ['read', 'hold-first']);

  // a bound past the limit, but one of the counted predictions finished meanwhile: counted again inside the program, within the limit there
  const acct4 = await newAccount(gw, 10_000);
  const limits4: ConcurrencyLimits = { perKey: 0, perAccount: 5 };
  const first4 = request(acct4.userId, 0);
  t.is(await answer(store.submit({ p: first4, now: Date.now(), limits: limits4 })), 'ok');
  for (let i = 0; i < 2; i++) t.is(await answer(store.submit({ p: request(acct4.userId, 10), now: Date.now(), limits: limits4 })), 'ok');
  const trx4 = await other.transaction();
  await heldIn(trx4, request(acct4.userId, 10));
  await trx4('predictions').where({ id: first4.id }).update({ status: 'completed' });
  sent.length = 0;
  const committed4 = commitOnRead(gw.app.db, trx4);
  const near = [request(acct4.userId, 10), request(acct4.userId, 10)].map((p) => answer(store.submit({ p, now: Date.now(), limits: limits4 })));
  await committed4;
  t.deepEqual(await Promise.all(near), ['ok', 'ok']);
  t.deepEqual(steps(), ['read', 'hold-first'], 'accepted by the count inside the program, not by the locked path');

  // with nothing committed in between, the counts read before the lock decide
  sent.length = 0;
  const acct2 = await newAccount(gw, 10_000);
  t.deepEqual(await Promise.all([request(acct2.userId, 10), request(acct2.userId, 10)].map((p) => answer(store.submit({ p, now: Date.now(), limits: { perKey: 0, perAccount: 2 } })))), ['ok', 'ok']);
  t.deepEqual(steps(), ['read', 'hold-first']);
  await assertLedger(t, gw.app.db);
});

test('two processes submitting to one wallet with two keys, most of it as hold-first programs: 429 exactly at the per-key and per-account limits, 402 exactly at the credit', async (t) => {
  const gw = await gatewayFor(t);
  const other = secondMysqlDb(gw);
  t.teardown(() => other.destroy());
  const stores: Store[] = [gw.app.store, await openStore(other)];
  const committedPrograms = [watch(gw.app.db), watch(other)];

  const acct = await newAccount(gw, 100_000);
  const [k1, k2] = await keyIds(gw, acct.session, 2);
  const submitted: Array<{ key: number; answer: Promise<string> }> = [];
  for (let round = 0; round < 6; round++) {
    // rounds of 10 across both processes, each after the last answered, so that their programs interleave
    const batch = Array.from({ length: 10 }, (_, j) => {
      const key = (round * 10 + j) % 3 === 0 ? k1! : k2!;
      return { key, answer: answer(stores[j % 2]!.submit({ p: request(acct.userId, 7, key), now: Date.now(), limits: { perKey: key === k1 ? 9 : 100, perAccount: 15 } })) };
    });
    submitted.push(...batch);
    await Promise.all(batch.map((b) => b.answer));
  }
  const results = await Promise.all(submitted.map(async (s) => ({ key: s.key, a: await s.answer })));
  t.is(results.filter((r) => r.a === 'ok').length, 15, 'exactly the account limit');
  t.true(results.filter((r) => r.key === k1 && r.a === 'ok').length <= 9);
  t.true(results.every((r) => ['ok', '429 key', '429 account'].includes(r.a)), results.map((r) => r.a).join(','));
  t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 100_000 - 15 * 7, held: 15 * 7 });

  const acct3 = await newAccount(gw, 50 * 29);
  const credit = await Promise.all(Array.from({ length: 70 }, (_, i) => answer(stores[i % 2]!.submit({ p: request(acct3.userId, 50), now: Date.now(), limits: { perKey: 0, perAccount: 1000 } }))));
  t.is(credit.filter((a) => a === 'ok').length, 29);
  t.is(credit.filter((a) => a === '402').length, 41);
  t.deepEqual(await wallet(gw.app.db, personal(acct3.userId)), { balance: 0, held: 50 * 29 });
  await assertRowsInSequence(t, gw.app.db, personal(acct3.userId));
  t.true(committedPrograms.every((seen) => seen.some((s) => isProgram(s.sql, HOLD_FIRST) && s.outcome === 'committed')), 'both processes committed hold-first programs');
  await assertLedger(t, gw.app.db);
});
