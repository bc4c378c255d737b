import test from 'ava';
import { setImmediate as tick } from 'node:timers/promises';
import { createMemoryQueue } from '../../workers/queue/memory.ts';
import { QueueUnavailableError } from '../../workers/queue/types.ts';
import type { Delivery, Outcome, Queue, TopicSpec } from '../../workers/queue/types.ts';

const jobs: TopicSpec = { name: 'jobs', retryDelaysMs: [50, 100, 200], maxRetries: 3 };

async function eventually(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function gate(): { wait: Promise<void>; open: () => void } {
  let open = (): void => {};
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

async function queueWith(t: { teardown: (fn: () => Promise<void>) => void }, specs: TopicSpec[] = [jobs]): Promise<Queue> {
  const queue = createMemoryQueue();
  t.teardown(() => queue.close());
  await queue.setup(specs);
  return queue;
}

const ack: Outcome = { kind: 'ack' };

test('a published message reaches the consumer as a copy on its first attempt', async (t) => {
  const queue = await queueWith(t);
  const seen: Array<Delivery<{ n: number; tags: string[] }>> = [];
  await queue.consume<{ n: number; tags: string[] }>('jobs', async (d) => {
    seen.push(d);
    return ack;
  }, { prefetch: 1 });
  const body = { n: 1, tags: ['a'] };
  await queue.publish('jobs', body);
  body.tags.push('mutated after publish');
  await eventually(() => seen.length === 1, 'the message is delivered');
  t.deepEqual(seen[0], { body: { n: 1, tags: ['a'] }, attempt: 0, redelivered: false });
  t.false(queue.durable);
});

test('messages published before any consumer wait and arrive in order', async (t) => {
  const queue = await queueWith(t);
  for (let n = 0; n < 5; n++) await queue.publish('jobs', { n });
  const order: number[] = [];
  await queue.consume<{ n: number }>('jobs', async (d) => {
    order.push(d.body.n);
    return ack;
  }, { prefetch: 1 });
  await eventually(() => order.length === 5, 'all five are delivered');
  t.deepEqual(order, [0, 1, 2, 3, 4]);
});

test('a consumer never holds more messages than its prefetch', async (t) => {
  const queue = await queueWith(t);
  const release = gate();
  let active = 0;
  let maxActive = 0;
  let done = 0;
  await queue.consume('jobs', async () => {
    active++;
    maxActive = Math.max(maxActive, active);
    await release.wait;
    active--;
    done++;
    return ack;
  }, { prefetch: 3 });
  for (let n = 0; n < 10; n++) await queue.publish('jobs', { n });
  await eventually(() => active === 3, 'three handlers run');
  // Give the queue turns in which it could wrongly start a fourth.
  for (let i = 0; i < 5; i++) await tick();
  t.is(active, 3);
  release.open();
  await eventually(() => done === 10, 'all ten are handled');
  t.is(maxActive, 3);
});

test('a retry comes back with the next attempt number after the rounded-up delay', async (t) => {
  const queue = await queueWith(t);
  const calls: Array<{ attempt: number; at: number }> = [];
  await queue.consume('jobs', async (d) => {
    calls.push({ attempt: d.attempt, at: Date.now() });
    // 70 ms is not a configured delay, so the retry waits in the 100 ms slot.
    return d.attempt < 2 ? { kind: 'retry', delayMs: 70, reason: 'busy' } : ack;
  }, { prefetch: 1 });
  await queue.publish('jobs', { n: 1 });
  await eventually(() => calls.length === 3, 'three attempts are made');
  t.deepEqual(calls.map((c) => c.attempt), [0, 1, 2]);
  for (let i = 1; i < calls.length; i++) {
    const gap = (calls[i]?.at ?? 0) - (calls[i - 1]?.at ?? 0);
    t.true(gap >= 99, `gap ${gap} ms should be at least the 100 ms delay`);
  }
  t.is(await queue.deadLetterCount('jobs'), 0);
});

test('a message retried past maxRetries is dead-lettered and not handled again', async (t) => {
  const queue = await queueWith(t, [{ name: 'jobs', retryDelaysMs: [50], maxRetries: 2 }]);
  const attempts: number[] = [];
  await queue.consume('jobs', async (d) => {
    attempts.push(d.attempt);
    return { kind: 'retry', delayMs: 50, reason: 'always failing' };
  }, { prefetch: 1 });
  await queue.publish('jobs', { n: 1 });
  await eventually(async () => (await queue.deadLetterCount('jobs')) === 1, 'the message is dead-lettered');
  // An absence cannot be awaited: a stray retry would be due within 50 ms, so give it over twice that.
  await new Promise((resolve) => setTimeout(resolve, 120));
  t.deepEqual(attempts, [0, 1, 2]);
});

test('a handler that throws is retried with the first delay', async (t) => {
  const queue = await queueWith(t);
  const calls: Array<{ attempt: number; at: number }> = [];
  await queue.consume('jobs', async (d) => {
    calls.push({ attempt: d.attempt, at: Date.now() });
    if (d.attempt === 0) throw new Error('boom');
    return ack;
  }, { prefetch: 1 });
  await queue.publish('jobs', { n: 1 });
  await eventually(() => calls.length === 2, 'the message is retried');
  t.deepEqual(calls.map((c) => c.attempt), [0, 1]);
  t.true((calls[1]?.at ?? 0) - (calls[0]?.at ?? 0) >= 49);
  t.is(await queue.deadLetterCount('jobs'), 0);
});

test('a dead-letter outcome is counted at once', async (t) => {
  const queue = await queueWith(t);
  let calls = 0;
  await queue.consume('jobs', async () => {
    calls++;
    return { kind: 'dead-letter', reason: 'invalid input' };
  }, { prefetch: 1 });
  await queue.publish('jobs', { n: 1 });
  await eventually(async () => (await queue.deadLetterCount('jobs')) === 1, 'the message is dead-lettered');
  t.is(calls, 1);
});

test('a delayed publish is delivered after the delay', async (t) => {
  const queue = await queueWith(t);
  let deliveredAt = 0;
  await queue.consume('jobs', async () => {
    deliveredAt = Date.now();
    return ack;
  }, { prefetch: 1 });
  const publishedAt = Date.now();
  await queue.publish('jobs', { n: 1 }, { delayMs: 150, attempt: 2 });
  await eventually(() => deliveredAt > 0, 'the delayed message arrives');
  t.true(deliveredAt - publishedAt >= 199, 'a 150 ms delay rounds up to the 200 ms slot');
});

test('publishing or consuming a topic that was not set up throws', async (t) => {
  const queue = await queueWith(t);
  await t.throwsAsync(queue.publish('nope', {}), { message: /not set up/ });
  await t.throwsAsync(queue.consume('nope', async () => ack, { prefetch: 1 }), { message: /not set up/ });
  await t.throwsAsync(queue.setup([{ name: 'a.b', retryDelaysMs: [], maxRetries: 0 }]), { message: /must match/ });
});

test('close waits for running handlers and then refuses work', async (t) => {
  const queue = createMemoryQueue();
  await queue.setup([jobs]);
  const release = gate();
  let finished = false;
  let started = false;
  await queue.consume('jobs', async () => {
    started = true;
    await release.wait;
    finished = true;
    return ack;
  }, { prefetch: 1 });
  await queue.publish('jobs', { n: 1 });
  await eventually(() => started, 'the handler starts');
  const closing = queue.close();
  setTimeout(release.open, 50);
  await closing;
  t.true(finished);
  await t.throwsAsync(queue.publish('jobs', {}), { instanceOf: QueueUnavailableError });
  await t.throwsAsync(queue.ping(), { instanceOf: QueueUnavailableError });
});

test('stopConsuming takes no new message while a running handler goes on', async (t) => {
  const queue = await queueWith(t);
  const g = gate();
  const seen: number[] = [];
  await queue.consume<{ n: number }>('jobs', async (d) => {
    seen.push(d.body.n);
    await g.wait;
    return ack;
  }, { prefetch: 2 });
  await queue.publish('jobs', { n: 1 });
  await eventually(() => seen.length === 1, 'the first message is being handled');
  await queue.stopConsuming();
  await queue.publish('jobs', { n: 2 });
  t.is(await queue.drain(0), 1, 'the handler is still running');
  g.open();
  t.is(await queue.drain(5_000), 0);
  await tick();
  t.deepEqual(seen, [1], 'nothing new was handed out after stopConsuming, though the consumer had room');
});

test('a requeue outcome puts the message back at the head of the queue, unchanged', async (t) => {
  const queue = await queueWith(t);
  const seen: Array<Delivery<{ n: number }>> = [];
  await queue.consume<{ n: number }>('jobs', async (d) => {
    seen.push(d);
    return seen.length === 1 ? { kind: 'requeue', reason: 'shutting down' } : ack;
  }, { prefetch: 1 });
  await queue.publish('jobs', { n: 1 });
  await queue.publish('jobs', { n: 2 });
  await eventually(() => seen.length === 3, 'all three deliveries');
  t.deepEqual(seen.map((d) => [d.body.n, d.attempt]), [[1, 0], [1, 0], [2, 0]]);
  t.is(await queue.deadLetterCount('jobs'), 0);
});

test('depth counts the messages ready in a topic queue, for the metrics scrape', async (t) => {
  const queue = await queueWith(t);
  t.is(await queue.depth('jobs'), 0);
  await queue.publish('jobs', { n: 1 });
  await queue.publish('jobs', { n: 2 });
  t.is(await queue.depth('jobs'), 2);
  await queue.consume('jobs', async () => ack, { prefetch: 5 });
  await eventually(async () => (await queue.depth('jobs')) === 0, 'the consumer took them');
  await t.throwsAsync(queue.depth('unknown'));
});
