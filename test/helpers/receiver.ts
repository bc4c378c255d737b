// A real local webhook receiver whose answers the test scripts.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { callOperation } from './operation.ts';
import type { TestGateway } from './gateway.ts';
import { waitFor } from './services.ts';

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

/** Whether `r` carries a Standard Webhooks signature that verifies with `secret`. */
export function verifiesWith(secret: string, r: Received): boolean {
  try {
    new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

/**
 * Submits `model` with `input` as `as`, with a webhook to a fresh receiver (closed when the test
 * ends), and resolves with the one delivery it gets.
 */
export async function deliveredTo(
  gw: TestGateway, t: { teardown(fn: () => Promise<void>): void }, as: string,
  model: string, input: Record<string, unknown>, query: Record<string, string | number> = {},
): Promise<Received> {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const res = await callOperation(gw, model, { as, body: input, query: { ...query, webhook: receiver.url } });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  await waitFor(() => receiver.received.length === 1, { what: 'the delivery', timeoutMs: 30_000 });
  return receiver.received[0]!;
}
