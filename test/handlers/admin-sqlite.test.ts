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
