// README "Credential cache" with real processes: two `ROLE=api` processes (`node main.ts`) on one
// MariaDB database and AMQP prefix, each caching API keys under its own lease. A key revoked
// through one is refused by the other on its very next request; a process frozen with SIGSTOP
// (connected, holding a lease, answering nothing) delays the revoker by at most about two leases,
// and once thawed it refuses the key at once: its lease's deadline passed while it was stopped.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { freePort, spawnGateway } from '../helpers/processes.ts';
import type { GatewayProcess } from '../helpers/processes.ts';

const LEASE_MS = 1500;

let gw: TestGateway;
const procs: Array<{ p: GatewayProcess; url: string }> = [];
test.before(async () => {
  gw = await startGateway({ env: { CREDENTIAL_CACHE_LEASE_MS: String(LEASE_MS), CREDENTIAL_CACHE: 'off' } });
  for (let i = 0; i < 2; i++) {
    const port = await freePort();
    const p = spawnGateway({ ...gw.env, ROLE: 'api', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', CREDENTIAL_CACHE: 'on' });
    const url = `http://127.0.0.1:${port}`;
    procs.push({ p, url });
    await waitFor(async () => (await fetch(`${url}/livez`).catch(() => null))?.ok, { what: `API process ${i} up`, timeoutMs: 60_000 });
  }
  // both hold a lease
  await waitFor(async () => Number((await gw.app.db('credential_cache_leases').count({ n: '*' }).first<{ n: number | string }>())!.n) === 2, { what: 'two leases', timeoutMs: 30_000 });
});
test.after.always(async () => {
  for (const { p } of procs) {
    p.child.kill('SIGCONT');
    await p.kill('SIGTERM');
  }
  await gw?.stop();
});

const balance = async (url: string, key: string) => (await fetch(`${url}/account/balance`, { headers: { 'x-api-key': key } })).status;

async function keyIdOf(session: string, prefix: string): Promise<number> {
  const res = await fetch(`${procs[0]!.url}/app/get_user_keys`, { headers: { authorization: `Bearer ${session}` } });
  const keys = await res.json() as Array<{ id: number; name: string; is_test: boolean }>;
  return keys.find((k) => k.is_test === prefix.startsWith('mg_test_'))!.id;
}

const revoke = async (session: string, id: number) => (await fetch(`${procs[0]!.url}/app/delete_api_keys/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${session}` } })).status;

test.serial('a key revoked through one API process is 401 on the other\'s very next request', async (t) => {
  const acct = await newAccount(gw);
  const [a, b] = procs;
  for (let i = 0; i < 3; i++) for (const p of [a!, b!]) t.is(await balance(p.url, acct.testKey), 200);
  t.is(await revoke(acct.session, await keyIdOf(acct.session, acct.testKey)), 200);
  t.is(await balance(b!.url, acct.testKey), 401);
});

test.serial('a frozen process delays the revoker by at most two leases, and refuses the key the moment it runs again', async (t) => {
  const acct = await newAccount(gw);
  const [a, b] = procs;
  for (let i = 0; i < 3; i++) for (const p of [a!, b!]) t.is(await balance(p.url, acct.testKey), 200);
  const id = await keyIdOf(acct.session, acct.testKey);
  b!.p.child.kill('SIGSTOP');
  const t0 = Date.now();
  t.is(await revoke(acct.session, id), 200);
  const took = Date.now() - t0;
  // it waited for the frozen process's lease (renewed every third of it) to run out, no longer
  t.true(took > LEASE_MS / 2 && took < 2 * LEASE_MS + 1000, `the revoker waited ${took} ms`);
  b!.p.child.kill('SIGCONT');
  t.is(await balance(b!.url, acct.testKey), 401);
  // and it takes a lease again and serves from its cache
  await waitFor(async () => Number((await gw.app.db('credential_cache_leases').count({ n: '*' }).first<{ n: number | string }>())!.n) === 2, { what: 'two leases again', timeoutMs: 30_000 });
});
