// README "Credential cache": two API processes (two apps in this test process, each with its own
// cache, database pool, RabbitMQ connection and lease) sharing one MariaDB database and AMQP
// prefix. Both caches are warmed with a key; a write through A must hold on B's very next request.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import pino from 'pino';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { waitFor } from '../helpers/services.ts';
import { loadConfig } from '../../config.ts';
import { createApp } from '../../app.ts';
import { createServer } from '../../server.ts';
import { setUserRole } from '../../db/users.ts';
import { runAdmin } from '../../cli/admin.ts';

const LEASE_MS = 2000;
const MODEL = 'canvas-v1-fast-text-to-image';

let a: TestGateway;
let b: TestGateway;
test.before(async () => {
  a = await startGateway({ env: { CREDENTIAL_CACHE_LEASE_MS: String(LEASE_MS) } });
  const app = await createApp(loadConfig(a.env), { log: pino({ level: 'silent' }) });
  const server = await createServer(app);
  await server.initialize();
  b = { env: a.env, app, server, async stop() { await server.stop(); await app.close(); } };
  // both hold a lease (taken once connected to the broadcast)
  await waitFor(() => a.app.credentials.keys!.serving && b.app.credentials.keys!.serving, { what: 'both caches serving' });
});
test.after.always(async () => {
  await b?.stop();
  await a?.stop();
});

/** Key lookups B makes while `fn` runs. */
async function keyLookupsOnB(fn: () => Promise<unknown>): Promise<number> {
  let n = 0;
  const count = (q: { sql: string }) => { if (q.sql.includes('`api_keys`')) n++; };
  b.app.db.on('query', count);
  try {
    await fn();
  } finally {
    b.app.db.off('query', count);
  }
  return n;
}

const balance = (gw: TestGateway, key: string) => callOperation(gw, 'getBalance', { as: key });

/** Warms both caches with the key (checked: a second request on B reads no key from the database). */
async function warm(t: ExecutionContext, key: string): Promise<void> {
  for (const gw of [a, b]) {
    t.is((await balance(gw, key)).status, 200);
  }
  t.is(await keyLookupsOnB(async () => t.is((await balance(b, key)).status, 200)), 0, 'B answered from its cache');
}

async function newKey(acct: Account, body: Record<string, unknown> = {}): Promise<{ id: number; key: string }> {
  const res = await callOperation<{ id: number; key: string }>(a, 'createApiKey', { as: acct.session, body: { name: 'k', is_test: true, ...body } });
  if (res.status !== 200 && res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body;
}

async function emailOf(userId: number): Promise<string> {
  return (await a.app.db('users').where({ id: userId }).first<{ email: string }>('email')).email;
}

test.serial('a key revoked through A is 401 on B\'s very next request', async (t) => {
  const acct = await newAccount(a);
  const k = await newKey(acct);
  await warm(t, k.key);
  t.is((await callOperation(a, 'deleteApiKey', { as: acct.session, params: { key_id: k.id } })).status, 200);
  t.is((await balance(b, k.key)).status, 401);
  t.is((await balance(a, k.key)).status, 401);
});

test.serial('an IP restriction set through A is 403 on B\'s very next request', async (t) => {
  const acct = await newAccount(a);
  const k = await newKey(acct, { ip_whitelist: ['127.0.0.1'] });
  await warm(t, k.key);
  t.is((await callOperation(a, 'updateApiKey', { as: acct.session, params: { key_id: k.id }, body: { ip_whitelist: ['10.1.2.3'] } })).status, 200);
  t.is((await balance(b, k.key)).status, 403);
});

test.serial('a role granted and taken back with the admin CLI drops the key on B; a staff account\'s key is never served from a cache', async (t) => {
  // role-gated operations take login sessions only (sessions are never cached): what a cached role
  // could change is the key's caller role, so what is checked is that B reads the key afresh
  // another administrator, so that this one's role may be taken back
  await setUserRole(a.app.db, await emailOf((await newAccount(a)).userId), 'admin');
  const acct = await newAccount(a);
  const k = await newKey(acct, { is_test: false });
  const email = await emailOf(acct.userId);
  await warm(t, k.key);
  t.is((await runAdmin(['grant', email, 'admin'], a.env)).code, 0);
  for (let i = 0; i < 2; i++) t.true(await keyLookupsOnB(() => balance(b, k.key)) > 0, 'read from the database');
  t.is((await runAdmin(['revoke', email], a.env)).code, 0);
  t.true(await keyLookupsOnB(() => balance(b, k.key)) > 0, 'read from the database once');
  t.is(await keyLookupsOnB(() => balance(b, k.key)), 0, 'then cached again, as a user\'s');
});

test.serial('a deletion scheduled through A refuses the account\'s keys on B at once; cancelled, they work again', async (t) => {
  const acct = await newAccount(a);
  const k = await newKey(acct);
  await warm(t, k.key);
  t.is((await callOperation(a, 'requestAccountDeletion', { as: acct.session })).status, 200);
  t.is((await balance(b, k.key)).status, 401);
  t.is((await callOperation(a, 'cancelAccountDeletion', { as: acct.session })).status, 200);
  t.is((await balance(b, k.key)).status, 200);
});

test.serial('a discount added through A prices B\'s very next quote with it', async (t) => {
  const admin = await newAccount(a);
  await setUserRole(a.app.db, await emailOf(admin.userId), 'billing');
  const acct = await newAccount(a, 1000);
  const k = await newKey(acct, { is_test: false });
  await warm(t, k.key);
  const quote = async () => (await callOperation<{ cost: number }>(b, 'calculateDynamicCost', { as: k.key, body: { model: MODEL, input: { prompt: 'x', width: 64, height: 64 } } })).body.cost;
  const list = await quote();
  const added = await callOperation(a, 'upsertModelDiscounts', { as: admin.session, body: { discounts: [{ email: await emailOf(acct.userId), model: MODEL, percent_off: 50 }] } });
  t.is(added.status, 200);
  t.true(await quote() < list, 'the cached "no discounts" marker was dropped before the add answered');
});

test.serial('a team key revoked through A is 401 on B\'s very next request; so are its keys once the team is deleted', async (t) => {
  const owner = await newAccount(a);
  const team = await callOperation<{ id: number }>(a, 'createTeam', { as: owner.session, body: { name: 'cache' } });
  const teamId = team.body.id;
  const mk = async () => (await callOperation<{ id: number; key: string }>(a, 'createTeamApiKey', { as: owner.session, params: { team_id: teamId }, body: { name: 't', is_test: true } })).body;
  const k1 = await mk();
  const k2 = await mk();
  await warm(t, k1.key);
  await warm(t, k2.key);
  t.is((await callOperation(a, 'revokeTeamApiKey', { as: owner.session, params: { team_id: teamId, key_id: k1.id } })).status, 200);
  t.is((await balance(b, k1.key)).status, 401);
  t.is((await balance(b, k2.key)).status, 200);
  t.is((await callOperation(a, 'deleteTeam', { as: owner.session, params: { team_id: teamId } })).status, 200);
  t.is((await balance(b, k2.key)).status, 401);
});

test.serial('a process that holds a lease but never answers has it taken: the revoker returns within the lease length', async (t) => {
  const acct = await newAccount(a);
  const k = await newKey(acct);
  await warm(t, k.key);
  // a silent holder: a lease row no process answers for
  await a.app.db('credential_cache_leases').insert({ id: 'silent', expires_at: a.app.db.raw('CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED) + ?', [LEASE_MS]) });
  const t0 = Date.now();
  t.is((await callOperation(a, 'deleteApiKey', { as: acct.session, params: { key_id: k.id } })).status, 200);
  const took = Date.now() - t0;
  t.true(took >= LEASE_MS - 600 && took < LEASE_MS + 1500, `waited ${took} ms for the silent lease to run out`);
  t.is(await a.app.db('credential_cache_leases').where({ id: 'silent' }).first(), undefined, 'its lease was taken');
  t.is((await balance(b, k.key)).status, 401);
});

test.serial('a process whose broadcast channel is gone serves keys from the database, the revoker does not wait for it, and it serves from its cache again once reconnected', async (t) => {
  const acct = await newAccount(a);
  const k = await newKey(acct);
  await warm(t, k.key);
  await b.app.credentials.channel()!.close();
  await waitFor(() => !b.app.credentials.keys!.serving, { what: 'B stops serving from its cache' });
  t.true(await keyLookupsOnB(() => balance(b, k.key)) > 0, 'B reads the key from the database');
  const t0 = Date.now();
  t.is((await callOperation(a, 'deleteApiKey', { as: acct.session, params: { key_id: k.id } })).status, 200);
  t.true(Date.now() - t0 < LEASE_MS + 500);
  t.is((await balance(b, k.key)).status, 401);
  await waitFor(() => b.app.credentials.keys!.serving, { what: 'B serving from its cache again' });
  const other = await newKey(acct);
  await warm(t, other.key);
});

test('embedded (SQLite, in-process queue, one process): keys are served from the cache, and a revocation holds on the next request', async (t) => {
  const lite = await startGateway({ db: 'sqlite', queue: 'memory' });
  try {
    t.true(lite.app.credentials.keys!.serving, 'no lease needed');
    const acct = await newAccount(lite);
    const k = (await callOperation<{ id: number; key: string }>(lite, 'createApiKey', { as: acct.session, body: { name: 'k', is_test: true } })).body;
    t.is((await balance(lite, k.key)).status, 200);
    let lookups = 0;
    const count = (q: { sql: string }) => { if (q.sql.includes('`api_keys`')) lookups++; };
    lite.app.db.on('query', count);
    t.is((await balance(lite, k.key)).status, 200);
    t.is(lookups, 0, 'answered from the cache');
    t.is((await callOperation(lite, 'deleteApiKey', { as: acct.session, params: { key_id: k.id } })).status, 200);
    t.is((await balance(lite, k.key)).status, 401);
    lite.app.db.off('query', count);
  } finally {
    await lite.stop();
  }
});

test('CREDENTIAL_CACHE=off: no cache, every request reads the key', async (t) => {
  const off = await startGateway({ db: 'sqlite', queue: 'memory', env: { CREDENTIAL_CACHE: 'off' } });
  try {
    t.is(off.app.credentials.keys, null);
  } finally {
    await off.stop();
  }
});
