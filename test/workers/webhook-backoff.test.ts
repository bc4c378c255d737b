import test from 'ava';
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS, nextDelay, parseRetryAfter, parseRetrySchedule, webhookDelays } from '../../workers/webhook-backoff.ts';
import { loadConfig } from '../../config.ts';

const SCHEDULE = DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS;
const HOUR = 3_600_000;

test('by default the retries come about 1 minute, 15 minutes and 4 hours after the first failure', (t) => {
  t.deepEqual([...SCHEDULE], [60_000, 900_000, 4 * HOUR]);
  t.deepEqual(loadConfig({}).webhookRetryScheduleMs, [60_000, 900_000, 4 * HOUR]);
  // without jitter the waits add up to the schedule exactly
  let at = 0;
  const times = [0, 1, 2].map((retry) => (at += nextDelay(SCHEDULE, retry, { maxRetryAfterMs: HOUR, random: () => 0.5 })));
  t.deepEqual(times, [60_000, 900_000, 4 * HOUR]);
});

test('each wait varies by at most ±20%, drawn from five points', (t) => {
  for (const [retry, base] of [[0, 60_000], [1, 840_000], [2, 13_500_000]] as const) {
    t.is(nextDelay(SCHEDULE, retry, { maxRetryAfterMs: HOUR, random: () => 0 }), base * 0.8);
    t.is(nextDelay(SCHEDULE, retry, { maxRetryAfterMs: HOUR, random: () => 0.999 }), base * 1.2);
    const seen = new Set(Array.from({ length: 50 }, (_, i) => nextDelay(SCHEDULE, retry, { maxRetryAfterMs: HOUR, random: () => i / 50 })));
    t.is(seen.size, 5);
  }
});

test('the schedule is configurable: three increasing times, anything else refused with a sentence', (t) => {
  t.deepEqual(loadConfig({ WEBHOOK_RETRY_SCHEDULE_MS: '1000, 5000,20000' }).webhookRetryScheduleMs, [1000, 5000, 20_000]);
  t.deepEqual(parseRetrySchedule('100,500,2100'), [100, 500, 2100]);
  t.throws(() => parseRetrySchedule('100,500'), { message: /3 positive whole numbers/ });
  t.throws(() => parseRetrySchedule('100,50,2100'), { message: /later than the one before/ });
  t.throws(() => parseRetrySchedule('1m,15m,4h'), { message: /milliseconds/ });
  t.throws(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE_MS: '5,4,3' }), { message: /WEBHOOK_RETRY_SCHEDULE_MS.*later than the one before/ });
  // the variable it replaced is refused rather than silently ignored
  t.throws(() => loadConfig({ WEBHOOK_BACKOFF_MS: '10000' }), { message: /WEBHOOK_BACKOFF_MS.*replaced by WEBHOOK_RETRY_SCHEDULE_MS/ });
});

test('Retry-After wins when longer, capped; every delay has a delay queue', (t) => {
  for (const schedule of [SCHEDULE, [100, 500, 2100], [1000, 1001, 1002]]) {
    const delays = webhookDelays(schedule, HOUR);
    for (let r = 0; r < 3; r++) for (const x of [0, 0.3, 0.5, 0.7, 0.99]) t.true(delays.includes(nextDelay(schedule, r, { maxRetryAfterMs: HOUR, random: () => x })));
  }
  // rounded up to the delay queue it waits in: 1 min, 5 min, 15 min, 1 h or a step of the schedule
  t.is(nextDelay(SCHEDULE, 0, { retryAfterMs: 120_000, maxRetryAfterMs: HOUR, random: () => 0.5 }), 300_000);
  t.is(nextDelay(SCHEDULE, 0, { retryAfterMs: 300_000, maxRetryAfterMs: HOUR, random: () => 0.5 }), 300_000);
  t.is(nextDelay(SCHEDULE, 0, { retryAfterMs: 700_000, maxRetryAfterMs: HOUR, random: () => 0.5 }), 756_000);
  for (const ms of [1, 61_000, 1_234_567, HOUR - 1, 2 * HOUR]) {
    t.true(webhookDelays(SCHEDULE, HOUR).includes(nextDelay(SCHEDULE, 0, { retryAfterMs: ms, maxRetryAfterMs: HOUR })), `Retry-After ${ms} ms`);
  }
  t.is(nextDelay(SCHEDULE, 0, { retryAfterMs: 99_000_000, maxRetryAfterMs: HOUR, random: () => 0.5 }), HOUR);
  t.is(nextDelay(SCHEDULE, 2, { retryAfterMs: 1000, maxRetryAfterMs: HOUR, random: () => 0.5 }), 13_500_000);
  t.is(parseRetryAfter('30', 0), 30_000);
  t.is(parseRetryAfter(new Date(90_000).toUTCString(), 0), 90_000);
  t.is(parseRetryAfter('soon', 0), undefined);
});
