// RabbitMQ transport. Topology per topic T under prefix P (everything durable):
//
//   P.work (direct) --T--> P.T --(consumer rejects / dead-letters)--> P.dead (direct) --T--> P.T.dead
//   retry: default exchange --> P.T.retry.<d>  (x-message-ttl d) --expires--> P.work --T--> P.T
//
// Delays use one queue per delay with a per-queue TTL rather than per-message TTL or the
// delayed-message plugin: per-message TTL only expires at the head of a queue, and the plugin is
// missing on the Debian 3.10 brokers while this works unchanged on 3.10 and 4.x.

import { randomUUID } from 'node:crypto';
import { connect } from 'amqplib';
import type { Channel, ChannelModel, ConfirmChannel, ConsumeMessage, Message, MessagePropertyHeaders } from 'amqplib';
import { QueueUnavailableError } from './types.ts';
import type { Handler, Outcome, Queue, TopicSpec } from './types.ts';
import { drain } from './drain.ts';
import { encodeMessage } from './message.ts';

export type QueueLog = (msg: string, extra?: Record<string, unknown>) => void;

export interface AmqpOptions {
  /** namespace of every exchange and queue, e.g. 'mediagate' */
  prefix: string;
  log?: QueueLog;
}

const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5_000;
const PING_TIMEOUT_MS = 5_000;
// Bounds the TCP/AMQP handshake so a black-holed broker fails start-up instead of hanging it.
const CONNECT_TIMEOUT_MS = 10_000;
const TOPIC_NAME = /^[A-Za-z0-9_-]+$/;

interface Consumer {
  topic: string;
  handler: Handler<unknown>;
  prefetch: number;
  channel: Channel | null;
  consumerTag: string | null;
  cancelled: boolean;
  restarts: number;
}

interface Names {
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

/** The delay queue a retry waits in: the smallest delay >= the one asked for, else the largest. */
export function pickRetryDelay(delays: readonly number[], wantedMs: number): number | undefined {
  const sorted = [...delays].sort((a, b) => a - b);
  return sorted.find((d) => d >= wantedMs) ?? sorted.at(-1);
}

export function validateTopic(spec: TopicSpec): void {
  if (!TOPIC_NAME.test(spec.name)) {
    // A dot would make `P.a.retry.5` ambiguous between topic `a` and topic `a.retry.5`.
    throw new Error(`topic name ${JSON.stringify(spec.name)} must match ${TOPIC_NAME}`);
  }
  for (const d of spec.retryDelaysMs) {
    if (!Number.isSafeInteger(d) || d <= 0) {
      throw new Error(`topic ${spec.name}: retry delays must be positive integers of milliseconds, got ${d}`);
    }
  }
  if (!Number.isSafeInteger(spec.maxRetries) || spec.maxRetries < 0) {
    throw new Error(`topic ${spec.name}: maxRetries must be a non-negative integer, got ${spec.maxRetries}`);
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function readAttempt(headers: MessagePropertyHeaders | undefined): number {
  const raw: unknown = headers?.['x-attempt'];
  return typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0 ? raw : 0;
}

function unavailable(why: string): QueueUnavailableError {
  return new QueueUnavailableError(`RabbitMQ unavailable: ${why}`);
}

export async function connectAmqp(url: string, opts: AmqpOptions): Promise<Queue> {
  const { prefix } = opts;
  const log: QueueLog = opts.log ?? (() => {});
  if (prefix === '' || /\s/.test(prefix)) throw new Error(`queue prefix ${JSON.stringify(prefix)} must be non-empty without spaces`);

  const topics = new Map<string, TopicSpec>();
  const consumers: Consumer[] = [];
  const inFlight = new Set<Promise<void>>();
  // Confirms are matched by the callback amqplib keeps per delivery tag; this map only serves the
  // `return` listener, which identifies a message by its properties alone.
  const awaitingConfirm = new Map<string, (err: Error) => void>();
  const timers = new Set<NodeJS.Timeout>();

  // Non-null only while the connection is up and the topology is declared.
  let model: ChannelModel | null = null;
  let publisher: ConfirmChannel | null = null;
  let backpressure: Promise<void> | null = null;
  let blockedReason: string | null = null;
  let closing = false;
  let closed: Promise<void> | null = null;

  function later(ms: number, fn: () => void): void {
    // Timers armed by channels closing during close() would otherwise hold the process open.
    if (closing) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  }

  function backoff(attempt: number): number {
    const base = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** attempt);
    // Jitter keeps a fleet of workers from reconnecting in lock-step after a broker restart.
    return Math.min(RECONNECT_MAX_MS, Math.round(base * (0.8 + Math.random() * 0.4)));
  }

  function requireTopic(topic: string): TopicSpec {
    const spec = topics.get(topic);
    if (spec === undefined) throw new Error(`queue topic ${JSON.stringify(topic)} is not set up`);
    return spec;
  }

  async function declare(conn: ChannelModel, specs: Iterable<TopicSpec>): Promise<void> {
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

  async function openPublisher(conn: ChannelModel): Promise<ConfirmChannel> {
    const ch = await conn.createConfirmChannel();
    ch.on('error', (err: Error) => log('publish channel error', { error: err.message }));
    ch.on('return', (msg: Message) => {
      const id: unknown = msg.properties.messageId;
      if (typeof id !== 'string') return;
      const reject = awaitingConfirm.get(id);
      if (reject === undefined) return;
      // The broker sends basic.return before the basic.ack of the same message, so rejecting here
      // wins over the confirm callback that follows.
      awaitingConfirm.delete(id);
      reject(unavailable(`message to ${msg.fields.exchange || '(default)'}/${msg.fields.routingKey} was unroutable`));
    });
    ch.on('close', () => {
      if (publisher !== ch) return;
      publisher = null;
      // Deferred: when the whole connection dies its channels close first, and the connection's own
      // close handler should win rather than a pointless reopen on a dead socket.
      setImmediate(() => {
        if (closing || model !== conn) return;
        log('publish channel closed; reopening');
        openPublisher(conn).then(
          (fresh) => {
            if (closing || model !== conn) void fresh.close().catch(() => {});
            else publisher = fresh;
          },
          (err: unknown) => {
            log('could not reopen publish channel; reconnecting', { error: errorMessage(err) });
            void conn.close().catch(() => {});
          },
        );
      });
    });
    return ch;
  }

  async function publishRaw(
    exchange: string,
    routingKey: string,
    content: Buffer,
    headers: Record<string, unknown>,
    correlationId: string,
  ): Promise<void> {
    while (backpressure !== null) await backpressure;
    const ch = publisher;
    if (ch === null) throw unavailable('not connected');
    const messageId = randomUUID();
    return new Promise<void>((resolve, reject) => {
      awaitingConfirm.set(messageId, reject);
      let hasRoom: boolean;
      try {
        hasRoom = ch.publish(
          exchange,
          routingKey,
          content,
          {
            persistent: true,
            mandatory: true,
            contentType: 'application/json',
            messageId,
            correlationId,
            timestamp: Math.floor(Date.now() / 1000),
            headers,
          },
          (err: unknown) => {
            if (!awaitingConfirm.delete(messageId)) return;
            if (err) reject(unavailable(`message not confirmed: ${errorMessage(err)}`));
            else resolve();
          },
        );
      } catch (err) {
        awaitingConfirm.delete(messageId);
        reject(unavailable(errorMessage(err)));
        return;
      }
      if (!hasRoom && backpressure === null) {
        // The frame is buffered either way; later publishes wait so the buffer stops growing.
        log('publish buffer full; waiting for it to drain');
        const wait = new Promise<void>((release) => {
          const done = (): void => {
            ch.off('drain', done);
            ch.off('close', done);
            if (backpressure === wait) backpressure = null;
            release();
          };
          ch.on('drain', done);
          ch.on('close', done);
        });
        backpressure = wait;
      }
    });
  }

  function routeFor(spec: TopicSpec, delayMs: number): { exchange: string; routingKey: string } {
    const n = topologyNames(prefix, spec.name);
    const delay = delayMs > 0 ? pickRetryDelay(spec.retryDelaysMs, delayMs) : undefined;
    if (delay === undefined) return { exchange: n.work, routingKey: spec.name };
    return { exchange: '', routingKey: n.retry(delay) };
  }

  async function settle(c: Consumer, ch: Channel, msg: ConsumeMessage, attempt: number, outcome: Outcome): Promise<void> {
    const spec = requireTopic(c.topic);
    const n = topologyNames(prefix, spec.name);
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
      try {
        ch.nack(msg, false, true);
      } catch {
        // The channel is gone; the broker redelivers whatever it held.
      }
      return;
    }
    try {
      switch (final.kind) {
        case 'ack':
          break;
        case 'retry': {
          const to = routeFor(spec, final.delayMs);
          await publishRaw(to.exchange, to.routingKey, msg.content, { 'x-attempt': attempt + 1, 'x-retry-reason': final.reason }, correlationId);
          break;
        }
        case 'dead-letter':
          log('dead-lettering message', { topic: spec.name, attempt, reason: final.reason });
          await publishRaw(n.dead, spec.name, msg.content, { 'x-attempt': attempt, 'x-dead-reason': final.reason }, correlationId);
          break;
      }
      // Ack only after the copy is confirmed: a crash in between duplicates the message, never loses it.
      ch.ack(msg);
    } catch (err) {
      log('could not settle message; returning it to the queue', { topic: spec.name, outcome: final.kind, error: errorMessage(err) });
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
    await settle(c, ch, msg, attempt, outcome);
  }

  function track(p: Promise<void>): void {
    const guarded = p.catch((err: unknown) => log('unexpected error handling a delivery', { error: errorMessage(err) }));
    inFlight.add(guarded);
    void guarded.finally(() => inFlight.delete(guarded));
  }

  async function startConsumer(c: Consumer, conn: ChannelModel): Promise<void> {
    const ch = await conn.createChannel();
    c.channel = ch;
    ch.on('error', (err: Error) => log('consumer channel error', { topic: c.topic, error: err.message }));
    ch.on('close', () => {
      if (c.channel !== ch) return;
      c.channel = null;
      c.consumerTag = null;
      // A channel lost with its connection is re-created by the reconnect; one lost alone (a
      // channel error, consumer_timeout, the broker cancelling) is restarted here.
      const delay = backoff(c.restarts++);
      later(delay, () => {
        if (closing || c.cancelled || model !== conn || c.channel !== null) return;
        startConsumer(c, conn).catch((err: unknown) => log('could not restart consumer', { topic: c.topic, error: errorMessage(err) }));
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
        track(handleDelivery(c, ch, msg));
      },
      { noAck: false },
    );
    c.consumerTag = consumerTag;
    c.restarts = 0;
  }

  async function establish(): Promise<void> {
    const conn = await connect(url, {
      timeout: CONNECT_TIMEOUT_MS,
      // Shown by `rabbitmqctl list_connections client_properties` and the management UI.
      clientProperties: { connection_name: `mediagate ${prefix}` },
    });
    conn.on('error', (err: Error) => log('RabbitMQ connection error', { error: err.message }));
    conn.on('close', (err?: Error) => onConnectionClosed(conn, err));
    conn.on('blocked', (reason: string) => {
      blockedReason = reason;
      log('RabbitMQ blocked publishing', { reason });
    });
    conn.on('unblocked', () => {
      blockedReason = null;
      log('RabbitMQ unblocked publishing');
    });
    try {
      if (topics.size > 0) await declare(conn, topics.values());
      const pub = await openPublisher(conn);
      if (closing) throw new Error('queue closed while connecting');
      model = conn;
      publisher = pub;
    } catch (err) {
      void conn.close().catch(() => {});
      throw err;
    }
    for (const c of consumers) {
      if (c.cancelled) continue;
      startConsumer(c, conn).catch((err: unknown) => log('could not start consumer', { topic: c.topic, error: errorMessage(err) }));
    }
  }

  function onConnectionClosed(conn: ChannelModel, err: Error | undefined): void {
    if (model !== conn) return;
    model = null;
    publisher = null;
    blockedReason = null;
    for (const c of consumers) {
      c.channel = null;
      c.consumerTag = null;
    }
    if (closing) return;
    log('lost connection to RabbitMQ; reconnecting', { error: err?.message });
    reconnect(0);
  }

  function reconnect(attempt: number): void {
    later(backoff(attempt), () => {
      if (closing) return;
      establish().then(
        () => log('reconnected to RabbitMQ', { attempts: attempt + 1 }),
        (err: unknown) => {
          log('reconnect to RabbitMQ failed', { attempt: attempt + 1, error: errorMessage(err) });
          if (!closing) reconnect(attempt + 1);
        },
      );
    });
  }

  async function cancelConsumers(): Promise<void> {
    for (const c of consumers) {
      c.cancelled = true;
      const { channel, consumerTag } = c;
      c.consumerTag = null;
      if (channel !== null && consumerTag !== null) {
        await channel.cancel(consumerTag).catch((err: unknown) => log('could not cancel consumer', { topic: c.topic, error: errorMessage(err) }));
      }
    }
  }

  async function shutdown(): Promise<void> {
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    await cancelConsumers();
    // Handlers still running settle through the publisher, so the connection stays open meanwhile;
    // past the grace period their messages are requeued by the broker when the connection closes.
    const left = await drain(inFlight);
    if (left > 0) log('closing with handlers still running; their messages will be redelivered', { count: left });
    // Acks are sent without a reply; closing each channel first flushes them in order, whereas
    // closing the connection straight away can overtake them and get the messages redelivered.
    for (const c of consumers) {
      const ch = c.channel;
      c.channel = null;
      if (ch !== null) await ch.close().catch(() => {});
    }
    const conn = model;
    model = null;
    publisher = null;
    if (conn !== null) await conn.close().catch((err: unknown) => log('error closing RabbitMQ connection', { error: errorMessage(err) }));
  }

  async function messageCount(queue: string): Promise<number> {
    const conn = model;
    if (conn === null || closing) throw unavailable('not connected');
    try {
      // checkQueue on a missing queue closes its channel, so it gets one of its own.
      const ch = await conn.createChannel();
      ch.on('error', () => {});
      const { messageCount: count } = await ch.checkQueue(queue);
      await ch.close();
      return count;
    } catch (err) {
      if (model !== conn) throw unavailable(errorMessage(err));
      throw err;
    }
  }

  try {
    await establish();
  } catch (err) {
    throw new QueueUnavailableError(`cannot connect to RabbitMQ: ${errorMessage(err)}`);
  }

  return {
    durable: true,

    async setup(specs) {
      for (const spec of specs) validateTopic(spec);
      // Remembered before declaring so a reconnect re-declares them even if this attempt fails.
      for (const spec of specs) topics.set(spec.name, spec);
      const conn = model;
      if (conn === null || closing) throw unavailable('not connected');
      try {
        await declare(conn, specs);
      } catch (err) {
        if (model !== conn) throw unavailable(errorMessage(err));
        throw err;
      }
    },

    async publish(topic, body, publishOpts = {}) {
      const spec = requireTopic(topic);
      const attempt = publishOpts.attempt ?? 0;
      const json = encodeMessage(body, attempt);
      if (closing) throw unavailable('queue is closed');
      // Refused rather than queued: a blocked broker withholds confirms until it has room again.
      if (blockedReason !== null) throw unavailable(`broker blocked publishing: ${blockedReason}`);
      const to = routeFor(spec, publishOpts.delayMs ?? 0);
      await publishRaw(to.exchange, to.routingKey, Buffer.from(json, 'utf8'), { 'x-attempt': attempt }, randomUUID());
    },

    async consume<T>(topic: string, handler: Handler<T>, consumeOpts: { prefetch: number }) {
      requireTopic(topic);
      if (!Number.isSafeInteger(consumeOpts.prefetch) || consumeOpts.prefetch < 1) {
        throw new Error(`prefetch must be a positive integer, got ${consumeOpts.prefetch}`);
      }
      if (closing) throw unavailable('queue is closed');
      const c: Consumer = {
        topic,
        // The body is validated by the handler; this transport only guarantees it is parsed JSON.
        handler: handler as Handler<unknown>,
        prefetch: consumeOpts.prefetch,
        channel: null,
        consumerTag: null,
        cancelled: false,
        restarts: 0,
      };
      consumers.push(c);
      const conn = model;
      // While disconnected the registration stands and the reconnect starts it.
      if (conn === null) {
        log('not connected; consumer starts on reconnect', { topic });
        return;
      }
      try {
        await startConsumer(c, conn);
      } catch (err) {
        if (model !== conn) return;
        c.cancelled = true;
        consumers.splice(consumers.indexOf(c), 1);
        throw err;
      }
    },

    async ping() {
      const ch = publisher;
      if (ch === null || closing) throw unavailable('not connected');
      let timer: NodeJS.Timeout | undefined;
      try {
        // amq.direct exists in every vhost, so the check cannot fail with 404 and close the channel.
        await Promise.race([
          ch.checkExchange('amq.direct'),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no reply within ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS);
          }),
        ]);
      } catch (err) {
        throw unavailable(errorMessage(err));
      } finally {
        clearTimeout(timer);
      }
    },

    async depth(topic) {
      return messageCount(topologyNames(prefix, requireTopic(topic).name).queue);
    },

    async deadLetterCount(topic) {
      return messageCount(topologyNames(prefix, requireTopic(topic).name).deadQueue);
    },

    stopConsuming() {
      return cancelConsumers();
    },

    drain(graceMs) {
      return drain(inFlight, graceMs);
    },

    close() {
      if (closed === null) {
        closing = true;
        closed = shutdown();
      }
      return closed;
    },
  };
}
