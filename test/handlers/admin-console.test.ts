// The operator console's routes (adminListUsers, adminUserRuns, adminStats, adminFailures): the
// user list's search, filters, sorting and paging; a user's runs with the provider's error; the
// gateway's totals per day with failures by model and provider; the failures list. Staff roles
// only (a key or a plain user is refused) and every call audited. MariaDB, RabbitMQ, a worker;
// the failing upstream provider is third-party HTTP: nock.
import test from 'ava';
import nock from 'nock';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { uniqueName, waitFor } from '../helpers/services.ts';
import { newPredictionId } from '../../db/predictions/record.ts';

const UPSTREAM = 'https://lumen.upstream.test';
let gw: TestGateway;
let support: Account;

test.before(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  gw = await startGateway({ worker: true, env: { UPSTREAM_LUMEN_URL: UPSTREAM, UPSTREAM_LUMEN_KEY: 'sk-upstream-secret' } });
  support = await newAccount(gw);
  await gw.app.db('users').where({ id: support.userId }).update({ role: 'support' });
});
test.after.always(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  await gw?.stop();
});

const emailOf = async (a: Account) => (await gw.app.db('users').where({ id: a.userId }).first<{ email: string }>('email'))!.email;

async function finished(id: string): Promise<string> {
  return waitFor(async () => {
    const row = await gw.app.db('predictions').where({ id }).first<{ status: string }>('status');
    return row && ['completed', 'failed', 'cancelled'].includes(row.status) ? row.status : undefined;
  }, { what: 'the run to finish', timeoutMs: 60_000 });
}

test.serial('only staff sessions get the console; a plain user and an API key are refused; every call is audited', async (t) => {
  const user = await newAccount(gw);
  const plain = await callOperation<{ code: string }>(gw, 'adminListUsers', { as: user.session });
  t.is(plain.status, 403);
  t.is(plain.body.code, 'role_required');
  const key = await callOperation<{ code: string }>(gw, 'adminStats', { as: support.liveKey });
  t.is(key.status, 403);
  t.is(key.body.code, 'session_required');
  t.is((await callOperation(gw, 'adminListUsers', { as: support.session, query: { q: 'example' } })).status, 200);
  const rows = await gw.app.db('admin_audit').where({ actor_user_id: support.userId }).orderBy('id');
  t.deepEqual(rows.map((r: { action: string; status: number | string }) => [r.action, Number(r.status)]), [['adminStats', 403], ['adminListUsers', 200]]);
});

test.serial('the user list searches by part of the email or an id, filters by role, team, verification and deletion, sorts and pages', async (t) => {
  const tag = uniqueName('cl').toLowerCase();
  const accounts: Account[] = [];
  for (let i = 0; i < 3; i++) {
    const email = `${tag}-${i}@example.com`;
    await gw.server.inject({ method: 'POST', url: '/auth/register', payload: { email, password: 'correct horse battery' } });
    const id = (await gw.app.db('users').where({ email }).first<{ id: number }>('id'))!.id;
    accounts.push({ userId: id, session: '', liveKey: '', testKey: '' });
  }
  await gw.app.db('users').where({ id: accounts[0]!.userId }).update({ email_verified: true, role: 'billing', balance: 50 });
  await gw.app.db('users').where({ id: accounts[2]!.userId }).update({ deleted_at: Date.now() });
  type List = { items: Array<{ id: number; email: string; role: string; deleted_at: string | null }>; total: number; has_more: boolean; page: number };
  const list = (query: Record<string, string | number | boolean>) => callOperation<List>(gw, 'adminListUsers', { as: support.session, query });

  const all = await list({ q: tag });
  t.is(all.body.total, 3);
  t.deepEqual(all.body.items.map((u) => u.email), [2, 1, 0].map((i) => `${tag}-${i}@example.com`), 'newest first by default');
  // digits match the account with that id (and any email that contains them)
  t.true((await list({ q: String(accounts[1]!.userId), page_size: 100 })).body.items.some((u) => u.id === accounts[1]!.userId));
  t.deepEqual((await list({ q: tag, role: 'billing' })).body.items.map((u) => u.id), [accounts[0]!.userId]);
  t.deepEqual((await list({ q: tag, verified: true })).body.items.map((u) => u.id), [accounts[0]!.userId]);
  t.deepEqual((await list({ q: tag, deleted: true })).body.items.map((u) => u.id), [accounts[2]!.userId]);
  t.is((await list({ q: tag, deleted: false })).body.total, 2);
  t.deepEqual((await list({ q: tag, sort: 'email', order: 'asc' })).body.items.map((u) => u.email), [0, 1, 2].map((i) => `${tag}-${i}@example.com`));
  t.is((await list({ q: tag, sort: 'balance', order: 'desc' })).body.items[0]!.id, accounts[0]!.userId);
  const page1 = await list({ q: tag, page_size: 2 });
  t.like(page1.body, { total: 3, has_more: true });
  const page2 = await list({ q: tag, page_size: 2, page: 2 });
  t.like(page2.body, { has_more: false });
  t.is(page2.body.items.length, 1);
  // a search with LIKE's own characters matches them as typed
  t.is((await list({ q: `${tag}%` })).body.total, 0);

  const owner = await newAccount(gw);
  const team = await callOperation<{ id: number }>(gw, 'createTeam', { as: owner.session, body: { name: 'console team' } });
  t.deepEqual((await list({ in_team: team.body.id })).body.items.map((u) => u.id), [owner.userId]);
  t.is((await list({ role: 'nobody' as string })).status, 422);
});

test.serial('a failed run: in the user\'s runs and the failures list with the provider\'s error, and counted by model and provider in the totals', async (t) => {
  const acct = await newAccount(gw, 100_000);
  const statsBefore = await callOperation<{ days: Array<{ failed: number; spend: number; completed: number }>; failures: Array<{ model: string; provider: string | null; failures: number }> }>(gw, 'adminStats', { as: support.session, query: { days: 1 } });
  t.is(statsBefore.status, 200, statsBefore.raw.payload);
  const failedBefore = statsBefore.body.days.at(-1)!.failed;
  // a provider that refuses the job outright never took it: the failure is the model's, with no provider
  const lumenBefore = statsBefore.body.failures.find((f) => f.model === 'lumen-dev-text-to-image' && f.provider === null)?.failures ?? 0;

  nock(UPSTREAM).post(/\/v1\/models\/.*\/predictions/).once().reply(400, { error: 'prompt rejected by safety filter' });
  const bad = await gw.server.inject({ method: 'POST', url: '/api/v1/lumen-dev-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'x' } });
  const badId = (bad.result as { request_id: string }).request_id;
  t.is(await finished(badId), 'failed');
  const good = await gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'y', width: 64, height: 64 } });
  const price = (good.result as { price: number }).price;
  t.is(await finished((good.result as { request_id: string }).request_id), 'completed');

  const runs = await callOperation<{ runs: Array<{ request_id: string; status: string; provider: string | null; error: string | null }> }>(gw, 'adminUserRuns', { as: support.session, query: { email: await emailOf(acct) } });
  t.is(runs.status, 200, runs.raw.payload);
  const failed = runs.body.runs.find((r) => r.request_id === badId)!;
  t.like(failed, { status: 'failed', provider: null });
  t.regex(failed.error!, /safety filter/);
  t.false(JSON.stringify(runs.body).includes('sk-upstream-secret'));
  const audit = await gw.app.db('admin_audit').where({ action: 'adminUserRuns' }).orderBy('id', 'desc').first<{ target_user_id: number }>();
  t.is(Number(audit!.target_user_id), acct.userId);

  const stats = await callOperation<{ users: { total: number }; days: Array<{ day: string; failed: number; spend: number; completed: number }>; failures: Array<{ day: string; model: string; provider: string | null; failures: number }> }>(gw, 'adminStats', { as: support.session, query: { days: 1 } });
  const today = stats.body.days.at(-1)!;
  t.is(today.day, new Date().toISOString().slice(0, 10));
  t.is(today.failed, failedBefore + 1);
  t.true(today.spend >= price);
  t.is(stats.body.failures.find((f) => f.model === 'lumen-dev-text-to-image' && f.provider === null)!.failures, lumenBefore + 1);
  t.true(stats.body.users.total >= 2);
  const fortnight = await callOperation<{ days: unknown[] }>(gw, 'adminStats', { as: support.session });
  t.is(fortnight.body.days.length, 14, 'every day of the window is listed');

  const list = await callOperation<{ items: Array<{ request_id: string; email: string; error: string; provider: string | null }> }>(gw, 'adminFailures', { as: support.session, query: { model: 'lumen-dev-text-to-image' } });
  const item = list.body.items.find((i) => i.request_id === badId)!;
  t.like(item, { email: await emailOf(acct), provider: null });
  t.regex(item.error, /safety filter/);
  t.is((await callOperation<{ items: unknown[] }>(gw, 'adminFailures', { as: support.session, query: { model: 'canvas-v1-fast-text-to-image' } })).body.items.length, 0);
});

test.serial('the day\'s spend counts a chat call cancelled while it answered by what it was charged, and a cancelled asynchronous run not at all', async (t) => {
  const acct = await newAccount(gw, 1000);
  const me = { userId: acct.userId, teamId: null };
  type Stats = { days: Array<{ spend: number; cancelled: number }> };
  const today = async () => (await callOperation<Stats>(gw, 'adminStats', { as: support.session, query: { days: 1 } })).body.days.at(-1)!;
  const before = await today();
  const p = (model: string, price: number, input: Record<string, unknown>) => ({
    id: newPredictionId(Date.now()), userId: acct.userId, teamId: null, apiKeyId: null, model, input, price, listPrice: price, discountPercent: null, webhookUrl: null,
  });
  const chat = p('lexi-v1-balanced-chat', 100, { messages: [{ role: 'user', content: 'hello' }], max_tokens: 100 });
  await gw.app.store.startInline({ p: chat, now: Date.now() });
  t.is(await gw.app.store.cancel(me, chat.id, Date.now()), 'cancelled');
  await gw.app.store.settleInline({ p: chat, outcome: { status: 'cancelled', charge: 12, usage: { inputTokens: 5, outputTokens: 40, source: 'counted' }, text: 'part of it', inferenceMs: 9 }, now: Date.now() });
  const image = p('canvas-v1-fast-text-to-image', 50, { prompt: 'a lighthouse' });
  await gw.app.store.submit({ p: image, now: Date.now() });
  t.is(await gw.app.store.cancel(me, image.id, Date.now()), 'cancelled');
  const after = await today();
  t.is(after.cancelled, before.cancelled + 2);
  t.is(after.spend, before.spend + 12);
});

test.serial('an address typed into the user search or a reason is not kept in the audit log: the account it names (user:<id>), or [address]', async (t) => {
  const user = await newAccount(gw);
  const email = await emailOf(user);
  const local = email.split('@')[0]!;
  t.is((await callOperation(gw, 'adminListUsers', { as: support.session, query: { q: email.toUpperCase() } })).status, 200);
  t.is((await callOperation(gw, 'adminListUsers', { as: support.session, query: { q: `${local}@exam` } })).status, 200);
  t.is((await callOperation(gw, 'adminUserInfo', { as: support.session, query: { email } })).status, 200);
  const refund = await callOperation(gw, 'adminRefund', { as: support.session, body: { request_id: 'no-such-run', reason: `asked by ${email}, ticket 12` } });
  t.is(refund.status, 404);
  const rows = await gw.app.db('admin_audit').where({ actor_user_id: support.userId }).whereIn('action', ['adminListUsers', 'adminRefund']).orderBy('id', 'desc').limit(3)
    .select('action', 'params', 'reason') as Array<{ action: string; params: string; reason: string | null }>;
  t.false(JSON.stringify(rows).toLowerCase().includes(local), JSON.stringify(rows));
  const [refunded, partial, full] = rows;
  t.is(JSON.parse(full!.params).query.q, `user:${user.userId}`);
  t.is(JSON.parse(partial!.params).query.q, '[address]');
  t.is(refunded!.reason, `asked by user:${user.userId}, ticket 12`);
  t.is(JSON.parse(refunded!.params).body.reason, `asked by user:${user.userId}, ticket 12`);
});
