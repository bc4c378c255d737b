// The payment processor, Stripe (README "Payments (Stripe)"): a user's charges and a refund
// through Stripe for the admin routes (roles and the audit row come from the route bridge), and
// the webhook ingress that credits completed checkouts and takes back the credits of refunds and
// of lost disputes, each once (db/stripe-payments.ts holds the unique keys), and follows the
// subscriptions sold online (started, changed, held while a payment is owed, ended). Without STRIPE_SECRET_KEY or
// STRIPE_WEBHOOK_SECRET the routes that need it answer 503 naming it, and nothing else changes.
import type { Handler } from './types.ts';
import type { App } from '../lib/context.ts';
import { BalanceLimitError, ConflictError, InvalidInputError, NotFoundError, UnavailableError } from '../lib/errors.ts';
import { creditsForPayment, creditsForRefund, idOf, listData, refundIdempotencyKey, stripeCall, stripeClient, stripeSdk, webhookSecret } from '../lib/stripe.ts';
import type { Stripe } from '../lib/stripe.ts';
import type { SubscriptionPlan } from '../lib/subscription-plans.ts';
import { findUserByEmail, findUserById, normaliseEmail } from '../db/users.ts';
import {
  applyStripeRefund, findPaymentByIntent, paymentsOf, recordCustomer, recordPurchase, reverseStripeRefund, stripeCustomerOf, userIdForCustomer,
} from '../db/stripe-payments.ts';
import {
  activateFromCheckout, cancelledStripePlan, cancelSubscription, changeSubscription, findSubscription, grantStripePeriod, holdSubscription, isUnappliedSubscription, recordStripeSubscriptionEnded,
  resumeSubscription, stripeEventApplied, stripeEventOutOfDate, stripeSubscriptionEnded, walletOfStripePlan,
} from '../db/subscriptions.ts';
import type { StripePeriod } from '../db/subscriptions.ts';
import { walletOf } from '../db/wallet/ledger.ts';
import type { Owner } from '../lib/caller.ts';
import type { PurchaseOutcome, StripePayment } from '../db/stripe-payments.ts';
import type { components } from '../spec/v1.generated.ts';
import { pseudonymiseText } from '../db/pseudonymise.ts';
import { endStripeSubscription } from '../workers/stripe-cancellations.ts';
import { findStripeCancellation } from '../db/stripe-cancellations.ts';

type PaymentCharge = components['schemas']['PaymentCharge'];
type AckStatus = components['schemas']['StripeWebhookAck']['status'];

/** The charges listed per Stripe customer (README "Payments (Stripe)"): the newest, page after page. */
const MAX_CHARGES_PER_CUSTOMER = 1000;

/** GET /auth/admin_stripe_charges?email= */
export const adminStripeCharges: Handler<'adminStripeCharges'> = async ({ app, query, audit }) => {
  const stripe = await stripeClient(app.config.stripe);
  const user = await findUserByEmail(app.db, query.email);
  if (!user) throw new NotFoundError('no account with this email');
  audit.target_user_id = user.id;
  const payments = await paymentsOf(app.db, user.id);
  const customers = new Set<string>();
  const recorded = await stripeCustomerOf(app.db, user.id);
  if (recorded) customers.add(recorded);
  else {
    const found = await stripeCall('customer', () => stripe.customers.list({ email: user.email, limit: 10 }));
    for (const c of listData(found)) customers.add(c.id);
  }
  for (const p of payments) if (p.customerId) customers.add(p.customerId);
  const byIntent = new Map(payments.filter((p) => p.paymentIntentId).map((p) => [p.paymentIntentId!, p]));
  const charges = new Map<string, Stripe.Charge>();
  for (const customer of customers) {
    // Stripe's pages hold 100: follow `has_more` up to MAX_CHARGES_PER_CUSTOMER, newest first
    const list = await stripeCall('customer', () => stripe.charges.list({ customer, limit: 100 }).autoPagingToArray({ limit: MAX_CHARGES_PER_CUSTOMER }));
    for (const c of list) charges.set(c.id, c);
  }
  return [...charges.values()].sort((a, b) => b.created - a.created).map((c): PaymentCharge => {
    const pi = idOf(c.payment_intent) ?? null;
    const p = pi === null ? undefined : byIntent.get(pi);
    return {
      id: c.id, amount: c.amount, currency: c.currency, status: c.status, amount_refunded: c.amount_refunded,
      credits: p?.credits ?? 0, credits_removed: p?.refundedCredits ?? 0, payment_intent: pi, description: c.description ?? null,
      created_at: new Date(c.created * 1000).toISOString(),
    };
  });
};

/** POST /auth/admin_stripe_refund: through Stripe, then the credits that charge bought go (in proportion). */
export const adminStripeRefund: Handler<'adminStripeRefund'> = async ({ app, caller, body, request, audit }) => {
  const stripe = await stripeClient(app.config.stripe);
  const charge = await stripeCall('charge', () => stripe.charges.retrieve(body.charge_id));
  const pi = idOf(charge.payment_intent);
  const payment = pi === undefined ? undefined : await findPaymentByIntent(app.db, pi);
  if (!payment) throw new NotFoundError('no purchase of credit on this gateway is recorded for this charge; refund it in Stripe\'s dashboard');
  audit.target_user_id = payment.userId;
  const remaining = charge.amount - charge.amount_refunded;
  if (remaining <= 0) throw new ConflictError('this charge is already refunded in full');
  const amount = body.amount ?? remaining;
  if (amount > remaining) throw new ConflictError(`only ${remaining} (${charge.currency}, minor units) of this charge is left to refund`);
  const credits = creditsForRefund(payment.amount, payment.credits, payment.refundedAmount, payment.refundedCredits, amount);
  const user = await findUserById(app.db, payment.userId);
  if (!user) throw new NotFoundError('the account that bought this credit no longer exists; refund it in Stripe\'s dashboard');
  // a team's purchase is taken back from the team's wallet
  const balance = payment.teamId === null ? user.balance : (await walletOf(app.db, { userId: payment.userId, teamId: payment.teamId })).balance;
  if (body.allow_negative !== true && credits > balance) {
    throw new ConflictError(`this refund takes back ${credits} credits and the balance is ${balance}; nothing was refunded (send "allow_negative": true to refund anyway)`);
  }
  const callerKey = typeof request.headers['idempotency-key'] === 'string' ? request.headers['idempotency-key'] : undefined;
  // staff's text: an address in it is written as the account it names (db/pseudonymise.ts), in Stripe's metadata as in the ledger
  const reason = body.reason?.trim() ? await pseudonymiseText(app.db, body.reason.trim()) : undefined;
  const refund = await stripeCall('charge', () => stripe.refunds.create({
    charge: charge.id, amount,
    metadata: { mediagate_user_id: String(payment.userId), mediagate_requested_by: String(caller.userId), ...(reason ? { reason: reason.slice(0, 500) } : {}) },
  }, { idempotencyKey: refundIdempotencyKey(charge.id, amount, charge.amount_refunded, callerKey, caller.userId) }));
  if (typeof refund.id !== 'string' || !Number.isSafeInteger(refund.amount)) {
    app.log.error({ charge: charge.id }, 'Stripe answered the refund request with something that is not a refund');
    throw new UnavailableError('Stripe\'s answer was not a refund; ask again with the same Idempotency-Key (Stripe then answers the refund it made, if it made one)');
  }
  if (refund.status === 'failed' || refund.status === 'canceled') throw new ConflictError(`Stripe did not refund it (refund ${refund.id} is ${refund.status}); no credits were taken back`);
  const applied = await applyStripeRefund(app.db, payment, {
    refundId: refund.id, chargeId: charge.id, amount: refund.amount, currency: refund.currency, source: 'admin',
    description: reason ?? `Stripe refund ${refund.id}`, now: app.clock(),
  });
  return {
    refund_id: refund.id, charge_id: charge.id, user_id: payment.userId, amount: refund.amount, currency: refund.currency, status: refund.status ?? 'pending',
    credits_removed: applied.credits, balance: applied.balance,
  };
};

// ---------------------------------------------------------------- the webhook

/**
 * The account a paid Checkout Session credits: its explicit account id, its customer, its email.
 * `own`: whether the session's Stripe customer may become the account's (recorded on its wallet):
 * not when only `client_reference_id` named it, which whoever pays a Payment Link may set to any
 * account id, unless the payer's email is the account's.
 */
async function accountOf(app: App, s: Stripe.Checkout.Session): Promise<{ userId: number; own: boolean } | undefined> {
  const email = s.customer_details?.email ?? s.customer_email;
  for (const [explicit, bySession] of [[s.client_reference_id, false], [s.metadata?.user_id, true]] as const) {
    if (explicit && /^[1-9][0-9]{0,9}$/.test(explicit)) {
      const user = await findUserById(app.db, Number(explicit));
      return user && { userId: user.id, own: bySession || (typeof email === 'string' && normaliseEmail(email) === normaliseEmail(user.email)) };
    }
  }
  const customer = idOf(s.customer);
  const byCustomer = customer === undefined ? undefined : await userIdForCustomer(app.db, customer);
  if (byCustomer !== undefined) return { userId: byCustomer, own: true };
  const user = email ? await findUserByEmail(app.db, email) : undefined;
  return user && { userId: user.id, own: true };
}

/** The team a Checkout Session of createCheckoutSession buys for (its metadata, set by the gateway); null: the buyer's own wallet. */
function teamOf(metadata: Stripe.Metadata | null | undefined): number | null {
  const t = metadata?.team_id;
  return t && /^[1-9][0-9]{0,9}$/.test(t) ? Number(t) : null;
}

/**
 * The wallet a subscription bought in the dashboard is for, and its plan: from the metadata
 * createCheckoutSession put on the Checkout Session and on the Stripe subscription.
 */
function subscriptionTarget(app: App, metadata: Stripe.Metadata | null | undefined): { payer: Owner; plan: string } | undefined {
  const user = metadata?.user_id;
  const plan = metadata?.plan;
  if (!user || !/^[1-9][0-9]{0,9}$/.test(user) || !plan || !app.config.subscriptions.plans.has(plan)) return undefined;
  return { payer: { userId: Number(user), teamId: teamOf(metadata) }, plan };
}

/** A subscription bought with Checkout: the plan starts on the wallet at once, with its first period's credit. */
async function subscriptionStarted(app: App, event: Stripe.Event, s: Stripe.Checkout.Session): Promise<AckStatus> {
  if (s.payment_status !== 'paid' && s.payment_status !== 'no_payment_required') return 'ignored';
  const target = subscriptionTarget(app, s.metadata);
  if (!target) {
    app.log.error({ stripeEvent: event.id, session: s.id }, 'stripe_payment_unmatched: a paid subscription checkout names no account or no configured plan; activate it by hand (adminManageSubscription)');
    return 'unmatched';
  }
  const plan = app.config.subscriptions.plans.get(target.plan)!;
  const customer = idOf(s.customer) ?? null;
  const stripeSubscription = idOf(s.subscription) ?? null;
  const amount = s.amount_total ?? 0;
  const currency = (s.currency ?? app.config.stripe.currency).toLowerCase();
  const out = await activateFromCheckout(app.db, target.payer, plan, { sessionId: s.id, stripeSubscriptionId: stripeSubscription, customerId: customer, amount, currency, eventAt: eventCreated(event) }, app.clock());
  if (customer && out.outcome !== 'wallet-gone' && !(out.outcome === 'seen' && out.was === 'unapplied')) await recordCustomer(app.db, target.payer, customer);
  if (out.outcome === 'seen') return out.was === 'started' ? 'duplicate' : 'unmatched';
  if (out.outcome === 'subscription-ended') {
    // delivered after its subscription's deletion: started now, the plan would renew with nothing paying for it
    app.log.error({
      stripeEvent: event.id, session: s.id, subscription: stripeSubscription, invoice: idOf(s.invoice) ?? null, customer, ...target.payer, plan: target.plan, amount, currency,
    }, 'stripe_payment_unmatched: a paid subscription checkout arrived after Stripe reported its subscription deleted; it started nothing and is recorded as unapplied: refund it, or activate the plan by hand (adminManageSubscription)');
    return 'unmatched';
  }
  if (out.outcome === 'wallet-gone' && stripeSubscription) {
    // nothing here will ever pay out of it, and nobody can reach its billing portal: Stripe would charge it every period
    await endStripeSubscription(app, stripeSubscription, target.payer);
    app.log.error({
      stripeEvent: event.id, session: s.id, subscription: stripeSubscription, invoice: idOf(s.invoice) ?? null, customer, ...target.payer, plan: target.plan, amount, currency,
    }, 'stripe_payment_unmatched: a paid subscription checkout started nothing, because its wallet (the team or the account) is gone; it is recorded as unapplied and its Stripe subscription is being cancelled at Stripe: refund its first payment in Stripe\'s dashboard');
    return 'unmatched';
  }
  if (out.outcome === 'already-active' || out.outcome === 'wallet-gone') {
    // paid at Stripe, nothing granted here: an operator refunds it (and cancels its Stripe subscription) or applies it by hand
    const why = out.outcome === 'wallet-gone' ? 'its wallet (the team or the account) is gone'
      : `the wallet already has ${out.subscription ? `the ${out.subscription.plan} plan` : 'an active plan'} (a second subscription checkout paid for it)`;
    app.log.error({
      stripeEvent: event.id, session: s.id, subscription: stripeSubscription, invoice: idOf(s.invoice) ?? null, customer, ...target.payer, plan: target.plan, amount, currency,
    }, `stripe_payment_unmatched: a paid subscription checkout started nothing, because ${why}; it is recorded as unapplied: refund it and cancel its Stripe subscription, or apply it by hand (adminManageSubscription)`);
    return 'unmatched';
  }
  app.log.info({ stripeEvent: event.id, session: s.id, ...target.payer, plan: target.plan }, 'stripe subscription started');
  return 'subscription_started';
}

/**
 * Stripe statuses of a subscription whose latest payment has not been made: its plan is held.
 * `unpaid` too (Stripe's retries ran out, the invoice stays open): paying it makes it active again;
 * only `canceled` (or deleted, or `incomplete_expired`) ends it.
 */
const HOLDS = new Set(['past_due', 'unpaid', 'incomplete', 'paused']);
/** Stripe statuses that report the payment owed for the subscription's current period. */
const OWES_PERIOD = new Set(['past_due', 'unpaid']);
/** Stripe statuses of a subscription that is paid up. */
const PAID_UP = new Set(['active', 'trialing']);

/**
 * A Stripe subscription's payment state, for the plan its checkout started (only then, as the
 * plan's row records: a plan an admin activated, or one started by another Stripe subscription,
 * is left alone): `hold` while a
 * payment is owed, `resume` when paid up again (a period's credit comes only with its paid invoice).
 */
async function paymentState(app: App, event: Stripe.Event, payer: Owner, stripeSubscriptionId: string, to: 'hold' | 'resume', periodStart?: number): Promise<AckStatus | undefined> {
  if ((await findSubscription(app.db, payer))?.stripeSubscriptionId !== stripeSubscriptionId) return undefined;
  const now = app.clock();
  const order = { at: eventCreated(event), ...(periodStart !== undefined ? { periodStart } : {}) };
  if (to === 'hold') {
    if (!(await holdSubscription(app.db, payer, now, order))) return undefined;
    app.log.warn({ stripeEvent: event.id, type: event.type, subscription: stripeSubscriptionId, ...payer }, 'stripe subscription payment owed: the plan is held until Stripe reports it paid');
    return 'subscription_held';
  }
  if (!(await resumeSubscription(app.db, payer, now, order))) return undefined;
  app.log.info({ stripeEvent: event.id, type: event.type, subscription: stripeSubscriptionId, ...payer }, 'stripe subscription paid up again: the plan is active (each period\'s credit comes with its paid invoice)');
  return 'subscription_resumed';
}

/** When Stripe created the event, epoch seconds (0 when it says nothing: older than anything applied). */
const eventCreated = (event: Stripe.Event): number => (isSeconds(event.created) ? event.created : 0);

/** The start of a subscription's current period, epoch ms: `current_period_start`, or its item's from API version 2025-03-31. */
function subscriptionPeriodStart(sub: Fields): number | undefined {
  const item = isRecord(sub.items) && Array.isArray(sub.items.data) && isRecord(sub.items.data[0]) ? sub.items.data[0] : undefined;
  const start = sub.current_period_start ?? item?.current_period_start;
  return isSeconds(start) ? start * 1000 : undefined;
}

/** The Stripe subscription an invoice bills: `parent.subscription_details.subscription`, or `subscription` in API versions before 2025-03-31. */
function invoiceSubscription(invoice: Fields): string | undefined {
  const parent = isRecord(invoice.parent) && isRecord(invoice.parent.subscription_details) ? invoice.parent.subscription_details.subscription : undefined;
  return idOf((parent ?? invoice.subscription) as string | { id: string } | null | undefined);
}

/** The invoices that bill a period of the subscription: its renewal, or a change that starts a new period. The first one (`subscription_create`) is its checkout's. */
const PERIOD_INVOICES = new Set(['subscription_cycle', 'subscription_update', 'subscription']);

const isSeconds = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) > 0;

/**
 * The subscription period an invoice bills, epoch ms: the latest period of its lines that is not a
 * proration (`proration`, or `parent.subscription_item_details.proration` from API version
 * 2025-03-31), or for a renewal whose lines the event leaves out, the period starting at the
 * invoice's `period_end` (a renewal invoice's own period is the one that just ended). undefined: none.
 */
function invoicePeriod(invoice: Fields): (StripePeriod & { price?: string }) | undefined {
  let found: (StripePeriod & { price?: string }) | undefined;
  const lines = isRecord(invoice.lines) && Array.isArray(invoice.lines.data) ? invoice.lines.data : [];
  for (const line of lines) {
    if (!isRecord(line) || !isRecord(line.period) || !isSeconds(line.period.start) || !isSeconds(line.period.end)) continue;
    const item = isRecord(line.parent) && isRecord(line.parent.subscription_item_details) ? line.parent.subscription_item_details : undefined;
    if (line.proration === true || item?.proration === true) continue;
    if (!found || line.period.start * 1000 > found.start) {
      const price = linePrice(line);
      found = { start: line.period.start * 1000, end: line.period.end * 1000, ...(price === undefined ? {} : { price }) };
    }
  }
  if (found) return found;
  return invoice.billing_reason === 'subscription_cycle' && isSeconds(invoice.period_end) ? { start: invoice.period_end * 1000 } : undefined;
}

/** The Stripe price an invoice line bills: `pricing.price_details.price` from API version 2025-03-31, `price` before (an id, or the object). */
function linePrice(line: Fields): string | undefined {
  const details = isRecord(line.pricing) && isRecord(line.pricing.price_details) ? line.pricing.price_details.price : undefined;
  return idOf((details ?? line.price) as string | { id: string } | null | undefined);
}

/** The declared plan whose `stripe_price` is this Stripe price; undefined when none is. */
function planOfPrice(app: App, price: string | undefined): SubscriptionPlan | undefined {
  if (price === undefined) return undefined;
  return [...app.config.subscriptions.plans.values()].find((p) => p.stripePrice !== undefined && p.stripePrice === price);
}

/**
 * invoice.paid of the Stripe subscription that started a wallet's plan: the period it pays is
 * granted, once, if it comes after the plan's current one (the plan is active again if it was held).
 */
async function invoicePaid(app: App, event: Stripe.Event, invoice: Fields): Promise<AckStatus> {
  const sub = invoiceSubscription(invoice);
  if (sub === undefined || await stripeSubscriptionEnded(app.db, sub)) return 'ignored';
  if (!PERIOD_INVOICES.has(String(invoice.billing_reason))) return 'ignored';
  const period = invoicePeriod(invoice);
  const ids = { stripeEvent: event.id, invoice: invoice.id, subscription: sub };
  if (!period) {
    const payer = await walletOfStripePlan(app.db, sub);
    if (payer) app.log.error({ ...ids, ...payer }, 'stripe_payment_unmatched: a paid invoice of a plan\'s Stripe subscription states no period; nothing was granted: grant it by hand (adminTopup) if it paid for a period');
    return 'ignored';
  }
  const billed = planOfPrice(app, period.price);
  const out = await grantStripePeriod(app.db, sub, app.config.subscriptions.plans, { ...period, ...(billed ? { plan: billed.name } : {}) }, eventCreated(event), app.clock());
  if (out.outcome === 'renewed') {
    const { userId, teamId, plan, currentPeriodStart, currentPeriodEnd } = out.subscription;
    app.log.info({ ...ids, userId, teamId, plan, periodStart: new Date(currentPeriodStart).toISOString(), periodEnd: new Date(currentPeriodEnd).toISOString() },
      'stripe subscription period paid: its credit was granted');
    return 'subscription_renewed';
  }
  if (out.outcome === 'unknown-plan') {
    app.log.error({ ...ids, userId: out.subscription.userId, teamId: out.subscription.teamId, plan: out.plan },
      'stripe_payment_unmatched: a paid period of a plan SUBSCRIPTION_PLANS no longer declares; nothing was granted: declare the plan again (the next paid period is granted) or grant it by hand');
    return 'ignored';
  }
  if (out.outcome === 'no-plan') {
    // paid at Stripe for a plan cancelled here (by billing, or its wallet gone) while Stripe kept charging: the operator decides
    const cancelled = await cancelledStripePlan(app.db, sub);
    if (cancelled) {
      // its cancellation at Stripe may be recorded and not done yet (Stripe failing): the gateway is on it
      const pending = await findStripeCancellation(app.db, sub);
      const what = pending && pending.doneAt === null
        ? 'refund it, or activate the plan by hand; its cancellation at Stripe is pending (the gateway tries it again until Stripe cancels it)'
        : 'refund it and cancel the subscription in Stripe, or activate the plan by hand';
      app.log.error({ ...ids, userId: cancelled.userId, teamId: cancelled.teamId, plan: cancelled.plan },
        `stripe_payment_unmatched: Stripe charged a period of a subscription whose plan was cancelled on the gateway; nothing was granted: ${what}`);
      return 'unmatched';
    }
  }
  if (out.outcome === 'cancelled') {
    // its wallet is gone and Stripe still charges it (the deletion could not have it cancelled): nothing here will pay out of it
    await endStripeSubscription(app, sub, out.payer);
    return 'subscription_cancelled';
  }
  return 'ignored';
}

/**
 * invoice.payment_failed holds the plan its Stripe subscription's checkout started, unless it is
 * out of date: older than the newest event applied to the plan, or about a period no later than the
 * plan's current one (which its paid invoice granted).
 */
async function invoiceFailed(app: App, event: Stripe.Event, invoice: Fields): Promise<AckStatus> {
  const sub = invoiceSubscription(invoice);
  if (sub === undefined || await stripeSubscriptionEnded(app.db, sub)) return 'ignored';
  const payer = await walletOfStripePlan(app.db, sub);
  if (!payer) return 'ignored';
  return await paymentState(app, event, payer, sub, 'hold', invoicePeriod(invoice)?.start) ?? 'ignored';
}

/**
 * Stripe's subscription changed (the billing portal): a new price is a plan change from the next
 * renewal; an ended one cancels; a payment owed (past due, unpaid, incomplete, paused) holds the
 * plan, paid up again (active, trialing) makes it active.
 */
async function subscriptionUpdated(app: App, event: Stripe.Event, sub: Stripe.Subscription, deleted: boolean): Promise<AckStatus> {
  const target = subscriptionTarget(app, sub.metadata);
  if (!target) return 'ignored';
  const ended = deleted || ['canceled', 'incomplete_expired'].includes(sub.status);
  // remembered, so that its checkout delivered late starts nothing
  if (ended && typeof sub.id === 'string') await recordStripeSubscriptionEnded(app.db, sub.id, target.payer, target.plan, idOf(sub.customer) ?? null, app.clock());
  // a subscription whose checkout started nothing (recorded unapplied) is not the wallet's plan
  if (typeof sub.id === 'string' && await isUnappliedSubscription(app.db, sub.id)) {
    app.log.info({ subscription: sub.id, ...target.payer }, 'stripe subscription event of an unapplied checkout: the wallet\'s plan is left alone');
    return 'ignored';
  }
  // only the Stripe subscription whose checkout started the wallet's current plan changes it: an
  // event of an earlier one (ended, then the plan bought again or activated by an admin), or of one
  // whose checkout started nothing yet, delivered late or again, is not about the plan the wallet has now
  const current = await findSubscription(app.db, target.payer);
  if (!current || typeof sub.id !== 'string' || current.stripeSubscriptionId !== sub.id) {
    app.log.info({ subscription: sub.id, current: current?.stripeSubscriptionId ?? null, ...target.payer }, 'stripe subscription event of a subscription that did not start the wallet\'s plan: the plan is left alone');
    return 'ignored';
  }
  const now = app.clock();
  if (ended) {
    const out = await cancelSubscription(app.db, target.payer, now);
    return out.outcome === 'ok' ? 'subscription_cancelled' : 'ignored';
  }
  // a late event of a subscription Stripe already reported deleted changes nothing
  if (typeof sub.id !== 'string' || await stripeSubscriptionEnded(app.db, sub.id)) return 'ignored';
  // Stripe does not keep the order of events: one older than the newest applied to the plan is out of date
  const at = eventCreated(event);
  if (await stripeEventOutOfDate(app.db, target.payer, at)) {
    app.log.info({ stripeEvent: event.id, subscription: sub.id, status: sub.status, ...target.payer }, 'stripe subscription event older than the newest one applied: the plan is left alone');
    return 'ignored';
  }
  // past due or unpaid: the period Stripe reports unpaid; one the plan has moved to was paid
  const owedPeriod = OWES_PERIOD.has(sub.status) ? subscriptionPeriodStart(sub as unknown as Fields) : undefined;
  const payment = HOLDS.has(sub.status) ? await paymentState(app, event, target.payer, sub.id, 'hold', owedPeriod)
    : PAID_UP.has(sub.status) ? await paymentState(app, event, target.payer, sub.id, 'resume') : undefined;
  const plan = planOfPrice(app, sub.items?.data?.[0]?.price?.id);
  let status: AckStatus = payment ?? 'ignored';
  if (plan && current.status === 'active' && plan.name !== (current.nextPlan ?? current.plan)) {
    const out = await changeSubscription(app.db, target.payer, plan, now, { at });
    if (out.outcome === 'ok') status = 'subscription_changed';
  }
  if (current.status === 'active') await stripeEventApplied(app.db, target.payer, at);
  return status;
}

async function checkoutPaid(app: App, event: Stripe.Event, s: Stripe.Checkout.Session): Promise<AckStatus> {
  if (s.mode === 'subscription') return subscriptionStarted(app, event, s);
  if (s.mode !== 'payment' || s.payment_status !== 'paid') return 'ignored';
  const account = await accountOf(app, s);
  const userId = account?.userId;
  const amount = s.amount_total ?? 0;
  const credits = creditsForPayment(app.config.stripe, amount, s.currency ?? '', s.metadata);
  // paid at Stripe, credited nowhere: an error for the operator, who refunds it or credits it by hand
  const unmatched = (fields: Record<string, unknown>, message: string): AckStatus => {
    app.log.error({ stripeEvent: event.id, session: s.id, paymentIntent: idOf(s.payment_intent), amount, currency: s.currency, account: userId ?? null, ...fields },
      `stripe_payment_unmatched: ${message}`);
    return 'unmatched';
  };
  if (userId === undefined || credits === undefined || credits <= 0) {
    const why = userId === undefined ? 'the paid checkout names no account of this gateway'
      : credits === 0 ? `${amount} (${s.currency}, minor units) buys no whole credit at the rate`
        : (s.currency ?? '').toLowerCase() === app.config.stripe.currency ? `${amount} (${s.currency}, minor units) buys more credits than the gateway keeps exactly (2^53 - 1)`
          : `no credit rate for ${s.currency ?? 'this currency'} and no metadata.credits`;
    return unmatched({}, `${why}; credit it by hand (adminTopup)`);
  }
  let out: PurchaseOutcome;
  try {
    out = await recordPurchase(app.db, {
      userId, teamId: teamOf(s.metadata), checkoutSessionId: s.id, paymentIntentId: idOf(s.payment_intent) ?? null, customerId: idOf(s.customer) ?? null,
      recordCustomer: account!.own, amount, currency: (s.currency ?? app.config.stripe.currency).toLowerCase(), credits, now: app.clock(),
    });
  } catch (err) {
    if (!(err instanceof BalanceLimitError)) throw err;
    // a 4xx would only have Stripe send it again for days, and it would never fit: the operator decides
    return unmatched({ credits }, `the wallet cannot hold ${credits} more credits (${err.message}); nothing was credited: refund it, or credit it by hand once it can`);
  }
  if (out.outcome === 'no-account') {
    return unmatched({ team: teamOf(s.metadata) },
      `the paid checkout's wallet is gone (${out.gone === 'team' ? 'the team was deleted and the account of the member who bought it erased' : 'the account was erased'}); nothing was credited: refund it in Stripe's dashboard`);
  }
  if (out.outcome === 'credited' && out.forDeletedTeam !== undefined) {
    app.log.warn({ stripeEvent: event.id, session: s.id, userId, team: out.forDeletedTeam, credits },
      'stripe purchase credited to its buyer\'s own wallet: the team it was bought for was deleted before the payment arrived');
  } else if (out.outcome === 'credited') app.log.info({ stripeEvent: event.id, session: s.id, userId, credits }, 'stripe purchase credited');
  return out.outcome;
}

const APPLIES = new Set(['succeeded', 'pending']);

/**
 * Logs credits a failed refund or a won dispute gave back. A team deleted since is credited
 * nothing: they went to the buyer's own wallet, or, the buyer's account erased too, nowhere, and
 * the money the customer paid is still with the operator, who refunds it.
 */
function givenBack(app: App, fields: Record<string, unknown>, teamDeleted: { team: number; to: 'buyer' | 'nowhere' } | undefined, what: string, message: string): void {
  if (teamDeleted === undefined) app.log.warn(fields, message);
  else if (teamDeleted.to === 'buyer') app.log.warn({ ...fields, team: teamDeleted.team }, `${what}: its credits were given back to the buyer's own wallet, as the team they were taken from was deleted since`);
  else {
    app.log.error({ ...fields, team: teamDeleted.team },
      `stripe_payment_unmatched: ${what}, but the team whose purchase it was is deleted and the account of the member who bought it erased: nothing was credited; refund the payment in Stripe's dashboard`);
  }
}

async function refundReported(app: App, event: Stripe.Event, refund: Stripe.Refund, payment: StripePayment | undefined): Promise<AckStatus> {
  // a refund inside a charge.refunded event, or listed by Stripe for it, is checked here
  const problem = refundProblem(refund);
  if (problem !== undefined) return malformed(app, event, `refund ${problem}`);
  const pi = idOf(refund.payment_intent);
  const purchase = async () => payment ?? (pi === undefined ? undefined : await findPaymentByIntent(app.db, pi));
  if (!APPLIES.has(refund.status ?? '')) {
    if (refund.status === 'failed' || refund.status === 'canceled') {
      // the money never left: the credits this refund took (if it was applied) come back, once;
      // one not applied yet is recorded as failed, so its creation reported later takes nothing
      const p = await purchase();
      const unseen = p && { payment: p, chargeId: idOf(refund.charge) ?? '', amount: refund.amount, currency: refund.currency };
      const back = await reverseStripeRefund(app.db, refund.id, `Stripe refund ${refund.id} ${refund.status}: credits given back`, app.clock(), unseen);
      if (back.outcome === 'reversed') {
        givenBack(app, { refund: refund.id, status: refund.status, userId: back.userId, credits: back.credits }, back.teamDeleted, 'stripe refund failed or was cancelled', 'stripe refund failed or was cancelled; its credits were given back');
        return 'refund_reversed';
      }
    }
    return 'ignored';
  }
  const p = await purchase();
  if (!p) return 'ignored';
  const applied = await applyStripeRefund(app.db, p, {
    refundId: refund.id, chargeId: idOf(refund.charge) ?? '', amount: refund.amount, currency: refund.currency, source: 'webhook',
    description: `Stripe refund ${refund.id}`, now: app.clock(),
  });
  return applied.outcome === 'applied' ? 'refund_applied' : 'duplicate';
}

async function chargeRefunded(app: App, event: Stripe.Event, charge: Stripe.Charge): Promise<AckStatus> {
  const pi = idOf(charge.payment_intent);
  const payment = pi === undefined ? undefined : await findPaymentByIntent(app.db, pi);
  if (!payment) return 'ignored';
  // Recent API versions leave the refunds out of the charge: ask for them.
  const refunds = charge.refunds && !charge.refunds.has_more ? charge.refunds.data
    : listData(await stripeCall('charge', async () => (await stripeClient(app.config.stripe)).refunds.list({ charge: charge.id, limit: 100 })));
  const outcomes: AckStatus[] = [];
  for (const r of refunds) outcomes.push(await refundReported(app, event, r, payment));
  if (outcomes.includes('refund_applied')) return 'refund_applied';
  return outcomes.includes('duplicate') ? 'duplicate' : 'ignored';
}

/**
 * A dispute (chargeback) of a charge that bought credit here: funds Stripe withdrew from the
 * balance are a refund of the disputed amount (the same credits, taken once per dispute id, even
 * below zero: an error tells the operator then); funds reinstated (the dispute won) give back what
 * was taken, once.
 */
async function disputeReported(app: App, event: Stripe.Event, dispute: Stripe.Dispute, withdrawn: boolean): Promise<AckStatus> {
  const pi = idOf(dispute.payment_intent);
  const payment = pi === undefined ? undefined : await findPaymentByIntent(app.db, pi);
  if (!payment) return 'ignored';
  const chargeId = idOf(dispute.charge) ?? '';
  const ids = { stripeEvent: event.id, dispute: dispute.id, charge: chargeId, paymentIntent: pi, userId: payment.userId, teamId: payment.teamId, amount: dispute.amount, currency: dispute.currency };
  if (!withdrawn) {
    // one not applied yet (events out of order) is recorded as given back, so its withdrawal reported later takes nothing
    const back = await reverseStripeRefund(app.db, dispute.id, `Stripe dispute ${dispute.id}: funds reinstated, credits given back`, app.clock(),
      { payment, chargeId, amount: dispute.amount, currency: dispute.currency, source: 'dispute' });
    if (back.outcome !== 'reversed') return 'ignored';
    givenBack(app, { ...ids, credits: back.credits }, back.teamDeleted, 'stripe dispute funds reinstated', 'stripe dispute funds reinstated: the credits it took were given back');
    return 'refund_reversed';
  }
  const applied = await applyStripeRefund(app.db, payment, {
    refundId: dispute.id, chargeId, amount: dispute.amount, currency: dispute.currency, source: 'dispute',
    description: `Stripe dispute ${dispute.id}: funds withdrawn`, now: app.clock(),
  });
  if (applied.outcome !== 'applied') return 'duplicate';
  if (applied.balance < 0) {
    app.log.error({ ...ids, credits: applied.credits, balance: applied.balance },
      'stripe dispute funds withdrawn: its credits were taken back and the wallet is below zero (it had spent them); the debt is paid first by later credit: decide whether to pursue it');
  } else {
    app.log.warn({ ...ids, credits: applied.credits, balance: applied.balance }, 'stripe dispute funds withdrawn: the credits the disputed amount bought were taken back');
  }
  return 'refund_applied';
}

// ---------------------------------------------------------------- the shape of an event
// The signature proves who sent the bytes, not that the object has the shape the SDK's types
// promise. An event this handler acts on whose object, or a field of it that is used, has another
// type moves nothing: it is answered `ignored` (a 2xx: Stripe would only send the same bytes
// again) and logged as a warning, never credited from a malformed amount.

type Fields = Record<string, unknown>;
const isRecord = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);
const absent = (v: unknown) => v === undefined || v === null;
const optString = (v: unknown) => absent(v) || typeof v === 'string';
/** An expandable field: absent, an id, or the expanded object with its id. */
const optExpandable = (v: unknown) => absent(v) || typeof v === 'string' || (isRecord(v) && typeof v.id === 'string');
/** Stripe's metadata: absent, or an object whose values are strings. */
const optMetadata = (v: unknown) => absent(v) || (isRecord(v) && Object.values(v).every((x) => typeof x === 'string'));
/** An amount in minor units: a whole number, not negative. */
const isAmount = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;

/** The first field of a Checkout Session that is used and has another type than Stripe's; undefined when none. */
function sessionProblem(s: Fields): string | undefined {
  if (typeof s.id !== 'string') return 'id';
  for (const f of ['mode', 'payment_status', 'currency', 'client_reference_id', 'customer_email']) if (!optString(s[f])) return f;
  if (!absent(s.amount_total) && !isAmount(s.amount_total)) return 'amount_total';
  for (const f of ['customer', 'payment_intent', 'subscription', 'invoice']) if (!optExpandable(s[f])) return f;
  if (!optMetadata(s.metadata)) return 'metadata';
  if (!absent(s.customer_details) && !(isRecord(s.customer_details) && optString(s.customer_details.email))) return 'customer_details';
  return undefined;
}

function chargeProblem(c: Fields): string | undefined {
  if (typeof c.id !== 'string') return 'id';
  if (!optExpandable(c.payment_intent)) return 'payment_intent';
  // the refunds the event carries (older API versions): each is checked when it is applied
  if (!absent(c.refunds) && !(isRecord(c.refunds) && typeof c.refunds.has_more === 'boolean' && Array.isArray(c.refunds.data))) return 'refunds';
  return undefined;
}

function refundProblem(r: unknown): string | undefined {
  if (!isRecord(r)) return 'object';
  if (typeof r.id !== 'string') return 'id';
  if (!isAmount(r.amount)) return 'amount';
  if (typeof r.currency !== 'string') return 'currency';
  if (!optString(r.status)) return 'status';
  for (const f of ['payment_intent', 'charge']) if (!optExpandable(r[f])) return f;
  return undefined;
}

function disputeProblem(d: Fields): string | undefined {
  if (typeof d.id !== 'string') return 'id';
  if (!isAmount(d.amount)) return 'amount';
  if (typeof d.currency !== 'string') return 'currency';
  for (const f of ['payment_intent', 'charge']) if (!optExpandable(d[f])) return f;
  return undefined;
}

function invoiceProblem(invoice: Fields): string | undefined {
  if (typeof invoice.id !== 'string') return 'id';
  if (!optExpandable(invoice.subscription)) return 'subscription';
  if (!optString(invoice.billing_reason)) return 'billing_reason';
  if (!absent(invoice.period_end) && !isAmount(invoice.period_end)) return 'period_end';
  if (!absent(invoice.lines) && !(isRecord(invoice.lines) && Array.isArray(invoice.lines.data))) return 'lines';
  if (!absent(invoice.parent) && !isRecord(invoice.parent)) return 'parent';
  const details = isRecord(invoice.parent) ? invoice.parent.subscription_details : undefined;
  if (!absent(details) && !(isRecord(details) && optExpandable(details.subscription))) return 'parent.subscription_details';
  return undefined;
}

function subscriptionProblem(sub: Fields): string | undefined {
  if (!optMetadata(sub.metadata)) return 'metadata';
  if (!optString(sub.status)) return 'status';
  if (!absent(sub.current_period_start) && !isAmount(sub.current_period_start)) return 'current_period_start';
  return undefined;
}

const SHAPES: Readonly<Record<string, (object: Fields) => string | undefined>> = {
  'checkout.session.completed': sessionProblem,
  'checkout.session.async_payment_succeeded': sessionProblem,
  'charge.refunded': chargeProblem,
  'refund.created': refundProblem,
  'refund.updated': refundProblem,
  'refund.failed': refundProblem,
  'customer.subscription.updated': subscriptionProblem,
  'customer.subscription.deleted': subscriptionProblem,
  'charge.dispute.funds_withdrawn': disputeProblem,
  'charge.dispute.funds_reinstated': disputeProblem,
  'invoice.paid': invoiceProblem,
  'invoice.payment_failed': invoiceProblem,
};

/** What is wrong with the object of an event this handler acts on (`data.object…`); undefined when nothing, or for another event. */
function eventProblem(event: Fields): string | undefined {
  const shape = typeof event.type === 'string' && Object.hasOwn(SHAPES, event.type) ? SHAPES[event.type]! : undefined;
  if (!shape) return undefined;
  if (!isRecord(event.data)) return 'data';
  if (!isRecord(event.data.object)) return 'data.object';
  const field = shape(event.data.object);
  return field === undefined ? undefined : `data.object.${field}`;
}

function malformed(app: App, event: Stripe.Event, field: string): AckStatus {
  app.log.warn({ stripeEvent: typeof event.id === 'string' ? event.id : null, type: event.type, field },
    'stripe event ignored: a field the gateway reads is missing or not of the type Stripe sends; nothing moved');
  return 'ignored';
}

/**
 * Why a signed event is not about the gateway's own Stripe account: a connected account's (Stripe
 * Connect: money the gateway did not receive), or a test-mode one on a gateway with a live key (a
 * test card's payment buys no real credit); undefined when it is.
 */
function foreignEvent(app: App, event: Fields): string | undefined {
  if (typeof event.account === 'string' && event.account !== '') return `an event of the connected account ${event.account} (Stripe Connect), not of the gateway's own account`;
  if (event.livemode === false && /^(sk|rk)_live_/.test(app.config.stripe.secretKey ?? '')) {
    return 'a test-mode event on a gateway with a live STRIPE_SECRET_KEY (is STRIPE_WEBHOOK_SECRET the live endpoint\'s?)';
  }
  return undefined;
}

/** POST /api/v1/payment-webhooks/stripe */
export const receiveStripeWebhook: Handler<'receiveStripeWebhook'> = async ({ app, request }) => {
  const secret = webhookSecret(app.config.stripe);
  const signature = request.headers['stripe-signature'];
  if (typeof signature !== 'string' || signature === '') throw new InvalidInputError('the Stripe-Signature header is missing');
  // loaded outside the try: a failed import is not a refused signature
  const { webhooks } = await stripeSdk();
  let event: Stripe.Event;
  try {
    event = webhooks.constructEvent(request.app.rawBody ?? Buffer.alloc(0), signature, secret);
  } catch (err) {
    throw new InvalidInputError(`the Stripe signature was refused: ${(err as Error).message.split('\n')[0]}`);
  }
  const foreign = foreignEvent(app, event as unknown as Fields);
  if (foreign !== undefined) {
    app.log.error({ stripeEvent: typeof event.id === 'string' ? event.id : null, type: event.type }, `stripe event ignored: ${foreign}; nothing moved`);
    return { status: 'ignored' };
  }
  // the route's schema lets only a JSON object through, whose fields may be anything
  const problem = eventProblem(event as unknown as Fields);
  if (problem !== undefined) return { status: malformed(app, event, problem) };
  let status: AckStatus;
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
      status = await checkoutPaid(app, event, event.data.object);
      break;
    case 'charge.refunded':
      status = await chargeRefunded(app, event, event.data.object);
      break;
    case 'refund.created':
    case 'refund.updated':
    case 'refund.failed':
      status = await refundReported(app, event, event.data.object, undefined);
      break;
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
      status = await subscriptionUpdated(app, event, event.data.object, event.type === 'customer.subscription.deleted');
      break;
    case 'charge.dispute.funds_withdrawn':
    case 'charge.dispute.funds_reinstated':
      status = await disputeReported(app, event, event.data.object, event.type === 'charge.dispute.funds_withdrawn');
      break;
    case 'invoice.paid':
      status = await invoicePaid(app, event, event.data.object as unknown as Fields);
      break;
    case 'invoice.payment_failed':
      status = await invoiceFailed(app, event, event.data.object as unknown as Fields);
      break;
    default:
      status = 'ignored';
  }
  return { status };
};
