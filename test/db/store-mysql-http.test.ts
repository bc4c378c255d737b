// The paths MySQL takes where MariaDB answers INSERT ... RETURNING (db/knex.ts answersReturning),
// run on the real MariaDB by gateways whose database instance answers as if it were MySQL
// (asIfMysql): the locked path of every submit batch (db/store/portable.ts lockedBatch), the
// sandbox rows without the balance read by their INSERT (the portable engine), and the per-minute
// counters one request at a time (db/rate-limits.ts hitOneMysql). Through the HTTP API, with
// parallel submits. Each gateway's statements are recorded: none may be a RETURNING or a
// hold-first batch, so the MariaDB paths cannot run unnoticed. What this does not cover is MySQL's
// own dialect and planner (README, the production shape).
import test from 'ava';
import type { ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { raceSubmits } from '../helpers/race.ts';
import { assertLedger } from '../helpers/ledger.ts';
import { answersReturning, createDb } from '../../db/knex.ts';

const MODEL_URL = '/api/v1/canvas-v1-fast-text-to-image';
const BODY = { prompt: 'a lighthouse', width: 64, height: 64 };
// The per-minute windows are fixed minutes: the limited gateway's clock stands one second into one.
const MINUTE_MS = 60_000;
const wallClock = Date.now();
const minuteStart = wallClock - (wallClock % MINUTE_MS) + MINUTE_MS + 1000;

interface Statement {
  sql: string;
  bindings: unknown[];
}

/** Every statement a knex instance runs (its transactions' included). */
function statements(db: Knex): Statement[] {
  const seen: Statement[] = [];
  db.on('query', (q: { sql: string; bindings?: unknown[] }) => seen.push({ sql: q.sql, bindings: q.bindings ?? [] }));
  return seen;
}

// The tests run one at a time: each reads the statements its gateway ran meanwhile.
let plain: TestGateway;
let limited: TestGateway;
const ran = { plain: [] as Statement[], limited: [] as Statement[] };
test.before(async () => {
  // limits off (startGateway's default); a worker completes what is accepted
  plain = await startGateway({ queue: 'memory', worker: true, asIfMysql: true });
  ran.plain = statements(plain.app.db);
  limited = await startGateway({
    queue: 'memory', asIfMysql: true, clock: () => minuteStart,
    env: { GENERATE_RATE_PER_KEY: '5', GENERATE_RATE_PER_ACCOUNT: '0', GENERATE_CONCURRENT_PER_KEY: '0', GENERATE_CONCURRENT_PER_ACCOUNT: '3' },
  });
  ran.limited = statements(limited.app.db);
});
test.after.always(async () => {
  await limited?.stop();
  await plain?.stop();
});

/** The MariaDB paths are not among these statements: no RETURNING, no hold-first batch (its UPDATE sets @mg_b0). */
function assertFallbacksOnly(t: ExecutionContext, since: readonly Statement[]) {
  t.deepEqual(since.map((s) => s.sql).filter((sql) => /\breturning\b|@mg_b0 :=/i.test(sql)), []);
}

function submit(gw: TestGateway, key: string) {
  return gw.server.inject({ method: 'POST', url: MODEL_URL, headers: { 'x-api-key': key }, payload: BODY });
}

test.serial('the switch is on: both gateways\' instances, and their transactions, answer no RETURNING on a server that has it', async (t) => {
  const probe = createDb({ databaseUrl: plain.env.DATABASE_URL, sqliteFile: '' });
  t.teardown(() => probe.destroy());
  t.true(await answersReturning(probe), 'the server is MariaDB: without the switch, RETURNING');
  for (const gw of [plain, limited]) {
    t.false(await answersReturning(gw.app.db));
    t.false(await gw.app.db.transaction((trx) => answersReturning(trx)));
  }
});

test.serial('30 parallel production submits on a wallet that covers 7: exactly 7 accepted, the rest 402; the wallet and every ledger row exact', async (t) => {
  const probe = await newAccount(plain, 1_000_000);
  const price = Number((await submit(plain, probe.liveKey)).headers['x-cost']);
  t.true(price > 0);
  const credit = price * 7 + price - 1;
  const acct = await newAccount(plain, credit);
  const from = ran.plain.length;
  const { statuses } = await raceSubmits(plain, { url: MODEL_URL, key: acct.liveKey, payload: BODY, attempts: 30 });
  t.is(statuses.filter((s) => s === 200).length, 7);
  t.is(statuses.filter((s) => s === 402).length, 23);
  assertFallbacksOnly(t, ran.plain.slice(from));

  // all seven completed: charged, nothing held
  const user = await plain.app.db('users').where({ id: acct.userId }).first<{ balance: unknown; held: unknown }>('balance', 'held');
  t.deepEqual([Number(user.balance), Number(user.held)], [credit - 7 * price, 0]);
  const rows = await plain.app.db('credit_transactions').where({ user_id: acct.userId }).whereNull('team_id').orderBy('id')
    .select('kind', 'amount', 'held_change', 'balance_after', 'held_after') as Array<Record<string, unknown>>;
  t.deepEqual(rows.map((r) => r.kind).sort(), ['grant', ...Array<string>(7).fill('hold'), ...Array<string>(7).fill('prediction')].sort());
  // each row records the wallet it left: the sums of the rows up to it, in the order they were written
  let amount = 0;
  let held = 0;
  const recorded: Array<[number, number]> = [];
  const replayed: Array<[number, number]> = [];
  for (const r of rows) {
    amount += Number(r.amount);
    held += Number(r.held_change);
    recorded.push([Number(r.balance_after), Number(r.held_after)]);
    replayed.push([amount - held, held]);
  }
  t.deepEqual(recorded, replayed);
  await assertLedger(t, plain.app.db);
});

test.serial('parallel sandbox submits answer the true balance in X-Balance-Remaining, read after their rows\' INSERTs', async (t) => {
  const acct = await newAccount(plain, 5000);
  // a production hold first, so that the balance is not the credit
  const held = await submit(plain, acct.liveKey);
  t.is(held.statusCode, 200, held.payload);
  const after = Number(held.headers['x-balance-remaining']);
  t.is(after, 5000 - Number(held.headers['x-cost']));
  const from = ran.plain.length;
  const answers = await Promise.all(Array.from({ length: 20 }, () => submit(plain, acct.testKey)));
  t.deepEqual(answers.map((a) => a.statusCode), Array<number>(20).fill(200));
  t.deepEqual(answers.map((a) => a.headers['x-balance-remaining']), Array<string>(20).fill(String(after)));
  assertFallbacksOnly(t, ran.plain.slice(from));
  t.is(Number((await plain.app.db('predictions').where({ user_id: acct.userId, is_test: true }).count({ n: '*' }))[0]!.n), 20);
});

test.serial('20 parallel submits of two keys under GENERATE_CONCURRENT_PER_ACCOUNT=3: exactly 3 accepted, the rest 429', async (t) => {
  const acct = await newAccount(limited, 100_000);
  const auth = { authorization: `Bearer ${acct.session}` };
  // the keys' own per-minute limits, so that only the concurrency limit refuses
  const keys = await Promise.all([1, 2].map(async (i) => {
    const res = await limited.server.inject({ method: 'POST', url: '/api/v1/keys', headers: auth, payload: { name: `k${i}`, rate_limit_per_minute: 1000 } });
    t.is(res.statusCode, 200, res.payload);
    return (res.result as { key: string }).key;
  }));
  const from = ran.limited.length;
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => submit(limited, keys[i % 2]!)));
  t.is(answers.filter((a) => a.statusCode === 200).length, 3);
  t.is(answers.filter((a) => a.statusCode === 429).length, 17);
  t.true(answers.filter((a) => a.statusCode === 429).every((a) => /this account already has 3 unfinished/.test(a.payload)));
  assertFallbacksOnly(t, ran.limited.slice(from));
  t.is(Number((await limited.app.db('predictions').where({ user_id: acct.userId }).count({ n: '*' }))[0]!.n), 3);
  await assertLedger(t, limited.app.db);
});

test.serial('20 parallel submits of one key under GENERATE_RATE_PER_KEY=5: exactly 5 admitted, the refused ones not counted', async (t) => {
  const acct = await newAccount(limited, 0);
  const from = ran.limited.length;
  // sandbox submits: the per-minute limits count them, the concurrency limits do not (they are born completed)
  const answers = await Promise.all(Array.from({ length: 20 }, () => submit(limited, acct.testKey)));
  t.is(answers.filter((a) => a.statusCode === 200).length, 5);
  t.is(answers.filter((a) => a.statusCode === 429).length, 15);
  t.true(answers.filter((a) => a.statusCode === 429).every((a) => /5 requests per minute per API key/.test(a.payload)));
  const since = ran.limited.slice(from);
  t.true(since.some((s) => /hits = LAST_INSERT_ID\(/.test(s.sql)), 'counted one bucket per statement');
  assertFallbacksOnly(t, since);
  const key = await limited.app.db('api_keys').where({ user_id: acct.userId, is_test: true }).first<{ id: number }>('id');
  const counter = await limited.app.db('rate_limits').where({ bucket: `gen-key:${key.id}`, window_start: minuteStart - (minuteStart % MINUTE_MS) }).first<{ hits: unknown }>('hits');
  t.is(Number(counter.hits), 5, 'the refused submits were taken back');
});

// Counted in batches as on MariaDB (on MySQL one statement per bucket and batch), each request seeing the
// counts it would have seen alone (serialCounts); counted each alone, a request refused by its key's
// limit would hold its account hit until taken back, and refuse the other key's meanwhile.
test.serial('a key\'s and its account\'s per-minute limits together under parallel submits: exactly the quotas, as one by one', async (t) => {
  const gw = await startGateway({ queue: 'memory', asIfMysql: true, clock: () => minuteStart, env: { GENERATE_RATE_PER_KEY: '5', GENERATE_RATE_PER_ACCOUNT: '7' } });
  t.teardown(() => gw.stop());
  const from = statements(gw.app.db);
  const acct = await newAccount(gw, 0);
  const second = await gw.server.inject({ method: 'POST', url: '/api/v1/keys', headers: { authorization: `Bearer ${acct.session}` }, payload: { name: 'b', is_test: true } });
  const keys = [acct.testKey, (second.result as { key: string }).key];
  // fifteen of the first key, then five of the second
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => submit(gw, keys[i < 15 ? 0 : 1]!)));
  const admitted = answers.map((a, i) => (a.statusCode === 200 ? i : -1)).filter((i) => i >= 0);
  t.true(admitted.filter((i) => i < 15).length <= 5, 'the first key within its quota');
  t.is(admitted.length, 7, 'the account\'s quota, whichever key');
  t.true(answers.every((a) => a.statusCode === 200 || a.statusCode === 429));
  assertFallbacksOnly(t, from);
});
