// Baseline for the benchmark: a bare hapi server in its own process (an event loop to itself, like
// the gateway it is compared with), on the gateway's paths so both get the very same requests:
//   POST /api/v1/{model}                       parses the JSON body, answers {"request_id": <uuid>}
//   GET  /api/v1/predictions/{id}/result       answers a small JSON object
// No authentication, no database, no queue: what hapi and Node cost for the same HTTP exchange.
// Usage: node test/bench/bare-hapi.ts [port]   (prints {"port": <n>} once listening)
import Hapi from '@hapi/hapi';
import { bareRoutes } from './bare-routes.ts';

const port = Number(process.argv[2] ?? 0);
const server = Hapi.server({ port, host: '127.0.0.1', load: { sampleInterval: 0 } });
server.route(bareRoutes('/api/v1/{model}', '/api/v1/predictions/{id}/result', 'id'));
await server.start();
process.stdout.write(`${JSON.stringify({ port: server.info.port })}\n`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  server.stop({ timeout: 1_000 }).then(() => process.exit(0), () => process.exit(1));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The parent going away (crash, kill -9) must not leave this server behind.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stop();
}, 1_000).unref();
