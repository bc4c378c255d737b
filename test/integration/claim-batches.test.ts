// Group commit of first claims (db/predictions.ts claimBatcher, README "No request lost, none
// charged twice"): on MariaDB the claims with a carried row that arrive together share one UPDATE
// and one COMMIT (one compound statement holding the transaction), committed only when every one
// of them took its row; otherwise each runs alone.
// Whatever the mix, each prediction is claimed once, and each caller learns exactly whether it was.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { assertLedger } from '../helpers/ledger.ts';
import { cancelPrediction, claim, completePrediction, findPredictionById, newPredictionId, submitPrediction } from '../../db/predictions.ts';
import type { ClaimSnapshot, Prediction } from '../../db/predictions.ts';

const MODEL = 'canvas-v1-fast-text-to-image';
const PRICE = 50;

async function submitted(gw: TestGateway, userId: number, n: number): Promise<Array<{ id: string; row: ClaimSnapshot }>> {
  const out: Array<{ id: string; row: ClaimSnapshot }> = [];
  for (let i = 0; i < n; i++) {
    const id = newPredictionId(Date.now());
    const outcome = await submitPrediction(gw.app.db, { id, userId, apiKeyId: null, model: MODEL, input: { prompt: `p${i}` }, price: PRICE, listPrice: PRICE, discountPercent: null, webhookUrl: null }, Date.now());
    if (!outcome.accepted || !outcome.row) throw new Error('refused, or no row to carry');
    out.push({ id, row: outcome.row });
  }
  return out;
}

/** MariaDB's claim batch: one compound statement holding its transaction, answering whether it committed (mg_claimed 1) or rolled back (0). */
const CLAIM_IN_ONE = /^begin not atomic[\s\S]*update predictions force index \(primary\) set status = 'processing'[\s\S]*mg_claimed/i;

/** Counts the claim UPDATEs and the COMMITs / ROLLBACKs the database is sent while `body` runs (a claim batch's compound statement counts as its UPDATE and how it ended). */
async function counting<T>(gw: TestGateway, body: () => Promise<T>): Promise<{ value: T; claims: number; commits: number; rollbacks: number }> {
  const seen = { claims: 0, commits: 0, rollbacks: 0 };
  const on = (q: { sql?: string }) => {
    const sql = (q.sql ?? '').toLowerCase();
    if (/^update [`]?predictions[`]?.* set [`]?status[`]? = /.test(sql) && sql.includes('processing')) seen.claims++;
    if (CLAIM_IN_ONE.test(sql)) seen.claims++;
    if (/^commit/.test(sql)) seen.commits++;
    if (/^rollback/.test(sql)) seen.rollbacks++;
  };
  const onResponse = (response: unknown, q: { sql?: string }) => {
    if (!CLAIM_IN_ONE.test(q.sql ?? '')) return;
    const claimed = (response as [[Array<{ mg_claimed: unknown }>]])[0][0][0]?.mg_claimed;
    if (Number(claimed) === 1) seen.commits++;
    else seen.rollbacks++;
  };
  gw.app.db.on('query', on);
  gw.app.db.on('query-response', onResponse);
  try {
    const value = await body();
    return { value, ...seen };
  } finally {
    gw.app.db.off('query', on);
    gw.app.db.off('query-response', onResponse);
  }
}

for (const db of ['mysql', 'sqlite'] as const) {
  test(`${db}: first claims that arrive together, with copies, cancelled rows and a changed carried row among them, claim each prediction once and charge it once`, async (t) => {
    const gw = await startGateway({ db, queue: 'memory' });
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, 10_000);
    const owner = { userId: acct.userId, teamId: null };
    const subs = await submitted(gw, acct.userId, 14);
    const cancelled = new Set([subs[3]!.id, subs[9]!.id]);
    for (const id of cancelled) t.is(await cancelPrediction(gw.app.db, owner, id, Date.now()), 'cancelled');
    // every message once, a second copy of four, and one whose carried row names another price
    const messages = [
      ...subs.map((s, i) => ({ id: s.id, row: i === 5 ? { ...s.row, price: 1 } : s.row })),
      ...[0, 3, 7, 13].map((i) => ({ id: subs[i]!.id, row: subs[i]!.row })),
    ];
    const order = messages.map((_, i) => i).sort((a, b) => ((a * 7919) % 17) - ((b * 7919) % 17));
    const now = Date.now();
    const got = await Promise.all(order.map((i) => claim(gw.app.db, messages[i]!.id, now, { known: messages[i]!.row, fromProcessing: false }).then((p) => ({ id: messages[i]!.id, p }))));

    const taken = new Map<string, Prediction[]>();
    for (const { id, p } of got) if (p) taken.set(id, [...taken.get(id) ?? [], p]);
    for (const s of subs) {
      const stored = await findPredictionById(gw.app.db, s.id);
      if (cancelled.has(s.id)) {
        t.false(taken.has(s.id), 'a cancelled prediction is not claimed');
        t.is(stored?.status, 'cancelled');
        continue;
      }
      t.is(taken.get(s.id)?.length, 1, `claimed exactly once: ${s.id}`);
      t.deepEqual(taken.get(s.id)![0], stored, 'the claim answers the row as stored');
      t.is(stored?.attempts, 1);
      t.is(stored?.price, PRICE);
    }

    // completing every claimed prediction charges each once
    for (const [, [p]] of taken) t.true((await completePrediction(gw.app.db, p!, { outputs: [], nsfw: [], inferenceMs: 1 }, Date.now())).recorded);
    const wallet = await gw.app.db('users').where({ id: acct.userId }).first('balance', 'held') as { balance: number | string; held: number | string };
    t.is(Number(wallet.balance), 10_000 - PRICE * (subs.length - cancelled.size));
    t.is(Number(wallet.held), 0);
    await assertLedger(t, gw.app.db);
  });
}

test('mysql: first claims that arrive together share one UPDATE and one COMMIT', async (t) => {
  const gw = await startGateway({ db: 'mysql', queue: 'memory' });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const subs = await submitted(gw, acct.userId, 10);
  const now = Date.now();
  const run = await counting(gw, () => Promise.all(subs.map((s) => claim(gw.app.db, s.id, now, { known: s.row, fromProcessing: false }))));
  t.is(run.claims, 1, 'one claim UPDATE for the ten');
  t.is(run.commits, 1);
  t.is(run.rollbacks, 0);
  for (const [i, p] of run.value.entries()) t.deepEqual(p, await findPredictionById(gw.app.db, subs[i]!.id));
  // claimed once: the same messages again take nothing, and are told so
  const again = await counting(gw, () => Promise.all(subs.map((s) => claim(gw.app.db, s.id, now, { known: s.row, fromProcessing: false }))));
  t.deepEqual(again.value, subs.map(() => undefined));
  t.is(again.rollbacks, 1, 'the batch that took none of its rows rolled back');
  t.is(again.commits, 0);
  const rows = await gw.app.db('predictions').whereIn('id', subs.map((s) => s.id)).select('status', 'attempts') as Array<{ status: string; attempts: number | string }>;
  t.deepEqual(rows.map((r) => [r.status, Number(r.attempts)]), subs.map(() => ['processing', 1]));
});

test('mysql: a batch with one row that differs from its message rolls back whole, and each claim alone takes its row', async (t) => {
  const gw = await startGateway({ db: 'mysql', queue: 'memory' });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const subs = await submitted(gw, acct.userId, 6);
  const now = Date.now();
  const run = await counting(gw, () => Promise.all(subs.map((s, i) => claim(gw.app.db, s.id, now, { known: i === 2 ? { ...s.row, input: s.row.input!.toString().toUpperCase() } : s.row, fromProcessing: false }))));
  t.is(run.rollbacks, 1);
  for (const [i, p] of run.value.entries()) {
    t.deepEqual(p, await findPredictionById(gw.app.db, subs[i]!.id));
    t.is(p?.attempts, 1);
  }
  t.deepEqual(run.value[2]?.input, { prompt: 'p2' }, 'the row as stored, not as the message said');
});

test('mysql: a batch whose statement fails fails each of its claims, claims nothing, and the retries take the rows', async (t) => {
  const gw = await startGateway({ db: 'mysql', queue: 'memory' });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const subs = await submitted(gw, acct.userId, 4);
  const now = Date.now();
  // a value no statement can bind (a worker passes its clock; here the claim is called directly): the batch's UPDATE is refused
  const run = await Promise.allSettled(subs.map((s, i) => claim(gw.app.db, s.id, i === 1 ? Number.NaN : now, { known: s.row, fromProcessing: false })));
  t.deepEqual(run.map((r) => r.status), subs.map(() => 'rejected'));
  const rows = await gw.app.db('predictions').whereIn('id', subs.map((s) => s.id)).select('status', 'attempts') as Array<{ status: string; attempts: number | string }>;
  t.deepEqual(rows.map((r) => [r.status, Number(r.attempts)]), subs.map(() => ['queued', 0]));
  // the messages' retries (attempt 1: no carried row, processing claimable) take each row once
  const retried = await Promise.all(subs.map((s) => claim(gw.app.db, s.id, Date.now(), { fromProcessing: true })));
  for (const [i, p] of retried.entries()) t.deepEqual(p, await findPredictionById(gw.app.db, subs[i]!.id));
});
