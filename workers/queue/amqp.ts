// RabbitMQ transport: the Queue interface assembled from one connection (amqp/connection.ts), the
// topology per topic (amqp/topology.ts), confirmed publishing (amqp/publisher.ts) and consumers
// (amqp/consumer.ts). The topology diagram is in amqp/topology.ts.

import { randomUUID } from 'node:crypto';
import type { ConfirmChannel } from 'amqplib';
import type { Handler, Queue, QueueLog, TopicSpec } from './types.ts';
import { validateTopic } from './topics.ts';
import { encodeMessage, errorMessage } from './message.ts';
import { amqpConnection, unavailable } from './amqp/connection.ts';
import { amqpPublisher } from './amqp/publisher.ts';
import { amqpConsumers } from './amqp/consumer.ts';
import { deadQueueDepth, declareTopology, routeFor, workQueueDepth } from './amqp/topology.ts';
import { TIMED_OUT, within } from '../../lib/within.ts';

export { topologyNames } from './amqp/topology.ts';
export { pickRetryDelay, validateTopic } from './topics.ts';
export type { QueueLog } from './types.ts';

export interface AmqpOptions {
  /** namespace of every exchange and queue, e.g. 'mediagate' */
  prefix: string;
  log?: QueueLog;
  /** the longest a publish waits for its confirm (amqp/publisher.ts CONFIRM_TIMEOUT_MS by default) */
  confirmTimeoutMs?: number;
}

const PING_TIMEOUT_MS = 5_000;

export async function connectAmqp(url: string, opts: AmqpOptions): Promise<Queue> {
  const { prefix } = opts;
  const log: QueueLog = opts.log ?? (() => {});
  if (prefix === '' || /\s/.test(prefix)) throw new Error(`queue prefix ${JSON.stringify(prefix)} must be non-empty without spaces`);

  const topics = new Map<string, TopicSpec>();
  function requireTopic(topic: string): TopicSpec {
    const spec = topics.get(topic);
    if (spec === undefined) throw new Error(`queue topic ${JSON.stringify(topic)} is not set up`);
    return spec;
  }

  const connection = amqpConnection<ConfirmChannel>(url, prefix, log, {
    async prepare(conn) {
      if (topics.size > 0) await declareTopology(conn, prefix, topics.values(), log);
      return publisher.open(conn);
    },
    up(conn, channel) {
      publisher.use(channel);
      consumers.startAll(conn);
    },
    down() {
      publisher.reset();
      consumers.forget();
    },
  });
  const publisher = amqpPublisher(connection, log, opts.confirmTimeoutMs);
  const consumers = amqpConsumers({ prefix, log, connection, publisher, requireTopic });
  let closed: Promise<void> | null = null;

  async function shutdown(): Promise<void> {
    await consumers.cancelAll();
    // Handlers still running settle through the publisher, so the connection stays open meanwhile;
    // past the grace period their messages are requeued by the broker when the connection closes.
    const left = await consumers.drain();
    if (left > 0) log('closing with handlers still running; their messages will be redelivered', { count: left });
    await consumers.closeChannels();
    publisher.reset();
    await connection.end();
  }

  /** A queue's message count (work or dead-letter) on the current connection, for metrics and checks. */
  async function count(topic: string, depthOf: typeof workQueueDepth): Promise<number> {
    requireTopic(topic);
    const conn = connection.current;
    if (conn === null || connection.closing) throw unavailable('not connected');
    try {
      return await depthOf(conn, prefix, topic);
    } catch (err) {
      if (connection.current !== conn) throw unavailable(errorMessage(err));
      throw err;
    }
  }

  await connection.open();

  return {
    durable: true,

    async setup(specs) {
      for (const spec of specs) validateTopic(spec);
      // Remembered before declaring so a reconnect re-declares them even if this attempt fails.
      for (const spec of specs) topics.set(spec.name, spec);
      const conn = connection.current;
      if (conn === null || connection.closing) throw unavailable('not connected');
      try {
        await declareTopology(conn, prefix, specs, log);
      } catch (err) {
        if (connection.current !== conn) throw unavailable(errorMessage(err));
        throw err;
      }
    },

    async publish(topic, body, publishOpts = {}) {
      const spec = requireTopic(topic);
      const attempt = publishOpts.attempt ?? 0;
      const json = encodeMessage(body, attempt);
      if (connection.closing) throw unavailable('queue is closed');
      // Refused rather than queued: a blocked broker withholds confirms until it has room again.
      if (connection.blockedReason !== null) throw unavailable(`broker blocked publishing: ${connection.blockedReason}`);
      const to = routeFor(prefix, spec, publishOpts.delayMs ?? 0);
      await publisher.publish(to, Buffer.from(json, 'utf8'), { 'x-attempt': attempt }, randomUUID());
    },

    async consume<T>(topic: string, handler: Handler<T>, consumeOpts: { prefetch: number }) {
      requireTopic(topic);
      if (!Number.isSafeInteger(consumeOpts.prefetch) || consumeOpts.prefetch < 1) {
        throw new Error(`prefetch must be a positive integer, got ${consumeOpts.prefetch}`);
      }
      if (connection.closing) throw unavailable('queue is closed');
      // The body is validated by the handler; this transport only guarantees it is parsed JSON.
      await consumers.add(topic, handler as Handler<unknown>, consumeOpts.prefetch);
    },

    async ping() {
      const ch = publisher.channel;
      if (ch === null || connection.closing) throw unavailable('not connected');
      let reply;
      try {
        // amq.direct exists in every vhost, so the check cannot fail with 404 and close the channel.
        reply = await within(ch.checkExchange('amq.direct'), PING_TIMEOUT_MS);
      } catch (err) {
        throw unavailable(errorMessage(err));
      }
      if (reply === TIMED_OUT) throw unavailable(`no reply within ${PING_TIMEOUT_MS} ms`);
    },

    depth(topic) {
      return count(topic, workQueueDepth);
    },

    deadLetterCount(topic) {
      return count(topic, deadQueueDepth);
    },

    stopConsuming() {
      return consumers.cancelAll();
    },

    drain(graceMs) {
      return consumers.drain(graceMs);
    },

    close() {
      if (closed === null) {
        connection.beginClose();
        closed = shutdown();
      }
      return closed;
    },
  };
}
