// RabbitMQ topology per topic T under prefix P (everything durable):
//
//   P.work (direct) --T--> P.T --(consumer rejects / dead-letters)--> P.dead (direct) --T--> P.T.dead
//   retry: default exchange --> P.T.retry.<d>  (x-message-ttl d) --expires--> P.work --T--> P.T
//
// Delays use one queue per delay with a per-queue TTL rather than per-message TTL or the
// delayed-message plugin: per-message TTL only expires at the head of a queue, and the plugin is
// missing on the Debian 3.10 brokers while this works unchanged on 3.10 and 4.x.

import type { Channel, ChannelModel } from 'amqplib';
import type { QueueLog, TopicSpec } from '../types.ts';
import { pickRetryDelay } from '../topics.ts';
import { unavailable } from './connection.ts';
import { TIMED_OUT, within } from '../../../lib/within.ts';

export interface Names {
  work: string;
  dead: string;
  queue: string;
  deadQueue: string;
  retry(delayMs: number): string;
}

export function topologyNames(prefix: string, topic: string): Names {
  return {
    work: `${prefix}.work`,
    dead: `${prefix}.dead`,
    queue: `${prefix}.${topic}`,
    deadQueue: `${prefix}.${topic}.dead`,
    retry: (delayMs) => `${prefix}.${topic}.retry.${delayMs}`,
  };
}

export interface Route {
  exchange: string;
  routingKey: string;
}

/** Where a message to `spec` goes: the work exchange, or (delayed) the delay queue that fits. */
export function routeFor(prefix: string, spec: TopicSpec, delayMs: number): Route {
  const n = topologyNames(prefix, spec.name);
  const delay = delayMs > 0 ? pickRetryDelay(spec.retryDelaysMs, delayMs) : undefined;
  if (delay === undefined) return { exchange: n.work, routingKey: spec.name };
  return { exchange: '', routingKey: n.retry(delay) };
}

/** Where a dead-lettered copy goes. */
export function deadLetterRoute(prefix: string, spec: TopicSpec): Route {
  return { exchange: topologyNames(prefix, spec.name).dead, routingKey: spec.name };
}

/** Declares the exchanges and queues of the topics; idempotent. */
export async function declareTopology(conn: ChannelModel, prefix: string, specs: Iterable<TopicSpec>, log: QueueLog): Promise<void> {
  // A throwaway channel: a declaration that clashes with existing arguments closes its channel,
  // and that must not take the publisher down with it.
  const ch = await conn.createChannel();
  ch.on('error', (err: Error) => log('topology declaration failed', { error: err.message }));
  for (const spec of specs) {
    const n = topologyNames(prefix, spec.name);
    await ch.assertExchange(n.work, 'direct', { durable: true });
    await ch.assertExchange(n.dead, 'direct', { durable: true });
    await ch.assertQueue(n.queue, {
      durable: true,
      arguments: { 'x-dead-letter-exchange': n.dead, 'x-dead-letter-routing-key': spec.name },
    });
    await ch.bindQueue(n.queue, n.work, spec.name);
    for (const d of spec.retryDelaysMs) {
      await ch.assertQueue(n.retry(d), {
        durable: true,
        arguments: { 'x-message-ttl': d, 'x-dead-letter-exchange': n.work, 'x-dead-letter-routing-key': spec.name },
      });
    }
    await ch.assertQueue(n.deadQueue, { durable: true });
    await ch.bindQueue(n.deadQueue, n.dead, spec.name);
  }
  await ch.close();
}

/**
 * How long a queue count waits for the broker: a scrape of /metrics (and the dashboard) answers
 * without it rather than wait on a broker that stopped answering. The same bound as each /readyz
 * check (lib/readiness.ts), so a count given up on matches a queue /readyz calls unreachable.
 */
export const QUEUE_CHECK_TIMEOUT_MS = 2_000;

/**
 * Messages ready in a queue (as the broker counts them: not those delivered and unacknowledged),
 * or QueueUnavailableError after timeoutMs. The channel it opens is closed in every case: after
 * the answer, after an error, when it gives up, and when the channel opens only after that.
 */
async function queueDepth(conn: ChannelModel, queue: string, timeoutMs: number): Promise<number> {
  let channel: Channel | null = null;
  let done = false;
  // not awaited: against a broker that stopped answering the close-ok never comes either
  const close = (ch: Channel) => { ch.close().catch(() => {}); };
  const ask = (async () => {
    // checkQueue on a missing queue closes its channel, so it gets one of its own.
    const ch = await conn.createChannel();
    ch.on('error', () => {});
    if (done) {
      close(ch);
      throw new Error('the count was given up before its channel opened');
    }
    channel = ch;
    const { messageCount } = await ch.checkQueue(queue);
    return messageCount;
  })();
  try {
    const count = await within(ask, timeoutMs);
    if (count === TIMED_OUT) throw unavailable(`no answer to a queue check within ${timeoutMs} ms`);
    return count;
  } finally {
    done = true;
    if (channel !== null) close(channel);
  }
}

/** Messages ready in the topic's work queue (delayed retries, in their delay queues, not counted). */
export function workQueueDepth(conn: ChannelModel, prefix: string, topic: string, timeoutMs = QUEUE_CHECK_TIMEOUT_MS): Promise<number> {
  return queueDepth(conn, topologyNames(prefix, topic).queue, timeoutMs);
}

/** Messages waiting in the topic's dead-letter queue. */
export function deadQueueDepth(conn: ChannelModel, prefix: string, topic: string, timeoutMs = QUEUE_CHECK_TIMEOUT_MS): Promise<number> {
  return queueDepth(conn, topologyNames(prefix, topic).deadQueue, timeoutMs);
}
