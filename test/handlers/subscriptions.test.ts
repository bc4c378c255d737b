// Issue 11, subscriptions (README "Subscriptions"): plans from SUBSCRIPTION_PLANS, activate /
// change / cancel by billing and admin, each period's credit granted once by the worker's job (two
// jobs at once included) as an expiring grant spent before purchased credit, expiry rows at the
// period's end and above the rollover cap, and the ledger adding up after every test. Time is the
// app clock, moved by the test.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { assertLedger, ledgerCheckedAfterEach } from '../helpers/ledger.ts';
import { waitFor } from '../helpers/services.ts';
import { createTeam } from '../../db/teams.ts';
import { holdFor, releaseFor, settleFor } from '../../db/wallet/moves.ts';
import { createSubscriptionJob } from '../../workers/subscriptions.ts';
import type { SubscriptionJob } from '../../workers/subscriptions.ts';

const DAY = 86_400_000;
const MINUTE = 60_000;
const PLANS = {
  basic: { credits: 1000, rollover_cap: 0, period: '30d' },
  roll: { credits: 1000, rollover_cap: 400, period: '30d' },
  monthly: { credits: 2000, period: 'month' },
};

let now = Date.UTC(2026, 10, 1);
const clock = () => now;
let gw: TestGateway;
let job: SubscriptionJob;
const as: Record<'user' | 'support' | 'billing' | 'admin', Account & { email: string }> = {} as never;

async function account(credit = 0): Promise<Account & { email: string }> {
  const acct = await newAccount(gw, credit);
  const row = await gw.app.db('users').where({ id: acct.userId }).first('email');
  return { ...acct, email: String(row.email) };
}

test.before(async () => {
  gw = await startGateway({
    worker: true, queue: 'memory', clock,
    // sessions must outlive the months the tests move the clock through
    env: { SUBSCRIPTION_PLANS: JSON.stringify(PLANS), SESSION_TTL_SECONDS: String(365 * 24 * 3600), SUBSCRIPTION_INTERVAL_SECONDS: '60' },
  });
  for (const role of ['user', 'support', 'billing', 'admin'] as const) {
    as[role] = await account();
    await gw.app.db('users').where({ id: as[role].userId }).update({ role });
  }
  job = createSubscriptionJob(gw.app);
});
test.after.always(async () => { await job?.stop(); await gw?.stop(); });
ledgerCheckedAfterEach(test, () => gw?.app.db);

interface Sub { plan: string | null; next_plan: string | null; status: string; current_period_end: string | null; grant_remaining: number; credits_per_period: number | null }

async function manage(body: Record<string, unknown>, opts: { as?: string; query?: Record<string, number>; headers?: Record<string, string> } = {}) {
  return callOperation<Sub & { code?: string }>(gw, 'adminManageSubscription', { as: opts.as ?? as.billing.session, body, ...(opts.query ? { query: opts.query } : {}), ...(opts.headers ? { headers: opts.headers } : {}) });
}

const wallet = async (userId: number) => {
  const r = await gw.app.db('users').where({ id: userId }).first();
  return { balance: Number(r.balance), held: Number(r.held) };
};
const rows = async (userId: number, kind: string) =>
  (await gw.app.db('credit_transactions').where({ user_id: userId, kind }).whereNull('team_id').orderBy('id')).map((r: { amount: number | string }) => Number(r.amount));

/** Moves the clock and runs the job as the next period's lease holder. */
async function runAt(at: number) {
  now = at;
  const out = await job.runOnce();
  if (!out) throw new Error('the lease was not free');
  return out;
}

/** The wallet row's `grants` marker (migration 3101) and the grants with credit left it counts. */
async function grantMarker(userId: number): Promise<[number, number]> {
  const marker = Number((await gw.app.db('users').where({ id: userId }).first('grants')).grants);
  const live = (await gw.app.db('credit_grants').where({ user_id: userId }).whereNull('team_id').andWhere('remaining', '>', 0)).length;
  return [marker, live];
}

test.serial('only billing and admin may manage subscriptions; user and support get 403, an admin API key 403 session_required; every call is audited', async (t) => {
  const acct = await account();
  const before = Number((await gw.app.db('admin_audit').max({ id: 'id' }).first())?.id ?? 0);
  for (const role of ['user', 'support'] as const) {
    t.like(await manage({ email: acct.email, action: 'activate', plan: 'basic' }, { as: as[role].session }), { status: 403, body: { code: 'role_required' } }, role);
  }
  t.like(await manage({ email: acct.email, action: 'activate', plan: 'basic' }, { as: as.admin.liveKey }), { status: 403, body: { code: 'session_required' } });
  t.like(await manage({ email: acct.email, action: 'activate', plan: 'basic', reason: 'trial' }, { as: as.admin.session }), { status: 200, body: { plan: 'basic', status: 'active' } });
  t.like(await manage({ email: acct.email, action: 'cancel' }), { status: 200, body: { status: 'cancelled' } });
  const audit = await gw.app.db('admin_audit').where({ action: 'adminManageSubscription' }).andWhere('id', '>', before).orderBy('id');
  t.deepEqual(audit.map((a: { actor_role: string; status: number }) => [a.actor_role, Number(a.status)]), [['user', 403], ['support', 403], ['admin', 403], ['admin', 200], ['billing', 200]]);
  t.is(audit[3].reason, 'trial');
  t.like(JSON.parse(audit[3].params), { body: { email: `user:${acct.userId}`, action: 'activate', plan: 'basic' } });
});

test.serial('422 for an unknown plan, a missing plan and a past period end; 404 for an unknown email or a team the user is not in; 409 for the wrong state', async (t) => {
  const acct = await account();
  t.like(await manage({ email: acct.email, action: 'activate', plan: 'platinum' }), { status: 422, body: { detail: [{ loc: ['body', 'plan'] }] } });
  t.like(await manage({ email: acct.email, action: 'activate' }), { status: 422, body: { detail: [{ loc: ['body', 'plan'] }] } });
  t.is((await manage({ email: acct.email, action: 'renew', plan: 'basic' })).status, 422);
  t.like(await manage({ email: acct.email, action: 'activate', plan: 'basic', current_period_end: new Date(now - 1000).toISOString() }), { status: 422, body: { detail: [{ loc: ['body', 'current_period_end'] }] } });
  t.is((await manage({ email: 'nobody-here@example.com', action: 'activate', plan: 'basic' })).status, 404);
  t.is((await manage({ email: acct.email, action: 'activate', plan: 'basic' }, { query: { team_id: 999_999 } })).status, 404);
  t.is((await manage({ email: acct.email, action: 'cancel' })).status, 409);
  t.is((await manage({ email: acct.email, action: 'change', plan: 'roll' })).status, 409);
  t.is((await manage({ email: acct.email, action: 'activate', plan: 'basic' })).status, 200);
  t.is((await manage({ email: acct.email, action: 'activate', plan: 'roll' })).status, 409);
  t.deepEqual(await rows(acct.userId, 'subscription'), [1000], 'nothing granted by the refusals');
  t.is((await manage({ email: acct.email, action: 'cancel' })).status, 200);
});

test.serial('activation grants the first period at once; the job grants each later period exactly once; cancel stops the grants and granted credit expires at its end', async (t) => {
  const acct = await account();
  const start = now;
  const on = await manage({ email: acct.email, action: 'activate', plan: 'basic' });
  t.like(on, { status: 200, body: { plan: 'basic', status: 'active', credits_per_period: 1000, grant_remaining: 1000, current_period_end: new Date(start + 30 * DAY).toISOString() } });
  t.deepEqual(await wallet(acct.userId), { balance: 1000, held: 0 });

  // within the period: nothing to renew
  await runAt(now + 10 * DAY);
  t.deepEqual(await rows(acct.userId, 'subscription'), [1000]);
  // the period's end: the next period is granted, the old grant expires (no rollover)
  await runAt(start + 30 * DAY);
  t.deepEqual(await rows(acct.userId, 'subscription'), [1000, 1000]);
  t.deepEqual(await rows(acct.userId, 'expiry'), [-1000]);
  t.deepEqual(await wallet(acct.userId), { balance: 1000, held: 0 });
  // later runs in the same period grant nothing more
  await runAt(now + MINUTE);
  await runAt(now + MINUTE);
  t.deepEqual(await rows(acct.userId, 'subscription'), [1000, 1000]);

  t.like(await manage({ email: acct.email, action: 'cancel' }), { status: 200, body: { status: 'cancelled', grant_remaining: 1000 } });
  await runAt(start + 60 * DAY);
  await runAt(start + 90 * DAY);
  t.deepEqual(await rows(acct.userId, 'subscription'), [1000, 1000], 'no grant after the cancellation');
  t.deepEqual(await rows(acct.userId, 'expiry'), [-1000, -1000], 'the granted credit expired at its period\'s end');
  t.deepEqual(await wallet(acct.userId), { balance: 0, held: 0 });
});

test.serial('a subscription of an erased account is cancelled at renewal instead of granted', async (t) => {
  const acct = await account();
  await manage({ email: acct.email, action: 'activate', plan: 'basic' });
  await gw.app.db('users').where({ id: acct.userId }).update({ deleted_at: now });
  const out = await job.run(now + 30 * DAY);
  t.is(out.renewals.cancelled, 1);
  t.deepEqual(await rows(acct.userId, 'subscription'), [1000]);
  t.like(await gw.app.db('subscriptions').where({ user_id: acct.userId }).first(), { status: 'cancelled' });
});

test.serial('two jobs running at once grant a period once; of two leased runs one runs', async (t) => {
  const acct = await account();
  await manage({ email: acct.email, action: 'activate', plan: 'basic' });
  now += 30 * DAY;
  const other = createSubscriptionJob(gw.app);
  // the renewal does not depend on the lease: both run it at once
  const [a, b] = await Promise.all([job.run(now), other.run(now)]);
  t.is(a.renewals.renewed + b.renewals.renewed, 1);
  t.deepEqual(await rows(acct.userId, 'subscription'), [1000, 1000]);
  const grants = await gw.app.db('credit_grants').where({ user_id: acct.userId }).whereNull('team_id');
  t.is(grants.length, 2);
  now += 30 * DAY;
  const leased = await Promise.all([job.runOnce(), other.runOnce()]);
  t.is(leased.filter((r) => r !== null).length, 1);
  t.deepEqual(await rows(acct.userId, 'subscription'), [1000, 1000, 1000]);
  await other.stop();
  await manage({ email: acct.email, action: 'cancel' });
});

test.serial('spending uses the grant before purchased credit: a charge and a deduction take the grant, and the expiry at the period\'s end leaves the purchased credit whole', async (t) => {
  const acct = await account(500);
  t.deepEqual(await grantMarker(acct.userId), [0, 0]);
  await manage({ email: acct.email, action: 'activate', plan: 'basic' });
  t.deepEqual(await grantMarker(acct.userId), [1, 1], 'a grant marks the wallet row, so the charge below takes it');
  const start = now;
  const res = await gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'p', width: 64, height: 64 } });
  t.is(res.statusCode, 200, res.payload);
  const id = (res.result as { request_id: string }).request_id;
  await waitFor(async () => (await gw.app.db('predictions').where({ id }).first()).status === 'completed', { what: 'the prediction to complete' });
  const price = Number((await gw.app.db('predictions').where({ id }).first()).price);
  t.true(price > 0);
  t.like(await manage({ email: acct.email, action: 'change', plan: 'basic' }), { body: { grant_remaining: 1000 - price } });
  t.is((await callOperation(gw, 'adminDeductCredits', { as: as.billing.session, body: { email: acct.email, amount: 200 } })).status, 200);
  t.like(await manage({ email: acct.email, action: 'cancel' }), { body: { grant_remaining: 800 - price } });
  await runAt(start + 30 * DAY);
  t.deepEqual(await rows(acct.userId, 'expiry'), [-(800 - price)]);
  t.deepEqual(await wallet(acct.userId), { balance: 500, held: 0 }, 'the purchased credit is untouched');
  t.deepEqual(await grantMarker(acct.userId), [0, 0], 'the expired grant is no longer counted');
  await assertLedger(t, gw.app.db);
});

test.serial('credit held by a running prediction at expiry is not expired: charged, it spends the old grant; released, it expires at the next run', async (t) => {
  const acct = await account(300);
  await manage({ email: acct.email, action: 'activate', plan: 'basic' });
  const payer = { userId: acct.userId, teamId: null };
  const start = now;
  // two holds that take all of the grant's credit and some purchased credit
  await gw.app.db.transaction((trx) => holdFor(trx, payer, 900, { predictionId: 'sub-hold-1', model: 'm', now }));
  await gw.app.db.transaction((trx) => holdFor(trx, payer, 300, { predictionId: 'sub-hold-2', model: 'm', now }));
  await manage({ email: acct.email, action: 'cancel' });
  await runAt(start + 30 * DAY);
  // held credit counts as the grant's (a charge spends the grant first): none of it is spendable
  t.deepEqual(await rows(acct.userId, 'expiry'), [], 'nothing expired: the 100 left spendable are purchased credit');
  t.deepEqual(await wallet(acct.userId), { balance: 100, held: 1200 });
  // the first is charged: it spends what was left of the grant (900)
  await gw.app.db.transaction((trx) => settleFor(trx, payer, 900, 'sub-hold-1', 'm', now));
  // the second is released: it was purchased credit, which never expires
  await gw.app.db.transaction((trx) => releaseFor(trx, payer, 300, { predictionId: 'sub-hold-2', model: 'm', now }));
  await runAt(now + MINUTE);
  t.deepEqual(await rows(acct.userId, 'expiry'), [-100], 'the grant\'s last 100 expired once the holds ended');
  t.deepEqual(await wallet(acct.userId), { balance: 300, held: 0 }, 'the purchased 300 stays');

  // the other way round: the hold on grant credit is released, and expires at the next run
  const b = await account(0);
  const pb = { userId: b.userId, teamId: null };
  await manage({ email: b.email, action: 'activate', plan: 'basic' });
  await gw.app.db.transaction((trx) => holdFor(trx, pb, 600, { predictionId: 'sub-hold-3', model: 'm', now }));
  await manage({ email: b.email, action: 'cancel' });
  await runAt(now + 30 * DAY);
  t.deepEqual(await rows(b.userId, 'expiry'), [-400]);
  await gw.app.db.transaction((trx) => releaseFor(trx, pb, 600, { predictionId: 'sub-hold-3', model: 'm', now }));
  await runAt(now + MINUTE);
  t.deepEqual(await rows(b.userId, 'expiry'), [-400, -600]);
  t.deepEqual(await wallet(b.userId), { balance: 0, held: 0 });
});

test.serial('deductions racing the job\'s renewal and expiry on one wallet: nothing negative, the grants never exceed the wallet, the ledger adds up', async (t) => {
  const acct = await account(2000);
  await manage({ email: acct.email, action: 'activate', plan: 'roll' });
  now += 30 * DAY;
  const deduct = () => callOperation(gw, 'adminDeductCredits', { as: as.billing.session, body: { email: acct.email, amount: 150 } });
  const results = await Promise.all([job.run(now), deduct(), deduct(), job.run(now), deduct(), deduct()]);
  t.deepEqual(results.slice(1, 3).concat(results.slice(4)).map((r) => (r as { status: number }).status), [200, 200, 200, 200]);
  const w = await wallet(acct.userId);
  t.true(w.balance >= 0);
  const left = (await gw.app.db('credit_grants').where({ user_id: acct.userId }).whereNull('team_id')).reduce((n: number, g: { remaining: number | string }) => n + Number(g.remaining), 0);
  t.true(left <= w.balance + w.held, `grants ${left} within the wallet ${w.balance}`);
  t.deepEqual(await rows(acct.userId, 'subscription'), [1000, 1000], 'the period granted once');
  // whatever the interleaving, the 2000 purchased credits are intact: the deductions (600) took grant credit
  t.is(w.balance - left, 2000);
  const [marker, live] = await grantMarker(acct.userId);
  t.true(marker >= live, `the marker ${marker} never undercounts the ${live} grants with credit left`);
  await manage({ email: acct.email, action: 'cancel' });
});

test.serial('with a rollover cap, what is left above the cap expires at renewal and the rest one period later; the older grant is spent first', async (t) => {
  const acct = await account();
  await manage({ email: acct.email, action: 'activate', plan: 'roll' });
  const start = now;
  await runAt(start + 30 * DAY);
  t.deepEqual(await rows(acct.userId, 'subscription'), [1000, 1000]);
  t.deepEqual(await rows(acct.userId, 'expiry'), [-600], 'above the cap of 400');
  t.deepEqual(await wallet(acct.userId), { balance: 1400, held: 0 });
  t.is((await callOperation(gw, 'adminDeductCredits', { as: as.billing.session, body: { email: acct.email, amount: 300 } })).status, 200);
  const grants = await gw.app.db('credit_grants').where({ user_id: acct.userId }).orderBy('id');
  t.deepEqual(grants.map((g: { remaining: number | string }) => Number(g.remaining)), [100, 1000], 'the carried-over grant went first');
  t.deepEqual(await grantMarker(acct.userId), [2, 2]);
  await runAt(start + 60 * DAY);
  t.deepEqual(await grantMarker(acct.userId), [2, 2], 'the first grant expired, a third was granted');
  // the first grant's last 100 expire; the second's 1000 is capped at 400
  t.deepEqual(await rows(acct.userId, 'expiry'), [-600, -100, -600]);
  t.deepEqual(await wallet(acct.userId), { balance: 1400, held: 0 });
  await manage({ email: acct.email, action: 'cancel' });
});

test.serial('a change takes effect at the next renewal; months follow the calendar; admin_user_info shows the subscription', async (t) => {
  const acct = await account();
  // earlier tests moved the clock past this; the job runs without its lease here
  now = Date.UTC(2027, 0, 31, 12);
  await manage({ email: acct.email, action: 'activate', plan: 'monthly' });
  const changed = await manage({ email: acct.email, action: 'change', plan: 'basic' });
  t.like(changed, { status: 200, body: { plan: 'monthly', next_plan: 'basic', current_period_end: '2027-02-28T12:00:00.000Z' } });
  const info = await callOperation<{ subscription: Sub }>(gw, 'adminUserInfo', { as: as.support.session, query: { email: acct.email } });
  t.like(info, { status: 200, body: { subscription: { plan: 'monthly', next_plan: 'basic', status: 'active', grant_remaining: 2000, credits_per_period: 2000 } } });
  now = Date.UTC(2027, 1, 28, 12);
  await job.run(now);
  t.deepEqual(await rows(acct.userId, 'subscription'), [2000, 1000]);
  const after = await callOperation<{ subscription: Sub }>(gw, 'adminUserInfo', { as: as.support.session, query: { email: acct.email } });
  t.like(after.body.subscription, { plan: 'basic', next_plan: null, current_period_end: '2027-03-30T12:00:00.000Z' });
  await manage({ email: acct.email, action: 'cancel' });

  // a monthly plan anchored on the 31st ends on the month's last day, without drifting
  const m = await account();
  now = Date.UTC(2027, 0, 31, 12);
  await manage({ email: m.email, action: 'activate', plan: 'monthly' });
  now = Date.UTC(2027, 1, 28, 12);
  await job.run(now);
  now = Date.UTC(2027, 2, 31, 12);
  await job.run(now);
  const sub = await gw.app.db('subscriptions').where({ user_id: m.userId }).first();
  t.is(new Date(Number(sub.current_period_end)).toISOString(), '2027-04-30T12:00:00.000Z');
  await manage({ email: m.email, action: 'cancel' });
});

test.serial('team_id subscribes the team wallet; an Idempotency-Key retry grants once', async (t) => {
  const owner = await account();
  const team = await createTeam(gw.app.db, owner.userId, 'Subscribed', now);
  const headers = { 'idempotency-key': 'sub-activate-1' };
  const first = await manage({ email: owner.email, action: 'activate', plan: 'basic' }, { query: { team_id: team.id }, headers });
  t.like(first, { status: 200, body: { team_id: team.id, plan: 'basic' } });
  const again = await manage({ email: owner.email, action: 'activate', plan: 'basic' }, { query: { team_id: team.id }, headers });
  t.is(again.status, 200);
  t.is(again.headers['idempotent-replayed'], 'true');
  const team_ = await gw.app.db('teams').where({ id: team.id }).first();
  t.is(Number(team_.balance), 1000);
  t.deepEqual(await wallet(owner.userId), { balance: 0, held: 0 }, 'the personal wallet is untouched');
  t.like((await callOperation<{ subscription: Sub }>(gw, 'adminUserInfo', { as: as.admin.session, query: { email: owner.email } })).body, { subscription: { status: 'none' } });
  await manage({ email: owner.email, action: 'cancel' }, { query: { team_id: team.id } });
});
