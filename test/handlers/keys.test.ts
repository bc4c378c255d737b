// updateApiKey on MariaDB (README "Key restrictions"): name and normalised IP restriction, a
// refused address before any budget or hold moves, no key widening itself, expiry (401
// api_key_expired) and a spend limit per period enforced at hold time (402
// key_spend_limit_exceeded), exact under parallel submits. The app clock moves time; no worker
// runs, so accepted predictions stay held. Tests that count shared rows (budgets, the wallet) or move the clock run serially.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { creditTeam } from '../../db/wallet/moves.ts';

const MODEL = 'canvas-v1-fast-text-to-image';
const BODY = { prompt: 'a lighthouse', width: 64, height: 64 }; // 2 + 3 x 1 image = 5 credits
const PRICE = 5;
const DAY_MS = 86_400_000;
// mid-day UTC, so that a few minutes never cross midnight
const wallClock = Date.now();
const start = wallClock - (wallClock % DAY_MS) + DAY_MS + 12 * 3_600_000;
let offsetMs = 0;
const clock = () => start + offsetMs;

let gw: TestGateway;
let a: Account;
let b: Account;
test.before(async () => {
  gw = await startGateway({ clock, env: { GENERATE_RATE_PER_KEY: '1000' } });
  a = await newAccount(gw, 100_000);
  b = await newAccount(gw, 100_000);
});
test.after.always(async () => {
  await gw?.stop();
});

type KeyView = { id: number; key: string; name: string; ip_whitelist: string[]; expires_at: string | null; spend_limit: number | null; spend_limit_period: string | null };

async function newKey(session: string, body: Record<string, unknown> = {}): Promise<KeyView> {
  const res = await callOperation(gw, 'createApiKey', { as: session, body: { name: 'k', ...body } });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body as KeyView;
}

async function update(as: string, keyId: number, body: Record<string, unknown>, remoteAddress?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  if (remoteAddress === undefined) return callOperation<Record<string, unknown>>(gw, 'updateApiKey', { as, params: { key_id: keyId }, body });
  return gw.server.inject({ method: 'PUT', url: `/app/update_api_key/${keyId}`, headers: { 'x-api-key': as }, payload: body, remoteAddress })
    .then((r) => ({ status: r.statusCode, body: JSON.parse(r.payload) as Record<string, unknown> }));
}

function submit(key: string, remoteAddress = '127.0.0.1') {
  return gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': key }, payload: BODY, remoteAddress });
}

test('the name and the IP restriction change, the list stored normalised and without duplicates', async (t) => {
  const k = await newKey(a.session);
  const res = await update(a.session, k.id, { name: 'renamed', ip_whitelist: ['::ffff:192.0.2.7', '10.1.2.3/8', '10.0.0.0/8', '2001:DB8:0::1', '2001:db8::1/32'] });
  t.is(res.status, 200, JSON.stringify(res.body));
  const body = res.body as KeyView;
  t.is(body.name, 'renamed');
  t.deepEqual(body.ip_whitelist, ['192.0.2.7', '10.0.0.0/8', '2001:db8::1', '2001:db8::/32']);
  const listed = (await callOperation(gw, 'getUserKeys', { as: a.session })).body as KeyView[];
  t.deepEqual(listed.find((x) => x.id === k.id)!.ip_whitelist, body.ip_whitelist);
  // an absent field is left as it is; an empty list lifts the restriction
  const lifted = await update(a.session, k.id, { ip_whitelist: [] });
  t.is((lifted.body as KeyView).name, 'renamed');
  t.deepEqual((lifted.body as KeyView).ip_whitelist, []);
});

test('an invalid entry is 422 naming its index; more than 50 entries are 422', async (t) => {
  const k = await newKey(a.session);
  const bad = await update(a.session, k.id, { ip_whitelist: ['10.0.0.1', '300.1.1.1'] });
  t.is(bad.status, 422);
  t.deepEqual((bad.body as { detail: Array<{ loc: unknown[] }> }).detail[0]!.loc, ['body', 'ip_whitelist', 1]);
  const badRange = await update(a.session, k.id, { ip_whitelist: ['10.0.0.0/33'] });
  t.is(badRange.status, 422);
  t.deepEqual((badRange.body as { detail: Array<{ loc: unknown[] }> }).detail[0]!.loc, ['body', 'ip_whitelist', 0]);
  const many = await update(a.session, k.id, { ip_whitelist: Array.from({ length: 51 }, (_, i) => `10.0.0.${i}`) });
  t.is(many.status, 422);
  const fifty = await update(a.session, k.id, { ip_whitelist: Array.from({ length: 50 }, (_, i) => `10.0.0.${i}`) });
  t.is(fifty.status, 200);
});

test.serial('a request from an address outside the list is 403 before any rate-limit counter or credit hold moves', async (t) => {
  const k = await newKey(a.session);
  t.is((await update(a.session, k.id, { ip_whitelist: ['198.51.100.0/24'] })).status, 200);
  const counters = async () => (await gw.app.db('rate_limits').count<{ n: number | string }[]>({ n: '*' }).first())!.n;
  const wallet = async () => gw.app.db('users').where({ id: a.userId }).first('balance', 'held');
  const before = { counters: await counters(), wallet: await wallet() };
  const refused = await submit(k.key, '203.0.113.9');
  t.is(refused.statusCode, 403, refused.payload);
  t.is(JSON.parse(refused.payload).code, 'forbidden');
  t.deepEqual({ counters: await counters(), wallet: await wallet() }, before);
  // from a listed address the same submit counts and holds: the check above could fail
  const ok = await submit(k.key, '198.51.100.20');
  t.is(ok.statusCode, 200, ok.payload);
  t.not(await counters(), before.counters);
  t.not((await wallet()).held, before.wallet.held);
});

test('a key may not widen its own IP restriction, nor lift or widen another key\'s, but may narrow', async (t) => {
  const k = await newKey(a.session);
  const other = await newKey(a.session);
  t.is((await update(a.session, k.id, { ip_whitelist: ['10.0.0.0/8'] })).status, 200);
  const from = '10.1.2.3';
  const wider = await update(k.key, k.id, { ip_whitelist: ['0.0.0.0/0'] }, from);
  t.is(wider.status, 403);
  t.regex(String(wider.body.detail), /within its own ip_whitelist/);
  t.is((await update(k.key, k.id, { ip_whitelist: [] }, from)).status, 403);
  t.is((await update(k.key, other.id, { ip_whitelist: [] }, from)).status, 403);
  t.is((await update(k.key, other.id, { ip_whitelist: ['192.168.0.0/16'] }, from)).status, 403);
  const narrower = await update(k.key, k.id, { ip_whitelist: ['10.1.0.0/16'] }, from);
  t.is(narrower.status, 200);
  t.deepEqual(narrower.body.ip_whitelist, ['10.1.0.0/16']);
  // renaming is not widening
  t.is((await update(k.key, k.id, { name: 'still restricted' }, from)).status, 200);
  // a session may lift it
  t.is((await update(a.session, k.id, { ip_whitelist: [] })).status, 200);
});

test.serial('an expired key is 401 api_key_expired; expiry must be in the future; a key may not postpone or remove its own', async (t) => {
  const k = await newKey(a.session);
  const past = await update(a.session, k.id, { expires_at: new Date(clock() - 1000).toISOString() });
  t.is(past.status, 422);
  t.deepEqual((past.body as { detail: Array<{ loc: unknown[] }> }).detail[0]!.loc, ['body', 'expires_at']);
  const at = clock() + 3_600_000;
  const set = await update(a.session, k.id, { expires_at: new Date(at).toISOString() });
  t.is(set.status, 200);
  t.is((set.body as KeyView).expires_at, new Date(at).toISOString());
  t.is((await update(k.key, k.id, { expires_at: new Date(at + 1000).toISOString() })).status, 403);
  t.is((await update(k.key, k.id, { expires_at: null })).status, 403);
  t.is((await update(k.key, k.id, { expires_at: new Date(at - 1000).toISOString() })).status, 200);
  t.is((await callOperation(gw, 'getBalance', { as: k.key })).status, 200);
  offsetMs += 3_600_000;
  try {
    const res = await callOperation(gw, 'getBalance', { as: k.key });
    t.is(res.status, 401);
    t.is((res.body as { code: string }).code, 'api_key_expired');
    // the session removes the expiry and the key works again
    t.is((await update(a.session, k.id, { expires_at: null })).status, 200);
    t.is((await callOperation(gw, 'getBalance', { as: k.key })).status, 200);
  } finally {
    offsetMs -= 3_600_000;
  }
});

test.serial('parallel submits at a key\'s spend limit never take it past the limit; 402 key_spend_limit_exceeded', async (t) => {
  const k = await newKey(a.session);
  const set = await update(a.session, k.id, { spend_limit: 3 * PRICE + 2, spend_limit_period: 'day' });
  t.is(set.status, 200, JSON.stringify(set.body));
  t.like(set.body, { spend_limit: 17, spend_limit_period: 'day' });
  const results = await Promise.all(Array.from({ length: 12 }, () => submit(k.key)));
  const statuses = results.map((r) => r.statusCode);
  t.is(statuses.filter((s) => s === 200).length, 3, statuses.join(','));
  t.is(statuses.filter((s) => s === 402).length, 9, statuses.join(','));
  const refusal = JSON.parse(results.find((r) => r.statusCode === 402)!.payload) as { code: string; detail: string };
  t.is(refusal.code, 'key_spend_limit_exceeded');
  t.regex(refusal.detail, /17 credits per day/);
  const spent = await gw.app.db('predictions').where({ api_key_id: k.id }).sum<{ s: number | string }[]>({ s: 'price' }).first();
  t.is(Number(spent!.s), 15);
  // the account's own wallet is untouched by the refusals; another key of the account is not limited
  t.is((await submit(a.liveKey)).statusCode, 200);
  // a cancelled prediction gives its share back
  const first = JSON.parse(results.find((r) => r.statusCode === 200)!.payload) as { request_id: string };
  t.is((await callOperation(gw, 'cancelPrediction', { as: a.session, params: { request_id: first.request_id } })).status, 200);
  t.is((await submit(k.key)).statusCode, 200);
  t.is((await submit(k.key)).statusCode, 402);
  // the next UTC day is a new period
  offsetMs += DAY_MS;
  try {
    t.is((await submit(k.key)).statusCode, 200);
  } finally {
    offsetMs -= DAY_MS;
  }
});

test('a spend limit needs a period, and a key may only lower its own (a month is narrower than a day)', async (t) => {
  const k = await newKey(a.session);
  const noPeriod = await update(a.session, k.id, { spend_limit: 100 });
  t.is(noPeriod.status, 422);
  t.deepEqual((noPeriod.body as { detail: Array<{ loc: unknown[] }> }).detail[0]!.loc, ['body', 'spend_limit_period']);
  t.is((await update(a.session, k.id, { spend_limit: 100, spend_limit_period: 'day' })).status, 200);
  t.is((await update(k.key, k.id, { spend_limit: 101 })).status, 403);
  t.is((await update(k.key, k.id, { spend_limit: null })).status, 403);
  t.is((await update(k.key, k.id, { spend_limit: 90 })).status, 200);
  const month = await update(k.key, k.id, { spend_limit_period: 'month' });
  t.is(month.status, 200);
  t.like(month.body, { spend_limit: 90, spend_limit_period: 'month' });
  t.is((await update(k.key, k.id, { spend_limit_period: 'day' })).status, 403);
  const lifted = await update(a.session, k.id, { spend_limit: null });
  t.like(lifted.body, { spend_limit: null, spend_limit_period: null });
});

test('another account\'s key, a team\'s key, a revoked or unknown key are 404; a sandbox key updates only sandbox keys', async (t) => {
  const bKey = await newKey(b.session);
  const res = await update(a.session, bKey.id, { name: 'taken over' });
  t.is(res.status, 404);
  const unknown = await update(a.session, 999_999_999, { name: 'x' });
  t.deepEqual([unknown.status, unknown.body], [res.status, res.body]);
  const team = await callOperation(gw, 'createTeam', { as: a.session, body: { name: 'team' } });
  const teamKey = await callOperation(gw, 'createTeamApiKey', { as: a.session, params: { team_id: (team.body as { id: number }).id }, body: { name: 'tk' } });
  t.is((await update(a.session, (teamKey.body as { id: number }).id, { name: 'x' })).status, 404);
  const revoked = await newKey(a.session);
  await callOperation(gw, 'deleteApiKey', { as: a.session, params: { key_id: revoked.id } });
  t.is((await update(a.session, revoked.id, { name: 'x' })).status, 404);
  const live = await newKey(a.session);
  t.is((await update(a.testKey, live.id, { name: 'x' })).status, 403);
  const sandbox = await newKey(a.session, { is_test: true });
  t.is((await update(a.testKey, sandbox.id, { name: 'sandbox renamed' })).status, 200);
  t.is((await gw.app.db('api_keys').where({ id: bKey.id }).first()).name, 'k');
});

test('one key\'s spend limit holds across wallets: parallel personal and team submits with it share the limit', async (t) => {
  const team = await callOperation(gw, 'createTeam', { as: a.session, body: { name: 'spenders' } });
  const teamId = (team.body as { id: number }).id;
  await gw.app.db.transaction((trx) => creditTeam(trx, teamId, a.userId, 10_000, 'topup', 'test', clock()));
  const k = await newKey(a.session);
  t.is((await update(a.session, k.id, { spend_limit: 4 * PRICE, spend_limit_period: 'month' })).status, 200);
  const results = await Promise.all(Array.from({ length: 10 }, (_, i) => gw.server.inject({
    method: 'POST', url: `/api/v1/${MODEL}${i % 2 ? `?team_id=${teamId}` : ''}`, headers: { 'x-api-key': k.key }, payload: BODY,
  })));
  const statuses = results.map((r) => r.statusCode);
  t.is(statuses.filter((s) => s === 200).length, 4, statuses.join(','));
  t.true(statuses.every((s) => s === 200 || s === 402), statuses.join(','));
  const spent = await gw.app.db('predictions').where({ api_key_id: k.id }).sum<{ s: number | string }[]>({ s: 'price' }).first();
  t.is(Number(spent!.s), 4 * PRICE);
});

test('createApiKey and generateApiKey take expires_at and a spend limit, validated as on update', async (t) => {
  const at = new Date(clock() + 7 * DAY_MS).toISOString();
  const k = await newKey(a.session, { expires_at: at, spend_limit: 40, spend_limit_period: 'month' });
  t.like(k, { expires_at: at, spend_limit: 40, spend_limit_period: 'month' });
  const listed = (await callOperation(gw, 'getUserKeys', { as: a.session })).body as KeyView[];
  t.like(listed.find((x) => x.id === k.id), { expires_at: at, spend_limit: 40, spend_limit_period: 'month' });
  const generated = await callOperation<KeyView>(gw, 'generateApiKey', { as: a.session, body: { name: 'g', spend_limit: 7, spend_limit_period: 'day' } });
  t.is(generated.status, 200, JSON.stringify(generated.body));
  t.like(generated.body, { spend_limit: 7, spend_limit_period: 'day', expires_at: null });
  const plain = await newKey(a.session);
  t.like(plain, { expires_at: null, spend_limit: null, spend_limit_period: null });

  const past = await callOperation<{ detail: Array<{ loc: unknown[] }> }>(gw, 'createApiKey', { as: a.session, body: { expires_at: new Date(clock() - 1000).toISOString() } });
  t.is(past.status, 422);
  t.deepEqual(past.body.detail[0]!.loc, ['body', 'expires_at']);
  const noPeriod = await callOperation<{ detail: Array<{ loc: unknown[] }> }>(gw, 'generateApiKey', { as: a.session, body: { spend_limit: 5 } });
  t.is(noPeriod.status, 422);
  t.deepEqual(noPeriod.body.detail[0]!.loc, ['body', 'spend_limit_period']);
  const periodOnly = await callOperation<{ detail: Array<{ loc: unknown[] }> }>(gw, 'createApiKey', { as: a.session, body: { spend_limit_period: 'day' } });
  t.is(periodOnly.status, 422);
  t.deepEqual(periodOnly.body.detail[0]!.loc, ['body', 'spend_limit_period']);
  t.is((await callOperation(gw, 'createApiKey', { as: a.session, body: { spend_limit: 0, spend_limit_period: 'day' } })).status, 422);
  t.is((await callOperation(gw, 'createApiKey', { as: a.session, body: { expires_at: 'tomorrow' } })).status, 422);
});

test('a key created at its spend limit is enforced at hold time (402) from its first submit', async (t) => {
  const k = await newKey(a.session, { spend_limit: PRICE, spend_limit_period: 'day' });
  t.is((await submit(k.key)).statusCode, 200);
  const refused = await submit(k.key);
  t.is(refused.statusCode, 402);
  t.is((JSON.parse(refused.payload) as { code: string }).code, 'key_spend_limit_exceeded');
});

test('a key creates no key that outlives or outspends it: absent fields inherit, wider ones are 403', async (t) => {
  const at = new Date(clock() + DAY_MS).toISOString();
  const parent = await newKey(a.session, { expires_at: at, spend_limit: 50, spend_limit_period: 'month' });
  const inherited = await newKey(parent.key);
  t.like(inherited, { expires_at: at, spend_limit: 50, spend_limit_period: 'month' });
  const narrower = await newKey(parent.key, { expires_at: new Date(clock() + 3_600_000).toISOString(), spend_limit: 10, spend_limit_period: 'month' });
  t.like(narrower, { spend_limit: 10, spend_limit_period: 'month' });
  const cases: Array<Record<string, unknown>> = [
    { expires_at: new Date(clock() + 2 * DAY_MS).toISOString() },
    { expires_at: null },
    { spend_limit: 51, spend_limit_period: 'month' },
    { spend_limit: 50, spend_limit_period: 'day' },
    { spend_limit: null },
  ];
  for (const body of cases) {
    const res = await callOperation<{ detail: string }>(gw, 'createApiKey', { as: parent.key, body });
    t.is(res.status, 403, JSON.stringify(body));
  }
  // a session is bounded by nothing
  t.like(await newKey(a.session, { spend_limit: 1_000_000, spend_limit_period: 'day' }), { spend_limit: 1_000_000 });
});

test('a key\'s scopes may only narrow: dropped ones stop working at once, one it lacks is 403, all five are stored as none listed', async (t) => {
  const key = await newKey(a.session, { is_test: true });
  const narrowed = await update(a.session, key.id, { scopes: ['generate:read', 'account:read'] });
  t.is(narrowed.status, 200, JSON.stringify(narrowed.body));
  t.deepEqual(narrowed.body.scopes, ['generate:read', 'account:read']);
  // a scope it no longer holds: the next request is refused, one it holds still works
  const balance = await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': key.key } });
  t.is(balance.statusCode, 200);
  const submitted = await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': key.key }, payload: BODY });
  t.is(submitted.statusCode, 403, submitted.payload);
  // widening is refused, naming the scope, and changes nothing
  const widen = await update(a.session, key.id, { scopes: ['generate:read', 'generate:write'] });
  t.is(widen.status, 403);
  t.regex(String(widen.body.detail), /does not hold generate:write/);
  t.is((await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': key.key }, payload: BODY })).statusCode, 403);
  t.is((await update(a.session, key.id, { scopes: [] })).status, 422);
  t.is((await update(a.session, key.id, { scopes: ['admin'] })).status, 422);
  // a key with all five narrowed to all five keeps null, as at creation
  const full = await newKey(a.session, { is_test: true });
  const same = await update(a.session, full.id, { scopes: ['keys:manage', 'account:read', 'files:write', 'generate:read', 'generate:write'] });
  t.is(same.body.scopes, null);
});
