// The subscription job (README "Subscriptions"): every SUBSCRIPTION_INTERVAL_SECONDS, in worker
// processes, renews the subscriptions an admin activated whose period has ended (each period's credit
// granted once, as an expiring grant; a plan bought through Stripe is granted by its paid invoices), expires grant credit whose time has come,
// tries again the Stripe cancellations still due (workers/stripe-cancellations.ts), and the cancels of
// erased accounts' provider jobs still due (workers/upstream-cancellations.ts). Like the retention job it takes
// the `scheduled_jobs` lease, so one worker runs per period; the renewal itself does not depend on
// the lease (a conditional UPDATE per subscription, and one grant per subscription and period), so
// two runs at once still grant once (and a Stripe or provider cancellation is claimed by one of them).
import crypto from 'node:crypto';
import type { App } from '../lib/context.ts';
import { takeJobLease } from '../db/retention.ts';
import { expireDue, renewDue } from '../db/subscriptions.ts';
import type { ExpiryCounts, RenewalCounts } from '../db/subscriptions.ts';
import { runDueStripeCancellations } from './stripe-cancellations.ts';
import { runDueUpstreamCancellations } from './upstream-cancellations.ts';
import type { CancellationCounts } from './outbox.ts';

export const SUBSCRIPTION_JOB = 'subscriptions';

export interface SubscriptionRun {
  renewals: RenewalCounts;
  expiries: ExpiryCounts;
  stripeCancellations: CancellationCounts;
  upstreamCancellations: CancellationCounts;
}

export interface SubscriptionJob {
  /** takes the lease and runs once; null when another worker holds this period (or the job is off) */
  runOnce(): Promise<SubscriptionRun | null>;
  /** renews and expires without the lease (what runOnce does once it holds it) */
  run(now: number): Promise<SubscriptionRun>;
  start(): void;
  stop(): Promise<void>;
}

export function createSubscriptionJob(app: Pick<App, 'db' | 'log' | 'clock' | 'config' | 'spec' | 'adapterEnv'>): SubscriptionJob {
  const { db, clock } = app;
  const { plans, intervalMs } = app.config.subscriptions;
  const log = app.log.child({ job: SUBSCRIPTION_JOB });
  const holder = `${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  let stopped = false;

  async function run(now: number): Promise<SubscriptionRun> {
    const renewals = await renewDue(db, plans, now);
    const expiries = await expireDue(db, now);
    const stripeCancellations = await runDueStripeCancellations(app, now);
    const upstreamCancellations = await runDueUpstreamCancellations(app, now);
    if (renewals.unknownPlan.length) log.warn({ plans: [...new Set(renewals.unknownPlan)] }, 'subscriptions due for renewal name a plan SUBSCRIPTION_PLANS no longer declares: not renewed');
    return { renewals, expiries, stripeCancellations, upstreamCancellations };
  }

  async function runOnce(): Promise<SubscriptionRun | null> {
    if (intervalMs === null) return null;
    const now = clock();
    if (!(await takeJobLease(db, SUBSCRIPTION_JOB, holder, now, intervalMs))) return null;
    const result = await run(now);
    const stripe = result.stripeCancellations;
    const upstream = result.upstreamCancellations;
    if (result.renewals.renewed || result.renewals.cancelled || result.expiries.credits || stripe.cancelled || stripe.failed || upstream.cancelled || upstream.failed) {
      log.info({
        renewed: result.renewals.renewed, cancelled: result.renewals.cancelled, expiredCredits: result.expiries.credits, wallets: result.expiries.wallets,
        stripeCancelled: stripe.cancelled, stripeCancelFailed: stripe.failed, upstreamCancelled: upstream.cancelled, upstreamCancelFailed: upstream.failed,
      }, 'subscription run finished');
    }
    return result;
  }

  function tick(): void {
    if (running || stopped) return;
    running = runOnce()
      .catch((err: unknown) => log.warn({ err: (err as Error).message ?? String(err) }, 'subscription run failed; the next period tries again'))
      .finally(() => { running = null; });
  }

  return {
    runOnce,
    run,
    start() {
      if (intervalMs === null || timer || stopped) return;
      tick();
      timer = setInterval(tick, intervalMs);
      timer.unref();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
