// Attempt budgets on the login, one-time-code and reset routes, with the default numbers
// (10 per email, 50 per client address, per 15 minutes), counted in the database. MariaDB.
import test from 'ava';
import crypto from 'node:crypto';
import pino from 'pino';
import { startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { loadConfig } from '../../config.ts';
import { createApp } from '../../app.ts';
import { createServer } from '../../server.ts';
import { clientAddress } from '../../handlers/rate-limit.ts';

let gw: TestGateway;
let offsetMs = 0;
// The limits use fixed 15-minute windows. A test started just before a window boundary would
// see its counters reset half-way, so the gateway's clock starts one second into a window.
const WINDOW_MS = 15 * 60 * 1000;
const realStart = Date.now();
const clockStart = realStart - (realStart % WINDOW_MS) + WINDOW_MS + 1000;

test.before(async () => {
  gw = await startGateway({ queue: 'memory', clock: () => clockStart + (Date.now() - realStart) + offsetMs });
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
  await gw.server.inject({ method: 'POST', url: '/auth/register', payload: { email, password: PASSWORD } });
  return email;
}

function assert429(t: import('ava').ExecutionContext, res: { statusCode: number; headers: Record<string, unknown>; result: unknown }) {
  t.is(res.statusCode, 429);
  const retryAfter = Number(res.headers['retry-after']);
  t.true(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 900, String(res.headers['retry-after']));
  t.deepEqual(res.result, { detail: `too many attempts, try again in ${retryAfter} seconds`, code: 'rate_limited' });
}

test.serial('the eleventh login for one email in a window is 429 with Retry-After, even with the right password, until the window ends', async (t) => {
  const email = await registered();
  const from = newAddress();
  for (let i = 0; i < 10; i++) t.is((await post('/auth/login', { email, password: 'a wrong password' }, from)).statusCode, 401);
  const blocked = await post('/auth/login', { email, password: PASSWORD }, from);
  assert429(t, blocked);
  // The email's budget, wherever the attempt comes from.
  assert429(t, await post('/auth/login', { email, password: PASSWORD }, newAddress()));
  // Another email from the same address is fine.
  const other = await registered();
  t.is((await post('/auth/login', { email: other, password: PASSWORD }, from)).statusCode, 200);
  // When the window is over, the email gets a new budget.
  offsetMs = Number(blocked.headers['retry-after']) * 1000;
  try {
    t.is((await post('/auth/login', { email, password: PASSWORD }, from)).statusCode, 200);
  } finally {
    offsetMs = 0;
  }
});

test('every guarded route counts against the same per-email budget', async (t) => {
  const email = await registered();
  const from = newAddress();
  const routes: Array<[string, object]> = [
    ['/auth/login', { email, password: 'a wrong password' }],
    ['/auth/cli/login', { email, password: 'a wrong password' }],
    ['/auth/request-otp', { email }],
    ['/auth/login-otp', { email, otp: '000000' }],
    ['/auth/verify-otp', { email, otp: '000000' }],
    ['/auth/forgot-password', { email }],
    ['/auth/reset-password', { email, otp: '000000', new_password: 'another password' }],
  ];
  for (let i = 0; i < 10; i++) {
    const [url, body] = routes[i % routes.length]!;
    t.not((await post(url, body, from)).statusCode, 429, url);
  }
  for (const [url, body] of routes) assert429(t, await post(url, body, from));
});

test('fifty attempts from one address, whatever the emails, then 429; other addresses go on', async (t) => {
  const from = newAddress();
  for (let i = 0; i < 50; i++) t.is((await post('/auth/request-otp', { email: newEmail() }, from)).statusCode, 200);
  assert429(t, await post('/auth/request-otp', { email: newEmail() }, from));
  assert429(t, await post('/auth/login', { email: newEmail(), password: PASSWORD }, from));
  t.is((await post('/auth/request-otp', { email: newEmail() }, newAddress())).statusCode, 200);
});

test('registration is not counted', async (t) => {
  const from = newAddress();
  const email = newEmail();
  for (let i = 0; i < 12; i++) {
    const res = await gw.server.inject({ method: 'POST', url: '/auth/register', payload: { email, password: PASSWORD }, remoteAddress: from });
    t.is(res.statusCode, i === 0 ? 201 : 409);
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
