// The worker's group commit of completions (workers/completions.ts, db/predictions.ts
// completePredictions, db/wallet/moves.ts settleWallets and settleManyFor): completions that arrive while
// a transaction is in flight go together in the next one, over one paying wallet or several, and
// the ledger comes out exactly as the same charges one by one would have left it.
import test from 'ava';
import pino from 'pino';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { assertLedger } from '../helpers/ledger.ts';
import { waitFor } from '../helpers/services.ts';
import { cancelPrediction, claim, completePredictions, newPredictionId, submitPrediction } from '../../db/predictions.ts';
import type { Completion, Prediction } from '../../db/predictions.ts';
import { createCompletions } from '../../workers/completions.ts';
import { createRunModel } from '../../workers/run-model.ts';

const MODEL = 'canvas-v1-fast-text-to-image';
const silent = pino({ level: 'silent' });

/** n predictions of the user's wallet, submitted (held) and claimed; every third with a webhook. */
async function claimed(gw: TestGateway, userId: number, n: number, price = 50, teamId: number | null = null): Promise<Prediction[]> {
  const out: Prediction[] = [];
  for (let i = 0; i < n; i++) {
    const id = newPredictionId(Date.now());
    const outcome = await submitPrediction(gw.app.db, {
      id, userId, teamId, apiKeyId: null, model: MODEL, input: { prompt: `p${i}` }, price, listPrice: price + 10, discountPercent: 16,
      webhookUrl: i % 3 === 0 ? 'https://example.com/hook' : null,
    }, Date.now());
    if (!outcome.accepted) throw new Error('refused');
    const p = await claim(gw.app.db, id, Date.now(), outcome.row ? { known: outcome.row } : {});
    if (!p) throw new Error('not claimed');
    out.push(p);
  }
  return out;
}

/**
 * The engines a group is recorded on: MariaDB (the whole transaction in one compound statement,
 * db/predictions.ts completeInOne), MySQL (the same server answering as MySQL, asIfMysql: the
 * multi-statement path MySQL takes, and MariaDB when a group falls back), SQLite.
 */
const ENGINES = ['mariadb', 'mysql', 'sqlite'] as const;
type Engine = typeof ENGINES[number];
const gatewayOn = (engine: Engine) => startGateway({ db: engine === 'sqlite' ? 'sqlite' : 'mysql', queue: 'memory', ...(engine === 'mysql' ? { asIfMysql: true as const } : {}) });
/** How many times `re` (global) occurs in the statements' text. */
const occurrences = (sql: readonly string[], re: RegExp) => sql.reduce((n, q) => n + (q.match(re)?.length ?? 0), 0);

/** Gives a wallet expiring grant credit, one grant per entry (expiring at now + 10 n), and the wallet row's marker. */
async function addGrants(d: TestGateway['app']['db'], w: { userId: number; teamId: number | null }, remaining: readonly number[], now: number): Promise<void> {
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

const completion = (p: Prediction, i: number): Completion => ({ p, result: { outputs: [`outputs/${p.id}/0.png`], nsfw: [i % 5 === 1], inferenceMs: i + 0.4 }, now: Date.now() + i });

/** The wallet's ledger rows in order: each row's balance/held after must follow from the row before it. */
async function assertRowsInSequence(t: import('ava').ExecutionContext, gw: TestGateway, userId: number): Promise<Array<{ kind: string; prediction_id: string | null; list_price: unknown; discount_percent: unknown }>> {
  const rows = await gw.app.db('credit_transactions').where({ user_id: userId }).whereNull('team_id').orderBy('id')
    .select('kind', 'amount', 'held_change', 'balance_after', 'held_after', 'prediction_id', 'list_price', 'discount_percent') as Array<Record<string, unknown>>;
  let balance = 0;
  let held = 0;
  for (const r of rows) {
    held += Number(r.held_change);
    balance += Number(r.amount) - Number(r.held_change);
    t.deepEqual([Number(r.balance_after), Number(r.held_after)], [balance, held], `row ${String(r.kind)} ${String(r.prediction_id)}`);
  }
  return rows as Array<{ kind: string; prediction_id: string | null; list_price: unknown; discount_percent: unknown }>;
}

for (const db of ENGINES) {
  test(`${db}: many parallel completions of one wallet go in groups and charge exactly: ledger rows in sequence, balance, held back to 0`, async (t) => {
    const gw = await gatewayOn(db);
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, 10_000);
    const ps = await claimed(gw, acct.userId, 30);
    const sql: string[] = [];
    const count = (q: { sql: string }) => { sql.push(q.sql); };
    gw.app.db.on('query', count);
    const completions = createCompletions(gw.app.db, silent);
    const pending = ps.map((p, i) => completions.complete(completion(p, i)));
    // completed in one job, the 30 wait for the end of it and then go together, as one group
    t.is(completions.waiting, 30);
    const finished = await Promise.all(pending);
    gw.app.db.off('query', count);
    t.is(completions.waiting, 0);
    t.true(finished.every((f) => f.recorded));
    t.is(finished.filter((f) => f.deliveryId !== null).length, 10);
    t.is(occurrences(sql, /update [`"]?users[`"]? set/gi), 1, 'one wallet UPDATE for the group');
    t.is(occurrences(sql, /insert into [`"]?credit_transactions/gi), 1, 'one ledger INSERT for the group');
    // MariaDB: the group's whole transaction in one statement
    if (db === 'mariadb') t.deepEqual(sql.map((q) => q.slice(0, 17)), ['begin not atomic\n']);
    const user = await gw.app.db('users').where({ id: acct.userId }).first('balance', 'held');
    t.deepEqual([Number(user.balance), Number(user.held)], [10_000 - 30 * 50, 0]);
    const rows = await assertRowsInSequence(t, gw, acct.userId);
    const charges = rows.filter((r) => r.kind === 'prediction');
    t.deepEqual(charges.map((r) => r.prediction_id).sort(), ps.map((p) => p.id).sort());
    t.true(charges.every((r) => Number(r.list_price) === 60 && Number(r.discount_percent) === 16));
    // each row got its own outputs, flags, inference time and completion time
    const done = new Map((await gw.app.db('predictions').whereIn('id', ps.map((p) => p.id))).map((r: Record<string, unknown>) => [r.id, r]));
    const items = ps.map(completion);
    for (const [i, { p, result }] of items.entries()) {
      const r = done.get(p.id)!;
      t.deepEqual([r.status, JSON.parse(String(r.outputs)), JSON.parse(String(r.nsfw)), Number(r.inference_ms), r.review_status, r.error],
        ['completed', result.outputs, result.nsfw, i, i % 5 === 1 ? 'flagged' : 'unreviewed', null]);
      t.true(Number(r.completed_at) >= Number(r.started_at) && Number(r.completed_at) === Number(r.updated_at));
    }
    t.is((await gw.app.db('webhook_deliveries').whereIn('prediction_id', ps.map((p) => p.id))).length, 10);
    await assertLedger(t, gw.app.db);
  });

  test(`${db}: a group with a prediction cancelled meanwhile charges only the others, and the same group again charges nothing`, async (t) => {
    const gw = await gatewayOn(db);
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, 10_000);
    const ps = await claimed(gw, acct.userId, 5);
    t.is(await cancelPrediction(gw.app.db, { userId: acct.userId, teamId: null }, ps[2]!.id, Date.now()), 'cancelled');
    // the last one named twice (two copies of its message finishing in one process): charged once
    const items = [...ps.map(completion), completion(ps[4]!, 9)];
    let statements = 0;
    const count = () => { statements++; };
    gw.app.db.on('query', count);
    const finished = await completePredictions(gw.app.db, items);
    gw.app.db.off('query', count);
    t.deepEqual(finished.map((f) => f.recorded), [true, true, false, true, true, false]);
    // BEGIN, lock, transition, wallet, ledger, the delivery rows (predictions 0 and 3), COMMIT; after
    // a first try that changed 4 rows of the 5 it named and rolled back: on MySQL BEGIN, transition,
    // ROLLBACK, on MariaDB the one statement
    t.is(statements, { mariadb: 8, mysql: 10, sqlite: 7 }[db]);
    t.is(finished[2]!.deliveryId, null, 'no webhook for the one not completed here');
    t.like(await gw.app.db('predictions').where({ id: ps[2]!.id }).first('status'), { status: 'cancelled' });
    // a redelivered group (the answer of a commit lost): every transition fails, nothing is charged again
    const again = await completePredictions(gw.app.db, items);
    t.true(again.every((f) => !f.recorded && f.deliveryId === null));
    const user = await gw.app.db('users').where({ id: acct.userId }).first('balance', 'held');
    t.deepEqual([Number(user.balance), Number(user.held)], [10_000 - 4 * 50, 0]);
    const rows = await assertRowsInSequence(t, gw, acct.userId);
    t.deepEqual(rows.filter((r) => r.kind === 'prediction').map((r) => r.prediction_id).sort(), ps.filter((_, i) => i !== 2).map((p) => p.id).sort());
    t.deepEqual(rows.filter((r) => r.kind === 'release').map((r) => r.prediction_id), [ps[2]!.id]);
    await assertLedger(t, gw.app.db);
  });

  test(`${db}: a group whose rows are all still processing moves them in one UPDATE on MariaDB, and writes its delivery rows in one INSERT, each at its completion's time`, async (t) => {
    const gw = await gatewayOn(db);
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, 10_000);
    const ps = await claimed(gw, acct.userId, 7);
    // the first one named twice (two copies of its message finishing in one process): recorded once
    const items = [...ps.map(completion), completion(ps[0]!, 9)];
    const sql: string[] = [];
    const seen = (q: { sql: string }) => { sql.push(q.sql); };
    gw.app.db.on('query', seen);
    const finished = await completePredictions(gw.app.db, items);
    gw.app.db.off('query', seen);
    t.deepEqual(finished.map((f) => f.recorded), [...ps.map(() => true), false]);
    // BEGIN, [lock,] transition, wallet, ledger, delivery rows, COMMIT; on MariaDB all of it in one statement
    t.is(sql.length, { mariadb: 1, mysql: 6, sqlite: 7 }[db], sql.join('\n'));
    t.is(sql.filter((q) => /^select/i.test(q)).length, db === 'sqlite' ? 1 : 0);
    t.is(occurrences(sql, /update [`"]?predictions[`"]?(?: force index \(primary\))? set/gi), 1);
    t.is(occurrences(sql, /insert into [`"]?webhook_deliveries/gi), 1);
    const hooked = items.slice(0, ps.length).filter((c) => c.p.webhookUrl !== null);
    t.is(hooked.length, 3);
    for (const c of hooked) {
      const id = finished[items.indexOf(c)]!.deliveryId;
      t.truthy(id);
      const row = await gw.app.db('webhook_deliveries').where({ id }).first() as Record<string, unknown>;
      t.deepEqual([row.prediction_id, Number(row.user_id), row.url, row.status, Number(row.attempts), Number(row.next_attempt_at), Number(row.created_at), Number(row.updated_at)],
        [c.p.id, acct.userId, 'https://example.com/hook', 'pending', 0, c.now, c.now, c.now]);
    }
    t.true(finished.filter((f, i) => items[i]!.p.webhookUrl === null).every((f) => f.deliveryId === null));
    t.is(finished[ps.length]!.deliveryId, null, 'no second delivery for the copy');
    t.is((await gw.app.db('webhook_deliveries').whereIn('prediction_id', ps.map((p) => p.id))).length, 3);
    for (const [i, c] of items.slice(0, ps.length).entries()) {
      const row = await gw.app.db('predictions').where({ id: c.p.id }).first() as Record<string, unknown>;
      t.deepEqual([row.status, row.outputs, row.nsfw, Number(row.inference_ms), Number(row.completed_at), row.review_status],
        ['completed', JSON.stringify(c.result.outputs), JSON.stringify(c.result.nsfw), Math.round(c.result.inferenceMs), c.now, i % 5 === 1 ? 'flagged' : 'unreviewed']);
    }
    const user = await gw.app.db('users').where({ id: acct.userId }).first('balance', 'held');
    t.deepEqual([Number(user.balance), Number(user.held)], [10_000 - 7 * 50, 0]);
    await assertRowsInSequence(t, gw, acct.userId);
    await assertLedger(t, gw.app.db);
  });

  test(`${db}: a group that fails as a whole is completed one by one, each charged once`, async (t) => {
    const gw = await gatewayOn(db);
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, 10_000);
    const ps = await claimed(gw, acct.userId, 6);
    let groups = 0;
    // the group records its completions, then its answer is lost (as a failed COMMIT's would be)
    const completions = createCompletions(gw.app.db, silent, { completeGroup: async (d, items) => {
      groups++;
      await completePredictions(d, items.slice(0, 2));
      throw new Error('connection lost');
    } });
    const finished = await Promise.all(ps.map((p, i) => completions.complete(completion(p, i))));
    t.is(groups, 1);
    // the six went as one group; the two it recorded are found completed, the others are recorded one by one
    t.deepEqual(finished.map((f) => f.recorded), [false, false, true, true, true, true]);
    const user = await gw.app.db('users').where({ id: acct.userId }).first('balance', 'held');
    t.deepEqual([Number(user.balance), Number(user.held)], [10_000 - 6 * 50, 0]);
    const rows = await assertRowsInSequence(t, gw, acct.userId);
    t.is(rows.filter((r) => r.kind === 'prediction').length, 6);
    await assertLedger(t, gw.app.db);
  });
}

for (const db of ENGINES) {
  test(`${db}: completions of several wallets (users' and a team's) go in one group: wallets locked users then teams by id, one UPDATE per wallet table, one ledger INSERT, every wallet's rows in sequence`, async (t) => {
    const gw = await gatewayOn(db);
    t.teardown(() => gw.stop());
    const { createTeam } = await import('../../db/teams.ts');
    const { creditTeam } = await import('../../db/wallet/moves.ts');
    const accts = [await newAccount(gw, 10_000), await newAccount(gw, 10_000), await newAccount(gw, 10_000)];
    const team = await createTeam(gw.app.db, accts[0]!.userId, 'spread', Date.now());
    await gw.app.db.transaction((trx) => creditTeam(trx, team.id, accts[0]!.userId, 10_000, 'grant', 'funding', Date.now()));
    const lists = [...await Promise.all(accts.map((a) => claimed(gw, a.userId, 5))), await claimed(gw, accts[1]!.userId, 5, 70, team.id)];
    // the wallets' predictions interleaved, as a worker's prefetch would take them
    const ps = Array.from({ length: 5 }, (_, i) => lists.map((l) => l[i]!)).flat();
    const seen = { users: 0, teams: 0, ledger: 0, locks: [] as Array<{ table: string; ids: number[] }> };
    const statements: string[] = [];
    const count = (q: { sql: string; bindings?: unknown[] }) => {
      statements.push(q.sql);
      if (db === 'mariadb') return;
      const lock = /^(?:select .* from|update) [`"](users|teams)[`"] .*(?:for update$|`held` = held where .*returning)/i.exec(q.sql);
      if (lock) seen.locks.push({ table: lock[1]!, ids: (q.bindings ?? []).map(Number) });
      else if (/^update [`"]?users/i.test(q.sql)) seen.users++;
      else if (/^update [`"]?teams/i.test(q.sql)) seen.teams++;
      if (/^insert into [`"]?credit_transactions/i.test(q.sql)) seen.ledger++;
    };
    gw.app.db.on('query', count);
    const completions = createCompletions(gw.app.db, silent);
    const finished = await Promise.all(ps.map((p, i) => completions.complete(completion(p, i))));
    gw.app.db.off('query', count);
    t.true(finished.every((f) => f.recorded));
    if (db === 'mariadb') {
      // one statement: the users' UPDATE (their rows in id order, by primary key) before the teams', then one ledger INSERT
      t.is(statements.length, 1);
      const [one] = statements;
      t.deepEqual([occurrences(statements, /update `users` set/g), occurrences(statements, /update `teams` set/g), occurrences(statements, /insert into `credit_transactions`/g)], [1, 1, 1]);
      t.true(one!.indexOf('update `users` set') < one!.indexOf('update `teams` set'));
      t.regex(one!, /update `users` set .* where id in \(\?, \?, \?\) and grants = 0/);
    } else {
      t.deepEqual(seen, { users: 1, teams: 1, ledger: 1, locks: [{ table: 'users', ids: accts.map((a) => a.userId).sort((x, y) => x - y) }, { table: 'teams', ids: [team.id] }] });
    }
    for (const a of accts) {
      const user = await gw.app.db('users').where({ id: a.userId }).first('balance', 'held');
      t.deepEqual([Number(user.balance), Number(user.held)], [10_000 - 5 * 50, 0]);
      const rows = await assertRowsInSequence(t, gw, a.userId);
      t.deepEqual(rows.filter((r) => r.kind === 'prediction').map((r) => r.prediction_id), lists[accts.indexOf(a)]!.map((p) => p.id).sort());
    }
    const teamRow = await gw.app.db('teams').where({ id: team.id }).first('balance', 'held');
    t.deepEqual([Number(teamRow.balance), Number(teamRow.held)], [10_000 - 5 * 70, 0]);
    const teamRows = await gw.app.db('credit_transactions').where({ team_id: team.id }).orderBy('id').select('kind', 'balance_after', 'held_after') as Array<Record<string, unknown>>;
    t.deepEqual(teamRows.filter((r) => r.kind === 'prediction').map((r) => [Number(r.balance_after), Number(r.held_after)]), [280, 210, 140, 70, 0].map((h) => [10_000 - 5 * 70, h]));
    await assertLedger(t, gw.app.db);
  });

  test(`${db}: a group of several wallets that fails as a whole is completed one by one, each charged once on its own wallet`, async (t) => {
    const gw = await gatewayOn(db);
    t.teardown(() => gw.stop());
    const accts = [await newAccount(gw, 10_000), await newAccount(gw, 10_000)];
    const [x, y] = await Promise.all(accts.map((a) => claimed(gw, a.userId, 3)));
    const ps = [x![0]!, y![0]!, x![1]!, y![1]!, x![2]!, y![2]!];
    let groups = 0;
    // the group records its first two completions (one of each wallet), then its answer is lost
    const completions = createCompletions(gw.app.db, silent, { completeGroup: async (d, items) => {
      groups++;
      await completePredictions(d, items.slice(0, 2));
      throw new Error('connection lost');
    } });
    const finished = await Promise.all(ps.map((p, i) => completions.complete(completion(p, i))));
    t.is(groups, 1);
    t.deepEqual(finished.map((f) => f.recorded), [false, false, true, true, true, true]);
    for (const a of accts) {
      const user = await gw.app.db('users').where({ id: a.userId }).first('balance', 'held');
      t.deepEqual([Number(user.balance), Number(user.held)], [10_000 - 3 * 50, 0]);
      t.is((await assertRowsInSequence(t, gw, a.userId)).filter((r) => r.kind === 'prediction').length, 3);
    }
    await assertLedger(t, gw.app.db);
  });
}

for (const db of ['mariadb', 'mysql'] as const) {
  test(`${db}: a completion alone goes ${db === 'mariadb' ? 'as a group of one, in one statement' : 'through its own transaction'}, charged once`, async (t) => {
    const gw = await gatewayOn(db);
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, 10_000);
    const [p] = await claimed(gw, acct.userId, 1);
    const sql: string[] = [];
    const seen = (q: { sql: string }) => { sql.push(q.sql); };
    gw.app.db.on('query', seen);
    const finished = await createCompletions(gw.app.db, silent).complete(completion(p!, 0));
    gw.app.db.off('query', seen);
    t.true(finished.recorded);
    t.truthy(finished.deliveryId);
    if (db === 'mariadb') t.deepEqual(sql.map((q) => q.slice(0, 17)), ['begin not atomic\n']);
    else t.is(occurrences(sql, /^begin not atomic/g), 0);
    const user = await gw.app.db('users').where({ id: acct.userId }).first('balance', 'held');
    t.deepEqual([Number(user.balance), Number(user.held)], [10_000 - 50, 0]);
    t.is((await gw.app.db('webhook_deliveries').where({ id: finished.deliveryId })).length, 1);
    await assertRowsInSequence(t, gw, acct.userId);
    await assertLedger(t, gw.app.db);
  });
}

test('mariadb: a group with a wallet that has expiring grants rolls the one statement back before writing and spends them on the multi-statement path', async (t) => {
  const gw = await gatewayOn('mariadb');
  t.teardown(() => gw.stop());
  const d = gw.app.db;
  const now = Date.now();
  const [plain, granted] = [await newAccount(gw, 10_000), await newAccount(gw, 10_000)];
  const key = `user:${granted.userId}`;
  await addGrants(d, { userId: granted.userId, teamId: null }, [100], now);
  const [x, y] = [await claimed(gw, plain.userId, 3), await claimed(gw, granted.userId, 3)];
  const ps = [x[0]!, y[0]!, x[1]!, y[1]!, x[2]!, y[2]!];
  const sql: string[] = [];
  const seen = (q: { sql: string }) => { sql.push(q.sql); };
  d.on('query', seen);
  const finished = await completePredictions(d, ps.map(completion));
  d.off('query', seen);
  t.true(finished.every((f) => f.recorded));
  // the one statement, rolled back at the granted wallet's UPDATE; then the group's transaction statement by statement
  t.regex(sql[0]!, /^begin not atomic/);
  t.true(sql.length > 5);
  t.is(occurrences(sql.slice(1), /^begin not atomic/g), 0);
  // 150 charged: the grant's 100 spent first, the marker recounted to none
  t.deepEqual((await d('credit_grants').where('wallet', key).select('remaining')).map((g: { remaining: unknown }) => Number(g.remaining)), [0]);
  for (const a of [plain, granted]) {
    const user = await d('users').where({ id: a.userId }).first('balance', 'held', 'grants');
    t.deepEqual([Number(user.balance), Number(user.held), Number(user.grants)], [10_000 - 3 * 50, 0, 0]);
    t.is((await assertRowsInSequence(t, gw, a.userId)).filter((r) => r.kind === 'prediction').length, 3);
  }
  await assertLedger(t, d);
});

test('mariadb: an error inside the one statement rolls back everything it wrote and is raised, and leaves its connection outside any transaction', async (t) => {
  const gw = await gatewayOn('mariadb');
  t.teardown(() => gw.stop());
  const { default: knexFactory } = await import('knex');
  // one connection, so the statement after the error runs on the connection it failed on
  const one = knexFactory({ client: 'mysql2', connection: gw.app.db.client.config.connection, pool: { min: 1, max: 1 } });
  t.teardown(() => one.destroy());
  const acct = await newAccount(gw, 10_000);
  const ps = await claimed(gw, acct.userId, 4);
  const items = ps.map(completion);
  // prediction 3's delivery row names a user that does not exist: its INSERT, the statement's last, fails its foreign key
  const broken = items.map((c, i) => (i === 3 ? { ...c, p: { ...c.p, userId: 2_000_000_000 } } : c));
  t.truthy(broken[3]!.p.webhookUrl);
  await t.throwsAsync(completePredictions(one, broken), { message: /foreign key/i });
  const [[state]] = await one.raw('select @@in_transaction as open') as unknown as [[{ open: number }]];
  t.is(Number(state!.open), 0);
  t.deepEqual((await gw.app.db('predictions').whereIn('id', ps.map((p) => p.id)).select('status')).map((r: { status: string }) => r.status), ps.map(() => 'processing'));
  const user = await gw.app.db('users').where({ id: acct.userId }).first('balance', 'held');
  t.deepEqual([Number(user.balance), Number(user.held)], [10_000 - 4 * 50, 4 * 50]);
  t.is((await gw.app.db('credit_transactions').where({ user_id: acct.userId, kind: 'prediction' })).length, 0);
  t.is((await gw.app.db('webhook_deliveries').whereIn('prediction_id', ps.map((p) => p.id))).length, 0);
  // the same group, well formed, on the same connection: recorded and charged once
  t.true((await completePredictions(one, items)).every((f) => f.recorded));
  const after = await gw.app.db('users').where({ id: acct.userId }).first('balance', 'held');
  t.deepEqual([Number(after.balance), Number(after.held)], [10_000 - 4 * 50, 0]);
  await assertRowsInSequence(t, gw, acct.userId);
  await assertLedger(t, gw.app.db);
});

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
  await assertRowsInSequence(t, gw, acct.userId);
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
    t.is((await assertRowsInSequence(t, gw, a.userId)).filter((r) => r.kind === 'prediction').length, 10);
  }
  await assertLedger(t, gw.app.db);
});

test('mysql: two workers grouping completions of one wallet while submits hold on it and a cancel races them: each completed one charged once, the cancelled one released', async (t) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 100_000);
  const ps = await claimed(gw, acct.userId, 40);
  const [a, b] = [createCompletions(gw.app.db, silent), createCompletions(gw.app.db, silent)];
  const cancelled = ps[17]!.id;
  const results = await Promise.all([
    ...ps.map((p, i) => (i % 2 === 0 ? a : b).complete(completion(p, i))),
    cancelPrediction(gw.app.db, { userId: acct.userId, teamId: null }, cancelled, Date.now()),
    ...Array.from({ length: 10 }, () => submitPrediction(gw.app.db, {
      id: newPredictionId(Date.now()), userId: acct.userId, apiKeyId: null, model: MODEL, input: { prompt: 'q' }, price: 50, webhookUrl: null,
    }, Date.now())),
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
  await assertRowsInSequence(t, gw, acct.userId);
  await assertLedger(t, gw.app.db);
});

for (const db of ['mysql', 'sqlite'] as const) {
  test(`${db}: a group's charges over a user's and a team's wallet spend expiring grants and write the ledger exactly as the same charges one by one`, async (t) => {
    const gw = await gatewayOn(db);
    t.teardown(() => gw.stop());
    const d = gw.app.db;
    const now = Date.now();
    const { createTeam } = await import('../../db/teams.ts');
    const { creditTeam, holdFor, settleFor, settleWallets } = await import('../../db/wallet/moves.ts');
    // two wallets alike, a user's and a team's of each kind: one is charged as a group, the other one by one
    const wallets: Array<{ userId: number; teamId: number | null }> = [];
    for (let i = 0; i < 2; i++) {
      const acct = await newAccount(gw, 1000);
      const team = await createTeam(d, acct.userId, `team ${i}`, now);
      await d.transaction((trx) => creditTeam(trx, team.id, acct.userId, 1000, 'grant', 'funding', now));
      wallets.push({ userId: acct.userId, teamId: null }, { userId: acct.userId, teamId: team.id });
    }
    for (const w of wallets) {
      const key = w.teamId === null ? `user:${w.userId}` : `team:${w.teamId}`;
      // 230 of grant credit in two grants: 150 charged takes the sooner-expiring one and 120 of the other
      await addGrants(d, w, [30, 200], now);
      for (const id of ['a', 'b', 'c']) await d.transaction((trx) => holdFor(trx, w, 50, { predictionId: `${key}-${id}`, model: MODEL, now }));
    }
    const charges = (w: { userId: number; teamId: number | null }) => ['a', 'b', 'c'].map((id) => ({
      amount: 50, predictionId: `${w.teamId === null ? `user:${w.userId}` : `team:${w.teamId}`}-${id}`, model: MODEL, now, listPrice: 60, discountPercent: 16,
    }));
    // a user's and a team's wallet in one move (one group of the worker)
    await d.transaction((trx) => settleWallets(trx, [wallets[1]!, wallets[0]!].map((w) => ({ payer: w, charges: charges(w) }))));
    for (const w of [wallets[2]!, wallets[3]!]) {
      for (const c of charges(w)) await d.transaction((trx) => settleFor(trx, w, c.amount, c.predictionId, c.model, c.now, c));
    }
    const state = async (w: { userId: number; teamId: number | null }) => {
      const q = d('credit_transactions').orderBy('id').select('kind', 'amount', 'held_change', 'balance_after', 'held_after', 'list_price', 'discount_percent');
      if (w.teamId === null) q.where({ user_id: w.userId }).whereNull('team_id'); else q.where({ team_id: w.teamId });
      const grants = await d('credit_grants').where('wallet', w.teamId === null ? `user:${w.userId}` : `team:${w.teamId}`).orderBy('id').select('remaining');
      const wallet = await d(w.teamId === null ? 'users' : 'teams').where('id', w.teamId ?? w.userId).first('balance', 'held', 'grants');
      return {
        rows: (await q as Array<Record<string, unknown>>).map((r) => [r.kind, ...['amount', 'held_change', 'balance_after', 'held_after', 'list_price', 'discount_percent'].map((k) => (r[k] === null ? null : Number(r[k])))]),
        grants: grants.map((g: { remaining: unknown }) => Number(g.remaining)),
        wallet: [Number(wallet.balance), Number(wallet.held), Number(wallet.grants)],
      };
    };
    t.deepEqual(await state(wallets[0]!), await state(wallets[2]!), 'a user\'s wallet');
    t.deepEqual(await state(wallets[1]!), await state(wallets[3]!), 'a team\'s wallet');
    t.like(await state(wallets[0]!), { grants: [0, 80], wallet: [850, 0, 1] });
    t.deepEqual((await state(wallets[1]!)).rows.slice(-3).map((r) => r.slice(3, 5)), [[850, 100], [850, 50], [850, 0]]);
    await assertLedger(t, d);
  });
}
