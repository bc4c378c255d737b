// Publishing with publisher confirms on one confirm channel per connection: a publish resolves once
// the broker has the message (persisted, routed) and rejects with QueueUnavailableError otherwise.
// The channel is reopened when it dies alone; backpressure holds later publishes while the socket
// buffer drains. A publish waits at most `confirmTimeoutMs` in all: a broker that stops reading
// its socket (a resource alarm) keeps the connection up, heartbeats and all, and would otherwise
// hold every publish, and everything waiting on one, until it reads again.

import { randomUUID } from 'node:crypto';
import type { ChannelModel, ConfirmChannel, Message } from 'amqplib';
import type { QueueLog } from '../types.ts';
import { errorMessage } from '../message.ts';
import { unavailable } from './connection.ts';
import type { AmqpConnection } from './connection.ts';
import type { Route } from './topology.ts';
import { within } from '../../../lib/within.ts';

export interface Publisher {
  /** the confirm channel in use, or null while disconnected */
  readonly channel: ConfirmChannel | null;
  /** opens a confirm channel on a fresh connection; `use` it once the connection is up */
  open(conn: ChannelModel): Promise<ConfirmChannel>;
  use(ch: ConfirmChannel): void;
  /** the connection went away */
  reset(): void;
  /** resolves once the broker confirmed the message */
  publish(to: Route, content: Buffer, headers: Record<string, unknown>, correlationId: string): Promise<void>;
}

/** The longest a publish waits for room in the socket buffer and then its confirm, unless told otherwise. */
export const CONFIRM_TIMEOUT_MS = 10_000;

export function amqpPublisher(connection: AmqpConnection, log: QueueLog, confirmTimeoutMs = CONFIRM_TIMEOUT_MS): Publisher {
  // Confirms are matched by the callback amqplib keeps per delivery tag; this map only serves the
  // `return` listener, which identifies a message by its properties alone.
  const awaitingConfirm = new Map<string, (err: Error) => void>();
  let publisher: ConfirmChannel | null = null;
  let backpressure: Promise<void> | null = null;

  async function open(conn: ChannelModel): Promise<ConfirmChannel> {
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
        if (connection.closing || connection.current !== conn) return;
        log('publish channel closed; reopening');
        open(conn).then(
          (fresh) => {
            if (connection.closing || connection.current !== conn) void fresh.close().catch(() => {});
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

  /** Resolves once the socket buffer has room; false if the deadline passed first. */
  async function room(deadline: number): Promise<boolean> {
    while (backpressure !== null) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await within(backpressure, left);
    }
    return true;
  }

  async function publish(to: Route, content: Buffer, headers: Record<string, unknown>, correlationId: string): Promise<void> {
    const deadline = Date.now() + confirmTimeoutMs;
    if (!(await room(deadline))) throw unavailable(`no room to publish within ${confirmTimeoutMs} ms (the broker is not reading)`);
    const ch = publisher;
    if (ch === null) throw unavailable('not connected');
    const messageId = randomUUID();
    return new Promise<void>((resolveConfirmed, rejectConfirmed) => {
      // Past the deadline the publish fails as unconfirmed; the broker may still take the message
      // (a caller that publishes again may then duplicate it, as after a lost confirm: never lose it).
      const timer = setTimeout(() => {
        if (awaitingConfirm.delete(messageId)) rejectConfirmed(unavailable(`message not confirmed within ${confirmTimeoutMs} ms`));
      }, Math.max(1, deadline - Date.now()));
      const resolve = () => { clearTimeout(timer); resolveConfirmed(); };
      const reject = (err: Error) => { clearTimeout(timer); rejectConfirmed(err); };
      awaitingConfirm.set(messageId, reject);
      let hasRoom: boolean;
      try {
        hasRoom = ch.publish(
          to.exchange,
          to.routingKey,
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

  return {
    get channel() {
      return publisher;
    },
    open,
    use(ch) {
      publisher = ch;
    },
    reset() {
      publisher = null;
    },
    publish,
  };
}
