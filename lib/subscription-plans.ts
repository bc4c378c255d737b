// Subscription plans (README "Subscriptions"): read once from SUBSCRIPTION_PLANS (JSON, or the path
// of a JSON file), validated at start-up. A plan grants `credits` at the start of every period as
// expiring credit; with `rollover_cap` > 0, what is left of a period's grant (up to the cap) may be
// spent during the next period too. Pure: period arithmetic takes the times it works on.

export type PlanPeriod = { unit: 'month'; count: number } | { unit: 'day'; count: number };

export interface SubscriptionPlan {
  name: string;
  /** credits granted at the start of every period (1000 credits = 1 USD) */
  credits: number;
  /** the most of a period's grant that stays spendable during the next period; 0: none rolls over */
  rolloverCap: number;
  period: PlanPeriod;
  /** the Stripe Price (recurring) that sells this plan in the dashboard; absent: billing sets it by hand */
  stripePrice?: string;
}

export type SubscriptionPlans = ReadonlyMap<string, SubscriptionPlan>;

/** The default: three monthly plans. */
export const DEFAULT_SUBSCRIPTION_PLANS = {
  starter: { credits: 10_000, rollover_cap: 0, period: 'month' },
  pro: { credits: 50_000, rollover_cap: 25_000, period: 'month' },
  scale: { credits: 250_000, rollover_cap: 125_000, period: 'month' },
} as const;

const NAME = /^[a-z0-9][a-z0-9_-]{0,49}$/;
const MAX_CREDITS = 1e12;

function parsePeriod(name: string, raw: unknown): PlanPeriod {
  if (raw === undefined || raw === 'month') return { unit: 'month', count: 1 };
  if (raw === 'year') return { unit: 'month', count: 12 };
  const m = typeof raw === 'string' ? /^([1-9]\d{0,2})d$/.exec(raw) : null;
  if (m && Number(m[1]) <= 366) return { unit: 'day', count: Number(m[1]) };
  throw new Error(`plan "${name}": period must be "month", "year" or a number of days such as "30d" (1-366)`);
}

function count(name: string, field: string, raw: unknown, min: number): number {
  if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw < min || raw > MAX_CREDITS) {
    throw new Error(`plan "${name}": ${field} must be a whole number of credits from ${min} to ${MAX_CREDITS}`);
  }
  return raw;
}

/**
 * Parses the plans object `{"<name>": {"credits": n, "rollover_cap": n, "period": "month"}}`;
 * throws naming the plan and the field. Unknown fields are refused (a typo would be silently ignored).
 */
export function parsePlans(raw: unknown): SubscriptionPlans {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new Error('must be a JSON object of plans: {"pro": {"credits": 50000, "rollover_cap": 25000, "period": "month"}}');
  const plans = new Map<string, SubscriptionPlan>();
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!NAME.test(name)) throw new Error(`plan "${name}": a name is 1-50 of a-z, 0-9, _ and -, starting with a letter or digit`);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`plan "${name}": must be an object`);
    const v = value as Record<string, unknown>;
    const unknown = Object.keys(v).filter((k) => !['credits', 'rollover_cap', 'period', 'stripe_price'].includes(k));
    if (unknown.length) throw new Error(`plan "${name}": unknown field ${unknown.join(', ')} (credits, rollover_cap, period, stripe_price)`);
    if (v.stripe_price !== undefined && (typeof v.stripe_price !== 'string' || !/^price_[A-Za-z0-9_]{1,200}$/.test(v.stripe_price))) {
      throw new Error(`plan "${name}": stripe_price must be the id of a recurring Stripe Price (price_…)`);
    }
    const credits = count(name, 'credits', v.credits, 1);
    const rolloverCap = count(name, 'rollover_cap', v.rollover_cap ?? 0, 0);
    if (rolloverCap > credits) throw new Error(`plan "${name}": rollover_cap must not exceed credits`);
    plans.set(name, { name, credits, rolloverCap, period: parsePeriod(name, v.period), ...(typeof v.stripe_price === 'string' ? { stripePrice: v.stripe_price } : {}) });
  }
  if (plans.size === 0) throw new Error('declares no plan');
  return plans;
}

const DAY_MS = 86_400_000;

/** `anchor` plus `n` calendar months in UTC, the day clamped to the month's last (Jan 31 + 1 month = Feb 28). */
function addMonths(anchor: number, n: number): number {
  const d = new Date(anchor);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + n;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return Date.UTC(y, m, Math.min(d.getUTCDate(), last), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
}

/**
 * The end of the period that follows one ending at `end`. Months count from `anchor` (the
 * subscription's first period end), so a subscription anchored on the 31st ends each period on
 * the month's last day when shorter and never drifts to the 28th.
 */
export function nextPeriodEnd(period: PlanPeriod, anchor: number, end: number): number {
  if (period.unit === 'day') return end + period.count * DAY_MS;
  for (let k = 1; ; k++) {
    const next = addMonths(anchor, k * period.count);
    if (next > end) return next;
  }
}

/** The end of the first period of a subscription activated at `now` (one period later). */
export function firstPeriodEnd(period: PlanPeriod, now: number): number {
  return period.unit === 'day' ? now + period.count * DAY_MS : addMonths(now, period.count);
}

/** A plan as the API shows it. */
export function periodLabel(period: PlanPeriod): string {
  if (period.unit === 'day') return `${period.count}d`;
  return period.count === 12 ? 'year' : 'month';
}
