// Webhook receiver for the benchmark: answers every POST with 204 and counts them, in its own
// process so it does not share the gateway's event loop. Prints {"port": n} once listening;
// answers GET /count with {"count": n, "first": ms, "last": ms}.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

let count = 0;
let first = 0;
let last = 0;
const server = http.createServer((req, res) => {
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count, first, last }));
    return;
  }
  req.resume();
  req.on('end', () => {
    const now = Date.now();
    if (count === 0) first = now;
    count++;
    last = now;
    res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.exit(0);
}, 1_000).unref();
process.on('SIGTERM', () => process.exit(0));
