// Profiles one request path in-process (server.inject, no HTTP): `node test/bench/profile-path.ts sandbox|read|production [n]`
// Writes a .cpuprofile to /tmp and prints the top self-time functions and the knex queries per request.
import { Session } from 'node:inspector/promises';
import fs from 'node:fs/promises';
import { printSelfTime } from './lib.ts';
import { startGateway, newAccount } from '../helpers/gateway.ts';

const kind = process.argv[2] ?? 'sandbox';
const N = Number(process.argv[3] ?? 3000);
// BENCH_GENERATE_LIMITS=off (as run.ts): no per-minute counters, to price them
const rate = process.env.BENCH_GENERATE_LIMITS === 'off' ? '0' : '1000000';
const gw = await startGateway({ worker: process.env.WORKER === '1', env: { GENERATE_RATE_PER_KEY: rate, GENERATE_RATE_PER_ACCOUNT: rate, GENERATE_CONCURRENT_PER_KEY: '10000', GENERATE_CONCURRENT_PER_ACCOUNT: '10000' } });
const acct = await newAccount(gw, 1e9);
const model = 'canvas-v1-fast-text-to-image';
const body = { prompt: 'a lighthouse at dusk', width: 64, height: 64, num_inference_steps: 1 };
const key = kind === 'production' ? acct.liveKey : acct.testKey;
const submit = () => gw.server.inject({ method: 'POST', url: `/api/v1/${model}`, headers: { 'x-api-key': key }, payload: body });
const first = await submit();
if (first.statusCode >= 300) throw new Error(first.payload);
const idOf = (payload: string) => (JSON.parse(payload) as { request_id?: string; id?: string }).request_id ?? (JSON.parse(payload) as { id: string }).id;
// READ_IDS=n: reads pick one of n predictions at random (default 1: every read the same row)
const ids = [idOf(first.payload)];
if (kind === 'read') while (ids.length < Number(process.env.READ_IDS ?? 1)) ids.push(idOf((await submit()).payload));
const read = () => gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${ids[Math.floor(Math.random() * ids.length)]}/result`, headers: { 'x-api-key': key } });
const one = kind === 'read' ? read : submit;
let queries = 0;
gw.app.db.on('query', (q: { sql: string }) => { queries++; if (process.env.SHOW_SQL && queries < 40) console.log(q.sql); });
for (let i = 0; i < 200; i++) await one();
queries = 0;
// PROFILE=0: no profiler (its sampling costs CPU too), for A/B of the CPU figure alone
const profiling = process.env.PROFILE !== '0';
const session = new Session();
if (profiling) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
}
const t0 = process.hrtime.bigint();
const cpu0 = process.cpuUsage();
let done = 0;
const statuses: Record<number, number> = {};
await Promise.all(Array.from({ length: 20 }, async () => {
  while (done < N) { done++; const r = await one(); statuses[r.statusCode] = (statuses[r.statusCode] ?? 0) + 1; }
}));
const cpu = process.cpuUsage(cpu0);
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
console.log(JSON.stringify({ kind, n: N, statuses, reqPerS: Math.round(N / ms * 1000), cpuMsPerReq: ((cpu.user + cpu.system) / 1000 / N).toFixed(3), queriesPerReq: (queries / N).toFixed(2) }));
if (profiling) {
  const { profile } = await session.post('Profiler.stop');
  await fs.writeFile(process.env.PROFILE_OUT ?? `/tmp/${kind}.cpuprofile`, JSON.stringify(profile));
  printSelfTime(profile);
}
await gw.stop();
process.exit(0);
