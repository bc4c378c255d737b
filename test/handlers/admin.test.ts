// Issue 11, the admin money routes: roles from a session only, every call audited, the ledger
// adding up after every test (test/helpers/ledger.ts), and concurrent moves on one wallet on
// MariaDB and RabbitMQ.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { createClient, tokenFor } from '../helpers/oauth.ts';
import { assertLedger, ledgerCheckedAfterEach } from '../helpers/ledger.ts';
import { waitFor } from '../helpers/services.ts';
import { createTeam } from '../../db/teams.ts';
import { creditTeam } from '../../db/wallet/moves.ts';
import { getTeamBalance } from '../../db/wallet/ledger.ts';
import { refundPrediction } from '../../db/wallet/admin.ts';

let gw: TestGateway;
const as: Record<'user' | 'support' | 'billing' | 'admin', Account & { email: string }> = {} as never;
let target: Account & { email: string };
let adminKey: string;
let adminToken: string;

async function account(credit = 0): Promise<Account & { email: string }> {
  const acct = await newAccount(gw, credit);
  const row = await gw.app.db('users').where({ id: acct.userId }).first('email');
  return { ...acct, email: String(row.email) };
}

test.before(async () => {
  gw = await startGateway({ worker: true });
  for (const role of ['user', 'support', 'billing', 'admin'] as const) {
    as[role] = await account();
    await gw.app.db('users').where({ id: as[role].userId }).update({ role });
  }
  target = await account(10_000);
  adminKey = as.admin.liveKey;
  adminToken = await tokenFor(gw, await createClient(gw, as.admin.session, ['account:read', 'keys:manage']));
});
test.after.always(async () => { await gw?.stop(); });
ledgerCheckedAfterEach(test, () => gw?.app.db);

const MODEL = '/api/v1/canvas-v1-fast-text-to-image';
const INPUT = { prompt: 'p', width: 64, height: 64 };

async function completedPrediction(acct: Account): Promise<{ id: string; price: number }> {
  const res = await gw.server.inject({ method: 'POST', url: MODEL, headers: { 'x-api-key': acct.liveKey }, payload: INPUT });
  if (res.statusCode !== 200) throw new Error(res.payload);
  const id = (res.result as { request_id: string }).request_id;
  await waitFor(async () => (await gw.app.db('predictions').where({ id }).first()).status === 'completed', { what: 'the prediction to complete' });
  return { id, price: Number((await gw.app.db('predictions').where({ id }).first()).price) };
}

const balanceOf = async (userId: number) => {
  const r = await gw.app.db('users').where({ id: userId }).first();
  return { balance: Number(r.balance), held: Number(r.held) };
};

// ---------------------------------------------------------------- who may call what

const ALLOWED: Record<string, Array<keyof typeof as>> = {
  adminTopup: ['billing', 'admin'],
  adminDeductCredits: ['billing', 'admin'],
  adminRefund: ['support', 'billing', 'admin'],
  adminUserInfo: ['support', 'billing', 'admin'],
  adminAuditLog: ['admin'],
};

test.serial('each route answers the roles it lists and 403 role_required to the others; API keys and OAuth tokens of an admin get 403 session_required', async (t) => {
  const { id } = await completedPrediction(target);
  const calls: Record<string, () => { body?: unknown; query?: Record<string, string | number> }> = {
    adminTopup: () => ({ body: { email: target.email, amount: 1, reason: 'matrix' } }),
    adminDeductCredits: () => ({ body: { email: target.email, amount: 1, reason: 'matrix' } }),
    adminRefund: () => ({ body: { request_id: id, amount: 1 } }),
    adminUserInfo: () => ({ query: { email: target.email } }),
    adminAuditLog: () => ({}),
  };
  for (const [op, allowed] of Object.entries(ALLOWED)) {
    for (const role of ['user', 'support', 'billing', 'admin'] as const) {
      const res = await callOperation<{ code?: string }>(gw, op, { as: as[role].session, ...calls[op]!() });
      if (allowed.includes(role)) t.is(res.status, 200, `${op} as ${role}: ${JSON.stringify(res.body)}`);
      else t.like(res, { status: 403, body: { code: 'role_required' } }, `${op} as ${role}`);
    }
    for (const [what, credential] of [['API key', adminKey], ['OAuth token', adminToken]] as const) {
      const res = await callOperation<{ code?: string }>(gw, op, { as: credential, ...calls[op]!() });
      t.like(res, { status: 403, body: { code: 'session_required' } }, `${op} with an admin's ${what}`);
    }
  }
  // the refusals were audited too, with the credential that was refused
  const refused = await gw.app.db('admin_audit').where({ action: 'adminTopup', actor_user_id: as.admin.userId, credential: 'api-key' });
  t.is(refused.length, 1);
  t.is(Number(refused[0].status), 403);
});

test.serial('an embed code (an admin\'s, or made up) on an admin route is 403 embed_operation_not_allowed before the route runs, and no audit row: no account acted', async (t) => {
  const created: Record<string, string> = {};
  for (const kind of ['embed', 'agent_embed'] as const) {
    const res = await callOperation<{ code: string }>(gw, 'createEmbedCode', { as: as.admin.session, body: { kind, name: 'admin route', models: ['canvas-v1-fast-text-to-image'] } });
    t.is(res.status, 201, JSON.stringify(res.body));
    created[kind] = res.body.code;
  }
  const codes: Array<[string, Record<string, string>]> = [
    ['embed code', { 'x-embed-code': created.embed! }],
    ['agent embed code', { 'x-agent-embed-code': created.agent_embed! }],
    ['made-up embed code', { 'x-embed-code': 'emb_not_a_code' }],
  ];
  const before = Number((await gw.app.db('admin_audit').count({ n: '*' }).first())!.n);
  const balance = await balanceOf(target.userId);
  for (const op of Object.keys(ALLOWED)) {
    for (const [what, headers] of codes) {
      const call = op === 'adminUserInfo' ? { query: { email: target.email } } : op === 'adminAuditLog' ? {} : { body: { email: target.email, amount: 1, reason: 'embed' } };
      const res = await callOperation<{ code?: string }>(gw, op, { headers, ...call });
      t.like(res, { status: 403, body: { code: 'embed_operation_not_allowed' } }, `${op} with an ${what}`);
    }
  }
  t.is(Number((await gw.app.db('admin_audit').count({ n: '*' }).first())!.n), before, 'nothing recorded');
  t.deepEqual(await balanceOf(target.userId), balance, 'no money moved');
});

test('422 for bad bodies, 404 for unknown users and predictions', async (t) => {
  const s = as.admin.session;
  t.is((await callOperation(gw, 'adminTopup', { as: s, body: { email: target.email, amount: 0 } })).status, 422);
  t.is((await callOperation(gw, 'adminTopup', { as: s, body: { email: target.email, amount: 5, extra: 1 } })).status, 422);
  t.is((await callOperation(gw, 'adminDeductCredits', { as: s, body: { email: 'not an email', amount: 5 } })).status, 422);
  t.is((await callOperation(gw, 'adminRefund', { as: s, body: { amount: 5 } })).status, 422);
  t.is((await callOperation(gw, 'adminUserInfo', { as: s, query: { email: 'nobody-here@example.com' } })).status, 404);
  t.is((await callOperation(gw, 'adminTopup', { as: s, body: { email: 'nobody-here@example.com', amount: 5 } })).status, 404);
  t.is((await callOperation(gw, 'adminDeductCredits', { as: s, body: { email: 'nobody-here@example.com', amount: 5 } })).status, 404);
  t.is((await callOperation(gw, 'adminRefund', { as: s, body: { request_id: 'nope' } })).status, 404);
  t.is((await callOperation(gw, 'adminTopup', { as: s, query: { team_id: 999_999 }, body: { email: target.email, amount: 5 } })).status, 404);
});

// ---------------------------------------------------------------- the moves

test('a top-up and a deduction move the balance, each with one ledger row and one audit row', async (t) => {
  const acct = await account(100);
  const s = as.billing.session;
  const up = await callOperation<{ balance: number; amount: number; transaction_id: number }>(gw, 'adminTopup', { as: s, body: { email: acct.email, amount: 250, reason: 'goodwill' } });
  t.like(up, { status: 200, body: { amount: 250, balance: 350 } });
  const row = await gw.app.db('credit_transactions').where({ id: up.body.transaction_id }).first();
  t.like({ ...row, amount: Number(row.amount), balance_after: Number(row.balance_after) }, { kind: 'topup', amount: 250, balance_after: 350, description: 'goodwill' });
  const down = await callOperation<{ balance: number; amount: number }>(gw, 'adminDeductCredits', { as: s, body: { email: acct.email, amount: 50 } });
  t.like(down, { status: 200, body: { amount: -50, balance: 300 } });
  const audit = await gw.app.db('admin_audit').where({ target_user_id: acct.userId }).orderBy('id');
  t.deepEqual(audit.map((a: { action: string; status: number }) => [a.action, Number(a.status)]), [['adminTopup', 200], ['adminDeductCredits', 200]]);
  t.is(audit[0].reason, 'goodwill');
  t.is(Number(audit[0].actor_user_id), as.billing.userId);
  t.is(audit[0].actor_role, 'billing');
  t.truthy(audit[0].request_id);
  t.truthy(audit[0].client_address);
  // the email is recorded as the account it named, never as the address (erasure leaves the row anonymous)
  t.like(JSON.parse(audit[0].params), { body: { email: `user:${acct.userId}`, amount: 250 } });
  t.false(JSON.stringify(audit).includes(acct.email));
});

test('a deduction never takes the balance below zero unless allow_negative', async (t) => {
  const acct = await account(100);
  const s = as.admin.session;
  const refused = await callOperation<{ code: string }>(gw, 'adminDeductCredits', { as: s, body: { email: acct.email, amount: 101 } });
  t.like(refused, { status: 409, body: { code: 'conflict' } });
  t.deepEqual(await balanceOf(acct.userId), { balance: 100, held: 0 });
  const forced = await callOperation<{ balance: number }>(gw, 'adminDeductCredits', { as: s, body: { email: acct.email, amount: 101, allow_negative: true, reason: 'chargeback' } });
  t.like(forced, { status: 200, body: { balance: -1 } });
});

test('team_id tops up and deducts the team wallet; the email must name a member', async (t) => {
  const owner = await account();
  const team = await createTeam(gw.app.db, owner.userId, 'Billed', Date.now());
  const s = as.billing.session;
  const up = await callOperation<{ team_id: number; balance: number }>(gw, 'adminTopup', { as: s, query: { team_id: team.id }, body: { email: owner.email, amount: 700 } });
  t.like(up, { status: 200, body: { team_id: team.id, balance: 700 } });
  t.deepEqual(await getTeamBalance(gw.app.db, team.id), { balance: 700, held: 0 });
  t.deepEqual(await balanceOf(owner.userId), { balance: 0, held: 0 }, 'the member\'s own wallet is untouched');
  t.is((await callOperation(gw, 'adminDeductCredits', { as: s, query: { team_id: team.id }, body: { email: owner.email, amount: 701 } })).status, 409);
  t.is((await callOperation(gw, 'adminTopup', { as: s, query: { team_id: team.id }, body: { email: target.email, amount: 1 } })).status, 404, 'not a member');
  const audit = await gw.app.db('admin_audit').where({ target_team_id: team.id, status: 200 });
  t.is(audit.length, 1);
});

test('an address staff write in a reason reaches no ledger row: it names the account (user:<id>) or becomes [address], on any wallet', async (t) => {
  const owner = await account(10_000);
  const member = await account();
  const team = await createTeam(gw.app.db, owner.userId, 'Described', Date.now());
  await gw.app.db('team_members').insert({ team_id: team.id, user_id: member.userId, role: 'developer', created_at: Date.now() });
  const s = as.billing.session;
  const reason = `invited ${member.email.toUpperCase()}, asked by "${owner.email}". cc ops@nowhere.example`;
  const expected = `invited user:${member.userId}, asked by "user:${owner.userId}". cc [address]`;
  const up = await callOperation<{ transaction_id: number }>(gw, 'adminTopup', { as: s, query: { team_id: team.id }, body: { email: owner.email, amount: 100, reason } });
  t.is(up.status, 200);
  const down = await callOperation<{ transaction_id: number }>(gw, 'adminDeductCredits', { as: s, body: { email: owner.email, amount: 10, reason } });
  t.is(down.status, 200);
  const { id } = await completedPrediction(owner);
  t.is((await callOperation(gw, 'adminRefund', { as: s, body: { request_id: id, amount: 1, reason } })).status, 200);
  const rows = await gw.app.db('credit_transactions').whereIn('id', [up.body.transaction_id, down.body.transaction_id])
    .orWhere({ prediction_id: id, kind: 'refund' }).orderBy('id').select('kind', 'description');
  t.deepEqual(rows.map((r: { kind: string; description: string }) => [r.kind, r.description]), [['topup', expected], ['deduction', expected], ['refund', expected]]);
  // a reason without an address is kept as typed
  const plain = await callOperation<{ transaction_id: number }>(gw, 'adminTopup', { as: s, body: { email: owner.email, amount: 1, reason: 'goodwill (ticket 7)' } });
  t.is((await gw.app.db('credit_transactions').where({ id: plain.body.transaction_id }).first()).description, 'goodwill (ticket 7)');
});

test('a team id no team can have is audited too: the attempt is recorded, without a target team', async (t) => {
  const s = as.billing.session;
  for (const teamId of [4_294_967_296, 9_007_199_254_740_991]) {
    const res = await gw.server.inject({ method: 'POST', url: `/auth/admin_topup?team_id=${teamId}`, headers: { authorization: `Bearer ${s}` }, payload: { email: target.email, amount: 1 } });
    t.true(res.statusCode >= 400 && res.statusCode < 500, res.payload);
    const rows = await gw.app.db('admin_audit').where({ action: 'adminTopup', actor_user_id: as.billing.userId, status: res.statusCode }).orderBy('id', 'desc').limit(1);
    t.is(rows.length, 1, `the refused top-up for team ${teamId} is in the audit log`);
    t.is(rows[0].target_team_id, null);
    t.true(JSON.stringify(rows[0].params).includes(String(teamId)), 'what was sent is kept');
  }
});

test('refunds: several partial ones, together at most the charge, each a ledger row naming the prediction; support is capped', async (t) => {
  const acct = await account(10_000);
  const { id, price } = await completedPrediction(acct);
  t.true(price >= 3);
  const before = await balanceOf(acct.userId);
  const s = as.billing.session;
  const one = await callOperation<{ amount: number; refunded_total: number; charged: number }>(gw, 'adminRefund', { as: s, body: { request_id: id, amount: 1, reason: 'blurry' } });
  t.like(one, { status: 200, body: { amount: 1, refunded_total: 1, charged: price } });
  const rest = await callOperation<{ amount: number; refunded_total: number; balance: number }>(gw, 'adminRefund', { as: s, body: { request_id: id } });
  t.like(rest, { status: 200, body: { amount: price - 1, refunded_total: price, balance: before.balance + price } });
  const more = await callOperation<{ detail: string }>(gw, 'adminRefund', { as: s, body: { request_id: id, amount: 1 } });
  t.is(more.status, 409);
  const rows = await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'refund' }).orderBy('id');
  t.deepEqual(rows.map((r: { amount: number | string }) => Number(r.amount)), [1, price - 1]);

  // support: at most SUPPORT_REFUND_MAX per call
  const big = await account(10_000);
  const p2 = await completedPrediction(big);
  t.is((await callOperation(gw, 'adminRefund', { as: as.support.session, body: { request_id: p2.id, amount: 1 } })).status, 200);
  const unknown = await callOperation(gw, 'adminRefund', { as: as.support.session, body: { request_id: 'x'.repeat(30) } });
  t.is(unknown.status, 404);
  // the cap itself (a canvas image costs less than SUPPORT_REFUND_MAX): past it nothing moves
  const capped = await refundPrediction(gw.app.db, p2.id, undefined, 1, 'r', Date.now());
  t.like(capped, { outcome: 'over-limit', amount: p2.price - 1 });
  t.is((await gw.app.db('credit_transactions').where({ prediction_id: p2.id, kind: 'refund' })).length, 1);
});

test('a refund of a team prediction goes back to the team wallet', async (t) => {
  const owner = await account();
  const team = await createTeam(gw.app.db, owner.userId, 'Refunded', Date.now());
  await gw.app.db.transaction((trx) => creditTeam(trx, team.id, owner.userId, 5_000, 'grant', 'test credit', Date.now()));
  const res = await gw.server.inject({ method: 'POST', url: `${MODEL}?team_id=${team.id}`, headers: { 'x-api-key': owner.liveKey }, payload: INPUT });
  t.is(res.statusCode, 200);
  const id = (res.result as { request_id: string }).request_id;
  await waitFor(async () => (await gw.app.db('predictions').where({ id }).first()).status === 'completed', { what: 'the team prediction to complete' });
  const after = await getTeamBalance(gw.app.db, team.id);
  const r = await callOperation<{ team_id: number; balance: number; amount: number }>(gw, 'adminRefund', { as: as.admin.session, body: { request_id: id } });
  t.like(r, { status: 200, body: { team_id: team.id } });
  t.deepEqual(await getTeamBalance(gw.app.db, team.id), { balance: after.balance + r.body.amount, held: 0 });
});

test('admin_user_info shows the profile, wallet, open holds, teams, keys without secrets, last sign-in and recent ledger rows', async (t) => {
  const acct = await account(1_000);
  await createTeam(gw.app.db, acct.userId, 'Info', Date.now());
  const res = await callOperation<Record<string, unknown> & { api_keys: Array<Record<string, unknown>>; recent_transactions: Array<{ kind: string }>; teams: Array<{ name: string; role: string }> }>(
    gw, 'adminUserInfo', { as: as.support.session, query: { email: acct.email.toUpperCase() } });
  t.is(res.status, 200);
  t.like(res.body, { id: acct.userId, email: acct.email, role: 'user', balance: 1_000, held: 0, api_key_count: 2, open_holds: [] });
  t.truthy(res.body.last_sign_in_at);
  t.deepEqual(res.body.teams.map((x) => [x.name, x.role]), [['Info', 'owner']]);
  t.deepEqual(res.body.recent_transactions.map((x) => x.kind), ['grant']);
  const raw = JSON.stringify(res.body);
  t.false(raw.includes(acct.liveKey) || raw.includes(acct.testKey) || raw.includes('key_hash'), 'no key value or digest');
  const audit = await gw.app.db('admin_audit').where({ action: 'adminUserInfo', target_user_id: acct.userId });
  t.is(audit.length, 1);
});

test('admin_user_info reads at most the 100 newest keys and 100 teams, and counts every active key', async (t) => {
  const acct = await account();
  const now = Date.now();
  await gw.app.db('api_keys').insert(Array.from({ length: 130 }, (_, i) => ({
    user_id: acct.userId, name: `bulk-${i}`, prefix: `mg_bulk${i}`, key_hash: `${acct.userId}-${i}-`.padEnd(64, 'x'), is_test: true, created_at: now + i,
    ...(i < 20 ? { revoked_at: now } : {}),
  })));
  for (let i = 0; i < 102; i++) await createTeam(gw.app.db, acct.userId, `Bulk ${i}`, now);
  const res = await callOperation<{ api_key_count: number; api_keys: Array<{ name: string }>; teams: unknown[] }>(gw, 'adminUserInfo', { as: as.support.session, query: { email: acct.email } });
  t.is(res.status, 200);
  t.is(res.body.api_keys.length, 100);
  t.is(res.body.api_keys[0]!.name, 'bulk-129', 'newest first');
  t.is(res.body.api_key_count, 2 + 110, 'every active key is counted, listed or not');
  t.is(res.body.teams.length, 100);
});

test('the audit log is read and filtered by actor, target, action and time, newest first, paged; secrets are redacted', async (t) => {
  const acct = await account();
  const started = new Date(Date.now() - 1000).toISOString();
  await callOperation(gw, 'adminTopup', { as: as.billing.session, body: { email: acct.email, amount: 3, reason: 'r1' } });
  await callOperation(gw, 'adminUserInfo', { as: as.support.session, query: { email: acct.email } });
  const log = await callOperation<{ items: Array<{ action: string; actor_user_id: number; reason: string | null }>; total: number; has_more: boolean }>(
    gw, 'adminAuditLog', { as: as.admin.session, query: { target_user_id: acct.userId, since: started } });
  t.is(log.status, 200);
  t.deepEqual(log.body.items.map((i) => i.action), ['adminUserInfo', 'adminTopup']);
  t.is(log.body.total, 2);
  t.false(log.body.has_more);
  const byActor = await callOperation<{ items: Array<{ action: string }> }>(gw, 'adminAuditLog', { as: as.admin.session, query: { actor_id: as.billing.userId, action: 'adminTopup', target_user_id: acct.userId } });
  t.deepEqual(byActor.body.items.map((i) => i.action), ['adminTopup']);
  const future = await callOperation<{ items: unknown[] }>(gw, 'adminAuditLog', { as: as.admin.session, query: { since: new Date(Date.now() + 3_600_000).toISOString() } });
  t.deepEqual(future.body.items, []);
  const { redact } = await import('../../plugins/admin-audit.ts');
  t.deepEqual(redact({ email: 'a@b.c', new_password: 'x', nested: { token: 't', amount: 1 } }), { email: 'a@b.c', new_password: '[redacted]', nested: { token: '[redacted]', amount: 1 } });
});

test('an audit log bound no clock can hold (a leap second) is 422 naming it, not 500', async (t) => {
  for (const name of ['since', 'until'] as const) {
    const res = await callOperation<{ detail: Array<{ loc: string[] }> }>(gw, 'adminAuditLog', { as: as.admin.session, query: { [name]: '2026-06-30T23:59:60Z' } });
    t.is(res.status, 422, JSON.stringify(res.body));
    t.deepEqual(res.body.detail[0]!.loc, ['query', name]);
  }
});

// ---------------------------------------------------------------- idempotency and races

test('an idempotent retry of a top-up, a deduction and a refund moves money once; another body is 409', async (t) => {
  const acct = await account(1_000);
  const { id } = await completedPrediction(acct);
  const s = as.admin.session;
  const start = await balanceOf(acct.userId);
  for (const [op, body, delta] of [
    ['adminTopup', { email: acct.email, amount: 40 }, 40],
    ['adminDeductCredits', { email: acct.email, amount: 15 }, -15],
    ['adminRefund', { request_id: id, amount: 2 }, 2],
  ] as const) {
    const key = `${op}-retry-1`;
    const first = await callOperation(gw, op, { as: s, body, headers: { 'idempotency-key': key } });
    const again = await callOperation(gw, op, { as: s, body, headers: { 'idempotency-key': key } });
    t.is(first.status, 200);
    t.is(again.status, 200);
    t.deepEqual(again.body, first.body);
    t.is(again.headers['idempotent-replayed'], 'true');
    const other = await callOperation(gw, op, { as: s, body: { ...body, amount: 1 }, headers: { 'idempotency-key': key } });
    t.is(other.status, 409, `${op}: same key, another body`);
    start.balance += delta;
  }
  t.deepEqual(await balanceOf(acct.userId), start);
});

test.serial('concurrent top-ups, deductions, refunds and submits on one wallet: nothing negative, and the ledger equals balance and held exactly', async (t) => {
  const acct = await account(2_000);
  const charged = await Promise.all([completedPrediction(acct), completedPrediction(acct), completedPrediction(acct)]);
  const s = as.admin.session;
  const jobs: Array<Promise<number>> = [];
  for (let i = 0; i < 15; i++) {
    jobs.push(callOperation(gw, 'adminTopup', { as: s, body: { email: acct.email, amount: 7 } }).then((r) => r.status));
    jobs.push(callOperation(gw, 'adminDeductCredits', { as: s, body: { email: acct.email, amount: 300 } }).then((r) => r.status));
    jobs.push(callOperation(gw, 'adminRefund', { as: s, body: { request_id: charged[i % 3]!.id, amount: 1 } }).then((r) => r.status));
    jobs.push(gw.server.inject({ method: 'POST', url: MODEL, headers: { 'x-api-key': acct.liveKey }, payload: INPUT }).then((r) => r.statusCode));
  }
  const statuses = await Promise.all(jobs);
  t.true(statuses.every((st) => [200, 402, 409].includes(st)), JSON.stringify(statuses));
  t.true(statuses.includes(409), 'some deductions were refused');
  await waitFor(async () => (await gw.app.db('predictions').where({ user_id: acct.userId }).whereIn('status', ['queued', 'pending', 'processing'])).length === 0, { what: 'every submit to finish' });
  const { balance, held } = await balanceOf(acct.userId);
  t.true(balance >= 0);
  t.is(held, 0);
  for (const p of charged) {
    const refunded = await gw.app.db('credit_transactions').where({ prediction_id: p.id, kind: 'refund' }).sum({ s: 'amount' }).first();
    t.true(Number(refunded?.s ?? 0) <= p.price);
  }
  const sums = await gw.app.db('credit_transactions').where({ user_id: acct.userId }).whereNull('team_id').sum({ amount: 'amount', held: 'held_change' }).first();
  t.is(Number(sums?.amount) - Number(sums?.held), balance);
  t.is(Number(sums?.held), held);
  const rows = await gw.app.db('credit_transactions').where({ user_id: acct.userId }).whereNull('team_id').orderBy('id');
  t.true(rows.every((r: { balance_after: number | string }) => Number(r.balance_after) >= 0), 'no row saw a negative balance');
  const last = rows.at(-1)!;
  t.is(Number(last.balance_after), balance, 'the newest row carries the wallet as it is');
  await assertLedger(t, gw.app.db);
});
