// In-process transport for the embedded single-process mode and for tests. It mirrors the RabbitMQ
// transport's observable behaviour (FIFO per topic, prefetch, delay rounding, dead-lettering, JSON
// copies of bodies) but keeps nothing across a restart, hence durable = false.

import { laterCopy, pickRetryDelay, validateTopic } from './topics.ts';
import { QueueUnavailableError } from './types.ts';
import type { Handler, Outcome, Queue, QueueLog, TopicSpec } from './types.ts';
import { drain } from './drain.ts';
import { encodeMessage, errorMessage } from './message.ts';

interface Envelope {
  /** stored serialised so every delivery gets its own copy, as with a broker */
  json: string;
  attempt: number;
}

interface MemoryConsumer {
  handler: Handler<unknown>;
  prefetch: number;
  active: number;
}

interface TopicState {
  spec: TopicSpec;
  ready: Envelope[];
  consumers: MemoryConsumer[];
  /** round-robin cursor, so consumers share a topic as they would share a RabbitMQ queue */
  next: number;
  dead: Array<Envelope & { reason: string }>;
}

export function createMemoryQueue(opts: { log?: QueueLog } = {}): Queue {
  const log: QueueLog = opts.log ?? (() => {});
  const topics = new Map<string, TopicState>();
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();
  let closing = false;
  /** stopConsuming(): nothing more is handed to consumers, messages stay ready */
  let stopped = false;
  let closed: Promise<void> | null = null;

  function topicState(topic: string): TopicState {
    const st = topics.get(topic);
    if (st === undefined) throw new Error(`queue topic ${JSON.stringify(topic)} is not set up`);
    return st;
  }

  function enqueueAfter(st: TopicState, env: Envelope, delayMs: number): void {
    const delay = delayMs > 0 ? (pickRetryDelay(st.spec.retryDelaysMs, delayMs) ?? 0) : 0;
    if (delay === 0) {
      st.ready.push(env);
      dispatch(st);
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      st.ready.push(env);
      dispatch(st);
    }, delay);
    timers.add(timer);
  }

  function idleConsumer(st: TopicState): MemoryConsumer | undefined {
    const n = st.consumers.length;
    for (let i = 0; i < n; i++) {
      const c = st.consumers[(st.next + i) % n];
      if (c !== undefined && c.active < c.prefetch) {
        st.next = (st.next + i + 1) % n;
        return c;
      }
    }
    return undefined;
  }

  function dispatch(st: TopicState): void {
    while (!closing && !stopped && st.ready.length > 0) {
      const c = idleConsumer(st);
      if (c === undefined) return;
      const env = st.ready.shift();
      if (env === undefined) return;
      c.active++;
      // Handlers run on a later tick, as broker deliveries do, so a handler that publishes never
      // re-enters this loop.
      const run = Promise.resolve()
        .then(() => deliver(st, c, env))
        .catch((err: unknown) => log('unexpected error handling a delivery', { topic: st.spec.name, error: errorMessage(err) }))
        .finally(() => {
          c.active--;
          dispatch(st);
        });
      inFlight.add(run);
      void run.finally(() => inFlight.delete(run));
    }
  }

  async function deliver(st: TopicState, c: MemoryConsumer, env: Envelope): Promise<void> {
    const { spec } = st;
    let outcome: Outcome;
    let body: unknown;
    try {
      body = JSON.parse(env.json);
      outcome = await c.handler({ body, attempt: env.attempt, redelivered: false });
    } catch (err) {
      log('handler threw; retrying', { topic: spec.name, attempt: env.attempt, error: errorMessage(err) });
      outcome = { kind: 'retry', delayMs: spec.retryDelaysMs[0] ?? 0, reason: `handler threw: ${errorMessage(err)}` };
    }
    if (outcome.kind === 'retry' && env.attempt >= spec.maxRetries) {
      outcome = { kind: 'dead-letter', reason: `gave up after ${env.attempt} retries: ${outcome.reason}` };
    }
    switch (outcome.kind) {
      case 'ack':
        return;
      case 'requeue':
        // Back to the head of the queue, as RabbitMQ does with a requeued message. The in-process
        // queue keeps nothing across a restart: the embedded start-up recovers it from the database.
        st.ready.unshift(env);
        if (!stopped) dispatch(st);
        return;
      case 'retry':
        if (closing) {
          log('queue closing; dropping a retry', { topic: spec.name, attempt: env.attempt });
          return;
        }
        enqueueAfter(st, { json: laterCopy(spec, env.json, body), attempt: env.attempt + 1 }, outcome.delayMs);
        return;
      case 'dead-letter':
        log('dead-lettering message', { topic: spec.name, attempt: env.attempt, reason: outcome.reason });
        st.dead.push({ ...env, json: laterCopy(spec, env.json, body), reason: outcome.reason });
        return;
    }
  }

  async function shutdown(): Promise<void> {
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    const left = await drain(inFlight);
    if (left > 0) log('closing with handlers still running', { count: left });
  }

  return {
    durable: false,

    async setup(specs) {
      for (const spec of specs) validateTopic(spec);
      for (const spec of specs) {
        const st = topics.get(spec.name);
        if (st === undefined) topics.set(spec.name, { spec, ready: [], consumers: [], next: 0, dead: [] });
        else st.spec = spec;
      }
    },

    async publish(topic, body, publishOpts = {}) {
      const st = topicState(topic);
      const attempt = publishOpts.attempt ?? 0;
      const json = encodeMessage(body, attempt);
      if (closing) throw new QueueUnavailableError('in-process queue is closed');
      enqueueAfter(st, { json, attempt }, publishOpts.delayMs ?? 0);
    },

    async consume<T>(topic: string, handler: Handler<T>, consumeOpts: { prefetch: number }) {
      const st = topicState(topic);
      if (!Number.isSafeInteger(consumeOpts.prefetch) || consumeOpts.prefetch < 1) {
        throw new Error(`prefetch must be a positive integer, got ${consumeOpts.prefetch}`);
      }
      if (closing) throw new QueueUnavailableError('in-process queue is closed');
      st.consumers.push({ handler: handler as Handler<unknown>, prefetch: consumeOpts.prefetch, active: 0 });
      dispatch(st);
    },

    async ping() {
      if (closing) throw new QueueUnavailableError('in-process queue is closed');
    },

    async depth(topic) {
      return topicState(topic).ready.length;
    },

    async deadLetterCount(topic) {
      return topicState(topic).dead.length;
    },

    async stopConsuming() {
      stopped = true;
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
