// Generation limits (README "Rate limits on generation") on MariaDB: requests per minute per key
// and per account, counted across two API processes on one database; unfinished predictions per
// account and per key under parallel submits; a key's own limits; the RateLimit fields on 2xx and
// 429. Time moves with the app clock; no worker runs, so accepted predictions stay unfinished.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import type { Server } from '@hapi/hapi';
import pino from 'pino';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { createApp } from '../../app.ts';
import type { App } from '../../app.ts';
import { createServer } from '../../server.ts';
import { loadConfig } from '../../config.ts';

const MODEL = 'canvas-v1-fast-text-to-image';
const BODY = { prompt: 'a lighthouse', width: 64, height: 64 };
// The clock stands still one second into a minute (the requests-per-minute windows are fixed
// minutes), and moves only when a test moves it.
const MINUTE_MS = 60_000;
const wallClock = Date.now();
const start = wallClock - (wallClock % MINUTE_MS) + MINUTE_MS + 1000;
let offsetMs = 0;
const clock = () => start + offsetMs;

let gw: TestGateway;
let other: { app: App; server: Server };
test.before(async () => {
  gw = await startGateway({ queue: 'memory', clock, env: { GENERATE_RATE_PER_KEY: '3', GENERATE_RATE_PER_ACCOUNT: '5', GENERATE_CONCURRENT_PER_KEY: '0', GENERATE_CONCURRENT_PER_ACCOUNT: '0' } });
  // a second API process on the same database
  const app = await createApp(loadConfig(gw.env), { log: pino({ level: 'silent' }), clock });
  const server = await createServer(app);
  await server.initialize();
  other = { app, server };
});
test.after.always(async () => {
  await other?.server.stop();
  await other?.app.close();
  await gw?.stop();
});

function submit(server: Server, key: string) {
  return server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': key }, payload: BODY });
}

async function keyWith(g: { server: Server }, session: string, limits: Record<string, unknown>) {
  const res = await g.server.inject({ method: 'POST', url: '/api/v1/keys', headers: { authorization: `Bearer ${session}` }, payload: { name: 'limited', ...limits } });
  if (res.statusCode !== 200) throw new Error(res.payload);
  return res.result as { key: string; id: number; rate_limit_per_minute: number | null; max_concurrent: number | null };
}

function assertLimited(t: ExecutionContext, res: { statusCode: number; headers: Record<string, unknown>; payload: string }, detail: RegExp) {
  t.is(res.statusCode, 429, res.payload);
  const body = JSON.parse(res.payload) as { code: string; detail: string };
  t.is(body.code, 'rate_limited');
  t.regex(body.detail, detail);
  const retryAfter = Number(res.headers['retry-after']);
  t.true(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, String(res.headers['retry-after']));
  return retryAfter;
}

test.serial('requests per minute per key are counted across two API processes, with RateLimit fields on 2xx and 429', async (t) => {
  const acct = await newAccount(gw, 100_000);
  const servers = [gw.server, other.server, gw.server];
  const remaining: string[] = [];
  for (const server of servers) {
    const res = await submit(server, acct.liveKey);
    t.is(res.statusCode, 200, res.payload);
    t.is(res.headers['ratelimit-policy'], '"key";q=3;w=60, "account";q=5;w=60');
    remaining.push(String(res.headers.ratelimit));
  }
  t.deepEqual(remaining, ['"key";r=2;t=59, "account";r=4;t=59', '"key";r=1;t=59, "account";r=3;t=59', '"key";r=0;t=59, "account";r=2;t=59']);
  for (const server of [other.server, gw.server]) {
    const res = await submit(server, acct.liveKey);
    t.is(assertLimited(t, res, /3 requests per minute per API key/), 59);
    t.is(res.headers['ratelimit-policy'], '"key";q=3;w=60, "account";q=5;w=60');
    t.is(res.headers.ratelimit, '"key";r=0;t=59, "account";r=2;t=59');
  }
  // refused submits did not count against the account
  const second = await keyWith(gw, acct.session, {});
  t.is((await submit(other.server, second.key)).statusCode, 200);
  t.is((await submit(gw.server, second.key)).statusCode, 200);
  assertLimited(t, await submit(other.server, second.key), /5 requests per minute per account/);
  t.is(await gw.app.db('predictions').where({ user_id: acct.userId }).count<{ n: number }[]>({ n: '*' }).first().then((r) => Number(r!.n)), 5);

  offsetMs += MINUTE_MS;
  const next = await submit(other.server, acct.liveKey);
  t.is(next.statusCode, 200, next.payload);
  t.is(next.headers.ratelimit, '"key";r=2;t=59, "account";r=4;t=59');
});

test.serial('a key\'s own rate_limit_per_minute replaces the default, and key answers show it', async (t) => {
  const acct = await newAccount(gw, 100_000);
  const created = await keyWith(gw, acct.session, { rate_limit_per_minute: 1 });
  t.is(created.rate_limit_per_minute, 1);
  t.is(created.max_concurrent, null);
  const listed = (await gw.server.inject({ method: 'GET', url: '/app/get_user_keys', headers: { authorization: `Bearer ${acct.session}` } })).result as Array<{ id: number; rate_limit_per_minute: number | null }>;
  t.is(listed.find((k) => k.id === created.id)?.rate_limit_per_minute, 1);
  const first = await submit(gw.server, created.key);
  t.is(first.statusCode, 200, first.payload);
  t.is(first.headers['ratelimit-policy'], '"key";q=1;w=60, "account";q=5;w=60');
  assertLimited(t, await submit(other.server, created.key), /1 requests per minute per API key/);
  // a key creates keys no stronger than itself: absent limits are inherited, higher ones are 403
  const byKey = (payload: Record<string, unknown>) => gw.server.inject({ method: 'POST', url: '/api/v1/keys', headers: { 'x-api-key': created.key }, payload: { name: 'child', ...payload } });
  const child = await byKey({});
  t.is(child.statusCode, 200, child.payload);
  t.is((child.result as { rate_limit_per_minute: number }).rate_limit_per_minute, 1);
  const stronger = await byKey({ rate_limit_per_minute: 2 });
  t.is(stronger.statusCode, 403, stronger.payload);
  t.regex(stronger.payload, /higher rate_limit_per_minute than its own \(1\)/);
  // this gateway sets no unfinished-predictions limit per key (GENERATE_CONCURRENT_PER_KEY=0): any is within it
  t.is((await byKey({ max_concurrent: 1000 })).statusCode, 200);
  // an invalid limit is a 422, not a key
  const bad = await gw.server.inject({ method: 'POST', url: '/api/v1/keys', headers: { authorization: `Bearer ${acct.session}` }, payload: { name: 'x', rate_limit_per_minute: 0 } });
  t.is(bad.statusCode, 422, bad.payload);
});

test.serial('sandbox keys have the same limits', async (t) => {
  const acct = await newAccount(gw, 0);
  for (let i = 0; i < 3; i++) t.is((await submit(i % 2 ? other.server : gw.server, acct.testKey)).statusCode, 200);
  assertLimited(t, await submit(gw.server, acct.testKey), /per API key/);
});

test.serial('sandbox and production count apart: a test run never eats the account\'s production limit', async (t) => {
  const acct = await newAccount(gw, 100_000);
  const sandbox2 = await keyWith(gw, acct.session, { is_test: true });
  const sandbox3 = await keyWith(gw, acct.session, { is_test: true });
  // the account's five sandbox submits of the minute, through two sandbox keys
  for (let i = 0; i < 3; i++) t.is((await submit(gw.server, acct.testKey)).statusCode, 200);
  for (let i = 0; i < 2; i++) t.is((await submit(other.server, sandbox2.key)).statusCode, 200);
  assertLimited(t, await submit(gw.server, sandbox3.key), /5 requests per minute per account/);
  // production still has its own five
  for (let i = 0; i < 3; i++) {
    const res = await submit(i % 2 ? other.server : gw.server, acct.liveKey);
    t.is(res.statusCode, 200, res.payload);
    t.is(res.headers.ratelimit, `"key";r=${2 - i};t=59, "account";r=${4 - i};t=59`);
  }
  const second = await keyWith(gw, acct.session, {});
  for (let i = 0; i < 2; i++) t.is((await submit(gw.server, second.key)).statusCode, 200);
  assertLimited(t, await submit(other.server, second.key), /5 requests per minute per account/);
});

test.serial('unfinished predictions per account and per key: exactly the limit of parallel submits gets in', async (t) => {
  const limited = await startGateway({ queue: 'memory', clock, env: { GENERATE_RATE_PER_KEY: '0', GENERATE_RATE_PER_ACCOUNT: '0', GENERATE_CONCURRENT_PER_KEY: '0', GENERATE_CONCURRENT_PER_ACCOUNT: '3' } });
  const app = await createApp(loadConfig(limited.env), { log: pino({ level: 'silent' }), clock });
  const second = await createServer(app);
  await second.initialize();
  try {
    const acct = await newAccount(limited, 100_000);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => submit(i % 2 ? second : limited.server, acct.liveKey)));
    const accepted = results.filter((r) => r.statusCode === 200);
    t.is(accepted.length, 3, results.map((r) => `${r.statusCode} ${r.payload}`).join('\n'));
    for (const r of results.filter((x) => x.statusCode !== 200)) {
      t.is(assertLimited(t, r, /this account already has 3 unfinished predictions/), 1);
    }
    t.is(await limited.app.db('predictions').where({ user_id: acct.userId }).count<{ n: number }[]>({ n: '*' }).first().then((r) => Number(r!.n)), 3);
    // a finished one frees its place
    const id = (accepted[0]!.result as { request_id: string }).request_id;
    const cancel = await limited.server.inject({ method: 'POST', url: `/app/cancel_prediction/${id}`, headers: { 'x-api-key': acct.liveKey } });
    t.is(cancel.statusCode, 200, cancel.payload);
    t.is((await submit(second, acct.liveKey)).statusCode, 200);
    assertLimited(t, await submit(limited.server, acct.liveKey), /unfinished/);

    // a key's own max_concurrent, on a fresh account
    const acct2 = await newAccount(limited, 100_000);
    const one = await keyWith(limited, acct2.session, { max_concurrent: 1 });
    t.is(one.max_concurrent, 1);
    const pair = await Promise.all([submit(limited.server, one.key), submit(second, one.key), submit(limited.server, one.key)]);
    t.deepEqual(pair.map((r) => r.statusCode).sort(), [200, 429, 429]);
    t.regex(pair.find((r) => r.statusCode === 429)!.payload, /this API key already has 1 unfinished predictions/);
    // the account still has room for its other keys
    t.is((await submit(second, acct2.liveKey)).statusCode, 200);
  } finally {
    await second.stop();
    await app.close();
    await limited.stop();
  }
});

test.serial('a team is an account of its own: its keys and members acting for it share its limit, apart from their personal ones', async (t) => {
  const owner = await newAccount(gw, 100_000);
  const auth = { authorization: `Bearer ${owner.session}` };
  const team = await gw.server.inject({ method: 'POST', url: '/app/teams', headers: auth, payload: { name: 'limits' } });
  t.is(team.statusCode, 201, team.payload);
  const teamId = Number((team.result as { id: number }).id);
  await gw.app.db('teams').where({ id: teamId }).update({ balance: 100_000 });
  const key = await gw.server.inject({ method: 'POST', url: `/app/teams/${teamId}/keys`, headers: auth, payload: { name: 'team' } });
  t.is(key.statusCode, 201, key.payload);
  const teamKey = (key.result as { key: string }).key;
  for (let i = 0; i < 3; i++) t.is((await submit(i % 2 ? other.server : gw.server, teamKey)).statusCode, 200);
  assertLimited(t, await submit(gw.server, teamKey), /per API key/);
  // the owner's session acting for the team counts against the team's account limit only
  const forTeam = () => other.server.inject({ method: 'POST', url: `/api/v1/${MODEL}?team_id=${teamId}`, headers: auth, payload: BODY });
  const asSession = await forTeam();
  t.is(asSession.statusCode, 200, asSession.payload);
  t.is(asSession.headers['ratelimit-policy'], '"account";q=5;w=60');
  t.is((await forTeam()).statusCode, 200);
  assertLimited(t, await forTeam(), /5 requests per minute per account/);
  // the owner's personal account is untouched
  t.is((await submit(gw.server, owner.liveKey)).statusCode, 200);
});

test.serial('the embedded SQLite database enforces the same limits', async (t) => {
  const embedded = await startGateway({ db: 'sqlite', queue: 'memory', clock, env: { GENERATE_RATE_PER_KEY: '4', GENERATE_CONCURRENT_PER_ACCOUNT: '2' } });
  try {
    const acct = await newAccount(embedded, 100_000);
    const results = await Promise.all(Array.from({ length: 4 }, () => submit(embedded.server, acct.liveKey)));
    t.deepEqual(results.map((r) => r.statusCode).sort(), [200, 200, 429, 429]);
    t.regex(results.find((r) => r.statusCode === 429)!.payload, /this account already has 2 unfinished predictions/);
    assertLimited(t, await submit(embedded.server, acct.liveKey), /4 requests per minute per API key/);
  } finally {
    await embedded.stop();
  }
});

test('the defaults: 60 and 120 submits per minute, 10 and 20 unfinished predictions, per key and per account', (t) => {
  t.deepEqual(loadConfig({}).generateRateLimit, { perKeyPerMinute: 60, perAccountPerMinute: 120, concurrentPerKey: 10, concurrentPerAccount: 20 });
  t.throws(() => loadConfig({ GENERATE_RATE_PER_KEY: '-1' }), { message: /GENERATE_RATE_PER_KEY/ });
});
