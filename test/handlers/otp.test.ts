// One-time codes through a real local SMTP server: the gateway mails them with nodemailer,
// the test reads them out of the received messages. MariaDB; the clock is the test's.
import test from 'ava';
import crypto from 'node:crypto';
import { startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { startSmtp } from '../helpers/smtp.ts';
import type { SmtpCapture } from '../helpers/smtp.ts';
import { verifyEmail } from '../../db/users.ts';

let gw: TestGateway;
let smtp: SmtpCapture;
let offsetMs = 0;

test.before(async () => {
  smtp = await startSmtp();
  gw = await startGateway({
    queue: 'memory',
    clock: () => Date.now() + offsetMs,
    // Every request here comes from one address; the address budget has its own tests (policies-rate-limit.test.ts).
    env: { SMTP_URL: smtp.url, MAIL_FROM: 'mediagate <codes@gateway.test>', AUTH_RATE_PER_ADDRESS: '1000', SIGNUP_CREDIT: '250' },
  });
});
test.after.always(async () => {
  await gw?.stop();
  await smtp?.close();
});

const PASSWORD = 'the first password';
const post = (url: string, payload: object, remoteAddress?: string) => gw.server.inject({ method: 'POST', url, payload, ...(remoteAddress ? { remoteAddress } : {}) });

function newEmail(): string {
  return `otp-${crypto.randomBytes(5).toString('hex')}@example.com`;
}

/** A registered account; its verification code (mailed at registration) is read and discarded. */
async function registered(): Promise<{ email: string; id: number }> {
  const email = newEmail();
  const res = await post('/auth/register', { email, password: PASSWORD });
  if (res.statusCode !== 201) throw new Error(res.payload);
  await smtp.code(email);
  return { email, id: (res.result as { id: number }).id };
}

async function me(token: string) {
  return gw.server.inject({ method: 'GET', url: '/app/user_details', headers: { authorization: `Bearer ${token}` } });
}

function wrong(code: string): string {
  return String((Number(code) + 1) % 1_000_000).padStart(6, '0');
}

test('registration mails a code that verifies the address', async (t) => {
  const email = newEmail();
  const reg = await post('/auth/register', { email, password: PASSWORD });
  t.is(reg.statusCode, 201);
  t.false((reg.result as { email_verified: boolean }).email_verified);
  const code = await smtp.code(email);
  const mail = smtp.messages.find((m) => m.to.includes(email))!;
  t.regex(mail.raw, /From: mediagate <codes@gateway\.test>/);
  t.regex(mail.raw, /expires in 10 minutes/);
  const res = await post('/auth/verify-otp', { email, otp: code });
  t.is(res.statusCode, 200, res.payload);
  t.is((res.result as { email: string }).email, email);
  t.true((res.result as { email_verified: boolean }).email_verified);
  t.true(Boolean((await gw.app.db('users').where({ email }).first()).email_verified));
});

test('request-otp mails a code; login-otp exchanges it once for a working session', async (t) => {
  const { email, id } = await registered();
  const sent = await post('/auth/request-otp', { email });
  t.is(sent.statusCode, 200);
  const code = await smtp.code(email);
  t.regex(code, /^\d{6}$/);
  const login = await post('/auth/login-otp', { email: `  ${email.toUpperCase()} `, otp: code });
  t.is(login.statusCode, 200, login.payload);
  const session = login.result as { access_token: string; token_type: string; expires_in: number };
  t.is(session.token_type, 'bearer');
  const who = await me(session.access_token);
  t.is(who.statusCode, 200);
  t.is((who.result as { id: number }).id, id);
  // The code proved the mailbox.
  t.true((who.result as { email_verified: boolean }).email_verified);
  const again = await post('/auth/login-otp', { email, otp: code });
  t.is(again.statusCode, 401);
});

test('codes are stored as digests, never as the code', async (t) => {
  const { email, id } = await registered();
  await post('/auth/request-otp', { email });
  const code = await smtp.code(email);
  const rows = await gw.app.db('otp_codes').where({ user_id: id });
  t.is(rows.length, 2); // the registration's code and this one
  t.false(JSON.stringify(rows).includes(code));
  for (const row of rows) t.regex(row.code_hash, /^[0-9a-f]{64}$/);
});

test('a stored digest gives the code back to no one without the gateway\'s key: no unkeyed hash of any six digits is it', async (t) => {
  const { email, id } = await registered();
  await post('/auth/request-otp', { email });
  const code = await smtp.code(email);
  const stored = new Set((await gw.app.db('otp_codes').where({ user_id: id })).map((r: { code_hash: string }) => r.code_hash));
  // what a reader of the table would try: SHA-256 of every code, bare and as the digest was made before
  const tries = (c: string) => [c, `mediagate-otp\0otp\0${id}\0${c}`].map((text) => crypto.createHash('sha256').update(text).digest('hex'));
  let found: string | undefined;
  for (let n = 0; n < 1_000_000 && found === undefined; n++) {
    const c = String(n).padStart(6, '0');
    if (tries(c).some((h) => stored.has(h))) found = c;
    // the other tests' mail keeps arriving meanwhile
    if (n % 20_000 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  t.is(found, undefined, `the code ${code} was read back from its digest`);
  // and the code still logs in
  const login = await post('/auth/login-otp', { email, otp: code });
  t.is(login.statusCode, 200, login.payload);
});

test('two quick requests: both mails arrive, the older code works while the newer is unused, and then neither works', async (t) => {
  const { email } = await registered();
  t.is((await post('/auth/request-otp', { email })).statusCode, 200);
  t.is((await post('/auth/request-otp', { email })).statusCode, 200);
  const older = await smtp.code(email);
  const newer = await smtp.code(email);
  t.is(smtp.count(email), 3);
  const login = await post('/auth/login-otp', { email, otp: older });
  t.is(login.statusCode, 200, login.payload);
  // Using one used them all.
  t.is((await post('/auth/login-otp', { email, otp: newer })).statusCode, 401);
  t.is((await post('/auth/verify-otp', { email, otp: older })).statusCode, 401);
});

test('using the newer code uses up the older one too', async (t) => {
  const { email } = await registered();
  await post('/auth/request-otp', { email });
  await post('/auth/request-otp', { email });
  const older = await smtp.code(email);
  const newer = await smtp.code(email);
  t.is((await post('/auth/login-otp', { email, otp: newer })).statusCode, 200);
  if (older !== newer) t.is((await post('/auth/login-otp', { email, otp: older })).statusCode, 401);
});

test('the registration code still verifies after a quick request-otp', async (t) => {
  const email = newEmail();
  t.is((await post('/auth/register', { email, password: PASSWORD })).statusCode, 201);
  t.is((await post('/auth/request-otp', { email })).statusCode, 200);
  const fromRegistration = await smtp.code(email);
  const requested = await smtp.code(email);
  const res = await post('/auth/verify-otp', { email, otp: fromRegistration });
  t.is(res.statusCode, 200, res.payload);
  t.true((res.result as { email_verified: boolean }).email_verified);
  if (requested !== fromRegistration) t.is((await post('/auth/login-otp', { email, otp: requested })).statusCode, 401);
});

test('only the last two codes are kept: a third request retires the first', async (t) => {
  const { email, id } = await registered();
  for (let i = 0; i < 3; i++) await post('/auth/request-otp', { email });
  const codes = [await smtp.code(email), await smtp.code(email), await smtp.code(email)];
  t.is((await gw.app.db('otp_codes').where({ user_id: id, purpose: 'otp' })).length, 2);
  if (codes[0] !== codes[1] && codes[0] !== codes[2]) t.is((await post('/auth/login-otp', { email, otp: codes[0]! })).statusCode, 401);
  t.is((await post('/auth/login-otp', { email, otp: codes[1]! })).statusCode, 200);
});

test('five wrong guesses lock both live codes', async (t) => {
  const { email } = await registered();
  await post('/auth/request-otp', { email });
  await post('/auth/request-otp', { email });
  const older = await smtp.code(email);
  const newer = await smtp.code(email);
  let guess = '000000';
  for (let i = 0; i < 5; i++) {
    while (guess === older || guess === newer) guess = wrong(guess);
    t.is((await post('/auth/login-otp', { email, otp: guess }, `10.9.1.${i + 1}`)).statusCode, 401);
    guess = wrong(guess);
  }
  t.is((await post('/auth/login-otp', { email, otp: older }, '10.9.1.9')).statusCode, 401);
  t.is((await post('/auth/login-otp', { email, otp: newer }, '10.9.1.10')).statusCode, 401);
});

test('the sign-up credit comes with the verified email, once', async (t) => {
  const email = newEmail();
  const reg = await post('/auth/register', { email, password: PASSWORD });
  const id = (reg.result as { id: number }).id;
  const balance = async () => Number((await gw.app.db('users').where({ id }).first()).balance);
  t.is(await balance(), 0);
  t.is((await post('/auth/verify-otp', { email, otp: await smtp.code(email) })).statusCode, 200);
  t.is(await balance(), 250);
  // Proving the mailbox again (a login code, a reset) grants nothing more.
  await post('/auth/request-otp', { email });
  t.is((await post('/auth/login-otp', { email, otp: await smtp.code(email) })).statusCode, 200);
  await post('/auth/forgot-password', { email });
  t.is((await post('/auth/reset-password', { email, otp: await smtp.code(email), new_password: 'a newer password' })).statusCode, 200);
  t.is(await balance(), 250);
  const ledger = await gw.app.db('credit_transactions').where({ user_id: id });
  t.is(ledger.length, 1);
  t.is(ledger[0].kind, 'signup');
  t.is(Number(ledger[0].amount), 250);
});

test('a reset code verifies the address and grants the sign-up credit', async (t) => {
  const { email, id } = await registered();
  await post('/auth/forgot-password', { email });
  t.is((await post('/auth/reset-password', { email, otp: await smtp.code(email), new_password: 'a newer password' })).statusCode, 200);
  const user = await gw.app.db('users').where({ id }).first();
  t.true(Boolean(user.email_verified));
  t.is(Number(user.balance), 250);
});

test('concurrent verifications grant the sign-up credit once', async (t) => {
  const { id } = await registered();
  const now = Date.now();
  const granted = await Promise.all(Array.from({ length: 8 }, () => gw.app.db.transaction((trx) => verifyEmail(trx, id, 250, now))));
  t.is(granted.filter(Boolean).length, 1);
  t.is(Number((await gw.app.db('users').where({ id }).first()).balance), 250);
  t.is((await gw.app.db('credit_transactions').where({ user_id: id, kind: 'signup' })).length, 1);
});

test.serial('a code expires after 10 minutes', async (t) => {
  const { email } = await registered();
  await post('/auth/request-otp', { email });
  const code = await smtp.code(email);
  offsetMs = 10 * 60 * 1000 + 1;
  try {
    t.is((await post('/auth/login-otp', { email, otp: code })).statusCode, 401);
  } finally {
    offsetMs = 0;
  }
  // Still unused: at 9 minutes 59 it would have worked.
  await post('/auth/request-otp', { email });
  const fresh = await smtp.code(email);
  offsetMs = 10 * 60 * 1000 - 1000;
  try {
    t.is((await post('/auth/login-otp', { email, otp: fresh })).statusCode, 200);
  } finally {
    offsetMs = 0;
  }
});

test('five wrong codes lock the code: the right one no longer works', async (t) => {
  const { email } = await registered();
  await post('/auth/request-otp', { email });
  const code = await smtp.code(email);
  // Each wrong guess from another address, so the per-address budget is not what stops them.
  for (let i = 0; i < 5; i++) t.is((await post('/auth/login-otp', { email, otp: wrong(code) }, `10.9.0.${i + 1}`)).statusCode, 401);
  const locked = await post('/auth/login-otp', { email, otp: code }, '10.9.0.9');
  t.is(locked.statusCode, 401);
  // A new code works again.
  await post('/auth/request-otp', { email }, '10.9.0.10');
  t.is((await post('/auth/login-otp', { email, otp: await smtp.code(email) }, '10.9.0.11')).statusCode, 200);
});

test('four wrong codes still leave the right one usable', async (t) => {
  const { email } = await registered();
  await post('/auth/request-otp', { email });
  const code = await smtp.code(email);
  for (let i = 0; i < 4; i++) await post('/auth/login-otp', { email, otp: wrong(code) });
  t.is((await post('/auth/login-otp', { email, otp: code })).statusCode, 200);
});

test('a login code does not reset a password, and a reset code does not log in', async (t) => {
  const { email } = await registered();
  await post('/auth/request-otp', { email });
  const loginCode = await smtp.code(email);
  t.is((await post('/auth/reset-password', { email, otp: loginCode, new_password: 'a new password' })).statusCode, 401);
  await post('/auth/forgot-password', { email });
  const resetCode = await smtp.code(email);
  t.is((await post('/auth/login-otp', { email, otp: resetCode })).statusCode, 401);
});

test('unknown emails get exactly the answers known ones get, and no mail', async (t) => {
  const { email } = await registered();
  const unknown = newEmail();
  for (const route of ['/auth/request-otp', '/auth/forgot-password']) {
    const known = await post(route, { email });
    const other = await post(route, { email: unknown });
    t.is(known.statusCode, 200);
    t.is(other.statusCode, known.statusCode);
    t.is(other.payload, known.payload);
    t.deepEqual(Object.keys(other.headers).sort(), Object.keys(known.headers).sort());
  }
  await smtp.code(email);
  await smtp.code(email);
  for (const route of ['/auth/login-otp', '/auth/verify-otp']) {
    const known = await post(route, { email, otp: '000000' });
    const other = await post(route, { email: unknown, otp: '000000' });
    t.is(known.statusCode, 401);
    t.is(other.statusCode, 401);
    t.is(other.payload, known.payload);
  }
  const reset = [await post('/auth/reset-password', { email, otp: '000000', new_password: 'whatever it is' }), await post('/auth/reset-password', { email: unknown, otp: '000000', new_password: 'whatever it is' })];
  t.is(reset[0]!.statusCode, 401);
  t.is(reset[1]!.payload, reset[0]!.payload);
  t.is(smtp.count(unknown), 0);
});

test('reset-password sets the new password and ends every session of the account', async (t) => {
  const { email } = await registered();
  const sessions = [];
  for (let i = 0; i < 2; i++) sessions.push((await post('/auth/login', { email, password: PASSWORD })).result as { access_token: string });
  for (const s of sessions) t.is((await me(s.access_token)).statusCode, 200);
  t.is((await post('/auth/forgot-password', { email: email.toUpperCase() })).statusCode, 200);
  const code = await smtp.code(email);
  const res = await post('/auth/reset-password', { email, otp: code, new_password: 'the second password' });
  t.is(res.statusCode, 200, res.payload);
  for (const s of sessions) t.is((await me(s.access_token)).statusCode, 401);
  t.is((await post('/auth/login', { email, password: PASSWORD })).statusCode, 401);
  t.is((await post('/auth/login', { email, password: 'the second password' })).statusCode, 200);
  // Single use.
  t.is((await post('/auth/reset-password', { email, otp: code, new_password: 'a third password' })).statusCode, 401);
});

test('reset-password validates the new password like registration', async (t) => {
  const res = await post('/auth/reset-password', { email: newEmail(), otp: '123456', new_password: 'short' });
  t.is(res.statusCode, 422);
  t.deepEqual((res.result as { detail: Array<{ loc: string[] }> }).detail.map((d) => d.loc), [['body', 'new_password']]);
  t.is((await post('/auth/login-otp', { email: newEmail(), otp: '12345' })).statusCode, 422);
  t.is((await post('/auth/request-otp', { email: 'not an email' })).statusCode, 422);
});

test('a mail server that is down does not change the answer', async (t) => {
  const down = await startGateway({ queue: 'memory', env: { SMTP_URL: 'smtp://127.0.0.1:1' } });
  try {
    await down.server.inject({ method: 'POST', url: '/auth/register', payload: { email: 'down@example.com', password: PASSWORD } });
    const res = await down.server.inject({ method: 'POST', url: '/auth/request-otp', payload: { email: 'down@example.com' } });
    t.is(res.statusCode, 200);
  } finally {
    await down.stop();
  }
});
