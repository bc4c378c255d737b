// The store contract: what every engine behind the Store interface (db/store/types.ts) must do,
// through `app.store` of a real gateway on that engine. Registered once per engine, from
// test/db/store-sqlite.test.ts, store-mariadb.test.ts and store-mysql.test.ts (MariaDB answering as
// MySQL: asIfMysql); what only one engine can show (its programs, its ticket, its statements)
// stays in that engine's own file. Nothing here reads the SQL an engine sends: each test asserts
// the answers, the rows and the ledger (checked after each test that moves money).
import test from 'ava';
import type { ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { newAccount } from '../helpers/gateway.ts';
import type { Account, GatewayOptions, TestGateway } from '../helpers/gateway.ts';
import { assertLedger } from '../helpers/ledger.ts';
import { createDb } from '../../db/knex.ts';
import { openStore } from '../../db/store/index.ts';
import type { Completion, ConcurrencyLimits, EngineName, Store, SubmitOutcome } from '../../db/store/types.ts';
import { findPredictionById, newPredictionId } from '../../db/predictions/record.ts';
import type { NewPrediction, Prediction } from '../../db/predictions/record.ts';
import { InsufficientCreditError } from '../../db/errors.ts';
import { findUnfinished, releaseOrphanedClaims } from '../../db/predictions/sweeps.ts';
import { creditWallet, releaseFor } from '../../db/wallet/moves.ts';
import { eraseAccount } from '../../db/account-deletion.ts';
import { keySpend } from '../../db/key-spend.ts';
import { monthSpend } from '../../db/alerts.ts';
import type { Owner } from '../../lib/caller.ts';

export const MODEL = 'canvas-v1-fast-text-to-image';

export interface EngineUnderTest {
  name: EngineName;
  /** a gateway whose store runs on this engine (the in-process queue unless asked otherwise) */
  gateway(opts?: Omit<GatewayOptions, 'db' | 'asIfMysql'>): Promise<TestGateway>;
  /** a second knex instance on the gateway's database, as another process would have (not SQLite: one process) */
  secondDb?(gw: TestGateway): Knex;
  /** lock conflicts can be provoked (a trigger that signals a deadlock): MariaDB and MySQL */
  conflicts: boolean;
}

/** A production request of `userId` (its team's when `teamId`), with a list price and discount recorded on its hold. */
export function request(userId: number, price: number, apiKeyId: number | null = null, teamId: number | null = null): NewPrediction {
  return { id: newPredictionId(Date.now()), userId, teamId, apiKeyId, model: MODEL, input: { prompt: 'a lighthouse' }, price, listPrice: price + 10, discountPercent: 5, webhookUrl: null };
}

/** What a submit came to: 'ok', '402', '429 key' / '429 account', or the error's message. */
export async function answer(p: Promise<SubmitOutcome>): Promise<string> {
  try {
    const o = await p;
    return o.accepted ? 'ok' : `429 ${o.scope}`;
  } catch (err) {
    return err instanceof InsufficientCreditError ? '402' : String((err as Error).message);
  }
}

export async function wallet(db: Knex, w: Owner): Promise<{ balance: number; held: number }> {
  const row = await db(w.teamId === null ? 'users' : 'teams').where({ id: w.teamId ?? w.userId }).first<{ balance: unknown; held: unknown }>('balance', 'held');
  return { balance: Number(row.balance), held: Number(row.held) };
}

const personal = (userId: number): Owner => ({ userId, teamId: null });

function ledgerOf(db: Knex, w: Owner): Knex.QueryBuilder {
  const q = db('credit_transactions').orderBy('id');
  return w.teamId === null ? q.where({ user_id: w.userId }).whereNull('team_id') : q.where({ team_id: w.teamId });
}

/** A wallet's hold rows, in id order, as [prediction_id, balance_after, held_after]. */
export async function walletHolds(db: Knex, w: Owner): Promise<Array<[string, number, number]>> {
  const rows = await ledgerOf(db, w).where({ kind: 'hold' }).select('prediction_id', 'balance_after', 'held_after') as Array<Record<string, unknown>>;
  return rows.map((r) => [String(r.prediction_id), Number(r.balance_after), Number(r.held_after)]);
}

/** Each ledger row of a wallet records the wallet the sums of the rows up to it give; answers the rows. */
export async function assertRowsInSequence(t: ExecutionContext, db: Knex, w: Owner): Promise<Array<{ kind: string; prediction_id: string | null }>> {
  const rows = await ledgerOf(db, w).select('kind', 'amount', 'held_change', 'balance_after', 'held_after', 'prediction_id', 'list_price', 'discount_percent') as Array<Record<string, unknown>>;
  let balance = 0;
  let held = 0;
  for (const r of rows) {
    held += Number(r.held_change);
    balance += Number(r.amount) - Number(r.held_change);
    t.deepEqual([Number(r.balance_after), Number(r.held_after)], [balance, held], `row ${String(r.kind)} ${String(r.prediction_id)}`);
  }
  return rows as Array<{ kind: string; prediction_id: string | null }>;
}

export async function keyIds(gw: TestGateway, session: string, n: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await gw.server.inject({ method: 'POST', url: '/api/v1/keys', headers: { authorization: `Bearer ${session}` }, payload: { name: `k${i}` } });
    ids.push((res.result as { id: number }).id);
  }
  return ids;
}

/** A team of `acct` with `credit` in its wallet (through the ledger). */
export async function teamOf(gw: TestGateway, acct: Account, credit: number): Promise<number> {
  const made = await gw.server.inject({ method: 'POST', url: '/app/teams', headers: { authorization: `Bearer ${acct.session}` }, payload: { name: `team ${acct.userId}` } });
  if (made.statusCode !== 201) throw new Error(made.payload);
  const teamId = Number((made.result as { id: number }).id);
  if (credit) await gw.app.db.transaction((trx) => creditWallet(trx, { userId: acct.userId, teamId }, credit, 'grant', 'test credit', Date.now()));
  return teamId;
}

/** n predictions submitted one by one and claimed by their first delivery; every third with a webhook. */
export async function claimed(gw: TestGateway, userId: number, n: number, price = 50, teamId: number | null = null): Promise<Prediction[]> {
  const out: Prediction[] = [];
  for (let i = 0; i < n; i++) {
    const p: NewPrediction = {
      id: newPredictionId(Date.now()), userId, teamId, apiKeyId: null, model: MODEL, input: { prompt: `p${i}` }, price, listPrice: price + 10, discountPercent: 16,
      webhookUrl: i % 3 === 0 ? 'https://example.com/hook' : null,
    };
    const outcome = await gw.app.store.submit({ p, now: Date.now() });
    if (!outcome.accepted) throw new Error('refused');
    const claim = await gw.app.store.claim({ id: p.id, now: Date.now(), takeOver: false, ticket: outcome.ticket });
    if (!claim) throw new Error('not claimed');
    out.push(claim);
  }
  return out;
}

export const completion = (p: Prediction, i: number): Completion => ({ p, result: { outputs: [`outputs/${p.id}/0.png`], nsfw: [i % 5 === 1], inferenceMs: i + 0.4 }, now: Date.now() + i });

const count = async (q: Knex.QueryBuilder) => Number((await q.count({ n: '*' }))[0]!.n);

/** The contract's gateways at once in one file, and each one's database connections (see gatewayFor). */
const GATEWAYS_AT_ONCE = 8;
const GATEWAY_POOL_MAX = 6;

export function storeContract(engine: EngineUnderTest): void {
  const prefix = `${engine.name}: `;
  // The file's 40 tests run at once; each holds a gateway with its own connection pool (and some a
  // second one). At most GATEWAYS_AT_ONCE of them at a time, with DB_POOL_MAX connections each, so
  // that two such files running together stay within the server's default 151 connections.
  let running = 0;
  const waiting: Array<() => void> = [];
  const gatewayFor = async (t: ExecutionContext, opts?: Omit<GatewayOptions, 'db' | 'asIfMysql'>) => {
    if (running >= GATEWAYS_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    const release = () => {
      running -= 1;
      waiting.shift()?.();
    };
    let gw: TestGateway;
    try {
      gw = await engine.gateway({ ...opts, env: { DB_POOL_MAX: String(GATEWAY_POOL_MAX), ...opts?.env } });
    } catch (err) {
      release();
      throw err;
    }
    t.teardown(async () => {
      try {
        await gw.stop();
      } finally {
        release();
      }
    });
    return gw;
  };

  test(`${prefix}the store says which engine it was opened for`, async (t) => {
    const gw = await gatewayFor(t);
    t.is(gw.app.store.engine, engine.name);
  });

  // ============================================================
  // Submit: holds and limits
  // ============================================================

  test(`${prefix}parallel submits of one wallet with credit for k of N: exactly k are held, in arrival order, the rest 402; each hold row records the wallet after it, each answer its own balance`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 1000);
    const ps = Array.from({ length: 12 }, () => request(acct.userId, 150));
    const answers = await Promise.all(ps.map((p) => answer(gw.app.store.submit({ p, now: Date.now(), limits: { perKey: 0, perAccount: 0 } }))));
    // 1000 covers six holds of 150, decided in arrival order
    t.deepEqual(answers, ['ok', 'ok', 'ok', 'ok', 'ok', 'ok', '402', '402', '402', '402', '402', '402']);
    const accepted = ps.slice(0, 6).map((p) => p.id);
    t.deepEqual(await walletHolds(gw.app.db, personal(acct.userId)), accepted.map((id, i) => [id, 1000 - 150 * (i + 1), 150 * (i + 1)]));
    t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 100, held: 900 });
    const stored = await gw.app.db('predictions').where({ user_id: acct.userId }).orderBy('id').select('id', 'price', 'list_price', 'discount_percent', 'status') as Array<Record<string, unknown>>;
    t.deepEqual(stored.map((r) => [r.id, Number(r.price), Number(r.list_price), Number(r.discount_percent), r.status]), accepted.map((id) => [id, 150, 160, 5, 'queued']).sort());
    // the balance each accepted submit answers is the one after its own hold
    const outcomes = await Promise.all([request(acct.userId, 40), request(acct.userId, 30), request(acct.userId, 20)].map((p) => gw.app.store.submit({ p, now: Date.now() })));
    t.deepEqual(outcomes.map((o) => (o.accepted ? o.balance : undefined)), [60, 30, 10]);
    await assertRowsInSequence(t, gw.app.db, personal(acct.userId));
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}every value of the rows and hold rows submitted together is written exactly: inputs with ? marks, quotes, backslashes and non-ASCII, null and set columns, free and priced rows together`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 10_000);
    const awkward = ["what? ?? '?'", "it's \\ a \"quote\" \\'; drop table users; --", 'nul\u0000 byte', 'ünïcödé 灯台 🌊', '`backtick` @mg_held'];
    const ps: NewPrediction[] = awkward.map((prompt, i) => ({
      ...request(acct.userId, i % 2 === 0 ? 70 : 0), input: { prompt, n: i },
      webhookUrl: i === 1 ? 'https://example.com/hook?a=1&b=\'2\'' : null, httpRequestId: i === 2 ? "req-'?'" : null, source: i === 3 ? 'dashboard' : undefined,
      discountPercent: i === 4 ? null : 5,
    }));
    const now = Date.now();
    const answers = await Promise.all(ps.map((p) => answer(gw.app.store.submit({ p, now, limits: { perKey: 0, perAccount: 100 } }))));
    t.deepEqual(answers, ['ok', 'ok', 'ok', 'ok', 'ok']);
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

  test(`${prefix}N parallel submits with room for k unfinished per account admit exactly k; per-key limits of mixed keys count the ones accepted before; free submits with limits hold nothing; the credit is checked before the counts`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 100_000);
    const [a, b] = await keyIds(gw, acct.session, 2);
    // two unfinished already (one per key)
    for (const k of [a!, b!]) t.is(await answer(gw.app.store.submit({ p: request(acct.userId, 10, k), now: Date.now() })), 'ok');
    const limits: ConcurrencyLimits = { perKey: 3, perAccount: 5 };
    const order = [a, b, a, a, b, a, b, b, a, b].map((k) => request(acct.userId, 10, k!));
    const answers = await Promise.all(order.map((p) => answer(gw.app.store.submit({ p, now: Date.now(), limits }))));
    // a: 1 unfinished, b: 1, account 2. a -> a2 (acct 3); b -> b2 (4); a -> a3 (5); a: key a full;
    // b: account full (key b has room, so the account names the refusal); and so on
    t.deepEqual(answers, ['ok', 'ok', 'ok', '429 key', '429 account', '429 key', '429 account', '429 account', '429 key', '429 account']);
    t.is(await count(gw.app.db('predictions').where({ user_id: acct.userId })), 5);
    t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 100_000 - 50, held: 50 });

    const acct2 = await newAccount(gw, 0);
    const free = Array.from({ length: 8 }, () => request(acct2.userId, 0));
    const freeAnswers = await Promise.all(free.map((p) => answer(gw.app.store.submit({ p, now: Date.now(), limits: { perKey: 0, perAccount: 4 } }))));
    t.deepEqual(freeAnswers, ['ok', 'ok', 'ok', 'ok', '429 account', '429 account', '429 account', '429 account']);
    t.is(await count(gw.app.db('credit_transactions').where({ user_id: acct2.userId, kind: 'hold' })), 0);

    // 402 and 429 together: the credit before the counts (the hold comes first); the last, free, is refused by the limit only
    const acct3 = await newAccount(gw, 25);
    const mixed = [10, 10, 10, 5, 0].map((price) => request(acct3.userId, price));
    const mixedAnswers = await Promise.all(mixed.map((p) => answer(gw.app.store.submit({ p, now: Date.now(), limits: { perKey: 0, perAccount: 3 } }))));
    t.deepEqual(mixedAnswers, ['ok', 'ok', '402', 'ok', '429 account']);
    t.deepEqual(await wallet(gw.app.db, personal(acct3.userId)), { balance: 0, held: 25 });
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}a submit refused by a concurrency limit holds nothing: wallet, ledger and predictions unchanged`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 10_000);
    const sub = () => gw.app.store.submit({ p: { ...request(acct.userId, 100), listPrice: undefined, discountPercent: undefined }, now: Date.now(), limits: { perKey: 0, perAccount: 2 } });
    t.like(await sub(), { accepted: true, balance: 9900 });
    t.like(await sub(), { accepted: true, balance: 9800 });
    const before = await count(gw.app.db('credit_transactions').where({ user_id: acct.userId }));
    t.deepEqual(await sub(), { accepted: false, scope: 'account', limit: 2 });
    t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 9800, held: 200 });
    t.is(await count(gw.app.db('credit_transactions').where({ user_id: acct.userId })), before);
    t.is(await count(gw.app.db('predictions').where({ user_id: acct.userId })), 2);
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}a wallet's hard monthly budget admits exactly what fits of parallel submits (with a key's spend limit and concurrency limits too); the rest hold nothing; without the flag nothing is checked`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 10_000);
    await gw.app.db('users').where({ id: acct.userId }).update({ monthly_budget: 450, monthly_budget_hard: true });
    const [keyId] = await keyIds(gw, acct.session, 1);
    await gw.app.db('api_keys').where({ id: keyId }).update({ spend_limit: 10_000, spend_limit_period: 'month' });
    const ps = Array.from({ length: 10 }, (_, i) => request(acct.userId, 100, i % 2 ? keyId! : null));
    const outcomes = await Promise.all(ps.map((p) => gw.app.store.submit({ p, now: Date.now(), hardBudget: true, keySpendLimited: p.apiKeyId !== null, limits: { perKey: 0, perAccount: 50 } })));
    t.is(outcomes.filter((o) => o.accepted).length, 4);
    for (const o of outcomes.filter((x) => !x.accepted)) t.deepEqual(o, { accepted: false, scope: 'budget', limit: 450 });
    t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 9600, held: 400 });
    t.is(await count(gw.app.db('predictions').where({ user_id: acct.userId })), 4);
    // a failed prediction gave its hold back: it no longer counts toward the month
    const failed = (await gw.app.db('predictions').where({ user_id: acct.userId }).first('id')).id as string;
    await gw.app.db('predictions').where({ id: failed }).update({ status: 'failed' });
    t.like(await gw.app.store.submit({ p: request(acct.userId, 100), now: Date.now(), hardBudget: true }), { accepted: true });
    t.like(await gw.app.store.submit({ p: request(acct.userId, 100), now: Date.now(), hardBudget: true }), { accepted: false, scope: 'budget' });
    // the flag is the caller's word that a budget is set: without it the submit is not checked
    t.like(await gw.app.store.submit({ p: request(acct.userId, 100), now: Date.now() }), { accepted: true });
    await assertRowsInSequence(t, gw.app.db, personal(acct.userId));
  });

  test(`${prefix}a submit among others that fails (a duplicate id) fails alone: the others are accepted, nothing is held twice`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 1000);
    const first = request(acct.userId, 100);
    const dup = { ...request(acct.userId, 100), id: first.id };
    t.is(await answer(gw.app.store.submit({ p: first, now: Date.now(), limits: { perKey: 0, perAccount: 10 } })), 'ok');
    const others = [request(acct.userId, 100), dup, request(acct.userId, 100), request(acct.userId, 100)];
    const answers = await Promise.all(others.map((p) => answer(gw.app.store.submit({ p, now: Date.now(), limits: { perKey: 0, perAccount: 10 } }))));
    t.deepEqual(answers.map((a, i) => (i === 1 ? /duplicate|unique/i.test(a) : a)), ['ok', true, 'ok', 'ok'], answers.join('\n'));
    t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 600, held: 400 });
    t.is((await walletHolds(gw.app.db, personal(acct.userId))).length, 4);
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}a team's wallet takes its members' submits together: held on the team, each hold row naming its member, nothing on the member's own wallet; a deleted team holds nothing`, async (t) => {
    const gw = await gatewayFor(t);
    const owner = await newAccount(gw, 0);
    const member = await newAccount(gw, 0);
    const teamId = await teamOf(gw, owner, 500);
    const ps = [owner, member, owner, member, owner, member].map((a) => request(a.userId, 100, null, teamId));
    const answers = await Promise.all(ps.map((p) => answer(gw.app.store.submit({ p, now: Date.now(), limits: { perKey: 0, perAccount: 4 } }))));
    t.deepEqual(answers, ['ok', 'ok', 'ok', 'ok', '429 account', '429 account']);
    t.deepEqual(await wallet(gw.app.db, { userId: owner.userId, teamId }), { balance: 100, held: 400 });
    const rows = await gw.app.db('credit_transactions').where({ team_id: teamId, kind: 'hold' }).orderBy('id').select('user_id', 'prediction_id', 'balance_after') as Array<Record<string, unknown>>;
    t.deepEqual(rows.map((r) => [Number(r.user_id), r.prediction_id, Number(r.balance_after)]), ps.slice(0, 4).map((p, i) => [p.userId, p.id, 500 - 100 * (i + 1)]));
    t.is(await count(gw.app.db('credit_transactions').where({ user_id: member.userId }).whereNull('team_id')), 0);

    await gw.app.db('teams').where({ id: teamId }).update({ deleted_at: Date.now() });
    const late = await Promise.all([owner, member, owner].map((a) => answer(gw.app.store.submit({ p: request(a.userId, 10, null, teamId), now: Date.now() }))));
    t.deepEqual(late, ['402', '402', '402']);
    t.is(await answer(gw.app.store.submit({ p: request(owner.userId, 10, null, teamId), now: Date.now() })), '402', 'alone too');
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}submits of several wallets at once: each wallet's own credit decides (402 for one while the others pass), balances, held and hold rows exact per wallet, each answer its own wallet's balance`, async (t) => {
    const gw = await gatewayFor(t);
    const [a, b, c] = [await newAccount(gw, 300), await newAccount(gw, 1000), await newAccount(gw, 0)];
    const teamId = await teamOf(gw, a!, 250);
    const [A, B, C] = [a!.userId, b!.userId, c!.userId];
    // arrival order: the wallets interleaved; c's first has no credit, its second is free
    const ps = [request(B, 100), request(A, 100), request(C, 100), request(A, 100, null, teamId), request(A, 100), request(B, 100),
      request(A, 100), request(A, 100), request(A, 100, null, teamId), request(A, 100, null, teamId), request(C, 0)];
    const outcomes = ps.map((p) => gw.app.store.submit({ p, now: Date.now(), limits: { perKey: 0, perAccount: 10 } }));
    t.deepEqual(await Promise.all(outcomes.map(answer)), ['ok', 'ok', '402', 'ok', 'ok', 'ok', 'ok', '402', 'ok', '402', 'ok']);
    t.deepEqual(await Promise.all(outcomes.map((o) => o.then((x) => (x.accepted ? x.balance : undefined), () => undefined))),
      [900, 200, undefined, 150, 100, 800, 0, undefined, 50, undefined, undefined]);
    t.deepEqual(await wallet(gw.app.db, personal(A)), { balance: 0, held: 300 });
    t.deepEqual(await wallet(gw.app.db, personal(B)), { balance: 800, held: 200 });
    t.deepEqual(await wallet(gw.app.db, { userId: A, teamId }), { balance: 50, held: 200 });
    t.deepEqual(await wallet(gw.app.db, personal(C)), { balance: 0, held: 0 });
    const seq = (ids: string[], start: number) => ids.map((id, i) => [id, start - 100 * (i + 1), 100 * (i + 1)]);
    t.deepEqual(await walletHolds(gw.app.db, personal(A)), seq([ps[1]!.id, ps[4]!.id, ps[6]!.id], 300));
    t.deepEqual(await walletHolds(gw.app.db, personal(B)), seq([ps[0]!.id, ps[5]!.id], 1000));
    t.deepEqual(await walletHolds(gw.app.db, { userId: A, teamId }), seq([ps[3]!.id, ps[8]!.id], 250));
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}per-key and per-account limits of several wallets at once: each account and each key counted on its own, the ones accepted before included`, async (t) => {
    const gw = await gatewayFor(t);
    const [a, b] = [await newAccount(gw, 100_000), await newAccount(gw, 100_000)];
    const [a1, a2] = await keyIds(gw, a!.session, 2);
    const [b1, b2] = await keyIds(gw, b!.session, 2);
    t.is(await answer(gw.app.store.submit({ p: request(a!.userId, 10, a1!), now: Date.now() })), 'ok');
    const order: Array<[number, number]> = [[a!.userId, a1!], [b!.userId, b1!], [a!.userId, a1!], [b!.userId, b1!], [a!.userId, a2!], [b!.userId, b1!], [b!.userId, b2!], [a!.userId, a2!], [b!.userId, b2!], [b!.userId, b2!]];
    const answers = await Promise.all(order.map(([u, k]) => answer(gw.app.store.submit({ p: request(u, 10, k), now: Date.now(), limits: { perKey: 2, perAccount: 3 } }))));
    t.deepEqual(answers, ['ok', 'ok', '429 key', 'ok', 'ok', '429 key', 'ok', '429 account', '429 account', '429 account']);
    for (const acct of [a!, b!]) {
      t.is(await count(gw.app.db('predictions').where({ user_id: acct.userId })), 3);
      t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 100_000 - 30, held: 30 });
    }
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}a submit on a wallet that does not exist fails alone (402); the submits with it are accepted`, async (t) => {
    const gw = await gatewayFor(t);
    const [a, b] = [await newAccount(gw, 1000), await newAccount(gw, 1000)];
    const max = await gw.app.db('users').max({ id: 'id' }).first<{ id: number | string }>();
    const ghost = Number(max.id) + 1000;
    const ps = [request(a!.userId, 100), request(ghost, 100), request(b!.userId, 100), request(a!.userId, 100), request(b!.userId, 100)];
    const answers = await Promise.all(ps.map((p) => answer(gw.app.store.submit({ p, now: Date.now(), limits: { perKey: 0, perAccount: 10 } }))));
    t.deepEqual(answers, ['ok', '402', 'ok', 'ok', 'ok']);
    for (const acct of [a!, b!]) {
      t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 800, held: 200 });
      t.deepEqual((await walletHolds(gw.app.db, personal(acct.userId))).map((r) => r.slice(1)), [[900, 100], [800, 200]]);
    }
    t.is(await count(gw.app.db('predictions').whereIn('id', ps.map((p) => p.id))), 4);
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}every submit the limits count raises its wallet's submit_seq by one: a hold, a free counted submit, several at once, a team's wallet; a free uncounted one does not`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 10_000);
    const teamId = await teamOf(gw, acct, 1000);
    const seq = async () => {
      const u = await gw.app.db('users').where({ id: acct.userId }).first<{ submit_seq: unknown }>('submit_seq');
      const tm = await gw.app.db('teams').where({ id: teamId }).first<{ submit_seq: unknown }>('submit_seq');
      return [Number(u.submit_seq), Number(tm.submit_seq)];
    };
    const limits: ConcurrencyLimits = { perKey: 0, perAccount: 100 };
    const step = async (what: string, run: () => Promise<unknown>, expected: [number, number]) => {
      const before = await seq();
      await run();
      const after = await seq();
      t.deepEqual([after[0]! - before[0]!, after[1]! - before[1]!], expected, what);
    };
    const submit = (p: NewPrediction, l?: ConcurrencyLimits) => answer(gw.app.store.submit({ p, now: Date.now(), ...(l ? { limits: l } : {}) }));
    await step('a priced submit', () => submit(request(acct.userId, 10), limits), [1, 0]);
    await step('a priced submit without limits', () => submit(request(acct.userId, 10)), [1, 0]);
    await step('a free submit with limits', () => submit(request(acct.userId, 0), limits), [1, 0]);
    await step('a free submit with no limit (not counted)', () => submit(request(acct.userId, 0)), [0, 0]);
    await step('three of one wallet at once', () => Promise.all([10, 10, 0].map((price) => submit(request(acct.userId, price), limits))), [3, 0]);
    await step('two wallets at once, one short', () => Promise.all([request(acct.userId, 10), request(acct.userId, 10, null, teamId), request(acct.userId, 5000, null, teamId)].map((p) => submit(p, limits))), [1, 1]);
    await step('free submits only, at once', () => Promise.all([0, 0].map((price) => submit(request(acct.userId, price, null, teamId), limits))), [0, 2]);
    await step('priced and free of one wallet, one short', () => Promise.all([request(acct.userId, 10), request(acct.userId, 0), request(acct.userId, 10 ** 9)].map((p) => submit(p, limits))), [2, 0]);
    await assertLedger(t, gw.app.db);
  });

  if (engine.secondDb) {
    const secondDb = engine.secondDb;
    test(`${prefix}two processes' stores on one wallet stay exact: credit for k of N, and an account limit`, async (t) => {
      const gw = await gatewayFor(t);
      const db2 = secondDb(gw);
      t.teardown(() => db2.destroy());
      const stores: Store[] = [gw.app.store, await openStore(db2)];
      const acct = await newAccount(gw, 100 * 37);
      const answers = await Promise.all(Array.from({ length: 80 }, (_, i) => answer(stores[i % 2]!.submit({ p: request(acct.userId, 100), now: Date.now(), limits: { perKey: 0, perAccount: 1000 } }))));
      t.is(answers.filter((a) => a === 'ok').length, 37);
      t.is(answers.filter((a) => a === '402').length, 43);
      t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 0, held: 3700 });
      // the hold rows, in id order, form one sequence across both processes
      await assertRowsInSequence(t, gw.app.db, personal(acct.userId));

      const acct2 = await newAccount(gw, 100_000);
      const limited = await Promise.all(Array.from({ length: 60 }, (_, i) => answer(stores[i % 2]!.submit({ p: request(acct2.userId, 7), now: Date.now(), limits: { perKey: 0, perAccount: 23 } }))));
      t.is(limited.filter((a) => a === 'ok').length, 23);
      t.is(limited.filter((a) => a === '429 account').length, 37);
      t.deepEqual(await wallet(gw.app.db, personal(acct2.userId)), { balance: 100_000 - 23 * 7, held: 23 * 7 });
      await assertLedger(t, gw.app.db);
    });

    test(`${prefix}two processes submitting to the same wallets in opposite orders neither deadlock nor lose a cent: credit for k of N per wallet, each wallet's hold rows in sequence`, async (t) => {
      const gw = await gatewayFor(t);
      const db2 = secondDb(gw);
      t.teardown(() => db2.destroy());
      const stores: Store[] = [gw.app.store, await openStore(db2)];
      const accts: Account[] = [];
      for (let i = 0; i < 4; i++) accts.push(await newAccount(gw, 100 * 11));
      // process 0 submits to wallets 0, 1, 2, 3 in turn, process 1 in the opposite order
      const answers = await Promise.all(Array.from({ length: 96 }, (_, i) => {
        const side = i % 2;
        const w = side === 0 ? (i >> 1) % 4 : 3 - ((i >> 1) % 4);
        return answer(stores[side]!.submit({ p: request(accts[w]!.userId, 100), now: Date.now(), limits: { perKey: 0, perAccount: 1000 } })).then((a) => [w, a] as const);
      }));
      t.deepEqual([...new Set(answers.map(([, a]) => a))].sort(), ['402', 'ok']);
      for (const [w, acct] of accts.entries()) {
        t.is(answers.filter(([x, a]) => x === w && a === 'ok').length, 11, `wallet ${w}`);
        t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 0, held: 1100 });
        await assertRowsInSequence(t, gw.app.db, personal(acct.userId));
      }
      await assertLedger(t, gw.app.db);
    });

    test(`${prefix}a wallet another process holds locked holds up only its own submits: once the stuck batch is the store's wait old, other wallets' submits go on without it, and it completes when the lock goes`, async (t) => {
      const gw = await gatewayFor(t);
      const db2 = secondDb(gw);
      t.teardown(() => db2.destroy());
      const warnings: unknown[] = [];
      const store = await openStore(gw.app.db, { waitMs: 300, log: { warn: (o: unknown) => { warnings.push(o); } } });
      const locked = await newAccount(gw, 1000);
      const other = await newAccount(gw, 1000);
      // another process holds the wallet's row: the first submit's batch waits for it
      const trx = await db2.transaction();
      t.teardown(() => trx.isCompleted() ? undefined : trx.rollback());
      await trx('users').where({ id: locked.userId }).forUpdate().first();
      const stuck = request(locked.userId, 100);
      const startedAt = Date.now();
      const first = answer(store.submit({ p: stuck, now: Date.now() }));
      await new Promise((r) => setTimeout(r, 100));
      const behind = [request(other.userId, 100), request(other.userId, 50)];
      t.deepEqual(await Promise.all(behind.map((p) => answer(store.submit({ p, now: Date.now() })))), ['ok', 'ok'], 'answered while the lock is still held');
      t.true(Date.now() - startedAt >= 290, `not before the stuck batch was the wait old: ${Date.now() - startedAt} ms`);
      t.deepEqual(await wallet(gw.app.db, personal(other.userId)), { balance: 850, held: 150 });
      t.like(warnings[0], { kind: 'submits', size: 1 }, 'the stuck unit is reported');
      await trx.commit();
      t.is(await first, 'ok');
      t.deepEqual(await walletHolds(gw.app.db, personal(locked.userId)), [[stuck.id, 900, 100]]);
      await assertRowsInSequence(t, gw.app.db, personal(other.userId));
      await assertLedger(t, gw.app.db);
    });

    test(`${prefix}a completion group stuck on a wallet another process holds locked holds up only its own completions: other wallets' are recorded meanwhile, none fails for waiting, and it completes when the lock goes`, async (t) => {
      const gw = await gatewayFor(t);
      const db2 = secondDb(gw);
      t.teardown(() => db2.destroy());
      const store = await openStore(gw.app.db, { waitMs: 300 });
      const locked = await newAccount(gw, 1000);
      const other = await newAccount(gw, 1000);
      const [stuck] = await claimed(gw, locked.userId, 1);
      const others = await claimed(gw, other.userId, 2);
      const trx = await db2.transaction();
      t.teardown(() => trx.isCompleted() ? undefined : trx.rollback());
      await trx('users').where({ id: locked.userId }).forUpdate().first();
      const first = store.complete(completion(stuck!, 0));
      await new Promise((r) => setTimeout(r, 100));
      await Promise.all(others.map((p, i) => store.complete(completion(p, i + 1))));
      // recorded and charged while the lock is still held
      const rows = await gw.app.db('predictions').whereIn('id', others.map((p) => p.id)).select('status') as Array<{ status: string }>;
      t.deepEqual(rows.map((r) => r.status), ['completed', 'completed']);
      t.deepEqual(await wallet(gw.app.db, personal(other.userId)), { balance: 900, held: 0 });
      // the stuck completion waits for the lock however long it is held past the wait
      await new Promise((r) => setTimeout(r, 400));
      await trx.commit();
      await first;
      t.is((await gw.app.db('predictions').where({ id: stuck!.id }).first() as { status: string }).status, 'completed');
      t.deepEqual(await wallet(gw.app.db, personal(locked.userId)), { balance: 950, held: 0 });
      await assertLedger(t, gw.app.db);
    });
  }

  // ============================================================
  // Sandbox
  // ============================================================

  test(`${prefix}sandbox rows recorded at once are each completed with their outputs, a webhook's delivery row with its own; a row that cannot be written fails alone`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 50);
    const now = Date.now();
    const sandbox = (id: string, webhookUrl: string | null = null) => ({ p: { id, userId: acct.userId, apiKeyId: null, model: MODEL, input: { prompt: 'x' }, webhookUrl }, outputs: ['sandbox/sample.png'], now, balanceOf: acct.userId });
    const taken = newPredictionId(now);
    await gw.app.store.insertSandbox(sandbox(taken));
    const ids = Array.from({ length: 9 }, () => newPredictionId(now));
    // the same id again among new ones
    const all = [...ids.slice(0, 4), taken, ...ids.slice(4)];
    const outcomes = await Promise.allSettled(all.map((id) => gw.app.store.insertSandbox(sandbox(id))));
    t.deepEqual(outcomes.map((o) => o.status), all.map((id) => (id === taken ? 'rejected' : 'fulfilled')));
    for (const o of outcomes) {
      // the balance asked for: read with the insert where the engine can (MySQL has no RETURNING: not read)
      if (o.status === 'fulfilled') t.deepEqual(o.value, { deliveryId: null, balance: engine.name === 'mysql' ? undefined : 50 });
    }
    const rows = await gw.app.db('predictions').whereIn('id', ids).select('status', 'is_test', 'outputs', 'price', 'completed_at') as Array<Record<string, unknown>>;
    t.deepEqual(rows.map((r) => [r.status, Boolean(Number(r.is_test)), JSON.parse(String(r.outputs)), Number(r.price), Number(r.completed_at)]), ids.map(() => ['completed', true, ['sandbox/sample.png'], 0, now]));
    const hooked = await gw.app.store.insertSandbox(sandbox(newPredictionId(now), 'https://example.com/hook'));
    t.truthy(hooked.deliveryId);
    t.like(await gw.app.db('webhook_deliveries').where({ id: hooked.deliveryId }).first(), { status: 'pending', url: 'https://example.com/hook' });
    t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 50, held: 0 });
  });

  // ============================================================
  // Queue confirms
  // ============================================================

  test(`${prefix}marking confirms pending moves only the rows still queued; a claimed or cancelled row is left as it is`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 10_000);
    const ps = Array.from({ length: 4 }, () => request(acct.userId, 10));
    for (const p of ps) await gw.app.store.submit({ p, now: Date.now() });
    t.truthy(await gw.app.store.claim({ id: ps[1]!.id, now: Date.now(), takeOver: false }));
    t.is(await gw.app.store.cancel(personal(acct.userId), ps[2]!.id, Date.now()), 'cancelled');
    for (const readFirst of [false, true]) await gw.app.store.markPending([...ps.map((p) => p.id), ps[0]!.id, 'unknown'], Date.now(), { readFirst });
    const rows = await gw.app.db('predictions').whereIn('id', ps.map((p) => p.id)).select('id', 'status') as Array<{ id: string; status: string }>;
    const status = new Map(rows.map((r) => [r.id, r.status]));
    t.deepEqual(ps.map((p) => status.get(p.id)), ['pending', 'processing', 'cancelled', 'pending']);
    // a pending row is claimed as a queued one is
    t.like(await gw.app.store.claim({ id: ps[0]!.id, now: Date.now(), takeOver: false }), { status: 'processing', attempts: 1 });
    await assertLedger(t, gw.app.db);
  });

  // ============================================================
  // Claims
  // ============================================================

  test(`${prefix}a claim answers the prediction exactly as stored, claimed; the same message again takes nothing, whatever its ticket says`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 10_000);
    const p: NewPrediction = { ...request(acct.userId, 50), input: { prompt: 'Exact Case', width: 64 }, webhookUrl: 'https://example.com/Hook', httpRequestId: 'req-1' };
    const outcome = await gw.app.store.submit({ p, now: Date.now() });
    if (!outcome.accepted) throw new Error('refused');
    // a ticket survives the trip through the queue as JSON
    const ticket: unknown = JSON.parse(JSON.stringify(outcome.ticket ?? null));
    const claimed = await gw.app.store.claim({ id: p.id, now: Date.now(), takeOver: false, ticket });
    t.deepEqual(claimed, await findPredictionById(gw.app.db, p.id));
    t.like(claimed, { status: 'processing', attempts: 1, price: 50, webhookUrl: 'https://example.com/Hook', input: { prompt: 'Exact Case', width: 64 } });
    t.is(await gw.app.store.claim({ id: p.id, now: Date.now(), takeOver: false, ticket }), undefined);
    t.is(await gw.app.store.claim({ id: 'no-such-prediction', now: Date.now(), takeOver: true }), undefined);
  });

  test(`${prefix}a ticket is not trusted: a message whose ticket names another price, payer, webhook or input, or is no ticket at all, claims the row as stored`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 10_000);
    const lies: unknown[] = [{ price: 1 }, { user_id: acct.userId + 1 }, { webhook_url: 'https://example.com/hook' }, { input: '{"prompt":"exact case"}' }, { payer_user_id: 1 }, { http_request_id: null }];
    for (const lie of [...lies, 'x', 42, null, [], { extra: 1 }]) {
      const p: NewPrediction = { ...request(acct.userId, 50), input: { prompt: 'Exact Case' }, webhookUrl: 'https://example.com/Hook' };
      const outcome = await gw.app.store.submit({ p, now: Date.now() });
      if (!outcome.accepted) throw new Error('refused');
      const real: unknown = JSON.parse(JSON.stringify(outcome.ticket ?? {}));
      const ticket = typeof lie === 'object' && lie !== null && !Array.isArray(lie) && typeof real === 'object' ? { ...real, ...lie } : lie;
      const claimed = await gw.app.store.claim({ id: p.id, now: Date.now(), takeOver: false, ticket });
      t.deepEqual(claimed, await findPredictionById(gw.app.db, p.id), JSON.stringify(lie));
      t.like(claimed, { price: 50, webhookUrl: 'https://example.com/Hook', input: { prompt: 'Exact Case' }, userId: acct.userId });
    }
  });

  test(`${prefix}a row changed after its submit, in any column, is claimed as it now is`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 10_000);
    const other = await newAccount(gw, 0);
    // nothing in the gateway changes these columns after the insert; an operator's UPDATE might
    const changes: Array<Record<string, string | number | boolean | null>> = [
      { price: 49 }, { user_id: other.userId }, { api_key_id: null }, { model: `${MODEL}-b` }, { is_test: true },
      { input: JSON.stringify({ prompt: 'a lighthouse ' }) }, { webhook_url: 'https://example.com/other' }, { http_request_id: 'req-2' }, { created_at: 1 },
      { source: 'dashboard' }, { embed_visitor: 'v' }, { studio_markup: 1 }, { list_price: 61 }, { discount_percent: null },
    ];
    for (const change of changes) {
      const p = request(acct.userId, 50);
      const outcome = await gw.app.store.submit({ p, now: Date.now() });
      if (!outcome.accepted) throw new Error('refused');
      await gw.app.db('predictions').where({ id: p.id }).update(change);
      const claimed = await gw.app.store.claim({ id: p.id, now: Date.now(), takeOver: false, ticket: JSON.parse(JSON.stringify(outcome.ticket ?? null)) });
      const stored = await findPredictionById(gw.app.db, p.id);
      t.deepEqual(claimed, stored, JSON.stringify(change));
      t.is(stored?.attempts, 1);
    }
  });

  test(`${prefix}first claims that arrive together, with copies, cancelled rows and a lying ticket among them, claim each prediction once and charge it once`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 10_000);
    const subs: Array<{ id: string; ticket: unknown }> = [];
    for (let i = 0; i < 14; i++) {
      const p = { ...request(acct.userId, 50), input: { prompt: `p${i}` } };
      const outcome = await gw.app.store.submit({ p, now: Date.now() });
      if (!outcome.accepted) throw new Error('refused');
      subs.push({ id: p.id, ticket: JSON.parse(JSON.stringify(outcome.ticket ?? null)) });
    }
    const cancelled = new Set([subs[3]!.id, subs[9]!.id]);
    for (const id of cancelled) t.is(await gw.app.store.cancel(personal(acct.userId), id, Date.now()), 'cancelled');
    // every message once, a second copy of four, one whose ticket names another price
    const messages = [
      ...subs.map((s, i) => ({ id: s.id, ticket: i === 5 && typeof s.ticket === 'object' ? { ...s.ticket, price: 1 } : s.ticket })),
      ...[0, 3, 7, 13].map((i) => subs[i]!),
    ];
    const order = messages.map((_, i) => i).sort((a, b) => ((a * 7919) % 17) - ((b * 7919) % 17));
    const now = Date.now();
    const got = await Promise.all(order.map((i) => gw.app.store.claim({ id: messages[i]!.id, now, takeOver: false, ticket: messages[i]!.ticket }).then((p) => ({ id: messages[i]!.id, p }))));
    const taken = new Map<string, Prediction[]>();
    for (const { id, p } of got) if (p) taken.set(id, [...taken.get(id) ?? [], p]);
    for (const s of subs) {
      const stored = await findPredictionById(gw.app.db, s.id);
      if (cancelled.has(s.id)) {
        t.false(taken.has(s.id), 'a cancelled prediction is not claimed');
        t.is(stored?.status, 'cancelled');
        continue;
      }
      t.is(taken.get(s.id)?.length, 1, `claimed exactly once: ${s.id}`);
      t.deepEqual(taken.get(s.id)![0], stored, 'the claim answers the row as stored');
      t.like(stored, { attempts: 1, price: 50 });
    }
    for (const [, [p]] of taken) t.true((await gw.app.store.complete({ p: p!, result: { outputs: [], nsfw: [], inferenceMs: 1 }, now: Date.now() })).recorded);
    t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 10_000 - 50 * (subs.length - cancelled.size), held: 0 });
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}a redelivered or retried message takes over a processing row; a first delivery does not; neither takes a finished or cancelled one`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 10_000);
    const [p] = await claimed(gw, acct.userId, 1);
    t.is(await gw.app.store.claim({ id: p!.id, now: Date.now(), takeOver: false }), undefined, 'a copy of the first delivery');
    const again = await gw.app.store.claim({ id: p!.id, now: Date.now(), takeOver: true });
    t.like(again, { id: p!.id, status: 'processing', attempts: 2 });
    // the retry path: back to pending with its error, then claimed by the retry
    await gw.app.store.retryLater(p!.id, 'upstream 503', Date.now());
    t.like(await findPredictionById(gw.app.db, p!.id), { status: 'pending', error: 'upstream 503' });
    t.like(await gw.app.store.claim({ id: p!.id, now: Date.now(), takeOver: true }), { status: 'processing', attempts: 3 });
    // handed back at shutdown: pending, and the next first delivery claims it
    await gw.app.store.handBack(p!.id, Date.now());
    t.like(await findPredictionById(gw.app.db, p!.id), { status: 'pending' });
    const last = await gw.app.store.claim({ id: p!.id, now: Date.now(), takeOver: false });
    t.like(last, { status: 'processing', attempts: 4 });
    t.true((await gw.app.store.complete(completion(last!, 0))).recorded);
    t.is(await gw.app.store.claim({ id: p!.id, now: Date.now(), takeOver: true }), undefined, 'finished');
    t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 10_000 - 50, held: 0 });
    await assertLedger(t, gw.app.db);
  });

  // ============================================================
  // Completions, failures, cancellation
  // ============================================================

  test(`${prefix}many parallel completions of one wallet charge exactly: each row its own outputs, flags, times and delivery; ledger rows in sequence, held back to 0`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 10_000);
    const ps = await claimed(gw, acct.userId, 30);
    // the first one named twice (two copies of its message finishing in one process): recorded once
    const items = [...ps.map(completion), completion(ps[0]!, 31)];
    const finished = await Promise.all(items.map((c) => gw.app.store.complete(c)));
    t.deepEqual(finished.map((f) => f.recorded), [...ps.map(() => true), false]);
    t.is(finished.filter((f) => f.deliveryId !== null).length, 10);
    t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 10_000 - 30 * 50, held: 0 });
    const rows = await assertRowsInSequence(t, gw.app.db, personal(acct.userId));
    t.deepEqual(rows.filter((r) => r.kind === 'prediction').map((r) => r.prediction_id).sort(), ps.map((p) => p.id).sort());
    const charges = await gw.app.db('credit_transactions').where({ user_id: acct.userId, kind: 'prediction' }).select('list_price', 'discount_percent') as Array<Record<string, unknown>>;
    t.true(charges.every((r) => Number(r.list_price) === 60 && Number(r.discount_percent) === 16), 'each charge carries its hold\'s list price and discount');
    for (const [i, c] of items.slice(0, ps.length).entries()) {
      const row = await gw.app.db('predictions').where({ id: c.p.id }).first() as Record<string, unknown>;
      t.deepEqual([row.status, JSON.parse(String(row.outputs)), JSON.parse(String(row.nsfw)), Number(row.inference_ms), Number(row.completed_at), Number(row.updated_at), row.review_status, row.error],
        ['completed', c.result.outputs, c.result.nsfw, Math.round(c.result.inferenceMs), c.now, c.now, i % 5 === 1 ? 'flagged' : 'unreviewed', null]);
      const delivery = finished[i]!.deliveryId;
      if (c.p.webhookUrl === null) {
        t.is(delivery, null);
        continue;
      }
      const d = await gw.app.db('webhook_deliveries').where({ id: delivery }).first() as Record<string, unknown>;
      t.deepEqual([d.prediction_id, Number(d.user_id), d.url, d.status, Number(d.attempts), Number(d.next_attempt_at), Number(d.created_at)],
        [c.p.id, acct.userId, 'https://example.com/hook', 'pending', 0, c.now, c.now]);
    }
    t.is(await count(gw.app.db('webhook_deliveries').whereIn('prediction_id', ps.map((p) => p.id))), 10);
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}completions of a prediction cancelled meanwhile charge only the others; the same completions again charge nothing`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 10_000);
    const ps = await claimed(gw, acct.userId, 5);
    t.is(await gw.app.store.cancel(personal(acct.userId), ps[2]!.id, Date.now()), 'cancelled');
    const items = ps.map(completion);
    const finished = await Promise.all(items.map((c) => gw.app.store.complete(c)));
    t.deepEqual(finished.map((f) => f.recorded), [true, true, false, true, true]);
    t.is(finished[2]!.deliveryId, null);
    t.like(await gw.app.db('predictions').where({ id: ps[2]!.id }).first('status'), { status: 'cancelled' });
    // the messages again (an answer lost): every transition fails, nothing is charged again
    const again = await Promise.all(items.map((c) => gw.app.store.complete(c)));
    t.true(again.every((f) => !f.recorded && f.deliveryId === null));
    t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 10_000 - 4 * 50, held: 0 });
    const rows = await assertRowsInSequence(t, gw.app.db, personal(acct.userId));
    t.deepEqual(rows.filter((r) => r.kind === 'prediction').map((r) => r.prediction_id).sort(), ps.filter((_, i) => i !== 2).map((p) => p.id).sort());
    t.deepEqual(rows.filter((r) => r.kind === 'release').map((r) => r.prediction_id), [ps[2]!.id]);
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}completions of several wallets (users' and a team's) at once: each charged on its own wallet, every wallet's rows in sequence`, async (t) => {
    const gw = await gatewayFor(t);
    const accts = [await newAccount(gw, 10_000), await newAccount(gw, 10_000), await newAccount(gw, 10_000)];
    const teamId = await teamOf(gw, accts[0]!, 10_000);
    const lists = [...await Promise.all(accts.map((a) => claimed(gw, a.userId, 5))), await claimed(gw, accts[1]!.userId, 5, 70, teamId)];
    // interleaved, as a worker's prefetch takes them
    const ps = Array.from({ length: 5 }, (_, i) => lists.map((l) => l[i]!)).flat();
    const finished = await Promise.all(ps.map((p, i) => gw.app.store.complete(completion(p, i))));
    t.true(finished.every((f) => f.recorded));
    for (const [i, a] of accts.entries()) {
      t.deepEqual(await wallet(gw.app.db, personal(a.userId)), { balance: 10_000 - 5 * 50, held: 0 });
      const rows = await assertRowsInSequence(t, gw.app.db, personal(a.userId));
      t.deepEqual(rows.filter((r) => r.kind === 'prediction').map((r) => r.prediction_id).sort(), lists[i]!.map((p) => p.id).sort());
    }
    t.deepEqual(await wallet(gw.app.db, { userId: accts[0]!.userId, teamId }), { balance: 10_000 - 5 * 70, held: 0 });
    await assertRowsInSequence(t, gw.app.db, { userId: accts[0]!.userId, teamId });
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}completions of wallets with expiring grants spend them soonest-expiring first, as the charges one by one would`, async (t) => {
    const gw = await gatewayFor(t);
    const d = gw.app.db;
    const now = Date.now();
    const acct = await newAccount(gw, 1000);
    const teamId = await teamOf(gw, acct, 1000);
    const wallets: Owner[] = [personal(acct.userId), { userId: acct.userId, teamId }];
    const lists: Prediction[][] = [];
    for (const w of wallets) {
      // 230 of grant credit in two grants: 150 charged takes the sooner-expiring one and 120 of the other
      await addGrants(d, w, [30, 200], now);
      lists.push(await claimed(gw, acct.userId, 3, 50, w.teamId));
    }
    const ps = [lists[0]![0]!, lists[1]![0]!, lists[0]![1]!, lists[1]![1]!, lists[0]![2]!, lists[1]![2]!];
    t.true((await Promise.all(ps.map((p, i) => gw.app.store.complete(completion(p, i))))).every((f) => f.recorded));
    for (const w of wallets) {
      const grants = await d('credit_grants').where('wallet', w.teamId === null ? `user:${w.userId}` : `team:${w.teamId}`).orderBy('id').select('remaining');
      t.deepEqual(grants.map((g: { remaining: unknown }) => Number(g.remaining)), [0, 80]);
      const row = await d(w.teamId === null ? 'users' : 'teams').where('id', w.teamId ?? w.userId).first('balance', 'held', 'grants');
      t.deepEqual([Number(row.balance), Number(row.held), Number(row.grants)], [850, 0, 1], 'one grant with credit left');
      await assertRowsInSequence(t, d, w);
    }
    await assertLedger(t, d);
  });

  test(`${prefix}a completion that cannot be recorded fails alone: the completions that went with it are charged once each`, async (t) => {
    const gw = await gatewayFor(t);
    const accts = [await newAccount(gw, 10_000), await newAccount(gw, 10_000)];
    const [x, y] = await Promise.all(accts.map((a) => claimed(gw, a.userId, 3)));
    const ps = [x![0]!, y![0]!, x![1]!, y![1]!, x![2]!, y![2]!];
    // an inference time no statement can take
    const items = ps.map((p, i) => (i === 3 ? { ...completion(p, i), result: { outputs: [], nsfw: [], inferenceMs: 1n as unknown as number } } : completion(p, i)));
    const finished = await Promise.allSettled(items.map((c) => gw.app.store.complete(c)));
    t.deepEqual(finished.map((f) => f.status), ['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    t.true(finished.every((f) => f.status === 'rejected' || f.value.recorded));
    t.deepEqual(await wallet(gw.app.db, personal(accts[0]!.userId)), { balance: 10_000 - 3 * 50, held: 0 });
    t.deepEqual(await wallet(gw.app.db, personal(accts[1]!.userId)), { balance: 10_000 - 3 * 50, held: 50 }, 'the one not recorded still held');
    t.like(await findPredictionById(gw.app.db, ps[3]!.id), { status: 'processing' });
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}a completion with a studio markup to pay out charges the payer and credits the studio's owner, each once`, async (t) => {
    const gw = await gatewayFor(t);
    const owner = await newAccount(gw, 0);
    const buyer = await newAccount(gw, 1000);
    const [studioId] = await gw.app.db('studios').insert({
      user_id: owner.userId, slug: `s${owner.userId}`, name: 'Studio', branding: '{}', allowed_models: '[]', model_prices: '{}', markup_percent: 20, payer_mode: 'end_user_pays', created_at: Date.now(), updated_at: Date.now(),
    });
    const p: NewPrediction = { ...request(buyer.userId, 120), studioId: Number(studioId), studioMarkup: 20, source: 'studio' };
    t.is(await answer(gw.app.store.submit({ p, now: Date.now() })), 'ok');
    const running = await gw.app.store.claim({ id: p.id, now: Date.now(), takeOver: false });
    const done = await Promise.all([gw.app.store.complete(completion(running!, 0)), gw.app.store.complete(completion(running!, 1))]);
    t.deepEqual(done.map((f) => f.recorded).sort(), [false, true]);
    t.deepEqual(await wallet(gw.app.db, personal(buyer.userId)), { balance: 880, held: 0 });
    t.deepEqual(await wallet(gw.app.db, personal(owner.userId)), { balance: 20, held: 0 });
    t.is(await count(gw.app.db('credit_transactions').where({ prediction_id: p.id, kind: 'studio_revenue' })), 1);
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}a completion charged by usage takes its charge (at most the hold) and releases the rest at once, pays the studio's part of it, records the price, tokens and text; copies and a second completion move nothing`, async (t) => {
    const gw = await gatewayFor(t);
    const owner = await newAccount(gw, 0);
    const buyer = await newAccount(gw, 1000);
    const [studioId] = await gw.app.db('studios').insert({
      user_id: owner.userId, slug: `u${owner.userId}`, name: 'Studio', branding: '{}', allowed_models: '[]', model_prices: '{}', markup_percent: 20, payer_mode: 'end_user_pays', created_at: Date.now(), updated_at: Date.now(),
    });
    const p: NewPrediction = { ...request(buyer.userId, 120), studioId: Number(studioId), studioMarkup: 20, source: 'studio', webhookUrl: 'https://example.com/hook' };
    const plain = request(buyer.userId, 200);
    for (const r of [p, plain]) t.is(await answer(gw.app.store.submit({ p: r, now: Date.now() })), 'ok');
    const running = (await gw.app.store.claim({ id: p.id, now: Date.now(), takeOver: false }))!;
    const runningPlain = (await gw.app.store.claim({ id: plain.id, now: Date.now(), takeOver: false }))!;
    const text = 'Hello «ünïcode» \'quoted\'';
    const byUsage = { charge: 37, listCharge: 40, studioMarkup: 6, usage: { inputTokens: 12, outputTokens: 30, source: 'reported' as const }, text };
    const done = await Promise.all([0, 1, 2].map((i) => gw.app.store.complete({ ...completion(running, i), usage: byUsage })));
    t.deepEqual(done.map((f) => f.recorded).sort(), [false, false, true]);
    t.truthy(done.find((f) => f.recorded)!.deliveryId, 'its webhook is told');
    // more than the hold is charged the hold; a markup past the one held is cut to it
    t.true((await gw.app.store.complete({ ...completion(runningPlain, 0), usage: { ...byUsage, charge: 5000, studioMarkup: 100, usage: { ...byUsage.usage, source: 'counted' } } })).recorded);
    t.deepEqual(await wallet(gw.app.db, personal(buyer.userId)), { balance: 1000 - 37 - 200, held: 0 });
    t.deepEqual(await wallet(gw.app.db, personal(owner.userId)), { balance: 6, held: 0 });
    t.like(await findPredictionById(gw.app.db, p.id), { status: 'completed', price: 37, studioMarkup: 6, billing: { listPrice: 40, discountPercent: 5 } });
    t.like(await findPredictionById(gw.app.db, plain.id), { status: 'completed', price: 200, studioMarkup: 0 });
    t.like(await gw.app.db('prediction_usage').where({ prediction_id: p.id }).first(), { input_tokens: 12, output_tokens: 30, usage_source: 'reported', output_text: text });
    t.like(await gw.app.db('prediction_usage').where({ prediction_id: plain.id }).first(), { usage_source: 'counted' });
    t.is(Number((await gw.app.db('prediction_usage').where({ prediction_id: p.id }).first()).settled_at) > 0, true, 'settled: no sweep takes it for a running inline call');
    t.deepEqual((await assertRowsInSequence(t, gw.app.db, personal(buyer.userId))).filter((r) => r.prediction_id === p.id).map((r) => r.kind), ['hold', 'prediction', 'release']);
    t.is(await count(gw.app.db('credit_transactions').where({ prediction_id: p.id, kind: 'studio_revenue' })), 1);
    t.deepEqual(await gw.app.store.complete({ ...completion(running, 3), usage: byUsage }), { recorded: false, deliveryId: null });
    t.deepEqual(await gw.app.store.fail(running, 'late', Date.now()), { recorded: false, deliveryId: null });
    t.deepEqual(await findUnfinished(gw.app.db, 100), []);
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}a run's provider cost is written in the transaction that ends it, once: with what it charged less a studio's markup (grouped, alone, by usage), nothing charged when the completion is not recorded or the run failed`, async (t) => {
    const gw = await gatewayFor(t);
    const owner = await newAccount(gw, 0);
    const acct = await newAccount(gw, 10_000);
    const ps = await claimed(gw, acct.userId, 6);
    t.is(await gw.app.store.cancel(personal(acct.userId), ps[5]!.id, Date.now()), 'cancelled');
    const [studioId] = await gw.app.db('studios').insert({
      user_id: owner.userId, slug: `c${owner.userId}`, name: 'Studio', branding: '{}', allowed_models: '[]', model_prices: '{}', markup_percent: 20, payer_mode: 'end_user_pays', created_at: Date.now(), updated_at: Date.now(),
    });
    const marked: NewPrediction = { ...request(acct.userId, 120), studioId: Number(studioId), studioMarkup: 20, source: 'studio' };
    const byUsage = request(acct.userId, 200);
    for (const r of [marked, byUsage]) t.is(await answer(gw.app.store.submit({ p: r, now: Date.now() })), 'ok');
    const runningMarked = (await gw.app.store.claim({ id: marked.id, now: Date.now(), takeOver: false }))!;
    const runningUsage = (await gw.app.store.claim({ id: byUsage.id, now: Date.now(), takeOver: false }))!;
    const metadata = { seed: 7, note: 'it\'s «ünïcode» \\ ?' };
    const cost = (i: number) => ({ provider: i % 2 === 0 ? 'local' : 'fal', upstreamModel: i % 2 === 0 ? null : 'fal-ai/x', providerCost: i % 3 === 0 ? null : 10 + i, source: (i % 3 === 0 ? 'unknown' : 'rule') as 'unknown' | 'rule', ...(i === 1 ? { metadata } : {}) });
    // the first one twice (a copy of its message): one row
    const items = [...ps.map((p, i) => ({ ...completion(p, i), cost: cost(i) })), { ...completion(ps[0]!, 9), cost: { ...cost(0), providerCost: 999 } }];
    const done = await Promise.all([
      ...items.map((c) => gw.app.store.complete(c)),
      gw.app.store.complete({ ...completion(runningMarked, 0), cost: cost(1) }),
      gw.app.store.complete({ ...completion(runningUsage, 0), cost: cost(2), usage: { charge: 37, studioMarkup: 0, usage: { inputTokens: 3, outputTokens: 4, source: 'reported' as const }, text: 'ok' } }),
    ]);
    t.deepEqual(done.map((f) => f.recorded), [true, true, true, true, true, false, false, true, true]);
    const rows = await gw.app.db('prediction_costs').whereIn('prediction_id', [...ps.map((p) => p.id), marked.id, byUsage.id]).select() as Array<Record<string, unknown>>;
    const byId = new Map(rows.map((r) => [String(r.prediction_id), r]));
    t.is(rows.length, 8, 'one row per prediction, the cancelled one\'s too');
    for (const [i, c] of items.slice(0, 5).entries()) {
      const r = byId.get(c.p.id)!;
      t.deepEqual([r.model, r.provider, r.upstream_model, Number(r.charged), r.provider_cost === null ? null : Number(r.provider_cost), r.cost_source, Number(r.created_at), Number(r.day)],
        [MODEL, cost(i).provider, cost(i).upstreamModel, 50, cost(i).providerCost, cost(i).source, c.now, Math.floor(c.now / 86_400_000)]);
    }
    t.deepEqual(JSON.parse(String(byId.get(ps[1]!.id)!.metadata)), metadata);
    t.is(byId.get(ps[0]!.id)!.metadata, null);
    t.is(Number(byId.get(marked.id)!.charged), 100, 'the charge less the studio owner\'s markup');
    t.is(Number(byId.get(byUsage.id)!.charged), 37, 'what the usage charged, not the hold');
    t.like(byId.get(ps[5]!.id), { charged: 0, provider: cost(5).provider }, 'cancelled meanwhile: the provider ran it, nothing was paid');
    // a failed run the provider ran: its cost with nothing charged, in the failure's transaction; once
    const [failing] = await claimed(gw, acct.userId, 1);
    t.true((await gw.app.store.fail(failing!, 'outputs could not be kept', Date.now(), 'output_type_mismatch', cost(4))).recorded);
    t.false((await gw.app.store.fail(failing!, 'again', Date.now(), null, { ...cost(4), providerCost: 999 })).recorded);
    t.like(await gw.app.db('prediction_costs').where({ prediction_id: failing!.id }).first(), { charged: 0, cost_source: 'rule' });
    t.is(Number((await gw.app.db('prediction_costs').where({ prediction_id: failing!.id }).first()).provider_cost), 14);
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}an inline call in a studio that marks up pays its owner the markup of what was charged, once`, async (t) => {
    const gw = await gatewayFor(t);
    const owner = await newAccount(gw, 0);
    const buyer = await newAccount(gw, 1000);
    const [studioId] = await gw.app.db('studios').insert({
      user_id: owner.userId, slug: `i${owner.userId}`, name: 'Studio', branding: '{}', allowed_models: '[]', model_prices: '{}', markup_percent: 50, payer_mode: 'end_user_pays', created_at: Date.now(), updated_at: Date.now(),
    });
    const p: NewPrediction = { ...inlineRequest(buyer.userId, 150), listPrice: 150, studioId: Number(studioId), studioMarkup: 50, source: 'studio' };
    t.like(await gw.app.store.startInline({ p, now: Date.now() }), { accepted: true });
    const outcome = { status: 'completed' as const, charge: 30, listCharge: 30, studioMarkup: 10, usage: { inputTokens: 3, outputTokens: 4, source: 'reported' as const }, text: 'hi', inferenceMs: 1 };
    const settled = await Promise.all([0, 1].map(() => gw.app.store.settleInline({ p, outcome, now: Date.now() })));
    t.deepEqual(settled.map((s) => s.charged).sort(), [0, 30]);
    t.deepEqual(await wallet(gw.app.db, personal(buyer.userId)), { balance: 970, held: 0 });
    t.deepEqual(await wallet(gw.app.db, personal(owner.userId)), { balance: 10, held: 0 });
    t.like(await findPredictionById(gw.app.db, p.id), { status: 'completed', price: 30, studioMarkup: 10 });
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}a failure releases the hold once and records its error and code and the webhook's delivery; a second failure or a completion after it records nothing`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 1000);
    const [p] = await claimed(gw, acct.userId, 1, 300);
    t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 700, held: 300 });
    const failed = await gw.app.store.fail(p!, 'the provider refused the input', Date.now(), 'upstream_refused');
    t.true(failed.recorded);
    t.truthy(failed.deliveryId, 'its webhook is told');
    t.like(await findPredictionById(gw.app.db, p!.id), { status: 'failed', error: 'the provider refused the input', errorCode: 'upstream_refused' });
    t.deepEqual(await gw.app.store.fail(p!, 'again', Date.now()), { recorded: false, deliveryId: null });
    t.deepEqual(await gw.app.store.complete(completion(p!, 0)), { recorded: false, deliveryId: null });
    t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 1000, held: 0 });
    t.deepEqual((await assertRowsInSequence(t, gw.app.db, personal(acct.userId))).map((r) => r.kind), ['grant', 'hold', 'release']);
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}a cancel releases the hold of a queued, pending or running prediction once; a finished one is 'finished', another owner's 'not-found'`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 1000);
    const stranger = await newAccount(gw, 1000);
    const ps = Array.from({ length: 4 }, () => request(acct.userId, 100));
    for (const p of ps) await gw.app.store.submit({ p, now: Date.now() });
    await gw.app.store.markPending([ps[1]!.id], Date.now());
    const running = await gw.app.store.claim({ id: ps[2]!.id, now: Date.now(), takeOver: false });
    const done = await gw.app.store.claim({ id: ps[3]!.id, now: Date.now(), takeOver: false });
    t.true((await gw.app.store.complete(completion(done!, 0))).recorded);
    t.is(await gw.app.store.cancel(personal(stranger.userId), ps[0]!.id, Date.now()), 'not-found');
    t.is(await gw.app.store.cancel({ userId: acct.userId, teamId: 1_000_000 }, ps[0]!.id, Date.now()), 'not-found');
    const outcomes = await Promise.all([0, 0, 1, 2].map((i) => gw.app.store.cancel(personal(acct.userId), ps[i]!.id, Date.now())));
    t.deepEqual(outcomes.slice(2), ['cancelled', 'cancelled']);
    t.deepEqual(outcomes.slice(0, 2).sort(), ['cancelled', 'finished'], 'one of two cancels of one prediction releases it');
    t.is(await gw.app.store.cancel(personal(acct.userId), ps[3]!.id, Date.now()), 'finished');
    // the worker finishing the cancelled run records nothing
    t.false((await gw.app.store.complete(completion(running!, 1))).recorded);
    t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 900, held: 0 });
    t.deepEqual(await wallet(gw.app.db, personal(stranger.userId)), { balance: 1000, held: 0 });
    await assertLedger(t, gw.app.db);
  });

  // ============================================================
  // Inline calls: held at the most, settled by the usage in one transaction
  // ============================================================

  const inlineRequest = (userId: number, hold: number, teamId: number | null = null): NewPrediction => ({
    id: newPredictionId(Date.now()), userId, teamId, apiKeyId: null, model: 'lexi-v1-balanced-chat',
    input: { messages: [{ role: 'user', content: 'hello' }], max_tokens: 100 }, price: hold, listPrice: hold, discountPercent: null, webhookUrl: null,
  });
  const usageOf = (db: Knex, id: string) => db('prediction_usage').where({ prediction_id: id }).first();

  test(`${prefix}an inline call is recorded running with its hold; its settle charges the usage's price, releases the rest and records the text and tokens, all at once; a second settle moves nothing`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 1000);
    const p = inlineRequest(acct.userId, 300);
    t.like(await gw.app.store.startInline({ p, now: Date.now() }), { accepted: true });
    t.like(await findPredictionById(gw.app.db, p.id), { status: 'processing', price: 300, attempts: 1 });
    t.truthy((await findPredictionById(gw.app.db, p.id))!.startedAt);
    t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 700, held: 300 });
    t.like(await usageOf(gw.app.db, p.id), { input_tokens: null, settled_at: null });
    const done = { status: 'completed' as const, charge: 42, usage: { inputTokens: 12, outputTokens: 30, source: 'reported' as const }, text: 'Hello! «ünïcode» \'quoted\'', inferenceMs: 123.4 };
    t.deepEqual(await gw.app.store.settleInline({ p, outcome: done, now: Date.now() }), { recorded: true, charged: 42 });
    t.like(await findPredictionById(gw.app.db, p.id), { status: 'completed', price: 42, inferenceMs: 123 });
    t.like(await usageOf(gw.app.db, p.id), { input_tokens: 12, output_tokens: 30, usage_source: 'reported', output_text: done.text });
    t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 958, held: 0 });
    t.deepEqual(await gw.app.store.settleInline({ p, outcome: { ...done, charge: 100 }, now: Date.now() }), { recorded: false, charged: 0 });
    t.deepEqual(await gw.app.store.settleInline({ p, outcome: { status: 'failed', error: 'late', code: null }, now: Date.now() }), { recorded: false, charged: 0 });
    t.deepEqual((await assertRowsInSequence(t, gw.app.db, personal(acct.userId))).map((r) => r.kind), ['grant', 'hold', 'prediction', 'release']);
    t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 958, held: 0 });
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}an inline charge is never more than the hold; a failed call charges nothing; a call the client left is charged what it used; parallel settles of one call move the money once`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 1000);
    const team = await teamOf(gw, acct, 500);
    const [over, failed, left, raced] = [inlineRequest(acct.userId, 100), inlineRequest(acct.userId, 100), inlineRequest(acct.userId, 100, team), inlineRequest(acct.userId, 100)];
    for (const p of [over, failed, left, raced]) t.like(await gw.app.store.startInline({ p: p!, now: Date.now() }), { accepted: true });
    const usage = { inputTokens: 1, outputTokens: 1, source: 'reported' as const };
    t.deepEqual(await gw.app.store.settleInline({ p: over!, outcome: { status: 'completed', charge: 5000, usage, text: 'x', inferenceMs: 1 }, now: Date.now() }), { recorded: true, charged: 100 });
    t.deepEqual(await gw.app.store.settleInline({ p: failed!, outcome: { status: 'failed', error: 'the provider failed mid-answer', code: 'upstream_failed', usage, text: 'partial' }, now: Date.now() }), { recorded: true, charged: 0 });
    t.like(await findPredictionById(gw.app.db, failed!.id), { status: 'failed', error: 'the provider failed mid-answer', errorCode: 'upstream_failed', price: 100 });
    t.deepEqual(await gw.app.store.settleInline({ p: left!, outcome: { status: 'cancelled', charge: 7, usage: { inputTokens: 5, outputTokens: 3, source: 'counted' }, text: 'par', inferenceMs: 2 }, now: Date.now() }), { recorded: true, charged: 7 });
    t.like(await findPredictionById(gw.app.db, left!.id), { status: 'cancelled', price: 7 });
    const raced2 = await Promise.all([30, 60, 90].map((charge) => gw.app.store.settleInline({ p: raced!, outcome: { status: 'completed', charge, usage, text: 'y', inferenceMs: 1 }, now: Date.now() })));
    t.is(raced2.filter((r) => r.recorded).length, 1, 'one settle of the three moved the row');
    const charged = raced2.find((r) => r.recorded)!.charged;
    t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 1000 - 100 - charged, held: 0 });
    t.deepEqual(await wallet(gw.app.db, { userId: acct.userId, teamId: team }), { balance: 493, held: 0 });
    await assertRowsInSequence(t, gw.app.db, personal(acct.userId));
    await assertRowsInSequence(t, gw.app.db, { userId: acct.userId, teamId: team });
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}an inline call is refused as a submit is (short credit 402, past a limit 429), recording nothing; running inline calls count as unfinished`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 150);
    t.is(await answer(gw.app.store.startInline({ p: inlineRequest(acct.userId, 200), now: Date.now() })), '402');
    const limits: ConcurrencyLimits = { perKey: 0, perAccount: 1 };
    t.is(await answer(gw.app.store.startInline({ p: inlineRequest(acct.userId, 100), now: Date.now(), limits })), 'ok');
    t.is(await answer(gw.app.store.startInline({ p: inlineRequest(acct.userId, 10), now: Date.now(), limits })), '429 account');
    t.is(await answer(gw.app.store.submit({ p: request(acct.userId, 10), now: Date.now(), limits })), '429 account');
    t.is(await count(gw.app.db('predictions').where({ user_id: acct.userId })), 1);
    t.is(await count(gw.app.db('prediction_usage')), 1);
    t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 50, held: 100 });
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}an inline call that touches its row is not failed for lost however long ago it started; a touch of a call no longer running says so`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 1000);
    const long = inlineRequest(acct.userId, 100);
    const silent = inlineRequest(acct.userId, 50);
    await gw.app.store.startInline({ p: long, now: 1_000 });
    await gw.app.store.startInline({ p: silent, now: 1_000 });
    t.true(await gw.app.store.touchInline(long.id, 50_000));
    t.is(await gw.app.store.failAbandonedInline(10_000, 60_000), 1, 'only the silent one');
    t.like(await findPredictionById(gw.app.db, long.id), { status: 'processing' });
    t.like(await findPredictionById(gw.app.db, silent.id), { status: 'failed', errorCode: 'inline_abandoned' });
    t.false(await gw.app.store.touchInline(silent.id, 70_000), 'a call failed for lost is not running any more');
    // silent since its touch: failed at last
    t.is(await gw.app.store.failAbandonedInline(60_000, 80_000), 1);
    t.false(await gw.app.store.touchInline(long.id, 90_000));
    t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 1000, held: 0 });
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}inline calls a stopped process never settled are failed and released once, the recent ones left running; no sweep republishes one`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 1000);
    const old = inlineRequest(acct.userId, 100);
    const recent = inlineRequest(acct.userId, 50);
    await gw.app.store.startInline({ p: old, now: 1_000 });
    await gw.app.store.startInline({ p: recent, now: Date.now() });
    const cutoff = Date.now() - 60_000;
    t.deepEqual(await Promise.all([gw.app.store.failAbandonedInline(cutoff, Date.now()), gw.app.store.failAbandonedInline(cutoff, Date.now())]).then((ns) => ns.reduce((a, b) => a + b, 0)), 1);
    t.like(await findPredictionById(gw.app.db, old.id), { status: 'failed', errorCode: 'inline_abandoned' });
    t.like(await findPredictionById(gw.app.db, recent.id), { status: 'processing' });
    t.is(await gw.app.store.failAbandonedInline(cutoff, Date.now()), 0);
    t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 950, held: 50 });
    t.deepEqual(await findUnfinished(gw.app.db, 100), [], 'an inline call is never published to a worker');
    t.deepEqual(await releaseOrphanedClaims(gw.app.db, Date.now()), 0);
    t.like(await findPredictionById(gw.app.db, recent.id), { status: 'processing' });
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}a running inline call its owner cancels keeps its hold for its own settle, which charges what it relayed and releases the rest, once; a later settle or sweep moves nothing`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 1000);
    const me = personal(acct.userId);
    const p = inlineRequest(acct.userId, 100);
    await gw.app.store.startInline({ p, now: Date.now() });
    t.is(await gw.app.store.cancel(me, p.id, Date.now()), 'cancelled');
    t.like(await findPredictionById(gw.app.db, p.id), { status: 'cancelled' });
    t.deepEqual(await wallet(gw.app.db, me), { balance: 900, held: 100 }, 'held until the stream settles what it relayed');
    t.false(await gw.app.store.touchInline(p.id, Date.now()), 'the stream learns it was ended');
    t.is(await gw.app.store.cancel(me, p.id, Date.now()), 'finished');
    const relayed = { status: 'cancelled' as const, charge: 12, usage: { inputTokens: 5, outputTokens: 40, source: 'counted' as const }, text: 'part of it', inferenceMs: 9, error: 'cancelled while its answer was streamed', code: 'cancelled' };
    t.deepEqual(await gw.app.store.settleInline({ p, outcome: relayed, now: Date.now() }), { recorded: true, charged: 12 });
    t.like(await findPredictionById(gw.app.db, p.id), { status: 'cancelled', price: 12, error: 'cancelled while its answer was streamed' });
    t.like(await usageOf(gw.app.db, p.id), { output_tokens: 40, usage_source: 'counted', output_text: 'part of it' });
    t.deepEqual(await wallet(gw.app.db, me), { balance: 988, held: 0 });
    t.deepEqual(await gw.app.store.settleInline({ p, outcome: { ...relayed, charge: 50 }, now: Date.now() }), { recorded: false, charged: 0 });
    t.is(await gw.app.store.failAbandonedInline(Date.now() + 1, Date.now() + 1), 0);
    t.deepEqual(await wallet(gw.app.db, me), { balance: 988, held: 0 });
    t.deepEqual((await assertRowsInSequence(t, gw.app.db, me)).map((r) => r.kind), ['grant', 'hold', 'prediction', 'release']);
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}a key's spend and its wallet's month count a cancelled inline call by its charge (its hold while its stream runs), a cancelled asynchronous run and a failed call not at all`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 1000);
    const me = personal(acct.userId);
    const keyId = (await gw.app.db('api_keys').where({ user_id: acct.userId, is_test: false }).first('id')).id as number;
    // one call starts two minutes back; the sums run from the period that holds its start (they have no end)
    const start = Date.now() - 120_000;
    const spent = async () => [await keySpend(gw.app.db, keyId, 'day', start), await monthSpend(gw.app.db, me, start)];
    const asynchronous = request(acct.userId, 50, keyId);
    await gw.app.store.submit({ p: asynchronous, now: Date.now() });
    t.is(await gw.app.store.cancel(me, asynchronous.id, Date.now()), 'cancelled');
    const failed = { ...inlineRequest(acct.userId, 80), apiKeyId: keyId };
    await gw.app.store.startInline({ p: failed, now: Date.now() });
    await gw.app.store.settleInline({ p: failed, outcome: { status: 'failed', error: 'upstream said no', code: 'upstream_error' }, now: Date.now() });
    t.deepEqual(await spent(), [0, 0]);
    const p = { ...inlineRequest(acct.userId, 100), apiKeyId: keyId };
    await gw.app.store.startInline({ p, now: Date.now() });
    t.is(await gw.app.store.cancel(me, p.id, Date.now()), 'cancelled');
    t.deepEqual(await spent(), [100, 100], 'held until its stream settles');
    const relayed = { status: 'cancelled' as const, charge: 12, usage: { inputTokens: 5, outputTokens: 40, source: 'counted' as const }, text: 'part of it', inferenceMs: 9 };
    await gw.app.store.settleInline({ p, outcome: relayed, now: Date.now() });
    t.deepEqual(await spent(), [12, 12], 'what it relayed was charged');
    t.deepEqual(await wallet(gw.app.db, me), { balance: 988, held: 0 });
    // one whose stream never settles: the sweeper releases it, and it counts nothing
    const gone = { ...inlineRequest(acct.userId, 100), apiKeyId: keyId };
    await gw.app.store.startInline({ p: gone, now: start });
    t.is(await gw.app.store.cancel(me, gone.id, start + 1_000), 'cancelled');
    t.deepEqual(await spent(), [112, 112]);
    t.is(await gw.app.store.failAbandonedInline(start + 60_000, Date.now()), 1);
    t.deepEqual(await spent(), [12, 12]);
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}a stream's settle, its owner's cancel and the sweeper racing on one inline call move its money once, whichever wins`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 10_000);
    const me = personal(acct.userId);
    const charges: number[] = [];
    for (let round = 0; round < 12; round++) {
      const p = inlineRequest(acct.userId, 100);
      await gw.app.store.startInline({ p, now: 1_000 });
      const done = { status: (round % 2 ? 'completed' : 'cancelled') as 'completed' | 'cancelled', charge: 30, usage: { inputTokens: 1, outputTokens: 1, source: 'reported' as const }, text: 'x', inferenceMs: 1 };
      // the stream's settle (twice: its end and its disconnect), the owner's cancel and the sweeper at once
      await Promise.all([
        gw.app.store.settleInline({ p, outcome: done, now: Date.now() }),
        gw.app.store.settleInline({ p, outcome: { ...done, status: 'cancelled', charge: 20 }, now: Date.now() }),
        gw.app.store.cancel(me, p.id, Date.now()),
        gw.app.store.failAbandonedInline(Date.now(), Date.now()),
      ]);
      // whatever is still held after that is the stream's to settle (a cancel that came first): it does, once
      await gw.app.store.settleInline({ p, outcome: done, now: Date.now() });
      const row = (await findPredictionById(gw.app.db, p.id))!;
      const moves = await gw.app.db('credit_transactions').where({ prediction_id: p.id }).select('kind', 'amount', 'held_change');
      t.is(moves.filter((m: { kind: string }) => m.kind === 'hold').length, 1);
      t.true(moves.filter((m: { kind: string }) => m.kind === 'prediction').length <= 1, 'charged at most once');
      t.true(moves.filter((m: { kind: string }) => m.kind === 'release').length <= 1, 'released at most once');
      t.is(moves.reduce((sum: number, m: { held_change: number | string }) => sum + Number(m.held_change), 0), 0, 'nothing of its hold left held');
      const charged = -moves.reduce((sum: number, m: { amount: number | string }) => sum + Number(m.amount), 0);
      t.true([0, 20, 30].includes(charged), `charged ${charged}`);
      if (row.status !== 'failed') t.is(row.price, charged, 'the price says what was charged');
      t.not((await usageOf(gw.app.db, p.id)).settled_at, null);
      charges.push(charged);
    }
    t.deepEqual(await wallet(gw.app.db, me), { balance: 10_000 - charges.reduce((a, b) => a + b, 0), held: 0 });
    await assertRowsInSequence(t, gw.app.db, me);
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}an inline call its owner cancelled and whose process is gone is released by the sweeper once it has been silent long enough, nothing charged`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 1000);
    const me = personal(acct.userId);
    const p = inlineRequest(acct.userId, 100);
    await gw.app.store.startInline({ p, now: 1_000 });
    t.is(await gw.app.store.cancel(me, p.id, 5_000), 'cancelled');
    t.is(await gw.app.store.failAbandonedInline(4_000, 6_000), 0, 'cancelled after the cut-off: its stream may still settle it');
    t.deepEqual(await wallet(gw.app.db, me), { balance: 900, held: 100 });
    t.is(await gw.app.store.failAbandonedInline(10_000, 11_000), 1);
    t.like(await findPredictionById(gw.app.db, p.id), { status: 'cancelled', price: 0 }, 'its price says it cost nothing');
    t.deepEqual(await wallet(gw.app.db, me), { balance: 1000, held: 0 });
    t.deepEqual(await gw.app.store.settleInline({ p, outcome: { status: 'cancelled', charge: 30, usage: { inputTokens: 1, outputTokens: 1, source: 'counted' }, text: 'x', inferenceMs: 1 }, now: 12_000 }), { recorded: false, charged: 0 }, 'a stream that comes back late moves nothing');
    t.deepEqual(await wallet(gw.app.db, me), { balance: 1000, held: 0 });
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}an inline call whose hold was released already (its account erased; cancelled by an earlier version, which released it) is not released again by its stream's settle or the sweeper`, async (t) => {
    const gw = await gatewayFor(t);
    const acct = await newAccount(gw, 1000);
    const me = personal(acct.userId);
    const [erased, legacy, swept] = [inlineRequest(acct.userId, 100), inlineRequest(acct.userId, 100), inlineRequest(acct.userId, 100)];
    await gw.app.store.startInline({ p: erased, now: Date.now() });
    for (const p of [legacy, swept]) {
      await gw.app.store.startInline({ p, now: 1_000 });
      // a cancel as an earlier version made it: cancelled, the whole hold released, the usage row left open
      await gw.app.db.transaction(async (trx) => {
        await trx('predictions').where({ id: p.id }).update({ status: 'cancelled', completed_at: 2_000, updated_at: 2_000 });
        await releaseFor(trx, me, 100, { predictionId: p.id, model: p.model, now: 2_000 });
      });
    }
    const relayed = { status: 'cancelled' as const, charge: 30, usage: { inputTokens: 1, outputTokens: 1, source: 'counted' as const }, text: 'x', inferenceMs: 1 };
    t.deepEqual(await gw.app.store.settleInline({ p: legacy, outcome: relayed, now: Date.now() }), { recorded: false, charged: 0 });
    t.not((await usageOf(gw.app.db, legacy.id)).settled_at, null, 'its usage row is closed');
    t.is(await gw.app.store.failAbandonedInline(3_000, Date.now()), 0);
    t.not((await usageOf(gw.app.db, swept.id)).settled_at, null, 'its usage row is closed');
    for (const p of [legacy, swept]) t.like(await findPredictionById(gw.app.db, p.id), { status: 'cancelled', price: 0 }, 'released without a charge: it cost nothing');
    t.deepEqual(await wallet(gw.app.db, me), { balance: 900, held: 100 });
    t.like(await eraseAccount(gw.app.db, acct.userId, Date.now(), { immediate: true }), { kind: 'erased', upstreamJobs: [] });
    t.deepEqual(await wallet(gw.app.db, me), { balance: 1000, held: 0 });
    t.deepEqual(await gw.app.store.settleInline({ p: erased, outcome: relayed, now: Date.now() }), { recorded: false, charged: 0 });
    t.is(await gw.app.store.failAbandonedInline(Date.now() + 1, Date.now() + 1), 0);
    t.deepEqual(await wallet(gw.app.db, me), { balance: 1000, held: 0 });
    await assertLedger(t, gw.app.db);
  });

  test(`${prefix}an inline call a studio's owner pays for (owner_pays) is charged and released on the owner's wallet, where it was held`, async (t) => {
    const gw = await gatewayFor(t);
    const owner = await newAccount(gw, 1000);
    const user = await newAccount(gw, 1000);
    const payer = personal(owner.userId);
    const [done, failed] = [{ ...inlineRequest(user.userId, 100), payer }, { ...inlineRequest(user.userId, 50), payer }];
    for (const p of [done, failed]) t.like(await gw.app.store.startInline({ p, now: Date.now() }), { accepted: true });
    t.deepEqual(await wallet(gw.app.db, payer), { balance: 850, held: 150 });
    t.deepEqual(await gw.app.store.settleInline({ p: done, outcome: { status: 'completed', charge: 30, usage: { inputTokens: 1, outputTokens: 1, source: 'reported' }, text: 'x', inferenceMs: 1 }, now: Date.now() }), { recorded: true, charged: 30 });
    t.deepEqual(await gw.app.store.settleInline({ p: failed, outcome: { status: 'failed', error: 'the provider failed', code: 'upstream_failed' }, now: Date.now() }), { recorded: true, charged: 0 });
    t.deepEqual(await wallet(gw.app.db, payer), { balance: 970, held: 0 });
    t.deepEqual(await wallet(gw.app.db, personal(user.userId)), { balance: 1000, held: 0 });
    await assertLedger(t, gw.app.db);
  });

  // ============================================================
  // Result reads
  // ============================================================

  test(`${prefix}result reads at once answer exactly what each read alone answers: another owner's ids unknown, the same read twice, an unknown id, other spellings`, async (t) => {
    const gw = await gatewayFor(t);
    const [a, b] = [await newAccount(gw, 10), await newAccount(gw, 10)];
    const mine: string[] = [];
    for (let i = 0; i < 8; i++) {
      const id = newPredictionId(Date.now());
      await gw.app.store.insertSandbox({ p: { id, userId: a.userId, apiKeyId: null, model: MODEL, input: { n: i }, webhookUrl: null }, outputs: [`sandbox/${i}.png`], now: Date.now() });
      mine.push(id);
    }
    const theirs = newPredictionId(Date.now());
    await gw.app.store.insertSandbox({ p: { id: theirs, userId: b.userId, apiKeyId: null, model: MODEL, input: {}, webhookUrl: null }, outputs: [], now: Date.now() });
    const [A, B] = [personal(a.userId), personal(b.userId)];
    const reads: Array<{ owner: Owner; id: string }> = [];
    for (const id of [...mine, theirs]) reads.push({ owner: A, id }, { owner: B, id }, { owner: A, id });
    reads.push({ owner: A, id: 'f'.repeat(32) }, { owner: A, id: mine[0]!.toUpperCase() }, { owner: B, id: mine[1]!.toUpperCase() }, { owner: B, id: `${mine[2]!} ` }, { owner: { userId: a.userId, teamId: 1_000_000 }, id: mine[3]! });
    const together = await Promise.all(reads.map((r) => gw.app.store.readResult(r.owner, r.id)));
    for (const [i, r] of reads.entries()) {
      const own = r.owner === A && mine.includes(r.id) || r.owner === B && r.id === theirs;
      if (own) t.like(together[i], { id: r.id, status: 'completed', isTest: true });
      if (r.owner === B && r.id.trim().toLowerCase() !== theirs) t.is(together[i], undefined, 'b never sees a\'s rows, whatever the spelling');
      t.deepEqual(await gw.app.store.readResult(r.owner, r.id), together[i], `${r.id} alone`);
    }
    t.deepEqual(together[0]!.outputs, ['sandbox/0.png']);
  });

  // ============================================================
  // Lock conflicts
  // ============================================================

  if (engine.conflicts) {
    test(`${prefix}a unit of work picked as a deadlock victim is retried whole: submits, claims, completions, failures and cancels go through, nothing held, charged or released twice`, async (t) => {
      const gw = await gatewayFor(t);
      const acct = await newAccount(gw, 10_000);
      const ps = await claimed(gw, acct.userId, 3);
      const queued = [request(acct.userId, 100), request(acct.userId, 100)];
      // the next two writes of each kind fail as a deadlock victim does (errno 1213), through the real
      // driver: a sequence counts them, outside any transaction (NEXTVAL is not rolled back)
      await gw.app.db.raw('create sequence mg_victims start with 1 increment by 1 nocache');
      const victim = "if nextval(mg_victims) % 3 <> 0 then signal sqlstate '40001' set mysql_errno = 1213, message_text = 'Deadlock found when trying to get lock; try restarting transaction'; end if";
      await gw.app.db.raw(`create trigger mg_insert_victim before insert on credit_transactions for each row begin ${victim}; end`);
      t.teardown(() => gw.app.db.raw('drop trigger if exists mg_insert_victim'));
      const answers = await Promise.all(queued.map((p) => answer(gw.app.store.submit({ p, now: Date.now() }))));
      t.deepEqual(answers, ['ok', 'ok']);
      const finished = await Promise.all([gw.app.store.complete(completion(ps[0]!, 0)), gw.app.store.complete(completion(ps[1]!, 1))]);
      t.true(finished.every((f) => f.recorded));
      t.true((await gw.app.store.fail(ps[2]!, 'refused', Date.now())).recorded);
      t.is(await gw.app.store.cancel(personal(acct.userId), queued[0]!.id, Date.now()), 'cancelled');
      await gw.app.db.raw('drop trigger mg_insert_victim');
      const victims = await gw.app.db.raw('select nextval(mg_victims) as n') as unknown as [Array<{ n: number | string }>];
      t.true(Number(victims[0][0]!.n) > 10, 'the conflicts happened and were retried');
      t.like(await gw.app.store.claim({ id: queued[1]!.id, now: Date.now(), takeOver: false }), { attempts: 1 });
      t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 10_000 - 2 * 50 - 100, held: 100 });
      t.deepEqual((await assertRowsInSequence(t, gw.app.db, personal(acct.userId))).map((r) => r.kind).filter((k) => k !== 'hold').sort(), ['grant', 'prediction', 'prediction', 'release', 'release']);
      await assertLedger(t, gw.app.db);
    });

    test(`${prefix}a lock conflict that persists is thrown as the driver's error, with nothing held or recorded`, async (t) => {
      const gw = await gatewayFor(t);
      const acct = await newAccount(gw, 10_000);
      await gw.app.db.raw(`create trigger mg_always_victim before insert on credit_transactions for each row
        signal sqlstate '40001' set mysql_errno = 1213, message_text = 'Deadlock found when trying to get lock; try restarting transaction'`);
      t.teardown(() => gw.app.db.raw('drop trigger if exists mg_always_victim'));
      const p = request(acct.userId, 100);
      await t.throwsAsync(gw.app.store.submit({ p, now: Date.now() }), { code: 'ER_LOCK_DEADLOCK' });
      t.deepEqual(await wallet(gw.app.db, personal(acct.userId)), { balance: 10_000, held: 0 });
      t.is(await findPredictionById(gw.app.db, p.id), undefined);
    });
  }
}

/** Gives a wallet expiring grant credit, one grant per entry (expiring at now + 10 n), and the wallet row's marker. */
export async function addGrants(d: Knex, w: Owner, remaining: readonly number[], now: number): Promise<void> {
  const key = w.teamId === null ? `user:${w.userId}` : `team:${w.teamId}`;
  const [subscriptionId] = await d('subscriptions').insert({
    wallet: key, user_id: w.userId, team_id: w.teamId, plan: 'basic', status: 'active', period_anchor: now, current_period_start: now, current_period_end: now + 1, created_at: now, updated_at: now,
  });
  for (const [i, left] of remaining.entries()) {
    const n = i + 1;
    await d('credit_grants').insert({
      wallet: key, user_id: w.userId, team_id: w.teamId, subscription_id: subscriptionId, plan: 'basic', period_start: now + n, amount: left, remaining: left, cap_at: now + n, expires_at: now + 10 * n, created_at: now,
    });
  }
  await d(w.teamId === null ? 'users' : 'teams').where('id', w.teamId ?? w.userId).update({ grants: remaining.length });
}

/** A second knex instance on a gateway's MariaDB database (another process's pool); `asIfMysql` as the gateway's. */
export function secondMysqlDb(gw: TestGateway, asIfMysql?: true): Knex {
  return createDb({ databaseUrl: gw.env.DATABASE_URL, sqliteFile: '', ...(asIfMysql ? { asIfMysql } : {}) });
}
