// Publishing with publisher confirms on one confirm channel per connection: a publish resolves once
// the broker has the message (persisted, routed) and rejects with QueueUnavailableError otherwise.
// The channel is reopened when it dies alone; backpressure holds later publishes while the socket
// buffer drains.

import { randomUUID } from 'node:crypto';
import type { ChannelModel, ConfirmChannel, Message } from 'amqplib';
import type { QueueLog } from '../types.ts';
import { errorMessage } from '../message.ts';
import { unavailable } from './connection.ts';
import type { AmqpConnection } from './connection.ts';
import type { Route } from './topology.ts';

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

export function amqpPublisher(connection: AmqpConnection, log: QueueLog): Publisher {
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

  async function publish(to: Route, content: Buffer, headers: Record<string, unknown>, correlationId: string): Promise<void> {
    while (backpressure !== null) await backpressure;
    const ch = publisher;
    if (ch === null) throw unavailable('not connected');
    const messageId = randomUUID();
    return new Promise<void>((resolve, reject) => {
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
