// Catalog reloads across processes (docs/operating/model-files.md, "Reloading the catalog"): a
// fanout exchange `<prefix>.catalog` that every API and worker process binds an exclusive,
// auto-delete queue to. A process that reloaded its catalog publishes the new catalog's
// fingerprint; every process (the sender too, which ignores it: it runs that catalog already)
// reads its own files again unless it already runs that catalog (lib/catalog-reload.ts
// followBroadcast). A process that was disconnected when a reload was announced does not hear it:
// it rejoins with the catalog it had; a reload (SIGHUP) of that process catches it up.
import type { Channel, ChannelModel, ConsumeMessage } from 'amqplib';
import { amqpConnection } from './connection.ts';
import type { AmqpConnection } from './connection.ts';
import type { QueueLog } from '../types.ts';
import { errorMessage } from '../message.ts';

export interface CatalogBroadcast {
  /** announces a catalog this process now runs */
  publish(fingerprint: string): Promise<void>;
  close(): Promise<void>;
}

export function catalogExchange(prefix: string): string {
  return `${prefix}.catalog`;
}

function fingerprintOf(msg: ConsumeMessage): string | null {
  try {
    const body = JSON.parse(msg.content.toString('utf8')) as { fingerprint?: unknown };
    return typeof body.fingerprint === 'string' && /^[0-9a-f]{64}$/.test(body.fingerprint) ? body.fingerprint : null;
  } catch {
    return null;
  }
}

export async function createCatalogBroadcast(opts: { url: string; prefix: string; log: QueueLog; onReload: (fingerprint: string) => void }): Promise<CatalogBroadcast> {
  const { log, onReload } = opts;
  const exchange = catalogExchange(opts.prefix);
  let channel: Channel | null = null;

  const connection: AmqpConnection = amqpConnection<Channel>(opts.url, `${opts.prefix} catalog`, log, {
    async prepare(conn: ChannelModel) {
      const ch = await conn.createChannel();
      ch.on('error', (err: Error) => log('catalog broadcast channel error', { error: err.message }));
      // a lost channel on a live connection: start over on a fresh connection
      ch.on('close', () => { if (channel === ch) void conn.close().catch(() => {}); });
      await ch.assertExchange(exchange, 'fanout', { durable: true });
      const q = await ch.assertQueue('', { exclusive: true, autoDelete: true });
      await ch.bindQueue(q.queue, exchange, '');
      await ch.consume(q.queue, (msg) => {
        if (msg === null) return;
        const fingerprint = fingerprintOf(msg);
        if (fingerprint === null) log('catalog broadcast: an unreadable message was ignored');
        else onReload(fingerprint);
      }, { noAck: true });
      return ch;
    },
    up(_conn, ch) {
      channel = ch;
    },
    down() {
      channel = null;
    },
  });
  await connection.open();

  return {
    async publish(fingerprint) {
      const ch = channel;
      if (!ch) throw new Error('not connected to RabbitMQ');
      try {
        ch.publish(exchange, '', Buffer.from(JSON.stringify({ fingerprint })));
      } catch (err) {
        throw new Error(`could not publish: ${errorMessage(err)}`);
      }
    },
    async close() {
      connection.beginClose();
      await connection.end();
    },
  };
}
