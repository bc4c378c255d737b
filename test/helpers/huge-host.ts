// A local host whose answer is a JSON-looking body far larger than a client should read, written
// as fast as the client reads it: for tests that a reader stops at its cap and closes the
// connection. A real socket, because nock buffers a whole reply before fetch sees any of it.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ExecutionContext } from 'ava';

export interface HugeAnswer {
  /** bytes of padding written before the connection closed */
  written: number;
  closed: Promise<void>;
}

/**
 * Answers every request with `status` and `{<prefix>"pad":"aaaa…"}`, `total` bytes of padding in
 * chunks of `chunkBytes` (bounded, so a client that reads it all still ends).
 */
export async function hugeHost(t: ExecutionContext, opts: { status?: number; total: number; chunkBytes?: number; prefix?: string }) {
  const { status = 200, total, chunkBytes = 1024 * 1024, prefix = '' } = opts;
  const answers: HugeAnswer[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    const answer: HugeAnswer = { written: 0, closed: new Promise<void>((resolve) => res.on('close', () => resolve())) };
    answers.push(answer);
    res.writeHead(status, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(chunkBytes, 'a');
    res.write(`{${prefix}"pad":"`);
    const write = () => {
      while (!res.destroyed && answer.written < total) {
        answer.written += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', write);
          return;
        }
      }
      if (!res.destroyed) res.end('"}');
    };
    write();
  });
  const sockets = new Set<Socket>();
  server.on('connection', (s) => sockets.add(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, answers, total };
}

/** Resolves true when the answer's connection was closed within a second, before all of it was sent. */
export async function cutOff(answer: HugeAnswer | undefined, total: number): Promise<boolean> {
  if (!answer) return false;
  const closed = await Promise.race([answer.closed.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1000))]);
  return closed && answer.written < total;
}
