// Self-service billing against Stripe's documented API: createCheckoutSession (credit or a plan,
// a user's own wallet or a team's), the webhook that credits a paid checkout exactly once (events
// signed with the SDK's own test helper), listPurchases, the billing portal, invoices, and the
// subscription events the portal causes. Third-party HTTP is nock at api.stripe.com; MariaDB.
// Serial: nock's interceptors are process-wide. Every test ends with the ledger check.
import test from 'ava';
import nock from 'nock';
import Stripe from 'stripe';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { ledgerCheckedAfterEach } from '../helpers/ledger.ts';
import { uniqueName } from '../helpers/services.ts';
import { captureLog } from '../helpers/logs.ts';
import { formOf } from '../helpers/stripe.ts';
import { eraseAccount } from '../../db/account-deletion.ts';
import { activateSubscription, renewDue } from '../../db/subscriptions.ts';
import { debitWallet } from '../../db/wallet/moves.ts';
import { eraseAccountAndFiles } from '../../workers/retention.ts';
import { stripeCancellationsSettled } from '../../workers/stripe-cancellations.ts';

const SECRET_KEY = 'sk_test_mediagatecheckout';
const WEBHOOK_SECRET = 'whsec_mediagatecheckoutsecret';
const STRIPE = 'https://api.stripe.com';
const HOOK = '/api/v1/payment-webhooks/stripe';
const PLANS = JSON.stringify({
  starter: { credits: 10000, rollover_cap: 0, period: 'month', stripe_price: 'price_starter' },
  pro: { credits: 50000, rollover_cap: 25000, period: 'month', stripe_price: 'price_pro' },
  custom: { credits: 900000, period: 'month' },
});

let gw: TestGateway;
const logs = captureLog('warn');

test.before(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  gw = await startGateway({
    queue: 'memory', log: logs.log,
    env: { STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, SUBSCRIPTION_PLANS: PLANS, CHECKOUT_PRESETS: '500,2000', CHECKOUT_MIN_AMOUNT: '500', CHECKOUT_MAX_AMOUNT: '50000' },
  });
});
test.afterEach.always(() => { nock.cleanAll(); });
test.after.always(async () => {
  nock.enableNetConnect();
  await gw?.stop();
});
ledgerCheckedAfterEach(test, () => gw?.app.db);

/** Stripe answers one Checkout Session create; the form the gateway sent is captured. */
function stripeCreatesSession(id = uniqueName('cs_test')) {
  const sent: Array<Record<string, string>> = [];
  const scope = nock(STRIPE).post('/v1/checkout/sessions', (body: unknown) => { sent.push(formOf(body)); return true; })
    .reply(200, () => ({ id, object: 'checkout.session', url: `https://checkout.stripe.com/c/pay/${id}`, mode: sent[0]?.mode }));
  return { id, sent, scope };
}

function deliver(event: object) {
  const payload = JSON.stringify(event);
  const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
  return gw.server.inject({ method: 'POST', url: HOOK, headers: { 'content-type': 'application/json', 'stripe-signature': header }, payload });
}

function event(type: string, object: Record<string, unknown>) {
  return { id: uniqueName('evt'), object: 'event', type, api_version: Stripe.API_VERSION, created: Math.floor(Date.now() / 1000), data: { object } };
}

/** What Stripe sends when the session the gateway created is paid: the metadata it was given comes back. */
function paidSession(id: string, sent: Record<string, string>, extra: Record<string, unknown> = {}) {
  const metadata = Object.fromEntries(Object.entries(sent).filter(([k]) => k.startsWith('metadata[')).map(([k, v]) => [k.slice(9, -1), v]));
  return event('checkout.session.completed', {
    id, object: 'checkout.session', mode: sent.mode, payment_status: 'paid', status: 'complete', amount_total: Number(sent['line_items[0][price_data][unit_amount]'] ?? 0),
    currency: 'usd', client_reference_id: sent.client_reference_id, customer: uniqueName('cus'), customer_details: { email: sent.customer_email ?? null },
    payment_intent: uniqueName('pi'), metadata, ...extra,
  });
}

const balance = async (table: 'users' | 'teams', id: number) => Number((await gw.app.db(table).where({ id }).first('balance')).balance);

async function teamOf(owner: Account): Promise<number> {
  const team = await callOperation<{ id: number }>(gw, 'createTeam', { as: owner.session, body: { name: uniqueName('team') } });
  return team.body.id;
}

test.serial('buying credit: the checkout session names the account and the credits; the paid webhook credits it once and it is listed', async (t) => {
  const acct = await newAccount(gw);
  const stripe = stripeCreatesSession();
  const res = await callOperation<{ id: string; url: string }>(gw, 'createCheckoutSession', { as: acct.session, body: { amount: 2000 } });
  t.is(res.status, 200, res.raw.payload);
  t.true(stripe.scope.isDone());
  t.is(res.body.id, stripe.id);
  t.regex(res.body.url, /^https:\/\/checkout\.stripe\.com\//);
  const form = stripe.sent[0]!;
  t.like(form, {
    mode: 'payment', client_reference_id: String(acct.userId), 'metadata[user_id]': String(acct.userId), 'metadata[credits]': '20000',
    'payment_intent_data[metadata][credits]': '20000', 'line_items[0][quantity]': '1', 'line_items[0][price_data][unit_amount]': '2000',
    'line_items[0][price_data][currency]': 'usd', customer_creation: 'always',
  });
  t.regex(form.success_url!, /^http:\/\/gateway\.test\/dashboard\?checkout=done&session_id=\{CHECKOUT_SESSION_ID\}#\/billing$/);
  t.is(form['metadata[team_id]'], undefined);

  const paid = paidSession(stripe.id, form);
  t.deepEqual((await deliver(paid)).result, { status: 'credited' });
  t.deepEqual((await deliver(paid)).result, { status: 'duplicate' }, 'a redelivery credits nothing');
  t.is(await balance('users', acct.userId), 20_000);
  const list = await callOperation<{ purchases: Array<{ checkout_session_id: string; credits: number; amount: number }>; has_more: boolean }>(gw, 'listPurchases', { as: acct.session });
  t.like(list.body.purchases[0], { checkout_session_id: stripe.id, credits: 20_000, amount: 2000 });
  t.false(list.body.has_more);
});

test.serial('an amount outside the operator\'s limits, or both or neither of amount and plan, is 422 and Stripe is not asked', async (t) => {
  const acct = await newAccount(gw);
  for (const body of [{ amount: 499 }, { amount: 50_001 }, {}, { amount: 2000, plan: 'starter' }]) {
    const res = await callOperation(gw, 'createCheckoutSession', { as: acct.session, body });
    t.is(res.status, 422, JSON.stringify(body));
  }
  t.deepEqual(nock.pendingMocks(), []);
});

test.serial('an amount that would buy more credits than the gateway keeps exactly is 422 and Stripe is not asked', async (t) => {
  const yen = await startGateway({
    queue: 'memory',
    env: { STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_CURRENCY: 'jpy', STRIPE_CREDITS_PER_UNIT: '1000000000', CHECKOUT_PRESETS: '500', CHECKOUT_MIN_AMOUNT: '500', CHECKOUT_MAX_AMOUNT: '100000000' },
  });
  try {
    const acct = await newAccount(yen);
    const res = await callOperation<{ code: string; detail: Array<{ loc: string[] }> }>(yen, 'createCheckoutSession', { as: acct.session, body: { amount: 99_999_999 } });
    t.is(res.status, 422, res.raw.payload);
    t.deepEqual(res.body.detail[0]!.loc, ['body', 'amount']);
  } finally {
    await yen.stop();
  }
});

test.serial('a team owner buys for the team: the team wallet is credited and refunds take back from it; a developer may not buy', async (t) => {
  const owner = await newAccount(gw);
  const teamId = await teamOf(owner);
  const dev = await newAccount(gw);
  await gw.app.db('team_members').insert({ team_id: teamId, user_id: dev.userId, role: 'developer', created_at: Date.now() });
  const refused = await callOperation<{ detail: string }>(gw, 'createCheckoutSession', { as: dev.session, query: { team_id: teamId }, body: { amount: 500 } });
  t.is(refused.status, 403, refused.raw.payload);
  t.regex(refused.body.detail, /top_up/);

  const stripe = stripeCreatesSession();
  const res = await callOperation(gw, 'createCheckoutSession', { as: owner.session, query: { team_id: teamId }, body: { amount: 500 } });
  t.is(res.status, 200, res.raw.payload);
  t.is(stripe.sent[0]!['metadata[team_id]'], String(teamId));
  const ownerBefore = await balance('users', owner.userId);
  const paid = paidSession(stripe.id, stripe.sent[0]!);
  t.deepEqual((await deliver(paid)).result, { status: 'credited' });
  t.is(await balance('teams', teamId), 5000);
  t.is(await balance('users', owner.userId), ownerBefore, 'the buyer\'s own wallet is untouched');
  const teamList = await callOperation<{ purchases: unknown[] }>(gw, 'listPurchases', { as: owner.session, query: { team_id: teamId } });
  t.is(teamList.body.purchases.length, 1);
  const ownList = await callOperation<{ purchases: unknown[] }>(gw, 'listPurchases', { as: owner.session });
  t.is(ownList.body.purchases.length, 0);
  // the team has its own Stripe customer now
  const customer = (paid.data.object as { customer: string }).customer;
  t.is((await gw.app.db('teams').where({ id: teamId }).first('stripe_customer_id')).stripe_customer_id, customer);

  // a refund of half takes half the credits back from the team's wallet
  const pi = (paid.data.object as { payment_intent: string }).payment_intent;
  const refund = await deliver(event('refund.created', { id: uniqueName('re'), object: 'refund', amount: 250, currency: 'usd', charge: uniqueName('ch'), payment_intent: pi, status: 'succeeded', created: 1_790_000_100 }));
  t.deepEqual(refund.result, { status: 'refund_applied' });
  t.is(await balance('teams', teamId), 2500);
});

test.serial('a plan sold online starts with a subscription checkout; the portal\'s change and cancellation come back through the webhook', async (t) => {
  const acct = await newAccount(gw);
  const stripe = stripeCreatesSession();
  const res = await callOperation(gw, 'createCheckoutSession', { as: acct.session, body: { plan: 'starter' } });
  t.is(res.status, 200, res.raw.payload);
  t.like(stripe.sent[0], { mode: 'subscription', 'line_items[0][price]': 'price_starter', 'metadata[plan]': 'starter', 'subscription_data[metadata][plan]': 'starter', 'subscription_data[metadata][user_id]': String(acct.userId) });
  t.is(stripe.sent[0]!.customer_creation, undefined, 'a subscription checkout always makes a customer');
  // a plan not sold online is refused before Stripe is asked
  t.is((await callOperation(gw, 'createCheckoutSession', { as: acct.session, body: { plan: 'custom' } })).status, 422);

  const stripeSubscription = uniqueName('sub');
  const paid = paidSession(stripe.id, stripe.sent[0]!, { amount_total: 1000, subscription: stripeSubscription });
  t.deepEqual((await deliver(paid)).result, { status: 'subscription_started' });
  t.deepEqual((await deliver(paid)).result, { status: 'duplicate' });
  const sub = await callOperation<{ plan: string; status: string; grant_remaining: number; next_plan: string | null }>(gw, 'getMySubscription', { as: acct.session });
  t.like(sub.body, { plan: 'starter', status: 'active', grant_remaining: 10_000 });
  t.is(await balance('users', acct.userId), 10_000);
  // another subscription checkout while one is active is 409
  t.is((await callOperation(gw, 'createCheckoutSession', { as: acct.session, body: { plan: 'pro' } })).status, 409);

  const metadata = { user_id: String(acct.userId), plan: 'starter' };
  const subscription = (price: string, status = 'active') => ({ id: stripeSubscription, object: 'subscription', status, metadata, items: { object: 'list', data: [{ id: 'si_1', price: { id: price } }] } });
  t.deepEqual((await deliver(event('customer.subscription.updated', subscription('price_pro')))).result, { status: 'subscription_changed' });
  t.is((await callOperation<{ next_plan: string }>(gw, 'getMySubscription', { as: acct.session })).body.next_plan, 'pro');
  t.deepEqual((await deliver(event('customer.subscription.deleted', subscription('price_pro', 'canceled')))).result, { status: 'subscription_cancelled' });
  t.is((await callOperation<{ status: string }>(gw, 'getMySubscription', { as: acct.session })).body.status, 'cancelled');
  t.deepEqual((await deliver(event('customer.subscription.deleted', subscription('price_pro', 'canceled')))).result, { status: 'ignored' });
});

test.serial('a top-up paid after its account was erased credits no tombstone and is logged for the operator', async (t) => {
  const acct = await newAccount(gw);
  const stripe = stripeCreatesSession();
  t.is((await callOperation(gw, 'createCheckoutSession', { as: acct.session, body: { amount: 500 } })).status, 200);
  // the account is erased while Stripe's payment page is open
  t.like(await eraseAccount(gw.app.db, acct.userId, Date.now(), { immediate: true }), { kind: 'erased' });

  const before = logs.lines.length;
  const paid = paidSession(stripe.id, stripe.sent[0]!);
  t.deepEqual((await deliver(paid)).result, { status: 'unmatched' });
  t.is(await balance('users', acct.userId), 0, 'an erased account is credited nothing');
  t.is(Number((await gw.app.db('credit_transactions').where({ user_id: acct.userId, kind: 'purchase' }).count({ n: '*' }))[0]!.n), 0);
  t.is((await gw.app.db('stripe_payments').where({ checkout_session_id: stripe.id })).length, 0);
  const unmatched = logs.parsed<{ msg: string; session?: string }>().slice(before).filter((l) => l.msg.startsWith('stripe_payment_unmatched'));
  t.deepEqual(unmatched.map((l) => l.session), [stripe.id], 'the paid session is named for the operator');
  t.regex(unmatched[0]!.msg, /erased/);
});

test.serial('a team top-up paid after the team was deleted credits its buyer\'s own wallet, saying so; the deleted team gets nothing', async (t) => {
  const owner = await newAccount(gw);
  const teamId = await teamOf(owner);
  const forTeam = stripeCreatesSession();
  t.is((await callOperation(gw, 'createCheckoutSession', { as: owner.session, query: { team_id: teamId }, body: { amount: 2000 } })).status, 200);
  // the team is deleted while Stripe's payment page is open
  t.is((await callOperation(gw, 'deleteTeam', { as: owner.session, params: { team_id: teamId } })).status, 200);

  const before = logs.lines.length;
  const paidTeam = paidSession(forTeam.id, forTeam.sent[0]!);
  t.deepEqual((await deliver(paidTeam)).result, { status: 'credited' });
  t.deepEqual((await deliver(paidTeam)).result, { status: 'duplicate' }, 'a redelivery credits nothing more');
  t.is(await balance('teams', teamId), 0, 'a deleted team is credited nothing');
  t.is(await balance('users', owner.userId), 20_000);
  const row = await gw.app.db('credit_transactions').where({ user_id: owner.userId, kind: 'purchase' }).first();
  t.is(row.team_id, null);
  t.regex(row.description, new RegExp(`team ${teamId}.*deleted`));
  // recorded as the personal wallet's purchase: a refund of it takes from there
  t.like(await gw.app.db('stripe_payments').where({ checkout_session_id: forTeam.id }).first(), { user_id: owner.userId, team_id: null });
  const listed = await callOperation<{ purchases: Array<{ checkout_session_id: string; credits: number }> }>(gw, 'listPurchases', { as: owner.session });
  t.is(listed.status, 200);
  t.like(listed.body.purchases[0], { checkout_session_id: forTeam.id, credits: 20_000 });
  const told = logs.parsed<{ msg: string; session?: string; level: number }>().slice(before).filter((l) => l.session === forTeam.id);
  t.is(told.length, 1);
  t.regex(told[0]!.msg, /deleted/);
});

test.serial('a team top-up paid after the team was deleted and its buyer erased is credited nowhere and logged for the operator to refund', async (t) => {
  const owner = await newAccount(gw);
  const teamId = await teamOf(owner);
  const buyer = await newAccount(gw);
  await gw.app.db('team_members').insert({ team_id: teamId, user_id: buyer.userId, role: 'billing', created_at: Date.now() });
  const forTeam = stripeCreatesSession();
  t.is((await callOperation(gw, 'createCheckoutSession', { as: buyer.session, query: { team_id: teamId }, body: { amount: 500 } })).status, 200);
  t.like(await eraseAccount(gw.app.db, buyer.userId, Date.now(), { immediate: true }), { kind: 'erased' });
  t.is((await callOperation(gw, 'deleteTeam', { as: owner.session, params: { team_id: teamId } })).status, 200);

  const before = logs.lines.length;
  t.deepEqual((await deliver(paidSession(forTeam.id, forTeam.sent[0]!))).result, { status: 'unmatched' });
  t.is(await balance('teams', teamId), 0);
  t.is(await balance('users', buyer.userId), 0);
  t.is((await gw.app.db('stripe_payments').where({ checkout_session_id: forTeam.id })).length, 0);
  const unmatched = logs.parsed<{ msg: string; session?: string }>().slice(before).filter((l) => l.msg.startsWith('stripe_payment_unmatched'));
  t.deepEqual(unmatched.map((l) => l.session), [forTeam.id]);
  t.regex(unmatched[0]!.msg, /deleted.*erased.*refund/);
});

test.serial('a team top-up paid after its buyer\'s account was erased still credits the team, which is still there', async (t) => {
  const owner = await newAccount(gw);
  const teamId = await teamOf(owner);
  const buyer = await newAccount(gw);
  await gw.app.db('team_members').insert({ team_id: teamId, user_id: buyer.userId, role: 'billing', created_at: Date.now() });
  const stripe = stripeCreatesSession();
  t.is((await callOperation(gw, 'createCheckoutSession', { as: buyer.session, query: { team_id: teamId }, body: { amount: 500 } })).status, 200);
  t.like(await eraseAccount(gw.app.db, buyer.userId, Date.now(), { immediate: true }), { kind: 'erased' });
  t.deepEqual((await deliver(paidSession(stripe.id, stripe.sent[0]!))).result, { status: 'credited' });
  t.is(await balance('teams', teamId), 5000);
  t.is(await balance('users', buyer.userId), 0);
});

test.serial('two top-up checkouts of one wallet, both paid: each credits once, redeliveries credit nothing', async (t) => {
  const acct = await newAccount(gw);
  const first = stripeCreatesSession();
  t.is((await callOperation(gw, 'createCheckoutSession', { as: acct.session, body: { amount: 500 } })).status, 200);
  const second = stripeCreatesSession();
  t.is((await callOperation(gw, 'createCheckoutSession', { as: acct.session, body: { amount: 2000 } })).status, 200);
  const paidFirst = paidSession(first.id, first.sent[0]!);
  const paidSecond = paidSession(second.id, second.sent[0]!);
  const answers = await Promise.all([deliver(paidSecond), deliver(paidFirst), deliver(paidSecond), deliver(paidFirst)]);
  t.deepEqual(answers.map((a) => (a.result as { status: string }).status).sort(), ['credited', 'credited', 'duplicate', 'duplicate']);
  t.is(await balance('users', acct.userId), 25_000);
  t.is(Number((await gw.app.db('credit_transactions').where({ user_id: acct.userId, kind: 'purchase' }).count({ n: '*' }))[0]!.n), 2);
});

test.serial('a second subscription checkout paid for a wallet whose plan is active is never lost: recorded unapplied, logged, its Stripe subscription kept apart', async (t) => {
  const acct = await newAccount(gw);
  const stripe = stripeCreatesSession();
  t.is((await callOperation(gw, 'createCheckoutSession', { as: acct.session, body: { plan: 'starter' } })).status, 200);
  const form = stripe.sent[0]!;
  // the user opened checkout twice (a second tab, a double click) and paid both: Stripe made two subscriptions
  const [subA, subB, secondId] = [uniqueName('sub'), uniqueName('sub'), uniqueName('cs_test')];
  const paidA = paidSession(stripe.id, form, { amount_total: 1000, subscription: subA, invoice: uniqueName('in'), payment_intent: null });
  const paidB = paidSession(secondId, { ...form, 'metadata[plan]': 'pro' }, { amount_total: 5000, subscription: subB, invoice: uniqueName('in'), payment_intent: null });
  t.deepEqual((await deliver(paidA)).result, { status: 'subscription_started' });
  const before = logs.lines.length;
  t.deepEqual((await deliver(paidB)).result, { status: 'unmatched' }, 'a paid checkout that started nothing is not a duplicate');
  t.deepEqual((await deliver(paidB)).result, { status: 'unmatched' }, 'its redelivery is the same, and records nothing twice');
  t.deepEqual((await deliver(paidA)).result, { status: 'duplicate' }, 'the redelivery of the checkout that started the plan is a duplicate');
  t.is(await balance('users', acct.userId), 10_000, 'only the plan that started granted credit');

  const warned = logs.parsed<{ msg: string; session?: string; subscription?: string; userId?: number; amount?: number }>().slice(before)
    .filter((l) => l.msg.startsWith('stripe_payment_unmatched'));
  t.true(warned.length >= 1);
  t.like(warned[0], { session: secondId, subscription: subB, userId: acct.userId, amount: 5000 });
  t.regex(warned[0]!.msg, /already has the starter plan/);
  const rows = await gw.app.db('stripe_subscription_checkouts').where({ user_id: acct.userId }).orderBy('id');
  t.is(rows.length, 2);
  t.like(rows[0], { checkout_session_id: stripe.id, stripe_subscription_id: subA, plan: 'starter', outcome: 'started' });
  t.like(rows[1], { checkout_session_id: secondId, stripe_subscription_id: subB, plan: 'pro', outcome: 'unapplied', amount: 5000, currency: 'usd' });

  // the operator cancels (and refunds) the unapplied one in Stripe: the wallet's plan is untouched
  const metadata = { user_id: String(acct.userId), plan: 'pro' };
  const item = (price: string) => ({ object: 'list', data: [{ id: 'si_1', price: { id: price } }] });
  t.deepEqual((await deliver(event('customer.subscription.updated', { id: subB, object: 'subscription', status: 'active', metadata, items: item('price_starter') }))).result, { status: 'ignored' });
  t.deepEqual((await deliver(event('customer.subscription.deleted', { id: subB, object: 'subscription', status: 'canceled', metadata, items: item('price_pro') }))).result, { status: 'ignored' });
  t.like((await callOperation<{ plan: string; status: string; next_plan: string | null }>(gw, 'getMySubscription', { as: acct.session })).body, { plan: 'starter', status: 'active', next_plan: null });
  // the one that started it still drives it
  t.deepEqual((await deliver(event('customer.subscription.deleted', { id: subA, object: 'subscription', status: 'canceled', metadata: { ...metadata, plan: 'starter' }, items: item('price_starter') }))).result, { status: 'subscription_cancelled' });
});

test.serial('a late event of a Stripe subscription that ended leaves the plan a later checkout started alone', async (t) => {
  const acct = await newAccount(gw);
  const metadata = { user_id: String(acct.userId), plan: 'starter' };
  const subscription = (id: string, price: string, status: string) => ({ id, object: 'subscription', status, metadata, items: { object: 'list', data: [{ id: 'si_1', price: { id: price } }] } });
  const [subA, subB] = [uniqueName('sub'), uniqueName('sub')];
  const first = stripeCreatesSession();
  t.is((await callOperation(gw, 'createCheckoutSession', { as: acct.session, body: { plan: 'starter' } })).status, 200);
  t.deepEqual((await deliver(paidSession(first.id, first.sent[0]!, { amount_total: 1000, subscription: subA, payment_intent: null }))).result, { status: 'subscription_started' });
  t.deepEqual((await deliver(event('customer.subscription.deleted', subscription(subA, 'price_starter', 'canceled')))).result, { status: 'subscription_cancelled' });
  // the customer subscribes again: a new Stripe subscription
  const second = stripeCreatesSession();
  t.is((await callOperation(gw, 'createCheckoutSession', { as: acct.session, body: { plan: 'starter' } })).status, 200);
  t.deepEqual((await deliver(paidSession(second.id, second.sent[0]!, { amount_total: 1000, subscription: subB, payment_intent: null }))).result, { status: 'subscription_started' });
  // Stripe redelivers, late, events of the first subscription
  t.deepEqual((await deliver(event('customer.subscription.updated', subscription(subA, 'price_pro', 'active')))).result, { status: 'ignored' });
  t.deepEqual((await deliver(event('customer.subscription.updated', subscription(subA, 'price_starter', 'canceled')))).result, { status: 'ignored' });
  t.deepEqual((await deliver(event('customer.subscription.deleted', subscription(subA, 'price_starter', 'canceled')))).result, { status: 'ignored' });
  t.like((await callOperation<{ plan: string; status: string; next_plan: string | null }>(gw, 'getMySubscription', { as: acct.session })).body, { plan: 'starter', status: 'active', next_plan: null });
  // the current one still drives it
  t.deepEqual((await deliver(event('customer.subscription.updated', subscription(subB, 'price_pro', 'active')))).result, { status: 'subscription_changed' });
  t.deepEqual((await deliver(event('customer.subscription.deleted', subscription(subB, 'price_pro', 'canceled')))).result, { status: 'subscription_cancelled' });
});

test.serial('two subscription checkouts of one wallet delivered at once: one starts the plan, the other is recorded unapplied', async (t) => {
  const acct = await newAccount(gw);
  const stripe = stripeCreatesSession();
  t.is((await callOperation(gw, 'createCheckoutSession', { as: acct.session, body: { plan: 'starter' } })).status, 200);
  const ids = [stripe.id, uniqueName('cs_test')];
  const paid = ids.map((id) => paidSession(id, stripe.sent[0]!, { amount_total: 1000, subscription: uniqueName('sub'), payment_intent: null }));
  const answers = await Promise.all([deliver(paid[0]!), deliver(paid[1]!), deliver(paid[0]!), deliver(paid[1]!)]);
  const statuses = answers.map((a) => (a.result as { status: string }).status);
  t.is(statuses.filter((x) => x === 'subscription_started').length, 1, statuses.join());
  t.is(await balance('users', acct.userId), 10_000);
  const rows = await gw.app.db('stripe_subscription_checkouts').where({ user_id: acct.userId });
  t.deepEqual(rows.map((r: { outcome: string }) => r.outcome).sort(), ['started', 'unapplied']);
});

test.serial('the billing portal opens for a wallet with a Stripe customer; invoices are Stripe\'s for that customer', async (t) => {
  const acct = await newAccount(gw);
  t.is((await callOperation(gw, 'createBillingPortalSession', { as: acct.session })).status, 409, 'no customer before a first purchase');
  t.deepEqual((await callOperation<{ invoices: unknown[] }>(gw, 'listInvoices', { as: acct.session })).body.invoices, []);
  const stripe = stripeCreatesSession();
  await callOperation(gw, 'createCheckoutSession', { as: acct.session, body: { amount: 500 } });
  const paid = paidSession(stripe.id, stripe.sent[0]!);
  await deliver(paid);
  const customer = (paid.data.object as { customer: string }).customer;

  let portalForm: Record<string, string> = {};
  nock(STRIPE).post('/v1/billing_portal/sessions', (b: unknown) => { portalForm = formOf(b); return true; })
    .reply(200, { id: 'bps_1', object: 'billing_portal.session', url: 'https://billing.stripe.com/p/session/test_1' });
  const portal = await callOperation<{ url: string }>(gw, 'createBillingPortalSession', { as: acct.session });
  t.is(portal.status, 200, portal.raw.payload);
  t.is(portal.body.url, 'https://billing.stripe.com/p/session/test_1');
  t.like(portalForm, { customer, return_url: 'http://gateway.test/dashboard#/billing' });

  nock(STRIPE).get('/v1/invoices').query({ customer, limit: '24' }).reply(200, {
    object: 'list', has_more: false, url: '/v1/invoices',
    data: [{ id: 'in_1', object: 'invoice', number: 'MG-0001', status: 'paid', amount_due: 1000, amount_paid: 1000, currency: 'usd', created: 1_790_000_000, hosted_invoice_url: 'https://invoice.stripe.com/i/1', invoice_pdf: 'https://pay.stripe.com/invoice/1/pdf' }],
  });
  const invoices = await callOperation<{ invoices: Array<Record<string, unknown>> }>(gw, 'listInvoices', { as: acct.session });
  t.like(invoices.body.invoices[0], { id: 'in_1', number: 'MG-0001', status: 'paid', amount_paid: 1000, hosted_invoice_url: 'https://invoice.stripe.com/i/1' });
});

test.serial('on a storefront whose owner pays there is no credit to buy; where users pay, the session returns to the storefront', async (t) => {
  const owner = await newAccount(gw);
  const make = async (payerMode: string) => {
    const slug = uniqueName('shop').toLowerCase().replace(/[^a-z0-9-]/g, '').slice(0, 30);
    await callOperation(gw, 'createStudio', { as: owner.session, body: { slug, name: 'Shop', allowed_models: ['canvas-v1-fast-text-to-image'], payer_mode: payerMode } });
    const email = `${uniqueName('buyer')}@example.com`;
    await gw.server.inject({ method: 'POST', url: '/auth/register', headers: { 'x-whitelabel-studio': slug }, payload: { email, password: 'correct horse battery' } });
    const login = await gw.server.inject({ method: 'POST', url: '/auth/login', headers: { 'x-whitelabel-studio': slug }, payload: { email, password: 'correct horse battery' } });
    return { slug, session: (login.result as { access_token: string }).access_token };
  };
  const owned = await make('owner_pays');
  const refused = await callOperation(gw, 'createCheckoutSession', { as: owned.session, headers: { 'x-whitelabel-studio': owned.slug }, body: { amount: 500 } });
  t.is(refused.status, 403);
  const paying = await make('end_user_pays');
  const stripe = stripeCreatesSession();
  const ok = await callOperation(gw, 'createCheckoutSession', { as: paying.session, headers: { 'x-whitelabel-studio': paying.slug }, body: { amount: 500 } });
  t.is(ok.status, 200, ok.raw.payload);
  t.true(stripe.sent[0]!.success_url!.startsWith(`http://gateway.test/s/${paying.slug}?checkout=done`));
  t.truthy(stripe.sent[0]!['metadata[studio_id]']);
});

test.serial('a checkout needs a login session: an API key is refused and Stripe is not asked', async (t) => {
  const acct = await newAccount(gw);
  const key = await callOperation<{ code: string }>(gw, 'createCheckoutSession', { as: acct.liveKey, body: { amount: 500 } });
  t.is(key.status, 403);
  t.is(key.body.code, 'session_required');
  t.deepEqual(nock.pendingMocks(), []);
});

/** A plan bought online: its checkout paid with the Stripe subscription `sub`. */
async function subscribed(acct: Account, sub: string): Promise<void> {
  const stripe = stripeCreatesSession();
  const res = await callOperation(gw, 'createCheckoutSession', { as: acct.session, body: { plan: 'starter' } });
  if (res.status !== 200) throw new Error(res.raw.payload);
  const started = await deliver(paidSession(stripe.id, stripe.sent[0]!, { amount_total: 1000, subscription: sub, payment_intent: null }));
  if ((started.result as { status: string }).status !== 'subscription_started') throw new Error(started.payload);
}

/** Moves the wallet's current period into the past (its end passed), as if a period had gone by. */
async function periodEnded(userId: number): Promise<void> {
  await gw.app.db('subscriptions').where({ wallet: `user:${userId}` }).update({ current_period_start: Date.now() - 31 * 86_400_000, current_period_end: Date.now() - 60_000 });
}

const renewNow = () => renewDue(gw.app.db, gw.app.config.subscriptions.plans, Date.now());
const grants = async (userId: number) => Number((await gw.app.db('credit_grants').where({ wallet: `user:${userId}` }).count({ n: '*' }))[0]!.n);

test.serial('a Stripe subscription held while a payment is owed and resumed when paid up gets no period from the clock; its paid invoice grants it once', async (t) => {
  const acct = await newAccount(gw);
  const sub = uniqueName('sub');
  await subscribed(acct, sub);
  t.is(await balance('users', acct.userId), 10_000);
  const metadata = { user_id: String(acct.userId), plan: 'starter' };
  const subscription = (status: string) => ({ id: sub, object: 'subscription', status, metadata, items: { object: 'list', data: [{ id: 'si_1', price: { id: 'price_starter' } }] } });

  t.deepEqual((await deliver(event('customer.subscription.updated', subscription('past_due')))).result, { status: 'subscription_held' });
  await periodEnded(acct.userId);
  await renewNow();
  t.is(await grants(acct.userId), 1, 'no new period while Stripe reports it past due');
  t.like((await callOperation<{ plan: string; status: string }>(gw, 'getMySubscription', { as: acct.session })).body, { plan: 'starter', status: 'active' });

  // paid up again: active, and still no period from the clock; the period comes with its paid invoice
  t.deepEqual((await deliver(event('customer.subscription.updated', subscription('active')))).result, { status: 'subscription_resumed' });
  await renewNow();
  t.is(await grants(acct.userId), 1);
  const start = Math.floor((Date.now() - 60_000) / 1000);
  const paid = event('invoice.paid', {
    id: uniqueName('in'), object: 'invoice', status: 'paid', billing_reason: 'subscription_cycle', parent: { type: 'subscription_details', subscription_details: { subscription: sub, metadata } },
    lines: { object: 'list', has_more: false, data: [{ id: 'il_1', object: 'line_item', period: { start, end: start + 30 * 86_400 } }] },
  });
  t.deepEqual((await deliver(paid)).result, { status: 'subscription_renewed' });
  t.deepEqual((await deliver(paid)).result, { status: 'ignored' }, 'a redelivery grants nothing');
  t.is(await grants(acct.userId), 2);
  t.is(await balance('users', acct.userId), 20_000);

  // invoice.payment_failed holds it as well (an API version that names the subscription on the invoice)
  t.deepEqual((await deliver(event('invoice.payment_failed', { id: uniqueName('in'), object: 'invoice', status: 'open', subscription: sub }))).result, { status: 'subscription_held' });
  // held, then ended at Stripe: cancelled, nothing more granted
  t.deepEqual((await deliver(event('customer.subscription.deleted', subscription('canceled')))).result, { status: 'subscription_cancelled' });
  t.like((await callOperation<{ status: string }>(gw, 'getMySubscription', { as: acct.session })).body, { status: 'cancelled' });
  t.deepEqual((await deliver(paid)).result, { status: 'ignored' });
  t.is(await grants(acct.userId), 2);
});

test.serial('a plan an admin activated is not held by a Stripe subscription event naming its wallet', async (t) => {
  const acct = await newAccount(gw);
  t.like(await activateSubscription(gw.app.db, { userId: acct.userId, teamId: null }, gw.app.config.subscriptions.plans.get('starter')!, undefined, Date.now()), { outcome: 'ok' });
  const metadata = { user_id: String(acct.userId), plan: 'starter' };
  const held = event('customer.subscription.updated', { id: uniqueName('sub'), object: 'subscription', status: 'past_due', metadata, items: { object: 'list', data: [{ id: 'si_1', price: { id: 'price_starter' } }] } });
  t.deepEqual((await deliver(held)).result, { status: 'ignored' });
  await periodEnded(acct.userId);
  await renewNow();
  t.is(await grants(acct.userId), 2);
});

test.serial('a subscription checkout delivered after its Stripe subscription\'s deletion starts nothing and is logged; others start as before', async (t) => {
  const acct = await newAccount(gw);
  const sub = uniqueName('sub');
  const metadata = { user_id: String(acct.userId), plan: 'starter' };
  t.deepEqual((await deliver(event('customer.subscription.deleted', { id: sub, object: 'subscription', status: 'canceled', metadata, items: { object: 'list', data: [{ id: 'si_1', price: { id: 'price_starter' } }] } }))).result, { status: 'ignored' });
  const stripe = stripeCreatesSession();
  t.is((await callOperation(gw, 'createCheckoutSession', { as: acct.session, body: { plan: 'starter' } })).status, 200);
  const late = paidSession(stripe.id, stripe.sent[0]!, { amount_total: 1000, subscription: sub, payment_intent: null });
  const before = logs.lines.length;
  t.deepEqual((await deliver(late)).result, { status: 'unmatched' });
  t.deepEqual((await deliver(late)).result, { status: 'unmatched' }, 'a redelivery starts nothing either');
  t.like((await callOperation<{ status: string }>(gw, 'getMySubscription', { as: acct.session })).body, { status: 'none' });
  t.is(await balance('users', acct.userId), 0);
  const logged = logs.parsed<{ msg: string; session?: string; subscription?: string }>().slice(before).filter((l) => l.subscription === sub);
  t.true(logged.length >= 1);
  t.regex(logged[0]!.msg, /deleted/);
  // a later subscription of the same wallet starts as usual
  await subscribed(acct, uniqueName('sub'));
  t.is(await balance('users', acct.userId), 10_000);
});

test.serial('erasing an account whose plan was bought through Stripe cancels its Stripe subscription after the erasure; a refusal is logged, kept for a retry, and the erasure stands', async (t) => {
  const acct = await newAccount(gw);
  const sub = uniqueName('sub');
  await subscribed(acct, sub);
  const cancelled = nock(STRIPE).delete(`/v1/subscriptions/${sub}`).reply(200, { id: sub, object: 'subscription', status: 'canceled' });
  t.is((await eraseAccountAndFiles(gw.app, acct.userId, Date.now(), { immediate: true })).kind, 'erased');
  await stripeCancellationsSettled();
  t.true(cancelled.isDone(), 'Stripe was asked to cancel the subscription');
  t.truthy((await gw.app.db('stripe_cancellations').where({ stripe_subscription_id: sub }).first()).done_at);
  t.like(await gw.app.db('subscriptions').where({ wallet: `user:${acct.userId}` }).first(), { status: 'cancelled' });

  // Stripe refuses: the erasure stands, a warning names the subscription, and the subscription job tries again later
  const other = await newAccount(gw);
  const otherSub = uniqueName('sub');
  await subscribed(other, otherSub);
  const refused = nock(STRIPE).delete(`/v1/subscriptions/${otherSub}`).reply(400, { error: { type: 'invalid_request_error', message: 'something went wrong' } });
  const before = logs.lines.length;
  t.is((await eraseAccountAndFiles(gw.app, other.userId, Date.now(), { immediate: true })).kind, 'erased');
  await stripeCancellationsSettled();
  t.true(refused.isDone());
  t.not((await gw.app.db('users').where({ id: other.userId }).first('deleted_at')).deleted_at, null);
  const warned = logs.parsed<{ level: number; msg: string; subscription?: string }>().slice(before).filter((l) => l.subscription === otherSub && l.level >= 40);
  t.deepEqual(warned.map((l) => l.level), [40], JSON.stringify(warned));
  t.like(await gw.app.db('stripe_cancellations').where({ stripe_subscription_id: otherSub }).first(), { user_id: other.userId, attempts: 1, done_at: null });

  // a plan an admin activated has no Stripe subscription: Stripe is not asked
  const admins = await newAccount(gw);
  t.like(await activateSubscription(gw.app.db, { userId: admins.userId, teamId: null }, gw.app.config.subscriptions.plans.get('starter')!, undefined, Date.now()), { outcome: 'ok' });
  const quiet = logs.lines.length;
  t.is((await eraseAccountAndFiles(gw.app, admins.userId, Date.now(), { immediate: true })).kind, 'erased');
  t.deepEqual(logs.parsed<{ level: number }>().slice(quiet).filter((l) => l.level >= 50), []);
});

test.serial('deleting a team whose plan was bought through Stripe cancels its Stripe subscription after the deletion', async (t) => {
  const owner = await newAccount(gw);
  const teamId = await teamOf(owner);
  const stripe = stripeCreatesSession();
  t.is((await callOperation(gw, 'createCheckoutSession', { as: owner.session, query: { team_id: teamId }, body: { plan: 'starter' } })).status, 200);
  const sub = uniqueName('sub');
  t.deepEqual((await deliver(paidSession(stripe.id, stripe.sent[0]!, { amount_total: 1000, subscription: sub, payment_intent: null }))).result, { status: 'subscription_started' });
  // a team is deleted with an empty wallet: its plan's credit was spent
  await gw.app.db.transaction((trx) => debitWallet(trx, { userId: owner.userId, teamId }, 10_000, 'test: spent', Date.now()));
  const cancelled = nock(STRIPE).delete(`/v1/subscriptions/${sub}`).reply(200, { id: sub, object: 'subscription', status: 'canceled' });
  t.is((await callOperation(gw, 'deleteTeam', { as: owner.session, params: { team_id: teamId } })).status, 200);
  await stripeCancellationsSettled();
  t.true(cancelled.isDone(), 'Stripe was asked to cancel the subscription');
});

test.serial('deleting a team cancels every live Stripe subscription of its wallet: the one that started its plan and a second one paid for unapplied', async (t) => {
  const owner = await newAccount(gw);
  const teamId = await teamOf(owner);
  // two plan checkouts opened before either was paid: the second one paid starts nothing (unapplied), yet Stripe charges it
  const first = stripeCreatesSession();
  t.is((await callOperation(gw, 'createCheckoutSession', { as: owner.session, query: { team_id: teamId }, body: { plan: 'starter' } })).status, 200);
  const second = stripeCreatesSession();
  t.is((await callOperation(gw, 'createCheckoutSession', { as: owner.session, query: { team_id: teamId }, body: { plan: 'starter' } })).status, 200);
  const started = uniqueName('sub');
  const unapplied = uniqueName('sub');
  t.deepEqual((await deliver(paidSession(first.id, first.sent[0]!, { amount_total: 1000, subscription: started, payment_intent: null }))).result, { status: 'subscription_started' });
  t.deepEqual((await deliver(paidSession(second.id, second.sent[0]!, { amount_total: 1000, subscription: unapplied, payment_intent: null }))).result, { status: 'unmatched' });
  await gw.app.db.transaction((trx) => debitWallet(trx, { userId: owner.userId, teamId }, 10_000, 'test: spent', Date.now()));
  const cancelled: string[] = [];
  for (const sub of [started, unapplied]) {
    nock(STRIPE).delete(`/v1/subscriptions/${sub}`).reply(() => { cancelled.push(sub); return [200, { id: sub, object: 'subscription', status: 'canceled' }]; });
  }
  t.is((await callOperation(gw, 'deleteTeam', { as: owner.session, params: { team_id: teamId } })).status, 200);
  await stripeCancellationsSettled();
  t.deepEqual(cancelled.sort(), [started, unapplied].sort(), 'Stripe was asked to cancel both subscriptions');
});

test.serial('a plan checkout paid after its team was deleted starts nothing, credits nobody, and its Stripe subscription is cancelled at once', async (t) => {
  const owner = await newAccount(gw);
  const teamId = await teamOf(owner);
  const stripe = stripeCreatesSession();
  t.is((await callOperation(gw, 'createCheckoutSession', { as: owner.session, query: { team_id: teamId }, body: { plan: 'starter' } })).status, 200);
  t.is((await callOperation(gw, 'deleteTeam', { as: owner.session, params: { team_id: teamId } })).status, 200);
  const sub = uniqueName('sub');
  const cancelled = nock(STRIPE).delete(`/v1/subscriptions/${sub}`).reply(200, { id: sub, object: 'subscription', status: 'canceled' });
  const before = logs.lines.length;
  t.deepEqual((await deliver(paidSession(stripe.id, stripe.sent[0]!, { amount_total: 1000, subscription: sub, payment_intent: null }))).result, { status: 'unmatched' });
  await stripeCancellationsSettled();
  t.true(cancelled.isDone(), 'Stripe was asked to cancel the subscription');
  t.is(await balance('teams', teamId), 0);
  t.is(await balance('users', owner.userId), 0);
  t.like(await gw.app.db('stripe_subscription_checkouts').where({ checkout_session_id: stripe.id }).first(), { outcome: 'unapplied' });
  const errors = logs.parsed<{ msg: string; level: number; session?: string }>().slice(before).filter((l) => l.session === stripe.id && l.level >= 50);
  t.is(errors.length, 1);
  t.regex(errors[0]!.msg, /gone.*being cancelled at Stripe.*refund/);
});
