// adminManageSubscription and getMySubscription (README "Subscriptions"): plans from the configuration, the wallet
// resolved like the admin money routes (the user's own, or with team_id a team the user is a member
// of). The renewals are the worker's job (workers/subscriptions.ts); the answer is the view shared
// with adminUserInfo (subscription-view.ts).
import type { Handler } from './types.ts';
import type { App } from '../lib/context.ts';
import { ConflictError, ValidationFailedError } from '../lib/errors.ts';
import type { SubscriptionPlan } from '../lib/subscription-plans.ts';
import {
  activateSubscription, cancelSubscription, changeSubscription, liveStripeSubscriptionsOf, stripeSubscriptionEnded,
} from '../db/subscriptions.ts';
import { recordStripeCancellation } from '../db/stripe-cancellations.ts';
import { endStripeSubscription, startStripeCancellation } from '../workers/stripe-cancellations.ts';
import { walletFor } from './admin.ts';
import { subscriptionView } from './subscription-view.ts';

const MAX_FIRST_PERIOD_MS = 400 * 86_400_000;

function planNamed(app: App, name: string | undefined): SubscriptionPlan {
  if (name === undefined) throw new ValidationFailedError([{ loc: ['body', 'plan'], msg: 'Field required for activate and change', type: 'missing' }]);
  const plan = app.config.subscriptions.plans.get(name);
  if (!plan) {
    const known = [...app.config.subscriptions.plans.keys()].join(', ');
    throw new ValidationFailedError([{ loc: ['body', 'plan'], msg: `Unknown plan; the configured plans are ${known}`, type: 'value_error' }]);
  }
  return plan;
}

function firstPeriodEnd(at: string | undefined, now: number): number | undefined {
  if (at === undefined) return undefined;
  const end = Date.parse(at);
  if (!(end > now) || end - now > MAX_FIRST_PERIOD_MS) {
    throw new ValidationFailedError([{ loc: ['body', 'current_period_end'], msg: 'Must be in the future and at most 400 days away', type: 'value_error' }]);
  }
  return end;
}

/**
 * GET /app/subscription[?team_id=]: the paying wallet's subscription (the caller's own, or the
 * team's with read_balance), the same view adminManageSubscription answers.
 */
export const getMySubscription: Handler<'getMySubscription'> = async ({ app, caller }) => subscriptionView(app, caller.owner);

/** POST /auth/admin_manage_subscription */
export const adminManageSubscription: Handler<'adminManageSubscription'> = async ({ app, query, body, audit }) => {
  const { payer } = await walletFor(app, body.email, query.team_id, audit);
  const now = app.clock();
  if (body.action !== 'activate' && body.current_period_end !== undefined) {
    throw new ValidationFailedError([{ loc: ['body', 'current_period_end'], msg: 'Only with activate', type: 'value_error' }]);
  }
  if (body.action === 'activate') {
    const plan = planNamed(app, body.plan);
    const out = await activateSubscription(app.db, payer, plan, firstPeriodEnd(body.current_period_end, now), now);
    if (out.outcome === 'already-active') throw new ConflictError('this wallet already has an active subscription: use "change" to switch plans, or "cancel" first');
    if (out.outcome === 'wallet-gone') throw new ConflictError('the team (or account) was deleted: its wallet cannot be credited');
    // the plan is renewed on the clock from now: a Stripe subscription of an earlier checkout of
    // this wallet still live at Stripe would charge every period for nothing the gateway grants
    // (recorded for cancelling once the activation has committed; the answer does not wait for Stripe)
    for (const sub of await liveStripeSubscriptionsOf(app.db, payer)) {
      await endStripeSubscription(app, sub, payer, 'an administrator activated a plan by hand on its wallet, which no Stripe subscription pays for');
    }
  } else if (body.action === 'change') {
    const out = await changeSubscription(app.db, payer, planNamed(app, body.plan), now);
    if (out.outcome !== 'ok') throw new ConflictError('this wallet has no active subscription to change: use "activate"');
  } else {
    // a plan bought through Stripe: Stripe would go on charging for it every period. Its
    // cancellation at Stripe is recorded with the cancel, and tried after the answer, which does
    // not wait for Stripe (it may take a minute to fail); the subscription job tries it again
    const { out, stripeSub } = await app.db.transaction(async (trx) => {
      const cancelled = await cancelSubscription(trx, payer, now);
      const sub = cancelled.outcome === 'ok' ? cancelled.subscription.stripeSubscriptionId : null;
      const toEnd = sub !== null && !(await stripeSubscriptionEnded(trx, sub)) ? sub : null;
      if (toEnd !== null) await recordStripeCancellation(trx, toEnd, payer, 'its plan was cancelled on the gateway by an administrator', now);
      return { out: cancelled, stripeSub: toEnd };
    });
    if (out.outcome !== 'ok') throw new ConflictError('this wallet has no active subscription to cancel');
    if (stripeSub !== null) startStripeCancellation(app, stripeSub, payer);
  }
  return subscriptionView(app, payer);
};
