// Subscriptions (README "Subscriptions"): one row per wallet (a user's or a team's) with its plan
// and current period, and each period's expiring grant (credit_grants + a `subscription` ledger
// row). The renewal job moves a due period forward with a conditional UPDATE of the subscription
// row and grants in the same transaction, so of several workers renewing at once exactly one
// grants; the unique (subscription_id, period_start) of credit_grants stands behind it. The expiry
// sweep removes grant credit whose time has come (`expiry` ledger rows), never purchased credit
// and never credit held by running predictions. A plan bought through Stripe (its row names the
// Stripe subscription whose checkout started it) is not renewed by the job: each later period is
// granted when Stripe reports that period's invoice paid (grantStripePeriod). While its Stripe
// subscription is past due (or unpaid, incomplete, paused) it is `held` (the `status` column), which the
// API shows as active (docs/operating/billing.md "Renewals").
import type { Knex } from 'knex';
import { affected, num, numOrNull } from './knex.ts';
import { isDuplicateKey } from './errors.ts';
import { withLockRetry } from './retry.ts';
import { appendLedger, walletOf } from './wallet/ledger.ts';
import { creditWallet, lockLiveWallet, lockWallet } from './wallet/moves.ts';
import type { Owner } from '../lib/caller.ts';
import { grantAdded, recountGrants } from './wallet/grants.ts';
import { ownerKey } from '../lib/caller.ts';
import { firstPeriodEnd, nextPeriodEnd } from '../lib/subscription-plans.ts';
import type { SubscriptionPlan, SubscriptionPlans } from '../lib/subscription-plans.ts';

export interface Subscription {
  id: number;
  userId: number;
  teamId: number | null;
  plan: string;
  nextPlan: string | null;
  status: 'active' | 'cancelled';
  /** an active plan whose Stripe subscription is past due (or unpaid, incomplete, paused) */
  held: boolean;
  periodAnchor: number;
  currentPeriodStart: number;
  currentPeriodEnd: number;
  cancelledAt: number | null;
  /** the Stripe subscription whose paid checkout started the plan; null for a plan an admin activated (renewed on the clock) */
  stripeSubscriptionId: string | null;
}

type Row = Record<string, unknown>;

/** The `status` of an active plan held back by its Stripe subscription's payment state; to the API it is `active`. */
const HELD = 'held';
/** The `status` values of a plan that has not ended. */
const LIVE = ['active', HELD];

function fromRow(r: Row): Subscription {
  return {
    id: num(r.id), userId: num(r.user_id), teamId: numOrNull(r.team_id), plan: String(r.plan), nextPlan: (r.next_plan as string | null) ?? null,
    status: LIVE.includes(String(r.status)) ? 'active' : 'cancelled', held: r.status === HELD, periodAnchor: num(r.period_anchor),
    currentPeriodStart: num(r.current_period_start), currentPeriodEnd: num(r.current_period_end), cancelledAt: numOrNull(r.cancelled_at),
    stripeSubscriptionId: (r.stripe_subscription_id as string | null | undefined) ?? null,
  };
}

const payerOf = (s: { userId: number; teamId: number | null }): Owner => ({ userId: s.userId, teamId: s.teamId });

/** The wallet's subscription (active or cancelled), undefined when it never had one. */
export async function findSubscription(db: Knex, payer: Owner): Promise<Subscription | undefined> {
  const r = await db('subscriptions').where('wallet', ownerKey(payer)).first<Row | undefined>();
  return r ? fromRow(r) : undefined;
}

/** Grant credit of the wallet not yet spent or expired (what the sweep has not taken). */
export async function grantRemaining(db: Knex, payer: Owner, now: number): Promise<number> {
  const r = await db('credit_grants').where('wallet', ownerKey(payer)).andWhere('remaining', '>', 0).andWhere('expires_at', '>', now)
    .sum({ total: 'remaining' }).first<{ total: number | string | null }>();
  return num(r?.total ?? 0);
}

/**
 * One period's grant, in the caller's transaction: the `credit_grants` row and the wallet credit
 * with its `subscription` ledger row. Without rollover the grant ends with its period; with a
 * `rollover_cap` what is above the cap expires at the period's end and the rest one period later.
 */
async function grantPeriod(trx: Knex, sub: { id: number; userId: number; teamId: number | null; periodAnchor: number }, plan: SubscriptionPlan, start: number, end: number, now: number): Promise<void> {
  const payer = payerOf(sub);
  const expiresAt = plan.rolloverCap > 0 ? nextPeriodEnd(plan.period, sub.periodAnchor, end) : end;
  // the wallet row's lock first, like every other move, then the grant: one lock order for all
  await creditWallet(trx, payer, plan.credits, 'subscription', `${plan.name} plan: credit for ${new Date(start).toISOString().slice(0, 10)} to ${new Date(end).toISOString().slice(0, 10)}`, now);
  await trx('credit_grants').insert({
    wallet: ownerKey(payer), user_id: payer.userId, team_id: payer.teamId, subscription_id: sub.id, plan: plan.name, period_start: start,
    amount: plan.credits, remaining: plan.credits, rollover_cap: plan.rolloverCap, cap_at: end, expires_at: expiresAt, created_at: now,
  });
  if (plan.credits > 0) await grantAdded(trx, payer);
}

export type SetOutcome = { outcome: 'ok'; subscription: Subscription } | { outcome: 'already-active' | 'not-active' | 'wallet-gone'; subscription?: Subscription };

/**
 * A deleted team, or an erased account (README "Deleting an account"), is credited no more. Read
 * under the wallet row's lock: a deletion committed after a plain read said it was live would
 * otherwise get the grant, and the deletion waits for this transaction (then refuses a team that
 * holds credit).
 */
async function walletGone(trx: Knex, payer: Owner): Promise<boolean> {
  return !(await lockLiveWallet(trx, payer));
}

/** A paid subscription Checkout Session, as the Stripe webhook reports it. */
export interface SubscriptionCheckout {
  sessionId: string;
  stripeSubscriptionId: string | null;
  customerId: string | null;
  /** what Stripe charged, minor units */
  amount: number;
  currency: string;
  /** when Stripe created the event reporting it paid, epoch seconds: its subscription's events created before it are out of date */
  eventAt?: number;
}

export type CheckoutOutcome =
  | SetOutcome
  /** this Checkout Session was seen before (a redelivery): nothing moved; `was` is what it did then */
  | { outcome: 'seen'; was: 'started' | 'unapplied' }
  /** the gateway had already seen this session's Stripe subscription deleted (events out of order): recorded unapplied, nothing started */
  | { outcome: 'subscription-ended' };

/**
 * Starts a subscription now (a new one, or again after a cancellation) and grants its first period
 * at once, in one transaction. `periodEnd`: the first period's end (later ones follow the plan's
 * period from it); default one period from now. An active subscription is left alone.
 */
export async function activateSubscription(db: Knex, payer: Owner, plan: SubscriptionPlan, periodEnd: number | undefined, now: number): Promise<SetOutcome> {
  return await activate(db, payer, plan, periodEnd, now, undefined) as SetOutcome;
}

/**
 * activateSubscription for a paid subscription Checkout Session, recorded once per session
 * (`stripe_subscription_checkouts`) in the same transaction: `started` when it started the plan,
 * `unapplied` when the wallet's plan was already active or the wallet is gone (the customer paid
 * and nothing was granted: the caller tells the operator). A redelivered session is `seen`.
 */
export async function activateFromCheckout(db: Knex, payer: Owner, plan: SubscriptionPlan, checkout: SubscriptionCheckout, now: number): Promise<CheckoutOutcome> {
  return activate(db, payer, plan, undefined, now, checkout);
}

async function activate(db: Knex, payer: Owner, plan: SubscriptionPlan, periodEnd: number | undefined, now: number, checkout: SubscriptionCheckout | undefined): Promise<CheckoutOutcome> {
  const key = ownerKey(payer);
  const end = periodEnd ?? firstPeriodEnd(plan.period, now);
  const record = (trx: Knex, outcome: 'started' | 'unapplied') => checkout && trx('stripe_subscription_checkouts').insert({
    checkout_session_id: checkout.sessionId, stripe_subscription_id: checkout.stripeSubscriptionId, customer_id: checkout.customerId,
    user_id: payer.userId, team_id: payer.teamId, plan: plan.name, amount: checkout.amount, currency: checkout.currency, outcome, created_at: now,
  });
  // A duplicate key is a concurrent activation of the same wallet, or a concurrent delivery of the
  // same session, that committed first: the next attempt sees it (the active plan, or the session).
  for (let attempt = 1; ; attempt++) {
    try {
      return await withLockRetry(() => db.transaction(async (trx): Promise<CheckoutOutcome> => {
        if (checkout) {
          const seen = await trx('stripe_subscription_checkouts').where('checkout_session_id', checkout.sessionId).first<{ outcome: string } | undefined>('outcome');
          if (seen) return { outcome: 'seen', was: seen.outcome === 'started' ? 'started' : 'unapplied' };
        }
        if (checkout?.stripeSubscriptionId && await stripeSubscriptionEnded(trx, checkout.stripeSubscriptionId)) {
          await record(trx, 'unapplied');
          return { outcome: 'subscription-ended' };
        }
        const existing = await trx('subscriptions').where('wallet', key).forUpdate().first<Row | undefined>();
        if (existing && LIVE.includes(String(existing.status))) {
          await record(trx, 'unapplied');
          return { outcome: 'already-active', subscription: fromRow(existing) };
        }
        if (await walletGone(trx, payer)) {
          await record(trx, 'unapplied');
          return { outcome: 'wallet-gone' };
        }
        const fields = {
          // months count from here: the activation, or the first period's end when one was given
          user_id: payer.userId, team_id: payer.teamId, plan: plan.name, next_plan: null, status: 'active', period_anchor: periodEnd ?? now,
          current_period_start: now, current_period_end: end, cancelled_at: null, updated_at: now,
          // the Stripe subscription that pays for it from now on (its invoices grant the periods); null: the clock renews it
          stripe_subscription_id: checkout?.stripeSubscriptionId ?? null, stripe_event_at: checkout?.stripeSubscriptionId ? checkout.eventAt ?? null : null,
        };
        let id: number;
        if (existing) {
          id = num(existing.id);
          const n = await trx('subscriptions').where({ id, status: 'cancelled' }).update(fields);
          if (affected(n) !== 1) {
            await record(trx, 'unapplied');
            return { outcome: 'already-active' };
          }
        } else {
          const [inserted] = await trx('subscriptions').insert({ wallet: key, ...fields, created_at: now });
          id = num(inserted);
        }
        await record(trx, 'started');
        await grantPeriod(trx, { id, ...payer, periodAnchor: periodEnd ?? now }, plan, now, end, now);
        return { outcome: 'ok', subscription: fromRow(await trx('subscriptions').where('id', id).first<Row>()) };
      }));
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      if (attempt >= 3) {
        if (checkout) throw err;
        return { outcome: 'already-active' };
      }
    }
  }
}

/**
 * Records that Stripe reported a subscription ended (deleted), once: a row of
 * `stripe_subscription_checkouts` with `outcome = 'ended'` and, for its unique session id,
 * `ended:<subscription id>` (no Checkout Session id has that form). A paid checkout of it delivered
 * later starts nothing, and its other late events change nothing.
 */
export async function recordStripeSubscriptionEnded(db: Knex, stripeSubscriptionId: string, payer: Owner, plan: string, customerId: string | null, now: number): Promise<void> {
  try {
    await db('stripe_subscription_checkouts').insert({
      checkout_session_id: `ended:${stripeSubscriptionId}`.slice(0, 255), stripe_subscription_id: stripeSubscriptionId, customer_id: customerId,
      user_id: payer.userId, team_id: payer.teamId, plan, amount: 0, currency: '', outcome: 'ended', created_at: now,
    });
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
  }
}

/** Whether Stripe reported this subscription ended (recordStripeSubscriptionEnded). */
export async function stripeSubscriptionEnded(db: Knex, stripeSubscriptionId: string): Promise<boolean> {
  return (await db('stripe_subscription_checkouts').where({ stripe_subscription_id: stripeSubscriptionId, outcome: 'ended' }).first('id')) !== undefined;
}

/**
 * Every Stripe subscription a checkout of the wallet started or paid for unapplied that Stripe has
 * not reported ended: what Stripe may still charge for this wallet (an erased account's, workers/retention.ts,
 * and a deleted team's, handlers/teams.ts, are cancelled).
 */
export async function liveStripeSubscriptionsOf(db: Knex, payer: Owner): Promise<string[]> {
  const ended = db('stripe_subscription_checkouts').where('outcome', 'ended').whereNotNull('stripe_subscription_id').select('stripe_subscription_id');
  const q = db('stripe_subscription_checkouts').whereIn('outcome', ['started', 'unapplied']).whereNotNull('stripe_subscription_id').whereNotIn('stripe_subscription_id', ended);
  if (payer.teamId === null) q.where('user_id', payer.userId).whereNull('team_id');
  else q.where('team_id', payer.teamId);
  return await q.distinct('stripe_subscription_id').pluck('stripe_subscription_id') as string[];
}

/** Whether a Stripe subscription was bought by a checkout that started nothing (its events leave the wallet's plan alone). */
export async function isUnappliedSubscription(db: Knex, stripeSubscriptionId: string): Promise<boolean> {
  const row = await db('stripe_subscription_checkouts').where({ stripe_subscription_id: stripeSubscriptionId, outcome: 'unapplied' }).first('id');
  return row !== undefined;
}

/**
 * The Stripe subscription of the checkout that last started the wallet's plan; null when that
 * checkout named none, undefined when no checkout ever started one.
 */
export async function startedStripeSubscription(db: Knex, payer: Owner): Promise<string | null | undefined> {
  const q = db('stripe_subscription_checkouts').where('outcome', 'started').orderBy('id', 'desc');
  if (payer.teamId === null) q.where('user_id', payer.userId).whereNull('team_id');
  else q.where('team_id', payer.teamId);
  const row = await q.first<{ stripe_subscription_id: string | null } | undefined>('stripe_subscription_id');
  return row ? row.stripe_subscription_id : undefined;
}

/**
 * A change of plan takes effect at the next renewal: the current period and its grant stay as they
 * are. Changing back to the current plan drops a pending change. With `order` (a Stripe event's),
 * not when the event is older than the newest one applied to the plan, which it then becomes.
 */
export async function changeSubscription(db: Knex, payer: Owner, plan: SubscriptionPlan, now: number, order?: StripeEventOrder): Promise<SetOutcome> {
  const q = db('subscriptions').where({ wallet: ownerKey(payer) }).whereIn('status', LIVE);
  // a Stripe event's change: the order check and the write are this one statement, so an older
  // update delivered at the same moment as a newer one, and written after it, changes nothing
  if (order) q.where(notNewerThan(order.at));
  const n = await q.update({
    next_plan: db.raw('case when plan = ? then null else ? end', [plan.name, plan.name]), user_id: payer.userId, updated_at: now,
    ...(order ? { stripe_event_at: order.at } : {}),
  });
  const sub = await findSubscription(db, payer);
  if (affected(n) !== 1 || !sub) return { outcome: 'not-active', ...(sub ? { subscription: sub } : {}) };
  return { outcome: 'ok', subscription: sub };
}

/** Cancels at once: no further grants; credit already granted stays until it expires. */
export async function cancelSubscription(db: Knex, payer: Owner, now: number): Promise<SetOutcome> {
  const n = await db('subscriptions').where({ wallet: ownerKey(payer) }).whereIn('status', LIVE)
    .update({ status: 'cancelled', next_plan: null, cancelled_at: now, user_id: payer.userId, updated_at: now });
  const sub = await findSubscription(db, payer);
  if (affected(n) !== 1 || !sub) return { outcome: 'not-active', ...(sub ? { subscription: sub } : {}) };
  return { outcome: 'ok', subscription: sub };
}

/**
 * Where a Stripe event stands in the order of the plan's events: `at`, its `created` (epoch
 * seconds); `periodStart`, the start (epoch ms) of the period whose payment it reports owed, when
 * the event states it. An event older than the newest one applied to the plan changes nothing.
 */
export interface StripeEventOrder {
  at: number;
  periodStart?: number;
}

/** Rows whose newest applied Stripe event is not newer than `at`. */
const notNewerThan = (at: number) => (q: Knex.QueryBuilder) => { void q.whereNull('stripe_event_at').orWhere('stripe_event_at', '<=', at); };

/**
 * The plan's Stripe subscription is past due (or unpaid, incomplete, paused): the active plan is held.
 * False when it is not active (held already, or ended), or `order` shows the event out of date: an
 * event older than the newest one applied, or one about a period no later than the plan's current
 * one (a period that was paid, since the plan moved to it).
 */
export async function holdSubscription(db: Knex, payer: Owner, now: number, order?: StripeEventOrder): Promise<boolean> {
  const q = db('subscriptions').where({ wallet: ownerKey(payer), status: 'active' });
  if (order) {
    q.where(notNewerThan(order.at));
    if (order.periodStart !== undefined) q.where('current_period_start', '<', order.periodStart);
  }
  return affected(await q.update({ status: HELD, updated_at: now, ...(order ? { stripe_event_at: order.at } : {}) })) === 1;
}

/**
 * Stripe reports the held plan's subscription paid up (active) again: the plan is active. No period
 * is granted here: a period's credit comes with Stripe's report of its invoice paid
 * (grantStripePeriod). False when it was not held, or the event is older than the newest applied.
 */
export async function resumeSubscription(db: Knex, payer: Owner, now: number, order?: StripeEventOrder): Promise<boolean> {
  const q = db('subscriptions').where({ wallet: ownerKey(payer), status: HELD });
  if (order) q.where(notNewerThan(order.at));
  return affected(await q.update({ status: 'active', updated_at: now, ...(order ? { stripe_event_at: order.at } : {}) })) === 1;
}

/** Whether a Stripe event created at `at` (epoch seconds) is older than the newest one applied to the wallet's plan. */
export async function stripeEventOutOfDate(db: Knex, payer: Owner, at: number): Promise<boolean> {
  const row = await db('subscriptions').where('wallet', ownerKey(payer)).first<{ stripe_event_at: number | string | null } | undefined>('stripe_event_at');
  return row !== undefined && row.stripe_event_at !== null && num(row.stripe_event_at) > at;
}

/** Records a Stripe event created at `at` as applied to the wallet's plan (the newest one stays). */
export async function stripeEventApplied(db: Knex, payer: Owner, at: number): Promise<void> {
  await db('subscriptions').where('wallet', ownerKey(payer)).whereIn('status', LIVE).where((q) => { void q.whereNull('stripe_event_at').orWhere('stripe_event_at', '<', at); })
    .update({ stripe_event_at: at });
}

/** A period of a Stripe subscription, epoch ms, as its paid invoice states it; `end` undefined: one plan period from `start`. */
export interface StripePeriod {
  start: number;
  end?: number;
  /** the plan whose Stripe price the invoice bills for the period, when a declared plan has it */
  plan?: string;
}

export type StripePeriodOutcome =
  /** the period was granted, and the plan moved to it (active again if it was held) */
  | { outcome: 'renewed'; subscription: Subscription }
  /** not a period after the plan's current one (a redelivery, the first period its checkout granted, an older invoice): nothing moved */
  | { outcome: 'not-new'; subscription: Subscription }
  /** no plan that has not ended was started by this Stripe subscription */
  | { outcome: 'no-plan' }
  /** the plan the period renews with is no longer declared: nothing granted */
  | { outcome: 'unknown-plan'; plan: string; subscription: Subscription }
  /** the wallet is gone: the plan was cancelled instead */
  | { outcome: 'cancelled'; payer: Owner; plan: string };

/**
 * Stripe reports a period of the plan's Stripe subscription paid: if it starts after the plan's
 * current period, the plan moves to it (with the plan the invoice billed, else with a pending
 * change of plan) and its credit is granted,
 * in one transaction guarded by the current period's start, so each period is granted once
 * however often, and in whatever order, its invoice is reported (the unique (subscription_id,
 * period_start) of credit_grants stands behind it). The plan's months count from the period's start.
 */
export async function grantStripePeriod(db: Knex, stripeSubscriptionId: string, plans: SubscriptionPlans, period: StripePeriod, eventAt: number, now: number): Promise<StripePeriodOutcome> {
  try {
    return await withLockRetry(() => db.transaction(async (trx): Promise<StripePeriodOutcome> => {
      const row = await trx('subscriptions').where('stripe_subscription_id', stripeSubscriptionId).whereIn('status', LIVE).forUpdate().first<Row | undefined>();
      if (!row) return { outcome: 'no-plan' };
      const sub = fromRow(row);
      if (period.start <= sub.currentPeriodStart) return { outcome: 'not-new', subscription: sub };
      // the plan the invoice billed: Stripe's price wins over the change of plan recorded here, whose
      // customer.subscription.updated may come after the invoice (a change that restarts the billing cycle)
      const planName = period.plan ?? sub.nextPlan ?? sub.plan;
      const plan = plans.get(planName);
      if (!plan) return { outcome: 'unknown-plan', plan: planName, subscription: sub };
      const guard = { id: sub.id, current_period_start: sub.currentPeriodStart };
      if (await walletGone(trx, payerOf(sub))) {
        await trx('subscriptions').where(guard).update({ status: 'cancelled', next_plan: null, cancelled_at: now, updated_at: now });
        return { outcome: 'cancelled', payer: payerOf(sub), plan: sub.plan };
      }
      const start = period.start;
      const computed = nextPeriodEnd(plan.period, start, start);
      const end = period.end !== undefined && period.end > start ? period.end : computed;
      const n = await trx('subscriptions').where(guard).whereIn('status', LIVE)
        .update({
          // active again, unless a newer event reported a later payment owed
          status: trx.raw('case when status = ? and stripe_event_at > ? then ? else ? end', [HELD, eventAt, HELD, 'active']),
          plan: plan.name, next_plan: null, period_anchor: start, current_period_start: start, current_period_end: end, updated_at: now,
          stripe_event_at: trx.raw('case when stripe_event_at is null or stripe_event_at < ? then ? else stripe_event_at end', [eventAt, eventAt]),
        });
      if (affected(n) !== 1) return { outcome: 'not-new', subscription: sub };
      await grantPeriod(trx, { ...sub, periodAnchor: start }, plan, start, end, now);
      return { outcome: 'renewed', subscription: fromRow(await trx('subscriptions').where('id', sub.id).first<Row>()) };
    }));
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    const sub = await db('subscriptions').where('stripe_subscription_id', stripeSubscriptionId).first<Row | undefined>();
    return sub ? { outcome: 'not-new', subscription: fromRow(sub) } : { outcome: 'no-plan' };
  }
}

/** The plan, cancelled, whose checkout this Stripe subscription started (a wallet's plan cancelled on the gateway while Stripe still charges); undefined when none. */
export async function cancelledStripePlan(db: Knex, stripeSubscriptionId: string): Promise<Subscription | undefined> {
  const row = await db('subscriptions').where({ stripe_subscription_id: stripeSubscriptionId, status: 'cancelled' }).first<Row | undefined>();
  return row ? fromRow(row) : undefined;
}

/** The wallet whose plan, not ended, this Stripe subscription started; undefined when none. */
export async function walletOfStripePlan(db: Knex, stripeSubscriptionId: string): Promise<Owner | undefined> {
  const row = await db('subscriptions').where('stripe_subscription_id', stripeSubscriptionId).whereIn('status', LIVE).first<Row | undefined>('user_id', 'team_id');
  return row && { userId: num(row.user_id), teamId: numOrNull(row.team_id) };
}

export const SUBSCRIPTION_BATCH = 200;

export interface RenewalCounts {
  /** periods granted */
  renewed: number;
  /** due subscriptions whose plan the configuration no longer declares (not renewed, logged) */
  unknownPlan: string[];
  /** subscriptions of deleted teams and erased accounts, cancelled instead of renewed */
  cancelled: number;
}

/**
 * Renews every active subscription an admin activated (not one a Stripe subscription pays for,
 * nor a held one) whose period has ended: the next period (or, after a gap in
 * which no job ran, the period containing `now`; the missed ones are not granted afterwards) with
 * its grant, each in one transaction guarded by the conditional UPDATE of the period.
 */
export async function renewDue(db: Knex, plans: SubscriptionPlans, now: number): Promise<RenewalCounts> {
  const counts: RenewalCounts = { renewed: 0, unknownPlan: [], cancelled: 0 };
  let afterId = 0;
  for (;;) {
    const rows = await db('subscriptions').where('status', 'active').andWhere('current_period_end', '<=', now).andWhere('id', '>', afterId)
      .orderBy('id').limit(SUBSCRIPTION_BATCH) as Row[];
    for (const r of rows) {
      const sub = fromRow(r);
      afterId = sub.id;
      // a plan a Stripe subscription pays for is granted when Stripe reports the period paid
      // (grantStripePeriod), never here; only a gone wallet's is cancelled, as below
      if (sub.stripeSubscriptionId !== null) {
        if (await cancelGone(db, sub, now)) counts.cancelled++;
        continue;
      }
      const planName = sub.nextPlan ?? sub.plan;
      const plan = plans.get(planName);
      if (!plan) { counts.unknownPlan.push(planName); continue; }
      const outcome = await renewOne(db, sub, plan, now);
      if (outcome === 'renewed') counts.renewed++;
      else if (outcome === 'cancelled') counts.cancelled++;
    }
    if (rows.length < SUBSCRIPTION_BATCH) return counts;
  }
}

/** Cancels the plan of a deleted team or an erased account (still as read); false when its wallet is there, or it changed meanwhile. */
async function cancelGone(db: Knex, sub: Subscription, now: number): Promise<boolean> {
  return withLockRetry(() => db.transaction(async (trx) => {
    if (!(await walletGone(trx, payerOf(sub)))) return false;
    const n = await trx('subscriptions').where({ id: sub.id, status: 'active', current_period_end: sub.currentPeriodEnd })
      .update({ status: 'cancelled', next_plan: null, cancelled_at: now, updated_at: now });
    return affected(n) === 1;
  }));
}

async function renewOne(db: Knex, sub: Subscription, plan: SubscriptionPlan, now: number): Promise<'renewed' | 'cancelled' | 'lost'> {
  // a changed plan counts its periods from the renewal
  const anchor = plan.name === sub.plan ? sub.periodAnchor : sub.currentPeriodEnd;
  let start = sub.currentPeriodEnd;
  let end = nextPeriodEnd(plan.period, anchor, start);
  while (end <= now) { start = end; end = nextPeriodEnd(plan.period, anchor, start); }
  try {
    return await withLockRetry(() => db.transaction(async (trx) => {
      const guard = { id: sub.id, status: 'active', current_period_end: sub.currentPeriodEnd };
      if (await walletGone(trx, payerOf(sub))) {
        const n = await trx('subscriptions').where(guard).update({ status: 'cancelled', next_plan: null, cancelled_at: now, updated_at: now });
        return affected(n) === 1 ? 'cancelled' : 'lost';
      }
      const n = await trx('subscriptions').where(guard)
        .update({ plan: plan.name, next_plan: null, period_anchor: anchor, current_period_start: start, current_period_end: end, updated_at: now });
      // another worker renewed it (or it was cancelled) in the meantime
      if (affected(n) !== 1) return 'lost';
      await grantPeriod(trx, { ...sub, periodAnchor: anchor }, plan, start, end, now);
      return 'renewed';
    }));
  } catch (err) {
    if (isDuplicateKey(err)) return 'lost';
    throw err;
  }
}

export interface ExpiryCounts {
  /** wallets swept */
  wallets: number;
  /** credits expired in all */
  credits: number;
}

/**
 * Expires grant credit whose time has come: all of a grant at `expires_at`, what is above its
 * `rollover_cap` at `cap_at` (its period's end). Per wallet, under the wallet's lock: held credit
 * is counted as the soonest-expiring grants' (the charge of a running prediction will spend them
 * first), so only spendable grant credit expires; what a running prediction holds is charged, or,
 * when released, expires at the next sweep. Each expiry is an `expiry` ledger row of -n.
 */
export async function expireDue(db: Knex, now: number): Promise<ExpiryCounts> {
  const rows = await db('credit_grants').where('remaining', '>', 0).andWhere('cap_at', '<=', now)
    .andWhere((q) => q.where('expires_at', '<=', now).orWhereRaw('remaining > rollover_cap'))
    .orderBy('id').select('wallet', 'user_id', 'team_id') as Row[];
  const wallets = new Map<string, Owner>();
  for (const r of rows) if (!wallets.has(String(r.wallet))) wallets.set(String(r.wallet), { userId: num(r.user_id), teamId: numOrNull(r.team_id) });
  let credits = 0;
  for (const payer of wallets.values()) credits += await expireWallet(db, payer, now);
  return { wallets: wallets.size, credits };
}

async function expireWallet(db: Knex, payer: Owner, now: number): Promise<number> {
  return withLockRetry(() => db.transaction(async (trx) => {
    // the lock first: on MariaDB the reads below then see every move committed before it
    await lockWallet(trx, payer);
    const { balance, held } = await walletOf(trx, payer);
    const grants = await trx('credit_grants').where('wallet', ownerKey(payer)).andWhere('remaining', '>', 0)
      .orderBy('expires_at').orderBy('id').forUpdate().select('id', 'plan', 'remaining', 'rollover_cap', 'cap_at', 'expires_at', 'period_start') as Row[];
    let heldLeft = held;
    let spendable = Math.max(0, balance);
    let expired = 0;
    for (const g of grants) {
      const remaining = num(g.remaining);
      const onHold = Math.min(remaining, heldLeft);
      heldLeft -= onHold;
      const due = num(g.expires_at) <= now ? remaining : num(g.cap_at) <= now ? Math.max(0, remaining - num(g.rollover_cap)) : 0;
      const take = Math.min(due, remaining - onHold, spendable);
      if (take <= 0) continue;
      spendable -= take;
      expired += take;
      await trx('credit_grants').where('id', num(g.id)).update({ remaining: trx.raw('remaining - ?', [take]) });
      await trx(payer.teamId === null ? 'users' : 'teams').where('id', payer.teamId ?? payer.userId).update({ balance: trx.raw('balance - ?', [take]) });
      const what = num(g.expires_at) <= now ? 'expired' : 'above the rollover cap expired';
      await appendLedger(trx, payer, {
        kind: 'expiry', amount: -take, heldChange: 0, now,
        description: `${String(g.plan)} plan credit of ${new Date(num(g.period_start)).toISOString().slice(0, 10)} ${what}`,
      });
    }
    if (expired > 0) await recountGrants(trx, payer);
    return expired;
  }));
}
