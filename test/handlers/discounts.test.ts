// Issue 11, model discounts (README "Discounts"): the billing routes and their roles, bad bodies,
// unknown users, audit rows; which discount applies (exact model over `*`, no stacking, expired
// ones ignored) through the one price function the quote and the hold share; a submit charged
// the discounted price with list price and percent on its ledger rows; team discounts. The clock
// is the app's (moved for expiry); the ledger is checked after every test.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { assertLedger, ledgerCheckedAfterEach } from '../helpers/ledger.ts';
import { waitFor } from '../helpers/services.ts';
import { createTeam } from '../../db/teams.ts';
import { creditTeam, holdFor, settleFor } from '../../db/wallet/moves.ts';
import { applyDiscount, chooseDiscount } from '../../spec/pricing.ts';

let gw: TestGateway;
/** moved forward by the expiry test (serial: it runs before the concurrent tests) */
let offset = 0;
type Who = Account & { email: string };
const as: Record<'user' | 'support' | 'billing' | 'admin', Who> = {} as never;

async function account(credit = 0): Promise<Who> {
  const acct = await newAccount(gw, credit);
  const row = await gw.app.db('users').where({ id: acct.userId }).first('email');
  return { ...acct, email: String(row.email) };
}

test.before(async () => {
  gw = await startGateway({ worker: true, clock: () => Date.now() + offset });
  for (const role of ['user', 'support', 'billing', 'admin'] as const) {
    as[role] = await account();
    await gw.app.db('users').where({ id: as[role].userId }).update({ role });
  }
});
test.after.always(async () => { await gw?.stop(); });
ledgerCheckedAfterEach(test, () => gw?.app.db);

const SLUG = 'canvas-v1-fast-text-to-image';
const OTHER = 'chime-v1-fast-text-to-audio';
// base 2 + 3 x num_images
const INPUT = { prompt: 'p', width: 64, height: 64, num_images: 4 };
const LIST = 14;

type Discount = { id: number; email: string; team_id: number | null; model: string; percent_off: number; expires_at: string | null; reason: string | null };
type Quote = { cost: number; list_price: number; discount: { percent: number; amount: number } | null };

async function upsert(discounts: unknown[], opts: { as?: string; team_id?: number; reason?: string } = {}) {
  return callOperation<Discount[]>(gw, 'upsertModelDiscounts', {
    as: opts.as ?? as.billing.session, ...(opts.team_id === undefined ? {} : { query: { team_id: opts.team_id } }),
    body: { discounts, ...(opts.reason ? { reason: opts.reason } : {}) },
  });
}

async function quote(who: string, model = SLUG, input: Record<string, unknown> = INPUT, teamId?: number): Promise<Quote> {
  const res = await callOperation<Quote>(gw, 'calculateDynamicCost', { as: who, ...(teamId === undefined ? {} : { query: { team_id: teamId } }), body: { model, input } });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body;
}

test('the pure rule: exact model over *, the larger percent among equals, expired ignored; the price rounds down', (t) => {
  const d = (id: number, model: string, percentOff: number, expiresAt: number | null = null) => ({ id, model, percentOff, expiresAt });
  t.is(chooseDiscount([d(1, '*', 50), d(2, 'm', 10)], 'm', 0)?.id, 2, 'exact wins even when smaller');
  t.is(chooseDiscount([d(1, '*', 50), d(2, 'm', 10, 100)], 'm', 100)?.id, 1, 'an expired exact one falls back to *');
  t.is(chooseDiscount([d(1, 'm', 10), d(2, 'm', 30), d(3, '*', 90)], 'm', 0)?.id, 2, 'the larger percent among equally specific ones');
  t.is(chooseDiscount([d(1, 'n', 10)], 'm', 0), null, 'another model does not apply');
  t.is(chooseDiscount([d(1, '*', 10, 5)], 'm', 4)?.id, 1, 'not yet expired');
  t.is(applyDiscount(5, 33), 3, '5 x 0.67 = 3.35 -> 3');
  t.is(applyDiscount(14, 50), 7);
  t.is(applyDiscount(14, 100), 0);
  t.is(applyDiscount(14, null), 14);
});

test('the pure rule: a discount below 100 % never takes a price of at least 1 credit below 1 credit; 100 % off is free', (t) => {
  t.is(applyDiscount(1, 1), 1, '1 x 0.99 = 0.99 -> 0, raised to 1');
  t.is(applyDiscount(1, 99), 1);
  t.is(applyDiscount(5, 90), 1, '5 x 0.1 = 0.5 -> 0, raised to 1');
  t.is(applyDiscount(2, 50), 1);
  t.is(applyDiscount(1, 100), 0);
  t.is(applyDiscount(0, 50), 0, 'nothing stays nothing');
  t.is(applyDiscount(14, 33), 9, 'still rounded down above 1');
  // the price never goes up with the percent nor down with the list price: a hold covers any charge below it
  for (let list = 0; list <= 300; list++) {
    for (let pct = 1; pct <= 100; pct++) {
      const price = applyDiscount(list, pct);
      if (price > list || price < 0) t.fail(`${list} at ${pct} % off: ${price}`);
      if (pct < 100 && list >= 1 && price < 1) t.fail(`${list} at ${pct} % off: ${price}`);
      if (applyDiscount(list + 1, pct) < price) t.fail(`${list + 1} at ${pct} % off costs less than ${list}`);
      if (pct < 100 && applyDiscount(list, pct + 1) > price) t.fail(`${list} at ${pct + 1} % off costs more than at ${pct} %`);
    }
  }
  t.pass();
});

test.serial('billing and admin manage discounts; user and support get 403 role_required; an API key 403 session_required; myModelDiscounts is any caller\'s', async (t) => {
  const target = await account();
  for (const role of ['user', 'support'] as const) {
    const s = as[role].session;
    t.like(await callOperation(gw, 'listModelDiscounts', { as: s }), { status: 403, body: { code: 'role_required' } }, role);
    t.like(await upsert([{ email: target.email, model: '*', percent_off: 5 }], { as: s }), { status: 403, body: { code: 'role_required' } }, role);
    t.like(await callOperation(gw, 'deleteModelDiscount', { as: s, params: { discount_id: 1 } }), { status: 403, body: { code: 'role_required' } }, role);
  }
  t.like(await upsert([{ email: target.email, model: '*', percent_off: 5 }], { as: as.admin.liveKey }), { status: 403, body: { code: 'session_required' } });
  for (const role of ['billing', 'admin'] as const) {
    const up = await upsert([{ email: target.email, model: '*', percent_off: role === 'billing' ? 5 : 6 }], { as: as[role].session, reason: `by ${role}` });
    t.is(up.status, 200, JSON.stringify(up.body));
    t.like(up.body[0], { email: target.email, team_id: null, model: '*', percent_off: role === 'billing' ? 5 : 6, expires_at: null, reason: `by ${role}` });
    const list = await callOperation<Discount[]>(gw, 'listModelDiscounts', { as: as[role].session, query: { email: target.email } });
    t.is(list.status, 200);
    t.deepEqual(list.body.map((d) => d.percent_off), [role === 'billing' ? 5 : 6], 'one per (wallet, model): the second replaced the first');
  }
  // the owner sees it with a session or a key
  for (const credential of [target.session, target.liveKey]) {
    const mine = await callOperation<Discount[]>(gw, 'myModelDiscounts', { as: credential });
    t.like(mine, { status: 200, body: [{ model: '*', percent_off: 6 }] });
  }
  t.deepEqual((await callOperation<Discount[]>(gw, 'myModelDiscounts', { as: as.user.session })).body, [], 'nobody else\'s');
  const id = (await callOperation<Discount[]>(gw, 'myModelDiscounts', { as: target.session })).body[0]!.id;
  t.like(await callOperation(gw, 'deleteModelDiscount', { as: as.billing.session, params: { discount_id: id } }), { status: 200, body: { id, deleted: true } });
  t.is((await callOperation(gw, 'deleteModelDiscount', { as: as.billing.session, params: { discount_id: id } })).status, 404);
  t.deepEqual((await callOperation<Discount[]>(gw, 'myModelDiscounts', { as: target.session })).body, []);
  // every call was audited: the refusals, the changes with their target and reason
  const rows = await gw.app.db('admin_audit').whereIn('action', ['upsertModelDiscounts', 'deleteModelDiscount', 'listModelDiscounts']).orderBy('id');
  const refused = rows.filter((r: { status: number }) => Number(r.status) === 403);
  t.is(refused.length, 7);
  const upserts = rows.filter((r: { action: string; status: number }) => r.action === 'upsertModelDiscounts' && Number(r.status) === 200);
  t.deepEqual(upserts.map((r: { target_user_id: number; reason: string; actor_role: string }) => [Number(r.target_user_id), r.reason, r.actor_role]), [
    [target.userId, 'by billing', 'billing'], [target.userId, 'by admin', 'admin'],
  ]);
  const deletes = rows.filter((r: { action: string }) => r.action === 'deleteModelDiscount').map((r: { status: number; target_user_id: number | null }) => [Number(r.status), r.target_user_id === null ? null : Number(r.target_user_id)]);
  t.deepEqual(deletes.slice(-2), [[200, target.userId], [404, null]]);
});

test('422 for bad bodies (percent 0 or 101, an unknown model, an expiry in the past, unknown fields), 404 for unknown users, teams and ids', async (t) => {
  const target = await account();
  const bad = async (item: Record<string, unknown>) => (await upsert([{ email: target.email, model: '*', percent_off: 10, ...item }])).status;
  t.is(await bad({ percent_off: 0 }), 422);
  t.is(await bad({ percent_off: 101 }), 422);
  t.is(await bad({ percent_off: 12.5 }), 422);
  t.is(await bad({ model: 'no-such-model' }), 422);
  t.is(await bad({ expires_at: new Date(Date.now() - 60_000).toISOString() }), 422);
  t.is(await bad({ extra: true }), 422);
  t.is((await upsert([])).status, 422);
  const unknownModel = await upsert([{ email: target.email, model: SLUG, percent_off: 10 }, { email: target.email, model: 'nope', percent_off: 10 }]);
  t.like(unknownModel, { status: 422, body: { detail: [{ loc: ['body', 'discounts', 1, 'model'] }] } as never });
  t.deepEqual((await callOperation<Discount[]>(gw, 'myModelDiscounts', { as: target.session })).body, [], 'all or nothing: the good item was not stored');
  t.is((await upsert([{ email: 'nobody-here@example.com', model: '*', percent_off: 10 }])).status, 404);
  t.is((await callOperation(gw, 'listModelDiscounts', { as: as.billing.session, query: { email: 'nobody-here@example.com' } })).status, 404);
  t.is((await callOperation(gw, 'listModelDiscounts', { as: as.billing.session, query: { team_id: 999_999 } })).status, 404);
  t.is((await upsert([{ email: target.email, model: '*', percent_off: 10 }], { team_id: 999_999 })).status, 404);
  t.is((await callOperation(gw, 'deleteModelDiscount', { as: as.billing.session, params: { discount_id: 999_999 } })).status, 404);
});

test.serial('the list of every discount is 100 a page, newest first: before (the last id of a page) reads the next, so no call reads the whole table', async (t) => {
  const owner = await account();
  const now = Date.now();
  const rows = Array.from({ length: 105 }, (_, i) => ({
    owner_key: `user:${owner.userId}`, user_id: owner.userId, team_id: null, model: `paging-${i}`, percent_off: 5, expires_at: null, reason: null, created_by: as.billing.userId, created_at: now, updated_at: now,
  }));
  await gw.app.db('model_discounts').insert(rows);
  await gw.app.db('users').where({ id: owner.userId }).update({ discounts: rows.length });
  const seen: number[] = [];
  let before: number | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const res = await callOperation<Discount[]>(gw, 'listModelDiscounts', { as: as.billing.session, ...(before === undefined ? {} : { query: { before } }) });
    t.is(res.status, 200, JSON.stringify(res.body));
    t.true(res.body.length <= 100, `a page of ${res.body.length}`);
    if (pages === 0) t.is(res.body.length, 100, 'the first page is full');
    if (res.body.length === 0) break;
    const ids = res.body.map((d) => d.id);
    t.deepEqual(ids, [...ids].sort((a, b) => b - a), 'newest first');
    if (before !== undefined) t.true(ids[0]! < before);
    seen.push(...ids);
    before = ids[ids.length - 1];
  }
  const mine = (await gw.app.db('model_discounts').where({ user_id: owner.userId }).select('id')).map((r: { id: number | string }) => Number(r.id));
  t.true(mine.every((id) => seen.includes(id)), 'every discount is on some page');
  t.is(new Set(seen).size, seen.length, 'none on two pages');
  // one wallet's list is bounded by the catalog (one discount per model and *): whole, as before
  t.is((await callOperation<Discount[]>(gw, 'listModelDiscounts', { as: as.billing.session, query: { email: owner.email } })).body.length, 105);
  t.is((await callOperation(gw, 'listModelDiscounts', { as: as.billing.session, query: { before: 0 } })).status, 422);
  await gw.app.db('model_discounts').where({ user_id: owner.userId }).delete();
  await gw.app.db('users').where({ id: owner.userId }).update({ discounts: 0 });
});

test('precedence through the quote: the exact model wins over *, even when smaller; without it * applies; no stacking', async (t) => {
  const acct = await account(1_000);
  await upsert([{ email: acct.email, model: '*', percent_off: 50 }, { email: acct.email, model: SLUG, percent_off: 10 }]);
  t.like(await quote(acct.liveKey), { list_price: LIST, cost: 12, discount: { percent: 10, amount: 2 } }, '14 x 0.9 = 12.6 -> 12');
  t.like(await quote(acct.liveKey, OTHER, { prompt: 'p' }), { discount: { percent: 50 } }, '* on another model');
  const exact = (await callOperation<Discount[]>(gw, 'listModelDiscounts', { as: as.billing.session, query: { email: acct.email } })).body.find((d) => d.model === SLUG)!;
  await callOperation(gw, 'deleteModelDiscount', { as: as.billing.session, params: { discount_id: exact.id } });
  t.like(await quote(acct.liveKey), { list_price: LIST, cost: 7, discount: { percent: 50, amount: 7 } });
});

test.serial('an expired discount is ignored by the quote, the hold and myModelDiscounts (the app\'s clock moved past it)', async (t) => {
  const acct = await account(1_000);
  const expires = new Date(gw.app.clock() + 10 * 60_000).toISOString();
  await upsert([{ email: acct.email, model: SLUG, percent_off: 30, expires_at: expires }, { email: acct.email, model: '*', percent_off: 20 }]);
  t.like(await quote(acct.liveKey), { cost: 9, discount: { percent: 30 } });
  offset = 11 * 60_000;
  try {
    t.like(await quote(acct.liveKey), { cost: 11, discount: { percent: 20 } }, 'the exact one expired: * applies');
    t.deepEqual((await callOperation<Discount[]>(gw, 'myModelDiscounts', { as: acct.liveKey })).body.map((d) => d.model), ['*']);
    const submit = await gw.server.inject({ method: 'POST', url: `/api/v1/${SLUG}`, headers: { 'x-api-key': acct.liveKey }, payload: INPUT });
    t.is((submit.result as { price: number }).price, 11);
    const id = (submit.result as { request_id: string }).request_id;
    await waitFor(async () => (await gw.app.db('predictions').where({ id }).first()).status === 'completed', { what: 'the prediction to complete' });
    // the admin list still shows the expired one
    t.is((await callOperation<Discount[]>(gw, 'listModelDiscounts', { as: as.billing.session, query: { email: acct.email } })).body.length, 2);
  } finally {
    offset = 0;
  }
});

test('a submit is charged the discounted price: the hold and the charge record list price, percent and what was charged, shown by the ledger listing', async (t) => {
  const acct = await account(1_000);
  await upsert([{ email: acct.email, model: SLUG, percent_off: 33 }]);
  const q = await quote(acct.session);
  t.like(q, { list_price: LIST, cost: 9, discount: { percent: 33, amount: 5 } }, '14 x 0.67 = 9.38 -> 9');
  const submit = await gw.server.inject({ method: 'POST', url: `/api/v1/${SLUG}`, headers: { 'x-api-key': acct.liveKey }, payload: INPUT });
  t.is(submit.statusCode, 200, submit.payload);
  t.is((submit.result as { price: number }).price, 9);
  t.is(submit.headers['x-cost'], '9');
  const id = (submit.result as { request_id: string }).request_id;
  await waitFor(async () => (await gw.app.db('predictions').where({ id }).first()).status === 'completed', { what: 'the prediction to complete' });
  const user = await gw.app.db('users').where({ id: acct.userId }).first();
  t.is(Number(user.balance), 1_000 - 9);
  t.is(Number(user.held), 0);
  const rows = await gw.app.db('credit_transactions').where({ prediction_id: id }).orderBy('id');
  t.deepEqual(rows.map((r: Record<string, unknown>) => [r.kind, Number(r.amount), Number(r.held_change), Number(r.list_price), Number(r.discount_percent)]), [
    ['hold', 0, 9, LIST, 33], ['prediction', -9, -9, LIST, 33],
  ]);
  const listing = await callOperation<{ items: Array<{ kind: string; request_id: string | null; list_price: number | null; discount_percent: number | null; charged: number | null }> }>(
    gw, 'listCreditTransactions', { as: acct.session });
  t.deepEqual(listing.body.items.filter((i) => i.request_id === id).map((i) => [i.kind, i.list_price, i.discount_percent, i.charged]), [
    ['prediction', LIST, 33, 9], ['hold', LIST, 33, 9],
  ]);
  t.deepEqual(listing.body.items.filter((i) => i.kind === 'grant').map((i) => [i.list_price, i.discount_percent, i.charged]), [[null, null, null]]);
});

test('without a discount the hold still records its list price, with no percent', async (t) => {
  const acct = await account(100);
  const submit = await gw.server.inject({ method: 'POST', url: `/api/v1/${SLUG}`, headers: { 'x-api-key': acct.liveKey }, payload: INPUT });
  const id = (submit.result as { request_id: string; price: number }).request_id;
  t.is((submit.result as { price: number }).price, LIST);
  await waitFor(async () => (await gw.app.db('predictions').where({ id }).first()).status === 'completed', { what: 'the prediction to complete' });
  const rows = await gw.app.db('credit_transactions').where({ prediction_id: id }).orderBy('id');
  t.deepEqual(rows.map((r: Record<string, unknown>) => [r.kind, Number(r.list_price), r.discount_percent]), [['hold', LIST, null], ['prediction', LIST, null]]);
});

test('the charge copies list price and percent from the prediction row when it has them, else from the hold row (rows before migration 3101)', async (t) => {
  const acct = await account(1_000);
  const payer = { userId: acct.userId, teamId: null };
  const db = gw.app.db;
  const ids = ['p-billing-row', 'p-billing-old'];
  for (const id of ids) await db.transaction((trx) => holdFor(trx, payer, 9, { predictionId: `${id}-${acct.userId}`, model: SLUG, now: 1, listPrice: LIST, discountPercent: 33 }));
  let holdReads = 0;
  // only this test's reads (the file's tests run concurrently on one gateway)
  const mine = new Set(ids.map((id) => `${id}-${acct.userId}`));
  const onQuery = (q: { sql: string; bindings?: unknown[] }) => {
    if (/^select .*from `?credit_transactions`? where/i.test(q.sql) && (q.bindings ?? []).some((b) => mine.has(String(b)))) holdReads++;
  };
  db.on('query', onQuery);
  try {
    await db.transaction((trx) => settleFor(trx, payer, 9, `${ids[0]}-${acct.userId}`, SLUG, 2, { listPrice: LIST, discountPercent: 33 }));
    t.is(holdReads, 0, 'with the prediction row\'s copy the hold row is not read');
    await db.transaction((trx) => settleFor(trx, payer, 9, `${ids[1]}-${acct.userId}`, SLUG, 2, { listPrice: null, discountPercent: null }));
    t.is(holdReads, 1, 'a row without the copy reads the hold row');
  } finally {
    db.off('query', onQuery);
  }
  for (const id of ids) {
    const rows = await db('credit_transactions').where({ prediction_id: `${id}-${acct.userId}` }).orderBy('id');
    t.deepEqual(rows.map((r: Record<string, unknown>) => [r.kind, Number(r.amount), Number(r.list_price), Number(r.discount_percent)]), [['hold', 0, LIST, 33], ['prediction', -9, LIST, 33]], id);
  }
  const user = await db('users').where({ id: acct.userId }).first();
  t.is(Number(user.balance), 1_000 - 18);
  t.is(Number(user.held), 0);
});

test('the wallet row counts its discounts in the upsert\'s and delete\'s transaction, so a key\'s owner without any skips the lookup and one with a discount gets it on the next submit', async (t) => {
  const acct = await account(1_000);
  const team = await createTeam(gw.app.db, acct.userId, 'Marker', Date.now());
  const marker = async () => [
    Number((await gw.app.db('users').where({ id: acct.userId }).first('discounts')).discounts),
    Number((await gw.app.db('teams').where({ id: team.id }).first('discounts')).discounts),
  ];
  t.deepEqual(await marker(), [0, 0]);
  const submitPrice = async () => {
    const res = await gw.server.inject({ method: 'POST', url: `/api/v1/${SLUG}`, headers: { 'x-api-key': acct.liveKey }, payload: INPUT });
    t.is(res.statusCode, 200, res.payload);
    return (res.result as { price: number }).price;
  };
  t.is(await submitPrice(), LIST);
  const a = await upsert([{ email: acct.email, model: SLUG, percent_off: 50 }, { email: acct.email, model: '*', percent_off: 10 }]);
  t.is(a.status, 200);
  t.deepEqual(await marker(), [2, 0]);
  t.is(await submitPrice(), 7, 'the marker read with the key says there are discounts: the lookup runs');
  await upsert([{ email: acct.email, model: SLUG, percent_off: 25 }]);
  t.deepEqual(await marker(), [2, 0], 'replacing one keeps the count');
  t.is((await upsert([{ email: acct.email, model: '*', percent_off: 20 }], { team_id: team.id })).status, 200);
  t.deepEqual(await marker(), [2, 1]);
  for (const d of a.body) t.is((await callOperation(gw, 'deleteModelDiscount', { as: as.billing.session, params: { discount_id: d.id } })).status, 200);
  t.deepEqual(await marker(), [0, 1]);
  t.is(await submitPrice(), LIST);
  const ids = (await gw.app.db('predictions').where({ user_id: acct.userId }).select('id')).map((r: { id: string }) => r.id);
  await waitFor(async () => (await gw.app.db('predictions').whereIn('id', ids).whereNot('status', 'completed')).length === 0, { what: 'the predictions to complete' });
});

test('a team discount applies to what the team wallet pays (team_id, the team\'s key), not to the members\' own wallets, and the reverse', async (t) => {
  const owner = await account(1_000);
  const outsider = await account();
  const team = await createTeam(gw.app.db, owner.userId, 'Discounted', Date.now());
  await gw.app.db.transaction((trx) => creditTeam(trx, team.id, owner.userId, 1_000, 'grant', 'test credit', Date.now()));
  t.is((await upsert([{ email: outsider.email, model: '*', percent_off: 50 }], { team_id: team.id })).status, 404, 'the email must name a member');
  const up = await upsert([{ email: owner.email, model: '*', percent_off: 50 }], { team_id: team.id, reason: 'team deal' });
  t.like(up, { status: 200, body: [{ email: owner.email, team_id: team.id, model: '*', percent_off: 50 }] });
  t.like(await quote(owner.session, SLUG, INPUT, team.id), { cost: 7, discount: { percent: 50 } });
  t.like(await quote(owner.session), { cost: LIST, discount: null }, 'the owner\'s own wallet has no discount');
  t.like(await callOperation<Discount[]>(gw, 'myModelDiscounts', { as: owner.session, query: { team_id: team.id } }), { status: 200, body: [{ team_id: team.id, percent_off: 50 }] });
  t.deepEqual((await callOperation<Discount[]>(gw, 'myModelDiscounts', { as: owner.session })).body, []);
  t.is((await callOperation(gw, 'myModelDiscounts', { as: outsider.session, query: { team_id: team.id } })).status, 404, 'not a member');
  t.like(await callOperation<Discount[]>(gw, 'listModelDiscounts', { as: as.billing.session, query: { team_id: team.id } }), { status: 200, body: [{ team_id: team.id }] });
  const teamAudit = await gw.app.db('admin_audit').where({ action: 'upsertModelDiscounts', target_team_id: team.id, status: 200 }).first();
  t.is(teamAudit.reason, 'team deal');

  const submit = await gw.server.inject({ method: 'POST', url: `/api/v1/${SLUG}?team_id=${team.id}`, headers: { 'x-api-key': owner.liveKey }, payload: INPUT });
  t.is(submit.statusCode, 200, submit.payload);
  t.is((submit.result as { price: number }).price, 7);
  const id = (submit.result as { request_id: string }).request_id;
  await waitFor(async () => (await gw.app.db('predictions').where({ id }).first()).status === 'completed', { what: 'the team prediction to complete' });
  const charge = await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' }).first();
  t.like({ team_id: Number(charge.team_id), amount: Number(charge.amount), list_price: Number(charge.list_price), discount_percent: Number(charge.discount_percent) },
    { team_id: team.id, amount: -7, list_price: LIST, discount_percent: 50 });
  // a team's API key pays from the team wallet: the team's discount, in the quote and the hold
  const teamKey = await callOperation<{ key: string }>(gw, 'createTeamApiKey', { as: owner.session, params: { team_id: team.id }, body: { name: 'ci' } });
  t.is(teamKey.status, 201, JSON.stringify(teamKey.body));
  t.like(await quote(teamKey.body.key), { cost: 7, discount: { percent: 50 } });
  const byKey = await gw.server.inject({ method: 'POST', url: `/api/v1/${SLUG}`, headers: { 'x-api-key': teamKey.body.key }, payload: INPUT });
  t.is((byKey.result as { price: number }).price, 7, byKey.payload);
  const keyId = (byKey.result as { request_id: string }).request_id;
  await waitFor(async () => (await gw.app.db('predictions').where({ id: keyId }).first()).status === 'completed', { what: 'the team key\'s prediction to complete' });
  const own = await gw.server.inject({ method: 'POST', url: `/api/v1/${SLUG}`, headers: { 'x-api-key': owner.liveKey }, payload: INPUT });
  t.is((own.result as { price: number }).price, LIST, 'the personal wallet pays the list price');
  const ownId = (own.result as { request_id: string }).request_id;
  await waitFor(async () => (await gw.app.db('predictions').where({ id: ownId }).first()).status === 'completed', { what: 'the personal prediction to complete' });
});

test('a discount\'s reason is stored with each address as the account it names, as the audit row is: it outlives the erasure of the person it names', async (t) => {
  const owner = await account();
  const team = await createTeam(gw.app.db, owner.userId, 'Named', Date.now());
  const reason = `deal agreed with ${owner.email} and nobody-${owner.userId}@example.org.`;
  const up = await upsert([{ email: owner.email, model: '*', percent_off: 10 }], { team_id: team.id, reason });
  t.is(up.status, 200, JSON.stringify(up.body));
  const written = `deal agreed with user:${owner.userId} and [address].`;
  t.is(up.body[0]!.reason, written);
  t.is((await gw.app.db('model_discounts').where({ team_id: team.id }).first('reason')).reason, written);
  const audit = await gw.app.db('admin_audit').where({ action: 'upsertModelDiscounts', target_team_id: team.id, status: 200 }).first();
  t.is(audit.reason, written);
  // the words that replace addresses may be longer than them: what is stored is cut to the column, never a 5xx
  const many = await upsert([{ email: owner.email, model: SLUG, percent_off: 10 }], { team_id: team.id, reason: 'a@b.c '.repeat(42).trim() });
  t.is(many.status, 200, JSON.stringify(many.body));
  t.is(many.body[0]!.reason!.length, 255);
  t.false(many.body[0]!.reason!.includes('@'));
  // a personal discount's too: it may name a third person, whose erasure would not reach it
  const other = await account();
  const personal = await upsert([{ email: other.email, model: '*', percent_off: 5 }], { reason: `referred by ${owner.email}` });
  t.is(personal.status, 200, JSON.stringify(personal.body));
  t.is(personal.body[0]!.reason, `referred by user:${owner.userId}`);
});

test('an idempotent retry of an upsert and a delete answers the first answer; the same key with another body is 409', async (t) => {
  const acct = await account();
  const key = { 'idempotency-key': `disc-${acct.userId}` };
  const body = { discounts: [{ email: acct.email, model: SLUG, percent_off: 20 }] };
  const first = await callOperation<Discount[]>(gw, 'upsertModelDiscounts', { as: as.billing.session, headers: key, body });
  const again = await callOperation<Discount[]>(gw, 'upsertModelDiscounts', { as: as.billing.session, headers: key, body });
  t.is(first.status, 200);
  t.deepEqual(again.body, first.body);
  t.is(again.headers['idempotent-replayed'], 'true');
  const other = await callOperation(gw, 'upsertModelDiscounts', { as: as.billing.session, headers: key, body: { discounts: [{ email: acct.email, model: SLUG, percent_off: 21 }] } });
  t.is(other.status, 409);
  const id = first.body[0]!.id;
  const del = { 'idempotency-key': `disc-del-${acct.userId}` };
  t.is((await callOperation(gw, 'deleteModelDiscount', { as: as.billing.session, headers: del, params: { discount_id: id } })).status, 200);
  t.like(await callOperation(gw, 'deleteModelDiscount', { as: as.billing.session, headers: del, params: { discount_id: id } }), { status: 200, body: { id, deleted: true } });
});

test('on the embedded SQLite default: the migration, an upsert replacing a discount, the discounted hold and its ledger rows', async (t) => {
  const lite = await startGateway({ db: 'sqlite', queue: 'memory', worker: true });
  t.teardown(() => lite.stop());
  const admin = await newAccount(lite);
  await lite.app.db('users').where({ id: admin.userId }).update({ role: 'billing' });
  const acct = await newAccount(lite, 1_000);
  const email = String((await lite.app.db('users').where({ id: acct.userId }).first()).email);
  t.is((await callOperation(lite, 'upsertModelDiscounts', { as: admin.session, body: { discounts: [{ email, model: '*', percent_off: 10 }] } })).status, 200);
  const up = await callOperation<Discount[]>(lite, 'upsertModelDiscounts', { as: admin.session, body: { discounts: [{ email, model: '*', percent_off: 50 }] } });
  t.like(up, { status: 200, body: [{ percent_off: 50 }] });
  t.is((await lite.app.db('model_discounts')).length, 1, 'replaced, not added');
  const submit = await lite.server.inject({ method: 'POST', url: `/api/v1/${SLUG}`, headers: { 'x-api-key': acct.liveKey }, payload: INPUT });
  t.is((submit.result as { price: number }).price, 7, submit.payload);
  const id = (submit.result as { request_id: string }).request_id;
  await waitFor(async () => (await lite.app.db('predictions').where({ id }).first()).status === 'completed', { what: 'the prediction to complete' });
  const rows = await lite.app.db('credit_transactions').where({ prediction_id: id }).orderBy('id');
  t.deepEqual(rows.map((r: Record<string, unknown>) => [r.kind, Number(r.amount), Number(r.list_price), Number(r.discount_percent)]), [['hold', 0, LIST, 50], ['prediction', -7, LIST, 50]]);
  await assertLedger(t, lite.app.db);
});

test('an embed code\'s visitor is charged with its owner\'s discount (the payer\'s)', async (t) => {
  const owner = await account(1_000);
  await upsert([{ email: owner.email, model: SLUG, percent_off: 50 }]);
  const shop = 'https://shop.example.com';
  const created = await callOperation<{ code: string }>(gw, 'createEmbedCode', { as: owner.session, body: { kind: 'embed', name: 'widget', models: [SLUG], allowed_origins: [shop] } });
  t.is(created.status, 201, JSON.stringify(created.body));
  const res = await gw.server.inject({ method: 'POST', url: `/api/v1/${SLUG}`, headers: { 'x-embed-code': created.body.code, origin: shop, 'content-type': 'application/json' }, payload: INPUT });
  t.is(res.statusCode, 200, res.payload);
  t.is((res.result as { price: number }).price, 7);
  const id = (res.result as { request_id: string }).request_id;
  await waitFor(async () => (await gw.app.db('predictions').where({ id }).first()).status === 'completed', { what: 'the embed prediction to complete' });
  const charge = await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' }).first();
  t.like({ user_id: Number(charge.user_id), amount: Number(charge.amount), discount_percent: Number(charge.discount_percent) }, { user_id: owner.userId, amount: -7, discount_percent: 50 });
});
