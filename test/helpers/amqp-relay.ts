// A TCP relay in front of the shared RabbitMQ that a test can cut or freeze; nothing of the broker
// itself is touched.
// - Cut, it closes every connection through it and stops listening, standing in for a network
//   outage, until restored on the same port.
// - Frozen, it holds back the client's bytes while the broker's (heartbeats) still reach the
//   client: what a broker under a resource alarm does to a connection (it stops reading its
//   socket), or a network path that drops one direction. Every call that waits for a broker reply
//   then hangs; thawed, the bytes held back go on, in order.
import net from 'node:net';
import { AMQP_URL } from './services.ts';

export interface AmqpRelay {
  /** AMQP_URL through the relay */
  url: string;
  /** from now on the client's bytes are held back */
  freeze(): void;
  /** the bytes held back go on to the broker, and the next ones too */
  thaw(): void;
  /** closes every connection through the relay and stops listening */
  cut(): Promise<void>;
  /** listens again, on the same port */
  restore(): Promise<void>;
  /**
   * Cuts the relay, then lets the clients of this process see their connection go: amqplib never
   * settles a connection close() called before it noticed the socket was gone, so a gateway
   * stopped right after would wait forever.
   */
  close(): Promise<void>;
}

/** The relay of a test that only freezes it (and closes it when done). */
export type StallingRelay = Pick<AmqpRelay, 'url' | 'freeze' | 'close'>;

export async function amqpRelay(): Promise<AmqpRelay> {
  const upstream = new URL(AMQP_URL);
  const sockets = new Set<net.Socket>();
  let frozen = false;
  const held: Array<() => void> = [];
  const server = net.createServer((client) => {
    const broker = net.connect(Number(upstream.port || 5672), upstream.hostname);
    for (const s of [client, broker]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        broker.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => {
      if (frozen) held.push(() => broker.write(chunk));
      else broker.write(chunk);
    });
    broker.pipe(client);
  });
  const listen = (port: number): Promise<void> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const { port } = server.address() as net.AddressInfo;
  const url = new URL(AMQP_URL);
  url.host = `127.0.0.1:${port}`;
  const cut = () => new Promise<void>((resolve) => {
    server.close(() => resolve());
    for (const s of sockets) s.destroy();
  });
  return {
    url: url.toString(),
    freeze() {
      frozen = true;
    },
    thaw() {
      frozen = false;
      for (const write of held.splice(0)) write();
    },
    cut,
    restore: () => listen(port),
    async close() {
      await cut();
      // a timer fires only after a turn of the loop's I/O, where a client socket reads its end
      await new Promise((resolve) => setTimeout(resolve, 50));
    },
  };
}

/** A relay a test freezes to stall every call to the broker. */
export const stallingRelay = (): Promise<StallingRelay> => amqpRelay();
