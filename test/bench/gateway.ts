// One gateway role for the benchmark, in its own process(es): `node test/bench/gateway.ts [processes]`
// with the gateway's environment (ROLE=api or ROLE=worker, DATABASE_URL, AMQP_URL, ...).
// With processes > 1 (ROLE=api) it is a node:cluster primary that forks that many gateways sharing
// one port (the primary only accepts connections and hands them out round-robin).
// Prints {"ready": true, "port": n|null, "pids": [...]} once every process is up; answers
//   {"cmd":"stats"} -> {"queries": n, "served2xx": n, "byPid": {pid: n}}  (knex queries issued, BEGIN/COMMIT
//                      included, and 2xx responses sent, summed over the processes: round trips per
//                      request counted where they happen, requests counted by the server, so a client
//                      abandoning requests in flight at the end of a run does not skew the ratio)
// SIGTERM stops the gateway(s) the way main.ts does (drain, then exit).
import cluster from 'node:cluster';
import { createInterface } from 'node:readline';
import { start } from '../../main.ts';

const PROCESSES = Math.max(1, Number(process.argv[2] ?? 1) || 1);
const send = (message: object) => process.stdout.write(`${JSON.stringify(message)}\n`);

interface Ready { ready: true; pid: number; port: number | null }
interface Stats { stats: true; pid: number; queries: number; served2xx: number }

function watchParent(stop: () => void): void {
  // The benchmark going away (crash, kill -9) must not leave gateways behind.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) stop();
  }, 1_000).unref();
}

if (cluster.isPrimary && PROCESSES > 1) {
  const workers = Array.from({ length: PROCESSES }, () => cluster.fork());
  const ready = await Promise.all(workers.map((w) => new Promise<Ready>((resolve, reject) => {
    w.once('exit', (code) => reject(new Error(`cluster worker exited (code ${code}) before it was ready`)));
    w.on('message', (m: Ready | Stats) => {
      if ('ready' in m) resolve(m);
    });
  })));
  send({ ready: true, port: ready[0]!.port, pids: [process.pid, ...ready.map((r) => r.pid)] });
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    const cmd = (JSON.parse(line) as { cmd: string }).cmd;
    if (cmd !== 'stats') return;
    void Promise.all(workers.map((w) => new Promise<Stats>((resolve) => {
      const onMessage = (m: Ready | Stats) => {
        if ('stats' in m) {
          w.off('message', onMessage);
          resolve(m);
        }
      };
      w.on('message', onMessage);
      w.send({ cmd: 'stats' });
    }))).then((all) => send({ queries: all.reduce((a, s) => a + s.queries, 0), served2xx: all.reduce((a, s) => a + s.served2xx, 0), byPid: Object.fromEntries(all.map((s) => [s.pid, s.queries])) }));
  });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void Promise.all(workers.map((w) => new Promise<void>((resolve) => {
      if (w.isDead()) {
        resolve();
        return;
      }
      w.once('exit', () => resolve());
      w.process.kill('SIGTERM');
    }))).then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  watchParent(stop);
} else {
  const running = await start(process.env);
  let queries = 0;
  running.app.db.on('query', () => {
    queries++;
  });
  let served2xx = 0;
  running.server?.events.on('response', (request) => {
    const res = request.response as { statusCode?: number; output?: { statusCode: number } } | null;
    const code = res?.statusCode ?? res?.output?.statusCode ?? 0;
    if (code >= 200 && code < 300) served2xx++;
  });
  const port = running.server ? running.server.info.port as number : null;
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    running.stop().then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  watchParent(stop);
  if (cluster.isWorker) {
    process.on('message', (m: { cmd?: string }) => {
      if (m.cmd === 'stats') process.send!({ stats: true, pid: process.pid, queries, served2xx } satisfies Stats);
    });
    process.send!({ ready: true, pid: process.pid, port } satisfies Ready);
  } else {
    createInterface({ input: process.stdin }).on('line', (line) => {
      if ((JSON.parse(line) as { cmd: string }).cmd === 'stats') send({ queries, served2xx, byPid: { [process.pid]: queries } });
    });
    send({ ready: true, port, pids: [process.pid] });
  }
}
