// Baseline for the benchmark: a bare hapi server with one GET route returning {ok: true}, run as
// its own process so that it has an event loop to itself, like the gateway it is compared with.
// Usage: node test/bench/bare-hapi.ts [port]   (prints {"port": <n>} once listening)
import Hapi from '@hapi/hapi';

const port = Number(process.argv[2] ?? 0);
const server = Hapi.server({ port, host: '127.0.0.1', load: { sampleInterval: 0 } });
server.route({ method: 'GET', path: '/ok', options: { auth: false, handler: () => ({ ok: true }) } });
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
