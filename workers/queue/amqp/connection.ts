// The one RabbitMQ connection of a queue: connecting, noticing its loss, reconnecting with jittered
// backoff, and the broker's flow control (blocked/unblocked). What runs on a fresh connection
// (declare the topology, open the publish channel, start consumers) is the caller's, through hooks.

import { connect } from 'amqplib';
import type { ChannelModel } from 'amqplib';
import { QueueUnavailableError } from '../types.ts';
import type { QueueLog } from '../types.ts';
import { errorMessage } from '../message.ts';

const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5_000;
// Bounds the TCP/AMQP handshake so a black-holed broker fails start-up instead of hanging it.
const CONNECT_TIMEOUT_MS = 10_000;

export function unavailable(why: string): QueueUnavailableError {
  return new QueueUnavailableError(`RabbitMQ unavailable: ${why}`);
}

export function backoff(attempt: number): number {
  const base = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** attempt);
  // Jitter keeps a fleet of workers from reconnecting in lock-step after a broker restart.
  return Math.min(RECONNECT_MAX_MS, Math.round(base * (0.8 + Math.random() * 0.4)));
}

/** The parts of amqplib's connection (lib/connection.js, lib/mux.js) that coalesceWrites relies on. */
interface Muxed {
  connection?: { muxer?: { _readIncoming?: unknown; out?: { cork?: unknown; uncork?: unknown } } };
}

/**
 * amqplib queues each frame (a publish's method, header and body in one buffer; an ack; a nack) per
 * channel, and its muxer writes them to the socket once per turn of the event loop, but with one
 * `write` each: with TCP_NODELAY one system call and one segment per frame, which the broker reads
 * as separate events. Corking the socket for the muxer's pass turns a turn's frames into one
 * `writev` (test/bench/amqp-cost.ts: the publishes of a group commit's submits, the acks of a
 * group of completions). Nothing else changes: the same bytes in the same order, written in the
 * same turn; the muxer's backpressure still follows `write`'s answer. Returns false, leaving the
 * connection as it was, if amqplib's internals are not the ones this was written against.
 */
export function coalesceWrites(conn: ChannelModel): boolean {
  const muxer = (conn as unknown as Muxed).connection?.muxer;
  const pass = muxer?._readIncoming;
  const socket = muxer?.out;
  if (muxer === undefined || typeof pass !== 'function' || typeof socket?.cork !== 'function' || typeof socket.uncork !== 'function') return false;
  const { cork, uncork } = socket as { cork: () => void; uncork: () => void };
  muxer._readIncoming = function writeCorked(this: unknown): unknown {
    cork.call(socket);
    try {
      return pass.call(this) as unknown;
    } finally {
      uncork.call(socket);
    }
  };
  return true;
}

export interface ConnectionHooks<P> {
  /** on every fresh connection, before it counts as up; a throw abandons the connection */
  prepare(conn: ChannelModel): Promise<P>;
  /** the connection is up (`current` is `conn`) */
  up(conn: ChannelModel, prepared: P): void;
  /** the connection that was up is gone; a reconnect follows unless the queue is closing */
  down(): void;
}

export interface AmqpConnection {
  /** non-null only while the connection is up and prepared */
  readonly current: ChannelModel | null;
  /** why the broker blocks publishing (memory or disk alarm), or null */
  readonly blockedReason: string | null;
  readonly closing: boolean;
  /** the first connection; rejects with QueueUnavailableError */
  open(): Promise<void>;
  /** runs fn after ms unless the queue closes first */
  later(ms: number, fn: () => void): void;
  /** no more reconnects or timers; the connection stays open until end() */
  beginClose(): void;
  /** closes the connection itself */
  end(): Promise<void>;
}

export function amqpConnection<P>(url: string, prefix: string, log: QueueLog, hooks: ConnectionHooks<P>): AmqpConnection {
  const timers = new Set<NodeJS.Timeout>();
  let model: ChannelModel | null = null;
  let blockedReason: string | null = null;
  let closing = false;

  function later(ms: number, fn: () => void): void {
    // Timers armed by channels closing during close() would otherwise hold the process open.
    if (closing) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  }

  async function establish(): Promise<void> {
    const conn = await connect(url, {
      timeout: CONNECT_TIMEOUT_MS,
      // Shown by `rabbitmqctl list_connections client_properties` and the management UI.
      clientProperties: { connection_name: `mediagate ${prefix}` },
    });
    if (!coalesceWrites(conn)) log('amqplib internals differ from what coalesceWrites expects; frames are written one by one');
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
    let prepared: P;
    try {
      prepared = await hooks.prepare(conn);
      if (closing) throw new Error('queue closed while connecting');
      model = conn;
    } catch (err) {
      void conn.close().catch(() => {});
      throw err;
    }
    hooks.up(conn, prepared);
  }

  function onConnectionClosed(conn: ChannelModel, err: Error | undefined): void {
    if (model !== conn) return;
    model = null;
    blockedReason = null;
    hooks.down();
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

  return {
    get current() {
      return model;
    },
    get blockedReason() {
      return blockedReason;
    },
    get closing() {
      return closing;
    },
    async open() {
      try {
        await establish();
      } catch (err) {
        throw new QueueUnavailableError(`cannot connect to RabbitMQ: ${errorMessage(err)}`);
      }
    },
    later,
    beginClose() {
      closing = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
    async end() {
      const conn = model;
      model = null;
      if (conn !== null) await conn.close().catch((err: unknown) => log('error closing RabbitMQ connection', { error: errorMessage(err) }));
    },
  };
}
