// Rotating an API key (rotateApiKey, rotateTeamApiKey) and the key properties the dashboard's
// keys page edits: a new secret in place with the old one valid for a chosen grace period, then
// refused; generation limits changed by update, bounded for a key; the spend so far in lists.
// MariaDB, the in-process queue (submits stay queued and held, which is what a spend counts).
import test from 'ava';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';

let gw: TestGateway;
let offsetMs = 0;

test.before(async () => {
  gw = await startGateway({ queue: 'memory', clock: () => Date.now() + offsetMs, env: { CREDENTIAL_CACHE: 'on' } });
});
test.after.always(async () => {
  await gw?.stop();
});

interface Key { id: number; key: string; prefix: string; name: string; rotated_at: string | null; grace_until: string | null; spend_so_far?: number | null; rate_limit_per_minute: number | null; max_concurrent: number | null }

async function keyOf(acct: Account, body: Record<string, unknown> = {}): Promise<Key> {
  const res = await callOperation<Key>(gw, 'createApiKey', { as: acct.session, body: { name: 'deploy', is_test: false, ...body } });
  if (res.status !== 200) throw new Error(res.raw.payload);
  return res.body;
}

const balanceWith = (key: string) => gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': key } });

test.serial('a rotation gives the key a new secret in place; the old secret works until the grace period ends, then is refused', async (t) => {
  const acct = await newAccount(gw);
  const old = await keyOf(acct, { rate_limit_per_minute: 7, spend_limit: 5000, spend_limit_period: 'day' });
  t.is((await balanceWith(old.key)).statusCode, 200);
  const rotated = await callOperation<Key & { team_id?: number }>(gw, 'rotateApiKey', { as: acct.session, params: { key_id: old.id }, body: { grace_seconds: 3600 } });
  t.is(rotated.status, 200, rotated.raw.payload);
  const fresh = rotated.body;
  t.is(fresh.id, old.id, 'the same key: id, name and limits stay');
  t.is(fresh.name, 'deploy');
  t.is(fresh.rate_limit_per_minute, 7);
  t.not(fresh.key, old.key);
  t.true(fresh.key.startsWith('mg_live_'));
  t.is(fresh.prefix, fresh.key.slice(0, 12));
  t.truthy(fresh.rotated_at);
  t.is(Date.parse(fresh.grace_until!) - Date.parse(fresh.rotated_at!), 3_600_000);
  // only digests are stored
  const row = await gw.app.db('api_keys').where({ id: old.id }).first<Record<string, unknown>>();
  t.false(JSON.stringify(row).includes(old.key.slice(8)) || JSON.stringify(row).includes(fresh.key.slice(8)));

  t.is((await balanceWith(fresh.key)).statusCode, 200);
  t.is((await balanceWith(old.key)).statusCode, 200, 'the old secret works during the grace period');
  const listed = (await callOperation<Key[]>(gw, 'getUserKeys', { as: acct.session })).body.find((k) => k.id === old.id)!;
  t.is(listed.grace_until, fresh.grace_until);

  offsetMs = 3_600_001;
  try {
    const refused = await balanceWith(old.key);
    t.is(refused.statusCode, 401);
    t.is((refused.result as { code: string }).code, 'api_key_expired');
    t.regex((refused.result as { detail: string }).detail, /rotated/);
    t.is((await balanceWith(fresh.key)).statusCode, 200);
    const after = (await callOperation<Key[]>(gw, 'getUserKeys', { as: acct.session })).body.find((k) => k.id === old.id)!;
    t.truthy(after.grace_until, 'the listing names when the old secret stopped');
  } finally {
    offsetMs = 0;
  }
});

test.serial('a grace of 0 ends the old secret at once, and a second rotation ends the secret the first one replaced', async (t) => {
  const acct = await newAccount(gw);
  const k = await keyOf(acct);
  const now = await callOperation<Key>(gw, 'rotateApiKey', { as: acct.session, params: { key_id: k.id }, body: { grace_seconds: 0 } });
  t.is(now.body.grace_until, null);
  t.is((await balanceWith(k.key)).statusCode, 401);
  const second = await callOperation<Key>(gw, 'rotateApiKey', { as: acct.session, params: { key_id: k.id }, body: {} });
  t.truthy(second.body.grace_until, 'the default grace is a day');
  t.is(Date.parse(second.body.grace_until!) - Date.parse(second.body.rotated_at!), 86_400_000);
  const third = await callOperation<Key>(gw, 'rotateApiKey', { as: acct.session, params: { key_id: k.id }, body: { grace_seconds: 60 } });
  t.is((await balanceWith(now.body.key)).statusCode, 401, 'the older secret stopped at the second rotation');
  t.is((await balanceWith(second.body.key)).statusCode, 200);
  t.is((await balanceWith(third.body.key)).statusCode, 200);
});

test.serial('a sandbox key may not rotate a production key; another account\'s key is 404; a grace above 30 days is 422', async (t) => {
  const acct = await newAccount(gw);
  const other = await newAccount(gw);
  const k = await keyOf(acct);
  const sandbox = await callOperation<{ code: string }>(gw, 'rotateApiKey', { as: acct.testKey, params: { key_id: k.id }, body: {} });
  t.is(sandbox.status, 403);
  t.is((await callOperation(gw, 'rotateApiKey', { as: other.session, params: { key_id: k.id }, body: {} })).status, 404);
  t.is((await callOperation(gw, 'rotateApiKey', { as: acct.session, params: { key_id: k.id }, body: { grace_seconds: 31 * 86_400 } })).status, 422);
  t.is((await balanceWith(k.key)).statusCode, 200, 'nothing was rotated');
});

test.serial('a team key rotates through the team route with manage_keys', async (t) => {
  const owner = await newAccount(gw);
  const team = await callOperation<{ id: number }>(gw, 'createTeam', { as: owner.session, body: { name: 'render farm' } });
  const created = await callOperation<Key>(gw, 'createTeamApiKey', { as: owner.session, params: { team_id: team.body.id }, body: { name: 'ci', is_test: false } });
  t.is(created.status, 201, created.raw.payload);
  const rotated = await callOperation<Key & { team_id: number }>(gw, 'rotateTeamApiKey', { as: owner.session, params: { team_id: team.body.id, key_id: created.body.id }, body: { grace_seconds: 0 } });
  t.is(rotated.status, 200, rotated.raw.payload);
  t.is(rotated.body.team_id, team.body.id);
  t.is((await balanceWith(created.body.key)).statusCode, 401);
  t.is((await gw.server.inject({ method: 'GET', url: `/account/balance`, headers: { 'x-api-key': rotated.body.key } })).statusCode, 200);
  // a personal key's id on the team route is 404
  const personal = await keyOf(owner);
  t.is((await callOperation(gw, 'rotateTeamApiKey', { as: owner.session, params: { team_id: team.body.id, key_id: personal.id }, body: {} })).status, 404);
});

test.serial('generation limits are edited with the other properties; a key may not raise them above its own', async (t) => {
  const acct = await newAccount(gw);
  const k = await keyOf(acct);
  const set = await callOperation<Key>(gw, 'updateApiKey', { as: acct.session, params: { key_id: k.id }, body: { rate_limit_per_minute: 5, max_concurrent: 2 } });
  t.is(set.status, 200, set.raw.payload);
  t.like(set.body, { rate_limit_per_minute: 5, max_concurrent: 2 });
  // the limited key may lower them on another key, not raise them above its own 5 and 2
  const target = await keyOf(acct);
  const higher = await callOperation(gw, 'updateApiKey', { as: k.key, params: { key_id: target.id }, body: { rate_limit_per_minute: 6 } });
  t.is(higher.status, 403);
  const unlimited = await callOperation(gw, 'updateApiKey', { as: k.key, params: { key_id: target.id }, body: { max_concurrent: null } });
  t.is(unlimited.status, 403, 'null means the default, which is above this key\'s own');
  const lower = await callOperation<Key>(gw, 'updateApiKey', { as: k.key, params: { key_id: target.id }, body: { rate_limit_per_minute: 3 } });
  t.is(lower.status, 200);
  t.is(lower.body.rate_limit_per_minute, 3);
  const back = await callOperation<Key>(gw, 'updateApiKey', { as: acct.session, params: { key_id: k.id }, body: { rate_limit_per_minute: null } });
  t.is(back.body.rate_limit_per_minute, null);
});

test.serial('the key list shows what a limited key has spent in its period; an unlimited key shows null', async (t) => {
  const acct = await newAccount(gw, 10_000);
  const limited = await keyOf(acct, { spend_limit: 1000, spend_limit_period: 'month' });
  const submit = await gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { 'x-api-key': limited.key, 'content-type': 'application/json' }, payload: { prompt: 'a kettle' } });
  t.is(submit.statusCode, 200, submit.payload);
  const price = (submit.result as { price: number }).price;
  t.true(price > 0);
  const keys = (await callOperation<Key[]>(gw, 'getUserKeys', { as: acct.session })).body;
  t.is(keys.find((k) => k.id === limited.id)!.spend_so_far, price);
  t.is(keys.find((k) => k.name === 'live')!.spend_so_far, null);
});
