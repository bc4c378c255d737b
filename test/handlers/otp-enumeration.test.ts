// Asking for a code, or presenting one, tells nothing about whether the address has an account:
// not by the answer (the same status and body), and not by how long it takes. The code of a known
// address is stored and mailed after the answer, so a database that is slow to store it (here: its
// table locked by another connection) delays the mail, never the answer; a code presented for an
// unknown address is checked with the same transaction a known one's is, so it waits on the same
// table. MariaDB (a table lock).
import test from 'ava';
import crypto from 'node:crypto';
import { startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { startSmtp } from '../helpers/smtp.ts';
import type { SmtpCapture } from '../helpers/smtp.ts';

let gw: TestGateway;
let smtp: SmtpCapture;

test.before(async () => {
  smtp = await startSmtp();
  gw = await startGateway({ queue: 'memory', env: { SMTP_URL: smtp.url, MAIL_FROM: 'mediagate <codes@gateway.test>' } });
});
test.after.always(async () => {
  await gw?.stop();
  await smtp?.close();
});

const post = (url: string, payload: object) => gw.server.inject({ method: 'POST', url, payload });

/** Runs `f` while another connection holds a write lock on otp_codes; the lock goes when `f` settles. */
async function withCodesLocked<T>(f: () => Promise<T>): Promise<T> {
  let result!: T;
  await gw.app.db.transaction(async (trx) => {
    await trx.raw('LOCK TABLES otp_codes WRITE');
    try {
      result = await f();
    } finally {
      await trx.raw('UNLOCK TABLES');
    }
  });
  return result;
}

function within<T>(ms: number, p: Promise<T>): Promise<T | 'still waiting'> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<'still waiting'>((resolve) => { timer = setTimeout(() => resolve('still waiting'), ms); })]).finally(() => clearTimeout(timer));
}

for (const [route, purpose] of [['/auth/request-otp', 'otp'], ['/auth/forgot-password', 'reset']] as const) {
  test.serial(`${route} answers a known address without waiting for its code to be stored, as it answers an unknown one`, async (t) => {
    const email = `enum-${crypto.randomBytes(5).toString('hex')}@example.com`;
    const reg = await post('/auth/register', { email, password: 'a long enough password' });
    t.is(reg.statusCode, 201, reg.payload);
    await smtp.code(email);
    const [known, unknown] = await withCodesLocked(async () => Promise.all([
      within(3000, post(route, { email })),
      within(3000, post(route, { email: `nobody-${crypto.randomBytes(5).toString('hex')}@example.com` })),
    ]));
    t.not(known, 'still waiting', 'the answer for a known address waited for the code to be stored');
    t.not(unknown, 'still waiting');
    if (known === 'still waiting' || unknown === 'still waiting') return;
    t.is(known.statusCode, 200, known.payload);
    t.is(unknown.statusCode, 200, unknown.payload);
    t.is(known.payload, unknown.payload);
    // once the table is free again the code is stored and mailed, and it works
    const code = await smtp.code(email);
    const use = purpose === 'otp'
      ? await post('/auth/login-otp', { email, otp: code })
      : await post('/auth/reset-password', { email, otp: code, new_password: 'another long password' });
    t.is(use.statusCode, 200, use.payload);
  });
}

for (const [route, extra] of [['/auth/login-otp', {}], ['/auth/verify-otp', {}], ['/auth/reset-password', { new_password: 'another long password' }]] as const) {
  test.serial(`${route} checks a code for an unknown address with the work a known address's wrong code costs`, async (t) => {
    const email = `enum-${crypto.randomBytes(5).toString('hex')}@example.com`;
    const reg = await post('/auth/register', { email, password: 'a long enough password' });
    t.is(reg.statusCode, 201, reg.payload);
    const registrationCode = await smtp.code(email);
    const wrong = String((Number(registrationCode) + 1) % 1_000_000).padStart(6, '0');
    const nobody = `nobody-${crypto.randomBytes(5).toString('hex')}@example.com`;
    // While the codes' table is locked, a known address's check waits for it; an unknown one's must too.
    const [known, unknown, answers] = await withCodesLocked(async () => {
      const k = post(route, { email, otp: wrong, ...extra });
      const u = post(route, { email: nobody, otp: wrong, ...extra });
      const [kEarly, uEarly] = await Promise.all([within(1500, k), within(1500, u)]);
      return [kEarly, uEarly, Promise.all([k, u])] as const;
    });
    t.is(known, 'still waiting');
    t.is(unknown, 'still waiting', 'an unknown address was answered without touching the codes');
    const [k, u] = await answers;
    t.is(k.statusCode, 401, k.payload);
    t.is(u.statusCode, 401, u.payload);
    t.is(k.payload, u.payload);
  });
}
