// A/B of the API process's CPU per request between two checkouts, in ONE process: each checkout's
// own gateway (its createApp/createServer, its fresh MariaDB database and RabbitMQ prefix) loaded
// side by side (two module graphs, one node_modules), driven through server.inject in small
// alternating batches (A, B, B, A, ...), the main thread's CPU (process.threadCpuUsage) read around
// each batch. Whatever else loads the machine loads both sides alike within seconds, which
// separate runs on a shared 2-core machine cannot promise (their figures moved 2-3x from one
// minute to the next).
//   node test/bench/ab-inject.ts <checkout A> <checkout B> [sandbox|read|production] [batches] [batch size]
// e.g. node test/bench/ab-inject.ts /work/wt/x-base . sandbox 40 400   (AB_DB=sqlite: see side())
// Prints each side's median CPU µs per request and the median of the paired B/A ratios (a pair is
// two neighbouring batches). No HTTP parsing or socket writes (inject), and the two sides share
// the heap, so a change in garbage is shared too; and inject weighs garbage several times more than
// a served request does (test/bench/README.md, "Garbage collection"): check such a change over sockets.
import path from 'node:path';
import { pino } from 'pino';
import type { Logger } from 'pino';
import { discardingPipe } from './lib.ts';

type Kind = 'sandbox' | 'read' | 'production';
const [dirA, dirB, kindArg = 'sandbox', batchesArg = '40', sizeArg = '400'] = process.argv.slice(2);
if (!dirA || !dirB) throw new Error('usage: node test/bench/ab-inject.ts <checkout A> <checkout B> [sandbox|read|production] [batches] [batch size]');
const kind = kindArg as Kind;
if (!['sandbox', 'read', 'production'].includes(kind)) throw new Error(`unknown kind ${kind}`);
const BATCHES = Number(batchesArg);
const SIZE = Number(sizeArg);
const CONCURRENCY = 20;
const MODEL = 'canvas-v1-fast-text-to-image';
const BODY = { prompt: 'a lighthouse at dusk', width: 64, height: 64, num_inference_steps: 1 };
// as run.ts: the generation limits far above the load, so their checks run but never refuse
const LIMITS = { GENERATE_RATE_PER_KEY: '1000000', GENERATE_RATE_PER_ACCOUNT: '1000000', GENERATE_CONCURRENT_PER_KEY: '10000', GENERATE_CONCURRENT_PER_ACCOUNT: '10000' };

interface Side {
  name: string;
  one(): Promise<number>;
  stop(): Promise<void>;
}

// AB_LOG_LEVEL (default silent, as the tests; a deployment's default is info), AB_LOG_LEVEL_A and
// AB_LOG_LEVEL_B for one side: each side's app logger at that level, its lines written as app.ts's
// logger writes stdout (pino's default destination: sonic-boom, asynchronous) into a pipe read by
// a `cat > /dev/null` child, as a deployment's stdout goes to a pipe its log collector reads.
let sink: number | null = null;
function logFor(level: string): Logger {
  if (level === 'silent') return pino({ level });
  sink ??= discardingPipe();
  return pino({ level, base: { role: 'all' } }, pino.destination({ dest: sink, sync: false }));
}

async function side(dir: string, level: string): Promise<Side> {
  const root = path.resolve(dir);
  const helpers = await import(path.join(root, 'test/helpers/gateway.ts')) as typeof import('../helpers/gateway.ts');
  // AB_DB=sqlite: the embedded default (SQLite, in-process queue): its queries run on libuv's
  // threads, so the main thread's CPU is the gateway's own code, with far less noise
  const log = logFor(level);
  const gw = await helpers.startGateway(process.env.AB_DB === 'sqlite' ? { env: LIMITS, db: 'sqlite', queue: 'memory', log } : { env: LIMITS, log });
  const keys: string[] = [];
  for (let i = 0; i < 10; i++) {
    const acct = await helpers.newAccount(gw, 1e9);
    keys.push(kind === 'production' ? acct.liveKey : acct.testKey);
  }
  const pick = <T>(a: readonly T[]) => a[Math.floor(Math.random() * a.length)]!;
  const submit = () => gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': pick(keys) }, payload: BODY });
  const rows: Array<{ id: string; key: string }> = [];
  if (kind === 'read') {
    for (let i = 0; i < 500; i++) {
      const key = keys[i % keys.length]!;
      const res = await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': key }, payload: BODY });
      rows.push({ id: (JSON.parse(res.payload) as { request_id: string }).request_id, key });
    }
  }
  const read = () => {
    const r = pick(rows);
    return gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${r.id}/result`, headers: { 'x-api-key': r.key } });
  };
  return {
    name: root,
    one: async () => (await (kind === 'read' ? read() : submit())).statusCode,
    stop: () => gw.stop(),
  };
}

async function batch(s: Side, n: number): Promise<number> {
  let done = 0;
  const t0 = process.threadCpuUsage();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (done < n) {
      done++;
      const status = await s.one();
      if (status !== 200) throw new Error(`${s.name}: ${status}`);
    }
  }));
  const t = process.threadCpuUsage(t0);
  return (t.user + t.system) / n;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const levelA = process.env.AB_LOG_LEVEL_A ?? process.env.AB_LOG_LEVEL ?? 'silent';
const levelB = process.env.AB_LOG_LEVEL_B ?? process.env.AB_LOG_LEVEL ?? 'silent';
const A = await side(dirA, levelA);
const B = await side(dirB, levelB);
// warm both (JIT, credential caches, pools)
for (let i = 0; i < 3; i++) {
  await batch(A, SIZE);
  await batch(B, SIZE);
}
const a: number[] = [];
const b: number[] = [];
for (let i = 0; i < BATCHES; i++) {
  // ABBA: neither side always runs right after the other's garbage
  if (i % 2 === 0) {
    a.push(await batch(A, SIZE));
    b.push(await batch(B, SIZE));
  } else {
    b.push(await batch(B, SIZE));
    a.push(await batch(A, SIZE));
  }
}
const ratios = a.map((x, i) => b[i]! / x);
const q = (xs: number[], f: number) => [...xs].sort((x, y) => x - y)[Math.floor(f * (xs.length - 1))]!;
console.log(JSON.stringify({
  kind, db: process.env.AB_DB ?? 'mysql', batches: BATCHES, batchSize: SIZE, loadavg: (await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' '),
  logLevel: levelA === levelB ? levelA : { A: levelA, B: levelB },
  A: { dir: A.name, medianUs: median(a).toFixed(1), minUs: Math.min(...a).toFixed(1) },
  B: { dir: B.name, medianUs: median(b).toFixed(1), minUs: Math.min(...b).toFixed(1) },
  ratioBtoA: { median: median(ratios).toFixed(3), p25: q(ratios, 0.25).toFixed(3), p75: q(ratios, 0.75).toFixed(3) },
}));
await A.stop();
await B.stop();
process.exit(0);
