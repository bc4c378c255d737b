// The embedded default (SQLite, in-process queue) for run history: migration 1701 up and down,
// keyset pages from both ends, `q` with LIKE wildcards taken literally (SQLite has no default
// LIKE escape), review, bulk delete and the ledger.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { newPredictionId } from '../../db/predictions/record.ts';
import { migrationSource } from '../../db/migrations/index.ts';

let gw: TestGateway;
let acct: Account;
type PageBody = { items: Array<Record<string, unknown>>; total: number | null; has_more: boolean };

test.before(async () => {
  gw = await startGateway({ db: 'sqlite', queue: 'memory' });
  acct = await newAccount(gw);
});
test.after.always(async () => {
  await gw?.stop();
});

test.serial('pages, search, review, delete and the ledger work on SQLite', async (t) => {
  const base = Date.parse('2026-03-01T00:00:00Z');
  const ids: string[] = [];
  for (let i = 0; i < 11; i++) {
    const id = newPredictionId(base + Math.floor(i / 2) * 1000);
    ids.push(id);
    await gw.app.db('predictions').insert({
      id, user_id: acct.userId, api_key_id: null, model: 'canvas-v1-fast-text-to-image', status: 'completed', is_test: false,
      input: JSON.stringify({ prompt: i === 3 ? 'Gold 100% off_sale' : `plain ${i}` }), outputs: JSON.stringify([`outputs/${id}/0.png`]), nsfw: '[false]',
      price: 1, created_at: base + Math.floor(i / 2) * 1000, completed_at: base + 5_000, updated_at: base,
    });
  }
  const expected = await gw.app.db('predictions').where({ user_id: acct.userId }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).pluck('id');
  const seen: string[] = [];
  for (let page = 1; page <= 3; page++) {
    const res = await callOperation<PageBody>(gw, 'getRunHistory', { as: acct.session, query: { page, page_size: 4 } });
    t.is(res.body.total, 11);
    seen.push(...res.body.items.map((i) => String(i.id)));
  }
  t.deepEqual(seen, expected);
  const hit = await callOperation<PageBody>(gw, 'searchRunHistory', { as: acct.session, query: { q: 'gold 100% OFF_' } });
  t.deepEqual(hit.body.items.map((i) => i.id), [ids[3]], 'case-insensitive, % and _ literal');
  t.is((await callOperation<PageBody>(gw, 'searchRunHistory', { as: acct.session, query: { q: '%' } })).body.total, 1);
  t.is((await callOperation<PageBody>(gw, 'searchRunHistory', { as: acct.session, query: { q: '_' } })).body.total, 1);

  const review = await callOperation<{ updated: number }>(gw, 'bulkUpdateReviewStatus', { as: acct.session, body: { ids: [ids[0]!, 'nope'], review_status: 'approved' } });
  t.is(review.body.updated, 1);
  const del = await callOperation<{ deleted: number }>(gw, 'bulkDeleteUsageLogs', { as: acct.session, body: { ids: [ids[1]!] } });
  t.is(del.body.deleted, 1);
  t.is((await callOperation<PageBody>(gw, 'getRunHistory', { as: acct.session })).body.total, 10);
  t.is((await callOperation<PageBody>(gw, 'getGallery', { as: acct.session })).body.total, 10);

  await gw.app.db('credit_transactions').insert({ user_id: acct.userId, amount: 42, kind: 'refund', description: 'r', balance_after: 42, created_at: base });
  const ledger = await callOperation<PageBody>(gw, 'listCreditTransactions', { as: acct.session });
  t.like(ledger.body.items[0], { kind: 'refund', amount: 42, balance_after: 42 });
});

test.serial('migration 1701 runs down and up again on SQLite', async (t) => {
  const db = gw.app.db;
  await db.migrate.down({ migrationSource, name: '20261123_1701_run_history' });
  t.false(await db.schema.hasColumn('predictions', 'deleted_at'));
  t.false(await db.schema.hasColumn('predictions', 'source'));
  await db.migrate.latest({ migrationSource });
  t.true(await db.schema.hasColumn('predictions', 'deleted_at'));
  t.true(await db.schema.hasColumn('predictions', 'reviewed_by'));
});
