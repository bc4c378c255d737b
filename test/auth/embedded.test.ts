// The same migrations and queries on the embedded default (SQLite, no SMTP_URL): codes come
// from the log, the counters and code upserts use SQLite's ON CONFLICT.
import test from 'ava';
import { Writable } from 'node:stream';
import pino from 'pino';
import { startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { LOGGED_MAIL_MESSAGE } from '../../workers/mail.ts';

let gw: TestGateway;
const lines: string[] = [];

test.before(async () => {
  const sink = new Writable({ write(chunk: Buffer, _enc, done) { lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)); done(); } });
  gw = await startGateway({ db: 'sqlite', queue: 'memory', log: pino({ level: 'info' }, sink) });
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
  t.is((await post('/auth/verify-otp', { email, otp: await loggedCode(email, 1) })).statusCode, 200);
  await post('/auth/request-otp', { email });
  await post('/auth/request-otp', { email });
  const superseded = await loggedCode(email, 2);
  const code = await loggedCode(email, 3);
  if (superseded !== code) t.is((await post('/auth/login-otp', { email, otp: superseded })).statusCode, 401);
  const login = await post('/auth/login-otp', { email, otp: code });
  t.is(login.statusCode, 200);
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

test.serial('the eleventh attempt for one email is 429 on SQLite', async (t) => {
  const email = 'limited@example.com';
  for (let i = 0; i < 10; i++) t.is((await post('/auth/request-otp', { email })).statusCode, 200);
  const res = await post('/auth/request-otp', { email });
  t.is(res.statusCode, 429);
  t.truthy(res.headers['retry-after']);
});
