// Self-service billing (docs/api/dashboard.md "Buying credit"): a Stripe Checkout Session for an
// amount of credit or a subscription plan, for the caller's own wallet or a team's (`top_up`);
// the wallet's purchases and Stripe invoices; Stripe's billing portal for its subscription and
// payment details. Nothing is credited here: the Stripe webhook (handlers/stripe.ts) credits a
// paid checkout once, whatever the browser does after paying.
import type { Handler, OperationContext } from './types.ts';
import type { App, StudioContext } from '../lib/context.ts';
import { ConflictError, ForbiddenError, ValidationFailedError } from '../lib/errors.ts';
import { creditsForPayment, stripeCall, stripeClient, listData } from '../lib/stripe.ts';
import type { Stripe } from '../lib/stripe.ts';
import { findUserById } from '../db/users.ts';
import { walletCustomerOf, walletPurchases } from '../db/stripe-payments.ts';
import { findSubscription } from '../db/subscriptions.ts';
import type { Owner } from '../lib/caller.ts';

/** Where the browser comes back to: this storefront or the dashboard, on the address it is served at. */
function appUrl(app: App, studio: StudioContext | undefined, host: string): string {
  const { publicUrl } = app.config;
  // a studio found by its domain is served there (the Host matched one of its registered domains)
  if (studio?.by === 'domain') return `${new URL(publicUrl).protocol}//${host}/dashboard`;
  return studio ? `${publicUrl}/s/${studio.slug}` : `${publicUrl}/dashboard`;
}

/** On a studio's storefront only its users' own wallets are sold credit, and only when they pay for their runs. */
function assertMaySell(studio: StudioContext | undefined): void {
  if (studio && studio.payerMode !== 'end_user_pays') throw new ForbiddenError('this studio pays for its users\' runs: there is no credit to buy here');
}

function metadataOf(payer: Owner, studio: StudioContext | undefined, extra: Record<string, string>): Record<string, string> {
  return { user_id: String(payer.userId), ...(payer.teamId === null ? {} : { team_id: String(payer.teamId) }), ...(studio ? { studio_id: String(studio.id) } : {}), ...extra };
}

/** POST /app/checkout_sessions: a Checkout Session for credit (`amount`) or a plan (`plan`). */
export const createCheckoutSession: Handler<'createCheckoutSession'> = async (ctx) => {
  const { app, caller, body, studio } = ctx;
  assertMaySell(studio);
  const stripe = await stripeClient(app.config.stripe);
  const payer = caller.owner;
  const hasAmount = body.amount !== undefined;
  if (hasAmount === (body.plan !== undefined)) {
    throw new ValidationFailedError([{ loc: ['body', hasAmount ? 'plan' : 'amount'], msg: 'Send either amount (credit) or plan (a subscription), not both', type: 'value_error' }]);
  }
  const user = await findUserById(app.db, caller.userId);
  if (!user) throw new ConflictError('this account no longer exists');
  const customer = await walletCustomerOf(app.db, payer);
  const base = appUrl(app, studio, ctx.request.info.host);
  // the page it returns to waits for the purchase (or the plan) that this session pays for
  const kind = hasAmount ? '' : `&plan=${encodeURIComponent(body.plan!)}`;
  const urls = { success_url: `${base}?checkout=done${kind}&session_id={CHECKOUT_SESSION_ID}#/billing`, cancel_url: `${base}?checkout=cancelled#/billing` };
  const who = customer ? { customer } : { customer_email: user.email };
  let session: Stripe.Checkout.Session;
  if (hasAmount) {
    const amount = checkedAmount(app, body.amount!);
    const { currency } = app.config.stripe;
    const credits = creditsForPayment(app.config.stripe, amount, currency, undefined);
    if (credits === undefined) {
      // a large amount at a large rate: more than a wallet keeps exactly
      throw new ValidationFailedError([{ loc: ['body', 'amount'], msg: `Buys more than ${Number.MAX_SAFE_INTEGER} credits at this gateway's rate; choose a smaller amount`, type: 'value_error' }]);
    }
    const metadata = metadataOf(payer, studio, { credits: String(credits) });
    session = await stripeCall('checkout session', () => stripe.checkout.sessions.create({
      mode: 'payment', client_reference_id: String(caller.userId), metadata, payment_intent_data: { metadata },
      line_items: [{ quantity: 1, price_data: { currency, unit_amount: amount, product_data: { name: `${credits.toLocaleString('en-US')} credits` } } }],
      ...who, ...(customer ? {} : { customer_creation: 'always' as const }), ...urls,
    }));
  } else {
    const plan = app.config.subscriptions.plans.get(body.plan!);
    if (!plan?.stripePrice) {
      const sold = [...app.config.subscriptions.plans.values()].filter((p) => p.stripePrice).map((p) => p.name);
      throw new ValidationFailedError([{ loc: ['body', 'plan'], msg: sold.length ? `Not a plan sold here; choose one of ${sold.join(', ')}` : 'No plan is sold online on this gateway', type: 'value_error' }]);
    }
    const current = await findSubscription(app.db, payer);
    if (current?.status === 'active') throw new ConflictError(`this wallet already has the ${current.plan} plan: change or cancel it in the billing portal`);
    const metadata = metadataOf(payer, studio, { plan: plan.name });
    session = await stripeCall('checkout session', () => stripe.checkout.sessions.create({
      mode: 'subscription', client_reference_id: String(caller.userId), metadata, subscription_data: { metadata },
      line_items: [{ quantity: 1, price: plan.stripePrice! }], ...who, ...urls,
    }));
  }
  if (typeof session.url !== 'string') throw new ConflictError('Stripe did not answer a payment page for this checkout; try again');
  return { id: session.id, url: session.url };
};

function checkedAmount(app: App, amount: number): number {
  const { minAmount, maxAmount } = app.config.checkout;
  if (amount < minAmount || amount > maxAmount) {
    throw new ValidationFailedError([{ loc: ['body', 'amount'], msg: `Must be from ${minAmount} to ${maxAmount} (${app.config.stripe.currency}, minor units)`, type: 'value_error' }]);
  }
  return amount;
}

/** GET /app/purchases: the wallet's purchases, newest first, 25 a page (`before`: the last id of the previous page). */
export const listPurchases: Handler<'listPurchases'> = async ({ app, caller, query }) => {
  const page = await walletPurchases(app.db, caller.owner, 26, query.before);
  return {
    purchases: page.slice(0, 25).map((p) => ({
      id: p.id, checkout_session_id: p.checkoutSessionId, amount: p.amount, currency: p.currency, credits: p.credits,
      refunded_amount: p.refundedAmount, credits_removed: p.refundedCredits, created_at: new Date(p.createdAt).toISOString(),
    })),
    has_more: page.length > 25,
  };
};

/** POST /app/billing_portal_sessions: Stripe's billing portal for the wallet's customer (its subscription, cards, invoices). */
export const createBillingPortalSession: Handler<'createBillingPortalSession'> = async (ctx: OperationContext<'createBillingPortalSession'>) => {
  const { app, caller, studio } = ctx;
  assertMaySell(studio);
  const stripe = await stripeClient(app.config.stripe);
  const customer = await walletCustomerOf(app.db, caller.owner);
  if (!customer) throw new ConflictError('there is nothing to manage yet: the billing portal opens after a first purchase or plan');
  const portal = await stripeCall('customer', () => stripe.billingPortal.sessions.create({ customer, return_url: `${appUrl(app, studio, ctx.request.info.host)}#/billing` }));
  return { url: portal.url };
};

/** GET /app/invoices: the wallet customer's Stripe invoices, newest first (none before a first purchase, or without Stripe). */
export const listInvoices: Handler<'listInvoices'> = async ({ app, caller }) => {
  if (!app.config.stripe.secretKey) return { invoices: [] };
  const customer = await walletCustomerOf(app.db, caller.owner);
  if (!customer) return { invoices: [] };
  const stripe = await stripeClient(app.config.stripe);
  const list = listData(await stripeCall('customer', () => stripe.invoices.list({ customer, limit: 24 })));
  return {
    invoices: list.map((i) => ({
      id: i.id ?? '', number: i.number ?? null, status: i.status ?? null, amount_due: i.amount_due, amount_paid: i.amount_paid, currency: i.currency,
      created_at: new Date(i.created * 1000).toISOString(), hosted_invoice_url: i.hosted_invoice_url ?? null, invoice_pdf: i.invoice_pdf ?? null,
    })),
  };
};
