// A real local webhook receiver whose answers the test scripts.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  at: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Answers a request: a status (and headers, and a body other than the usual greeting), or 'hang' to never answer. */
export type Responder = (n: number, r: Received) => { status: number; headers?: Record<string, string>; body?: string | Buffer } | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  respond: Responder;
  close(): Promise<void>;
}

export async function startReceiver(respond: Responder = () => ({ status: 200 })): Promise<Receiver> {
  const sockets = new Set<import('node:net').Socket>();
  const state: Receiver = {
    url: '',
    received: [],
    respond,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { at: Date.now(), headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      state.received.push(r);
      const answer = state.respond(state.received.length, r);
      if (answer === 'hang') return;
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers }).end(answer.body ?? 'receiver says hello');
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return state;
}
