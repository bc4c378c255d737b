// Run history, search, gallery, review status, bulk delete and the ledger listing (issue 10),
// against real MariaDB and RabbitMQ with a worker: two tenants whose records never cross, a team
// owner, developer and viewer, pagination edges, every error, and bulk changes with foreign ids.
import test from 'ava';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import type { CallOptions } from '../helpers/operation.ts';
import { waitFor } from '../helpers/services.ts';
import { newPredictionId } from '../../db/predictions/record.ts';

let gw: TestGateway;
let a: Account;
let b: Account;
let dev: Account;
let viewer: Account;
let teamA: number;
let teamB: number;

type Body = Record<string, unknown>;
type Item = Body & { id: string; request_id: string };
type PageBody<T = Item> = { items: T[]; page: number; page_size: number; total: number | null; has_more: boolean };
const call = <T = Body>(operationId: string, opts: CallOptions) => callOperation<T>(gw, operationId, opts);

/** Inserts a finished prediction row directly (the history reads rows; how they were made is tested elsewhere). */
async function seed(owner: { userId: number; teamId?: number | null }, over: Body = {}): Promise<string> {
  const createdAt = Number(over.created_at ?? Date.now());
  const id = String(over.id ?? newPredictionId(createdAt));
  await gw.app.db('predictions').insert({
    id, user_id: owner.userId, team_id: owner.teamId ?? null, api_key_id: null, model: 'canvas-v1-fast-text-to-image', status: 'completed', is_test: false,
    input: JSON.stringify({ prompt: 'a quiet harbour' }), outputs: JSON.stringify([`outputs/${id}/0.png`]), nsfw: JSON.stringify([false]),
    price: 5, created_at: createdAt, started_at: createdAt, completed_at: createdAt + 10, updated_at: createdAt + 10, ...over,
  });
  return id;
}

async function completed(id: string): Promise<void> {
  await waitFor(async () => (await gw.app.db('predictions').where({ id, status: 'completed' }).first()) ?? false, { what: `prediction ${id} to complete`, timeoutMs: 30_000 });
}

test.before(async () => {
  gw = await startGateway({ worker: true });
  [a, b, dev, viewer] = [await newAccount(gw, 10_000), await newAccount(gw, 10_000), await newAccount(gw), await newAccount(gw)];
  const mk = async (by: Account, name: string) => {
    const res = await call<{ id: number }>('createTeam', { as: by.session, body: { name } });
    if (res.status !== 201) throw new Error(JSON.stringify(res.body));
    return Number(res.body.id);
  };
  teamA = await mk(a, 'A studio');
  teamB = await mk(b, 'B studio');
  await gw.app.db('team_members').insert([
    { team_id: teamA, user_id: dev.userId, role: 'developer', created_at: Date.now() },
    { team_id: teamA, user_id: viewer.userId, role: 'viewer', created_at: Date.now() },
  ]);
});
test.after.always(async () => {
  await gw?.stop();
});

test.serial('a real prediction appears in history with its source, key, cost and output, and in the gallery as an image', async (t) => {
  const viaKey = await gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { 'x-api-key': a.liveKey }, payload: { prompt: 'lighthouse by key', width: 64, height: 64 } });
  const viaSession = await gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { authorization: `Bearer ${a.session}` }, payload: { prompt: 'lighthouse by session', width: 64, height: 64 } });
  t.is(viaKey.statusCode, 200, viaKey.payload);
  t.is(viaSession.statusCode, 200, viaSession.payload);
  const keyId = (viaKey.result as { request_id: string }).request_id;
  const sessionId = (viaSession.result as { request_id: string }).request_id;
  await completed(keyId);
  await completed(sessionId);

  const res = await call<PageBody>('searchRunHistory', { as: a.session, query: { q: 'LIGHTHOUSE' } });
  t.is(res.status, 200);
  t.deepEqual(res.body.items.map((i) => i.id), [sessionId, keyId], 'newest first');
  const [bySession, byKey] = res.body.items;
  t.is(bySession!.source, 'dashboard');
  t.is(bySession!.api_key, null);
  t.is(byKey!.source, 'api');
  t.like(byKey!.api_key as Body, { name: 'live' });
  t.false(JSON.stringify(byKey).includes(a.liveKey), 'never the secret');
  t.is(byKey!.status, 'completed');
  t.is(byKey!.review_status, 'unreviewed');
  t.true(Number(byKey!.cost) > 0);
  t.regex(String((byKey!.outputs as string[])[0]), /^http:\/\/gateway\.test\/files\/outputs\/.+\.png$/);
  t.truthy(byKey!.completed_at);

  const gallery = await call<PageBody<Body>>('getGallery', { as: a.liveKey, query: { media_type: 'image' } });
  t.true(gallery.body.items.some((i) => i.request_id === keyId && i.media_type === 'image' && i.index === 0));
  const audio = await call<PageBody<Body>>('getGallery', { as: a.liveKey, query: { media_type: 'audio' } });
  t.false(audio.body.items.some((i) => i.request_id === keyId), 'an image is not audio');

  // bulk delete removes the file, hides the run from history and gallery, and keeps the ledger row
  const file = path.join(gw.env.DATA_DIR!, 'files', `outputs/${keyId}/0.png`);
  await fs.access(file);
  const del = await call<{ deleted: number; skipped: string[] }>('bulkDeleteUsageLogs', { as: a.session, body: { ids: [keyId] } });
  t.deepEqual(del.body, { deleted: 1, skipped: [] });
  await t.throwsAsync(fs.access(file), undefined, 'the output file is removed');
  const after = await call<PageBody>('searchRunHistory', { as: a.session, query: { q: 'lighthouse' } });
  t.deepEqual(after.body.items.map((i) => i.id), [sessionId]);
  const galleryAfter = await call<PageBody<Body>>('getGallery', { as: a.session });
  t.false(galleryAfter.body.items.some((i) => i.request_id === keyId));
  const ledger = await call<PageBody<Body>>('listCreditTransactions', { as: a.session, query: { page_size: 100 } });
  t.true(ledger.body.items.some((i) => i.request_id === keyId && i.kind === 'prediction'), 'the ledger row stays');
  const detail = await call<Body>('getPredictionResponse', { as: a.session, params: { request_id: keyId } });
  t.is(detail.status, 200);
  t.true(detail.body.outputs_expired);
  t.deepEqual(detail.body.outputs, []);
  // deleting it again: skipped, not an error
  t.deepEqual((await call('bulkDeleteUsageLogs', { as: a.session, body: { ids: [keyId] } })).body, { deleted: 0, skipped: [keyId] });
});

test.serial('two tenants: nothing of one is visible to, reviewable or deletable by the other', async (t) => {
  const mineA = await seed({ userId: a.userId }, { input: JSON.stringify({ prompt: 'tenant-a only' }) });
  const mineB = await seed({ userId: b.userId }, { input: JSON.stringify({ prompt: 'tenant-b only' }) });
  const teamRowB = await seed({ userId: b.userId, teamId: teamB });

  for (const cred of [a.session, a.liveKey]) {
    for (const op of ['getRunHistory', 'searchRunHistory', 'getGallery'] as const) {
      const res = await call<PageBody<Body>>(op, { as: cred, query: { page_size: 100 } });
      t.is(res.status, 200);
      const ids = res.body.items.map((i) => String(i.request_id));
      t.false(ids.includes(mineB) || ids.includes(teamRowB), `${op} shows B's records`);
    }
    const found = await call<PageBody>('searchRunHistory', { as: cred, query: { request_id: mineB } });
    t.deepEqual(found.body.items, []);
    t.is(found.body.total, 0);
  }
  const own = await call<PageBody>('searchRunHistory', { as: a.session, query: { request_id: mineA } });
  t.deepEqual(own.body.items.map((i) => i.id), [mineA]);

  // single: 404 like an unknown id; bulk: skipped and reported, never a whole-batch 404
  const single = await call('updateReviewStatus', { as: a.session, params: { id: mineB }, body: { review_status: 'approved' } });
  const unknown = await call('updateReviewStatus', { as: a.session, params: { id: 'nope' }, body: { review_status: 'approved' } });
  t.is(single.status, 404);
  t.deepEqual(single.body, unknown.body);
  const bulk = await call<{ updated: number; skipped: string[] }>('bulkUpdateReviewStatus', { as: a.session, body: { ids: [mineA, mineB, teamRowB, 'nope'], review_status: 'rejected' } });
  t.deepEqual(bulk.body, { updated: 1, skipped: [mineB, teamRowB, 'nope'] });
  const del = await call<{ deleted: number; skipped: string[] }>('bulkDeleteUsageLogs', { as: a.session, body: { ids: [mineB, teamRowB] } });
  t.deepEqual(del.body, { deleted: 0, skipped: [mineB, teamRowB] });

  const rowsB = await gw.app.db('predictions').whereIn('id', [mineB, teamRowB]);
  t.true(rowsB.every((r: Body) => r.review_status === 'unreviewed' && r.deleted_at === null), "B's records are intact");
  // A's ledger and B's ledger do not mix
  const ledgerA = await call<PageBody<Body>>('listCreditTransactions', { as: a.session, query: { page_size: 100 } });
  const ledgerB = await call<PageBody<Body>>('listCreditTransactions', { as: b.session, query: { page_size: 100 } });
  t.true(ledgerA.body.items.every((i) => i.user_id === a.userId));
  t.true(ledgerB.body.items.every((i) => i.user_id === b.userId));
  // a team B id named by A is 404 on every team-scoped route
  for (const op of ['getRunHistory', 'searchRunHistory', 'getGallery', 'listCreditTransactions'] as const) {
    t.is((await call(op, { as: a.session, query: { team_id: teamB } })).status, 404, op);
  }
  t.is((await call('getPredictionResponse', { as: a.session, params: { request_id: teamRowB }, query: { team_id: teamA } })).status, 404);
});

test.serial('a team: members read the team history and ledger; a viewer may not review or delete; personal and team rows stay apart', async (t) => {
  const byDev = await seed({ userId: dev.userId, teamId: teamA }, { input: JSON.stringify({ prompt: 'team-a work' }) });
  const devPersonal = await seed({ userId: dev.userId });

  for (const who of [a, dev, viewer]) {
    const res = await call<PageBody>('getRunHistory', { as: who.session, query: { team_id: teamA } });
    t.is(res.status, 200);
    t.true(res.body.items.some((i) => i.id === byDev), 'the team history holds what any member submitted');
    t.false(res.body.items.some((i) => i.id === devPersonal), "a member's personal run is not the team's");
    t.is(res.body.items.find((i) => i.id === byDev)!.team_id, teamA);
  }
  const personal = await call<PageBody>('getRunHistory', { as: dev.session });
  t.deepEqual(personal.body.items.map((i) => i.id), [devPersonal], "the member's own history holds no team run");

  // prediction_response honours team_id
  t.is((await call('getPredictionResponse', { as: viewer.session, params: { request_id: byDev }, query: { team_id: teamA } })).status, 200);
  t.is((await call('getPredictionResponse', { as: viewer.session, params: { request_id: byDev } })).status, 404, 'without team_id it is not the caller\'s');
  t.is((await call('getPredictionResponse', { as: b.session, params: { request_id: byDev }, query: { team_id: teamA } })).status, 404, 'a non-member');

  // review and delete need the generate permission: developer yes, viewer 403
  const denied = await call<Body>('updateReviewStatus', { as: viewer.session, params: { id: byDev }, query: { team_id: teamA }, body: { review_status: 'approved' } });
  t.is(denied.status, 403);
  t.regex(String(denied.body.detail), /generate/);
  t.is((await call('bulkDeleteUsageLogs', { as: viewer.session, query: { team_id: teamA }, body: { ids: [byDev] } })).status, 403);
  const ok = await call<Body>('updateReviewStatus', { as: dev.session, params: { id: byDev }, query: { team_id: teamA }, body: { review_status: 'approved' } });
  t.is(ok.status, 200);
  t.like(ok.body, { id: byDev, review_status: 'approved', reviewed_by: dev.userId });
  const row = await gw.app.db('predictions').where({ id: byDev }).first();
  t.is(Number(row.reviewed_by), dev.userId);
  t.truthy(row.reviewed_at);
  const listed = await call<PageBody>('getRunHistory', { as: a.session, query: { team_id: teamA, review_status: 'approved' } });
  t.like(listed.body.items.find((i) => i.id === byDev) as Body, { review_status: 'approved', reviewed_by: dev.userId });

  // the team ledger: a top-up to the team wallet appears there, not in the owner's personal ledger
  await gw.app.db('credit_transactions').insert({ user_id: a.userId, team_id: teamA, amount: 500, kind: 'topup', description: 'team top-up', balance_after: 500, created_at: Date.now() });
  const teamLedger = await call<PageBody<Body>>('listCreditTransactions', { as: a.session, query: { team_id: teamA } });
  t.is(teamLedger.status, 200);
  t.like(teamLedger.body.items[0] as Body, { kind: 'topup', amount: 500, balance_after: 500, user_id: a.userId });
  // a viewer (no read_balance) reads the row, without what would tell the balance
  const viewed = await call<PageBody<Body>>('listCreditTransactions', { as: viewer.session, query: { team_id: teamA } });
  t.like(viewed.body.items[0] as Body, { kind: 'topup', amount: null, balance_after: null, description: null, user_id: a.userId });
  const own = await call<PageBody<Body>>('listCreditTransactions', { as: a.session, query: { page_size: 100 } });
  t.false(own.body.items.some((i) => i.description === 'team top-up'));
});

test.serial('a completed prediction with an NSFW output starts flagged; the gallery hides rejected unless asked for', async (t) => {
  const owner = { userId: b.userId };
  const flagged = newPredictionId(Date.now());
  await gw.app.db('predictions').insert({
    id: flagged, user_id: b.userId, api_key_id: null, model: 'canvas-v1-fast-text-to-image', status: 'processing', is_test: false,
    input: '{}', price: 0, created_at: Date.now(), started_at: Date.now(), updated_at: Date.now(),
  });
  const { findPredictionById } = await import('../../db/predictions/record.ts');
  const p = (await findPredictionById(gw.app.db, flagged))!;
  await gw.app.store.complete({ p, result: { outputs: [`outputs/${flagged}/0.png`, `outputs/${flagged}/1.png`], nsfw: [false, true], inferenceMs: 1 }, now: Date.now() });
  t.is((await findPredictionById(gw.app.db, flagged))!.reviewStatus, 'flagged');

  const rejected = await seed(owner, { review_status: 'rejected' });
  const plain = await seed(owner);
  const all = await call<PageBody<Body>>('getGallery', { as: b.session, query: { page_size: 100 } });
  const ids = all.body.items.map((i) => i.request_id);
  t.false(ids.includes(rejected), 'rejected is hidden by default');
  t.true(ids.includes(plain));
  const flaggedItems = all.body.items.filter((i) => i.request_id === flagged);
  t.deepEqual(flaggedItems.map((i) => [i.index, i.has_nsfw_content, i.review_status]), [[0, false, 'flagged'], [1, true, 'flagged']], 'one item per file, never blacked out');
  t.true(flaggedItems.every((i) => typeof i.url === 'string' && String(i.url).startsWith('http')));
  const onlyRejected = await call<PageBody<Body>>('getGallery', { as: b.session, query: { review_status: 'rejected' } });
  t.deepEqual(onlyRejected.body.items.map((i) => i.request_id), [rejected]);
  const flaggedHistory = await call<PageBody>('getRunHistory', { as: b.session, query: { review_status: 'flagged' } });
  t.deepEqual(flaggedHistory.body.items.map((i) => i.id), [flagged]);
});

test.serial('pagination: keyset pages agree with a plain ordering, from both ends, with and without the count', async (t) => {
  const who = await newAccount(gw);
  const base = Date.parse('2026-01-01T00:00:00Z');
  const ids: string[] = [];
  // 23 rows, several sharing a created_at (the id breaks the tie)
  for (let i = 0; i < 23; i++) ids.push(await seed({ userId: who.userId }, { created_at: base + Math.floor(i / 3) * 1000 }));
  const expected = await gw.app.db('predictions').where({ user_id: who.userId }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).pluck('id');
  const pages: string[] = [];
  for (let page = 1; page <= 5; page++) {
    const res = await call<PageBody>('getRunHistory', { as: who.session, query: { page, page_size: 5 } });
    t.is(res.body.total, 23);
    t.is(res.body.has_more, page < 5, `page ${page}`);
    pages.push(...res.body.items.map((i) => i.id));
    const uncounted = await call<PageBody>('getRunHistory', { as: who.session, query: { page, page_size: 5, include_count: false } });
    t.is(uncounted.body.total, null);
    t.deepEqual(uncounted.body.items.map((i) => i.id), res.body.items.map((i) => i.id), `page ${page} without the count`);
    t.is(uncounted.body.has_more, page < 5);
  }
  t.deepEqual(pages, expected);
  t.is(new Set(pages).size, 23);
  const last = await call<PageBody>('getRunHistory', { as: who.session, query: { page: 5, page_size: 5 } });
  t.is(last.body.items.length, 3);

  // past the end: an empty page, not an error
  const past = await call<PageBody>('getRunHistory', { as: who.session, query: { page: 6, page_size: 5 } });
  t.is(past.status, 200);
  t.deepEqual(past.body.items, []);
  t.false(past.body.has_more);
  const pastUncounted = await call<PageBody>('getRunHistory', { as: who.session, query: { page: 99, include_count: false } });
  t.deepEqual(pastUncounted.body.items, []);

  // the search and its filters
  const day = await call<PageBody>('searchRunHistory', { as: who.session, query: { created_at: '2026-01-01', page_size: 100 } });
  t.is(day.body.total, 23);
  const otherDay = await call<PageBody>('searchRunHistory', { as: who.session, query: { created_at: '2026-01-02' } });
  t.is(otherDay.body.total, 0);
  await gw.app.db('predictions').where({ id: ids[0] }).update({ status: 'failed', model: 'chime-v1-fast-text-to-audio' });
  t.deepEqual((await call<PageBody>('searchRunHistory', { as: who.session, query: { status: 'failed' } })).body.items.map((i) => i.id), [ids[0]]);
  t.deepEqual((await call<PageBody>('searchRunHistory', { as: who.session, query: { model_name: 'chime-v1-fast-text-to-audio' } })).body.items.map((i) => i.id), [ids[0]]);
  t.deepEqual((await call<PageBody>('searchRunHistory', { as: who.session, query: { q: 'chime' } })).body.items.map((i) => i.id), [ids[0]]);
  t.is((await call<PageBody>('searchRunHistory', { as: who.session, query: { q: '100%_!' } })).body.total, 0, 'LIKE wildcards in q are literal');

  // the ledger pages the same way
  await gw.app.db('credit_transactions').insert(Array.from({ length: 7 }, (_, i) => ({
    user_id: who.userId, amount: i + 1, kind: i % 2 ? 'topup' : 'grant', description: `move ${i}`, balance_after: (i + 1) * (i + 2) / 2, created_at: base + i,
  })));
  const seen: number[] = [];
  for (let page = 1; page <= 3; page++) {
    const res = await call<PageBody<Body>>('listCreditTransactions', { as: who.session, query: { page, page_size: 3 } });
    t.is(res.body.total, 7);
    t.is(res.body.has_more, page < 3);
    seen.push(...res.body.items.map((i) => Number(i.amount)));
  }
  t.deepEqual(seen, [7, 6, 5, 4, 3, 2, 1], 'newest first, every row once');
  t.deepEqual((await call<PageBody<Body>>('listCreditTransactions', { as: who.session, query: { page: 4, page_size: 3 } })).body.items, []);
  t.is((await call<PageBody<Body>>('listCreditTransactions', { as: who.session, query: { page_size: 1 } })).body.items[0]!.kind, 'grant', 'kinds are passed through as recorded');
});

test.serial('bulk delete refuses a batch holding a running prediction, and changes nothing', async (t) => {
  const done = await seed({ userId: a.userId });
  const running = await seed({ userId: a.userId }, { status: 'processing', completed_at: null, outputs: null });
  const res = await call<Body>('bulkDeleteUsageLogs', { as: a.session, body: { ids: [done, running] } });
  t.is(res.status, 409);
  t.regex(String(res.body.detail), new RegExp(running));
  t.is((await gw.app.db('predictions').where({ id: done }).first()).deleted_at, null);
  t.is((await call<{ deleted: number }>('bulkDeleteUsageLogs', { as: a.session, body: { ids: [done] } })).body.deleted, 1);
});

test.serial('a sandbox key sees and changes sandbox predictions only', async (t) => {
  const sandbox = await seed({ userId: a.userId }, { is_test: true, input: JSON.stringify({ prompt: 'sandbox-only' }) });
  const live = await seed({ userId: a.userId }, { input: JSON.stringify({ prompt: 'live-only' }) });
  const res = await call<PageBody>('getRunHistory', { as: a.testKey, query: { page_size: 100 } });
  t.true(res.body.items.every((i) => i.is_test === true));
  t.true(res.body.items.some((i) => i.id === sandbox));
  const bulk = await call<{ updated: number; skipped: string[] }>('bulkUpdateReviewStatus', { as: a.testKey, body: { ids: [sandbox, live], review_status: 'approved' } });
  t.deepEqual(bulk.body, { updated: 1, skipped: [live] });
});

test('every error: page 0, bad enums, bad dates, empty and oversized batches, duplicates, no credential', async (t) => {
  const cases: Array<[string, CallOptions, number]> = [
    ['getRunHistory', { as: a.session, query: { page: 0 } }, 422],
    ['getRunHistory', { as: a.session, query: { page_size: 101 } }, 422],
    ['getRunHistory', { as: a.session, query: { review_status: 'maybe' } }, 422],
    ['getRunHistory', { as: a.session, query: { unknown: 1 } }, 422],
    ['getRunHistory', { as: a.session, query: { team_id: 999999 } }, 404],
    ['getRunHistory', {}, 401],
    ['searchRunHistory', { as: a.session, query: { created_at: 'yesterday' } }, 422],
    ['searchRunHistory', { as: a.session, query: { created_at: '2026-02-30' } }, 422],
    ['searchRunHistory', { as: a.session, query: { status: 'done' } }, 422],
    ['searchRunHistory', { as: a.session, query: { page: 0 } }, 422],
    ['getGallery', { as: a.session, query: { media_type: 'text' } }, 422],
    ['getGallery', { as: a.session, query: { page: 0 } }, 422],
    ['listCreditTransactions', { as: a.session, query: { page: 0 } }, 422],
    ['listCreditTransactions', {}, 401],
    ['updateReviewStatus', { as: a.session, params: { id: 'x' }, body: { review_status: 'great' } }, 422],
    ['updateReviewStatus', { as: a.session, params: { id: 'x' }, body: {} }, 422],
    ['bulkUpdateReviewStatus', { as: a.session, body: { ids: [], review_status: 'approved' } }, 422],
    ['bulkUpdateReviewStatus', { as: a.session, body: { ids: Array.from({ length: 101 }, (_, i) => `id${i}`), review_status: 'approved' } }, 422],
    ['bulkUpdateReviewStatus', { as: a.session, body: { ids: ['x', 'x'], review_status: 'approved' } }, 422],
    ['bulkDeleteUsageLogs', { as: a.session, body: { ids: [] } }, 422],
    ['bulkDeleteUsageLogs', { as: a.session, body: { ids: Array.from({ length: 101 }, (_, i) => `id${i}`) } }, 422],
    ['bulkDeleteUsageLogs', { as: a.session, body: {} }, 422],
  ];
  for (const [op, opts, status] of cases) {
    const res = await call<Body>(op, opts);
    t.is(res.status, status, `${op} ${JSON.stringify(opts.query ?? opts.body ?? {})}`);
    t.is(typeof res.body.detail === 'string' || Array.isArray(res.body.detail), true);
  }
  // a body that is not JSON
  const raw = await gw.server.inject({ method: 'POST', url: '/app/usage_logs/bulk_delete', headers: { authorization: `Bearer ${a.session}`, 'content-type': 'text/plain' }, payload: 'ids' });
  t.is(raw.statusCode, 415);
});

test('bulk review with 100 ids, most of them foreign or unknown, updates the caller\'s and lists the rest', async (t) => {
  const who = await newAccount(gw);
  const mine = [await seed({ userId: who.userId }), await seed({ userId: who.userId })];
  const theirs = await seed({ userId: b.userId });
  const ids = [...mine, theirs, ...Array.from({ length: 97 }, (_, i) => `unknown-${i}`)];
  const res = await call<{ updated: number; skipped: string[] }>('bulkUpdateReviewStatus', { as: who.liveKey, body: { ids, review_status: 'flagged' } });
  t.is(res.status, 200);
  t.is(res.body.updated, 2);
  t.is(res.body.skipped.length, 98);
  t.true(res.body.skipped.includes(theirs));
});
