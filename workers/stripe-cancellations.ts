// Cancelling Stripe subscriptions through an outbox (db/stripe-cancellations.ts,
// docs/operating/billing.md "Renewals"). Where the gateway decides a Stripe subscription must end
// (a plan cancelled or activated by hand, a team deleted, an account erased, a paid checkout or
// invoice of a wallet that is gone) it records a row and starts one attempt after the request's
// answer (endStripeSubscription): the answer never waits for Stripe, which may take a minute to
// fail (20 s a try, 2 retries). The subscription job works through the rows still due each run
// (runDueStripeCancellations), backing off from a minute, doubling, to an hour, until Stripe
// cancels it or answers that it has no such subscription (already canceled): then it is recorded
// ended, as a `customer.subscription.deleted` would. A failure is a warning naming the
// subscription; past a day of failures it is an error asking the operator to cancel it by hand.
import type { App } from '../lib/context.ts';
import type { Owner } from '../lib/caller.ts';
import { cancelStripeSubscription } from '../lib/stripe.ts';
import {
  claimStripeCancellation, dueStripeCancellations, findStripeCancellation, planOfStripeSubscription, recordStripeCancellation,
  stripeCancellationDone, stripeCancellationFailed, WALLET_GONE,
} from '../db/stripe-cancellations.ts';
import type { StripeCancellation } from '../db/stripe-cancellations.ts';
import { recordStripeSubscriptionEnded, stripeSubscriptionEnded } from '../db/subscriptions.ts';
import { attemptEach, cancellationBackoffMs, RUN_BATCH } from './outbox.ts';
import type { AttemptOutcome, CancellationCounts } from './outbox.ts';

// the eraser has no clock of its own (it is given its `now`): the time then is the process's
type CancelApp = Pick<App, 'db' | 'log' | 'config'> & Partial<Pick<App, 'clock'>>;
const clockOf = (app: CancelApp): number => (app.clock ? app.clock() : Date.now());

const MINUTE = 60_000;
/** Failing for longer than this, an attempt's failure is an error for the operator, not a warning. */
export const CANCELLATION_ESCALATE_AFTER_MS = 24 * 60 * MINUTE;

/**
 * One attempt at a row: claimed first (a row another run claimed, or one not due, is skipped),
 * then Stripe is asked. A subscription Stripe already reported deleted is not asked again.
 */
export async function attemptStripeCancellation(app: CancelApp, row: StripeCancellation, now: number): Promise<AttemptOutcome> {
  const attempt = row.attempts + 1;
  if (!(await claimStripeCancellation(app.db, row, now, now + cancellationBackoffMs(attempt)))) return 'skipped';
  const sub = row.stripeSubscriptionId;
  const context = { subscription: sub, ...row.payer, attempt };
  try {
    const how = await stripeSubscriptionEnded(app.db, sub) ? 'reported' : await cancelStripeSubscription(app.config.stripe, sub);
    // as a customer.subscription.deleted would: its late events change nothing, and it is no longer live
    await recordStripeSubscriptionEnded(app.db, sub, row.payer, await planOfStripeSubscription(app.db, sub), null, clockOf(app));
    await stripeCancellationDone(app.db, row.id, clockOf(app));
    app.log.info({ ...context, how }, `stripe subscription cancelled: ${row.reason}`);
    return 'cancelled';
  } catch (err) {
    const error = (err as Error).message ?? String(err);
    await stripeCancellationFailed(app.db, row.id, error)
      .catch((e: unknown) => app.log.warn({ ...context, err: (e as Error).message }, 'could not record a failed Stripe cancellation'));
    const retryAt = new Date(now + cancellationBackoffMs(attempt)).toISOString();
    if (now - row.createdAt >= CANCELLATION_ESCALATE_AFTER_MS) {
      app.log.error({ ...context, error, since: new Date(row.createdAt).toISOString(), retryAt },
        `stripe_subscription_not_cancelled: ${row.reason} but Stripe has not cancelled the subscription for over a day of attempts; cancel it in Stripe's dashboard (the gateway keeps trying hourly), or Stripe keeps charging it`);
    } else {
      app.log.warn({ ...context, error, retryAt }, `stripe subscription not cancelled yet: ${row.reason}; tried again later`);
    }
    return 'failed';
  }
}

/** Attempts started after an answer, still running: awaited at shutdown (and by tests). */
const inFlight = new Set<Promise<unknown>>();

/** Resolves once every attempt started by endStripeSubscription so far has finished. */
export async function stripeCancellationsSettled(): Promise<void> {
  while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
}

/**
 * Records that the Stripe subscription must end, then starts its first attempt on the next turn
 * of the event loop, not awaited by the request (the job tries again if it fails or the process stops).
 * A subscription already recorded keeps its own schedule. `why`: the reason, in the log lines.
 */
export async function endStripeSubscription(app: CancelApp, subscriptionId: string, payer: Owner, why = WALLET_GONE): Promise<void> {
  await recordStripeCancellation(app.db, subscriptionId, payer, why, clockOf(app));
  startStripeCancellation(app, subscriptionId, payer);
}

/** Starts an attempt at a recorded cancellation on the next turn, not awaited by the caller (endStripeSubscription). */
export function startStripeCancellation(app: CancelApp, subscriptionId: string, payer: Owner): void {
  const started = new Promise<void>((resolve) => { setImmediate(resolve); })
    .then(async () => {
      const row = await findStripeCancellation(app.db, subscriptionId);
      if (row && row.doneAt === null) await attemptStripeCancellation(app, row, clockOf(app));
    })
    .catch((err: unknown) => app.log.warn({ subscription: subscriptionId, ...payer, err: (err as Error).message ?? String(err) }, 'a Stripe cancellation could not be attempted now; the subscription job tries again'));
  inFlight.add(started);
  void started.finally(() => inFlight.delete(started));
}

/** The subscription job's part: the rows due at `now`, one attempt each. */
export async function runDueStripeCancellations(app: CancelApp, now: number): Promise<CancellationCounts> {
  return attemptEach(await dueStripeCancellations(app.db, now, RUN_BATCH), (row) => attemptStripeCancellation(app, row, now));
}
