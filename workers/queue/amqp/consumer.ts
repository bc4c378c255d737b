// Consuming: one channel per consumer with its prefetch, each delivery's outcome mapped onto the
// broker (ack; retry = a confirmed copy in a delay queue, then ack; dead-letter = a confirmed copy
// in the dead-letter queue, then ack; requeue = nack), consumers restarted when their channel or
// the connection is lost, and cancel/drain for a graceful stop.

import { randomUUID } from 'node:crypto';
import type { Channel, ChannelModel, ConsumeMessage, MessagePropertyHeaders } from 'amqplib';
import type { Handler, Outcome, QueueLog, TopicSpec } from '../types.ts';
import { drain } from '../drain.ts';
import { errorMessage } from '../message.ts';
import { laterCopy } from '../topics.ts';
import { backoff } from './connection.ts';
import type { AmqpConnection } from './connection.ts';
import type { Publisher } from './publisher.ts';
import { deadLetterRoute, routeFor, topologyNames } from './topology.ts';

interface Consumer {
  topic: string;
  handler: Handler<unknown>;
  prefetch: number;
  channel: Channel | null;
  /** the acks waiting to go out on `channel` (made with it) */
  acks: Acks | null;
  consumerTag: string | null;
  cancelled: boolean;
  restarts: number;
}

/**
 * The acks of one channel, sent together once the current turn of the event loop is over: the
 * handlers of a group commit (a batch of completions) finish in the same turn, and an ack with
 * `multiple` settles a whole run of them in one frame, where one frame each cost the broker and
 * this process a write and a read per message. `multiple` acknowledges every delivery up to its
 * tag, so it covers only the run of oldest deliveries that all wait for an ack; any other waits
 * for nothing and goes alone, in the same turn.
 */
interface Acks {
  /** a delivery arrived: it is unsettled until acked or nacked */
  delivered(msg: ConsumeMessage): void;
  /** acks the delivery at the end of this turn */
  ack(msg: ConsumeMessage): void;
  /** the delivery is settled otherwise (nacked) */
  forget(msg: ConsumeMessage): void;
  /** sends the waiting acks now (before the channel closes) */
  flush(): void;
  /** the channel is gone, and the broker redelivers what it held: nothing more to send */
  drop(): void;
}

function channelAcks(ch: Channel, onError: (err: unknown) => void): Acks {
  // unsettled deliveries, oldest first (delivery tags grow with each delivery on a channel)
  const unsettled = new Map<number, ConsumeMessage>();
  const waiting = new Set<number>();
  let scheduled = false;
  function flush(): void {
    scheduled = false;
    if (waiting.size === 0) return;
    try {
      let upTo: ConsumeMessage | null = null;
      for (const [tag, msg] of unsettled) {
        if (!waiting.has(tag)) break;
        upTo = msg;
        unsettled.delete(tag);
        waiting.delete(tag);
      }
      if (upTo !== null) ch.ack(upTo, true);
      for (const tag of waiting) {
        const msg = unsettled.get(tag);
        unsettled.delete(tag);
        if (msg !== undefined) ch.ack(msg);
      }
    } catch (err) {
      // The channel is gone: the broker redelivers whatever it held.
      onError(err);
    } finally {
      waiting.clear();
    }
  }
  return {
    delivered(msg) {
      unsettled.set(msg.fields.deliveryTag, msg);
    },
    ack(msg) {
      waiting.add(msg.fields.deliveryTag);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    forget(msg) {
      unsettled.delete(msg.fields.deliveryTag);
      waiting.delete(msg.fields.deliveryTag);
    },
    flush,
    drop() {
      unsettled.clear();
      waiting.clear();
    },
  };
}

export interface Consumers {
  /** registers a consumer and starts it now if connected, else on the next connection */
  add(topic: string, handler: Handler<unknown>, prefetch: number): Promise<void>;
  /** (re)starts every registered consumer on a fresh connection */
  startAll(conn: ChannelModel): void;
  /** the connection went away: their channels went with it */
  forget(): void;
  /** no new deliveries; running handlers go on */
  cancelAll(): Promise<void>;
  /** waits up to graceMs for running handlers; returns how many are still running */
  drain(graceMs?: number): Promise<number>;
  /** closes each consumer channel, which flushes the acks sent on it */
  closeChannels(): Promise<void>;
}

function readAttempt(headers: MessagePropertyHeaders | undefined): number {
  const raw: unknown = headers?.['x-attempt'];
  return typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0 ? raw : 0;
}

export interface ConsumerDeps {
  prefix: string;
  log: QueueLog;
  connection: AmqpConnection;
  publisher: Publisher;
  requireTopic(topic: string): TopicSpec;
}

export function amqpConsumers({ prefix, log, connection, publisher, requireTopic }: ConsumerDeps): Consumers {
  const consumers: Consumer[] = [];
  const inFlight = new Set<Promise<void>>();

  async function settle(c: Consumer, ch: Channel, msg: ConsumeMessage, attempt: number, outcome: Outcome, body?: unknown): Promise<void> {
    const spec = requireTopic(c.topic);
    const correlationId = typeof msg.properties.correlationId === 'string' ? msg.properties.correlationId : randomUUID();
    let final: Outcome = outcome;
    if (final.kind === 'retry' && attempt >= spec.maxRetries) {
      final = { kind: 'dead-letter', reason: `gave up after ${attempt} retries: ${final.reason}` };
    }
    if (c.channel !== ch) {
      // The broker requeued this delivery when its channel died; a retry or dead-letter copy now
      // would only duplicate it.
      log('consumer channel lost before settling; the broker redelivers the message', { topic: spec.name, outcome: final.kind });
      return;
    }
    if (final.kind === 'requeue') {
      // Handed back unfinished (shutdown): the broker puts it back and delivers it to another
      // consumer, marked redelivered. nack, not reject: on 4.3 it does not count toward x-delivery-limit.
      c.acks?.forget(msg);
      try {
        ch.nack(msg, false, true);
      } catch {
        // The channel is gone; the broker redelivers whatever it held.
      }
      return;
    }
    // a copy leaves out what only the first delivery uses (TopicSpec.firstDeliveryOnly)
    const copy = () => {
      if (body === undefined) return msg.content;
      const json = msg.content.toString('utf8');
      const later = laterCopy(spec, json, body);
      return later === json ? msg.content : Buffer.from(later, 'utf8');
    };
    try {
      switch (final.kind) {
        case 'ack':
          break;
        case 'retry':
          await publisher.publish(routeFor(prefix, spec, final.delayMs), copy(), { 'x-attempt': attempt + 1, 'x-retry-reason': final.reason }, correlationId);
          break;
        case 'dead-letter':
          log('dead-lettering message', { topic: spec.name, attempt, reason: final.reason });
          await publisher.publish(deadLetterRoute(prefix, spec), copy(), { 'x-attempt': attempt, 'x-dead-reason': final.reason }, correlationId);
          break;
      }
      // Ack only after the copy is confirmed: a crash in between duplicates the message, never loses it.
      if (c.acks === null) throw new Error('the consumer channel has no acks');
      c.acks.ack(msg);
    } catch (err) {
      log('could not settle message; returning it to the queue', { topic: spec.name, outcome: final.kind, error: errorMessage(err) });
      c.acks?.forget(msg);
      try {
        ch.nack(msg, false, true);
      } catch {
        // The channel is gone; the broker redelivers whatever it held.
      }
    }
  }

  async function handleDelivery(c: Consumer, ch: Channel, msg: ConsumeMessage): Promise<void> {
    const spec = requireTopic(c.topic);
    const attempt = readAttempt(msg.properties.headers);
    let body: unknown;
    try {
      body = JSON.parse(msg.content.toString('utf8'));
    } catch (err) {
      await settle(c, ch, msg, attempt, { kind: 'dead-letter', reason: `unparsable JSON body: ${errorMessage(err)}` });
      return;
    }
    let outcome: Outcome;
    try {
      outcome = await c.handler({ body, attempt, redelivered: msg.fields.redelivered });
    } catch (err) {
      log('handler threw; retrying', { topic: spec.name, attempt, error: errorMessage(err) });
      outcome = { kind: 'retry', delayMs: spec.retryDelaysMs[0] ?? 0, reason: `handler threw: ${errorMessage(err)}` };
    }
    await settle(c, ch, msg, attempt, outcome, body);
  }

  function track(p: Promise<void>): void {
    const guarded = p.catch((err: unknown) => log('unexpected error handling a delivery', { error: errorMessage(err) }));
    inFlight.add(guarded);
    void guarded.finally(() => inFlight.delete(guarded));
  }

  async function start(c: Consumer, conn: ChannelModel): Promise<void> {
    const ch = await conn.createChannel();
    c.channel = ch;
    const acks = channelAcks(ch, (err) => log('could not acknowledge messages; the broker redelivers them', { topic: c.topic, error: errorMessage(err) }));
    c.acks = acks;
    ch.on('error', (err: Error) => log('consumer channel error', { topic: c.topic, error: err.message }));
    ch.on('close', () => {
      acks.drop();
      if (c.channel !== ch) return;
      c.channel = null;
      c.acks = null;
      c.consumerTag = null;
      // A channel lost with its connection is re-created by the reconnect; one lost alone (a
      // channel error, consumer_timeout, the broker cancelling) is restarted here.
      const delay = backoff(c.restarts++);
      connection.later(delay, () => {
        if (connection.closing || c.cancelled || connection.current !== conn || c.channel !== null) return;
        start(c, conn).catch((err: unknown) => log('could not restart consumer', { topic: c.topic, error: errorMessage(err) }));
      });
    });
    await ch.prefetch(c.prefetch);
    const { queue } = topologyNames(prefix, c.topic);
    const { consumerTag } = await ch.consume(
      queue,
      (msg) => {
        if (msg === null) {
          log('broker cancelled consumer', { topic: c.topic });
          void ch.close().catch(() => {});
          return;
        }
        acks.delivered(msg);
        track(handleDelivery(c, ch, msg));
      },
      { noAck: false },
    );
    c.consumerTag = consumerTag;
    c.restarts = 0;
  }

  return {
    async add(topic, handler, prefetch) {
      const c: Consumer = { topic, handler, prefetch, channel: null, acks: null, consumerTag: null, cancelled: false, restarts: 0 };
      consumers.push(c);
      const conn = connection.current;
      // While disconnected the registration stands and the reconnect starts it.
      if (conn === null) {
        log('not connected; consumer starts on reconnect', { topic });
        return;
      }
      try {
        await start(c, conn);
      } catch (err) {
        if (connection.current !== conn) return;
        c.cancelled = true;
        consumers.splice(consumers.indexOf(c), 1);
        throw err;
      }
    },

    startAll(conn) {
      for (const c of consumers) {
        if (c.cancelled) continue;
        start(c, conn).catch((err: unknown) => log('could not start consumer', { topic: c.topic, error: errorMessage(err) }));
      }
    },

    forget() {
      for (const c of consumers) {
        c.acks?.drop();
        c.channel = null;
        c.acks = null;
        c.consumerTag = null;
      }
    },

    async cancelAll() {
      for (const c of consumers) {
        c.cancelled = true;
        const { channel, consumerTag } = c;
        c.consumerTag = null;
        if (channel !== null && consumerTag !== null) {
          await channel.cancel(consumerTag).catch((err: unknown) => log('could not cancel consumer', { topic: c.topic, error: errorMessage(err) }));
        }
      }
    },

    drain(graceMs) {
      return drain(inFlight, graceMs);
    },

    async closeChannels() {
      // Acks are sent without a reply; closing each channel first flushes them in order, whereas
      // closing the connection straight away can overtake them and get the messages redelivered.
      for (const c of consumers) {
        const ch = c.channel;
        c.acks?.flush();
        c.channel = null;
        c.acks = null;
        if (ch !== null) await ch.close().catch(() => {});
      }
    },
  };
}
