// Retry schedule for webhook deliveries. The three retries are set as times after the first
// failed attempt (WEBHOOK_RETRY_SCHEDULE_MS, by default 1 min, 15 min and 4 h), so a receiver
// down for a deploy or for hours still gets the result. Each wait (the gap between two planned
// retries) gets ±20% jitter so a receiver that failed many deliveries at once is not hit by all
// their retries at the same instant. RabbitMQ 3.10 has no per-message delay that works
// (per-message TTL only expires at a queue's head), so each (gap, jitter) pair has its own delay
// queue: the jitter is drawn from five fixed points.
// Apart from workers/deliver-webhook.ts, which uses it: config.ts reads the schedule, and config.ts
// importing deliver-webhook.ts would close a cycle (through lib/context.ts).
export const JITTER_FACTORS = [0.8, 0.9, 1, 1.1, 1.2] as const;
export const MAX_WEBHOOK_RETRIES = 3;
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS: readonly number[] = [60_000, 900_000, 14_400_000];

/**
 * The wait before retry number `retry` (0-based) without jitter: the planned time of that retry
 * after the first failure, less the planned time of the one before.
 */
export function baseDelay(scheduleMs: readonly number[], retry: number): number {
  const at = scheduleMs[Math.min(retry, scheduleMs.length - 1)] ?? 0;
  const before = retry === 0 ? 0 : (scheduleMs[Math.min(retry - 1, scheduleMs.length - 1)] ?? 0);
  return Math.max(1, at - before);
}

/** Every delay a webhook retry can wait: one delay queue each. */
export function webhookDelays(scheduleMs: readonly number[], maxRetryAfterMs: number): number[] {
  const delays = new Set<number>();
  for (let retry = 0; retry < MAX_WEBHOOK_RETRIES; retry++) {
    for (const f of JITTER_FACTORS) delays.add(Math.max(1, Math.round(baseDelay(scheduleMs, retry) * f)));
  }
  // Retry-After values are rounded up to one of these, capped at maxRetryAfterMs.
  for (const d of [60_000, 300_000, 900_000, 3_600_000]) if (d <= maxRetryAfterMs) delays.add(d);
  delays.add(maxRetryAfterMs);
  return [...delays].sort((a, b) => a - b);
}

/**
 * The delay before retry number `retry` (0-based). `retryAfterMs` (from a 429/503's Retry-After)
 * wins when longer, up to the cap, rounded up to the delay queue the retry will wait in (the
 * transport takes the smallest delay at least as long): the delay returned is the wait, so the
 * due time recorded with it is when the retry comes back. A due time recorded earlier would let
 * the sweeper take the retry for a lost message and publish a second copy. `random` is
 * injectable for tests.
 */
export function nextDelay(scheduleMs: readonly number[], retry: number, opts: { retryAfterMs?: number; maxRetryAfterMs: number; random?: () => number }): number {
  const jitter = JITTER_FACTORS[Math.floor((opts.random ?? Math.random)() * JITTER_FACTORS.length)] ?? 1;
  const delay = Math.max(1, Math.round(baseDelay(scheduleMs, retry) * jitter));
  if (opts.retryAfterMs === undefined) return delay;
  const wanted = Math.max(delay, Math.min(opts.retryAfterMs, opts.maxRetryAfterMs));
  // both `delay` and the cap have a delay queue, so one is always found
  return webhookDelays(scheduleMs, opts.maxRetryAfterMs).find((d) => d >= wanted) ?? wanted;
}

/**
 * WEBHOOK_RETRY_SCHEDULE_MS: exactly three increasing times (ms after the first failed attempt).
 * Throws a sentence for the configuration error.
 */
export function parseRetrySchedule(value: string): number[] {
  const entries = value.split(',').map((e) => Number(e.trim()));
  if (entries.length !== MAX_WEBHOOK_RETRIES || entries.some((e) => !Number.isSafeInteger(e) || e <= 0)) {
    throw new Error(`must be ${MAX_WEBHOOK_RETRIES} positive whole numbers of milliseconds, comma-separated (e.g. 60000,900000,14400000)`);
  }
  for (let i = 1; i < entries.length; i++) {
    if (entries[i]! <= entries[i - 1]!) throw new Error('each retry must come later than the one before (the times count from the first failed attempt)');
  }
  return entries;
}

/** Parses Retry-After (delta-seconds or an HTTP date) into milliseconds from now. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
