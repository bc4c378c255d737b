// The same migrations and queries on the embedded default (SQLite, no SMTP_URL): codes come
// from the log, the counters and code upserts use SQLite's ON CONFLICT.
import test from 'ava';
import { Writable } from 'node:stream';
import pino from 'pino';
import { startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { LOGGED_MAIL_MESSAGE } from '../../lib/mail.ts';

let gw: TestGateway;
const lines: string[] = [];

// The attempt budgets use fixed 15-minute windows: the clock starts one second into one, so a
// run near a boundary does not see its counters reset half-way.
const WINDOW_MS = 15 * 60 * 1000;
const realStart = Date.now();
const clockStart = realStart - (realStart % WINDOW_MS) + WINDOW_MS + 1000;

test.before(async () => {
  const sink = new Writable({ write(chunk: Buffer, _enc, done) { lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)); done(); } });
  gw = await startGateway({ db: 'sqlite', queue: 'memory', log: pino({ level: 'info' }, sink), env: { SIGNUP_CREDIT: '1000' }, clock: () => clockStart + (Date.now() - realStart) });
});
test.after.always(async () => {
  await gw?.stop();
});

const post = (url: string, payload: object, headers: Record<string, string> = {}) => gw.server.inject({ method: 'POST', url, payload, headers });

async function loggedCode(email: string, nth: number): Promise<string> {
  const mails = await waitFor(() => {
    const found = lines.map((l) => JSON.parse(l) as { msg: string; mail?: { to: string; text: string } }).filter((l) => l.msg === LOGGED_MAIL_MESSAGE && l.mail?.to === email);
    return found.length >= nth ? found : undefined;
  }, { what: `mail ${nth} to ${email}` });
  return /code is (\d{6})/.exec(mails[nth - 1]!.mail!.text)![1]!;
}

test.serial('codes, reset and logout work on SQLite', async (t) => {
  const email = 'embedded@example.com';
  t.is((await post('/auth/register', { email: ' Embedded@Example.com', password: 'first password' })).statusCode, 201);
  t.is((await post('/auth/register', { email, password: 'first password' })).statusCode, 409);
  const balance = async () => Number((await gw.app.db('users').where({ email }).first()).balance);
  t.is(await balance(), 0);
  t.is((await post('/auth/verify-otp', { email, otp: await loggedCode(email, 1) })).statusCode, 200);
  // The sign-up credit comes with the verified address, once.
  t.is(await balance(), 1000);
  await post('/auth/request-otp', { email });
  await post('/auth/request-otp', { email });
  const older = await loggedCode(email, 2);
  const newer = await loggedCode(email, 3);
  // Both codes work until one is used (mails can overtake each other); then neither does.
  const login = await post('/auth/login-otp', { email, otp: older });
  t.is(login.statusCode, 200);
  t.is((await post('/auth/login-otp', { email, otp: newer })).statusCode, 401);
  t.is(await balance(), 1000);
  const token = (login.result as { access_token: string }).access_token;
  const auth = { authorization: `Bearer ${token}` };
  t.is((await post('/auth/logout', {}, auth)).statusCode, 200);
  t.is((await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: auth })).statusCode, 401);
  const other = (await post('/auth/login', { email, password: 'first password' })).result as { access_token: string };
  await post('/auth/forgot-password', { email });
  t.is((await post('/auth/reset-password', { email, otp: await loggedCode(email, 4), new_password: 'second password' })).statusCode, 200);
  t.is((await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: { authorization: `Bearer ${other.access_token}` } })).statusCode, 401);
  t.is((await post('/auth/login', { email, password: 'second password' })).statusCode, 200);
});

test.serial('the eleventh code mail for one email is 429 on SQLite; a success resets a failure count', async (t) => {
  const email = 'limited@example.com';
  for (let i = 0; i < 10; i++) t.is((await post('/auth/request-otp', { email })).statusCode, 200);
  const res = await post('/auth/request-otp', { email });
  t.is(res.statusCode, 429);
  t.truthy(res.headers['retry-after']);
  const owner = 'embedded@example.com';
  for (let i = 0; i < 9; i++) t.is((await post('/auth/login', { email: owner, password: 'wrong password' })).statusCode, 401);
  t.is((await post('/auth/login', { email: owner, password: 'second password' })).statusCode, 200);
  for (let i = 0; i < 10; i++) t.is((await post('/auth/login', { email: owner, password: 'wrong password' })).statusCode, 401);
  t.is((await post('/auth/login', { email: owner, password: 'second password' })).statusCode, 429);
});

test('on SQLite, Google sign-in starts are counted per client address: the 51st in a window is 429, before the route runs', async (t) => {
  const start = () => gw.server.inject({ method: 'GET', url: '/auth/get-google-url', remoteAddress: '10.50.0.1' });
  // not configured here: each start is 503, and still counts
  for (let i = 0; i < 50; i++) t.is((await start()).statusCode, 503);
  const refused = await start();
  t.is(refused.statusCode, 429);
  t.truthy(refused.headers['retry-after']);
});
