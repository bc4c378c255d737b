// The queue-transport contract: what every Queue (workers/queue/types.ts) must do, whichever
// transport carries it. Registered once per transport, from test/workers/queue/memory.test.ts (in-process)
// and test/workers/queue/amqp.test.ts (RabbitMQ); what only one transport can show (broker refusal,
// redelivery after a consumer dies, reconnecting) stays in that transport's own file.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { setImmediate as tick } from 'node:timers/promises';
import { QueueUnavailableError } from '../../../workers/queue/types.ts';
import type { Delivery, Outcome, Queue, TopicSpec } from '../../../workers/queue/types.ts';
import { waitFor } from '../../helpers/services.ts';

export const jobs: TopicSpec = { name: 'jobs', retryDelaysMs: [50, 100, 200], maxRetries: 3 };
export const ack: Outcome = { kind: 'ack' };

export interface Opened {
  queue: Queue;
  /**
   * Resolves once the transport has handed out everything it is going to hand out now, with
   * `waiting` messages of the topic left undelivered: the proof that a consumer is not given more.
   */
  settled(topic: string, waiting: number): Promise<void>;
}

export interface Transport {
  durable: boolean;
  /** a queue with these topics set up, closed (and its topology removed) at the test's teardown */
  open(t: ExecutionContext, specs?: readonly TopicSpec[]): Promise<Opened>;
}

export function gate<T = void>(): { wait: Promise<T>; open: (value: T) => void } {
  let open = (_value: T): void => {};
  const wait = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

export function queueContract(transport: Transport): void {
  test('a published message reaches the consumer as a copy, on its first attempt', async (t) => {
    const { queue } = await transport.open(t);
    t.is(queue.durable, transport.durable);
    const seen: Array<Delivery<{ n: number; tags: string[]; text: string }>> = [];
    await queue.consume<{ n: number; tags: string[]; text: string }>('jobs', async (d) => {
      seen.push(d);
      return ack;
    }, { prefetch: 1 });
    const body = { n: 1, tags: ['a'], text: 'héllo' };
    await queue.publish('jobs', body);
    body.tags.push('mutated after publish');
    await waitFor(() => seen.length === 1, { what: 'the message to be delivered' });
    t.deepEqual(seen[0], { body: { n: 1, tags: ['a'], text: 'héllo' }, attempt: 0, redelivered: false });
    await queue.ping();
  });

  test('messages published before any consumer wait and arrive in order', async (t) => {
    const { queue } = await transport.open(t);
    for (let n = 0; n < 5; n++) await queue.publish('jobs', { n });
    const order: number[] = [];
    await queue.consume<{ n: number }>('jobs', async (d) => {
      order.push(d.body.n);
      return ack;
    }, { prefetch: 1 });
    await waitFor(() => order.length === 5, { what: 'all five to be delivered' });
    t.deepEqual(order, [0, 1, 2, 3, 4]);
  });

  test('a consumer never holds more messages than its prefetch', async (t) => {
    const { queue, settled } = await transport.open(t);
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
    await Promise.all(Array.from({ length: 10 }, (_, n) => queue.publish('jobs', { n })));
    await waitFor(() => active === 3, { what: 'three handlers to run' });
    // The other seven are held back by the transport, not merely not yet delivered.
    await settled('jobs', 7);
    t.is(active, 3);
    release.open();
    await waitFor(() => done === 10, { what: 'all ten to be handled' });
    t.is(maxActive, 3);
  });

  test('a retry comes back with the next attempt number after the rounded-up delay', async (t) => {
    const { queue } = await transport.open(t);
    const calls: Array<{ attempt: number; at: number }> = [];
    await queue.consume('jobs', async (d) => {
      calls.push({ attempt: d.attempt, at: Date.now() });
      // 70 ms is not a configured delay, so the retry waits in the 100 ms slot.
      return d.attempt < 2 ? { kind: 'retry', delayMs: 70, reason: 'busy' } : ack;
    }, { prefetch: 1 });
    await queue.publish('jobs', { n: 1 });
    await waitFor(() => calls.length === 3, { what: 'three attempts' });
    t.deepEqual(calls.map((c) => c.attempt), [0, 1, 2]);
    for (let i = 1; i < calls.length; i++) {
      const gap = (calls[i]?.at ?? 0) - (calls[i - 1]?.at ?? 0);
      t.true(gap >= 99, `gap ${gap} ms should be at least the 100 ms delay`);
    }
    t.is(await queue.deadLetterCount('jobs'), 0);
  });

  test('a message retried past maxRetries is dead-lettered and not handled again', async (t) => {
    const { queue } = await transport.open(t, [{ name: 'jobs', retryDelaysMs: [50], maxRetries: 2 }]);
    const attempts: number[] = [];
    let markerSeen = false;
    await queue.consume<{ n?: number; marker?: true }>('jobs', async (d) => {
      if (d.body.marker) {
        markerSeen = true;
        return ack;
      }
      attempts.push(d.attempt);
      return { kind: 'retry', delayMs: 50, reason: 'always failing' };
    }, { prefetch: 1 });
    await queue.publish('jobs', { n: 1 });
    await waitFor(async () => (await queue.deadLetterCount('jobs')) === 1, { what: 'the message to be dead-lettered' });
    // A stray retry would have been published before the dead-letter copy, into the same 50 ms delay
    // slot, which is first in first out: once a marker sent through that slot arrives, it would have too.
    await queue.publish('jobs', { marker: true }, { delayMs: 50 });
    await waitFor(() => markerSeen, { what: 'the marker to come through the delay slot' });
    t.deepEqual(attempts, [0, 1, 2]);
  });

  test('a retry copy leaves out the fields only the first delivery uses, and keeps the rest', async (t) => {
    const { queue } = await transport.open(t, [{ ...jobs, firstDeliveryOnly: ['ticket'] }]);
    const seen: Array<Delivery<Record<string, unknown>>> = [];
    await queue.consume<Record<string, unknown>>('jobs', async (d) => {
      seen.push(d);
      return d.attempt < 2 ? { kind: 'retry', delayMs: 50, reason: 'busy' } : ack;
    }, { prefetch: 1 });
    await queue.publish('jobs', { id: 'p1', reqId: 'r1', ticket: { input: '{"prompt":"private"}', webhook_url: 'https://hooks.example.com/?token=t' } });
    await waitFor(() => seen.length === 3, { what: 'three attempts' });
    t.deepEqual(seen.map((d) => d.body), [
      { id: 'p1', reqId: 'r1', ticket: { input: '{"prompt":"private"}', webhook_url: 'https://hooks.example.com/?token=t' } },
      { id: 'p1', reqId: 'r1' },
      { id: 'p1', reqId: 'r1' },
    ]);
  });

  test('a handler that throws is retried with the first delay', async (t) => {
    const { queue } = await transport.open(t);
    const calls: Array<{ attempt: number; at: number }> = [];
    await queue.consume('jobs', async (d) => {
      calls.push({ attempt: d.attempt, at: Date.now() });
      if (d.attempt === 0) throw new Error('boom');
      return ack;
    }, { prefetch: 1 });
    await queue.publish('jobs', { n: 1 });
    await waitFor(() => calls.length === 2, { what: 'the message to be retried' });
    t.deepEqual(calls.map((c) => c.attempt), [0, 1]);
    const gap = (calls[1]?.at ?? 0) - (calls[0]?.at ?? 0);
    t.true(gap >= 49, `gap ${gap} ms should be at least the first, 50 ms, delay`);
    t.is(await queue.deadLetterCount('jobs'), 0);
  });

  test('a dead-letter outcome is counted at once, without a retry', async (t) => {
    const { queue } = await transport.open(t);
    let calls = 0;
    await queue.consume('jobs', async () => {
      calls++;
      return { kind: 'dead-letter', reason: 'invalid input' };
    }, { prefetch: 1 });
    await queue.publish('jobs', { n: 1 });
    await waitFor(async () => (await queue.deadLetterCount('jobs')) === 1, { what: 'the message to be dead-lettered' });
    t.is(calls, 1);
  });

  test('a delayed publish waits in the delay slot the delay rounds up to', async (t) => {
    const { queue } = await transport.open(t);
    const seen: Array<{ attempt: number; at: number }> = [];
    await queue.consume('jobs', async (d) => {
      seen.push({ attempt: d.attempt, at: Date.now() });
      return ack;
    }, { prefetch: 1 });
    const publishedAt = Date.now();
    await queue.publish('jobs', { n: 1 }, { delayMs: 150, attempt: 2 });
    await waitFor(() => seen.length === 1, { what: 'the delayed message' });
    t.is(seen[0]?.attempt, 2);
    const waited = (seen[0]?.at ?? 0) - publishedAt;
    t.true(waited >= 199, `waited ${waited} ms: a 150 ms delay rounds up to the 200 ms slot`);
  });

  test('a requeue outcome puts the message back at the head of the queue, unchanged', async (t) => {
    const { queue } = await transport.open(t);
    const seen: Array<Delivery<{ n: number }>> = [];
    await queue.consume<{ n: number }>('jobs', async (d) => {
      seen.push(d);
      return seen.length === 1 ? { kind: 'requeue', reason: 'shutting down' } : ack;
    }, { prefetch: 1 });
    await queue.publish('jobs', { n: 1 });
    await queue.publish('jobs', { n: 2 });
    await waitFor(() => seen.length === 3, { what: 'all three deliveries' });
    t.deepEqual(seen.map((d) => [d.body.n, d.attempt]), [[1, 0], [1, 0], [2, 0]]);
    t.is(await queue.deadLetterCount('jobs'), 0);
  });

  test('depth counts the messages ready in a topic queue, for the metrics scrape', async (t) => {
    const { queue } = await transport.open(t);
    t.is(await queue.depth('jobs'), 0);
    await queue.publish('jobs', { n: 1 });
    await queue.publish('jobs', { n: 2 });
    await waitFor(async () => (await queue.depth('jobs')) === 2, { what: 'both messages to be counted' });
    await queue.consume('jobs', async () => ack, { prefetch: 5 });
    await waitFor(async () => (await queue.depth('jobs')) === 0, { what: 'the consumer to take them' });
    await t.throwsAsync(queue.depth('nope'), { message: /not set up/ });
  });

  test('a topic that was not set up, a bad topic name and a bad prefetch are refused', async (t) => {
    const { queue } = await transport.open(t);
    await t.throwsAsync(queue.publish('nope', {}), { message: /not set up/ });
    await t.throwsAsync(queue.consume('nope', async () => ack, { prefetch: 1 }), { message: /not set up/ });
    await t.throwsAsync(queue.deadLetterCount('nope'), { message: /not set up/ });
    await t.throwsAsync(queue.setup([{ name: 'a.b', retryDelaysMs: [], maxRetries: 0 }]), { message: /must match/ });
    await t.throwsAsync(queue.setup([{ name: 'c', retryDelaysMs: [0], maxRetries: 0 }]), { message: /positive integers/ });
    await t.throwsAsync(queue.consume('jobs', async () => ack, { prefetch: 0 }), { message: /prefetch must be a positive integer/ });
    await t.throwsAsync(queue.publish('jobs', {}, { attempt: -1 }), { message: /attempt must be a non-negative integer/ });
  });

  test('close waits for a running handler to settle, then refuses work', async (t) => {
    const { queue } = await transport.open(t);
    const started = gate();
    const release = gate();
    let finished = false;
    await queue.consume('jobs', async () => {
      started.open();
      await release.wait;
      finished = true;
      return ack;
    }, { prefetch: 1 });
    await queue.publish('jobs', { n: 1 });
    await started.wait;
    let closed = false;
    const closing = queue.close().then(() => {
      closed = true;
    });
    await tick();
    t.false(closed, 'close is still waiting for the handler');
    release.open();
    await closing;
    t.true(finished);
    await t.throwsAsync(queue.publish('jobs', {}), { instanceOf: QueueUnavailableError });
    await t.throwsAsync(queue.ping(), { instanceOf: QueueUnavailableError });
  });

  test('stopConsuming takes no new message while a running handler goes on', async (t) => {
    const { queue, settled } = await transport.open(t);
    const release = gate<Outcome>();
    const seen: number[] = [];
    await queue.consume<{ n: number }>('jobs', async (d) => {
      seen.push(d.body.n);
      return release.wait;
    }, { prefetch: 2 });
    await queue.publish('jobs', { n: 1 });
    await waitFor(() => seen.length === 1, { what: 'the first message to be handled' });
    await queue.stopConsuming();
    await queue.publish('jobs', { n: 2 });
    // n: 2 stays in the queue although the consumer has room for it.
    await settled('jobs', 1);
    t.is(await queue.drain(0), 1, 'the handler is still running');
    release.open(ack);
    t.is(await queue.drain(10_000), 0);
    await settled('jobs', 1);
    t.deepEqual(seen, [1], 'nothing new was handed out after stopConsuming');
  });
}
