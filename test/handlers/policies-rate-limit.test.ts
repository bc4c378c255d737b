// Attempt budgets on the login, one-time-code, reset, mail and registration routes, with the
// default numbers (10 failures per email and address, 50 per address, 10 mails per email, per
// 15 minutes; 10 registrations per address per hour), counted in the database. MariaDB.
import test from 'ava';
import crypto from 'node:crypto';
import pino from 'pino';
import { startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { loadConfig } from '../../config.ts';
import { createApp } from '../../app.ts';
import { createServer } from '../../server.ts';
import { clientAddress } from '../../handlers/policies.ts';

let gw: TestGateway;
let offsetMs = 0;
// The limits use fixed 15-minute (and, for registration, one-hour) windows. A test started just
// before a window boundary would see its counters reset half-way, so the gateway's clock starts
// one second into an hour, which also starts a 15-minute window.
const WINDOW_MS = 60 * 60 * 1000;
const realStart = Date.now();
const clockStart = realStart - (realStart % WINDOW_MS) + WINDOW_MS + 1000;

test.before(async () => {
  gw = await startGateway({ queue: 'memory', clock: () => clockStart + (Date.now() - realStart) + offsetMs, env: { REGISTER_RATE_PER_ADDRESS: '10' } });
});
test.after.always(async () => {
  await gw?.stop();
});

const PASSWORD = 'rate limited password';
let addressCounter = 0;
/** Each test speaks from its own address, so the address budget is its own. */
function newAddress(): string {
  addressCounter++;
  return `10.20.${Math.floor(addressCounter / 250)}.${(addressCounter % 250) + 1}`;
}

function newEmail(): string {
  return `rl-${crypto.randomBytes(5).toString('hex')}@example.com`;
}

function post(url: string, payload: object, remoteAddress: string, headers: Record<string, string> = {}) {
  return gw.server.inject({ method: 'POST', url, payload, remoteAddress, headers });
}

async function registered(): Promise<string> {
  const email = newEmail();
  const res = await gw.server.inject({ method: 'POST', url: '/auth/register', payload: { email, password: PASSWORD }, remoteAddress: newAddress() });
  if (res.statusCode !== 201) throw new Error(res.payload);
  return email;
}

function assert429(t: import('ava').ExecutionContext, res: { statusCode: number; headers: Record<string, unknown>; result: unknown }, windowSeconds = 900) {
  t.is(res.statusCode, 429, res.statusCode === 429 ? '' : JSON.stringify(res.result));
  const retryAfter = Number(res.headers['retry-after']);
  t.true(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= windowSeconds, String(res.headers['retry-after']));
  t.deepEqual(res.result, { detail: `too many attempts, try again in ${retryAfter} seconds`, code: 'rate_limited' });
}

test.serial('ten failures for one email from one address make that address wait, with Retry-After, until the window ends; the owner elsewhere signs in', async (t) => {
  const email = await registered();
  const attacker = newAddress();
  for (let i = 0; i < 10; i++) t.is((await post('/auth/login', { email, password: 'a wrong password' }, attacker)).statusCode, 401);
  const blocked = await post('/auth/login', { email, password: PASSWORD }, attacker);
  assert429(t, blocked);
  assert429(t, await post('/auth/cli/login', { email, password: 'a wrong password' }, attacker));
  // The owner, from an address that has not failed, is not locked out of the account.
  const owner = newAddress();
  t.is((await post('/auth/login', { email, password: PASSWORD }, owner)).statusCode, 200);
  t.is((await post('/auth/cli/login', { email, password: PASSWORD }, owner)).statusCode, 200);
  // Another email from the attacker's address is fine (its address budget is 50 failures).
  const other = await registered();
  t.is((await post('/auth/login', { email: other, password: PASSWORD }, attacker)).statusCode, 200);
  // When the window is over, the address gets a new budget for the email.
  offsetMs = Number(blocked.headers['retry-after']) * 1000;
  try {
    t.is((await post('/auth/login', { email, password: PASSWORD }, attacker)).statusCode, 200);
  } finally {
    offsetMs = 0;
  }
});

test('an attacker hammering an email from many addresses does not lock its owner out of any route', async (t) => {
  const email = await registered();
  for (let a = 0; a < 2; a++) {
    const attacker = newAddress();
    for (let i = 0; i < 11; i++) {
      await post('/auth/login', { email, password: 'a wrong password' }, attacker);
      await post('/auth/login-otp', { email, otp: '000000' }, attacker);
      await post('/auth/reset-password', { email, otp: '000000', new_password: 'the attacker password' }, attacker);
    }
    assert429(t, await post('/auth/login', { email, password: PASSWORD }, attacker));
  }
  const owner = newAddress();
  t.is((await post('/auth/login', { email, password: PASSWORD }, owner)).statusCode, 200);
  t.is((await post('/auth/cli/login', { email, password: PASSWORD }, owner)).statusCode, 200);
  t.is((await post('/auth/login-otp', { email, otp: '000000' }, owner)).statusCode, 401);
  t.is((await post('/auth/reset-password', { email, otp: '000000', new_password: 'the owner password' }, owner)).statusCode, 401);
});

test('ten, twenty successful cli logins in a row never lock the script out', async (t) => {
  const email = await registered();
  const from = newAddress();
  for (let i = 0; i < 20; i++) t.is((await post('/auth/cli/login', { email, password: PASSWORD }, from)).statusCode, 200, `cli login ${i + 1}`);
  for (let i = 0; i < 20; i++) t.is((await post('/auth/login', { email, password: PASSWORD }, from)).statusCode, 200, `login ${i + 1}`);
});

test('a success resets the count of its email and address', async (t) => {
  const email = await registered();
  const from = newAddress();
  for (let i = 0; i < 9; i++) t.is((await post('/auth/login', { email, password: 'a wrong password' }, from)).statusCode, 401);
  t.is((await post('/auth/cli/login', { email, password: PASSWORD }, from)).statusCode, 200);
  // Ten more failures are allowed again, then the budget is spent.
  for (let i = 0; i < 10; i++) t.is((await post('/auth/login', { email, password: 'a wrong password' }, from)).statusCode, 401, `failure ${i + 1} after the success`);
  assert429(t, await post('/auth/login', { email, password: PASSWORD }, from));
});

test('password, code, reset and mail routes have budgets of their own', async (t) => {
  const email = await registered();
  const from = newAddress();
  // Codes: login-otp and verify-otp share one budget.
  for (let i = 0; i < 10; i++) t.is((await post(i % 2 ? '/auth/verify-otp' : '/auth/login-otp', { email, otp: '000000' }, from)).statusCode, 401);
  assert429(t, await post('/auth/login-otp', { email, otp: '000000' }, from));
  assert429(t, await post('/auth/verify-otp', { email, otp: '000000' }, from));
  // ... which is not the password's, the reset's or the mails'.
  t.is((await post('/auth/login', { email, password: PASSWORD }, from)).statusCode, 200);
  t.is((await post('/auth/reset-password', { email, otp: '000000', new_password: 'another password' }, from)).statusCode, 401);
  t.is((await post('/auth/request-otp', { email }, from)).statusCode, 200);
  // Passwords.
  for (let i = 0; i < 10; i++) t.is((await post('/auth/login', { email, password: 'a wrong password' }, from)).statusCode, 401);
  assert429(t, await post('/auth/cli/login', { email, password: PASSWORD }, from));
  // Resets.
  for (let i = 0; i < 9; i++) t.is((await post('/auth/reset-password', { email, otp: '000000', new_password: 'another password' }, from)).statusCode, 401);
  assert429(t, await post('/auth/reset-password', { email, otp: '000000', new_password: 'another password' }, from));
  t.is((await post('/auth/forgot-password', { email }, from)).statusCode, 200);
});

test('fifty failures from one address, whatever the emails, then 429 on that group; other addresses go on', async (t) => {
  const from = newAddress();
  for (let i = 0; i < 50; i++) t.is((await post('/auth/login-otp', { email: newEmail(), otp: '123456' }, from)).statusCode, 401);
  assert429(t, await post('/auth/login-otp', { email: newEmail(), otp: '123456' }, from));
  assert429(t, await post('/auth/verify-otp', { email: newEmail(), otp: '123456' }, from));
  t.is((await post('/auth/login-otp', { email: newEmail(), otp: '123456' }, newAddress())).statusCode, 401);
});

test('code mails: ten per email from anywhere and fifty per address, then 429', async (t) => {
  const email = await registered();
  for (let i = 0; i < 10; i++) t.is((await post(i % 2 ? '/auth/request-otp' : '/auth/forgot-password', { email }, newAddress())).statusCode, 200);
  assert429(t, await post('/auth/request-otp', { email }, newAddress()));
  assert429(t, await post('/auth/forgot-password', { email }, newAddress()));
  const from = newAddress();
  for (let i = 0; i < 50; i++) t.is((await post('/auth/request-otp', { email: newEmail() }, from)).statusCode, 200);
  assert429(t, await post('/auth/request-otp', { email: newEmail() }, from));
  t.is((await post('/auth/request-otp', { email: newEmail() }, newAddress())).statusCode, 200);
});

test('registration: ten per address per hour, then 429 with Retry-After, before any work (even for a taken email)', async (t) => {
  const limited = await startGateway({ queue: 'memory', clock: gw.app.clock, env: { REGISTER_RATE_PER_ADDRESS: '10' } });
  try {
    const register = (email: string, remoteAddress: string) =>
      limited.server.inject({ method: 'POST', url: '/auth/register', payload: { email, password: PASSWORD }, remoteAddress });
    const from = newAddress();
    const taken = newEmail();
    t.is((await register(taken, from)).statusCode, 201);
    t.is((await register(taken, from)).statusCode, 409);
    for (let i = 0; i < 8; i++) t.is((await register(newEmail(), from)).statusCode, 201);
    assert429(t, await register(newEmail(), from), 3600);
    assert429(t, await register(taken, from), 3600);
    t.is(Number((await limited.app.db('users').count({ n: '*' }).first())!.n), 9);
    t.is((await register(newEmail(), newAddress())).statusCode, 201);
  } finally {
    await limited.stop();
  }
});

test('the counters are shared by every API process on the database', async (t) => {
  // A second gateway process on the same database.
  const other = await createApp(loadConfig(gw.env), { log: pino({ level: 'silent' }) });
  const otherServer = await createServer(other);
  await otherServer.initialize();
  try {
    const email = await registered();
    for (let i = 0; i < 10; i++) {
      const server = i % 2 === 0 ? gw.server : otherServer;
      t.is((await server.inject({ method: 'POST', url: '/auth/request-otp', payload: { email }, remoteAddress: newAddress() })).statusCode, 200);
    }
    assert429(t, await otherServer.inject({ method: 'POST', url: '/auth/request-otp', payload: { email }, remoteAddress: newAddress() }));
    assert429(t, await gw.server.inject({ method: 'POST', url: '/auth/request-otp', payload: { email }, remoteAddress: newAddress() }));
  } finally {
    await otherServer.stop();
    await other.close();
  }
});

test('X-Forwarded-For is believed only from a trusted proxy', async (t) => {
  const proxied = await startGateway({ queue: 'memory', env: { TRUSTED_PROXIES: '10.0.0.1,192.168.0.0/16', AUTH_RATE_PER_ADDRESS: '2' } });
  try {
    const ask = (remoteAddress: string, xff: string) => proxied.server.inject({
      method: 'POST', url: '/auth/request-otp', payload: { email: newEmail() }, remoteAddress, headers: { 'x-forwarded-for': xff },
    });
    // Through the trusted proxies, the client is the nearest untrusted hop; what it claims before that is ignored.
    t.is((await ask('10.0.0.1', '1.1.1.1, 203.0.113.5, 192.168.4.4')).statusCode, 200);
    t.is((await ask('10.0.0.1', '2.2.2.2, 203.0.113.5')).statusCode, 200);
    assert429(t, await ask('192.168.9.9', '203.0.113.5'));
    t.is((await ask('10.0.0.1', '203.0.113.6')).statusCode, 200);
    // From an untrusted peer, a rotating header changes nothing.
    t.is((await ask('198.51.100.7', '203.0.113.7')).statusCode, 200);
    t.is((await ask('198.51.100.7', '203.0.113.8')).statusCode, 200);
    assert429(t, await ask('198.51.100.7', '203.0.113.9'));
  } finally {
    await proxied.stop();
  }
});

test('an IPv6 client is counted by its /64; IPv4-mapped addresses as IPv4', (t) => {
  const req = (remoteAddress: string, xff?: string) => ({ info: { remoteAddress }, headers: xff ? { 'x-forwarded-for': xff } : {} }) as unknown as Parameters<typeof clientAddress>[0];
  t.is(clientAddress(req('2001:db8:1:2:aaaa::1'), []), clientAddress(req('2001:db8:1:2:bbbb::9'), []));
  t.not(clientAddress(req('2001:db8:1:2::1'), []), clientAddress(req('2001:db8:1:3::1'), []));
  t.is(clientAddress(req('::ffff:203.0.113.5'), []), '203.0.113.5');
  t.is(clientAddress(req('10.0.0.1', 'garbage, 203.0.113.5'), ['10.0.0.1']), '203.0.113.5');
  t.is(clientAddress(req('10.0.0.1', '203.0.113.5'), []), '10.0.0.1');
});

test('two gateways in one process each clear their own database\'s ended windows', async (t) => {
  const gateways = [await startGateway({ db: 'sqlite', queue: 'memory' }), await startGateway({ db: 'sqlite', queue: 'memory' })];
  t.teardown(() => Promise.all(gateways.map((g) => g.stop())));
  const ended = Date.now() - 2 * WINDOW_MS;
  for (const g of gateways) await g.app.db('rate_limits').insert({ bucket: 'password-addr:ended', window_start: ended, hits: 3 });
  for (const g of gateways) {
    const res = await g.server.inject({ method: 'POST', url: '/auth/login', payload: { email: newEmail(), password: 'a wrong password' }, remoteAddress: newAddress() });
    t.is(res.statusCode, 401);
  }
  // The sweep runs beside the request that started it.
  for (const g of gateways) {
    for (let i = 0; i < 100 && (await g.app.db('rate_limits').where({ bucket: 'password-addr:ended' })).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    t.deepEqual(await g.app.db('rate_limits').where({ bucket: 'password-addr:ended' }), []);
  }
});
