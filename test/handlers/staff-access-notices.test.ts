// Staff acting for an account (virtualLogin, adminSupportLoginLink, adminPasswordResetLink) mail
// its verified address a notice: what happened, when, the reason and the staff role, never a
// token or link. Through a real local SMTP server; a second gateway whose SMTP server is down
// shows the staff action still succeeds. STAFF_ACCESS_NOTICES=off sends none.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { captureLog } from '../helpers/logs.ts';
import { waitFor } from '../helpers/services.ts';
import { startSmtp } from '../helpers/smtp.ts';
import type { SmtpCapture } from '../helpers/smtp.ts';

let smtp: SmtpCapture;
let gw: TestGateway;
const now = Date.UTC(2026, 10, 24, 12, 5);
const staff: Record<'support' | 'admin', Account> = {} as never;
const NOTICE_SUBJECT = /^Subject: mediagate: (a staff member signed in to your account|staff made a (sign-in|password reset) link for your account)/m;

async function account(g: TestGateway, verified: boolean): Promise<Account & { email: string }> {
  const acct = await newAccount(g, 0, { emailVerified: verified });
  const row = await g.app.db('users').where({ id: acct.userId }).first('email');
  return { ...acct, email: String(row.email) };
}

async function makeStaff(g: TestGateway, role: 'support' | 'admin'): Promise<Account> {
  const acct = await newAccount(g);
  await g.app.db('users').where({ id: acct.userId }).update({ role });
  return acct;
}

/** A mail's text: quoted-printable soft breaks and escapes undone, so a test reads it as written. */
const textOf = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
const noticesTo = (to: string) => smtp.messages.filter((m) => m.to.includes(to.toLowerCase()) && NOTICE_SUBJECT.test(m.raw)).map((m) => textOf(m.raw));

test.before(async () => {
  smtp = await startSmtp();
  gw = await startGateway({ queue: 'memory', clock: () => now, env: { SMTP_URL: smtp.url, PUBLIC_URL: 'https://gateway.example' } });
  staff.support = await makeStaff(gw, 'support');
  staff.admin = await makeStaff(gw, 'admin');
});
test.after.always(async () => {
  await gw?.stop();
  await smtp?.close();
});

const actions = [
  { op: 'virtualLogin', as: 'support', says: 'A staff member with the support role signed in to your account' },
  { op: 'adminSupportLoginLink', as: 'admin', says: 'A staff member with the admin role made a link that signs in to your account' },
  { op: 'adminPasswordResetLink', as: 'support', says: 'A staff member with the support role made a link to reset your password' },
] as const;

for (const a of actions) {
  test.serial(`${a.op} mails a verified account once, with the reason, the role and the time, and no token or link`, async (t) => {
    const target = await account(gw, true);
    const res = await callOperation<string | { url: string }>(gw, a.op, { as: staff[a.as].session, body: { email: target.email, reason: 'ticket 4711 from the chat' } });
    t.is(res.status, 200);
    const secret = typeof res.body === 'string' ? res.body : new URLSearchParams(res.body.url.split('?')[1]).get('token')!;
    const [mail] = await waitFor(() => { const m = noticesTo(target.email); return m.length > 0 && m; }, { what: 'the notice' });
    t.true(mail!.includes(a.says), mail);
    t.true(mail!.includes('ticket 4711 from the chat'));
    t.true(mail!.includes('2026-11-24 12:05 UTC'));
    t.true(mail!.includes('Account page'));
    t.false(mail!.includes(secret.slice(4, 20)), 'no token');
    t.false(mail!.includes('mgl_') || mail!.includes('mgs_') || mail!.includes('http'), 'no token or link');
    // no staff identity either
    const staffEmail = String((await gw.app.db('users').where({ id: staff[a.as].userId }).first('email')).email);
    t.false(mail!.includes(staffEmail));
    await new Promise((r) => setTimeout(r, 300));
    t.is(noticesTo(target.email).length, 1, 'once');
  });
}

test.serial('an address in the reason is written as the account it names, as on the staff-access list', async (t) => {
  const target = await account(gw, true);
  const res = await callOperation(gw, 'adminPasswordResetLink', { as: staff.support.session, body: { email: target.email, reason: 'asked by nobody-known@example.org' } });
  t.is(res.status, 200);
  const [mail] = await waitFor(() => { const m = noticesTo(target.email); return m.length > 0 && m; }, { what: 'the notice' });
  t.true(mail!.includes('asked by [address]'), mail);
  t.false(mail!.includes('nobody-known@example.org'));
});

test.serial('an unverified account is not mailed', async (t) => {
  const target = await account(gw, false);
  for (const a of actions) {
    t.is((await callOperation(gw, a.op, { as: staff.admin.session, body: { email: target.email, reason: 'ticket 1' } })).status, 200);
  }
  // a verified account's notice made after them has arrived, so theirs would have by now too
  const witness = await account(gw, true);
  await callOperation(gw, 'virtualLogin', { as: staff.admin.session, body: { email: witness.email, reason: 'ticket 2' } });
  await waitFor(() => noticesTo(witness.email).length === 1, { what: 'the witness notice' });
  await new Promise((r) => setTimeout(r, 300));
  t.deepEqual(noticesTo(target.email), []);
});

test('with SMTP down the staff actions still succeed, and the failure is logged at warn', async (t) => {
  const { lines, log } = captureLog('info');
  const down = await startGateway({ queue: 'memory', log, env: { SMTP_URL: 'smtp://127.0.0.1:1' } });
  try {
    const admin = await makeStaff(down, 'admin');
    const target = await account(down, true);
    for (const a of actions) {
      t.is((await callOperation(down, a.op, { as: admin.session, body: { email: target.email, reason: 'ticket 3' } })).status, 200, a.op);
    }
    const failures = await waitFor(() => {
      const found = lines.map((l) => JSON.parse(l) as { msg: string; level: number; event?: string }).filter((l) => l.event === 'staff_access_notice_failed');
      return found.length === 3 && found;
    }, { what: 'three failure lines' });
    t.true(failures.every((l) => l.level === 40));
  } finally {
    await down.stop();
  }
});

test('STAFF_ACCESS_NOTICES=off sends no notice', async (t) => {
  const off = await startGateway({ queue: 'memory', env: { SMTP_URL: smtp.url, STAFF_ACCESS_NOTICES: 'off' } });
  try {
    const admin = await makeStaff(off, 'admin');
    const target = await account(off, true);
    for (const a of actions) t.is((await callOperation(off, a.op, { as: admin.session, body: { email: target.email, reason: 'ticket 5' } })).status, 200);
    await new Promise((r) => setTimeout(r, 500));
    t.deepEqual(noticesTo(target.email), []);
  } finally {
    await off.stop();
  }
});
