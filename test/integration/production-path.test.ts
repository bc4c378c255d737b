// The production path's shortcuts (README "No request lost, none charged twice"): a wallet move
// reads the wallet it leaves from its own UPDATE, a first claim takes the row from its message,
// and a concurrency limit's refusal rolls back the hold that locked the wallet. Each must be exact.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { assertLedger } from '../helpers/ledger.ts';
import { claim, claimDigest, findPredictionById, newPredictionId, parseClaimSnapshot, submitPrediction } from '../../db/predictions.ts';
import type { ClaimSnapshot, NewPrediction } from '../../db/predictions.ts';
import { debitWallet, holdFor, releaseFor, settleFor } from '../../db/wallet/moves.ts';

const MODEL = 'canvas-v1-fast-text-to-image';

for (const db of ['mysql', 'sqlite'] as const) {
  test(`${db}: each move's ledger row records the wallet the move left, and the hold reports the balance after it`, async (t) => {
    const gw = await startGateway({ db, queue: 'memory' });
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, 1000);
    const payer = { userId: acct.userId, teamId: null };
    const ref = (id: string) => ({ predictionId: id, model: MODEL, now: Date.now() });
    const held = await gw.app.db.transaction((trx) => holdFor(trx, payer, 300, ref('p1')));
    t.deepEqual(held, { balance: 700 });
    await gw.app.db.transaction((trx) => holdFor(trx, payer, 200, ref('p2')));
    await gw.app.db.transaction((trx) => settleFor(trx, payer, 300, 'p1', MODEL, Date.now(), { listPrice: 300, discountPercent: null }));
    await gw.app.db.transaction((trx) => releaseFor(trx, payer, 200, ref('p2')));
    const rows = await gw.app.db('credit_transactions').where({ user_id: acct.userId }).orderBy('id').select('kind', 'balance_after', 'held_after');
    t.deepEqual(rows.map((r: { kind: string; balance_after: unknown; held_after: unknown }) => [r.kind, Number(r.balance_after), Number(r.held_after)]), [
      ['grant', 1000, 0], ['hold', 700, 300], ['hold', 500, 500], ['prediction', 500, 200], ['release', 700, 0],
    ]);
    // a hold the balance cannot cover moves nothing and writes no row
    const { InsufficientCreditError } = await import('../../db/errors.ts');
    await t.throwsAsync(gw.app.db.transaction((trx) => holdFor(trx, payer, 701, ref('p3'))), { instanceOf: InsufficientCreditError });
    t.is((await gw.app.db('credit_transactions').where({ user_id: acct.userId })).length, 5);
    await assertLedger(t, gw.app.db);
  });

  test(`${db}: a hold is released and charged on a wallet an admin's deduction took below zero`, async (t) => {
    const gw = await startGateway({ db, queue: 'memory' });
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, 1000);
    const payer = { userId: acct.userId, teamId: null };
    const ref = (id: string) => ({ predictionId: id, model: MODEL, now: Date.now() });
    await gw.app.db.transaction((trx) => holdFor(trx, payer, 400, ref('n1')));
    await gw.app.db.transaction((trx) => holdFor(trx, payer, 300, ref('n2')));
    t.is(await gw.app.db.transaction((trx) => debitWallet(trx, payer, 900, 'correction', Date.now(), true)), -600);
    // the balance stays below zero after the release (-200)
    await gw.app.db.transaction((trx) => releaseFor(trx, payer, 400, ref('n1')));
    await gw.app.db.transaction((trx) => settleFor(trx, payer, 300, 'n2', MODEL, Date.now(), { listPrice: 300, discountPercent: null }));
    const rows = await gw.app.db('credit_transactions').where({ user_id: acct.userId }).orderBy('id').select('kind', 'balance_after', 'held_after');
    t.deepEqual(rows.map((r: { kind: string; balance_after: unknown; held_after: unknown }) => [r.kind, Number(r.balance_after), Number(r.held_after)]).slice(-2), [
      ['release', -200, 300], ['prediction', -200, 0],
    ]);
    await assertLedger(t, gw.app.db);
  });
}

async function submitted(gw: TestGateway, userId: number, input: Record<string, unknown> = { prompt: 'Exact Case', width: 64 }): Promise<{ id: string; row: ClaimSnapshot }> {
  const id = newPredictionId(Date.now());
  const p: NewPrediction = { id, userId, apiKeyId: null, model: MODEL, input, price: 50, listPrice: 60, discountPercent: 17, webhookUrl: 'https://example.com/Hook', httpRequestId: 'req-1' };
  const outcome = await submitPrediction(gw.app.db, p, Date.now());
  if (!outcome.accepted || !outcome.row) throw new Error('refused, or no row to carry');
  return { id, row: outcome.row };
}

test('a first claim with the carried row returns exactly the stored prediction; a carried row that differs from the stored one is claimed as stored', async (t) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const now = Date.now();

  const a = await submitted(gw, acct.userId);
  // what a message carries survives the trip through JSON
  const known = parseClaimSnapshot(JSON.parse(JSON.stringify(a.row)));
  t.truthy(known);
  let statements = 0;
  const count = () => { statements++; };
  gw.app.db.on('query', count);
  const claimed = await claim(gw.app.db, a.id, now, { known: known! });
  gw.app.db.off('query', count);
  t.is(statements, 1, 'one round trip: the UPDATE');
  t.deepEqual(claimed, await findPredictionById(gw.app.db, a.id));
  t.is(claimed?.status, 'processing');
  // claimed once: the same message again takes nothing
  t.is(await claim(gw.app.db, a.id, now, { known: known!, fromProcessing: false }), undefined);

  // A message claiming another price, payer, webhook or an input differing only in case: the row as stored wins.
  for (const change of [{ price: 1 }, { user_id: acct.userId + 1 }, { webhook_url: 'https://example.com/hook' }, { input: JSON.stringify({ prompt: 'exact case', width: 64 }) }, { input: `${a.row.input} ` }, { payer_user_id: 1 }, { http_request_id: null }]) {
    const b = await submitted(gw, acct.userId);
    const p = await claim(gw.app.db, b.id, now, { known: { ...b.row, ...change } });
    t.deepEqual(p, await findPredictionById(gw.app.db, b.id), JSON.stringify(change));
    t.is(p?.price, 50);
    t.is(p?.webhookUrl, 'https://example.com/Hook');
    t.deepEqual(p?.input, { prompt: 'Exact Case', width: 64 });
  }
  t.is(parseClaimSnapshot({ ...a.row, extra: 1 }), undefined);
  t.is(parseClaimSnapshot({ ...a.row, price: '50' as unknown as number }), undefined);
  t.is(parseClaimSnapshot({ ...a.row, input: { prompt: 'x' } as unknown as string }), undefined);
  // a large input is not carried: its first claim reads the row
  const big = await submitPrediction(gw.app.db, { id: newPredictionId(Date.now()), userId: acct.userId, apiKeyId: null, model: MODEL, input: { prompt: 'x'.repeat(70_000) }, price: 0, webhookUrl: null }, Date.now());
  t.like(big, { accepted: true });
  t.false('row' in big);
});

/** Runs `body`, counting the statements the database is sent meanwhile. */
async function statementsOf<T>(gw: TestGateway, body: () => Promise<T>): Promise<{ value: T; statements: number }> {
  let statements = 0;
  const count = () => { statements++; };
  gw.app.db.on('query', count);
  try {
    return { value: await body(), statements };
  } finally {
    gw.app.db.off('query', count);
  }
}

test('the claim digest MariaDB computes for a row is the one the worker computes from its message, for multi-byte, trailing-space, empty, null and negative values', async (t) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const id = newPredictionId(Date.now());
  const p: NewPrediction = {
    id, userId: acct.userId, apiKeyId: null, model: MODEL, input: { prompt: 'h\u00e9 \u20ac \u{1F600} \u4e2d ', n: -3, empty: '' }, price: 50, listPrice: 60, discountPercent: null,
    webhookUrl: 'https://example.com/h\u00e9?q= ', httpRequestId: null, embedVisitor: '', studioMarkup: 0,
  };
  const outcome = await submitPrediction(gw.app.db, p, Date.now());
  if (!outcome.accepted || !outcome.row) throw new Error('refused, or no row to carry');
  const known = parseClaimSnapshot(JSON.parse(JSON.stringify(outcome.row)))!;
  const [rows] = await gw.app.db.raw('select claim_digest from predictions where id = ?', [id]) as [Array<{ claim_digest: Buffer }>];
  t.is(rows[0]!.claim_digest.toString('hex'), claimDigest(id, known).toString('hex'));
  // the digest covers the id: another id with the same values has another digest
  t.not(claimDigest(`${id}x`, known).toString('hex'), claimDigest(id, known).toString('hex'));
  const run = await statementsOf(gw, () => claim(gw.app.db, id, Date.now(), { known }));
  t.is(run.statements, 1, 'taken with the carried row');
  t.deepEqual(run.value, await findPredictionById(gw.app.db, id));
  t.false('claim_digest' in (await gw.app.db('predictions').where({ id }).first()), 'SELECT * does not list the digest');
});

test('a row changed after its insert, in any carried column, is claimed as it now is, not as its message says', async (t) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const other = await newAccount(gw, 0);
  // nothing in the code changes these columns after the insert; an operator's UPDATE might
  const changes: Array<Record<string, string | number | boolean | null>> = [
    { price: 49 }, { user_id: other.userId }, { team_id: 7 }, { api_key_id: 3 }, { model: `${MODEL}-b` }, { is_test: true },
    { input: JSON.stringify({ prompt: 'Exact Case ', width: 64 }) }, { webhook_url: null }, { http_request_id: 'req-2' }, { created_at: 1 },
    { source: 'dashboard' }, { embed_code_id: 5 }, { embed_visitor: 'v' }, { studio_id: 2 }, { studio_markup: 1 }, { payer_user_id: acct.userId },
    { payer_team_id: 4 }, { list_price: 61 }, { discount_percent: null },
  ];
  // every carried column is here: one added to the message must be added to the digest (a migration) and here
  t.deepEqual(changes.flatMap((c) => Object.keys(c)).sort(), Object.keys((await submitted(gw, acct.userId)).row).sort());
  for (const change of changes) {
    const a = await submitted(gw, acct.userId);
    await gw.app.db('predictions').where({ id: a.id }).update(change);
    const run = await statementsOf(gw, () => claim(gw.app.db, a.id, Date.now(), { known: a.row }));
    const stored = await findPredictionById(gw.app.db, a.id);
    t.deepEqual(run.value, stored, JSON.stringify(change));
    t.is(run.statements, 3, `the carried claim took nothing; claimed on its state and read: ${JSON.stringify(change)}`);
    t.is(stored?.attempts, 1);
  }
});

test('a submit refused by a concurrency limit after its hold holds nothing: wallet, ledger and predictions unchanged', async (t) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const sub = (id: string) => submitPrediction(gw.app.db, { id, userId: acct.userId, apiKeyId: null, model: MODEL, input: { prompt: 'x' }, price: 100, webhookUrl: null }, Date.now(), { perKey: 0, perAccount: 2 });
  t.like(await sub(newPredictionId(Date.now())), { accepted: true, balance: 9900 });
  t.like(await sub(newPredictionId(Date.now())), { accepted: true, balance: 9800 });
  const before = await gw.app.db('credit_transactions').where({ user_id: acct.userId }).count({ n: '*' }).first();
  t.deepEqual(await sub(newPredictionId(Date.now())), { accepted: false, scope: 'account', limit: 2 });
  const user = await gw.app.db('users').where({ id: acct.userId }).first('balance', 'held');
  t.deepEqual([Number(user.balance), Number(user.held)], [9800, 200]);
  t.deepEqual(await gw.app.db('credit_transactions').where({ user_id: acct.userId }).count({ n: '*' }).first(), before);
  t.is((await gw.app.db('predictions').where({ user_id: acct.userId })).length, 2);
  await assertLedger(t, gw.app.db);
});
