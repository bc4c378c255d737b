// A wallet's subscription as adminManageSubscription and adminUserInfo show it (README "Subscriptions").
import type { App } from '../lib/context.ts';
import { periodLabel } from '../lib/subscription-plans.ts';
import { findSubscription, grantRemaining } from '../db/subscriptions.ts';
import type { Owner } from '../lib/caller.ts';
import type { components } from '../spec/v1.generated.ts';

type SubscriptionView = components['schemas']['SubscriptionResponse'];

/** The wallet's subscription as the API shows it (`status: none` when it never had one). */
export async function subscriptionView(app: App, payer: Owner): Promise<SubscriptionView> {
  const now = app.clock();
  const [sub, remaining] = await Promise.all([findSubscription(app.db, payer), grantRemaining(app.db, payer, now)]);
  if (!sub) {
    return {
      user_id: payer.userId, team_id: payer.teamId, plan: null, next_plan: null, status: 'none', current_period_start: null, current_period_end: null,
      credits_per_period: null, rollover_cap: null, period: null, grant_remaining: remaining,
    };
  }
  const plan = app.config.subscriptions.plans.get(sub.plan);
  return {
    user_id: sub.userId, team_id: sub.teamId, plan: sub.plan, next_plan: sub.nextPlan, status: sub.status,
    current_period_start: new Date(sub.currentPeriodStart).toISOString(), current_period_end: new Date(sub.currentPeriodEnd).toISOString(),
    credits_per_period: plan?.credits ?? null, rollover_cap: plan?.rolloverCap ?? null, period: plan ? periodLabel(plan.period) : null, grant_remaining: remaining,
  };
}
