// One function decides the client address (lib/addresses.ts clientIp): behind a trusted
// proxy, a key's IP restriction sees the client from X-Forwarded-For, not the proxy; from an
// untrusted peer, X-Forwarded-For is ignored. MariaDB, in-process queue.
import test from 'ava';
import pino from 'pino';
import { Writable } from 'node:stream';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';

const PROXY = '10.0.0.1';
const CLIENT = '203.0.113.7';
const OTHER = '198.51.100.9';

let gw: TestGateway;
let acct: Account;
const lines: Array<Record<string, unknown>> = [];
test.before(async () => {
  const sink = new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } });
  gw = await startGateway({ queue: 'memory', env: { TRUSTED_PROXIES: PROXY }, log: pino({ level: 'info' }, sink) });
  acct = await newAccount(gw);
});
test.after.always(async () => {
  await gw?.stop();
});

async function restrictedKey(whitelist: string[]): Promise<string> {
  const res = await gw.server.inject({ method: 'POST', url: '/api/v1/keys', headers: { authorization: `Bearer ${acct.session}` }, payload: { name: 'restricted', is_test: true, ip_whitelist: whitelist } });
  if (res.statusCode !== 200) throw new Error(res.payload);
  return (res.result as { key: string }).key;
}

const balance = (key: string, remoteAddress: string, xff?: string) => gw.server.inject({
  method: 'GET', url: '/account/balance', remoteAddress, headers: { 'x-api-key': key, ...(xff ? { 'x-forwarded-for': xff } : {}) },
});

test('a key limited to the client address works through a trusted proxy', async (t) => {
  const key = await restrictedKey([`${CLIENT}/32`]);
  t.is((await balance(key, PROXY, CLIENT)).statusCode, 200);
  // the nearest untrusted hop is the client: a forged hop further left changes nothing
  t.is((await balance(key, PROXY, `1.2.3.4, ${CLIENT}`)).statusCode, 200);
  t.is((await balance(key, PROXY, OTHER)).statusCode, 403);
  t.is((await balance(key, CLIENT)).statusCode, 200);
});

test("a key limited to the proxy's address refuses other clients behind it", async (t) => {
  const key = await restrictedKey([PROXY]);
  const res = await balance(key, PROXY, OTHER);
  t.is(res.statusCode, 403);
  t.deepEqual(res.result, { detail: 'this API key may not be used from this address', code: 'forbidden' });
});

test('X-Forwarded-For from an untrusted peer is ignored', async (t) => {
  const key = await restrictedKey([CLIENT]);
  t.is((await balance(key, OTHER, CLIENT)).statusCode, 403);
  const open = await restrictedKey([OTHER]);
  t.is((await balance(open, OTHER, CLIENT)).statusCode, 200);
});

test('the audit log records the same client address', async (t) => {
  lines.length = 0;
  const res = await gw.server.inject({ method: 'POST', url: '/auth/login', remoteAddress: PROXY, headers: { 'x-forwarded-for': CLIENT }, payload: { email: 'nobody-here@example.com', password: 'wrong password here' } });
  t.is(res.statusCode, 401);
  const refused = lines.find((l) => l.event === 'sign_in_refused');
  t.is(refused?.address, CLIENT);
});
