// Retry schedule for webhook deliveries: the first retry waits WEBHOOK_BACKOFF_MS, each next
// one four times longer, with ±20% jitter so a receiver that failed many deliveries at once is
// not hit by all their retries at the same instant. RabbitMQ 3.10 has no per-message delay
// that works (per-message TTL only expires at a queue's head), so each (step, jitter) pair has
// its own delay queue: the jitter is drawn from five fixed points.
export const JITTER_FACTORS = [0.8, 0.9, 1, 1.1, 1.2] as const;
export const MAX_WEBHOOK_RETRIES = 3;

export function baseDelay(backoffMs: number, retry: number): number {
  return backoffMs * 4 ** retry;
}

/** Every delay a webhook retry can wait: one delay queue each. */
export function webhookDelays(backoffMs: number, maxRetryAfterMs: number): number[] {
  const delays = new Set<number>();
  for (let retry = 0; retry < MAX_WEBHOOK_RETRIES; retry++) {
    for (const f of JITTER_FACTORS) delays.add(Math.round(baseDelay(backoffMs, retry) * f));
  }
  // Retry-After values are rounded up to one of these, capped at maxRetryAfterMs.
  for (const d of [60_000, 300_000, 900_000, 3_600_000]) if (d <= maxRetryAfterMs) delays.add(d);
  delays.add(maxRetryAfterMs);
  return [...delays].sort((a, b) => a - b);
}

/**
 * The delay before retry number `retry` (0-based). `retryAfterMs` (from a 429/503's Retry-After)
 * wins when longer, up to the cap. `random` is injectable for tests.
 */
export function nextDelay(backoffMs: number, retry: number, opts: { retryAfterMs?: number; maxRetryAfterMs: number; random?: () => number }): number {
  const jitter = JITTER_FACTORS[Math.floor((opts.random ?? Math.random)() * JITTER_FACTORS.length)] ?? 1;
  const delay = Math.round(baseDelay(backoffMs, retry) * jitter);
  if (opts.retryAfterMs === undefined) return delay;
  return Math.max(delay, Math.min(opts.retryAfterMs, opts.maxRetryAfterMs));
}

/** Parses Retry-After (delta-seconds or an HTTP date) into milliseconds from now. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
