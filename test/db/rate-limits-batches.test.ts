// Group commit on the sandbox path through HTTP (lib/batch.ts, db/rate-limits.ts hitQuotaWindows,
// the store's insertSandbox): concurrent submits of one process share the per-minute upsert and
// the sandbox INSERT, and still see exactly the counts, 429s and balances they would alone; a
// failing counter of a batch fails alone. On MariaDB and on SQLite. The store's own batches on
// every engine are the contract's (test/db/store-contract.ts).
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import pino from 'pino';
import { createApp } from '../../app.ts';
import { createServer } from '../../server.ts';
import { loadConfig } from '../../config.ts';
import { hitQuotaWindows, serialCounts } from '../../db/rate-limits.ts';
import { newPredictionId } from '../../db/predictions/record.ts';

const MODEL = 'canvas-v1-fast-text-to-image';
const BODY = { prompt: 'a lighthouse', width: 64, height: 64 };
// fixed one second into a minute: every request of a test counts in one window
const MINUTE_MS = 60_000;
const wallClock = Date.now();
const start = wallClock - (wallClock % MINUTE_MS) + MINUTE_MS + 1000;
const clock = () => start;

async function sandboxKey(gw: TestGateway, session: string): Promise<{ key: string; id: number }> {
  const res = await gw.server.inject({ method: 'POST', url: '/api/v1/keys', headers: { authorization: `Bearer ${session}` }, payload: { name: 'sandbox', is_test: true } });
  if (res.statusCode !== 200) throw new Error(res.payload);
  return res.result as { key: string; id: number };
}

/** The r= of one policy in a RateLimit field. */
function remaining(field: unknown, policy: string): number {
  const m = new RegExp(`"${policy}";r=(\\d+)`).exec(String(field));
  if (!m) throw new Error(`no ${policy} in ${String(field)}`);
  return Number(m[1]);
}

async function hits(gw: TestGateway, bucket: string): Promise<number> {
  const row = await gw.app.db('rate_limits').where({ bucket }).first<{ hits: number | string } | undefined>();
  return Number(row?.hits ?? 0);
}

function countStatements(gw: TestGateway, pattern: RegExp): { n: number } {
  const seen = { n: 0 };
  gw.app.db.on('query', (q: { sql: string }) => { if (pattern.test(q.sql)) seen.n++; });
  return seen;
}

const engines = ['mysql', 'sqlite'] as const;

for (const engine of engines) {
  test(`${engine}: concurrent sandbox submits of three keys of one account get exactly the per-key and per-account quotas, each count once`, async (t) => {
    const gw = await startGateway({ db: engine, queue: 'memory', clock, env: { GENERATE_RATE_PER_KEY: '5', GENERATE_RATE_PER_ACCOUNT: '8' } });
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, 1_000);
    const keys = [await sandboxKey(gw, acct.session), await sandboxKey(gw, acct.session), await sandboxKey(gw, acct.session)];
    const upserts = countStatements(gw, /^insert into rate_limits/i);
    const submits = keys.flatMap((k) => Array.from({ length: 10 }, () => k));
    const answers = await Promise.all(submits.map((k) => gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': k.key }, payload: BODY })));
    const ok = answers.filter((r) => r.statusCode === 200);
    const limited = answers.filter((r) => r.statusCode === 429);
    t.is(ok.length, 8, answers.map((r) => r.statusCode).join(','));
    t.is(limited.length, 22);
    // the statements were shared: fewer upserts than submits
    t.true(upserts.n < submits.length, `${upserts.n} upserts for ${submits.length} submits`);
    // each admitted submit saw its own place in the account's minute, 8 - 1 .. 0 left, once each
    t.deepEqual(ok.map((r) => remaining(r.headers.ratelimit, 'account')).sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6, 7]);
    for (const k of keys) {
      const mine = answers.map((r, i) => ({ r, k: submits[i]! })).filter((x) => x.k === k && x.r.statusCode === 200).map((x) => remaining(x.r.headers.ratelimit, 'key'));
      t.true(mine.length <= 5);
      // 5 - 1, 5 - 2, ... in some order: no two saw the same count
      t.deepEqual([...mine].sort((a, b) => b - a), Array.from({ length: mine.length }, (_, i) => 4 - i));
      // the counter holds exactly what was admitted: the refused submits were taken back
      t.is(await hits(gw, `gen-key:${k.id}`), mine.length);
    }
    // sandbox submits: the account's sandbox counter (production's is apart)
    t.is(await hits(gw, `gen-user-test:${acct.userId}`), 8);
    for (const r of limited) {
      t.is(JSON.parse(r.payload).code, 'rate_limited');
      t.is(r.headers['retry-after'], '59');
      t.regex(String(r.headers.ratelimit), /"key";r=\d+;t=59, "account";r=\d+;t=59/);
    }
    // one row per admitted submit
    const rows = await gw.app.db('predictions').where({ user_id: acct.userId }).count<Array<{ n: number | string }>>('* as n');
    t.is(Number(rows[0]!.n), 8);
    // the minute's account quota stays used: the refused submits did not free any of it
    t.is((await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': keys[0]!.key }, payload: BODY })).statusCode, 429);
  });

  test(`${engine}: one key past its quota under a concurrent burst: exactly the quota admitted, then none`, async (t) => {
    const gw = await startGateway({ db: engine, queue: 'memory', clock, env: { GENERATE_RATE_PER_KEY: '7', GENERATE_RATE_PER_ACCOUNT: '0' } });
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, 500);
    const send = () => gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': acct.testKey }, payload: BODY });
    const first = await Promise.all(Array.from({ length: 25 }, send));
    t.is(first.filter((r) => r.statusCode === 200).length, 7);
    t.deepEqual(first.filter((r) => r.statusCode === 200).map((r) => remaining(r.headers.ratelimit, 'key')).sort(), [0, 1, 2, 3, 4, 5, 6]);
    // every admitted answer carries the balance of the one wallet (a sandbox submit moves nothing)
    t.deepEqual([...new Set(first.filter((r) => r.statusCode === 200).map((r) => r.headers['x-balance-remaining']))], ['500']);
    const second = await Promise.all(Array.from({ length: 10 }, send));
    t.deepEqual([...new Set(second.map((r) => r.statusCode))], [429]);
    const key = await gw.app.db('api_keys').where({ user_id: acct.userId, is_test: true }).first<{ id: number }>();
    t.is(await hits(gw, `gen-key:${key.id}`), 7);
  });

  test(`${engine}: a burst of sandbox submits sent together shares one rate-limit upsert and one INSERT, however many awaits each takes to reach them`, async (t) => {
    // on MariaDB the credential cache needs RabbitMQ (its invalidations travel there); without it every request reads its key first
    const gw = await startGateway({ db: engine, queue: engine === 'mysql' ? 'amqp' : 'memory', clock, env: { GENERATE_RATE_PER_KEY: '1000', GENERATE_RATE_PER_ACCOUNT: '1000' } });
    t.teardown(() => gw.stop());
    const accounts = [await newAccount(gw, 100), await newAccount(gw, 200)];
    // each key looked up once already (the credential cache), so the burst's requests do no I/O before the batchers
    for (const a of accounts) t.is((await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': a.testKey }, payload: BODY })).statusCode, 200);
    const upserts = countStatements(gw, /^insert into rate_limits/i);
    const inserts = countStatements(gw, /^insert into predictions/i);
    // 32: one of the batch sizes (lib/batch.ts BATCH_SIZES)
    const sent = accounts.flatMap((a) => Array.from({ length: 16 }, () => a));
    const answers = await Promise.all(sent.map((a) => gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': a.testKey }, payload: BODY })));
    t.deepEqual([...new Set(answers.map((r) => r.statusCode))], [200]);
    t.is(upserts.n, 1);
    t.is(inserts.n, 1);
    answers.forEach((r, i) => t.is(r.headers['x-balance-remaining'], String([100, 200][accounts.indexOf(sent[i]!)])));
    t.is(await hits(gw, `gen-user-test:${accounts[0]!.userId}`), 17);
    t.is(await hits(gw, `gen-user-test:${accounts[1]!.userId}`), 17);
  });

  test(`${engine}: a burst of a size between two batch sizes goes in two INSERTs of batch sizes, each answered`, async (t) => {
    const gw = await startGateway({ db: engine, queue: engine === 'mysql' ? 'amqp' : 'memory', clock, env: { GENERATE_RATE_PER_KEY: '1000', GENERATE_RATE_PER_ACCOUNT: '1000' } });
    t.teardown(() => gw.stop());
    const accounts = [await newAccount(gw, 100), await newAccount(gw, 200), await newAccount(gw, 300)];
    for (const a of accounts) t.is((await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': a.testKey }, payload: BODY })).statusCode, 200);
    const inserts: string[] = [];
    gw.app.db.on('query', (q: { sql: string }) => { if (/^insert into predictions/i.test(q.sql)) inserts.push(q.sql); });
    // 18 submits: between the batch sizes 16 and 20 (lib/batch.ts BATCH_SIZES)
    const sent = accounts.flatMap((a) => Array.from({ length: 6 }, () => a));
    const answers = await Promise.all(sent.map((a) => gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': a.testKey }, payload: BODY })));
    t.deepEqual([...new Set(answers.map((r) => r.statusCode))], [200]);
    answers.forEach((r, i) => t.is(r.headers['x-balance-remaining'], String([100, 200, 300][accounts.indexOf(sent[i]!)])));
    t.deepEqual(inserts.map((sql) => sql.split('), (').length), [16, 2]);
    for (const a of accounts) t.is(await gw.app.db('predictions').where({ user_id: a.userId }).count<{ n: number | string }[]>({ n: '*' }).first().then((r) => Number(r!.n)), 7);
  });

  test(`${engine}: concurrent sandbox submits of several accounts: each answer carries its own wallet's balance`, async (t) => {
    const gw = await startGateway({ db: engine, queue: 'memory', clock });
    t.teardown(() => gw.stop());
    const accounts = [await newAccount(gw, 100), await newAccount(gw, 200), await newAccount(gw, 300)];
    const sent = accounts.flatMap((a) => Array.from({ length: 12 }, () => a));
    const answers = await Promise.all(sent.map((a) => gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': a.testKey }, payload: BODY })));
    t.deepEqual([...new Set(answers.map((r) => r.statusCode))], [200]);
    answers.forEach((r, i) => t.is(r.headers['x-balance-remaining'], String([100, 200, 300][accounts.indexOf(sent[i]!)])));
    // every answered id is a committed, completed row of its own account, readable at once
    await Promise.all(answers.map(async (r, i) => {
      const id = (JSON.parse(r.payload) as { request_id: string }).request_id;
      const read = await gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${id}/result`, headers: { 'x-api-key': sent[i]!.testKey } });
      t.is(read.statusCode, 200);
      t.is((read.result as { status: string }).status, 'completed');
    }));
  });
}

for (const engine of engines) {
  test(`${engine}: a team's sandbox submits batched with personal ones: each answer shows its own wallet's balance`, async (t) => {
    const gw = await startGateway({ db: engine, queue: 'memory', clock });
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, 50);
    const auth = { authorization: `Bearer ${acct.session}` };
    const team = await gw.server.inject({ method: 'POST', url: '/app/teams', headers: auth, payload: { name: 'batch' } });
    t.is(team.statusCode, 201, team.payload);
    const teamId = Number((team.result as { id: number }).id);
    await gw.app.db('teams').where({ id: teamId }).update({ balance: 777 });
    const created = await gw.server.inject({ method: 'POST', url: `/app/teams/${teamId}/keys`, headers: auth, payload: { name: 'team sandbox', is_test: true } });
    t.is(created.statusCode, 201, created.payload);
    const teamKey = (created.result as { key: string }).key;
    const send = (key: string) => gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': key }, payload: BODY });
    // the team's alone (no balance read by the INSERT), then mixed with the owner's personal ones
    const teamOnly = await Promise.all(Array.from({ length: 12 }, () => send(teamKey)));
    const mixedKeys = Array.from({ length: 16 }, (_, i) => (i % 2 ? teamKey : acct.testKey));
    const mixed = await Promise.all(mixedKeys.map(send));
    for (const r of teamOnly) t.is(r.headers['x-balance-remaining'], '777', r.payload);
    mixed.forEach((r, i) => t.is(r.headers['x-balance-remaining'], mixedKeys[i] === teamKey ? '777' : '50', r.payload));
    t.is(Number((await gw.app.db('predictions').where({ team_id: teamId }).count<Array<{ n: number | string }>>('* as n'))[0]!.n), 20);
    t.is(Number((await gw.app.db('predictions').where({ user_id: acct.userId }).whereNull('team_id').count<Array<{ n: number | string }>>('* as n'))[0]!.n), 8);
  });
}

test('mysql: two API processes bursting on one key never admit more than its quota, and the counter holds exactly what was admitted', async (t) => {
  const gw = await startGateway({ queue: 'memory', clock, env: { GENERATE_RATE_PER_KEY: '9', GENERATE_RATE_PER_ACCOUNT: '0' } });
  const app = await createApp(loadConfig(gw.env), { log: pino({ level: 'silent' }), clock });
  const server = await createServer(app);
  await server.initialize();
  t.teardown(async () => {
    await server.stop();
    await app.close();
    await gw.stop();
  });
  const acct = await newAccount(gw, 10);
  const send = (s: typeof server) => s.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': acct.testKey }, payload: BODY });
  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => send(i % 2 ? server : gw.server)));
  const admitted = answers.filter((r) => r.statusCode === 200);
  t.true(admitted.length >= 1 && admitted.length <= 9, String(admitted.length));
  t.log(`admitted ${admitted.length} of the quota of 9`);
  t.is(answers.filter((r) => r.statusCode === 429).length, 40 - admitted.length);
  // no two admitted submits saw the same count
  const left = admitted.map((r) => remaining(r.headers.ratelimit, 'key'));
  t.is(new Set(left).size, left.length);
  const key = await gw.app.db('api_keys').where({ user_id: acct.userId, is_test: true }).first<{ id: number }>();
  t.is(await hits(gw, `gen-key:${key.id}`), admitted.length);
  t.is(Number((await gw.app.db('predictions').where({ user_id: acct.userId }).count<Array<{ n: number | string }>>('* as n'))[0]!.n), admitted.length);
});

test('mysql: a request whose bucket the database refuses fails alone; the others of its batch are counted once', async (t) => {
  const gw = await startGateway({ queue: 'memory', clock });
  t.teardown(() => gw.stop());
  const upserts = countStatements(gw, /^insert into rate_limits/i);
  // the bucket column holds 100 characters: a longer one fails the batch's upsert, whole
  const bad = `gen-key:${'x'.repeat(120)}`;
  const names = ['gen-user:1', 'gen-user:1', 'gen-user:2', bad, 'gen-user:1', 'gen-user:2'];
  const outcomes = await Promise.allSettled(names.map((b) => hitQuotaWindows(gw.app.db, [b], [100], start)));
  t.is(outcomes[3]!.status, 'rejected');
  const counts = outcomes.map((o) => (o.status === 'fulfilled' ? o.value[0] : null));
  t.deepEqual(counts.filter((_, i) => names[i] === 'gen-user:1').sort(), [1, 2, 3]);
  t.deepEqual(counts.filter((_, i) => names[i] === 'gen-user:2').sort(), [1, 2]);
  t.is(await hits(gw, 'gen-user:1'), 3);
  t.is(await hits(gw, 'gen-user:2'), 2);
  // one batch upsert that failed, then each request alone
  t.true(upserts.n > names.length, `${upserts.n} upserts`);
});

test('serial counts: each request sees the count + 1 of what was admitted before it in the batch; a refused one adds nothing', (t: ExecutionContext) => {
  const id = (b: string) => b;
  const item = (buckets: string[], quotas: number[]) => ({ buckets, quotas, windowStart: 0 });
  // key k quota 2, account a quota 3; before the batch: k 1, a 1 (totals include the batch's 4 and 4 increments)
  const items = [item(['k', 'a'], [2, 3]), item(['k', 'a'], [2, 3]), item(['j', 'a'], [9, 3]), item(['k', 'a'], [2, 3])];
  const totals = new Map([['k', 1 + 3], ['j', 0 + 1], ['a', 1 + 4]]);
  t.deepEqual(serialCounts(items, totals, id), [
    [2, 2], // admitted
    [3, 3], // refused by k (takes nothing)
    [1, 3], // admitted: the refused one before it left the account's count alone
    [3, 4], // refused by both
  ]);
});

for (const engine of engines) {
  test(`${engine}: bursts arriving while rate-limit batches are in flight see exactly the serial counts and 429s, and the counters hold what was admitted`, async (t) => {
    const gw = await startGateway({ db: engine, queue: 'memory', clock });
    t.teardown(() => gw.stop());
    const upserts = countStatements(gw, /^insert into rate_limits/i);
    // twelve keys of six accounts (key quotas 3 and 6, account quota 7), arriving in waves of one job each,
    // three requests of one account (and a fourth of another, some waves) per wave, an account's waves
    // three in a row: the batches form while others are in flight, and each counts after the refused
    // hits of the one before were taken back
    const requests: Array<{ buckets: string[]; quotas: number[] }> = [];
    const waves: Array<typeof requests> = [];
    for (let w = 0; w < 30; w++) {
      const a = Math.floor(w / 3) % 6;
      const wave = [a, a + 6, a].map((k) => ({ buckets: [`gen-key:${k}`, `gen-user:${a}`], quotas: [k < 6 ? 3 : 6, 7] }));
      if (w % 7 === 3) wave.push({ buckets: [`gen-key:${(a + 1) % 6}`, `gen-user:${(a + 1) % 6}`], quotas: [3, 7] });
      waves.push(wave);
      requests.push(...wave);
    }
    // what they see one after the other, in their arrival order, each refused one adding nothing
    const count = new Map<string, number>();
    const expected = requests.map((r) => {
      const seen = r.buckets.map((b) => (count.get(b) ?? 0) + 1);
      if (seen.every((n, j) => n <= r.quotas[j]!)) for (const b of r.buckets) count.set(b, (count.get(b) ?? 0) + 1);
      return seen;
    });
    // the engine's version known (its first read would hold every wave back until it answers)
    await hitQuotaWindows(gw.app.db, ['gen-key:warm-up'], [1], start);
    const answers: Array<Promise<number[]>> = [];
    for (const wave of waves) {
      for (const r of wave) answers.push(hitQuotaWindows(gw.app.db, r.buckets, r.quotas, start));
      await new Promise((r) => setImmediate(r));
    }
    t.deepEqual(await Promise.all(answers), expected);
    for (const [b, n] of count) t.is(await hits(gw, b), n, b);
    const refusedBy = (j: number) => expected.filter((seen, i) => seen[j]! > requests[i]!.quotas[j]!).length;
    t.true(refusedBy(0) > 0 && refusedBy(1) > 0, 'both quotas refuse some');
    // the waves were counted in several batches, not one per request (warm-up included)
    t.true(upserts.n > 2 && upserts.n < requests.length, `${upserts.n} upserts`);
  });
}

for (const engine of engines) {
  test(`${engine}: the counters of a batch go in one statement, padded on MariaDB to a batch size with a row of the process's own that counts nothing`, async (t) => {
    const gw = await startGateway({ db: engine, queue: 'memory', clock });
    t.teardown(() => gw.stop());
    const texts: string[] = [];
    gw.app.db.on('query', (q: { sql: string }) => { if (/^insert into rate_limits/i.test(q.sql)) texts.push(q.sql); });
    // 17 requests of one bucket each, sent together: 17 buckets, between the batch sizes 16 and 20
    const buckets = Array.from({ length: 17 }, (_, i) => `pad-test:${String(i).padStart(2, '0')}`);
    const counts = await Promise.all(buckets.map((b) => hitQuotaWindows(gw.app.db, [b], [5], 60_000)));
    t.deepEqual(counts, buckets.map(() => [1]));
    t.is(texts.length, 1);
    t.is(texts[0]!.split('), (').length, engine === 'mysql' ? 20 : 17);
    for (const b of buckets) t.is(await hits(gw, b), 1);
    const pads = await gw.app.db('rate_limits').where('bucket', 'like', 'batch-pad:%').select('hits');
    t.deepEqual(pads.map((p) => Number(p.hits)), engine === 'mysql' ? [0] : []);
    // again, one bucket more than before for each: the pad row still counts nothing
    const again = await Promise.all(buckets.map((b) => hitQuotaWindows(gw.app.db, [b], [5], 60_000)));
    t.deepEqual(again, buckets.map(() => [2]));
    t.deepEqual((await gw.app.db('rate_limits').where('bucket', 'like', 'batch-pad:%').select('hits')).map((p) => Number(p.hits)), engine === 'mysql' ? [0] : []);
  });
}
