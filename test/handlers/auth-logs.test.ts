// No password, code or token in any log line (the gateway logs at trace level here), except
// the one place a code is meant to be: the logged mail of a gateway without SMTP_URL whose
// MAIL_TO_LOG is on (the embedded default's setting; off with MariaDB). MariaDB.
import test from 'ava';
import { captureLog } from '../helpers/logs.ts';
import { startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { startSmtp } from '../helpers/smtp.ts';
import { DROPPED_MAIL_MESSAGE, LOGGED_MAIL_MESSAGE, mailStartupWarning } from '../../lib/mail.ts';
import { loadConfig } from '../../config.ts';

const capture = () => captureLog('trace');

async function json(gw: TestGateway, method: 'GET' | 'POST', url: string, payload?: object, headers: Record<string, string> = {}) {
  const res = await gw.server.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  return { status: res.statusCode, body: res.result as Record<string, unknown>, payload: res.payload };
}

test('with SMTP, no password, code, session token or key reaches the log, on success or failure', async (t) => {
  const smtp = await startSmtp();
  const { lines, log } = capture();
  const gw = await startGateway({ queue: 'memory', log, env: { SMTP_URL: smtp.url, LOG_LEVEL: 'trace' } });
  const secrets: string[] = [];
  try {
    const email = 'logs@example.com';
    const password = 'Pa55word-never-logged';
    const newPassword = 'N3w-password-never-logged';
    secrets.push(password, newPassword);
    t.is((await json(gw, 'POST', '/auth/register', { email, password })).status, 201);
    secrets.push(await smtp.code(email));
    t.is((await json(gw, 'POST', '/auth/login', { email, password: `${password}-wrong` })).status, 401);
    secrets.push(`${password}-wrong`);
    const login = await json(gw, 'POST', '/auth/login', { email, password });
    const token = String(login.body.access_token);
    secrets.push(token);
    const cli = await json(gw, 'POST', '/auth/cli/login', { email, password });
    secrets.push(String(cli.body.api_key));
    await json(gw, 'POST', '/auth/request-otp', { email });
    const otp = await smtp.code(email);
    secrets.push(otp);
    await json(gw, 'POST', '/auth/login-otp', { email, otp: otp === '999999' ? '999998' : '999999' });
    const otpLogin = await json(gw, 'POST', '/auth/login-otp', { email, otp });
    secrets.push(String(otpLogin.body.access_token));
    t.is((await json(gw, 'POST', '/auth/logout', {}, { authorization: `Bearer ${String(otpLogin.body.access_token)}` })).status, 200);
    await json(gw, 'POST', '/auth/forgot-password', { email });
    const resetCode = await smtp.code(email);
    secrets.push(resetCode);
    t.is((await json(gw, 'POST', '/auth/reset-password', { email, otp: resetCode, new_password: newPassword })).status, 200);
    t.is((await json(gw, 'POST', '/auth/logout', {}, { authorization: `Bearer ${token}` })).status, 401);
    t.is((await json(gw, 'GET', '/app/user_details', undefined, { authorization: `Bearer ${token}` })).status, 401);
    // Google unconfigured; a forged ID token on the way.
    await json(gw, 'POST', '/auth/google/mobile', { id_token: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln' });
    secrets.push('eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln');
  } finally {
    await gw.stop();
    await smtp.close();
  }
  // The routes do log: every security event, each without its secrets.
  const events = new Set(lines.map((l) => (JSON.parse(l) as { event?: string }).event));
  for (const e of ['registered', 'signed_in', 'sign_in_refused', 'signed_out', 'code_sent', 'code_refused', 'email_verified', 'password_reset']) t.true(events.has(e), e);
  for (const secret of secrets) {
    t.false(lines.some((l) => l.includes(secret)), `a log line contains ${secret.slice(0, 6)}…`);
  }
});

test('a failed mail is logged without its content', async (t) => {
  const { lines, log } = capture();
  const gw = await startGateway({ queue: 'memory', log, env: { SMTP_URL: 'smtp://127.0.0.1:1' } });
  try {
    await json(gw, 'POST', '/auth/register', { email: 'nomail@example.com', password: 'a long password' });
    const failure = await waitFor(() => lines.find((l) => l.includes('mail could not be sent')), { what: 'the failure log line' });
    t.notRegex(failure, /\b\d{6}\b/);
    t.false(failure.includes('a long password'));
  } finally {
    await gw.stop();
  }
});

test('without SMTP_URL and with MAIL_TO_LOG on, the mail, code included, is logged at info under a clear marker, and nowhere else', async (t) => {
  const { lines, log } = capture();
  const gw = await startGateway({ queue: 'memory', log, env: { LOG_LEVEL: 'trace', MAIL_TO_LOG: 'on' } });
  try {
    const email = 'local@example.com';
    const password = 'local password, not logged';
    await json(gw, 'POST', '/auth/register', { email, password });
    await json(gw, 'POST', '/auth/request-otp', { email });
    const mails = await waitFor(() => {
      const found = lines.map((l) => JSON.parse(l) as { msg: string; level: number; mail?: { to: string; text: string } }).filter((l) => l.msg === LOGGED_MAIL_MESSAGE);
      return found.length === 2 ? found : undefined;
    }, { what: 'two logged mails' });
    for (const m of mails) {
      t.is(m.level, 30);
      t.is(m.mail!.to, email);
    }
    const code = /code is (\d{6})/.exec(mails[1]!.mail!.text)![1]!;
    // The point: a local user signs in with the code from the log.
    const res = await json(gw, 'POST', '/auth/login-otp', { email, otp: code });
    t.is(res.status, 200);
    t.false(lines.some((l) => l.includes(String(res.body.access_token))));
    t.false(lines.some((l) => l.includes(password)));
    t.true(lines.filter((l) => l.includes(code)).every((l) => l.includes(LOGGED_MAIL_MESSAGE)));
  } finally {
    await gw.stop();
  }
});

test('with DATABASE_URL and no SMTP_URL (MAIL_TO_LOG off by default), a mail is dropped: a warning with its subject, never its text or address', async (t) => {
  const { lines, log } = capture();
  const gw = await startGateway({ queue: 'memory', log, env: { LOG_LEVEL: 'trace' } });
  try {
    t.false(gw.app.config.mail.toLog);
    const email = 'shared-logs@example.com';
    t.is((await json(gw, 'POST', '/auth/register', { email, password: 'a long password' })).status, 201);
    t.is((await json(gw, 'POST', '/auth/request-otp', { email })).status, 200);
    t.is((await json(gw, 'POST', '/auth/forgot-password', { email })).status, 200);
    const dropped = await waitFor(() => {
      const found = lines.map((l) => JSON.parse(l) as { msg: string; level: number; mail?: Record<string, unknown> }).filter((l) => l.msg === DROPPED_MAIL_MESSAGE);
      return found.length === 3 ? found : undefined;
    }, { what: 'three dropped mails' });
    for (const d of dropped) {
      t.is(d.level, 40);
      t.deepEqual(Object.keys(d.mail!), ['subject']);
    }
    // request-otp and forgot-password mail after their answers, so those two can log in either order
    t.deepEqual(dropped.map((d) => d.mail!.subject).sort(), ['Your mediagate one-time code', 'Your mediagate one-time code', 'Your mediagate password reset code']);
    t.false(lines.some((l) => l.includes(LOGGED_MAIL_MESSAGE) || l.includes('code is')));
    t.false(lines.some((l) => l.includes(email)));
  } finally {
    await gw.stop();
  }
});

test('an API process whose mail goes nowhere says so once at start-up; with SMTP_URL or MAIL_TO_LOG on it says nothing', (t) => {
  const mysql = { DATABASE_URL: 'mysql://gw:pw@db.local/gateway', ENCRYPTION_KEY: 'ab'.repeat(32) };
  t.regex(mailStartupWarning(loadConfig(mysql).mail) ?? '', /^SMTP_URL is not set: one-time codes, password resets and team invites are not mailed/);
  t.is(mailStartupWarning(loadConfig({ ...mysql, SMTP_URL: 'smtp://mail.example.com:587' }).mail), undefined);
  t.is(mailStartupWarning(loadConfig({ ...mysql, MAIL_TO_LOG: 'on' }).mail), undefined);
  t.is(mailStartupWarning(loadConfig({}).mail), undefined);
});

test('a refused budget is logged once, as a warning naming the budget and the route (x-rate-limit)', async (t) => {
  const { lines, log } = capture();
  const gw = await startGateway({ queue: 'memory', log, env: { REGISTER_RATE_PER_ADDRESS: '1' } });
  try {
    t.is((await json(gw, 'POST', '/auth/register', { email: 'budget-1@example.com', password: 'a long password' })).status, 201);
    t.is((await json(gw, 'POST', '/auth/register', { email: 'budget-2@example.com', password: 'a long password' })).status, 429);
  } finally {
    await gw.stop();
  }
  const entries = lines.map((l) => JSON.parse(l) as { event?: string; level: number; route?: string; budget?: string });
  const limited = entries.filter((l) => l.event === 'rate_limited');
  t.is(limited.length, 1);
  t.like(limited[0], { level: 40, route: 'register', budget: 'registration per address' });
  // The refused request did no work: one account, one `registered` line.
  t.is(entries.filter((l) => l.event === 'registered').length, 1);
});
