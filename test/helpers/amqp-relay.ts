// A TCP relay in front of the shared RabbitMQ that a test can freeze. Frozen, it stops passing the
// client's bytes to the broker while the broker's (heartbeats) still reach the client: what a
// broker under a resource alarm does to a connection (it stops reading its socket), or a network
// path that drops one direction. Every call that waits for a broker reply then hangs, and nothing
// of the broker itself is touched.
import net from 'node:net';
import { AMQP_URL } from './services.ts';

export interface StallingRelay {
  /** AMQP_URL through the relay */
  url: string;
  /** from now on the client's bytes are dropped */
  freeze(): void;
  /**
   * Closes the relay and every connection through it, then lets the clients of this process see
   * their connection go: amqplib never settles a connection close() called before it noticed the
   * socket was gone, so a gateway stopped right after would wait forever.
   */
  close(): Promise<void>;
}

export async function stallingRelay(): Promise<StallingRelay> {
  const upstream = new URL(AMQP_URL);
  const sockets = new Set<net.Socket>();
  let frozen = false;
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
      if (!frozen) broker.write(chunk);
    });
    broker.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(AMQP_URL);
  url.host = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return {
    url: url.toString(),
    freeze() {
      frozen = true;
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      // a timer fires only after a turn of the loop's I/O, where a client socket reads its end
      await new Promise((resolve) => setTimeout(resolve, 50));
    },
  };
}
