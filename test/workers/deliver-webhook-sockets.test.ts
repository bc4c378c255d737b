// What a delivery leaves open: a receiver that keeps every connection open after its answer (no
// idle timeout of its own) must not hold a worker's socket for ever. Each receiver (each host a
// user names) would otherwise keep one more socket open in every worker, until the workers run
// out of file descriptors. Real local receivers, under the insecure-destination test switch.
import test from 'ava';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { sendWebhook, WEBHOOK_IDLE_SOCKET_MS } from '../../workers/deliver-webhook.ts';

const insecure = { allowInsecure: true };

/** A receiver that answers 204 at once and never closes a connection itself. */
async function holdingReceiver(t: import('ava').ExecutionContext) {
  const open = new Set<Socket>();
  const closed: Promise<void>[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  server.keepAliveTimeout = 0;
  server.on('connection', (s: Socket) => {
    open.add(s);
    closed.push(new Promise((resolve) => s.on('close', () => {
      open.delete(s);
      resolve();
    })));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const s of open) s.destroy();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, open, closed };
}

test('an idle connection to a receiver that never closes it is closed by the gateway', async (t) => {
  const receiver = await holdingReceiver(t);
  const r = await sendWebhook(receiver.url, '{}', {}, { timeoutMs: 2000, policy: insecure });
  t.is(r.statusCode, 204);
  t.is(receiver.closed.length, 1);
  const within = WEBHOOK_IDLE_SOCKET_MS + 2000;
  const closed = await Promise.race([receiver.closed[0]!.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), within))]);
  t.true(closed, `the worker closes its idle connection within ${within} ms`);
  t.is(receiver.open.size, 0);
});

test('a connection kept alive between two deliveries to one receiver is reused while it is fresh', async (t) => {
  const receiver = await holdingReceiver(t);
  t.is((await sendWebhook(receiver.url, '{}', {}, { timeoutMs: 2000, policy: insecure })).statusCode, 204);
  t.is((await sendWebhook(receiver.url, '{}', {}, { timeoutMs: 2000, policy: insecure })).statusCode, 204);
  t.is(receiver.closed.length, 1, 'one connection for both');
});
