// Group commit of submits (db/submit-batch.ts): submits that arrive while a batch is in flight go
// together in one transaction, over one wallet or several, and each gets exactly the answer it
// would get alone: credit per wallet, per-key and per-account limits decided in arrival order, the
// ledger exact row by row, the wallets locked in one fixed order, a failing batch falling back to
// each submit alone, and two instances (two pools, two queues) on the same MariaDB wallets still
// exact. On MariaDB and on SQLite.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { assertLedger } from '../helpers/ledger.ts';
import { newPredictionId, submitPrediction, unfinishedCounts } from '../../db/predictions.ts';
import type { ConcurrencyLimits, NewPrediction, SubmitOutcome } from '../../db/predictions.ts';
import { submitGrouped } from '../../db/submit-batch.ts';
import { createDb } from '../../db/knex.ts';
import { InsufficientCreditError } from '../../db/errors.ts';
import { creditWallet } from '../../db/wallet/moves.ts';

const MODEL = 'canvas-v1-fast-text-to-image';

function request(userId: number, price: number, apiKeyId: number | null = null, teamId: number | null = null): NewPrediction {
  return { id: newPredictionId(Date.now()), userId, teamId, apiKeyId, model: MODEL, input: { prompt: 'a lighthouse' }, price, listPrice: price + 10, discountPercent: 5, webhookUrl: null };
}

/** What a submit came to: 'ok', '402', '429 key' / '429 account', or the error's message. */
async function answer(p: Promise<SubmitOutcome>): Promise<string> {
  try {
    const o = await p;
    return o.accepted ? 'ok' : `429 ${o.scope}`;
  } catch (err) {
    return err instanceof InsufficientCreditError ? '402' : String((err as Error).message);
  }
}

/** MariaDB's hold-first batch: one statement (a compound statement holding its transaction), its UPDATEs setting @mg_b0 ... */
const HOLD_FIRST = /^begin not atomic[\s\S]*@mg_b0 :=/i;

/** Calls `committed` with each hold-first batch's outcome on `db`: true when it wrote its rows, false when it rolled back (the locked path decides). */
function onHoldFirst(db: Knex, committed: (wrote: boolean) => void): void {
  db.on('query-response', (response: unknown, q: { sql: string }) => {
    if (HOLD_FIRST.test(q.sql)) committed(!JSON.stringify(response).includes('mg_not_all_accepted'));
  });
}

/**
 * Counts the batches a knex instance ran: the statement that only a batch makes first, the
 * hold-first batch (MariaDB) or the wallets' locking read (MariaDB FOR UPDATE; SQLite a no-op
 * write returning the row). A locking read right after a hold-first batch that rolled back is
 * that same batch's locked path, not another batch.
 */
function batchesRun(db: Knex): { readonly n: number } {
  const seen = { n: 0 };
  let holdFirstUndecided = false;
  db.on('query', (q: { sql: string }) => {
    if (HOLD_FIRST.test(q.sql)) seen.n++;
    else if (/for update$|`held` = held where .*returning/i.test(q.sql)) {
      if (!holdFirstUndecided) seen.n++;
      holdFirstUndecided = false;
    }
  });
  onHoldFirst(db, (wrote) => { holdFirstUndecided = !wrote; });
  return seen;
}

/** The wallet lock reads a knex instance ran (lockWallets), each as its table and the ids it named, in order. */
function lockReads(db: Knex): Array<{ table: string; ids: number[] }> {
  const seen: Array<{ table: string; ids: number[] }> = [];
  db.on('query', (q: { sql: string; bindings?: unknown[] }) => {
    const m = /^(?:select .* from|update) [`"](users|teams)[`"] .*(?:for update$|`held` = held where .*returning)/i.exec(q.sql);
    if (m) seen.push({ table: m[1]!, ids: (q.bindings ?? []).map(Number) });
  });
  return seen;
}

/** A wallet's hold rows, in id order, as [prediction_id, balance_after, held_after]. */
async function walletHolds(db: Knex, w: { userId: number; teamId: number | null }): Promise<Array<[string, number, number]>> {
  const q = db('credit_transactions').where({ kind: 'hold' }).orderBy('id').select('prediction_id', 'balance_after', 'held_after');
  if (w.teamId === null) q.where({ user_id: w.userId }).whereNull('team_id'); else q.where({ team_id: w.teamId });
  return (await q as Array<Record<string, unknown>>).map((r) => [String(r.prediction_id), Number(r.balance_after), Number(r.held_after)]);
}

async function keyIds(gw: TestGateway, session: string, n: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await gw.server.inject({ method: 'POST', url: '/api/v1/keys', headers: { authorization: `Bearer ${session}` }, payload: { name: `k${i}` } });
    ids.push((res.result as { id: number }).id);
  }
  return ids;
}

async function wallet(db: Knex, userId: number): Promise<{ balance: number; held: number }> {
  const w = await db('users').where({ id: userId }).first<{ balance: unknown; held: unknown }>('balance', 'held');
  return { balance: Number(w.balance), held: Number(w.held) };
}

/** The hold rows of a user, in id order, as [prediction_id, balance_after, held_after, list_price, discount_percent]. */
async function holdRows(db: Knex, userId: number): Promise<Array<[string, number, number, number, number]>> {
  const rows = await db('credit_transactions').where({ user_id: userId, kind: 'hold' }).orderBy('id')
    .select('prediction_id', 'balance_after', 'held_after', 'list_price', 'discount_percent') as Array<Record<string, unknown>>;
  return rows.map((r) => [String(r.prediction_id), Number(r.balance_after), Number(r.held_after), Number(r.list_price), Number(r.discount_percent)]);
}

/**
 * The wallets both several-wallet batch tests leave the same way (A's own, B's and A's team's, from
 * the same requests `ps`): balances, held and each wallet's hold rows in sequence.
 */
async function assertSharedWallets(t: ExecutionContext, db: Knex, { A, B, teamId }: { A: number; B: number; teamId: number }, ps: readonly NewPrediction[]) {
  t.deepEqual(await wallet(db, A), { balance: 0, held: 300 });
  t.deepEqual(await wallet(db, B), { balance: 800, held: 200 });
  const team = await db('teams').where({ id: teamId }).first<{ balance: unknown; held: unknown }>('balance', 'held');
  t.deepEqual([Number(team.balance), Number(team.held)], [50, 200]);
  const seq = (ids: string[], start: number) => ids.map((id, i) => [id, start - 100 * (i + 1), 100 * (i + 1)]);
  t.deepEqual(await walletHolds(db, { userId: A, teamId: null }), seq([ps[1]!.id, ps[4]!.id, ps[6]!.id], 300));
  t.deepEqual(await walletHolds(db, { userId: B, teamId: null }), seq([ps[0]!.id, ps[5]!.id], 1000));
  t.deepEqual(await walletHolds(db, { userId: A, teamId }), seq([ps[3]!.id, ps[8]!.id], 250));
}

function assertHoldSequence(t: ExecutionContext, rows: Array<[string, number, number, number, number]>, ids: string[], start: number, price: number) {
  t.deepEqual(rows, ids.map((id, i) => [id, start - price * (i + 1), price * (i + 1), price + 10, 5] as [string, number, number, number, number]));
}

for (const engine of ['mysql', 'sqlite'] as const) {
  test(`${engine}: parallel submits of one wallet with credit for k of N: exactly k are held, in arrival order, the rest 402; each hold row records the wallet after it`, async (t) => {
    const gw = await startGateway({ db: engine, queue: 'memory' });
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, 1000);
    const batches = batchesRun(gw.app.db);
    const ps = Array.from({ length: 12 }, () => request(acct.userId, 150));
    const answers = await Promise.all(ps.map((p) => answer(submitGrouped(gw.app.db, p, Date.now(), { perKey: 0, perAccount: 0 }))));
    // 1000 covers six holds of 150; submitted in one job, the twelve go together in arrival order
    t.deepEqual(answers, ['ok', 'ok', 'ok', 'ok', 'ok', 'ok', '402', '402', '402', '402', '402', '402']);
    t.is(batches.n, 1, 'the waiting submits went in one batch');
    const accepted = ps.slice(0, 6).map((p) => p.id);
    assertHoldSequence(t, await holdRows(gw.app.db, acct.userId), accepted, 1000, 150);
    t.deepEqual(await wallet(gw.app.db, acct.userId), { balance: 100, held: 900 });
    const stored = await gw.app.db('predictions').where({ user_id: acct.userId }).orderBy('id').select('id', 'price', 'list_price', 'discount_percent', 'status') as Array<Record<string, unknown>>;
    t.deepEqual(stored.map((r) => [r.id, Number(r.price), Number(r.list_price), Number(r.discount_percent), r.status]), accepted.map((id) => [id, 150, 160, 5, 'queued']).sort());
    // the balance each accepted submit answers is the one after its own hold
    const outcomes = await Promise.all([request(acct.userId, 40), request(acct.userId, 30), request(acct.userId, 20)].map((p) => submitGrouped(gw.app.db, p, Date.now())));
    t.deepEqual(outcomes.map((o) => (o.accepted ? o.balance : undefined)), [60, 30, 10]);
    t.true(outcomes.every((o) => o.accepted && o.row?.price !== undefined), 'each carries its row for the claim');
    await assertLedger(t, gw.app.db);
  });

  test(`${engine}: a batch writes every value of its rows and hold rows exactly: inputs with ? marks, quotes, backslashes and non-ASCII, null and set columns, free and priced rows together`, async (t) => {
    const gw = await startGateway({ db: engine, queue: 'memory' });
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, 10_000);
    const batches = batchesRun(gw.app.db);
    const awkward = ["what? ?? '?'", "it's \\ a \"quote\" \\'; drop table users; --", 'nul\u0000 byte', 'ünïcödé 灯台 🌊', '`backtick` @mg_held'];
    const ps: NewPrediction[] = awkward.map((prompt, i) => ({
      ...request(acct.userId, i % 2 === 0 ? 70 : 0, null), input: { prompt, n: i },
      webhookUrl: i === 1 ? 'https://example.com/hook?a=1&b=\'2\'' : null, httpRequestId: i === 2 ? "req-'?'" : null, source: i === 3 ? 'dashboard' : undefined,
      discountPercent: i === 4 ? null : 5,
    }));
    const now = Date.now();
    const answers = await Promise.all(ps.map((p) => answer(submitGrouped(gw.app.db, p, now, { perKey: 0, perAccount: 100 }))));
    t.deepEqual(answers, ['ok', 'ok', 'ok', 'ok', 'ok']);
    t.is(batches.n, 1, 'the five went in one batch');
    const stored = await gw.app.db('predictions').whereIn('id', ps.map((p) => p.id)).select('id', 'input', 'price', 'webhook_url', 'http_request_id', 'source', 'list_price', 'discount_percent', 'status', 'is_test', 'created_at') as Array<Record<string, unknown>>;
    const byId = new Map(stored.map((r) => [String(r.id), r]));
    for (const p of ps) {
      const r = byId.get(p.id)!;
      t.deepEqual(JSON.parse(String(r.input)), p.input);
      t.deepEqual([Number(r.price), r.webhook_url, r.http_request_id, r.source, r.status, Boolean(Number(r.is_test)), Number(r.created_at)],
        [p.price, p.webhookUrl, p.httpRequestId ?? null, p.source ?? 'api', 'queued', false, now]);
      // a free row leaves list_price and discount_percent null
      t.deepEqual([r.list_price === null ? null : Number(r.list_price), r.discount_percent === null ? null : Number(r.discount_percent)],
        p.price > 0 ? [p.listPrice!, p.discountPercent ?? null] : [null, null]);
    }
    const holds = await gw.app.db('credit_transactions').where({ user_id: acct.userId, kind: 'hold' }).orderBy('id')
      .select('prediction_id', 'amount', 'held_change', 'ref', 'description', 'created_at', 'list_price', 'discount_percent', 'balance_after', 'held_after', 'team_id') as Array<Record<string, unknown>>;
    t.deepEqual(holds.map((r) => [r.prediction_id, Number(r.amount), Number(r.held_change), r.ref, r.description, Number(r.created_at), Number(r.list_price), r.discount_percent === null ? null : Number(r.discount_percent), Number(r.balance_after), Number(r.held_after), r.team_id]), [
      [ps[0]!.id, 0, 70, '', MODEL, now, 80, 5, 9930, 70, null],
      [ps[2]!.id, 0, 70, '', MODEL, now, 80, 5, 9860, 140, null],
      [ps[4]!.id, 0, 70, '', MODEL, now, 80, null, 9790, 210, null],
    ]);
    await assertLedger(t, gw.app.db);
  });

  test(`${engine}: N parallel submits with room for k unfinished per account admit exactly k; per-key limits of mixed keys in one batch count the ones accepted before`, async (t) => {
    const gw = await startGateway({ db: engine, queue: 'memory' });
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, 100_000);
    const [a, b] = await keyIds(gw, acct.session, 2);
    // two unfinished already (one per key), from earlier submits
    for (const k of [a!, b!]) t.is(await answer(submitGrouped(gw.app.db, request(acct.userId, 10, k), Date.now())), 'ok');
    const batches = batchesRun(gw.app.db);
    const limits: ConcurrencyLimits = { perKey: 3, perAccount: 5 };
    const order = [a, b, a, a, b, a, b, b, a, b].map((k) => request(acct.userId, 10, k!));
    const answers = await Promise.all(order.map((p) => answer(submitGrouped(gw.app.db, p, Date.now(), limits))));
    // a: 1 unfinished, b: 1, account 2. a -> a2 (acct 3); b -> b2 (4); a -> a3 (5); a: key a full;
    // b: account full (key b has room, so the account names the refusal); and so on
    t.deepEqual(answers, ['ok', 'ok', 'ok', '429 key', '429 account', '429 key', '429 account', '429 account', '429 key', '429 account']);
    t.is(batches.n, 1);
    t.is(Number((await gw.app.db('predictions').where({ user_id: acct.userId }).count({ n: '*' }))[0]!.n), 5);
    t.deepEqual(await wallet(gw.app.db, acct.userId), { balance: 100_000 - 50, held: 50 });

    // free submits with limits go in batches too, and hold nothing
    const acct2 = await newAccount(gw, 0);
    const free = Array.from({ length: 8 }, () => request(acct2.userId, 0));
    const freeAnswers = await Promise.all(free.map((p) => answer(submitGrouped(gw.app.db, p, Date.now(), { perKey: 0, perAccount: 4 }))));
    t.deepEqual(freeAnswers, ['ok', 'ok', 'ok', 'ok', '429 account', '429 account', '429 account', '429 account']);
    t.is(Number((await gw.app.db('credit_transactions').where({ user_id: acct2.userId, kind: 'hold' }).count({ n: '*' }))[0]!.n), 0);

    // a batch that mixes 402 and 429: the credit is checked before the counts, as the hold comes first;
    // the last, free, is refused by the account's limit only
    const acct3 = await newAccount(gw, 25);
    const mixed = [10, 10, 10, 5, 0].map((price) => request(acct3.userId, price));
    const mixedAnswers = await Promise.all(mixed.map((p) => answer(submitGrouped(gw.app.db, p, Date.now(), { perKey: 0, perAccount: 3 }))));
    t.deepEqual(mixedAnswers, ['ok', 'ok', '402', 'ok', '429 account']);
    t.deepEqual(await wallet(gw.app.db, acct3.userId), { balance: 0, held: 25 });
    await assertLedger(t, gw.app.db);
  });

  test(`${engine}: a batch whose one submit fails (a duplicate id) falls back to each alone: the others are accepted, nothing is held twice`, async (t) => {
    const gw = await startGateway({ db: engine, queue: 'memory' });
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, 1000);
    const first = request(acct.userId, 100);
    const dup = { ...request(acct.userId, 100), id: first.id };
    const others = [request(acct.userId, 100), dup, request(acct.userId, 100), request(acct.userId, 100)];
    // the first is recorded alone; the four others (one reusing its id) then go as one batch
    t.is(await answer(submitGrouped(gw.app.db, first, Date.now(), { perKey: 0, perAccount: 10 })), 'ok');
    const batches = batchesRun(gw.app.db);
    const answers = await Promise.all(others.map((p) => answer(submitGrouped(gw.app.db, p, Date.now(), { perKey: 0, perAccount: 10 }))));
    t.deepEqual(answers.map((a, i) => (i === 1 ? /duplicate|unique/i.test(a) : a)), ['ok', true, 'ok', 'ok'], answers.join('\n'));
    t.is(batches.n, 1, 'the four were tried as one batch first');
    t.deepEqual(await wallet(gw.app.db, acct.userId), { balance: 600, held: 400 });
    t.is((await holdRows(gw.app.db, acct.userId)).length, 4);
    await assertLedger(t, gw.app.db);
  });
}

test('two instances (two pools, two batch queues) against one MariaDB wallet stay exact: credit for k of N and an account limit', async (t) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  const other = createDb({ databaseUrl: gw.env.DATABASE_URL, sqliteFile: '' });
  t.teardown(() => other.destroy());
  const batches = [batchesRun(gw.app.db), batchesRun(other)];
  const acct = await newAccount(gw, 100 * 37);
  const dbs = [gw.app.db, other];
  const answers = await Promise.all(Array.from({ length: 80 }, (_, i) => answer(submitGrouped(dbs[i % 2]!, request(acct.userId, 100), Date.now(), { perKey: 0, perAccount: 1000 }))));
  t.is(answers.filter((a) => a === 'ok').length, 37);
  t.is(answers.filter((a) => a === '402').length, 43);
  t.true(batches.every((b) => b.n >= 1), 'both instances ran batches');
  t.deepEqual(await wallet(gw.app.db, acct.userId), { balance: 0, held: 3700 });
  // the hold rows, in id order, form one sequence across both instances' batches
  const rows = await holdRows(gw.app.db, acct.userId);
  t.deepEqual(rows.map((r) => [r[1], r[2]]), rows.map((_, i) => [3700 - 100 * (i + 1), 100 * (i + 1)]));

  const acct2 = await newAccount(gw, 100_000);
  const limited = await Promise.all(Array.from({ length: 60 }, (_, i) => answer(submitGrouped(dbs[i % 2]!, request(acct2.userId, 7), Date.now(), { perKey: 0, perAccount: 23 }))));
  t.is(limited.filter((a) => a === 'ok').length, 23);
  t.is(limited.filter((a) => a === '429 account').length, 37);
  t.deepEqual(await wallet(gw.app.db, acct2.userId), { balance: 100_000 - 23 * 7, held: 23 * 7 });
  await assertLedger(t, gw.app.db);
});

for (const engine of ['mysql', 'sqlite'] as const) {
  test(`${engine}: a team's wallet batches its members' submits: held on the team, each hold row naming its member; a deleted team holds nothing`, async (t) => {
    const gw = await startGateway({ db: engine, queue: 'memory' });
    t.teardown(() => gw.stop());
    const owner = await newAccount(gw, 0);
    const member = await newAccount(gw, 0);
    const made = await gw.server.inject({ method: 'POST', url: '/app/teams', headers: { authorization: `Bearer ${owner.session}` }, payload: { name: 'batch' } });
    t.is(made.statusCode, 201, made.payload);
    const teamId = Number((made.result as { id: number }).id);
    await gw.app.db.transaction((trx) => creditWallet(trx, { userId: owner.userId, teamId }, 500, 'grant', 'test credit', Date.now()));
    const batches = batchesRun(gw.app.db);
    const ps = [owner, member, owner, member, owner, member].map((a) => request(a.userId, 100, null, teamId));
    const answers = await Promise.all(ps.map((p) => answer(submitGrouped(gw.app.db, p, Date.now(), { perKey: 0, perAccount: 4 }))));
    t.deepEqual(answers, ['ok', 'ok', 'ok', 'ok', '429 account', '429 account']);
    t.is(batches.n, 1);
    const team = await gw.app.db('teams').where({ id: teamId }).first<{ balance: unknown; held: unknown }>('balance', 'held');
    t.deepEqual([Number(team.balance), Number(team.held)], [100, 400]);
    const rows = await gw.app.db('credit_transactions').where({ team_id: teamId, kind: 'hold' }).orderBy('id').select('user_id', 'prediction_id', 'balance_after') as Array<Record<string, unknown>>;
    t.deepEqual(rows.map((r) => [Number(r.user_id), r.prediction_id, Number(r.balance_after)]), ps.slice(0, 4).map((p, i) => [p.userId, p.id, 500 - 100 * (i + 1)]));
    t.is(Number((await gw.app.db('credit_transactions').where({ user_id: member.userId }).whereNull('team_id').count({ n: '*' }))[0]!.n), 0, 'nothing on the member\'s own wallet');

    await gw.app.db('teams').where({ id: teamId }).update({ deleted_at: Date.now() });
    const late = await Promise.all([owner, member, owner].map((a) => answer(submitGrouped(gw.app.db, request(a.userId, 10, null, teamId), Date.now()))));
    t.deepEqual(late, ['402', '402', '402']);
    t.is(batches.n, 2);
    await assertLedger(t, gw.app.db);
  });
}

for (const engine of ['mysql', 'sqlite'] as const) {
  test(`${engine}: submits of several wallets go in one batch: each wallet's own credit decides (402 for one while the others pass), balances, held and hold rows exact per wallet; users' rows locked before teams', each by id`, async (t) => {
    const gw = await startGateway({ db: engine, queue: 'memory' });
    t.teardown(() => gw.stop());
    const [a, b, c] = [await newAccount(gw, 300), await newAccount(gw, 1000), await newAccount(gw, 0)];
    const made = await gw.server.inject({ method: 'POST', url: '/app/teams', headers: { authorization: `Bearer ${a!.session}` }, payload: { name: 'spread' } });
    t.is(made.statusCode, 201, made.payload);
    const teamId = Number((made.result as { id: number }).id);
    await gw.app.db.transaction((trx) => creditWallet(trx, { userId: a!.userId, teamId }, 250, 'grant', 'test credit', Date.now()));
    const locks = lockReads(gw.app.db);
    const [A, B, C] = [a!.userId, b!.userId, c!.userId];
    // arrival order: the wallets interleaved; c's first has no credit, its second is free
    const ps = [request(B, 100), request(A, 100), request(C, 100), request(A, 100, null, teamId), request(A, 100), request(B, 100),
      request(A, 100), request(A, 100), request(A, 100, null, teamId), request(A, 100, null, teamId), request(C, 0)];
    const outcomes = ps.map((p) => submitGrouped(gw.app.db, p, Date.now(), { perKey: 0, perAccount: 10 }));
    const answers = await Promise.all(outcomes.map(answer));
    t.deepEqual(answers, ['ok', 'ok', '402', 'ok', 'ok', 'ok', 'ok', '402', 'ok', '402', 'ok']);
    t.deepEqual(await Promise.all(outcomes.map((o) => o.then((x) => (x.accepted ? x.balance : undefined), () => undefined))),
      [900, 200, undefined, 150, 100, 800, 0, undefined, 50, undefined, undefined], 'each answers its own wallet after its own hold');
    // one batch: one locking read per wallet table, users' first, ids ascending
    t.deepEqual(locks, [{ table: 'users', ids: [A, B, C].sort((x, y) => x - y) }, { table: 'teams', ids: [teamId] }]);
    await assertSharedWallets(t, gw.app.db, { A, B, teamId }, ps);
    t.deepEqual(await wallet(gw.app.db, C), { balance: 0, held: 0 });
    t.deepEqual(await walletHolds(gw.app.db, { userId: C, teamId: null }), []);
    const stored = await gw.app.db('predictions').whereIn('id', ps.map((p) => p.id)).orderBy('id').select('id', 'user_id', 'team_id') as Array<Record<string, unknown>>;
    t.deepEqual(stored.map((r) => r.id), ps.filter((_, i) => answers[i] === 'ok').map((p) => p.id).sort());
    await assertLedger(t, gw.app.db);
  });

  test(`${engine}: per-key and per-account limits of several wallets in one batch: each account and each key counted on its own, the ones accepted before in the batch included`, async (t) => {
    const gw = await startGateway({ db: engine, queue: 'memory' });
    t.teardown(() => gw.stop());
    const [a, b] = [await newAccount(gw, 100_000), await newAccount(gw, 100_000)];
    const [a1, a2] = await keyIds(gw, a!.session, 2);
    const [b1, b2] = await keyIds(gw, b!.session, 2);
    // one unfinished already, of key a1
    t.is(await answer(submitGrouped(gw.app.db, request(a!.userId, 10, a1!), Date.now())), 'ok');
    const locks = lockReads(gw.app.db);
    const order: Array<[number, number]> = [[a!.userId, a1!], [b!.userId, b1!], [a!.userId, a1!], [b!.userId, b1!], [a!.userId, a2!], [b!.userId, b1!], [b!.userId, b2!], [a!.userId, a2!], [b!.userId, b2!], [b!.userId, b2!]];
    const answers = await Promise.all(order.map(([u, k]) => answer(submitGrouped(gw.app.db, request(u, 10, k), Date.now(), { perKey: 2, perAccount: 3 }))));
    // a1 1/2, account a 1/3: a1 ok (a1 full, a 2); b1 ok; a1 full; b1 ok (b1 full, b 2); a2 ok (a full);
    // b1 full; b2 ok (b full); a2 has room but account a is full; b2 likewise; b2 likewise
    t.deepEqual(answers, ['ok', 'ok', '429 key', 'ok', 'ok', '429 key', 'ok', '429 account', '429 account', '429 account']);
    t.is(locks.length, 1, 'one batch');
    for (const acct of [a!, b!]) t.is(Number((await gw.app.db('predictions').where({ user_id: acct.userId }).count({ n: '*' }))[0]!.n), 3);
    t.deepEqual(await wallet(gw.app.db, a!.userId), { balance: 100_000 - 30, held: 30 });
    t.deepEqual(await wallet(gw.app.db, b!.userId), { balance: 100_000 - 30, held: 30 });
    await assertLedger(t, gw.app.db);
  });

  test(`${engine}: a batch of several wallets with one wallet missing falls back to each alone: the missing one fails alone (402), the others are accepted`, async (t) => {
    const gw = await startGateway({ db: engine, queue: 'memory' });
    t.teardown(() => gw.stop());
    const [a, b] = [await newAccount(gw, 1000), await newAccount(gw, 1000)];
    const max = await gw.app.db('users').max({ id: 'id' }).first<{ id: number | string }>();
    const ghost = Number(max.id) + 1000;
    const locks = lockReads(gw.app.db);
    const ps = [request(a!.userId, 100), request(ghost, 100), request(b!.userId, 100), request(a!.userId, 100), request(b!.userId, 100)];
    const answers = await Promise.all(ps.map((p) => answer(submitGrouped(gw.app.db, p, Date.now(), { perKey: 0, perAccount: 10 }))));
    t.deepEqual(answers, ['ok', '402', 'ok', 'ok', 'ok']);
    t.is(locks.length, 1, 'the five were tried as one batch first');
    for (const acct of [a!, b!]) {
      t.deepEqual(await wallet(gw.app.db, acct.userId), { balance: 800, held: 200 });
      t.deepEqual((await walletHolds(gw.app.db, { userId: acct.userId, teamId: null })).map((r) => r.slice(1)), [[900, 100], [800, 200]]);
    }
    t.is(Number((await gw.app.db('predictions').whereIn('id', ps.map((p) => p.id)).count({ n: '*' }))[0]!.n), 4);
    await assertLedger(t, gw.app.db);
  });
}

test('mysql: two instances whose batches take the same wallets in opposite arrival orders stay exact: credit for k of N per wallet, each wallet\'s hold rows in sequence', async (t) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  const other = createDb({ databaseUrl: gw.env.DATABASE_URL, sqliteFile: '' });
  t.teardown(() => other.destroy());
  const accts: Array<Awaited<ReturnType<typeof newAccount>>> = [];
  for (let i = 0; i < 4; i++) accts.push(await newAccount(gw, 100 * 11));
  const dbs = [gw.app.db, other];
  // instance 0 submits wallets 0, 1, 2, 3 in turn, instance 1 in the opposite order: batches of
  // both name the same wallets in opposite orders, and both lock them in one order
  const answers = await Promise.all(Array.from({ length: 96 }, (_, i) => {
    const side = i % 2;
    const w = side === 0 ? (i >> 1) % 4 : 3 - ((i >> 1) % 4);
    return answer(submitGrouped(dbs[side]!, request(accts[w]!.userId, 100), Date.now(), { perKey: 0, perAccount: 1000 })).then((a) => [w, a] as const);
  }));
  t.deepEqual([...new Set(answers.map(([, a]) => a))].sort(), ['402', 'ok']);
  for (const [w, acct] of accts.entries()) {
    t.is(answers.filter(([x, a]) => x === w && a === 'ok').length, 11, `wallet ${w}`);
    t.deepEqual(await wallet(gw.app.db, acct.userId), { balance: 0, held: 1100 });
    const rows = await walletHolds(gw.app.db, { userId: acct.userId, teamId: null });
    t.deepEqual(rows.map((r) => r.slice(1)), rows.map((_, i) => [1100 - 100 * (i + 1), 100 * (i + 1)]));
  }
  await assertLedger(t, gw.app.db);
});

/** Counts the hold-first batches a knex instance committed rows for (MariaDB). */
function holdFirstWrites(db: Knex): { readonly n: number } {
  const seen = { n: 0 };
  onHoldFirst(db, (wrote) => { if (wrote) seen.n++; });
  return seen;
}

test('mysql: a batch of several wallets that all cover their sums and pass their limits takes its locks with the holds themselves (no locking read): balances, held and hold rows exact per wallet, users\' rows before teams\', each by id', async (t) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  const [a, b, c] = [await newAccount(gw, 300), await newAccount(gw, 1000), await newAccount(gw, 100)];
  const made = await gw.server.inject({ method: 'POST', url: '/app/teams', headers: { authorization: `Bearer ${a!.session}` }, payload: { name: 'first' } });
  t.is(made.statusCode, 201, made.payload);
  const teamId = Number((made.result as { id: number }).id);
  await gw.app.db.transaction((trx) => creditWallet(trx, { userId: a!.userId, teamId }, 250, 'grant', 'test credit', Date.now()));
  const locks = lockReads(gw.app.db);
  const blocks: Array<{ sql: string; bindings: unknown[] }> = [];
  gw.app.db.on('query', (q: { sql: string; bindings?: unknown[] }) => {
    if (HOLD_FIRST.test(q.sql)) blocks.push({ sql: q.sql, bindings: q.bindings ?? [] });
  });
  const writes = holdFirstWrites(gw.app.db);
  const [A, B, C] = [a!.userId, b!.userId, c!.userId];
  // c's wallet is covered exactly; a free request rides along with a wallet that takes holds
  const ps = [request(B, 100), request(A, 100), request(C, 60), request(A, 100, null, teamId), request(A, 100), request(B, 100),
    request(A, 100), request(A, 0), request(A, 100, null, teamId), request(C, 40)];
  const outcomes = ps.map((p) => submitGrouped(gw.app.db, p, Date.now(), { perKey: 0, perAccount: 10 }));
  const answers = await Promise.all(outcomes.map(answer));
  t.deepEqual(answers, ps.map(() => 'ok'));
  t.deepEqual(await Promise.all(outcomes.map((o) => o.then((x) => (x.accepted ? x.balance : undefined)))),
    [900, 200, 40, 150, 100, 800, 0, undefined, 50, 0], 'each answers its own wallet after its own hold');
  t.is(writes.n, 1, 'one hold-first batch');
  t.deepEqual(locks, [], 'no locking read');
  // one statement: the users' UPDATE (ids ascending in its IN list, its bindings first) before the teams'
  t.is(blocks.length, 1);
  t.regex(blocks[0]!.sql, /start transaction;\nupdate `users` [^\n]*\nif ok then update `teams` /);
  const sorted = [A, B, C].sort((x, y) => x - y);
  // after the balance, held and submit_seq cases (an id and a sum each, three wallets)
  t.deepEqual(blocks[0]!.bindings.slice(18, 21).map(Number), sorted, 'the IN list in id order');
  await assertSharedWallets(t, gw.app.db, { A, B, teamId }, ps);
  t.deepEqual(await wallet(gw.app.db, C), { balance: 0, held: 100 });
  t.deepEqual(await walletHolds(gw.app.db, { userId: C, teamId: null }), [[ps[2]!.id, 40, 60], [ps[9]!.id, 0, 100]]);
  t.deepEqual((await holdRows(gw.app.db, B)).map((r) => r.slice(3)), [[110, 5], [110, 5]], 'list price and discount recorded');
  const stored = await gw.app.db('predictions').whereIn('id', ps.map((p) => p.id)).orderBy('id').select('id', 'status') as Array<Record<string, unknown>>;
  t.deepEqual(stored.map((r) => [r.id, r.status]), ps.map((p) => [p.id, 'queued']).sort());
  await assertLedger(t, gw.app.db);
});

test('mysql: after a hold-first batch of a wallet fell back, that wallet\'s next batch goes straight to the locked path, another wallet\'s still holds first; the answers exact either way', async (t) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  const [a, b] = [await newAccount(gw, 250), await newAccount(gw, 1000)];
  const tried: string[] = [];
  gw.app.db.on('query', (q: { sql: string }) => {
    if (HOLD_FIRST.test(q.sql)) tried.push('hold-first');
    else if (/for update$/i.test(q.sql)) tried.push('locked');
  });
  const run = (userId: number, prices: number[]) => Promise.all(prices.map((price) => answer(submitGrouped(gw.app.db, request(userId, price), Date.now(), { perKey: 0, perAccount: 100 }))));
  // 300 asked of 250: the hold-first UPDATE matches nothing, the locked path decides
  t.deepEqual(await run(a!.userId, [100, 100, 100]), ['ok', 'ok', '402']);
  t.deepEqual(tried, ['hold-first', 'locked']);
  t.deepEqual(await run(a!.userId, [10, 10, 40]), ['ok', 'ok', '402']);
  t.deepEqual(tried.slice(2), ['locked'], 'the same wallet, straight to the locked path');
  t.deepEqual(await run(b!.userId, [100, 100]), ['ok', 'ok']);
  t.deepEqual(tried.slice(3), ['hold-first'], 'another wallet holds first');
  t.deepEqual(await wallet(gw.app.db, a!.userId), { balance: 30, held: 220 });
  t.deepEqual(await wallet(gw.app.db, b!.userId), { balance: 800, held: 200 });
  await assertLedger(t, gw.app.db);
});

test('mysql: two instances submitting to one wallet with two keys, most batches hold-first: 429 exactly at the per-key and per-account limits, 402 exactly at the credit, the ledger exact', async (t) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  const other = createDb({ databaseUrl: gw.env.DATABASE_URL, sqliteFile: '' });
  t.teardown(() => other.destroy());
  const dbs = [gw.app.db, other];
  const writes = dbs.map(holdFirstWrites);

  // limits: key k1 9, the account 15 (k2 alone could take 15)
  const acct = await newAccount(gw, 100_000);
  const [k1, k2] = await keyIds(gw, acct.session, 2);
  const limits: ConcurrencyLimits = { perKey: 9, perAccount: 15 };
  const keyOf = (i: number) => (i % 3 === 0 ? k1! : k2!);
  const submitted: Array<{ key: number; answer: Promise<string> }> = [];
  for (let round = 0; round < 6; round++) {
    // rounds of 10 submits across both instances, each round after the last answered, so that batches of both instances interleave
    const batch = Array.from({ length: 10 }, (_, j) => {
      const key = keyOf(round * 10 + j);
      return { key, answer: answer(submitGrouped(dbs[j % 2]!, { ...request(acct.userId, 7, key) }, Date.now(), { ...limits, perKey: key === k1 ? 9 : 100 })) };
    });
    submitted.push(...batch);
    await Promise.all(batch.map((b) => b.answer));
  }
  const results = await Promise.all(submitted.map(async (s) => ({ key: s.key, a: await s.answer })));
  t.is(results.filter((r) => r.a === 'ok').length, 15, 'exactly the account limit');
  t.true(results.filter((r) => r.key === k1 && r.a === 'ok').length <= 9);
  t.true(results.every((r) => ['ok', '429 key', '429 account'].includes(r.a)), results.map((r) => r.a).join(','));
  t.deepEqual(await wallet(gw.app.db, acct.userId), { balance: 100_000 - 15 * 7, held: 15 * 7 });

  // the same, all at once (the two instances' batches racing), on a fresh account
  const acct2 = await newAccount(gw, 100_000);
  const [m1, m2] = await keyIds(gw, acct2.session, 2);
  const racing = await Promise.all(Array.from({ length: 80 }, (_, i) => {
    const key = i % 4 === 0 ? m1! : m2!;
    return answer(submitGrouped(dbs[i % 2]!, request(acct2.userId, 3, key), Date.now(), { perKey: key === m1 ? 6 : 1000, perAccount: 31 })).then((a) => ({ key, a }));
  }));
  t.is(racing.filter((r) => r.a === 'ok').length, 31);
  t.true(racing.filter((r) => r.key === m1 && r.a === 'ok').length <= 6);
  const stored = await gw.app.db('predictions').where({ user_id: acct2.userId }).select('api_key_id') as Array<{ api_key_id: number }>;
  t.is(stored.length, 31);
  t.true(stored.filter((r) => Number(r.api_key_id) === m1).length <= 6);
  t.deepEqual(await wallet(gw.app.db, acct2.userId), { balance: 100_000 - 31 * 3, held: 31 * 3 });

  // credit for 29 of 70 at once: exactly 29 accepted, the rest 402
  const acct3 = await newAccount(gw, 50 * 29);
  const credit = await Promise.all(Array.from({ length: 70 }, (_, i) => answer(submitGrouped(dbs[i % 2]!, request(acct3.userId, 50), Date.now(), { perKey: 0, perAccount: 1000 }))));
  t.is(credit.filter((a) => a === 'ok').length, 29);
  t.is(credit.filter((a) => a === '402').length, 41);
  t.deepEqual(await wallet(gw.app.db, acct3.userId), { balance: 0, held: 50 * 29 });
  const rows = await holdRows(gw.app.db, acct3.userId);
  t.deepEqual(rows.map((r) => [r[1], r[2]]), rows.map((_, i) => [50 * 29 - 50 * (i + 1), 50 * (i + 1)]));

  t.true(writes.every((w) => w.n >= 1), `both instances committed hold-first batches (${writes.map((w) => w.n).join(', ')})`);
  await assertLedger(t, gw.app.db);
});

test('mysql: a hold-first batch counts before its lock; submits of the wallet that commit in between are added to those counts, and a bound at the limit makes it count again under the lock: 429 exactly at the limit', async (t) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  const other = createDb({ databaseUrl: gw.env.DATABASE_URL, sqliteFile: '' });
  t.teardown(() => other.destroy());
  const acct = await newAccount(gw, 10_000);
  const limits: ConcurrencyLimits = { perKey: 0, perAccount: 4 };
  // three unfinished: room for one more
  for (let i = 0; i < 3; i++) t.is(await answer(submitGrouped(gw.app.db, request(acct.userId, 10), Date.now(), limits)), 'ok');
  const statements: string[] = [];
  gw.app.db.on('query', (q: { sql: string }) => {
    if (/submit_seq from users/.test(q.sql)) statements.push('read');
    else if (HOLD_FIRST.test(q.sql)) statements.push('hold-first');
    else if (/^select \(select count/i.test(q.sql)) statements.push('count');
    else if (/for update$/i.test(q.sql)) statements.push('locked path');
  });
  // another instance's submit holds the wallet's lock, its prediction written but not committed
  const trx = await other.transaction();
  const single = submitPrediction(trx, request(acct.userId, 10), Date.now(), limits);
  t.is(await answer(single), 'ok');
  // the batch reads the counts (3: the fourth is not committed yet); the other commits as that read answers, so before
  // the batch's UPDATE takes the lock (which waits for that commit if it comes first)
  const committed = commitOnRead(gw.app.db, trx);
  const batched = [request(acct.userId, 10), request(acct.userId, 10)].map((p) => answer(submitGrouped(gw.app.db, p, Date.now(), { ...limits, perAccount: 5 })));
  await committed;
  // 4 unfinished once the other committed: one more fits the limit of 5, the second is refused
  t.deepEqual(await Promise.all(batched), ['ok', '429 account']);
  // counted again under the lock, inside the hold-first statement (5: the other's included), refused there; the locked path decides
  t.deepEqual(statements, ['read', 'hold-first', 'locked path', 'count']);
  t.is(Number((await gw.app.db('predictions').where({ user_id: acct.userId }).count({ n: '*' }))[0]!.n), 5);
  t.deepEqual(await wallet(gw.app.db, acct.userId), { balance: 10_000 - 50, held: 50 });

  // a submit committed in between, far from the limit: the counts read plus it decide, no count under the lock
  const acct3 = await newAccount(gw, 10_000);
  const trx3 = await other.transaction();
  t.is(await answer(submitPrediction(trx3, request(acct3.userId, 10), Date.now(), { perKey: 0, perAccount: 100 })), 'ok');
  statements.length = 0;
  const committed3 = commitOnRead(gw.app.db, trx3);
  const far = [request(acct3.userId, 10), request(acct3.userId, 10)].map((p) => answer(submitGrouped(gw.app.db, p, Date.now(), { perKey: 0, perAccount: 100 })));
  await committed3;
  t.deepEqual(await Promise.all(far), ['ok', 'ok']);
  t.deepEqual(statements, ['read', 'hold-first']);
  t.is(Number((await gw.app.db('predictions').where({ user_id: acct3.userId }).count({ n: '*' }))[0]!.n), 3);

  // a bound past the limit, but one of the counted predictions finished meanwhile: counted again
  // inside the hold-first statement, within the limit there, and accepted by it
  const acct4 = await newAccount(gw, 10_000);
  const limits4: ConcurrencyLimits = { perKey: 0, perAccount: 5 };
  const first4 = request(acct4.userId, 0);
  t.is(await answer(submitGrouped(gw.app.db, first4, Date.now(), limits4)), 'ok');
  for (let i = 0; i < 2; i++) t.is(await answer(submitGrouped(gw.app.db, request(acct4.userId, 10), Date.now(), limits4)), 'ok');
  const trx4 = await other.transaction();
  t.is(await answer(submitPrediction(trx4, request(acct4.userId, 10), Date.now(), limits4)), 'ok');
  await trx4('predictions').where({ id: first4.id }).update({ status: 'completed' });
  statements.length = 0;
  const committed4 = commitOnRead(gw.app.db, trx4);
  // counted 3 before the lock, room for 2 with none recorded meanwhile; one recorded (a bound of 4 + 2 > 5), one finished (3 + 2 = 5)
  const near = [request(acct4.userId, 10), request(acct4.userId, 10)].map((p) => answer(submitGrouped(gw.app.db, p, Date.now(), limits4)));
  await committed4;
  t.deepEqual(await Promise.all(near), ['ok', 'ok']);
  t.deepEqual(statements, ['read', 'hold-first'], 'accepted by the count inside the statement, not by the locked path');
  t.is(Number((await gw.app.db('predictions').where({ user_id: acct4.userId }).whereIn('status', ['queued']).count({ n: '*' }))[0]!.n), 5);

  // with nothing committed in between, the counts read before the lock decide: no count under it
  statements.length = 0;
  const acct2 = await newAccount(gw, 10_000);
  t.deepEqual(await Promise.all([request(acct2.userId, 10), request(acct2.userId, 10)].map((p) => answer(submitGrouped(gw.app.db, p, Date.now(), { perKey: 0, perAccount: 2 })))), ['ok', 'ok']);
  t.deepEqual(statements, ['read', 'hold-first']);
  await assertLedger(t, gw.app.db);
});

/** Polls `condition` every 10 ms (InnoDB refreshes information_schema.innodb_trx at most every 100 ms), for up to 10 s. */
/** Commits `trx` as soon as `db` has the answer of a hold-first batch's read of the counts (its next statement is the hold-first statement, whose UPDATE takes the wallet locks). */
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

for (const engine of ['mysql', 'sqlite'] as const) {
  test(`${engine}: every submit the limits count raises its wallet's submit_seq by one, in the statement that locks the wallet: a hold, a free counted submit, a batch (holding or free only), a team's wallet`, async (t) => {
    const gw = await startGateway({ db: engine, queue: 'memory' });
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, 10_000);
    const made = await gw.server.inject({ method: 'POST', url: '/app/teams', headers: { authorization: `Bearer ${acct.session}` }, payload: { name: 'seq' } });
    const teamId = Number((made.result as { id: number }).id);
    await gw.app.db.transaction((trx) => creditWallet(trx, { userId: acct.userId, teamId }, 1000, 'grant', 'test credit', Date.now()));
    const seq = async () => {
      const u = await gw.app.db('users').where({ id: acct.userId }).first<{ submit_seq: unknown }>('submit_seq');
      const tm = await gw.app.db('teams').where({ id: teamId }).first<{ submit_seq: unknown }>('submit_seq');
      return [Number(u.submit_seq), Number(tm.submit_seq)];
    };
    const limits: ConcurrencyLimits = { perKey: 0, perAccount: 100 };
    const start = await seq();
    const step = async (what: string, run: () => Promise<unknown>, expected: [number, number]) => {
      const before = await seq();
      await run();
      const after = await seq();
      t.deepEqual([after[0]! - before[0]!, after[1]! - before[1]!], expected, what);
    };
    await step('a single priced submit (its hold)', () => submitPrediction(gw.app.db, request(acct.userId, 10), Date.now(), limits), [1, 0]);
    await step('a single priced submit without limits', () => submitPrediction(gw.app.db, request(acct.userId, 10), Date.now()), [1, 0]);
    await step('a single free submit with limits (lockWallet)', () => submitPrediction(gw.app.db, request(acct.userId, 0), Date.now(), limits), [1, 0]);
    await step('a single free submit with no limit (not counted, no lock)', () => submitPrediction(gw.app.db, request(acct.userId, 0), Date.now()), [0, 0]);
    await step('a batch of one wallet, all accepted', () => Promise.all([10, 10, 0].map((price) => submitGrouped(gw.app.db, request(acct.userId, price), Date.now(), limits))), [3, 0]);
    await step('a batch of two wallets, one short (the locked path)', () => Promise.all([request(acct.userId, 10), request(acct.userId, 10, null, teamId), request(acct.userId, 5000, null, teamId)].map((p) => answer(submitGrouped(gw.app.db, p, Date.now(), limits)))), [1, 1]);
    await step('a batch of free submits only (the locked path)', () => Promise.all([0, 0].map((price) => submitGrouped(gw.app.db, request(acct.userId, price, null, teamId), Date.now(), limits))), [0, 2]);
    await step('a batch of priced and free submits of one wallet, one short (the locked path)', () => Promise.all([request(acct.userId, 10), request(acct.userId, 0), request(acct.userId, 10 ** 9)].map((p) => answer(submitGrouped(gw.app.db, p, Date.now(), limits)))), [2, 0]);
    t.true((await seq())[0]! > start[0]!);
    await assertLedger(t, gw.app.db);
  });
}

test('mysql: an unfinished count stops at its bound: it reads about as many index entries as the limit, not the backlog', async (t) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 0);
  const now = Date.now();
  await gw.app.db('predictions').insert(Array.from({ length: 300 }, () => ({
    id: newPredictionId(now), user_id: acct.userId, team_id: null, api_key_id: null, model: MODEL, status: 'queued', is_test: false,
    input: '{}', price: 0, webhook_url: null, created_at: now, updated_at: now,
  })));
  const owner = { userId: acct.userId, teamId: null };
  // one connection for the status counters and the count between them
  const reads = (bound: number) => gw.app.db.transaction(async (trx) => {
    const before = await handlerReads(trx);
    const [n] = await unfinishedCounts(trx, [{ scope: { owner }, bound }]);
    return { n, read: await handlerReads(trx) - before };
  });
  const bounded = await reads(10);
  const whole = await reads(100_000);
  t.is(bounded.n, 10);
  t.is(whole.n, 300);
  t.true(bounded.read <= 20, `bounded count read ${bounded.read} index entries`);
  t.true(whole.read >= 300, `whole count read ${whole.read} index entries`);
});

/** The session's index reads so far (Handler_read_key + Handler_read_next), MariaDB. */
async function handlerReads(trx: Knex): Promise<number> {
  const [rows] = await trx.raw("show session status where Variable_name in ('Handler_read_key', 'Handler_read_next')") as unknown as [Array<{ Value: string }>];
  return rows.reduce((sum, r) => sum + Number(r.Value), 0);
}

test('mariadb: a submit alone takes the hold-first statement too, answering as submitPrediction does; short of credit or at its limit it is refused as before', async (t) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  const [acct, limited, plain] = [await newAccount(gw, 250), await newAccount(gw, 1000), await newAccount(gw, 250)];
  const statements: boolean[] = [];
  onHoldFirst(gw.app.db, (wrote) => statements.push(wrote));
  const limits = { perKey: 0, perAccount: 10 };
  const one = await submitGrouped(gw.app.db, request(acct.userId, 100), Date.now(), limits);
  t.deepEqual(statements, [true], 'one hold-first statement, which wrote its rows');
  // the same answer submitPrediction gives alone: accepted, the balance left, the row the worker's claim carries
  const alone = await submitPrediction(gw.app.db, request(plain.userId, 100), Date.now(), limits);
  t.like(one, { accepted: true, balance: 150 });
  t.like(alone, { accepted: true, balance: 150 });
  t.deepEqual(Object.keys(one).sort(), Object.keys(alone).sort());
  // short of credit: the statement rolls back (nothing written), and the request alone is refused
  t.is(await answer(submitGrouped(gw.app.db, request(acct.userId, 200), Date.now(), limits)), '402');
  t.deepEqual(statements, [true, false]);
  t.deepEqual(await wallet(gw.app.db, acct.userId), { balance: 150, held: 100 });
  // at the account's limit: the counts read before refuse it (no statement), and so does the request alone
  const one1 = { perKey: 0, perAccount: 1 };
  t.is(await answer(submitGrouped(gw.app.db, request(limited.userId, 10), Date.now(), one1)), 'ok');
  t.is(await answer(submitGrouped(gw.app.db, request(limited.userId, 10), Date.now(), one1)), '429 account');
  t.deepEqual(statements, [true, false, true]);
  t.deepEqual(await wallet(gw.app.db, limited.userId), { balance: 990, held: 10 });
  t.is((await holdRows(gw.app.db, acct.userId)).length, 1);
  await assertLedger(t, gw.app.db);
});
