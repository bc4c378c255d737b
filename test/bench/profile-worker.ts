// Profiles the worker alone: `node test/bench/profile-worker.ts [n] [wallets]`. Submits n production
// predictions (64x64, 1 step) with no worker running, then starts one run-model consumer
// (prefetch WORKER_CONCURRENCY, 16) and measures its process CPU and knex queries until every
// prediction completed. Prints CPU ms and queries per prediction and the top self-time functions;
// writes /tmp/worker.cpuprofile (or PROFILE_OUT; PROFILE=0: no profiler, for A/B CPU figures). `wallets` (1) spreads the submits over that many users' wallets.
// With CONTEND (below) the process also serves those submits: its CPU and queries then cover both,
// and the figures to compare are drainMs and submittedMeanwhile.
import { Session } from 'node:inspector/promises';
import fs from 'node:fs/promises';
import { printSelfTime } from './lib.ts';
import { execFileSync } from 'node:child_process';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { createRunModel } from '../../workers/run-model.ts';
import { checkLedger } from '../../db/wallet/ledger.ts';

const N = Number(process.argv[2] ?? 1000);
const WALLETS = Number(process.argv[3] ?? 1);
const CONCURRENCY = Number(process.env.WORKER_CONCURRENCY ?? 16);
const gw = await startGateway({ env: { GENERATE_RATE_PER_KEY: '0', GENERATE_RATE_PER_ACCOUNT: '0' } });
const keys: string[] = [];
for (let i = 0; i < WALLETS; i++) keys.push((await newAccount(gw, 1e9)).liveKey);
const model = 'canvas-v1-fast-text-to-image';
const body = { prompt: 'a lighthouse at dusk', width: 64, height: 64, num_inference_steps: 1 };
let sent = 0;
await Promise.all(Array.from({ length: 20 }, async () => {
  while (sent < N) {
    const key = keys[sent++ % keys.length]!;
    const r = await gw.server.inject({ method: 'POST', url: `/api/v1/${model}`, headers: { 'x-api-key': key }, payload: body });
    if (r.statusCode >= 300) throw new Error(r.payload);
  }
}));
const db = gw.app.db;
// the confirms' pending markers land asynchronously: wait until none is queued
for (;;) {
  const [{ n }] = await db('predictions').where('status', 'queued').count({ n: '*' }) as [{ n: number | string }];
  if (Number(n) === 0) break;
  await new Promise((r) => setTimeout(r, 50));
}
let queries = 0;
db.on('query', () => { queries++; });
// PROFILE=0: no sampling profiler (its own cost skews the CPU figures: for A/B comparisons)
const profiling = process.env.PROFILE !== '0';
const session = new Session();
if (profiling) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
}
// mariadbd's CPU too (shared with other clients of the server: a figure to compare runs made alike)
const mariadbPid = (() => { try { return execFileSync('pgrep', ['-x', 'mariadbd']).toString().trim().split('\n')[0]; } catch { return undefined; } })();
const ticks = async () => {
  if (!mariadbPid) return 0;
  const f = (await fs.readFile(`/proc/${mariadbPid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return Number(f[11]) + Number(f[12]);
};
const db0 = await ticks();
const cpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
const runModel = createRunModel(gw.app);
await gw.app.queue.consume('predictions', runModel.handle, { prefetch: CONCURRENCY });
// CONTEND=c: c submitters keep submitting to the same wallets while the worker drains (the API's holds
// lock the wallet rows its charges need); they stop once the first n are completed
const contenders = Number(process.env.CONTEND ?? 0);
let drained = false;
let contended = 0;
const submitters = Promise.all(Array.from({ length: contenders }, async () => {
  while (!drained) {
    const r = await gw.server.inject({ method: 'POST', url: `/api/v1/${model}`, headers: { 'x-api-key': keys[contended++ % keys.length]! }, payload: body });
    if (r.statusCode >= 300) throw new Error(r.payload);
  }
}));
const firstIds = (await db('predictions').orderBy('created_at').limit(N).select('id') as Array<{ id: string }>).map((r) => r.id);
let polls = 0;
for (;;) {
  const [{ n }] = await db('predictions').whereIn('id', firstIds).andWhere('status', 'completed').count({ n: '*' }) as [{ n: number | string }];
  polls++;
  if (Number(n) >= N) break;
  await new Promise((r) => setTimeout(r, 200));
}
const drainMs = Number(process.hrtime.bigint() - t0) / 1e6;
drained = true;
await submitters;
const cpu = process.cpuUsage(cpu0);
const dbMs = (await ticks() - db0) * 10;
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
console.log(JSON.stringify({ n: N, wallets: WALLETS, contenders, submittedMeanwhile: contended, drainMs: Math.round(drainMs), concurrency: CONCURRENCY, perS: Math.round(N / ms * 1000), cpuMsPerPrediction: ((cpu.user + cpu.system) / 1000 / N).toFixed(3), userMs: (cpu.user / 1000 / N).toFixed(3), sysMs: (cpu.system / 1000 / N).toFixed(3), mariadbMsPerPrediction: (dbMs / N).toFixed(3), queriesPerPrediction: ((queries - polls) / N).toFixed(2) }));
if (profiling) {
  const { profile } = await session.post('Profiler.stop');
  await fs.writeFile(process.env.PROFILE_OUT ?? '/tmp/worker.cpuprofile', JSON.stringify(profile));
  printSelfTime(profile);
}
const ledger = await checkLedger(db);
const [held] = await db('users').sum({ held: 'held' }) as [{ held: number | string }];
console.log(JSON.stringify({ ledgerMismatches: ledger.mismatches.length, heldLeft: Number(held.held) }));
await gw.stop();
process.exit(ledger.mismatches.length === 0 ? 0 : 1);
