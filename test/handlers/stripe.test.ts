// Issue 11, the payment processor: Stripe charges, refunds and webhooks (README "Payments
// (Stripe)"). Offline: nock answers for api.stripe.com (third-party HTTP), and webhook events are
// signed with the SDK's own test helper. Every test ends with the ledger check. Serial: nock's
// interceptors are process-wide, and each test cleans them up after itself.
import test from 'ava';
import nock from 'nock';
import Stripe from 'stripe';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { assertLedger, ledgerCheckedAfterEach } from '../helpers/ledger.ts';
import { uniqueName } from '../helpers/services.ts';
import { captureLog } from '../helpers/logs.ts';
import { creditsForPayment, creditsForRefund, refundIdempotencyKey } from '../../lib/stripe.ts';
import { creditWallet, debitWallet } from '../../db/wallet/moves.ts';

const SECRET_KEY = 'sk_test_mediagatetests';
const WEBHOOK_SECRET = 'whsec_mediagatetestsecret';
const STRIPE = 'https://api.stripe.com';
const HOOK = '/api/v1/payment-webhooks/stripe';

let gw: TestGateway;
/** the shared gateway's log lines (info and above) */
const logged = captureLog('info');
const as: Record<'user' | 'support' | 'billing' | 'admin', Account & { email: string }> = {} as never;

async function account(credit = 0): Promise<Account & { email: string }> {
  const acct = await newAccount(gw, credit);
  const row = await gw.app.db('users').where({ id: acct.userId }).first('email');
  return { ...acct, email: String(row.email) };
}

test.before(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  gw = await startGateway({ queue: 'memory', env: { STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET }, log: logged.log });
  for (const role of ['user', 'support', 'billing', 'admin'] as const) {
    as[role] = await account();
    await gw.app.db('users').where({ id: as[role].userId }).update({ role });
  }
});
test.afterEach.always(() => { nock.cleanAll(); });
test.after.always(async () => {
  nock.enableNetConnect();
  await gw?.stop();
});
ledgerCheckedAfterEach(test, () => gw?.app.db);

// ---------------------------------------------------------------- helpers

function deliver(event: object, opts: { secret?: string; tamper?: (payload: string) => string; signature?: string | null } = {}, to: TestGateway = gw) {
  const payload = JSON.stringify(event);
  const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: opts.secret ?? WEBHOOK_SECRET });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.signature !== null) headers['stripe-signature'] = opts.signature ?? header;
  return to.server.inject({ method: 'POST', url: HOOK, headers, payload: opts.tamper ? opts.tamper(payload) : payload });
}

interface Bought { sessionId: string; pi: string; chargeId: string; customer: string; amount: number }

function checkoutEvent(acct: { userId: number; email: string }, b: Bought, extra: Record<string, unknown> = {}) {
  return {
    id: uniqueName('evt'), object: 'event', type: 'checkout.session.completed', api_version: Stripe.API_VERSION, created: Math.floor(Date.now() / 1000),
    data: {
      object: {
        id: b.sessionId, object: 'checkout.session', mode: 'payment', payment_status: 'paid', status: 'complete', amount_total: b.amount, currency: 'usd',
        client_reference_id: String(acct.userId), customer: b.customer, customer_details: { email: acct.email }, payment_intent: b.pi, metadata: {}, ...extra,
      },
    },
  };
}

/** A purchase through the webhook: `amount` cents at the default rate (1000 credits = 1 USD). */
async function buy(acct: { userId: number; email: string }, amount: number): Promise<Bought> {
  const b = { sessionId: uniqueName('cs_test'), pi: uniqueName('pi'), chargeId: uniqueName('ch'), customer: uniqueName('cus'), amount };
  const res = await deliver(checkoutEvent(acct, b));
  if (res.statusCode !== 200 || (res.result as { status: string }).status !== 'credited') throw new Error(res.payload);
  return b;
}

function chargeObject(b: Bought, amountRefunded = 0) {
  return {
    id: b.chargeId, object: 'charge', amount: b.amount, amount_refunded: amountRefunded, currency: 'usd', status: 'succeeded', refunded: amountRefunded >= b.amount,
    created: 1_790_000_000, customer: b.customer, payment_intent: b.pi, description: 'credits',
  };
}

function refundObject(b: Bought, id: string, amount: number, status = 'succeeded') {
  return { id, object: 'refund', amount, currency: 'usd', charge: b.chargeId, payment_intent: b.pi, status, created: 1_790_000_100 };
}

/** Stripe answers the charge, then the refund it is asked for; records the idempotency keys it saw. */
function stripeRefunds(b: Bought, amountRefunded: number, refundId: string, amount: number) {
  const keys: string[] = [];
  const bodies: string[] = [];
  const get = nock(STRIPE).get(`/v1/charges/${b.chargeId}`).reply(200, chargeObject(b, amountRefunded));
  const post = nock(STRIPE).matchHeader('idempotency-key', (key: string | null) => { keys.push(String(key)); return true; })
    .post('/v1/refunds', (body: unknown) => { bodies.push(JSON.stringify(body)); return true; })
    .reply(200, refundObject(b, refundId, amount));
  return { get, post, keys, bodies };
}

const balanceOf = async (userId: number) => Number((await gw.app.db('users').where({ id: userId }).first('balance')).balance);
const rowsOf = async (userId: number, kind: string) => gw.app.db('credit_transactions').where({ user_id: userId, kind }).orderBy('id');

// ---------------------------------------------------------------- pure pieces

test.serial('credits for a payment follow the rate, or metadata.credits; refunds take back in proportion and exactly all in the end', (t) => {
  const config = { secretKey: undefined, webhookSecret: undefined, currency: 'usd', creditsPerUnit: 1000 };
  t.is(creditsForPayment(config, 1000, 'usd', {}), 10_000);
  t.is(creditsForPayment(config, 1000, 'USD', null), 10_000);
  t.is(creditsForPayment(config, 1000, 'eur', {}), undefined);
  t.is(creditsForPayment(config, 1000, 'eur', { credits: '12000' }), 12_000);
  t.is(creditsForPayment({ ...config, currency: 'jpy', creditsPerUnit: 7 }, 1000, 'jpy', {}), 7000);
  // a malformed amount buys nothing, not even a fixed pack
  for (const amount of [1.5, -100, Number.NaN, 2 ** 53]) {
    t.is(creditsForPayment(config, amount, 'usd', {}), undefined, String(amount));
    t.is(creditsForPayment(config, amount, 'usd', { credits: '500' }), undefined, String(amount));
  }
  // 1000 cents bought 3333 credits: three refunds of a third each take 1111 + 1111 + 1111, and 333 + 333 + 334 cents take all
  t.is(creditsForRefund(1000, 3333, 0, 0, 333), 1110);
  t.is(creditsForRefund(1000, 3333, 333, 1110, 333), 1110);
  t.is(creditsForRefund(1000, 3333, 666, 2220, 334), 1113);
  t.is(creditsForRefund(1000, 10_000, 0, 0, 1000), 10_000);
  t.is(creditsForRefund(1000, 10_000, 1000, 10_000, 5), 0, 'never more than it bought');
  t.not(refundIdempotencyKey('ch_1', 5, 0, 'k', 1), refundIdempotencyKey('ch_1', 5, 0, 'k', 2));
  t.is(refundIdempotencyKey('ch_1', 5, 0, undefined, 1), refundIdempotencyKey('ch_1', 5, 0, undefined, 2));
  t.not(refundIdempotencyKey('ch_1', 5, 0, undefined, 1), refundIdempotencyKey('ch_1', 5, 5, undefined, 1));
});

// ---------------------------------------------------------------- not configured

test.serial('without Stripe configured the routes answer 503 naming the variable and nothing moves', async (t) => {
  const bare = await startGateway({ queue: 'memory' });
  try {
    const acct = await newAccount(bare, 0);
    await bare.app.db('users').where({ id: acct.userId }).update({ role: 'admin' });
    const charges = await callOperation<{ detail: string }>(bare, 'adminStripeCharges', { as: acct.session, query: { email: 'x@example.com' } });
    t.is(charges.status, 503);
    t.regex(charges.body.detail, /STRIPE_SECRET_KEY/);
    const refund = await callOperation<{ detail: string }>(bare, 'adminStripeRefund', { as: acct.session, body: { charge_id: 'ch_1' } });
    t.is(refund.status, 503);
    t.regex(refund.body.detail, /STRIPE_SECRET_KEY/);
    const payload = JSON.stringify(checkoutEvent({ userId: acct.userId, email: 'x@example.com' }, { sessionId: 'cs_1', pi: 'pi_1', chargeId: 'ch_1', customer: 'cus_1', amount: 500 }));
    const hook = await bare.server.inject({
      method: 'POST', url: HOOK, payload,
      headers: { 'content-type': 'application/json', 'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) },
    });
    t.is(hook.statusCode, 503);
    t.regex((hook.result as { detail: string }).detail, /STRIPE_WEBHOOK_SECRET/);
    t.is(Number((await bare.app.db('users').where({ id: acct.userId }).first('balance')).balance), 0);
    t.is((await bare.app.db('credit_transactions').where({ user_id: acct.userId })).length, 0);
    await assertLedger(t, bare.app.db);
  } finally {
    await bare.stop();
  }
});

// ---------------------------------------------------------------- the webhook

test.serial('a completed checkout credits its account once, however often Stripe delivers it', async (t) => {
  const acct = await account(100);
  const b = { sessionId: uniqueName('cs_test'), pi: uniqueName('pi'), chargeId: uniqueName('ch'), customer: uniqueName('cus'), amount: 1250 };
  const event = checkoutEvent(acct, b);
  const first = await deliver(event);
  t.is(first.statusCode, 200);
  t.deepEqual(first.result, { status: 'credited' });
  const again = await deliver(event);
  t.deepEqual(again.result, { status: 'duplicate' });
  // a second event about the same session (async_payment_succeeded after completed) changes nothing either
  t.deepEqual((await deliver({ ...event, id: uniqueName('evt'), type: 'checkout.session.async_payment_succeeded' })).result, { status: 'duplicate' });
  // concurrent duplicates: one credits
  const racing = await Promise.all([1, 2, 3].map(() => deliver(event)));
  t.true(racing.every((r) => (r.result as { status: string }).status === 'duplicate'));
  t.is(await balanceOf(acct.userId), 100 + 12_500);
  const rows = await rowsOf(acct.userId, 'purchase');
  t.is(rows.length, 1);
  t.is(Number(rows[0].amount), 12_500);
  t.regex(rows[0].description, new RegExp(b.pi));
  t.is((await gw.app.db('users').where({ id: acct.userId }).first('stripe_customer_id')).stripe_customer_id, b.customer);
});

test.serial('a checkout names its account by id, else by its customer, else by email; an unknown one is unmatched and moves nothing', async (t) => {
  const acct = await account();
  const first = await buy(acct, 100);
  // no client_reference_id: the customer recorded by the first purchase
  const second = { ...first, sessionId: uniqueName('cs_test'), pi: uniqueName('pi') };
  t.deepEqual((await deliver(checkoutEvent(acct, second, { client_reference_id: null, customer_details: { email: 'someone-else@example.com' } }))).result, { status: 'credited' });
  // no id and a new customer: the email
  const third = { ...first, sessionId: uniqueName('cs_test'), pi: uniqueName('pi'), customer: uniqueName('cus') };
  t.deepEqual((await deliver(checkoutEvent(acct, third, { client_reference_id: null }))).result, { status: 'credited' });
  t.is(await balanceOf(acct.userId), 3000);
  const stranger = { ...first, sessionId: uniqueName('cs_test'), pi: uniqueName('pi'), customer: uniqueName('cus') };
  t.deepEqual((await deliver(checkoutEvent({ userId: 0, email: 'nobody-here@example.com' }, stranger, { client_reference_id: null }))).result, { status: 'unmatched' });
  // another currency without metadata.credits: unmatched; with it: that many credits
  const euros = { ...first, sessionId: uniqueName('cs_test'), pi: uniqueName('pi') };
  t.deepEqual((await deliver(checkoutEvent(acct, euros, { currency: 'eur' }))).result, { status: 'unmatched' });
  t.deepEqual((await deliver(checkoutEvent(acct, { ...euros, sessionId: uniqueName('cs_test') }, { currency: 'eur', metadata: { credits: '777' } }))).result, { status: 'credited' });
  // unpaid (an async method still pending) and other events: ignored
  t.deepEqual((await deliver(checkoutEvent(acct, { ...first, sessionId: uniqueName('cs_test') }, { payment_status: 'unpaid' }))).result, { status: 'ignored' });
  t.deepEqual((await deliver({ id: uniqueName('evt'), object: 'event', type: 'customer.created', data: { object: { id: 'cus_x', object: 'customer' } } })).result, { status: 'ignored' });
  t.is(await balanceOf(acct.userId), 3777);
});

test.serial('a paid checkout the wallet cannot hold, or whose credits are past 2^53 - 1, is unmatched and logged, never a 4xx Stripe retries for days', async (t) => {
  // a rate that, in a zero-decimal currency, makes a large payment more credits than are kept exactly
  t.is(creditsForPayment({ secretKey: undefined, webhookSecret: undefined, currency: 'jpy', creditsPerUnit: 1_000_000_000 }, 99_999_999, 'jpy', {}), undefined);

  const acct = await account();
  const payer = { userId: acct.userId, teamId: null };
  const near = Number.MAX_SAFE_INTEGER - 5000;
  await gw.app.db.transaction((trx) => creditWallet(trx, payer, near, 'topup', 'test: a wallet near the limit', Date.now()));
  const from = logged.lines.length;
  const b = { sessionId: uniqueName('cs_test'), pi: uniqueName('pi'), chargeId: uniqueName('ch'), customer: uniqueName('cus'), amount: 1000 };
  const res = await deliver(checkoutEvent(acct, b));
  t.is(res.statusCode, 200, res.payload);
  t.deepEqual(res.result, { status: 'unmatched' });
  t.is((await gw.app.db('stripe_payments').where({ checkout_session_id: b.sessionId })).length, 0);
  const unmatched = logged.parsed<{ msg: string; session?: string }>().slice(from).filter((l) => l.msg.startsWith('stripe_payment_unmatched'));
  t.deepEqual(unmatched.map((l) => l.session), [b.sessionId]);
  // a payment that buys nothing is named as such
  const nothing = { ...b, sessionId: uniqueName('cs_test'), pi: uniqueName('pi'), amount: 0 };
  t.deepEqual((await deliver(checkoutEvent(acct, nothing))).result, { status: 'unmatched' });
  const said = logged.parsed<{ msg: string; session?: string }>().slice(from).find((l) => l.session === nothing.sessionId);
  t.regex(said?.msg ?? '', /buys no whole credit/);
  await gw.app.db.transaction((trx) => debitWallet(trx, payer, near, 'test: back to zero', Date.now()));
  t.is(await balanceOf(acct.userId), 0);
});

test.serial('an event of a connected account, or a test-mode event on a gateway with a live key, credits nothing', async (t) => {
  const acct = await account();
  const b = () => ({ sessionId: uniqueName('cs_test'), pi: uniqueName('pi'), chargeId: uniqueName('ch'), customer: uniqueName('cus'), amount: 1000 });
  // Stripe Connect: a connected account's own checkout, delivered to a Connect endpoint, is not money the gateway received
  const connected = { ...checkoutEvent(acct, b()), account: 'acct_1Connected' };
  t.deepEqual((await deliver(connected)).result, { status: 'ignored' });
  const live = await startGateway({ queue: 'memory', env: { STRIPE_SECRET_KEY: 'sk_live_mediagatetests', STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET } });
  try {
    const buyer = { userId: (await newAccount(live, 0)).userId, email: 'not-used@example.com' };
    // a test card's payment (livemode false) buys no real credit
    t.deepEqual((await deliver({ ...checkoutEvent(buyer, b()), livemode: false }, {}, live)).result, { status: 'ignored' });
    t.deepEqual((await deliver({ ...checkoutEvent(buyer, b()), livemode: true }, {}, live)).result, { status: 'credited' });
    t.is(Number((await live.app.db('users').where({ id: buyer.userId }).first('balance')).balance), 10_000);
  } finally {
    await live.stop();
  }
  t.is(await balanceOf(acct.userId), 0);
  // on a gateway with a test key a test-mode event is what is expected
  t.deepEqual((await deliver({ ...checkoutEvent(acct, b()), livemode: false })).result, { status: 'credited' });
  t.is(await balanceOf(acct.userId), 10_000);
});

test.serial('a checkout that names an account only by client_reference_id credits it but does not make the payer\'s Stripe customer its own', async (t) => {
  const victim = await account();
  // anyone can open a Payment Link with ?client_reference_id=<an account id> and pay: a gift, but the payer's customer is theirs
  const gift = { sessionId: uniqueName('cs_test'), pi: uniqueName('pi'), chargeId: uniqueName('ch'), customer: uniqueName('cus'), amount: 100 };
  t.deepEqual((await deliver(checkoutEvent(victim, gift, { customer_details: { email: 'payer@example.com' } }))).result, { status: 'credited' });
  t.is(await balanceOf(victim.userId), 1000);
  t.is((await gw.app.db('users').where({ id: victim.userId }).first('stripe_customer_id')).stripe_customer_id, null, 'the payer\'s customer is not recorded on the account');
  // a later purchase by that customer, naming no account, does not go to the account either
  const again = { ...gift, sessionId: uniqueName('cs_test'), pi: uniqueName('pi') };
  t.deepEqual((await deliver(checkoutEvent({ userId: 0, email: 'payer@example.com' }, again, { client_reference_id: null }))).result, { status: 'unmatched' });
  // the account's own purchase (its email, or a session made for it: metadata.user_id) records its customer
  const own = { ...gift, sessionId: uniqueName('cs_test'), pi: uniqueName('pi'), customer: uniqueName('cus') };
  t.deepEqual((await deliver(checkoutEvent(victim, own, { client_reference_id: null, metadata: { user_id: String(victim.userId) }, customer_details: { email: 'other@example.com' } }))).result, { status: 'credited' });
  t.is((await gw.app.db('users').where({ id: victim.userId }).first('stripe_customer_id')).stripe_customer_id, own.customer);
  t.is(await balanceOf(victim.userId), 2000);
});

test.serial('a tampered, foreign or missing signature is 400 and moves nothing', async (t) => {
  const acct = await account();
  const b = { sessionId: uniqueName('cs_test'), pi: uniqueName('pi'), chargeId: uniqueName('ch'), customer: uniqueName('cus'), amount: 100_000 };
  const event = checkoutEvent(acct, b);
  const tampered = await deliver(event, { tamper: (p) => p.replace('"amount_total":100000', '"amount_total":900000') });
  t.is(tampered.statusCode, 400);
  t.like(tampered.result, { code: 'invalid_input' });
  t.is((await deliver(event, { secret: 'whsec_someoneelsesecret' })).statusCode, 400);
  t.is((await deliver(event, { signature: null })).statusCode, 400);
  t.is((await deliver(event, { signature: 't=1,v1=abc' })).statusCode, 400);
  t.is(await balanceOf(acct.userId), 0);
  t.is((await gw.app.db('stripe_payments').where({ checkout_session_id: b.sessionId })).length, 0);
});

test.serial('a signed event whose object is not of the shape Stripe sends is acknowledged ignored, logged as a warning, and moves nothing', async (t) => {
  const acct = await account();
  const b = await buy(acct, 1000); // 10,000 credits, a payment refunds can name
  const from = logged.lines.length;
  const session = (extra: Record<string, unknown>) => checkoutEvent(acct, { ...b, sessionId: uniqueName('cs_test'), pi: uniqueName('pi') }, extra);
  const event = (type: string, data: unknown) => ({ id: uniqueName('evt'), object: 'event', type, ...(data === undefined ? {} : { data }) });
  const types = ['checkout.session.completed', 'checkout.session.async_payment_succeeded', 'charge.refunded', 'refund.created', 'refund.updated', 'refund.failed',
    'customer.subscription.updated', 'customer.subscription.deleted', 'invoice.paid', 'invoice.payment_failed', 'charge.dispute.funds_withdrawn', 'charge.dispute.funds_reinstated'];
  const dispute = (extra: Record<string, unknown>) => ({ object: { id: uniqueName('du'), object: 'dispute', amount: 1000, currency: 'usd', charge: b.chargeId, payment_intent: b.pi, ...extra } });
  const cases: Array<[string, object]> = [
    ...types.flatMap((type): Array<[string, object]> => [
      [`${type}, data.object null`, event(type, { object: null })],
      [`${type}, no data`, event(type, undefined)],
      [`${type}, data.object an array`, event(type, { object: [] })],
      [`${type}, data a string`, event(type, 'x')],
    ]),
    ['amount_total 1.5', session({ amount_total: 1.5 })],
    ['amount_total 1.5 with metadata.credits', session({ amount_total: 1.5, metadata: { credits: '500' } })],
    ['amount_total a string', session({ amount_total: '1000' })],
    ['amount_total negative', session({ amount_total: -1000 })],
    ['currency a number', session({ currency: 1 })],
    ['customer_email an array', session({ client_reference_id: null, customer: null, customer_details: null, customer_email: ['a'] })],
    ['customer_details.email an array', session({ client_reference_id: null, customer: null, customer_details: { email: ['a'] } })],
    ['client_reference_id a number', session({ client_reference_id: acct.userId })],
    ['metadata.credits a number', session({ currency: 'eur', metadata: { credits: 500 } })],
    ['metadata a string', session({ metadata: 'credits' })],
    ['payment_intent an object without a string id', session({ payment_intent: { id: 5 } })],
    ['session id a number', session({ id: 5 })],
    ['a charge\'s refunds holding null', event('charge.refunded', { object: { ...chargeObject(b, 100), refunds: { object: 'list', has_more: false, data: [null] } } })],
    ['a charge\'s refunds a string', event('charge.refunded', { object: { ...chargeObject(b, 100), refunds: 'all' } })],
    ['refund amount 1.5', event('refund.created', { object: refundObject(b, uniqueName('re'), 1.5) })],
    ['refund currency a number', event('refund.created', { object: { ...refundObject(b, uniqueName('re'), 100), currency: 1 } })],
    ['refund status a number', event('refund.updated', { object: { ...refundObject(b, uniqueName('re'), 100), status: 1 } })],
    ['subscription metadata of numbers', event('customer.subscription.updated', { object: { id: 'sub_1', status: 'canceled', metadata: { user_id: acct.userId, plan: 1 } } })],
    ['dispute amount 1.5', event('charge.dispute.funds_withdrawn', dispute({ amount: 1.5 }))],
    ['dispute amount a string', event('charge.dispute.funds_withdrawn', dispute({ amount: '1000' }))],
    ['dispute currency a number', event('charge.dispute.funds_withdrawn', dispute({ currency: 840 }))],
    ['dispute payment_intent a number', event('charge.dispute.funds_reinstated', dispute({ payment_intent: 7 }))],
    ['dispute id a number', event('charge.dispute.funds_withdrawn', dispute({ id: 7 }))],
    ['invoice subscription a number', event('invoice.payment_failed', { object: { id: uniqueName('in'), object: 'invoice', subscription: 7 } })],
    ['invoice parent a string', event('invoice.paid', { object: { id: uniqueName('in'), object: 'invoice', parent: 'sub_1' } })],
    ['invoice parent subscription an array', event('invoice.paid', { object: { id: uniqueName('in'), object: 'invoice', parent: { subscription_details: { subscription: ['sub_1'] } } } })],
  ];
  for (const [label, e] of cases) {
    const res = await deliver(e);
    t.is(res.statusCode, 200, `${label}: ${res.payload}`);
    t.deepEqual(JSON.parse(res.payload), { status: 'ignored' }, label);
  }
  // nothing was credited, refunded or recorded: the purchase above is all there is
  t.is(await balanceOf(acct.userId), 10_000);
  t.is((await rowsOf(acct.userId, 'purchase')).length, 1);
  t.is((await rowsOf(acct.userId, 'payment_refund')).length, 0);
  t.is((await gw.app.db('stripe_payments').where({ user_id: acct.userId })).length, 1);
  const lines = logged.parsed<{ level: number; msg: string; field?: string }>().slice(from);
  t.deepEqual(lines.filter((l) => l.level >= 50), [], 'nothing logged at error');
  const warned = lines.filter((l) => l.level === 40 && l.msg.startsWith('stripe event ignored'));
  t.is(warned.length, cases.length);
  t.true(warned.some((l) => l.field === 'data.object.amount_total'));
});

// ---------------------------------------------------------------- charges

test.serial('a user\'s charges are listed from their Stripe customer with the credits each bought', async (t) => {
  const acct = await account();
  const b = await buy(acct, 2000);
  const other = { id: uniqueName('ch'), object: 'charge', amount: 999, amount_refunded: 0, currency: 'usd', status: 'failed', created: 1_790_000_500, customer: b.customer, payment_intent: null, description: null };
  nock(STRIPE).get('/v1/charges').query((q) => q.customer === b.customer).reply(200, { object: 'list', url: '/v1/charges', has_more: false, data: [chargeObject(b, 500), other] });
  const res = await callOperation<Array<Record<string, unknown>>>(gw, 'adminStripeCharges', { as: as.support.session, query: { email: acct.email } });
  t.is(res.status, 200);
  t.deepEqual(res.body.map((c) => [c.id, c.credits, c.status]), [[other.id, 0, 'failed'], [b.chargeId, 20_000, 'succeeded']]);
  t.like(res.body[1], { amount: 2000, amount_refunded: 500, currency: 'usd', payment_intent: b.pi, created_at: new Date(1_790_000_000_000).toISOString() });
  const audit = await gw.app.db('admin_audit').where({ action: 'adminStripeCharges', target_user_id: acct.userId });
  t.is(audit.length, 1);
  t.is(Number(audit[0].status), 200);

  // no customer recorded: Stripe's customers with that email
  const fresh = await account();
  nock(STRIPE).get('/v1/customers').query((q) => q.email === fresh.email).reply(200, { object: 'list', url: '/v1/customers', has_more: false, data: [{ id: 'cus_byemail', object: 'customer' }] });
  nock(STRIPE).get('/v1/charges').query((q) => q.customer === 'cus_byemail').reply(200, { object: 'list', url: '/v1/charges', has_more: false, data: [] });
  t.deepEqual((await callOperation(gw, 'adminStripeCharges', { as: as.billing.session, query: { email: fresh.email } })).body, []);
  // team_id is one of the administrative routes' common parameters: accepted, and the answer is the same
  nock(STRIPE).get('/v1/customers').query((q) => q.email === fresh.email).reply(200, { object: 'list', url: '/v1/customers', has_more: false, data: [{ id: 'cus_byemail', object: 'customer' }] });
  nock(STRIPE).get('/v1/charges').query((q) => q.customer === 'cus_byemail').reply(200, { object: 'list', url: '/v1/charges', has_more: false, data: [] });
  t.like(await callOperation(gw, 'adminStripeCharges', { as: as.billing.session, query: { email: fresh.email, team_id: 1 } }), { status: 200, body: [] });

  // more than one of Stripe's pages: has_more is followed with starting_after
  const many = await account();
  nock(STRIPE).get('/v1/customers').query((q) => q.email === many.email).reply(200, { object: 'list', url: '/v1/customers', has_more: false, data: [{ id: 'cus_many', object: 'customer' }] });
  const charge = (n: number) => ({ ...other, id: `ch_many_${n}`, customer: 'cus_many', created: 1_790_000_000 - n });
  nock(STRIPE).get('/v1/charges').query((q) => q.customer === 'cus_many' && q.starting_after === undefined)
    .reply(200, { object: 'list', url: '/v1/charges', has_more: true, data: Array.from({ length: 100 }, (_, i) => charge(i)) });
  nock(STRIPE).get('/v1/charges').query((q) => q.customer === 'cus_many' && q.starting_after === 'ch_many_99')
    .reply(200, { object: 'list', url: '/v1/charges', has_more: false, data: [charge(100), charge(101)] });
  const paged = await callOperation<Array<{ id: string }>>(gw, 'adminStripeCharges', { as: as.billing.session, query: { email: many.email } });
  t.is(paged.status, 200);
  t.is(paged.body.length, 102);
  t.is(paged.body.at(-1)!.id, 'ch_many_101');
  t.is((await callOperation(gw, 'adminStripeCharges', { as: as.admin.session, query: { email: 'nobody-here@example.com' } })).status, 404);
});

// ---------------------------------------------------------------- refunds

test.serial('a partial then a full refund go through Stripe and take back the credits in proportion, each a payment_refund row; the audit row names the account', async (t) => {
  const acct = await account(500);
  const b = await buy(acct, 1000); // 10,000 credits
  const part = stripeRefunds(b, 0, uniqueName('re'), 250);
  const first = await callOperation<Record<string, unknown>>(gw, 'adminStripeRefund', { as: as.billing.session, body: { charge_id: b.chargeId, amount: 250, reason: `customer ${acct.email} asked` } });
  t.is(first.status, 200, JSON.stringify(first.body));
  t.like(first.body, { charge_id: b.chargeId, user_id: acct.userId, amount: 250, currency: 'usd', status: 'succeeded', credits_removed: 2500, balance: 8000 });
  t.true(part.post.isDone());
  t.regex(part.keys[0]!, /^mediagate-refund-[0-9a-f]{64}$/);
  t.regex(part.bodies[0]!, /amount(":"|=)250/);
  // Stripe's copy of the reason is pseudonymised as the ledger's: no address leaves for Stripe
  t.true(part.bodies[0]!.includes(`customer user:${acct.userId} asked`), part.bodies[0]);
  t.false(part.bodies[0]!.includes(acct.email.split('@')[0]!), part.bodies[0]);

  const rest = stripeRefunds(b, 250, uniqueName('re'), 750);
  const second = await callOperation<Record<string, unknown>>(gw, 'adminStripeRefund', { as: as.admin.session, body: { charge_id: b.chargeId } });
  t.like(second.body, { amount: 750, credits_removed: 7500, balance: 500 });
  t.regex(rest.bodies[0]!, /amount(":"|=)750/);
  const rows = await rowsOf(acct.userId, 'payment_refund');
  t.deepEqual(rows.map((r: { amount: number | string; ref: string }) => [Number(r.amount), r.ref]), [[-2500, first.body.refund_id], [-7500, second.body.refund_id]]);
  // the address staff typed is written as the account it names, in the ledger as in the audit log
  t.is(rows[0].description, `customer user:${acct.userId} asked`);

  // nothing left: 409 before any refund is asked for
  nock(STRIPE).get(`/v1/charges/${b.chargeId}`).reply(200, chargeObject(b, 1000));
  const none = await callOperation(gw, 'adminStripeRefund', { as: as.admin.session, body: { charge_id: b.chargeId } });
  t.is(none.status, 409);

  const audit = await gw.app.db('admin_audit').where({ action: 'adminStripeRefund', target_user_id: acct.userId }).orderBy('id');
  t.deepEqual(audit.map((a: { status: number }) => Number(a.status)), [200, 200, 409]);
  t.is(audit[0].reason, `customer user:${acct.userId} asked`);
  t.is(Number(audit[0].actor_user_id), as.billing.userId);
});

test.serial('a refund retried with the same Idempotency-Key moves money once; Stripe gets the same key', async (t) => {
  const acct = await account();
  const b = await buy(acct, 1000);
  const stripe = stripeRefunds(b, 0, uniqueName('re'), 400);
  const call = () => callOperation<Record<string, unknown>>(gw, 'adminStripeRefund', {
    as: as.billing.session, headers: { 'idempotency-key': 'refund-once-1' }, body: { charge_id: b.chargeId, amount: 400 },
  });
  const first = await call();
  const again = await call();
  t.is(first.status, 200);
  t.deepEqual(again.body, first.body);
  t.is(again.headers['idempotent-replayed'], 'true');
  t.is(stripe.keys.length, 1, 'Stripe was asked once');
  t.is(stripe.keys[0], refundIdempotencyKey(b.chargeId, 400, 0, 'refund-once-1', as.billing.userId));
  t.is(await balanceOf(acct.userId), 6000);
  t.is((await rowsOf(acct.userId, 'payment_refund')).length, 1);
  // the same key with another body is 409
  t.is((await callOperation(gw, 'adminStripeRefund', { as: as.billing.session, headers: { 'idempotency-key': 'refund-once-1' }, body: { charge_id: b.chargeId, amount: 401 } })).status, 409);

  // Stripe answering the same refund again (its own idempotency replay after a lost answer) is applied once
  const replayed = stripeRefunds(b, 0, String(first.body.refund_id), 400);
  const lost = await callOperation<Record<string, unknown>>(gw, 'adminStripeRefund', { as: as.billing.session, headers: { 'idempotency-key': 'refund-once-2' }, body: { charge_id: b.chargeId, amount: 400 } });
  t.true(replayed.post.isDone());
  t.like(lost.body, { refund_id: first.body.refund_id, credits_removed: 4000, balance: 6000 });
  t.is((await rowsOf(acct.userId, 'payment_refund')).length, 1);
});

test.serial('a refund that would take the wallet below zero is 409 and Stripe is not asked, unless allow_negative', async (t) => {
  const acct = await account();
  const b = await buy(acct, 1000);
  await callOperation(gw, 'adminDeductCredits', { as: as.billing.session, body: { email: acct.email, amount: 9000, reason: 'spent' } });
  const stripe = stripeRefunds(b, 0, uniqueName('re'), 1000);
  const refused = await callOperation<{ detail: string }>(gw, 'adminStripeRefund', { as: as.billing.session, body: { charge_id: b.chargeId } });
  t.is(refused.status, 409);
  t.regex(refused.body.detail, /allow_negative/);
  t.false(stripe.post.isDone(), 'no refund was asked of Stripe');
  t.is(await balanceOf(acct.userId), 1000);
  nock.cleanAll();
  stripeRefunds(b, 0, uniqueName('re'), 1000);
  const allowed = await callOperation<Record<string, unknown>>(gw, 'adminStripeRefund', { as: as.billing.session, body: { charge_id: b.chargeId, allow_negative: true } });
  t.like(allowed, { status: 200, body: { credits_removed: 10_000, balance: -9000 } });
  t.is(await balanceOf(acct.userId), -9000);
});

test.serial('charge.refunded and refund.updated after our own refund are not applied twice; a dashboard refund they report is applied once', async (t) => {
  const acct = await account();
  const b = await buy(acct, 1000);
  const ours = uniqueName('re');
  stripeRefunds(b, 0, ours, 300);
  t.is((await callOperation(gw, 'adminStripeRefund', { as: as.billing.session, body: { charge_id: b.chargeId, amount: 300 } })).status, 200);
  t.is(await balanceOf(acct.userId), 7000);

  const event = (type: string, object: object) => ({ id: uniqueName('evt'), object: 'event', type, data: { object } });
  // the charge with its refunds included (older API versions)
  t.deepEqual((await deliver(event('charge.refunded', { ...chargeObject(b, 300), refunds: { object: 'list', has_more: false, data: [refundObject(b, ours, 300)] } }))).result, { status: 'duplicate' });
  t.deepEqual((await deliver(event('refund.updated', refundObject(b, ours, 300)))).result, { status: 'duplicate' });
  t.is(await balanceOf(acct.userId), 7000);

  // a refund made in Stripe's dashboard: the charge without its refunds, which are asked for
  const dashboard = uniqueName('re');
  const listed = nock(STRIPE).get('/v1/refunds').query((q) => q.charge === b.chargeId).times(2)
    .reply(200, { object: 'list', url: '/v1/refunds', has_more: false, data: [refundObject(b, dashboard, 200), refundObject(b, ours, 300)] });
  t.deepEqual((await deliver(event('charge.refunded', chargeObject(b, 500)))).result, { status: 'refund_applied' });
  t.deepEqual((await deliver(event('charge.refunded', chargeObject(b, 500)))).result, { status: 'duplicate' });
  t.true(listed.isDone());
  t.deepEqual((await deliver(event('refund.created', refundObject(b, dashboard, 200)))).result, { status: 'duplicate' });
  t.is(await balanceOf(acct.userId), 5000);
  const rows = await gw.app.db('stripe_refunds').where({ charge_id: b.chargeId }).orderBy('id');
  t.deepEqual(rows.map((r: { refund_id: string; source: string; credits: number | string }) => [r.refund_id, r.source, Number(r.credits)]), [[ours, 'admin', 3000], [dashboard, 'webhook', 2000]]);
  // a refund of a charge that bought nothing here, and a failed refund: ignored
  t.deepEqual((await deliver(event('refund.updated', { ...refundObject(b, uniqueName('re'), 100), payment_intent: 'pi_unknown' }))).result, { status: 'ignored' });
  t.deepEqual((await deliver(event('refund.updated', refundObject(b, uniqueName('re'), 100, 'failed')))).result, { status: 'ignored' });
  t.is(await balanceOf(acct.userId), 5000);

  // our refund fails afterwards (the card was closed): its credits come back, once
  t.deepEqual((await deliver(event('refund.failed', refundObject(b, ours, 300, 'failed')))).result, { status: 'refund_reversed' });
  t.deepEqual((await deliver(event('refund.updated', refundObject(b, ours, 300, 'failed')))).result, { status: 'ignored' }, 'a redelivery gives nothing twice');
  t.is(await balanceOf(acct.userId), 8000);
  const back = await rowsOf(acct.userId, 'payment_refund');
  t.deepEqual(back.map((r) => Number(r.amount)).sort((x, y) => x - y), [-3000, -2000, 3000]);
  // what is left of the payment to take back counts the failed refund no more
  t.not((await gw.app.db('stripe_refunds').where({ refund_id: ours }).first()).reversed_at, null);
});

test.serial('a refund that failed is listed as refunding nothing: the purchase shows what was really refunded and taken back', async (t) => {
  const acct = await account();
  const b = await buy(acct, 1000);
  const refundId = uniqueName('re');
  stripeRefunds(b, 0, refundId, 300);
  t.is((await callOperation(gw, 'adminStripeRefund', { as: as.billing.session, body: { charge_id: b.chargeId, amount: 300 } })).status, 200);
  const event = { id: uniqueName('evt'), object: 'event', type: 'refund.failed', data: { object: refundObject(b, refundId, 300, 'failed') } };
  t.deepEqual((await deliver(event)).result, { status: 'refund_reversed' });
  t.is(await balanceOf(acct.userId), 10_000);
  const list = await callOperation<{ purchases: Array<{ refunded_amount: number; credits_removed: number }> }>(gw, 'listPurchases', { as: acct.session });
  t.is(list.status, 200, list.raw.payload);
  t.like(list.body.purchases[0], { refunded_amount: 0, credits_removed: 0 });
});

test.serial('a refund reported failed before its creation is reported (events out of order) takes no credits then or later', async (t) => {
  const acct = await account();
  const b = await buy(acct, 1000);
  const event = (type: string, object: object) => ({ id: uniqueName('evt'), object: 'event', type, data: { object } });
  // Stripe retried refund.created (pending) after refund.failed had arrived
  const failed = uniqueName('re');
  t.deepEqual((await deliver(event('refund.failed', refundObject(b, failed, 400, 'failed')))).result, { status: 'ignored' });
  t.deepEqual((await deliver(event('refund.created', refundObject(b, failed, 400, 'pending')))).result, { status: 'duplicate' });
  t.deepEqual((await deliver(event('refund.updated', refundObject(b, failed, 400, 'canceled')))).result, { status: 'ignored' });
  t.is(await balanceOf(acct.userId), 10_000);
  // a later refund of the same payment takes its share as if the failed one had never been
  t.deepEqual((await deliver(event('refund.created', refundObject(b, uniqueName('re'), 1000, 'succeeded')))).result, { status: 'refund_applied' });
  t.is(await balanceOf(acct.userId), 0);
  const list = await callOperation<{ purchases: Array<{ refunded_amount: number; credits_removed: number }> }>(gw, 'listPurchases', { as: acct.session });
  t.like(list.body.purchases[0], { refunded_amount: 1000, credits_removed: 10_000 });
});

// ---------------------------------------------------------------- disputes

function disputeEvent(type: string, b: Bought, id: string, amount: number, status = 'needs_response') {
  return {
    id: uniqueName('evt'), object: 'event', type, data: {
      object: { id, object: 'dispute', amount, currency: 'usd', charge: b.chargeId, payment_intent: b.pi, status, reason: 'fraudulent', created: 1_790_000_200 },
    },
  };
}

test.serial('a dispute\'s withdrawn funds take back the credits like a refund, once; reinstated funds give them back, once; other dispute events move nothing', async (t) => {
  const acct = await account();
  const b = await buy(acct, 1000);
  const du = uniqueName('du');
  const from = logged.lines.length;
  t.deepEqual((await deliver(disputeEvent('charge.dispute.created', b, du, 1000))).result, { status: 'ignored' });
  t.is(await balanceOf(acct.userId), 10_000);
  const withdrawn = disputeEvent('charge.dispute.funds_withdrawn', b, du, 600);
  t.deepEqual((await deliver(withdrawn)).result, { status: 'refund_applied' });
  t.deepEqual((await deliver(withdrawn)).result, { status: 'duplicate' }, 'a redelivery takes nothing');
  t.is(await balanceOf(acct.userId), 4000);
  t.like(await gw.app.db('stripe_refunds').where({ refund_id: du }).first(), { charge_id: b.chargeId, amount: 600, credits: 6000, source: 'dispute' });
  t.is((await rowsOf(acct.userId, 'payment_refund')).length, 1);
  const warned = logged.parsed<{ level: number; msg: string; dispute?: string; charge?: string }>().slice(from).filter((l) => l.dispute === du);
  t.true(warned.length >= 1 && warned.every((l) => l.level >= 40 && l.charge === b.chargeId), JSON.stringify(warned));
  t.deepEqual((await deliver(disputeEvent('charge.dispute.closed', b, du, 600, 'won'))).result, { status: 'ignored' });

  const reinstated = disputeEvent('charge.dispute.funds_reinstated', b, du, 600, 'won');
  t.deepEqual((await deliver(reinstated)).result, { status: 'refund_reversed' });
  t.deepEqual((await deliver(reinstated)).result, { status: 'ignored' }, 'given back once');
  t.is(await balanceOf(acct.userId), 10_000);
  const list = await callOperation<{ purchases: Array<{ refunded_amount: number; credits_removed: number }> }>(gw, 'listPurchases', { as: acct.session });
  t.like(list.body.purchases[0], { refunded_amount: 0, credits_removed: 0 });

  // reinstated reported before withdrawn (events out of order): nothing then or later
  const other = await buy(acct, 500);
  const du2 = uniqueName('du');
  t.deepEqual((await deliver(disputeEvent('charge.dispute.funds_reinstated', other, du2, 500))).result, { status: 'ignored' });
  t.deepEqual((await deliver(disputeEvent('charge.dispute.funds_withdrawn', other, du2, 500))).result, { status: 'duplicate' });
  t.is(await balanceOf(acct.userId), 15_000);
  // a dispute of a charge that bought nothing here moves nothing
  t.deepEqual((await deliver(disputeEvent('charge.dispute.funds_withdrawn', { ...other, pi: uniqueName('pi') }, uniqueName('du'), 500))).result, { status: 'ignored' });
});

test.serial('a dispute that takes more credits than the wallet has left takes them all the same and logs an error for the operator', async (t) => {
  const acct = await account();
  const b = await buy(acct, 1000);
  const payer = { userId: acct.userId, teamId: null };
  await gw.app.db.transaction((trx) => debitWallet(trx, payer, 7000, 'test: spent', Date.now()));
  const du = uniqueName('du');
  const from = logged.lines.length;
  t.deepEqual((await deliver(disputeEvent('charge.dispute.funds_withdrawn', b, du, 1000, 'lost'))).result, { status: 'refund_applied' });
  t.is(await balanceOf(acct.userId), -7000);
  const errors = logged.parsed<{ level: number; msg: string; dispute?: string }>().slice(from).filter((l) => l.dispute === du && l.level >= 50);
  t.is(errors.length, 1, JSON.stringify(errors));
  t.regex(errors[0]!.msg, /below zero/);
  // the debt is paid back by later credit
  await gw.app.db.transaction((trx) => creditWallet(trx, payer, 7000, 'topup', 'test: settle', Date.now()));
});

test.serial('roles: support lists charges but may not refund; a user gets 403 role_required; an admin\'s API key gets 403 session_required; 404 and 422 for bad requests', async (t) => {
  const acct = await account();
  const b = await buy(acct, 100);
  for (const role of ['user', 'support'] as const) {
    t.like(await callOperation(gw, 'adminStripeRefund', { as: as[role].session, body: { charge_id: b.chargeId } }), { status: 403, body: { code: 'role_required' } }, role);
  }
  t.like(await callOperation(gw, 'adminStripeCharges', { as: as.user.session, query: { email: acct.email } }), { status: 403, body: { code: 'role_required' } });
  t.like(await callOperation(gw, 'adminStripeCharges', { as: as.admin.liveKey, query: { email: acct.email } }), { status: 403, body: { code: 'session_required' } });
  t.like(await callOperation(gw, 'adminStripeRefund', { as: as.admin.liveKey, body: { charge_id: b.chargeId } }), { status: 403, body: { code: 'session_required' } });
  const refused = await gw.app.db('admin_audit').where({ action: 'adminStripeRefund', actor_user_id: as.support.userId });
  t.is(Number(refused[0]?.status), 403);

  t.is((await callOperation(gw, 'adminStripeRefund', { as: as.admin.session, body: { charge_id: b.chargeId, amount: 0 } })).status, 422);
  t.is((await callOperation(gw, 'adminStripeRefund', { as: as.admin.session, body: { amount: 5 } })).status, 422);
  t.is((await callOperation(gw, 'adminStripeRefund', { as: as.admin.session, body: { charge_id: b.chargeId, extra: 1 } })).status, 422);
  // a charge Stripe does not know, and one that bought nothing here
  nock(STRIPE).get('/v1/charges/ch_missing').reply(404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such charge: ch_missing' } });
  t.is((await callOperation(gw, 'adminStripeRefund', { as: as.admin.session, body: { charge_id: 'ch_missing' } })).status, 404);
  nock(STRIPE).get('/v1/charges/ch_elsewhere').reply(200, { ...chargeObject(b), id: 'ch_elsewhere', payment_intent: 'pi_elsewhere' });
  t.is((await callOperation(gw, 'adminStripeRefund', { as: as.admin.session, body: { charge_id: 'ch_elsewhere' } })).status, 404);
  // more than is left
  nock(STRIPE).get(`/v1/charges/${b.chargeId}`).reply(200, chargeObject(b, 60));
  t.is((await callOperation(gw, 'adminStripeRefund', { as: as.admin.session, body: { charge_id: b.chargeId, amount: 41 } })).status, 409);
  t.is(await balanceOf(acct.userId), 1000);
});

test.serial('on the embedded SQLite default a purchase and a refund reported by the webhook each move credit once', async (t) => {
  const lite = await startGateway({ db: 'sqlite', queue: 'memory', env: { STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET } });
  try {
    const acct = await newAccount(lite, 0);
    const email = String((await lite.app.db('users').where({ id: acct.userId }).first('email')).email);
    const b = { sessionId: uniqueName('cs_test'), pi: uniqueName('pi'), chargeId: uniqueName('ch'), customer: uniqueName('cus'), amount: 300 };
    const event = checkoutEvent({ userId: acct.userId, email }, b);
    t.deepEqual((await deliver(event, {}, lite)).result, { status: 'credited' });
    t.deepEqual((await deliver(event, {}, lite)).result, { status: 'duplicate' });
    const refund = { id: uniqueName('evt'), object: 'event', type: 'refund.updated', data: { object: refundObject(b, uniqueName('re'), 100) } };
    t.deepEqual((await deliver(refund, {}, lite)).result, { status: 'refund_applied' });
    t.deepEqual((await deliver(refund, {}, lite)).result, { status: 'duplicate' });
    t.is(Number((await lite.app.db('users').where({ id: acct.userId }).first('balance')).balance), 2000);
    await assertLedger(t, lite.app.db);
  } finally {
    await lite.stop();
  }
});
