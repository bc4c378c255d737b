import test from 'ava';
import { nextDelay, parseRetryAfter, webhookDelays } from '../../../workers/webhooks/backoff.ts';
import { signatureFor, webhookHeaders } from '../../../workers/webhooks/sign.ts';
import { Webhook } from 'standardwebhooks';

test('retries wait the backoff, then four times longer each time, within ±20%', (t) => {
  for (const [retry, base] of [[0, 10_000], [1, 40_000], [2, 160_000]] as const) {
    t.is(nextDelay(10_000, retry, { maxRetryAfterMs: 3_600_000, random: () => 0.5 }), base);
    t.is(nextDelay(10_000, retry, { maxRetryAfterMs: 3_600_000, random: () => 0 }), base * 0.8);
    t.is(nextDelay(10_000, retry, { maxRetryAfterMs: 3_600_000, random: () => 0.999 }), base * 1.2);
  }
});

test('Retry-After wins when longer, capped; every delay has a delay queue', (t) => {
  const delays = webhookDelays(10_000, 3_600_000);
  t.is(nextDelay(10_000, 0, { retryAfterMs: 120_000, maxRetryAfterMs: 3_600_000, random: () => 0.5 }), 120_000);
  t.is(nextDelay(10_000, 0, { retryAfterMs: 99_000_000, maxRetryAfterMs: 3_600_000, random: () => 0.5 }), 3_600_000);
  t.is(nextDelay(10_000, 2, { retryAfterMs: 1000, maxRetryAfterMs: 3_600_000, random: () => 0.5 }), 160_000);
  for (let r = 0; r < 3; r++) for (const x of [0, 0.3, 0.5, 0.7, 0.99]) t.true(delays.includes(nextDelay(10_000, r, { maxRetryAfterMs: 3_600_000, random: () => x })));
  t.is(parseRetryAfter('30', 0), 30_000);
  t.is(parseRetryAfter(new Date(90_000).toUTCString(), 0), 90_000);
  t.is(parseRetryAfter('soon', 0), undefined);
});

test('signatures verify with the standardwebhooks package, with either secret during a rotation', (t) => {
  const oldSecret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
  const newSecret = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
  const body = JSON.stringify({ id: 'abc', status: 'completed' });
  const ts = Math.floor(Date.now() / 1000);
  const headers = webhookHeaders([newSecret, oldSecret], 'msg_1', ts, body);
  t.is(headers['webhook-signature']!.split(' ').length, 2);
  t.deepEqual(new Webhook(newSecret).verify(body, headers), JSON.parse(body));
  t.deepEqual(new Webhook(oldSecret).verify(body, headers), JSON.parse(body));
  t.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 3).toString('base64')}`).verify(body, headers));
  t.regex(signatureFor(newSecret, 'msg_1', ts, body), /^v1,[A-Za-z0-9+/]+=*$/);
});
