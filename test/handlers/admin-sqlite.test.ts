// The embedded default (SQLite, in-process queue): the ledger, the admin money routes and the
// audit log work the same, and the ledger adds up.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { assertLedger } from '../helpers/ledger.ts';
import { waitFor } from '../helpers/services.ts';

test('on SQLite: submit, top-up, deduction, partial refunds and the audit log, with the ledger adding up', async (t) => {
  const gw = await startGateway({ db: 'sqlite', queue: 'memory', worker: true });
  t.teardown(() => gw.stop());
  const admin = await newAccount(gw);
  await gw.app.db('users').where({ id: admin.userId }).update({ role: 'admin' });
  const acct = await newAccount(gw, 1_000);
  const email = String((await gw.app.db('users').where({ id: acct.userId }).first()).email);
  const submit = await gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'p', width: 64, height: 64 } });
  t.is(submit.statusCode, 200);
  const id = (submit.result as { request_id: string }).request_id;
  await waitFor(async () => (await gw.app.db('predictions').where({ id }).first()).status === 'completed', { what: 'the prediction to complete' });
  t.is((await callOperation(gw, 'adminTopup', { as: admin.session, body: { email, amount: 100 } })).status, 200);
  t.is((await callOperation(gw, 'adminDeductCredits', { as: admin.session, body: { email, amount: 10_000 } })).status, 409);
  t.is((await callOperation(gw, 'adminDeductCredits', { as: admin.session, body: { email, amount: 30 } })).status, 200);
  t.is((await callOperation(gw, 'adminRefund', { as: admin.session, body: { request_id: id, amount: 1 } })).status, 200);
  t.is((await callOperation(gw, 'adminRefund', { as: admin.session, body: { request_id: id } })).status, 200);
  t.is((await callOperation(gw, 'adminRefund', { as: admin.session, body: { request_id: id } })).status, 409);
  const kinds = (await gw.app.db('credit_transactions').where({ user_id: acct.userId }).orderBy('id')).map((r: { kind: string }) => r.kind);
  t.deepEqual(kinds, ['grant', 'hold', 'prediction', 'topup', 'deduction', 'refund', 'refund']);
  const log = await callOperation<{ total: number }>(gw, 'adminAuditLog', { as: admin.session, query: { target_user_id: acct.userId } });
  t.is(log.body.total, 6);
  await assertLedger(t, gw.app.db);
});

test('on SQLite: impersonation, support links (the reset in one transaction) and deleting a user', async (t) => {
  const gw = await startGateway({ db: 'sqlite', queue: 'memory', worker: true });
  t.teardown(() => gw.stop());
  const admin = await newAccount(gw);
  await gw.app.db('users').where({ id: admin.userId }).update({ role: 'admin' });
  const acct = await newAccount(gw, 1_000);
  const email = String((await gw.app.db('users').where({ id: acct.userId }).first()).email);

  const token = await callOperation<string>(gw, 'virtualLogin', { as: admin.session, body: { email, reason: 'ticket 1' } });
  t.is(token.status, 200);
  const me = await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { authorization: `Bearer ${token.body}` } });
  t.is(me.headers['x-impersonated-by'], String(admin.userId));
  t.like((await gw.server.inject({ method: 'POST', url: '/api/v1/keys', headers: { authorization: `Bearer ${token.body}` }, payload: { name: 'x', is_test: true } })).result, { code: 'impersonation_forbidden' });

  const link = await callOperation<{ url: string }>(gw, 'adminPasswordResetLink', { as: admin.session, body: { email, reason: 'ticket 1' } });
  const linkToken = new URLSearchParams(link.body.url.split('?')[1]).get('token')!;
  t.is((await callOperation(gw, 'supportResetPassword', { body: { token: linkToken, new_password: 'a brand new password' } })).status, 200);
  t.is((await callOperation(gw, 'supportResetPassword', { body: { token: linkToken, new_password: 'a brand new password' } })).status, 410);
  t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { authorization: `Bearer ${acct.session}` } })).statusCode, 401);

  t.is((await callOperation(gw, 'adminDeleteUser', { as: admin.session, body: { email: String((await gw.app.db('users').where({ id: admin.userId }).first()).email) } })).status, 409, 'the last admin');
  t.is((await callOperation(gw, 'adminDeleteUser', { as: admin.session, body: { email } })).status, 200);
  t.is((await gw.app.db('users').where({ id: acct.userId }).first()).email, `deleted-${acct.userId}@deleted.invalid`);
  t.deepEqual(await gw.app.db('api_keys').where({ user_id: acct.userId }), []);
  await assertLedger(t, gw.app.db);
});

test('on SQLite: the bounded staff reads (every discount a page at a time, a user\'s newest keys with their count) and the leap-second refusal', async (t) => {
  const gw = await startGateway({ db: 'sqlite', queue: 'memory' });
  t.teardown(() => gw.stop());
  const admin = await newAccount(gw);
  await gw.app.db('users').where({ id: admin.userId }).update({ role: 'admin' });
  const acct = await newAccount(gw);
  const email = String((await gw.app.db('users').where({ id: acct.userId }).first()).email);
  const now = Date.now();
  await gw.app.db('model_discounts').insert(Array.from({ length: 102 }, (_, i) => ({
    owner_key: `user:${acct.userId}`, user_id: acct.userId, team_id: null, model: `paging-${i}`, percent_off: 5, expires_at: null, reason: null, created_by: admin.userId, created_at: now, updated_at: now,
  })));
  await gw.app.db('users').where({ id: acct.userId }).update({ discounts: 102 });
  const first = await callOperation<Array<{ id: number }>>(gw, 'listModelDiscounts', { as: admin.session });
  t.is(first.body.length, 100);
  const next = await callOperation<Array<{ id: number }>>(gw, 'listModelDiscounts', { as: admin.session, query: { before: first.body[99]!.id } });
  t.is(next.body.length, 2);
  await gw.app.db('api_keys').insert(Array.from({ length: 105 }, (_, i) => ({ user_id: acct.userId, name: `bulk-${i}`, prefix: `mg_bulk${i}`, key_hash: `bulk-${i}-`.padEnd(64, 'x'), is_test: true, created_at: now + i })));
  const info = await callOperation<{ api_key_count: number; api_keys: unknown[] }>(gw, 'adminUserInfo', { as: admin.session, query: { email } });
  t.like(info.body, { api_key_count: 107 });
  t.is(info.body.api_keys.length, 100);
  t.is((await callOperation(gw, 'adminAuditLog', { as: admin.session, query: { since: '2026-06-30T23:59:60Z' } })).status, 422);
});
