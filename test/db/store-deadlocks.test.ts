// Item 6 of issue 16: the gateway's own statements never deadlock each other into a 500.
// Many concurrent submits (hold + insert), the confirm batches (queued -> pending) and a worker
// claiming and completing (debit) run at once on MariaDB; every submit is answered 200 and every
// account ends with exactly its completed predictions debited.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import pino from 'pino';
import { Writable } from 'node:stream';

const LOCAL_MODEL = '/api/v1/canvas-v1-fast-text-to-image';
const ROUNDS = 10;
const PER_ROUND = 40;
const ACCOUNTS = 4;
const CREDIT = 1_000_000;

test('concurrent submits, claims and completions on MariaDB: no 500 in 10 rounds, exact debits', async (t) => {
  // Every log line, to catch a claim or completion that failed and was put back on the queue.
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
  const gw = await startGateway({ worker: true, log: pino({ level: 'info' }, sink) });
  t.teardown(() => gw.stop());
  const accounts: Account[] = [];
  for (let i = 0; i < ACCOUNTS; i++) accounts.push(await newAccount(gw, CREDIT));
  const ids: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const answers = await Promise.all(Array.from({ length: PER_ROUND }, (_, i) => gw.server.inject({
      method: 'POST', url: LOCAL_MODEL, headers: { 'x-api-key': accounts[i % ACCOUNTS]!.liveKey },
      payload: { prompt: `round ${round} request ${i}`, width: 64, height: 64, num_inference_steps: 1 },
    })));
    for (const a of answers) {
      t.is(a.statusCode, 200, a.payload);
      if (a.statusCode === 200) ids.push((a.result as { request_id: string }).request_id);
    }
  }
  await waitFor(async () => {
    const open = await gw.app.db('predictions').whereIn('status', ['queued', 'pending', 'processing']).count({ n: '*' }).first();
    return Number(open?.n) === 0;
  }, { what: 'every prediction to finish', timeoutMs: 240_000, intervalMs: 250 });
  const rows = await gw.app.db('predictions').whereIn('id', ids);
  const lockErrors = lines.filter((l) => /handler threw|could not mark predictions pending|ER_LOCK_DEADLOCK|ER_LOCK_WAIT_TIMEOUT/.test(l));
  t.deepEqual(lockErrors, [], 'no claim, completion or confirm failed on a lock conflict');
  t.deepEqual(rows.map((r) => Number(r.attempts)).filter((a) => a !== 1), [], 'each prediction claimed once');
  t.is(rows.length, ROUNDS * PER_ROUND);
  t.deepEqual([...new Set(rows.map((r) => r.status))], ['completed']);
  for (const acct of accounts) {
    const mine = rows.filter((r) => Number(r.user_id) === acct.userId);
    const spent = mine.reduce((s, r) => s + Number(r.price), 0);
    const debits = await gw.app.db('credit_transactions').where({ user_id: acct.userId, kind: 'prediction' }).whereNotNull('prediction_id');
    t.is(debits.length, mine.length, 'one debit per completed prediction');
    const user = await gw.app.db('users').where({ id: acct.userId }).first();
    t.is(Number(user.held), 0);
    t.is(Number(user.balance), CREDIT - spent);
  }
});
