// Plans bought through Stripe follow Stripe's payments (docs/operating/billing.md "Renewals"):
// each later period's credit is granted when Stripe reports that period's invoice paid, once,
// whatever the order and repetition of the events; the renewal job's clock grants none of them.
// Events are signed with the SDK's own test helper; every scenario runs on MariaDB and on SQLite.
// Serial: nock's interceptors are process-wide. Every test ends with the ledger check.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import nock from 'nock';
import Stripe from 'stripe';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { assertLedger } from '../helpers/ledger.ts';
import { uniqueName } from '../helpers/services.ts';
import { activateSubscription, cancelSubscription, liveStripeSubscriptionsOf, renewDue } from '../../db/subscriptions.ts';
import { recordStripeCancellation } from '../../db/stripe-cancellations.ts';
import { stripeCancellationsSettled } from '../../workers/stripe-cancellations.ts';
import { createSubscriptionJob } from '../../workers/subscriptions.ts';
import { captureLog } from '../helpers/logs.ts';
import { formOf } from '../helpers/stripe.ts';

const SECRET_KEY = 'sk_test_mediagateplans';
const WEBHOOK_SECRET = 'whsec_mediagateplanssecret';
const STRIPE = 'https://api.stripe.com';
const HOOK = '/api/v1/payment-webhooks/stripe';
const DAY = 86_400_000;
const PLANS = JSON.stringify({
  starter: { credits: 10000, rollover_cap: 0, period: 'month', stripe_price: 'price_starter' },
  pro: { credits: 50000, rollover_cap: 25000, period: 'month', stripe_price: 'price_pro' },
});

const engines = ['mysql', 'sqlite'] as const;
type Engine = typeof engines[number];
const gws = {} as Record<Engine, TestGateway>;
const logs = captureLog('warn');

test.before(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  for (const db of engines) {
    gws[db] = await startGateway({ db, queue: 'memory', log: logs.log, env: { STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, SUBSCRIPTION_PLANS: PLANS } });
  }
});
test.afterEach.always(() => { nock.cleanAll(); });
test.after.always(async () => {
  nock.enableNetConnect();
  for (const db of engines) await gws[db]?.stop();
});

/** Runs a scenario on each engine, then checks each ledger. */
function both(title: string, fn: (t: ExecutionContext, s: Scenario) => Promise<void>) {
  test.serial(title, async (t) => {
    for (const db of engines) {
      await fn(t, scenario(gws[db]));
      await assertLedger(t, gws[db].app.db);
    }
  });
}

const seconds = (ms: number) => Math.floor(ms / 1000);
let eventClock = seconds(Date.now());

/** A Stripe event; `created` goes forward with each one unless given. */
function event(type: string, object: Record<string, unknown>, created = ++eventClock) {
  return { id: uniqueName('evt'), object: 'event', type, api_version: Stripe.API_VERSION, created, data: { object } };
}

/** Each gateway's billing account, made once. */
const billing = new WeakMap<TestGateway, Promise<Account>>();

function scenario(gw: TestGateway) {
  const deliver = async (e: object) => {
    const payload = JSON.stringify(e);
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    const res = await gw.server.inject({ method: 'POST', url: HOOK, headers: { 'content-type': 'application/json', 'stripe-signature': header }, payload });
    return (res.result as { status: string }).status;
  };
  /** A plan bought online: its checkout paid with the Stripe subscription `sub`. */
  const subscribe = async (acct: Account, sub: string, extra: Record<string, unknown> = {}) => {
    const id = uniqueName('cs_test');
    const sent: Array<Record<string, string>> = [];
    nock(STRIPE).post('/v1/checkout/sessions', (body: unknown) => { sent.push(formOf(body)); return true; })
      .reply(200, () => ({ id, object: 'checkout.session', url: `https://checkout.stripe.com/c/pay/${id}`, mode: 'subscription' }));
    const res = await callOperation(gw, 'createCheckoutSession', { as: acct.session, body: { plan: 'starter' } });
    if (res.status !== 200) throw new Error(res.raw.payload);
    const metadata = Object.fromEntries(Object.entries(sent[0]!).filter(([k]) => k.startsWith('metadata[')).map(([k, v]) => [k.slice(9, -1), v]));
    return deliver(event('checkout.session.completed', {
      id, object: 'checkout.session', mode: 'subscription', payment_status: 'paid', status: 'complete', amount_total: 1000, currency: 'usd',
      client_reference_id: String(acct.userId), customer: uniqueName('cus'), subscription: sub, payment_intent: null, metadata, ...extra,
    }));
  };
  const metadata = (acct: Account) => ({ user_id: String(acct.userId), plan: 'starter' });
  /** The plan's row as the gateway keeps it. */
  const row = async (acct: Account) => gw.app.db('subscriptions').where({ wallet: `user:${acct.userId}` }).first();
  /** An invoice of `sub` billing the period [start, end) (epoch ms). */
  const invoice = (sub: string, start: number, end: number, extra: Record<string, unknown> = {}) => ({
    id: uniqueName('in'), object: 'invoice', status: 'paid', billing_reason: 'subscription_cycle', period_start: seconds(start - 30 * DAY), period_end: seconds(start),
    parent: { type: 'subscription_details', subscription_details: { subscription: sub } },
    lines: { object: 'list', has_more: false, data: [{ id: uniqueName('il'), object: 'line_item', amount: 1000, period: { start: seconds(start), end: seconds(end) }, parent: { type: 'subscription_item_details', subscription_item_details: { proration: false, subscription: sub } } }] },
    ...extra,
  });
  const subscription = (acct: Account, sub: string, status: string, extra: Record<string, unknown> = {}) => ({
    id: sub, object: 'subscription', status, metadata: metadata(acct), items: { object: 'list', data: [{ id: 'si_1', price: { id: 'price_starter' } }] }, ...extra,
  });
  /** An administrator's adminManageSubscription on the account's own wallet (as a billing account). */
  const manage = async (acct: Account, body: Record<string, unknown>) => {
    if (!billing.has(gw)) {
      billing.set(gw, (async () => {
        const b = await newAccount(gw);
        await gw.app.db('users').where({ id: b.userId }).update({ role: 'billing' });
        return b;
      })());
    }
    const { email } = await gw.app.db('users').where({ id: acct.userId }).first('email');
    return callOperation<{ status: string; plan: string | null }>(gw, 'adminManageSubscription', { as: (await billing.get(gw)!).session, body: { email, ...body } });
  };
  return {
    gw, deliver, subscribe, row, invoice, subscription, manage,
    account: () => newAccount(gw),
    balance: async (acct: Account) => Number((await gw.app.db('users').where({ id: acct.userId }).first('balance')).balance),
    grants: async (acct: Account) => Number((await gw.app.db('credit_grants').where({ wallet: `user:${acct.userId}` }).count({ n: '*' }))[0]!.n),
    renewAt: (at: number) => renewDue(gw.app.db, gw.app.config.subscriptions.plans, at),
    /** The subscription job, to run its part by hand at a given time. */
    job: () => createSubscriptionJob(gw.app),
    /** The outbox row of a Stripe subscription to cancel. */
    cancellation: async (sub: string) => gw.app.db('stripe_cancellations').where({ stripe_subscription_id: sub }).first(),
    view: async (acct: Account) => (await callOperation<{ plan: string; status: string; current_period_start: string; current_period_end: string }>(gw, 'getMySubscription', { as: acct.session })).body,
  };
}
type Scenario = ReturnType<typeof scenario>;

both('a Stripe-backed plan gets no later period from the clock: the period whose payment fails grants nothing, and its invoice paid grants it once', async (t, s) => {
  const acct = await s.account();
  const sub = uniqueName('sub');
  t.is(await s.subscribe(acct, sub), 'subscription_started');
  t.is(await s.grants(acct), 1, 'the checkout, paid, grants the first period');
  const first = await s.row(acct);
  const periodEnd = Number(first.current_period_end);

  // the period ends; the job runs before Stripe even charges the next one, and the charge fails
  await s.renewAt(periodEnd + 60_000);
  t.is(await s.grants(acct), 1, 'the clock grants nothing to a plan Stripe pays for');
  const next = s.invoice(sub, periodEnd, periodEnd + 30 * DAY);
  t.is(await s.deliver(event('invoice.payment_failed', { ...next, status: 'open' })), 'subscription_held');
  await s.renewAt(periodEnd + 2 * DAY);
  t.is(await s.grants(acct), 1);
  t.is(await s.balance(acct), 10_000);

  // Stripe's retry succeeds: that period is granted, once, redelivered or not
  const paid = event('invoice.paid', next);
  t.is(await s.deliver(paid), 'subscription_renewed');
  t.is(await s.deliver(paid), 'ignored', 'a redelivery grants nothing');
  t.is(await s.deliver(event('invoice.paid', next)), 'ignored', 'the same invoice in another event grants nothing');
  t.is(await s.grants(acct), 2);
  t.is(await s.balance(acct), 20_000);
  const at = (ms: number) => new Date(seconds(ms) * 1000).toISOString();
  t.like(await s.view(acct), { status: 'active', current_period_start: at(periodEnd), current_period_end: at(periodEnd + 30 * DAY) });
  const grant = await s.gw.app.db('credit_grants').where({ wallet: `user:${acct.userId}` }).orderBy('id', 'desc').first();
  t.is(Number(grant.period_start), seconds(periodEnd) * 1000);
  t.is(Number(grant.expires_at), seconds(periodEnd + 30 * DAY) * 1000, 'the grant ends with the period Stripe billed (no rollover on this plan)');
  // the first invoice is the checkout's: its payment grants nothing more
  const created = Number(first.current_period_start);
  t.is(await s.deliver(event('invoice.paid', s.invoice(sub, created - 5000, created + 30 * DAY, { billing_reason: 'subscription_create' }))), 'ignored');
  // a proration of a change in the middle of a period is no period
  const proration = s.invoice(sub, periodEnd + 10 * DAY, periodEnd + 30 * DAY, { billing_reason: 'subscription_update' });
  (proration.lines.data[0]!.parent.subscription_item_details as { proration: boolean }).proration = true;
  t.is(await s.deliver(event('invoice.paid', proration)), 'ignored');
  await s.renewAt(periodEnd + 31 * DAY);
  t.is(await s.grants(acct), 2);
  // the next renewal, in an API version whose invoice names its subscription and whose event leaves the lines out
  const third = periodEnd + 30 * DAY;
  t.is(await s.deliver(event('invoice.paid', { id: uniqueName('in'), object: 'invoice', status: 'paid', billing_reason: 'subscription_cycle', subscription: sub, period_start: seconds(periodEnd), period_end: seconds(third) })), 'subscription_renewed');
  t.is(await s.grants(acct), 3);
  t.like(await s.view(acct), { current_period_start: at(third) });
});

both('a change of price that restarts the billing cycle: its paid invoice, delivered before the subscription update, grants the new plan\'s period, in either API version', async (t, s) => {
  for (const basil of [true, false]) {
    const acct = await s.account();
    const sub = uniqueName('sub');
    t.is(await s.subscribe(acct, sub), 'subscription_started');
    const start = Number((await s.row(acct)).current_period_start) + 10 * DAY;
    // the customer moves to pro in the billing portal, which bills a new period at once (billing_cycle_anchor: now)
    const upgrade = s.invoice(sub, start, start + 30 * DAY, { billing_reason: 'subscription_update' });
    const line = upgrade.lines.data[0]! as Record<string, unknown>;
    if (basil) line.pricing = { type: 'price_details', price_details: { price: 'price_pro', product: 'prod_pro' } };
    else line.price = { id: 'price_pro', object: 'price' };
    const before = await s.balance(acct);
    t.is(await s.deliver(event('invoice.paid', upgrade)), 'subscription_renewed');
    t.like(await s.row(acct), { plan: 'pro', next_plan: null });
    t.is(await s.balance(acct) - before, 50_000, 'the period Stripe billed at the pro price grants pro\'s credits');
    // the update arrives after: nothing more changes
    t.is(await s.deliver(event('customer.subscription.updated', s.subscription(acct, sub, 'active', { items: { object: 'list', data: [{ id: 'si_1', price: { id: 'price_pro' } }] } }))), 'ignored');
    t.like(await s.row(acct), { plan: 'pro', next_plan: null });
  }
});

both('a checkout whose payment is not made yet starts nothing; a plan an admin activated is still renewed on the clock', async (t, s) => {
  const acct = await s.account();
  t.is(await s.subscribe(acct, uniqueName('sub'), { payment_status: 'unpaid' }), 'ignored');
  t.is(await s.grants(acct), 0);
  const admins = await s.account();
  const now = Date.now();
  t.like(await activateSubscription(s.gw.app.db, { userId: admins.userId, teamId: null }, s.gw.app.config.subscriptions.plans.get('starter')!, undefined, now), { outcome: 'ok' });
  const end = Number((await s.row(admins)).current_period_end);
  await s.renewAt(end + 60_000);
  t.is(await s.grants(admins), 2);
});

both('events out of order: an older payment failure does not hold a plan a newer payment paid; an older subscription update does not undo a newer one', async (t, s) => {
  const acct = await s.account();
  const sub = uniqueName('sub');
  t.is(await s.subscribe(acct, sub), 'subscription_started');
  const periodEnd = Number((await s.row(acct)).current_period_end);
  const next = s.invoice(sub, periodEnd, periodEnd + 30 * DAY);
  // the first attempt fails, the retry succeeds; Stripe delivers the success first
  const failed = event('invoice.payment_failed', { ...next, status: 'open' });
  const paid = event('invoice.paid', next);
  t.is(await s.deliver(paid), 'subscription_renewed');
  t.is(await s.deliver(failed), 'ignored', 'the failure of a period since paid holds nothing');
  t.is((await s.row(acct)).status, 'active');
  // the same failure redelivered later still holds nothing: that period is paid
  t.is(await s.deliver(event('invoice.payment_failed', { ...next, status: 'open' })), 'ignored');
  t.is((await s.row(acct)).status, 'active');

  // the customer changes plan in the portal, then the subscription is paid up; an older update arrives last
  const older = event('customer.subscription.updated', s.subscription(acct, sub, 'past_due'));
  const newer = event('customer.subscription.updated', s.subscription(acct, sub, 'active', { items: { object: 'list', data: [{ id: 'si_1', price: { id: 'price_pro' } }] } }));
  t.is(await s.deliver(newer), 'subscription_changed');
  t.is(await s.deliver(older), 'ignored', 'an update older than the one applied changes nothing');
  const row = await s.row(acct);
  t.is(row.status, 'active');
  t.is(row.next_plan, 'pro', 'the change stays');
  // a later past_due naming the period already paid holds nothing either
  t.is(await s.deliver(event('customer.subscription.updated', s.subscription(acct, sub, 'past_due', { current_period_start: seconds(periodEnd), items: { object: 'list', data: [{ id: 'si_1', price: { id: 'price_pro' } }] } }))), 'ignored');
  t.is((await s.row(acct)).status, 'active');
  // a newer past_due of the next period does hold it, and that period's invoice paid grants it and frees it
  const third = periodEnd + 30 * DAY;
  t.is(await s.deliver(event('customer.subscription.updated', s.subscription(acct, sub, 'past_due', { current_period_start: seconds(third), items: { object: 'list', data: [{ id: 'si_1', price: { id: 'price_pro' } }] } }))), 'subscription_held');
  t.is(await s.deliver(event('invoice.paid', s.invoice(sub, third, third + 30 * DAY))), 'subscription_renewed');
  t.like(await s.row(acct), { status: 'active', plan: 'pro', next_plan: null });
  t.is(await s.grants(acct), 3);
  t.is(await s.balance(acct), 10_000 + 10_000 + 50_000);
});

both('unpaid holds the plan like past_due, and paying the open invoice makes it active again; only an ended subscription cancels it', async (t, s) => {
  const acct = await s.account();
  const sub = uniqueName('sub');
  t.is(await s.subscribe(acct, sub), 'subscription_started');
  const periodEnd = Number((await s.row(acct)).current_period_end);
  // Stripe's retries are exhausted and the subscription is left unpaid
  t.is(await s.deliver(event('invoice.payment_failed', { ...s.invoice(sub, periodEnd, periodEnd + 30 * DAY), status: 'open' })), 'subscription_held');
  t.is(await s.deliver(event('customer.subscription.updated', s.subscription(acct, sub, 'unpaid', { current_period_start: seconds(periodEnd) }))), 'ignored', 'held already');
  t.like(await s.row(acct), { status: 'held' });
  t.like(await s.view(acct), { status: 'active' });
  // the customer pays the open invoice: that period is granted, the subscription is active again
  t.is(await s.deliver(event('invoice.paid', s.invoice(sub, periodEnd, periodEnd + 30 * DAY))), 'subscription_renewed');
  t.is(await s.deliver(event('customer.subscription.updated', s.subscription(acct, sub, 'active', { current_period_start: seconds(periodEnd) }))), 'ignored');
  t.like(await s.row(acct), { status: 'active' });
  t.is(await s.grants(acct), 2);

  // unpaid reported first (no invoice event): held, and active again when Stripe reports it paid up
  const third = periodEnd + 30 * DAY;
  t.is(await s.deliver(event('customer.subscription.updated', s.subscription(acct, sub, 'unpaid', { current_period_start: seconds(third) }))), 'subscription_held');
  t.is(await s.deliver(event('customer.subscription.updated', s.subscription(acct, sub, 'active', { current_period_start: seconds(third) }))), 'subscription_resumed');
  t.like(await s.row(acct), { status: 'active' });
  // Stripe ends it: cancelled
  t.is(await s.deliver(event('customer.subscription.updated', s.subscription(acct, sub, 'unpaid', { current_period_start: seconds(third + 30 * DAY) }))), 'subscription_held');
  t.is(await s.deliver(event('customer.subscription.deleted', s.subscription(acct, sub, 'canceled'))), 'subscription_cancelled');
  t.like(await s.view(acct), { status: 'cancelled' });
  t.is(await s.grants(acct), 2);
});

both('a plan an admin activated after a Stripe one is changed, held or cancelled by no late event of the old Stripe subscription', async (t, s) => {
  const acct = await s.account();
  const old = uniqueName('sub');
  t.is(await s.subscribe(acct, old), 'subscription_started');
  const payer = { userId: acct.userId, teamId: null };
  const starter = s.gw.app.config.subscriptions.plans.get('starter')!;
  // billing cancels the plan and activates one by hand (the old Stripe subscription still lives at Stripe)
  t.is((await s.gw.app.db('subscriptions').where({ wallet: `user:${acct.userId}` }).update({ status: 'cancelled', cancelled_at: Date.now() })), 1);
  t.like(await activateSubscription(s.gw.app.db, payer, starter, undefined, Date.now()), { outcome: 'ok' });
  t.is((await s.row(acct)).stripe_subscription_id, null);
  const end = Number((await s.row(acct)).current_period_end);

  const pro = { items: { object: 'list', data: [{ id: 'si_1', price: { id: 'price_pro' } }] } };
  t.is(await s.deliver(event('customer.subscription.updated', s.subscription(acct, old, 'active', pro))), 'ignored');
  t.is(await s.deliver(event('customer.subscription.updated', s.subscription(acct, old, 'past_due', { current_period_start: seconds(end) }))), 'ignored');
  t.is(await s.deliver(event('customer.subscription.updated', s.subscription(acct, old, 'unpaid'))), 'ignored');
  t.is(await s.deliver(event('invoice.payment_failed', { ...s.invoice(old, end, end + 30 * DAY), status: 'open' })), 'ignored');
  t.is(await s.deliver(event('invoice.paid', s.invoice(old, end, end + 30 * DAY))), 'ignored');
  t.is(await s.deliver(event('customer.subscription.deleted', s.subscription(acct, old, 'canceled'))), 'ignored');
  t.like(await s.row(acct), { status: 'active', plan: 'starter', next_plan: null });
  // the clock renews the admin's plan
  await s.renewAt(end + 60_000);
  t.is(await s.grants(acct), 3);

  // a Stripe subscription that never started a plan (its checkout not delivered yet) does not cancel it either
  t.is(await s.deliver(event('customer.subscription.deleted', s.subscription(acct, uniqueName('sub'), 'canceled'))), 'ignored');
  t.like(await s.row(acct), { status: 'active' });
});

both('a Stripe-backed plan whose wallet is gone is cancelled by the job at its period\'s end, and granted nothing', async (t, s) => {
  const acct = await s.account();
  const sub = uniqueName('sub');
  t.is(await s.subscribe(acct, sub), 'subscription_started');
  const end = Number((await s.row(acct)).current_period_end);
  // the wallet is gone while its plan stayed (as a deleted team's does until then)
  await s.gw.app.db('users').where({ id: acct.userId }).update({ deleted_at: Date.now() });
  const counts = await s.renewAt(end + 60_000);
  t.like(counts, { renewed: 0, cancelled: 1 });
  t.like(await s.row(acct), { status: 'cancelled' });
  t.is(await s.deliver(event('invoice.paid', s.invoice(sub, end, end + 30 * DAY))), 'unmatched', 'a charge still made is the operator\'s to refund');
  t.is(await s.grants(acct), 1);
});

both('an update of the subscription created before its checkout completed (incomplete, delivered late) does not hold the plan the checkout started', async (t, s) => {
  const acct = await s.account();
  const sub = uniqueName('sub');
  const early = event('customer.subscription.updated', s.subscription(acct, sub, 'incomplete'));
  t.is(await s.subscribe(acct, sub), 'subscription_started');
  t.is(await s.deliver(early), 'ignored');
  t.like(await s.row(acct), { status: 'active' });
});

both('a period paid at Stripe for a plan cancelled on the gateway grants nothing and is logged for the operator', async (t, s) => {
  const acct = await s.account();
  const sub = uniqueName('sub');
  t.is(await s.subscribe(acct, sub), 'subscription_started');
  const end = Number((await s.row(acct)).current_period_end);
  // billing cancels the plan on the gateway; the Stripe subscription is left running and charges the next period
  t.like(await cancelSubscription(s.gw.app.db, { userId: acct.userId, teamId: null }, Date.now()), { outcome: 'ok' });
  const before = logs.lines.length;
  t.is(await s.deliver(event('invoice.paid', s.invoice(sub, end, end + 30 * DAY))), 'unmatched');
  t.is(await s.grants(acct), 1);
  const logged = logs.parsed<{ msg: string; subscription?: string; level: number }>().slice(before).filter((l) => l.subscription === sub && l.level >= 50);
  t.is(logged.length, 1);
  t.regex(logged[0]!.msg, /^stripe_payment_unmatched: .*cancelled.*cancel the subscription in Stripe/);

  // billing cancelled it here and Stripe has not cancelled it yet: the operator is told it is pending, not to cancel it
  const other = await s.account();
  const pendingSub = uniqueName('sub');
  t.is(await s.subscribe(other, pendingSub), 'subscription_started');
  const otherEnd = Number((await s.row(other)).current_period_end);
  nock(STRIPE).delete(`/v1/subscriptions/${pendingSub}`).reply(400, { error: { type: 'invalid_request_error', message: 'something went wrong' } });
  t.is((await s.manage(other, { action: 'cancel' })).status, 200);
  await stripeCancellationsSettled();
  const later = logs.lines.length;
  t.is(await s.deliver(event('invoice.paid', s.invoice(pendingSub, otherEnd, otherEnd + 30 * DAY))), 'unmatched');
  const pending = logs.parsed<{ msg: string; subscription?: string; level: number }>().slice(later).filter((l) => l.subscription === pendingSub && l.level >= 50);
  t.is(pending.length, 1);
  t.regex(pending[0]!.msg, /^stripe_payment_unmatched: .*cancellation at Stripe is pending/);
});

both('the same period\'s invoice.paid delivered several times at once grants it once', async (t, s) => {
  const acct = await s.account();
  const sub = uniqueName('sub');
  t.is(await s.subscribe(acct, sub), 'subscription_started');
  const end = Number((await s.row(acct)).current_period_end);
  const next = s.invoice(sub, end, end + 30 * DAY);
  const statuses = await Promise.all([event('invoice.paid', next), event('invoice.paid', next), event('invoice.paid', next), event('invoice.paid', next)].map((e) => s.deliver(e)));
  t.is(statuses.filter((x) => x === 'subscription_renewed').length, 1, statuses.join());
  t.true(statuses.every((x) => x === 'subscription_renewed' || x === 'ignored'), statuses.join());
  t.is(await s.grants(acct), 2);
  t.is(await s.balance(acct), 20_000);
});

both('an administrator\'s cancel of a Stripe-backed plan cancels its Stripe subscription at once; if Stripe cannot be asked, the cancel stands and the subscription stays pending', async (t, s) => {
  const acct = await s.account();
  const sub = uniqueName('sub');
  t.is(await s.subscribe(acct, sub), 'subscription_started');
  const sent: Array<Record<string, string>> = [];
  nock(STRIPE).delete(`/v1/subscriptions/${sub}`, (body: unknown) => { sent.push(formOf(body ?? '')); return true; }).reply(200, { id: sub, object: 'subscription', status: 'canceled' });
  const res = await s.manage(acct, { action: 'cancel' });
  t.is(res.status, 200, res.raw.payload);
  t.is(res.body.status, 'cancelled');
  await stripeCancellationsSettled();
  t.is(sent.length, 1, 'cancelled at Stripe, once');
  t.falsy(sent[0]!.prorate, 'without proration');
  t.falsy(sent[0]!.invoice_now, 'and without a final invoice');
  t.truthy((await s.cancellation(sub)).done_at);
  t.deepEqual(await liveStripeSubscriptionsOf(s.gw.app.db, { userId: acct.userId, teamId: null }), [], 'recorded ended');
  t.is(await s.balance(acct), 10_000, 'the current period\'s grant stays');
  // Stripe reports it deleted; a late invoice of it grants nothing
  t.is(await s.deliver(event('customer.subscription.deleted', s.subscription(acct, sub, 'canceled'))), 'ignored');
  t.is(await s.grants(acct), 1);

  // Stripe refuses the key: the plan is cancelled all the same; a warning names the subscription, which stays pending
  const other = await s.account();
  const kept = uniqueName('sub');
  t.is(await s.subscribe(other, kept), 'subscription_started');
  nock(STRIPE).delete(`/v1/subscriptions/${kept}`).reply(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
  const before = logs.lines.length;
  const refused = await s.manage(other, { action: 'cancel' });
  t.is(refused.status, 200, refused.raw.payload);
  t.is(refused.body.status, 'cancelled');
  await stripeCancellationsSettled();
  const logged = logs.parsed<{ msg: string; subscription?: string; level: number }>().slice(before).filter((l) => l.subscription === kept);
  t.deepEqual(logged.map((l) => l.level), [40], JSON.stringify(logged));
  t.like(await s.cancellation(kept), { attempts: 1, done_at: null });
  t.deepEqual(await liveStripeSubscriptionsOf(s.gw.app.db, { userId: other.userId, teamId: null }), [kept], 'not recorded ended while Stripe has not cancelled it');
  // still failing a day later: an error asks the operator to cancel it by hand
  const created = Number((await s.cancellation(kept)).created_at);
  nock(STRIPE).delete(`/v1/subscriptions/${kept}`).reply(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
  const later = logs.lines.length;
  await s.job().run(created + DAY + 60_000);
  const errors = logs.parsed<{ msg: string; subscription?: string; level: number }>().slice(later).filter((l) => l.subscription === kept && l.level >= 50);
  t.is(errors.length, 1);
  t.regex(errors[0]!.msg, /^stripe_subscription_not_cancelled: .*cancel it in Stripe's dashboard/);
  t.true(nock.isDone());
});

/** Stripe's answer to the cancel of `sub`, held until `release` (or `fallbackMs`, so that code that waits for it still ends). */
function holdStripeCancel(sub: string, fallbackMs = 8_000) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => { release = resolve; });
  let asked = 0;
  let answered = false;
  nock(STRIPE).delete(`/v1/subscriptions/${sub}`).reply(async () => {
    asked += 1;
    await released;
    answered = true;
    return [200, { id: sub, object: 'subscription', status: 'canceled' }];
  });
  const fallback = setTimeout(release, fallbackMs);
  return {
    get asked() { return asked; },
    get answered() { return answered; },
    release() { clearTimeout(fallback); release(); },
  };
}

both('an administrator\'s cancel answers without waiting for Stripe; the cancel at Stripe is recorded and done once Stripe answers', async (t, s) => {
  const acct = await s.account();
  const sub = uniqueName('sub');
  t.is(await s.subscribe(acct, sub), 'subscription_started');
  const stripe = holdStripeCancel(sub);
  const res = await s.manage(acct, { action: 'cancel' });
  const answeredFirst = !stripe.answered;
  stripe.release();
  t.true(answeredFirst, 'the answer came while Stripe had not answered');
  t.is(res.status, 200, res.raw.payload);
  t.is(res.body.status, 'cancelled');
  t.like(await s.cancellation(sub), { user_id: acct.userId, team_id: null });
  await stripeCancellationsSettled();
  t.is(stripe.asked, 1);
  t.truthy((await s.cancellation(sub)).done_at);
  t.deepEqual(await liveStripeSubscriptionsOf(s.gw.app.db, { userId: acct.userId, teamId: null }), []);
});

both('a team\'s deletion answers without waiting for Stripe; its Stripe subscription is cancelled after', async (t, s) => {
  const owner = await s.account();
  const team = await callOperation<{ id: number }>(s.gw, 'createTeam', { as: owner.session, body: { name: uniqueName('team') } });
  const teamId = team.body.id;
  const sub = uniqueName('sub');
  // a plan checkout paid for the team's wallet (unapplied: Stripe charges it all the same)
  await s.gw.app.db('stripe_subscription_checkouts').insert({
    checkout_session_id: uniqueName('cs_test'), stripe_subscription_id: sub, customer_id: null, user_id: owner.userId, team_id: teamId,
    plan: 'starter', amount: 1000, currency: 'usd', outcome: 'unapplied', created_at: Date.now(),
  });
  const stripe = holdStripeCancel(sub);
  const res = await callOperation(s.gw, 'deleteTeam', { as: owner.session, params: { team_id: teamId } });
  const answeredFirst = !stripe.answered;
  stripe.release();
  t.true(answeredFirst, 'the answer came while Stripe had not answered');
  t.is(res.status, 200, res.raw.payload);
  t.like(await s.cancellation(sub), { team_id: teamId });
  await stripeCancellationsSettled();
  t.is(stripe.asked, 1);
  t.truthy((await s.cancellation(sub)).done_at);
  t.deepEqual(await liveStripeSubscriptionsOf(s.gw.app.db, { userId: owner.userId, teamId }), []);
});

both('a failed cancel at Stripe is tried again by the subscription job after its backoff, not before, until Stripe cancels it', async (t, s) => {
  const acct = await s.account();
  const sub = uniqueName('sub');
  t.is(await s.subscribe(acct, sub), 'subscription_started');
  let asked = 0;
  const refuse = () => nock(STRIPE).delete(`/v1/subscriptions/${sub}`).reply(() => { asked += 1; return [400, { error: { type: 'invalid_request_error', message: 'something went wrong' } }]; });
  refuse();
  t.is((await s.manage(acct, { action: 'cancel' })).status, 200);
  await stripeCancellationsSettled();
  t.is(asked, 1);
  const first = await s.cancellation(sub);
  t.like(first, { attempts: 1, done_at: null });
  t.regex(String(first.last_error), /something went wrong/);
  const due = Number(first.next_attempt_at);
  // not due yet: the job leaves it alone (nock refuses any request it does not expect)
  await s.job().run(due - 1);
  t.is(asked, 1);
  t.like(await s.cancellation(sub), { attempts: 1, done_at: null });
  // due: tried again, refused again, and the wait doubles
  refuse();
  await s.job().run(due);
  t.is(asked, 2);
  const second = await s.cancellation(sub);
  t.like(second, { attempts: 2, done_at: null });
  t.is(Number(second.next_attempt_at) - due, 2 * 60_000, 'the second wait is two minutes');
  // Stripe cancels it: done, and recorded ended
  nock(STRIPE).delete(`/v1/subscriptions/${sub}`).reply(() => { asked += 1; return [200, { id: sub, object: 'subscription', status: 'canceled' }]; });
  await s.job().run(Number(second.next_attempt_at));
  t.is(asked, 3);
  t.truthy((await s.cancellation(sub)).done_at);
  t.deepEqual(await liveStripeSubscriptionsOf(s.gw.app.db, { userId: acct.userId, teamId: null }), []);
  // done: no later run asks Stripe again
  await s.job().run(Number(second.next_attempt_at) + DAY);
  t.is(asked, 3);
  t.like(await s.cancellation(sub), { attempts: 3 });
});

both('a subscription Stripe no longer has (already canceled) counts as cancelled', async (t, s) => {
  const acct = await s.account();
  const sub = uniqueName('sub');
  t.is(await s.subscribe(acct, sub), 'subscription_started');
  nock(STRIPE).delete(`/v1/subscriptions/${sub}`).reply(404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such subscription: '${sub}'` } });
  const before = logs.lines.length;
  t.is((await s.manage(acct, { action: 'cancel' })).status, 200);
  await stripeCancellationsSettled();
  t.like(await s.cancellation(sub), { attempts: 1 });
  t.truthy((await s.cancellation(sub)).done_at);
  t.deepEqual(await liveStripeSubscriptionsOf(s.gw.app.db, { userId: acct.userId, teamId: null }), []);
  t.deepEqual(logs.parsed<{ level: number; subscription?: string }>().slice(before).filter((l) => l.subscription === sub), [], 'no warning');
  t.true(nock.isDone());
});

both('two subscription job runs at once ask Stripe once for a due cancellation', async (t, s) => {
  const acct = await s.account();
  const sub = uniqueName('sub');
  const now = Date.now();
  await recordStripeCancellation(s.gw.app.db, sub, { userId: acct.userId, teamId: null }, 'a test', now);
  let asked = 0;
  nock(STRIPE).delete(`/v1/subscriptions/${sub}`).times(2).reply(() => { asked += 1; return [200, { id: sub, object: 'subscription', status: 'canceled' }]; });
  await Promise.all([s.job().run(now), s.job().run(now)]);
  t.is(asked, 1);
  t.like(await s.cancellation(sub), { attempts: 1 });
  t.truthy((await s.cancellation(sub)).done_at);
});

both('an administrator\'s activate on a wallet a Stripe subscription still charges cancels that subscription at Stripe; an active plan is left alone', async (t, s) => {
  const acct = await s.account();
  const old = uniqueName('sub');
  t.is(await s.subscribe(acct, old), 'subscription_started');
  // the plan was cancelled on the gateway while its Stripe subscription went on (Stripe could not be asked then)
  t.like(await cancelSubscription(s.gw.app.db, { userId: acct.userId, teamId: null }, Date.now()), { outcome: 'ok' });
  const cancelled: string[] = [];
  nock(STRIPE).delete(`/v1/subscriptions/${old}`).reply(() => { cancelled.push(old); return [200, { id: old, object: 'subscription', status: 'canceled' }]; });
  const res = await s.manage(acct, { action: 'activate', plan: 'starter' });
  t.is(res.status, 200, res.raw.payload);
  t.like(await s.row(acct), { status: 'active', stripe_subscription_id: null });
  await stripeCancellationsSettled();
  t.deepEqual(cancelled, [old]);
  // activate on an active plan is 409 and asks Stripe nothing (nock would refuse an unexpected request)
  t.is((await s.manage(acct, { action: 'activate', plan: 'starter' })).status, 409);
  t.is(cancelled.length, 1);
});

both('a period paid for a Stripe-backed plan whose wallet is gone cancels the plan and its Stripe subscription, and grants nothing', async (t, s) => {
  const acct = await s.account();
  const sub = uniqueName('sub');
  t.is(await s.subscribe(acct, sub), 'subscription_started');
  const end = Number((await s.row(acct)).current_period_end);
  // the wallet is gone while its Stripe subscription went on (Stripe could not be asked at the deletion)
  await s.gw.app.db('users').where({ id: acct.userId }).update({ deleted_at: Date.now() });
  const cancelled: string[] = [];
  nock(STRIPE).delete(`/v1/subscriptions/${sub}`).reply(() => { cancelled.push(sub); return [200, { id: sub, object: 'subscription', status: 'canceled' }]; });
  t.is(await s.deliver(event('invoice.paid', s.invoice(sub, end, end + 30 * DAY))), 'subscription_cancelled');
  t.like(await s.row(acct), { status: 'cancelled' });
  await stripeCancellationsSettled();
  t.deepEqual(cancelled, [sub]);
  t.is(await s.grants(acct), 1);
});

test.serial('two updates of a Stripe subscription delivered at the same moment on MariaDB: the older one, written last, does not undo the newer', async (t) => {
  const s = scenario(gws.mysql);
  const acct = await s.account();
  const sub = uniqueName('sub');
  t.is(await s.subscribe(acct, sub), 'subscription_started');
  const pro = { items: { object: 'list', data: [{ id: 'si_1', price: { id: 'price_pro' } }] } };
  // the customer picks pro, then goes back to starter: Stripe sends both updates at once
  const older = event('customer.subscription.updated', s.subscription(acct, sub, 'active', pro));
  const newer = event('customer.subscription.updated', s.subscription(acct, sub, 'active'));
  // the older one's write of its change waits until the newer one has been applied in full
  const { client } = s.gw.app.db;
  const query = client.query;
  let reached!: () => void;
  const atWrite = new Promise<void>((resolve) => { reached = resolve; });
  let release!: () => void;
  const released = new Promise<void>((resolve) => { release = resolve; });
  client.query = async function (this: unknown, connection: unknown, q: { sql?: string; bindings?: unknown[] }) {
    if (/^update/i.test(q.sql ?? '') && /next_plan/.test(q.sql ?? '') && q.bindings?.includes('pro')) { reached(); await released; }
    return query.call(this, connection, q);
  };
  t.teardown(() => { client.query = query; });
  const first = s.deliver(older);
  await atWrite;
  const second = await s.deliver(newer);
  release();
  const statuses = [await first, second];
  client.query = query;
  t.like(await s.row(acct), { plan: 'starter', next_plan: null, status: 'active' }, statuses.join());
  await assertLedger(t, s.gw.app.db);
});
