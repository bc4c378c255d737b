// A failed statement is logged without the values it bound: a submit's prompt and its webhook URL
// (a link, token and all) never reach the log through a database error, on MariaDB (mysql2 wrote
// the whole statement into the error's `sql`, knex into its message) or SQLite (knex's message).
import test from 'ava';
import type { ExecutionContext } from 'ava';
import pino from 'pino';
import { Writable } from 'node:stream';
import { startGateway, newAccount } from '../helpers/gateway.ts';

const PROMPT = 'a prompt that is nobody else\'s business';
const TOKEN = 'hook-token-5c1e0b7d';
const WEBHOOK = `https://hooks.example.com/render-done?token=${TOKEN}`;

async function submitWhileInsertsFail(t: ExecutionContext, db: 'mysql' | 'sqlite', trigger: string): Promise<{ status: number; lines: string[] }> {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
  const gw = await startGateway({ db, queue: 'memory', log: pino({ level: 'info' }, sink), env: { WEBHOOK_ALLOW_INSECURE: 'true' } });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  await gw.app.db.raw(trigger);
  const res = await gw.server.inject({
    method: 'POST', url: `/api/v1/canvas-v1-fast-text-to-image?webhook=${encodeURIComponent(WEBHOOK)}`, headers: { 'x-api-key': acct.liveKey },
    payload: { prompt: PROMPT },
  });
  return { status: res.statusCode, lines };
}

function assertNoBoundValues(t: ExecutionContext, lines: string[], msg: RegExp): void {
  const line = lines.find((l) => msg.test(l));
  t.truthy(line, `a line for the failure: ${lines.join('')}`);
  // the statement is still named, with its values left out
  t.regex(line!, /insert into `?predictions`?|INSERT INTO predictions/i);
  for (const secret of [PROMPT, TOKEN, 'hooks.example.com']) {
    t.false(lines.some((l) => l.includes(secret)), `"${secret}" in a log line`);
  }
}

test('MariaDB: a submit whose insert fails is a 500 whose error line holds the statement but no prompt and no webhook URL', async (t) => {
  const { status, lines } = await submitWhileInsertsFail(t, 'mysql', `CREATE TRIGGER refuse_predictions BEFORE INSERT ON predictions FOR EACH ROW
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused by the test'`);
  t.is(status, 500);
  assertNoBoundValues(t, lines, /"msg":"request failed"/);
});

test('MariaDB: a submit whose insert keeps deadlocking is a 503 whose warning holds no prompt and no webhook URL', async (t) => {
  const { status, lines } = await submitWhileInsertsFail(t, 'mysql', `CREATE TRIGGER deadlock_predictions BEFORE INSERT ON predictions FOR EACH ROW
    SIGNAL SQLSTATE '40001' SET MYSQL_ERRNO = 1213, MESSAGE_TEXT = 'Deadlock found when trying to get lock; try restarting transaction'`);
  t.is(status, 503);
  assertNoBoundValues(t, lines, /"msg":"database lock conflict persisted/);
});

test('SQLite: a submit whose insert fails is a 500 whose error line holds the statement but no prompt and no webhook URL', async (t) => {
  const { status, lines } = await submitWhileInsertsFail(t, 'sqlite', `CREATE TRIGGER refuse_predictions BEFORE INSERT ON predictions
    BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`);
  t.is(status, 500);
  assertNoBoundValues(t, lines, /"msg":"request failed"/);
});
