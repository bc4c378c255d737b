// The benchmark: `npm run bench`. Measures the gateway SIDE BY SIDE with a bare hapi route in the
// same run (README "Benchmark"; every option and finding: test/bench/README.md): every path alternates with the bare route, in rounds, and the
// figure that counts is the ratio of the gateway's 2xx answers per second to the bare route's
// requests per second. Next to it: CPU time per request summed over every process involved
// (gateway processes, worker processes, mariadbd, beam.smp) and database round trips per request.
//
// Set-up: a fresh MariaDB database and a RabbitMQ prefix of its own (both removed at the end),
// migrations applied once, then the role split: one ROLE=api process and one ROLE=worker process
// (test/bench/gateway.ts), a bare hapi process (test/bench/bare-hapi.ts), and autocannon on this
// process's main thread. All of them share the machine's cores with MariaDB and RabbitMQ.
//
// Phases (BENCH_PHASES, comma list; default all):
//   sandbox     POST a sandbox submit (persisted row) with x-api-key, a random key of BENCH_KEYS per request
//   reads       GET /api/v1/predictions/{id}/result, a random (key, prediction) of BENCH_ROWS per request
//   production  POST a production submit (hold + insert + publish with confirm); the worker process
//               completes them through the local image adapter; each round waits for the drain
//   sustain     production submits at a fixed rate for BENCH_SUSTAIN seconds; completions/s, nothing lost
//   scaleout    1 API + 1 worker vs 2 API (node:cluster, one port) + 2 workers (and up to BENCH_SCALEOUT_MAX + as many)
//   routing     routing + validation at 10 and 5,000 model endpoints (server.inject, SQLite)
//   floor       test/bench/floor.ts in a child process: the floor under the reads, sandbox and production
//               paths (a bare hapi route doing only the path's least durable work, unbatched and batched;
//               production's worker renders, stores and completes as the local adapter does) in rounds
//               with the bare route and a gateway API process of its own (its own database). The
//               summary judges each path's target as its share of this batched floor (TARGETS).
//   streaming   test/bench/streaming.ts in a child process: time to first token and tokens/s of a streamed
//               chat completion through the gateway vs the same stream from the provider fake alone
// Tuning: BENCH_DURATION (8 s per run), BENCH_WARMUP (1 s), BENCH_ROUNDS (2), BENCH_CONNECTIONS (50),
//   BENCH_IDLE (2 s of idle baseline before each gateway run), BENCH_SUSTAIN (60 s), BENCH_SUSTAIN_RATE
//   (submits/s; default 1.1 x the drain rate measured in the production phase), BENCH_KEYS (200),
//   BENCH_ROWS (20000), BENCH_LIVE_USERS (1: the production keys' owners), BENCH_WORKER_CONCURRENCY (16), BENCH_ENDPOINTS ("10,5000"),
//   BENCH_MYSQL_URL / BENCH_AMQP_URL (default: TEST_MYSQL_URL / TEST_AMQP_URL, else local defaults),
//   BENCH_CPU_PROF (a directory: every gateway process writes its .cpuprofile there when it stops),
//   BENCH_NODE_ARGS (Node/V8 flags for every gateway process, space-separated),
//   BENCH_PROCESS_CPU (a share of one core, e.g. 0.25: each gateway process in a cgroup of its own capped
//   at that share; MariaDB, RabbitMQ, the bare hapi process and autocannon uncapped; needs a writable
//   cgroup v1 cpu controller, refused otherwise), BENCH_SCALEOUT_MAX (2: the scale-out phase also runs
//   fresh 3 + 3 ... up to N API + N worker processes after 2 + 2 and 1 + 1),
//   BENCH_LOG_LEVEL (silent: the gateway processes' LOG_LEVEL; a deployment's default is info, one
//   request line each, which this process reads from their stdout and throws away),
//   BENCH_GENERATE_LIMITS (on; off: the gateway keeps no per-minute generation counters, to price them).
// Writes .bench/last.json. Exit code 0 when every selected phase ran (met or not), 1 otherwise.
import crypto from 'node:crypto';
import os from 'node:os';
import fs from 'node:fs/promises';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';

if (process.env.BENCH_MYSQL_URL) process.env.TEST_MYSQL_URL = process.env.BENCH_MYSQL_URL;
if (process.env.BENCH_AMQP_URL) process.env.TEST_AMQP_URL = process.env.BENCH_AMQP_URL;

// services.ts reads TEST_MYSQL_URL / TEST_AMQP_URL when it is first evaluated, hence the dynamic imports.
const { runMigrations } = await import('../../main.ts');
const { topics } = await import('../../app.ts');
const { loadConfig } = await import('../../config.ts');
const { createDb } = await import('../../db/knex.ts');
const { insertApiKey } = await import('../../db/api-keys.ts');
const { newPredictionId } = await import('../../db/predictions/record.ts');
const { openStore } = await import('../../db/store/index.ts');
const { newSecret, sha256Hex, KEY_PREFIX_LIVE, KEY_PREFIX_TEST } = await import('../../lib/secrets.ts');
const { AMQP_URL, deleteTopology, freshDatabase, uniqueName } = await import('../helpers/services.ts');
const { cpuBusyPct, fire, mean, percentile, pidsByName, processCpuMs, processStats, round, spawnNode, waitForQuiet, ROOT } = await import('./lib.ts');
const { middleSlug, writeSpecDir } = await import('./spec-gen.ts');
import { cpuCapFromEnv } from './cpu-cap.ts';
import type { AutocannonOptions, Child, HttpRun, ProcStats } from './lib.ts';
import type { CpuCap } from './cpu-cap.ts';
import type { FloorResults } from './floor.ts';
import type { Knex } from 'knex';

// ---------------------------------------------------------------------------------------------
// settings

function intEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) {
    process.stderr.write(`bench: ${name} must be an integer >= ${min} (got ${JSON.stringify(raw)})\n`);
    process.exit(2);
  }
  return n;
}

const DURATION_S = intEnv('BENCH_DURATION', 8, 1);
const WARMUP_S = intEnv('BENCH_WARMUP', 1, 0);
const ROUNDS = intEnv('BENCH_ROUNDS', 2, 1);
const CONNECTIONS = intEnv('BENCH_CONNECTIONS', 50, 1);
// BENCH_GENERATE_LIMITS=off: no per-minute generation counters at all (GENERATE_RATE_PER_* 0), to
// price them; by default they are counted on every submit but set far above what the load reaches
const LIMITS_OFF = process.env.BENCH_GENERATE_LIMITS === 'off';
const GENERATE_RATE = LIMITS_OFF ? '0' : '1000000';
const IDLE_S = intEnv('BENCH_IDLE', 2, 0);
const SUSTAIN_S = intEnv('BENCH_SUSTAIN', 60, 1);
const SUSTAIN_RATE = intEnv('BENCH_SUSTAIN_RATE', 0, 0);
const KEYS = intEnv('BENCH_KEYS', 200, 1);
const ROWS = intEnv('BENCH_ROWS', 20_000, 1);
const USERS = Math.min(10, KEYS);
const LIVE_KEYS = 10;
// the production keys' owners: 1 (default) puts every production submit on one wallet row
const LIVE_USERS = Math.max(1, Math.min(LIVE_KEYS, Number(process.env.BENCH_LIVE_USERS ?? 1)));
const WORKER_CONCURRENCY = intEnv('BENCH_WORKER_CONCURRENCY', 16, 1);
const SCALEOUT_MAX = intEnv('BENCH_SCALEOUT_MAX', 2, 2);
// the gateway processes' LOG_LEVEL: silent as before 2026-11-24 (so runs compare); `info`, a
// deployment's default, adds its request line (test/bench/README.md, log-line.ts)
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'silent';
let CPU_CAP: CpuCap | null = null;
try {
  CPU_CAP = cpuCapFromEnv(process.env.BENCH_PROCESS_CPU, process.env.BENCH_CPU_PERIOD_MS);
} catch (err) {
  process.stderr.write(`bench: ${(err as Error).message}\n`);
  process.exit(2);
}
// the last resort: no cgroup outlives the benchmark (the clean-ups below remove them in order)
if (CPU_CAP) process.on('exit', () => CPU_CAP!.releaseAll());
// BENCH_NODE_ARGS: Node/V8 flags for every gateway process (space-separated), e.g. to A/B a flag
const GATEWAY_NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
const DRAIN_TIMEOUT_MS = 180_000;
const ENDPOINT_COUNTS = [...new Set((process.env.BENCH_ENDPOINTS || '10,5000').split(',').map((s) => Number(s.trim())).filter((n) => Number.isInteger(n) && n > 0 && n < 100_000))].sort((a, b) => a - b);
if (ENDPOINT_COUNTS.length === 0) {
  process.stderr.write('bench: BENCH_ENDPOINTS must list spec sizes between 1 and 99999, e.g. "10,5000"\n');
  process.exit(2);
}
const ALL_PHASES = ['sandbox', 'reads', 'production', 'sustain', 'scaleout', 'routing', 'floor', 'streaming'] as const;
type PhaseKey = (typeof ALL_PHASES)[number];
const PHASES = new Set((process.env.BENCH_PHASES ?? ALL_PHASES.join(',')).split(',').map((s) => s.trim()).filter((s): s is PhaseKey => (ALL_PHASES as readonly string[]).includes(s)));

/**
 * The targets (issue 40): each path's share of the batched floor under it (test/bench/floor.ts,
 * the `floor` phase of the same run: a bare hapi route doing only the path's least durable work on
 * the same MariaDB and RabbitMQ, batched as the gateway batches; production's with a worker that
 * renders, stores and completes as the gateway's local adapter does), and p99 bounds. The share is
 * the gateway's ratio to the bare route over the batched floor's ratio to the bare route (for
 * production, of predictions completed per second from the first submit to the last completion:
 * floorShare). Without the floor phase the shares are not judged. Completions: sustained with
 * nothing lost.
 */
const TARGETS = {
  sandbox: { floorShare: 0.75, p99Ms: 50 },
  reads: { floorShare: 0.85, p99Ms: 30 },
  production: { floorShare: 0.75, p99Ms: 100 },
  completions: { nothingLost: true },
} as const;

const MODEL_PATH = '/api/v1/canvas-v1-fast-text-to-image';
const SANDBOX_BODY = JSON.stringify({ prompt: 'bench' });
/** The local image adapter at its cheapest: 64x64, one step. */
const PRODUCTION_BODY = JSON.stringify({ prompt: 'bench', width: 64, height: 64, num_inference_steps: 1 });
const JSON_HEADERS = { 'content-type': 'application/json' };

// ---------------------------------------------------------------------------------------------
// output and clean-up

const out = (line = '') => process.stdout.write(`${line}\n`);
const step = (line: string) => process.stdout.write(`» ${line}\n`);

interface Cleanup {
  name: string;
  fn: () => Promise<void>;
}
const cleanups: Cleanup[] = [];

async function cleanupAll(): Promise<void> {
  while (cleanups.length) {
    const c = cleanups.pop()!;
    try {
      await c.fn();
    } catch (err) {
      process.stderr.write(`bench: clean-up "${c.name}" failed: ${(err as Error).message}\n`);
    }
  }
}

async function cleanupNow(name: string): Promise<void> {
  const i = cleanups.findIndex((c) => c.name === name);
  if (i < 0) return;
  const [c] = cleanups.splice(i, 1);
  await c!.fn();
}

let interrupted = false;
let halted: Promise<never> | null = null;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    process.stderr.write(`\nbench: ${signal}: cleaning up\n`);
    halted = cleanupAll().then(() => process.exit(130), () => process.exit(130));
  });
}

const errors: Record<string, string> = {};

async function phase<T>(name: string, fn: () => Promise<T>, key?: PhaseKey): Promise<T | undefined> {
  if (halted) await halted;
  if (key && !PHASES.has(key)) return undefined;
  try {
    return await fn();
  } catch (err) {
    if (halted) await halted;
    errors[name] = (err as Error).stack ?? String(err);
    out(`!! ${name} could not run: ${(err as Error).message}`);
    return undefined;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Lets the previous phase's aftermath settle a little; on a shared machine it may never be quiet. */
async function settle(): Promise<void> {
  const q = await waitForQuiet({ maxWaitMs: 4_000 });
  if (!q.quiet) out(`   (machine ${q.busyPct}% busy before this phase; other processes share the cores; measuring anyway)`);
}

// ---------------------------------------------------------------------------------------------
// processes

interface Proc {
  name: string;
  child: Child;
  /** every process of this gateway (a cluster primary and its workers) */
  pids: number[];
  port: number | null;
}

interface Topology {
  label: string;
  api: Proc;
  workers: Proc[];
  baseUrl: string;
}

let baseEnv: Record<string, string> = {};

async function startProc(name: string, role: 'api' | 'worker', processes = 1): Promise<Proc> {
  // BENCH_CPU_PROF=<dir>: each gateway process writes a .cpuprofile there when it stops (Node refuses --cpu-prof in NODE_OPTIONS)
  const prof = process.env.BENCH_CPU_PROF;
  const child = spawnNode('test/bench/gateway.ts', [String(processes)], { env: { ...baseEnv, ROLE: role }, input: true, nodeArgs: [...GATEWAY_NODE_ARGS, ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [])] });
  let pids: number[] = [];
  cleanups.push({
    name,
    fn: async () => {
      await child.kill();
      CPU_CAP?.release(pids);
    },
  });
  const ready = await child.nextJson<{ ready: true; port: number | null; pids: number[] }>(90_000);
  pids = ready.pids;
  if (CPU_CAP) {
    // Capped once up (start-up runs uncapped): the cluster primary and each of its workers, each in
    // a group of its own (a worker forked by the primary would otherwise share the primary's).
    const where = ready.pids.map((pid, i) => `${pid} -> ${CPU_CAP!.cap(pid, `${role}-${processes > 1 ? (i === 0 ? 'primary' : `w${i}`) : 'p'}`)}`);
    out(`   ${name}: ${CPU_CAP.label}: ${where.join(', ')}`);
  }
  return { name, child, pids: ready.pids, port: ready.port };
}

async function startTopology(apiProcesses: number, workerProcesses: number): Promise<Topology> {
  const label = `${apiProcesses} API process${apiProcesses > 1 ? 'es (node:cluster, one port)' : ''} + ${workerProcesses} worker process${workerProcesses > 1 ? 'es' : ''}${CPU_CAP ? `, ${CPU_CAP.label}` : ''}`;
  const api = await startProc(`api x${apiProcesses}`, 'api', apiProcesses);
  const workers: Proc[] = [];
  for (let i = 0; i < workerProcesses; i++) workers.push(await startProc(`worker ${i + 1}/${workerProcesses}`, 'worker'));
  return { label, api, workers, baseUrl: `http://127.0.0.1:${api.port}` };
}

async function stopTopology(t: Topology): Promise<void> {
  await cleanupNow(t.api.name);
  for (const w of t.workers) await cleanupNow(w.name);
}

async function statsOf(p: Proc): Promise<{ queries: number; served2xx: number }> {
  p.child.send({ cmd: 'stats' });
  return p.child.nextJson<{ queries: number; served2xx: number }>(15_000);
}

// ---------------------------------------------------------------------------------------------
// cost: CPU per request over every process involved, database round trips per request

type Group = 'api' | 'worker' | 'mariadbd' | 'rabbitmq';
const GROUPS: readonly Group[] = ['api', 'worker', 'mariadbd', 'rabbitmq'];
let servicePids: Record<'mariadbd' | 'rabbitmq', number[]> = { mariadbd: [], rabbitmq: [] };

interface Snap {
  t: number;
  cpuMs: Record<Group, number>;
  /** knex queries issued by the API and worker processes (client side, exact) */
  queries: { api: number; worker: number };
  /** 2xx responses the API process(es) sent */
  served2xx: number;
  /** MariaDB's Questions counter (server side, every client of the server) */
  questions: number;
  /** the API process(es)' system calls, context switches and runnable wait so far (/proc) */
  apiProc: Omit<ProcStats, 'cpuMs'>;
}

const sumCpu = (pids: readonly number[]) => pids.reduce((a, pid) => {
  const ms = processCpuMs(pid);
  return Number.isFinite(ms) ? a + ms : a;
}, 0);

const sumProc = (pids: readonly number[]): Omit<ProcStats, 'cpuMs'> => pids.map(processStats).reduce((a, p) => ({
  syscalls: a.syscalls + p.syscalls, volCs: a.volCs + p.volCs, involCs: a.involCs + p.involCs, runqWaitMs: a.runqWaitMs + p.runqWaitMs,
}), { syscalls: 0, volCs: 0, involCs: 0, runqWaitMs: 0 });

let db: Knex;

async function questions(): Promise<number> {
  const [rows] = await db.raw("SHOW GLOBAL STATUS LIKE 'Questions'") as unknown as [Array<{ Value: string }>];
  return Number(rows[0]?.Value ?? Number.NaN);
}

async function snap(t: Topology): Promise<Snap> {
  const q = await questions();
  const apiStats = await statsOf(t.api);
  const api = apiStats.queries;
  let worker = 0;
  for (const w of t.workers) worker += (await statsOf(w)).queries;
  return {
    t: performance.now(),
    cpuMs: {
      api: sumCpu(t.api.pids),
      worker: sumCpu(t.workers.flatMap((w) => w.pids)),
      mariadbd: sumCpu(servicePids.mariadbd),
      rabbitmq: sumCpu(servicePids.rabbitmq),
    },
    queries: { api, worker },
    served2xx: apiStats.served2xx,
    questions: q,
    apiProc: sumProc(t.api.pids),
  };
}

interface Cost {
  requests: number;
  wallS: number;
  /** CPU ms per request by process group, the idle baseline's rate subtracted */
  cpuMsPerRequest: Record<Group, number>;
  totalCpuMsPerRequest: number;
  /** knex queries per request, API and worker processes (exact: counted in those processes) */
  queriesPerRequest: { api: number; worker: number; total: number };
  /** MariaDB Questions per request, idle baseline subtracted (other clients of the server add noise) */
  questionsPerRequest: number;
  /**
   * The API process(es) per request (not idle-subtracted): read + write system calls, voluntary and
   * involuntary context switches, ms waited runnable for a core. How crowded the cores were: the same
   * code costs more CPU per request when it is switched out and waits (test/bench/README.md, "System calls, context switches and waiting for a core").
   */
  apiProcPerRequest: Omit<ProcStats, 'cpuMs'>;
  idle: { wallS: number; questionsPerS: number; corePct: Record<Group, number> };
}

async function idleBaseline(t: Topology): Promise<[Snap, Snap]> {
  const a = await snap(t);
  await sleep(IDLE_S * 1000);
  return [a, await snap(t)];
}

function cost(idle: [Snap, Snap], run0: Snap, run1: Snap, requests: number): Cost {
  const idleMs = Math.max(1, idle[1].t - idle[0].t);
  const runMs = run1.t - run0.t;
  const per = (v: number) => (requests > 0 ? v / requests : Number.NaN);
  const cpuMsPerRequest = {} as Record<Group, number>;
  const corePct = {} as Record<Group, number>;
  for (const g of GROUPS) {
    const idleRate = (idle[1].cpuMs[g] - idle[0].cpuMs[g]) / idleMs;
    corePct[g] = round(100 * idleRate, 1);
    cpuMsPerRequest[g] = round(per(Math.max(0, run1.cpuMs[g] - run0.cpuMs[g] - idleRate * runMs)), 3);
  }
  const qRate = (which: 'api' | 'worker') => (idle[1].queries[which] - idle[0].queries[which]) / idleMs;
  const qApi = per(Math.max(0, run1.queries.api - run0.queries.api - qRate('api') * runMs));
  const qWorker = per(Math.max(0, run1.queries.worker - run0.queries.worker - qRate('worker') * runMs));
  const questionsRate = (idle[1].questions - idle[0].questions) / idleMs;
  return {
    requests,
    wallS: round(runMs / 1000, 2),
    cpuMsPerRequest,
    totalCpuMsPerRequest: round(GROUPS.reduce((a, g) => a + cpuMsPerRequest[g], 0), 3),
    queriesPerRequest: { api: round(qApi, 2), worker: round(qWorker, 2), total: round(qApi + qWorker, 2) },
    questionsPerRequest: round(per(Math.max(0, run1.questions - run0.questions - questionsRate * runMs)), 2),
    apiProcPerRequest: {
      syscalls: round(per(run1.apiProc.syscalls - run0.apiProc.syscalls), 2),
      volCs: round(per(run1.apiProc.volCs - run0.apiProc.volCs), 3),
      involCs: round(per(run1.apiProc.involCs - run0.apiProc.involCs), 3),
      runqWaitMs: round(per(run1.apiProc.runqWaitMs - run0.apiProc.runqWaitMs), 4),
    },
    idle: { wallS: round(idleMs / 1000, 1), questionsPerS: round(questionsRate * 1000, 0), corePct },
  };
}

function costLine(c: Cost): string {
  const cpu = GROUPS.map((g) => `${g} ${c.cpuMsPerRequest[g]}`).join(' + ');
  const p = c.apiProcPerRequest;
  return `CPU per 2xx: ${cpu} = ${c.totalCpuMsPerRequest} ms; database round trips per 2xx: ${c.queriesPerRequest.api} (API) + ${c.queriesPerRequest.worker} (worker) knex queries, ${c.questionsPerRequest} MariaDB Questions (idle baseline ${c.idle.questionsPerS}/s from other clients subtracted); API process per 2xx: ${p.syscalls} syscalls, ${p.volCs} + ${p.involCs} (involuntary) context switches, ${p.runqWaitMs} ms runnable waiting for a core`;
}

// ---------------------------------------------------------------------------------------------
// load

function httpLine(label: string, r: HttpRun): string {
  const codes = Object.entries(r.statusCodes).map(([c, n]) => `${c}:${n}`).join(' ');
  return `${label}: ${round(r.okPerS, 0)} 2xx/s (${r.ok} 2xx of ${r.requests} in ${r.durationS} s), p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms; non-2xx ${r.non2xx}, errors ${r.errors}, timeouts ${r.timeouts} [${codes}]`;
}

type Load = Omit<AutocannonOptions, 'url'>;

async function warmAndFire(url: string, load: Load, duration = DURATION_S): Promise<HttpRun> {
  if (WARMUP_S > 0) await fire({ ...load, url, connections: CONNECTIONS, duration: WARMUP_S });
  return fire({ ...load, url, connections: CONNECTIONS, duration });
}

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;

/** Submits with a random key each; `accepted` collects the request_id of every 2xx answer. */
function submitLoad(keys: readonly string[], body: string, accepted?: string[]): Load {
  return {
    requests: [{
      method: 'POST',
      path: MODEL_PATH,
      headers: JSON_HEADERS,
      body,
      setupRequest: (req) => ({ ...req, headers: { ...JSON_HEADERS, 'x-api-key': pick(keys) } }),
      ...(accepted ? {
        onResponse: (status: number, answer: string) => {
          if (status >= 200 && status < 300) accepted.push(String((JSON.parse(answer) as { request_id?: unknown }).request_id));
        },
      } : {}),
    }],
  };
}

function readLoad(rows: ReadonlyArray<{ key: string; id: string }>): Load {
  return {
    requests: [{
      method: 'GET',
      path: '/api/v1/predictions/x/result',
      setupRequest: (req) => {
        const r = pick(rows);
        return { ...req, path: `/api/v1/predictions/${r.id}/result`, headers: { 'x-api-key': r.key } };
      },
    }],
  };
}

// ---------------------------------------------------------------------------------------------
// the accounts and rows the load uses

interface Seed {
  sandboxKeys: string[];
  liveKeys: string[];
  liveKeyIds: number[];
  readRows: Array<{ key: string; id: string }>;
}

async function register(baseUrl: string, i: number): Promise<number> {
  const res = await fetch(`${baseUrl}/auth/register`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ email: `${uniqueName(`bench${i}`)}@example.com`, password: 'correct horse battery' }) });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`);
  return Number(((await res.json()) as { id: number }).id);
}

async function seed(baseUrl: string, withRows: boolean): Promise<Seed> {
  const users: number[] = [];
  for (let i = 0; i < USERS + 1; i++) users.push(await register(baseUrl, i));
  const liveUsers = [users.pop()!];
  for (let i = 1; i < LIVE_USERS; i++) liveUsers.push(await register(baseUrl, USERS + i));
  // Plenty of credit for every production request of the run.
  await db('users').whereIn('id', liveUsers).update({ balance: 1_000_000_000 });
  const key = async (userId: number, i: number, isTest: boolean) => {
    const secret = newSecret(isTest ? KEY_PREFIX_TEST : KEY_PREFIX_LIVE);
    const kind = isTest ? KEY_PREFIX_TEST : KEY_PREFIX_LIVE;
    const rec = await insertApiKey(db, { userId, name: `bench-${i}`, prefix: secret.slice(0, kind.length + 4), keyHash: sha256Hex(secret), isTest, ipWhitelist: [], scopes: null }, Date.now());
    return { secret, id: rec.id, userId };
  };
  const sandbox: Array<{ secret: string; id: number; userId: number }> = [];
  for (let i = 0; i < KEYS; i++) sandbox.push(await key(users[i % users.length]!, i, true));
  const live: Array<{ secret: string; id: number }> = [];
  for (let i = 0; i < LIVE_KEYS; i++) live.push(await key(liveUsers[i % liveUsers.length]!, i, false));
  const readRows: Array<{ key: string; id: string }> = [];
  if (withRows) {
    // One row through the gateway's own insert, then copies of it (every stored column as that
    // insert writes it) with their own id, owner, key and times, a thousand per statement.
    const base = Date.now() - ROWS;
    const first = sandbox[0]!;
    const firstId = newPredictionId(base);
    await (await openStore(db)).insertSandbox({ p: { id: firstId, userId: first.userId, apiKeyId: first.id, model: 'canvas-v1-fast-text-to-image', input: { prompt: 'bench 0' }, webhookUrl: null }, outputs: ['sandbox/sample.png'], now: base });
    readRows.push({ key: first.secret, id: firstId });
    // `unfinished` and `output_expires_from` are generated columns on MariaDB (migrations 20261126_0101, 20261127_0101): the database computes them
    const { unfinished: _generated, output_expires_from: _expiry, ...template } = await db('predictions').where({ id: firstId }).first() as Record<string, unknown>;
    for (let i = 1; i < ROWS; i += 1_000) {
      const batch: Array<Record<string, unknown>> = [];
      for (let j = i; j < Math.min(ROWS, i + 1_000); j++) {
        const k = sandbox[j % sandbox.length]!;
        const now = base + j;
        const id = newPredictionId(now);
        batch.push({ ...template, id, user_id: k.userId, api_key_id: k.id, input: JSON.stringify({ prompt: `bench ${j}` }), created_at: now, started_at: now, completed_at: now, updated_at: now });
        readRows.push({ key: k.secret, id });
      }
      await db('predictions').insert(batch);
    }
  }
  return { sandboxKeys: sandbox.map((k) => k.secret), liveKeys: live.map((k) => k.secret), liveKeyIds: live.map((k) => k.id), readRows };
}

// ---------------------------------------------------------------------------------------------
// production bookkeeping: accepted vs completed

interface Counts {
  total: number;
  byStatus: Record<string, number>;
}

async function liveCounts(keyIds: readonly number[], since = 0): Promise<Counts> {
  const rows = await db('predictions').whereIn('api_key_id', keyIds).where('created_at', '>=', since).select('status').count({ n: '*' }).groupBy('status') as Array<{ status: string; n: number | string }>;
  const byStatus: Record<string, number> = {};
  let total = 0;
  for (const r of rows) {
    byStatus[r.status] = Number(r.n);
    total += Number(r.n);
  }
  return { total, byStatus };
}

const finishedOf = (c: Counts) => (c.byStatus.completed ?? 0) + (c.byStatus.failed ?? 0) + (c.byStatus.cancelled ?? 0);

async function waitDrained(keyIds: readonly number[], since: number): Promise<Counts> {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  for (;;) {
    const c = await liveCounts(keyIds, since);
    if (finishedOf(c) >= c.total || Date.now() > deadline) return c;
    await sleep(200);
  }
}

interface Drain {
  /** request ids the client got in a 2xx answer */
  accepted2xx: number;
  /** of those, completed once the worker drained: equal to accepted2xx when nothing was lost */
  acceptedCompleted: number;
  /** rows created since the run began, including requests the load generator abandoned in flight at its end */
  rowsCreated: number;
  completed: number;
  failed: number;
  unfinished: number;
  /** completed / (last completed_at - first created_at) */
  completionsPerS: number;
  submitToCompletedP50Ms: number;
  submitToCompletedP99Ms: number;
}

async function drainFigures(keyIds: readonly number[], since: number, accepted: readonly string[]): Promise<Drain> {
  const c = await waitDrained(keyIds, since);
  let acceptedCompleted = 0;
  for (let i = 0; i < accepted.length; i += 1_000) {
    const n = await db('predictions').whereIn('id', accepted.slice(i, i + 1_000)).where({ status: 'completed' }).count({ n: '*' }) as Array<{ n: number | string }>;
    acceptedCompleted += Number(n[0]?.n ?? 0);
  }
  const span = await db('predictions').whereIn('api_key_id', keyIds).where('created_at', '>=', since)
    .min({ first: 'created_at' }).max({ last: 'completed_at' }).first() as { first: number | string | null; last: number | string | null } | undefined;
  const durations = (await db('predictions').whereIn('api_key_id', keyIds).where('created_at', '>=', since).where({ status: 'completed' })
    .select(db.raw('completed_at - created_at as ms')) as Array<{ ms: number | string }>).map((r) => Number(r.ms)).sort((a, b) => a - b);
  const windowS = (Number(span?.last) - Number(span?.first)) / 1000;
  const completed = c.byStatus.completed ?? 0;
  return {
    accepted2xx: accepted.length,
    acceptedCompleted,
    rowsCreated: c.total,
    completed,
    failed: c.byStatus.failed ?? 0,
    unfinished: c.total - finishedOf(c),
    completionsPerS: windowS > 0 ? round(completed / windowS, 1) : Number.NaN,
    submitToCompletedP50Ms: percentile(durations, 50),
    submitToCompletedP99Ms: percentile(durations, 99),
  };
}

const nothingLost = (d: Drain) => d.acceptedCompleted === d.accepted2xx && d.unfinished === 0 && d.failed === 0;
const drainLine = (d: Drain) => `accepted (2xx) ${d.accepted2xx}, of them completed ${d.acceptedCompleted}${nothingLost(d) ? ' (nothing lost)' : ' (LOST OR UNFINISHED)'}; rows since the start ${d.rowsCreated} (with requests abandoned in flight when the load stopped), completed ${d.completed}, failed ${d.failed}, unfinished ${d.unfinished}; ${d.completionsPerS} completions/s first submit to last completion; submit to completed p50 ${d.submitToCompletedP50Ms} ms, p99 ${d.submitToCompletedP99Ms} ms`;

// ---------------------------------------------------------------------------------------------
// side by side

interface Round {
  gateway: HttpRun;
  bare: HttpRun;
  ratio: number;
  cost: Cost;
  /** CPU ms per request of the bare hapi process */
  bareCpuMsPerRequest: number;
  drain?: Drain;
}

interface PathResult {
  label: string;
  exercises: string;
  rounds: Round[];
  gatewayOkPerS: number;
  bareReqPerS: number;
  ratio: number;
  p50Ms: number;
  /** the worst round's p99 */
  p99Ms: number;
  non2xx: number;
  cost: Cost;
}

let bare: { port: number; pid: number } | null = null;

function combine(label: string, exercises: string, rounds: Round[]): PathResult {
  const gw = mean(rounds.map((r) => r.gateway.okPerS));
  const b = mean(rounds.map((r) => r.bare.rps));
  const last = rounds.at(-1)!.cost;
  const avg = (f: (c: Cost) => number) => round(mean(rounds.map((r) => f(r.cost))), 3);
  const cpuMsPerRequest = {} as Record<Group, number>;
  for (const g of GROUPS) cpuMsPerRequest[g] = avg((c) => c.cpuMsPerRequest[g]);
  return {
    label,
    exercises,
    rounds,
    gatewayOkPerS: round(gw, 0),
    bareReqPerS: round(b, 0),
    ratio: round(gw / b, 3),
    // autocannon reports 0 ms when nothing was answered: that round has no latency (NaN, never "met")
    p50Ms: round(mean(rounds.map((r) => (r.gateway.requests > 0 ? r.gateway.p50Ms : Number.NaN))), 1),
    p99Ms: Math.max(...rounds.map((r) => (r.gateway.requests > 0 ? r.gateway.p99Ms : Number.NaN))),
    non2xx: rounds.reduce((a, r) => a + r.gateway.non2xx + r.gateway.errors + r.gateway.timeouts, 0),
    cost: {
      ...last,
      requests: rounds.reduce((a, r) => a + r.cost.requests, 0),
      cpuMsPerRequest,
      totalCpuMsPerRequest: avg((c) => c.totalCpuMsPerRequest),
      queriesPerRequest: { api: avg((c) => c.queriesPerRequest.api), worker: avg((c) => c.queriesPerRequest.worker), total: avg((c) => c.queriesPerRequest.total) },
      questionsPerRequest: avg((c) => c.questionsPerRequest),
    },
  };
}

/**
 * ROUNDS rounds of (bare, gateway), the order flipping every round. Before each gateway run: an
 * idle baseline (IDLE_S) and the warm-up; the cost window covers the run and `after` (a drain).
 */
async function sideBySide(label: string, exercises: string, t: Topology, makeLoad: (accepted?: string[]) => Load, after?: (since: number, accepted: readonly string[]) => Promise<Drain>): Promise<PathResult> {
  const load = makeLoad();
  step(`${label}: ${exercises}`);
  await settle();
  if (!after) {
    // a path without a drain is warmed until steady first (warmUntilSteady): the first round was
    // measured part cold (sandbox submits 2026-11-25: API 0.336 ms per submit in round 1, 0.243 in round 2)
    const warmed = await warmUntilSteady({ ...load, url: t.baseUrl, connections: CONNECTIONS });
    out(`   gateway warmed ${warmed} s until two runs of ${STEADY_RUN_S} s agreed within ${STEADY_WITHIN * 100} % (at most ${STEADY_MAX_S} s)`);
  }
  const rounds: Round[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    let gateway: HttpRun | undefined;
    let bareRun: HttpRun | undefined;
    let c: Cost | undefined;
    let bareCpu = Number.NaN;
    let bareProc = '';
    let drain: Drain | undefined;
    for (const which of r % 2 === 0 ? ['bare', 'gateway'] as const : ['gateway', 'bare'] as const) {
      if (which === 'bare') {
        if (WARMUP_S > 0) await fire({ ...load, url: `http://127.0.0.1:${bare!.port}`, connections: CONNECTIONS, duration: WARMUP_S });
        const b0 = processStats(bare!.pid);
        bareRun = await fire({ ...load, url: `http://127.0.0.1:${bare!.port}`, connections: CONNECTIONS, duration: DURATION_S });
        const b1 = processStats(bare!.pid);
        const perBare = (k: keyof ProcStats, digits: number) => round((b1[k] - b0[k]) / Math.max(1, bareRun!.ok), digits);
        bareCpu = perBare('cpuMs', 3);
        bareProc = `${perBare('syscalls', 2)} syscalls, ${perBare('volCs', 3)} + ${perBare('involCs', 3)} (involuntary) context switches, ${perBare('runqWaitMs', 4)} ms runnable waiting`;
      } else {
        const idle = await idleBaseline(t);
        if (WARMUP_S > 0) {
          const warmSince = Date.now();
          await fire({ ...load, url: t.baseUrl, connections: CONNECTIONS, duration: WARMUP_S });
          if (after) await waitDrained(seedData!.liveKeyIds, warmSince);
        }
        const since = Date.now();
        const s0 = await snap(t);
        const accepted: string[] = [];
        gateway = await fire({ ...makeLoad(accepted), url: t.baseUrl, connections: CONNECTIONS, duration: DURATION_S });
        if (after) drain = await after(since, accepted);
        // With a drain, the window holds the whole work of every row the run created (including
        // requests the load generator abandoned in flight at its end): the cost is per prediction.
        // Without: per 2xx the API sent in the window (what the server did, whatever the client saw).
        const s1 = await snap(t);
        c = cost(idle, s0, s1, drain ? drain.rowsCreated : s1.served2xx - s0.served2xx);
      }
    }
    const round_: Round = { gateway: gateway!, bare: bareRun!, ratio: round(gateway!.okPerS / bareRun!.rps, 3), cost: c!, bareCpuMsPerRequest: bareCpu, ...(drain ? { drain } : {}) };
    rounds.push(round_);
    out(`   round ${r + 1}/${ROUNDS} (${r % 2 === 0 ? 'bare first' : 'gateway first'}):`);
    out(`     ${httpLine('gateway', round_.gateway)}`);
    out(`     ${httpLine('bare hapi', round_.bare)}  (bare CPU ${bareCpu} ms/request; per request ${bareProc})`);
    out(`     ratio ${round_.ratio}; ${drain ? 'per prediction created (submit + completion), ' : ''}${costLine(round_.cost)}`);
    if (drain) out(`     ${drainLine(drain)}`);
  }
  return combine(label, exercises, rounds);
}

const STEADY_RUN_S = 2;
const STEADY_WITHIN = 0.1;
const STEADY_MAX_S = 40;

/**
 * The warm-up of the `sandbox` and `reads` phases and of each path of the scale-out phase: fires
 * `load` in runs of STEADY_RUN_S until a run's 2xx/s is within STEADY_WITHIN of the run before it
 * (at least BENCH_WARMUP s, at most STEADY_MAX_S); returns the seconds spent.
 */
async function warmUntilSteady(load: Omit<Parameters<typeof fire>[0], 'duration'>): Promise<number> {
  if (WARMUP_S === 0) return 0;
  let spent = 0;
  let before = -1;
  while (spent < STEADY_MAX_S) {
    const run = await fire({ ...load, duration: STEADY_RUN_S });
    spent += STEADY_RUN_S;
    if (spent >= WARMUP_S && before > 0 && Math.abs(run.okPerS - before) <= STEADY_WITHIN * before) break;
    before = run.okPerS;
  }
  return spent;
}

/** Fresh processes: a few sequential requests through every path (each API process compiles its validators) before the warm-up. */
async function prime(t: Topology, s: Seed): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const headers = { ...JSON_HEADERS, 'x-api-key': pick(s.sandboxKeys) };
    const res = await fetch(`${t.baseUrl}${MODEL_PATH}`, { method: 'POST', headers, body: SANDBOX_BODY });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`priming ${t.label}: sandbox submit answered ${res.status}`);
    if (s.readRows.length) {
      const r = pick(s.readRows);
      await (await fetch(`${t.baseUrl}/api/v1/predictions/${r.id}/result`, { headers: { 'x-api-key': r.key } })).arrayBuffer();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// results

interface SustainResult {
  exercises: string;
  offeredPerS: number;
  accepted2xx: number;
  non2xx: number;
  submitP99Ms: number;
  completedInWindow: number;
  completionsPerS: number;
  backlogAtWindowEnd: number;
  drain: Drain;
  bareReqPerS: number;
  bare: HttpRun[];
  ratio: number;
  nothingLost: boolean;
  cost: Cost;
}

/** What each gateway process used during one run: its share of a core, and with BENCH_PROCESS_CPU the share of CFS periods in which its cap throttled it. */
interface ProcessUsage {
  role: 'api' | 'worker' | 'mariadbd' | 'rabbitmq' | 'bench' | 'machine';
  pid: number;
  coreShare: number;
  throttledPct: number | null;
}

interface ScaleFigures {
  topology: string;
  sandbox: HttpRun;
  reads: HttpRun | null;
  production: HttpRun;
  drain: Drain;
  usage: { sandbox: ProcessUsage[]; reads: ProcessUsage[] | null; production: ProcessUsage[]; drain: ProcessUsage[] };
}

/** Per-process CPU share (and cap throttling) of the gateway processes over whatever `run` does. */
async function withUsage<T>(t: Topology, run: () => Promise<T>): Promise<[T, ProcessUsage[]]> {
  const procs: Array<{ role: ProcessUsage['role']; pid: number }> = [
    ...t.api.pids.map((pid) => ({ role: 'api' as const, pid })),
    ...t.workers.flatMap((w) => w.pids.map((pid) => ({ role: 'worker' as const, pid }))),
    ...servicePids.mariadbd.map((pid) => ({ role: 'mariadbd' as const, pid })),
    ...servicePids.rabbitmq.map((pid) => ({ role: 'rabbitmq' as const, pid })),
    { role: 'bench', pid: process.pid },
  ];
  const cpus0 = os.cpus();
  const locks0 = await rowLockStatus();
  const before = procs.map((p) => ({ cpu: processCpuMs(p.pid), th: CPU_CAP?.throttling(p.pid) ?? null }));
  const t0 = performance.now();
  const result = await run();
  const wallMs = performance.now() - t0;
  const locks1 = await rowLockStatus();
  const usage = procs.map((p, i) => {
    const th = CPU_CAP?.throttling(p.pid) ?? null;
    const b = before[i]!;
    const periods = th && b.th ? th.periods - b.th.periods : 0;
    return {
      ...p,
      coreShare: round((processCpuMs(p.pid) - b.cpu) / wallMs, 2),
      throttledPct: th && b.th && periods > 0 ? round((100 * (th.throttled - b.th.throttled)) / periods, 0) : null,
    };
  });
  // the whole machine's busy cores over the run (every process, other work on the machine included)
  usage.push({ role: 'machine', pid: 0, coreShare: round((cpuBusyPct(cpus0, os.cpus()) * cpus0.length) / 100, 2), throttledPct: null });
  rowLocksOf.set(usage, { waitsPerS: round((1000 * (locks1.waits - locks0.waits)) / wallMs, 0), waitedSPerS: round((locks1.timeMs - locks0.timeMs) / wallMs, 2) });
  return [result, usage];
}

/** InnoDB's row-lock waits over a run (server-wide, so other clients of the server count too): waits begun per second, and seconds waited per second. */
const rowLocksOf = new WeakMap<readonly ProcessUsage[], { waitsPerS: number; waitedSPerS: number }>();

async function rowLockStatus(): Promise<{ waits: number; timeMs: number }> {
  const [rows] = await db.raw("SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_row_lock_waits', 'Innodb_row_lock_time')") as unknown as [Array<{ Variable_name: string; Value: string }>];
  const value = (name: string) => Number(rows.find((r) => r.Variable_name === name)?.Value ?? Number.NaN);
  return { waits: value('Innodb_row_lock_waits'), timeMs: value('Innodb_row_lock_time') };
}

function usageLine(u: readonly ProcessUsage[]): string {
  const locks = rowLocksOf.get(u);
  const part = (role: ProcessUsage['role']) => u.filter((p) => p.role === role).map((p) => `${p.coreShare}${p.throttledPct === null ? '' : ` (${p.throttledPct}%)`}`).join(', ');
  return `gateway processes' core share${CPU_CAP ? ` (% of CFS periods throttled by the ${CPU_CAP.share} cap)` : ''}: API ${part('api')}; worker ${part('worker')}; uncapped, shared with other clients: mariadbd ${part('mariadbd') || 'n/a'}, beam.smp ${part('rabbitmq') || 'n/a'}; autocannon (this process) ${part('bench')}; machine ${part('machine')} of ${os.cpus().length} cores busy${locks ? `; InnoDB row-lock waits (server-wide) ${locks.waitsPerS}/s, ${locks.waitedSPerS} s waited per s` : ''}`;
}

interface RoutingTiming {
  p50Us: number;
  p99Us: number;
  meanUs: number;
  unexpected: number;
}

interface ScaleRatios {
  sandbox: number;
  reads: number | null;
  productionSubmits: number;
  completions: number;
}

interface Results {
  /** the streaming phase (test/bench/streaming.ts) */
  streaming?: unknown;
  sandbox?: PathResult;
  reads?: PathResult;
  production?: PathResult;
  sustain?: SustainResult;
  scaleout?: { processCpu: number | null; warmOne: ScaleFigures; one: ScaleFigures; two: ScaleFigures; ratios: ScaleRatios; more: Array<{ processes: number; figures: ScaleFigures; ratios: ScaleRatios }> };
  routing: Record<string, { models: number; startMs: number; rssMb: number; valid: RoutingTiming; invalid: RoutingTiming }>;
  routingRatio?: { validP50: number; invalidP50: number };
  floor?: FloorResults;
}

const results: Results = { routing: {} };
let seedData: Seed | null = null;

// ---------------------------------------------------------------------------------------------
// the run

const startedAt = new Date();
const cpus = os.cpus();
let commit = 'unknown';
try {
  commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
} catch {
  // not a git checkout
}

out(`mediagate benchmark — ${startedAt.toISOString()} — commit ${commit}`);
out(`machine: ${cpus.length} cores (${cpus[0]?.model ?? 'unknown CPU'}), ${round(os.totalmem() / 2 ** 30, 1)} GiB RAM, Node ${process.version}, load average ${os.loadavg().map((l) => round(l, 2)).join(' ')}`);
out('co-located: autocannon (this process), the bare hapi process, the gateway processes, MariaDB and RabbitMQ all share these cores.');
if (CPU_CAP) out(`BENCH_PROCESS_CPU=${CPU_CAP.share}: ${CPU_CAP.label}, each in a cgroup of its own; MariaDB, RabbitMQ, the bare hapi process and autocannon uncapped`);
out(`settings: phases ${[...PHASES].join(', ')}; ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION_S} s per side (after ${WARMUP_S} s warm-up, ${IDLE_S} s idle baseline), sustain ${SUSTAIN_S} s, ${KEYS} sandbox keys over ${USERS} users, ${ROWS} predictions to read, WORKER_CONCURRENCY=${WORKER_CONCURRENCY} per worker process, LOG_LEVEL=${LOG_LEVEL}`);
out();

if (CPU_CAP) cleanups.push({ name: 'cgroups', fn: async () => CPU_CAP!.releaseAll() });
const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-bench-'));
cleanups.push({ name: 'temp dir', fn: () => fs.rm(tmp, { recursive: true, force: true }) });

try {
  const needGateway = ['sandbox', 'reads', 'production', 'sustain', 'scaleout'].some((p) => PHASES.has(p as PhaseKey));
  const setUp = !needGateway ? undefined : await phase('gateway start', async (): Promise<{ t: Topology; s: Seed }> => {
    step('set-up: fresh MariaDB database, RabbitMQ prefix, migrations, then one ROLE=api and one ROLE=worker process and the bare hapi process');
    const fresh = await freshDatabase();
    cleanups.push({ name: 'database', fn: fresh.drop });
    const prefix = uniqueName('bench').toLowerCase();
    baseEnv = {
      HOST: '127.0.0.1',
      PORT: '0',
      PUBLIC_URL: 'http://127.0.0.1',
      DATABASE_URL: fresh.url,
      ENCRYPTION_KEY: crypto.randomBytes(32).toString('hex'),
      AMQP_URL,
      AMQP_PREFIX: prefix,
      DATA_DIR: path.join(tmp, 'gateway'),
      WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
      LOG_LEVEL,
      REGISTER_RATE_PER_ADDRESS: '1000',
      // The generation limits stay on (their checks run on every submit) but far above what the
      // load reaches: the defaults (60/min per key, 10 unfinished per key) would answer 429.
      GENERATE_RATE_PER_KEY: GENERATE_RATE,
      GENERATE_RATE_PER_ACCOUNT: GENERATE_RATE,
      GENERATE_CONCURRENT_PER_KEY: '1000000',
      GENERATE_CONCURRENT_PER_ACCOUNT: '1000000',
    };
    const specs = topics(loadConfig({ ...baseEnv, ROLE: 'all' }));
    cleanups.push({ name: 'queues', fn: () => deleteTopology(prefix, specs, AMQP_URL) });
    await runMigrations({ ...baseEnv, ROLE: 'migrate' });
    db = createDb({ databaseUrl: fresh.url, sqliteFile: '', poolMax: 8 });
    cleanups.push({ name: 'bench database connection', fn: () => db.destroy() });
    servicePids = { mariadbd: pidsByName(['mariadbd', 'mysqld']), rabbitmq: pidsByName(['beam.smp']) };
    out(`   MariaDB pids ${servicePids.mariadbd.join(',') || 'not found (remote? its CPU is not counted)'}; RabbitMQ (beam.smp) pids ${servicePids.rabbitmq.join(',') || 'not found (its CPU is not counted)'}`);
    const b = spawnNode('test/bench/bare-hapi.ts', ['0']);
    cleanups.push({ name: 'bare hapi', fn: () => b.kill() });
    bare = { port: (await b.nextJson<{ port: number }>(30_000)).port, pid: b.child.pid! };
    const t = await startTopology(1, 1);
    out(`   API on ${t.baseUrl} (pid ${t.api.pids.join(',')}), worker pid ${t.workers.map((w) => w.pids.join(',')).join(',')}, bare hapi on port ${bare.port} (pid ${bare.pid})`);
    const t0 = performance.now();
    seedData = await seed(t.baseUrl, PHASES.has('reads') || PHASES.has('scaleout'));
    out(`   seeded ${USERS} users with ${KEYS} sandbox keys, ${LIVE_USERS} user(s) with ${LIVE_KEYS} live keys, ${seedData.readRows.length} completed predictions spread over the sandbox keys (${round((performance.now() - t0) / 1000, 1)} s)`);
    return { t, s: seedData };
  });

  if (setUp) {
    const { t: one, s } = setUp;
    results.sandbox = await phase('sandbox submits', () => sideBySide(
      '1. sandbox submit',
      `POST ${MODEL_PATH} {"prompt"} with x-api-key, a random one of ${KEYS} sandbox keys per request (${USERS} users), each answer a persisted row; ${one.label}`,
      one, () => submitLoad(s.sandboxKeys, SANDBOX_BODY),
    ), 'sandbox');

    results.reads = await phase('result reads', () => sideBySide(
      '2. result read',
      `GET /api/v1/predictions/{id}/result with x-api-key, a random one of ${s.readRows.length} completed predictions per request with its own key (${KEYS} keys; not one hot row); ${one.label}`,
      one, () => readLoad(s.readRows),
    ), 'reads');

    results.production = await phase('production submits', () => sideBySide(
      '3. production submit',
      `POST ${MODEL_PATH} 64x64 1 step with x-api-key, a random one of ${LIVE_KEYS} live keys of ${LIVE_USERS === 1 ? 'one user' : `${LIVE_USERS} users`}: hold + insert + publish with confirm; the worker (another process, WORKER_CONCURRENCY=${WORKER_CONCURRENCY}) runs the local image adapter meanwhile; each round waits for the drain, and the cost covers submit + completion`,
      one, (accepted) => submitLoad(s.liveKeys, PRODUCTION_BODY, accepted),
      (since, accepted) => drainFigures(s.liveKeyIds, since, accepted),
    ), 'production');

    await phase('sustained completions', async () => {
      const drained = results.production?.rounds.map((r) => r.drain?.completionsPerS ?? Number.NaN).filter((v) => Number.isFinite(v)) ?? [];
      let rate = SUSTAIN_RATE;
      if (rate === 0 && drained.length) rate = Math.max(1, Math.round(1.1 * Math.max(...drained)));
      if (rate === 0) {
        step('4. calibrating the sustain rate: production submits for 5 s, then the drain');
        const since = Date.now();
        const accepted: string[] = [];
        await fire({ ...submitLoad(s.liveKeys, PRODUCTION_BODY, accepted), url: one.baseUrl, connections: CONNECTIONS, duration: 5 });
        const d = await drainFigures(s.liveKeyIds, since, accepted);
        rate = Math.max(1, Math.round(1.1 * d.completionsPerS));
      }
      const exercises = `production submits offered at ${rate}/s (1.1 x the drain rate, or BENCH_SUSTAIN_RATE) for ${SUSTAIN_S} s over ${CONNECTIONS} connections; completions through the local image adapter by one worker process (WORKER_CONCURRENCY=${WORKER_CONCURRENCY}); completions/s = completed within the window / window; bare POST measured before and after`;
      step(`4. sustained completions: ${exercises}`);
      await settle();
      const load = submitLoad(s.liveKeys, PRODUCTION_BODY);
      const bareUrl = `http://127.0.0.1:${bare!.port}`;
      const bareRuns = [await warmAndFire(bareUrl, load)];
      const idle = await idleBaseline(one);
      const since = Date.now();
      const s0 = await snap(one);
      const accepted: string[] = [];
      const http = await fire({ ...submitLoad(s.liveKeys, PRODUCTION_BODY, accepted), url: one.baseUrl, connections: CONNECTIONS, duration: SUSTAIN_S, overallRate: rate });
      const windowEnd = since + SUSTAIN_S * 1000;
      const inWindow = Number(((await db('predictions').whereIn('api_key_id', s.liveKeyIds).where('created_at', '>=', since).where('status', 'completed').where('completed_at', '<=', windowEnd).count({ n: '*' })) as Array<{ n: number | string }>)[0]?.n ?? 0);
      const createdInWindow = Number(((await db('predictions').whereIn('api_key_id', s.liveKeyIds).where('created_at', '>=', since).where('created_at', '<=', windowEnd).count({ n: '*' })) as Array<{ n: number | string }>)[0]?.n ?? 0);
      const drain = await drainFigures(s.liveKeyIds, since, accepted);
      const c = cost(idle, s0, await snap(one), drain.completed);
      bareRuns.push(await warmAndFire(bareUrl, load));
      const bareReqPerS = round(mean(bareRuns.map((r) => r.rps)), 0);
      const completionsPerS = round(inWindow / SUSTAIN_S, 1);
      results.sustain = {
        exercises,
        offeredPerS: rate,
        accepted2xx: http.ok,
        non2xx: http.non2xx + http.errors + http.timeouts,
        submitP99Ms: http.p99Ms,
        completedInWindow: inWindow,
        completionsPerS,
        backlogAtWindowEnd: createdInWindow - inWindow,
        drain,
        bareReqPerS,
        bare: bareRuns,
        ratio: round(completionsPerS / bareReqPerS, 3),
        nothingLost: nothingLost(drain),
        cost: c,
      };
      const r = results.sustain;
      out(`   ${httpLine('gateway submits', http)}`);
      out(`   ${r.completedInWindow} completed within the ${SUSTAIN_S} s window: ${r.completionsPerS} completions/s; backlog at the window's end ${r.backlogAtWindowEnd}`);
      out(`   ${drainLine(drain)}`);
      out(`   bare hapi POST before/after: ${bareRuns.map((b) => round(b.rps, 0)).join(' / ')} req/s; ratio completions/s to bare ${r.ratio}`);
      out(`   per completed prediction (submit + completion): ${costLine(c)}`);
    }, 'sustain');

    await phase('scale-out', async () => {
      step(`5. scale-out: the warm 1 API + 1 worker, then fresh 2 API processes (node:cluster, one port) + 2 worker processes, then a fresh 1 + 1${SCALEOUT_MAX > 2 ? `, then fresh 3 + 3 ... ${SCALEOUT_MAX} + ${SCALEOUT_MAX}` : ''}; one run each of sandbox submits and result reads (each warmed until steady first) and production submits followed by the drain${CPU_CAP ? `; ${CPU_CAP.label}` : ''}`);
      await settle();
      // Sandbox submits and reads are each warmed until steady before they are measured: a fresh
      // process's first seconds cost several times its steady state (compilation, and the
      // credential cache filling with the 200 sandbox keys: a lookup per key and process), longer
      // under a CPU cap and with more processes to fill, and a fixed BENCH_WARMUP measured that
      // instead of the topology (capped, sandbox 2 + 2 below 1 + 1 in three runs of four).
      const measure = async (t: Topology): Promise<ScaleFigures> => {
        const sandboxLoad = { ...submitLoad(s.sandboxKeys, SANDBOX_BODY), url: t.baseUrl, connections: CONNECTIONS };
        const sandboxWarm = await warmUntilSteady(sandboxLoad);
        const [sandbox, sandboxUse] = await withUsage(t, () => fire({ ...sandboxLoad, duration: DURATION_S }));
        const readsLoad = { ...readLoad(s.readRows), url: t.baseUrl, connections: CONNECTIONS };
        const readsWarm = s.readRows.length ? await warmUntilSteady(readsLoad) : 0;
        const [reads, readsUse] = s.readRows.length ? await withUsage(t, () => fire({ ...readsLoad, duration: DURATION_S })) : [null, null];
        out(`   ${t.label}: warmed ${sandboxWarm} s (sandbox submits), ${readsWarm} s (reads) until two runs of ${STEADY_RUN_S} s agreed within ${STEADY_WITHIN * 100} % (at most ${STEADY_MAX_S} s)`);
        const warmSince = Date.now();
        if (WARMUP_S > 0) await fire({ ...submitLoad(s.liveKeys, PRODUCTION_BODY), url: t.baseUrl, connections: CONNECTIONS, duration: WARMUP_S });
        await waitDrained(s.liveKeyIds, warmSince);
        const since = Date.now();
        const accepted: string[] = [];
        const [production, productionUse] = await withUsage(t, () => fire({ ...submitLoad(s.liveKeys, PRODUCTION_BODY, accepted), url: t.baseUrl, connections: CONNECTIONS, duration: DURATION_S }));
        const [drain, drainUse] = await withUsage(t, () => drainFigures(s.liveKeyIds, since, accepted));
        out(`   ${t.label}:`);
        out(`     ${httpLine('sandbox submit', sandbox)}`);
        out(`       ${usageLine(sandboxUse)}`);
        if (reads) out(`     ${httpLine('result read', reads)}`);
        if (readsUse) out(`       ${usageLine(readsUse)}`);
        out(`     ${httpLine('production submit', production)}`);
        out(`       ${usageLine(productionUse)}`);
        out(`     ${drainLine(drain)}`);
        out(`       from the submits' end to the drain's: ${usageLine(drainUse)}`);
        return { topology: t.label, sandbox, reads, production, drain, usage: { sandbox: sandboxUse, reads: readsUse, production: productionUse, drain: drainUse } };
      };
      // The API that served the earlier phases is warm; the two-process topology starts fresh.
      // So after it, a fresh 1 + 1 is started and primed the same way, and the ratios compare the
      // two fresh topologies (the warm figures are printed too).
      const warm = await measure(one);
      await stopTopology(one);
      const fresh = async (apis: number, workers: number) => {
        const t = await startTopology(apis, workers);
        out(`   started ${t.label} on ${t.baseUrl} (pids ${[...t.api.pids, ...t.workers.flatMap((w) => w.pids)].join(',')})`);
        await prime(t, s);
        const f = await measure(t);
        await stopTopology(t);
        return f;
      };
      const b = await fresh(2, 2);
      const a = await fresh(1, 1);
      const ratio = (x: number, y: number) => round(x / y, 2);
      const ratios = (n: ScaleFigures): ScaleRatios => ({
        sandbox: ratio(n.sandbox.okPerS, a.sandbox.okPerS),
        reads: a.reads && n.reads ? ratio(n.reads.okPerS, a.reads.okPerS) : null,
        productionSubmits: ratio(n.production.okPerS, a.production.okPerS),
        completions: ratio(n.drain.completionsPerS, a.drain.completionsPerS),
      });
      results.scaleout = { processCpu: CPU_CAP?.share ?? null, warmOne: warm, one: a, two: b, ratios: ratios(b), more: [] };
      const q = results.scaleout.ratios;
      out(`   two/one (both fresh): sandbox submits ${q.sandbox}x, result reads ${q.reads ?? 'n/a'}x, production submits ${q.productionSubmits}x, completions ${q.completions}x`);
      for (let n = 3; n <= SCALEOUT_MAX; n++) {
        const f = await fresh(n, n);
        const r = ratios(f);
        results.scaleout.more.push({ processes: n, figures: f, ratios: r });
        out(`   ${n}+${n}/one (both fresh): sandbox submits ${r.sandbox}x, result reads ${r.reads ?? 'n/a'}x, production submits ${r.productionSubmits}x, completions ${r.completions}x`);
      }
    }, 'scaleout');
  }

  // The rest needs none of the gateway's processes.
  for (const name of ['api x1', 'worker 1/1', 'bare hapi']) await cleanupNow(name);

  await phase('routing', async () => {
    const started: Array<{ n: number; child: Child; name: string; startMs: number; rssMb: number }> = [];
    for (const n of ENDPOINT_COUNTS) {
      step(`6. routing + validation with ${n} model endpoints: a gateway in a child process (ROLE=all, SQLite, in-process queue), server.inject (no TCP)`);
      const specDir = path.join(tmp, `spec-${n}`);
      const dataDir = path.join(tmp, `data-${n}`);
      await writeSpecDir(specDir, n);
      await fs.mkdir(dataDir, { recursive: true });
      const child = spawnNode('test/bench/routing.ts', [specDir, dataDir, middleSlug(n), '500'], { nodeArgs: ['--expose-gc'], input: true });
      const name = `routing child ${n}`;
      cleanups.push({ name, fn: () => child.kill() });
      const ready = await child.nextJson<{ models: number; startMs: number; memory: { afterStart: { rssMb: number } } }>(240_000);
      await fs.rm(specDir, { recursive: true, force: true });
      started.push({ n, child, name, startMs: ready.startMs, rssMb: ready.memory.afterStart.rssMb });
      out(`   ${ready.models} endpoints: start-up ${ready.startMs} ms, RSS ${ready.memory.afterStart.rssMb} MiB`);
    }
    const ROUNDS_R = 5;
    const PER_ROUND = 1_000;
    const samples = new Map<number, Record<'valid' | 'invalid', { us: number[]; unexpected: number }>>();
    for (const c of started) samples.set(c.n, { valid: { us: [], unexpected: 0 }, invalid: { us: [], unexpected: 0 } });
    for (let r = 0; r < ROUNDS_R; r++) {
      for (const kind of ['valid', 'invalid'] as const) {
        for (const c of r % 2 === 0 ? started : [...started].reverse()) {
          c.child.send({ cmd: 'run', kind, n: PER_ROUND, warm: 200 });
          const answer = await c.child.nextJson<{ us: number[]; unexpected: number }>(120_000);
          const acc = samples.get(c.n)![kind];
          acc.us.push(...answer.us);
          acc.unexpected += answer.unexpected;
        }
      }
    }
    for (const c of started) {
      c.child.send({ cmd: 'stop' });
      await c.child.nextJson<object>(30_000);
      await cleanupNow(c.name);
      const timing = (kind: 'valid' | 'invalid'): RoutingTiming => {
        const acc = samples.get(c.n)![kind];
        const sorted = [...acc.us].sort((x, y) => x - y);
        return { p50Us: round(percentile(sorted, 50), 0), p99Us: round(percentile(sorted, 99), 0), meanUs: round(mean(sorted), 0), unexpected: acc.unexpected };
      };
      const res = { models: c.n, startMs: c.startMs, rssMb: c.rssMb, valid: timing('valid'), invalid: timing('invalid') };
      results.routing[String(c.n)] = res;
      out(`   ${String(c.n).padStart(5)} endpoints: valid (200) p50 ${res.valid.p50Us} µs, p99 ${res.valid.p99Us} µs; invalid (422) p50 ${res.invalid.p50Us} µs, p99 ${res.invalid.p99Us} µs (${ROUNDS_R * PER_ROUND} each${res.valid.unexpected + res.invalid.unexpected ? `, ${res.valid.unexpected + res.invalid.unexpected} unexpected statuses` : ''})`);
    }
    const small = results.routing[String(ENDPOINT_COUNTS[0])];
    const large = results.routing[String(ENDPOINT_COUNTS.at(-1))];
    if (small && large && small !== large) {
      results.routingRatio = { validP50: round(large.valid.p50Us / small.valid.p50Us, 3), invalidP50: round(large.invalid.p50Us / small.invalid.p50Us, 3) };
      out(`   ${large.models}/${small.models} endpoints: valid p50 ${results.routingRatio.validP50}x, invalid p50 ${results.routingRatio.invalidP50}x`);
    }
  }, 'routing');

  await phase('floor', async () => {
    step(`7. the floor under each path (test/bench/floor.ts, a child process with its own database, queue and processes): bare hapi, a bare hapi route doing only the path's least durable work (one statement per request, and batched), and a gateway API process, in turn; ${ROUNDS} rounds of ${DURATION_S} s, ${CONNECTIONS} connections`);
    await settle();
    const child = spawnNode('test/bench/floor.ts', ['all'], { env: { FLOOR_DURATION: String(DURATION_S), FLOOR_ROUNDS: String(ROUNDS), FLOOR_CONNECTIONS: String(CONNECTIONS), FLOOR_KEYS: String(KEYS), FLOOR_ROWS: String(ROWS) } });
    cleanups.push({ name: 'floor child', fn: () => child.kill() });
    const { floorResults } = await child.nextJson<{ floorResults: FloorResults }>(30 * 60_000);
    await cleanupNow('floor child');
    results.floor = floorResults;
    for (const line of floorLines(floorResults)) out(`   ${line}`);
  }, 'floor');

  await phase('streaming', async () => {
    step('8. streamed chat completions (test/bench/streaming.ts, a child process): time to first token and tokens/s through POST /v1/chat/completions vs the provider fake alone, alternating');
    await settle();
    const child = spawnNode('test/bench/streaming.ts', []);
    cleanups.push({ name: 'streaming child', fn: () => child.kill() });
    const { streamingResults } = await child.nextJson<{ streamingResults: { direct: { ttftP50Ms: number; tokensPerSecondP50: number }; gateway: { ttftP50Ms: number; tokensPerSecondP50: number }; addedTtftP50Ms: number } }>(10 * 60_000);
    await cleanupNow('streaming child');
    results.streaming = streamingResults;
    out(`   first token p50: provider alone ${streamingResults.direct.ttftP50Ms} ms, through the gateway ${streamingResults.gateway.ttftP50Ms} ms (+${streamingResults.addedTtftP50Ms} ms); tokens/s relayed p50 ${streamingResults.gateway.tokensPerSecondP50} vs ${streamingResults.direct.tokensPerSecondP50}`);
  }, 'streaming');
} finally {
  if (!interrupted) {
    step('cleaning up (processes, queues, database, temp files)');
    await cleanupAll();
  }
}

if (halted) await halted;

/** floor.ts's figures a line per path: each process's ratio per round, and the share of the batched floor of the gateway API process measured in the same rounds. */
function floorLines(f: FloorResults): string[] {
  const label = { read: 'result read', sandbox: 'sandbox submit', production: 'production submit (+ a worker that renders, stores and completes)' };
  const lines: string[] = [];
  for (const kind of ['read', 'sandbox', 'production'] as const) {
    const rounds = f[kind];
    if (!rounds?.length) continue;
    const ratios = (name: string) => rounds.map((r) => r[name]?.ratio ?? Number.NaN);
    const cpu = (name: string) => rounds.map((r) => { const c = r[name]?.cpuMs; return c ? round(c.process + c.mariadbd + c.rabbitmq, 3) : Number.NaN; }).join(' / ');
    const gw = rounds[0]!.gateway ? `; gateway API process in the same rounds ${ratios('gateway').join(' / ')} (${rounds.map((r) => round(r.gateway!.ratio / r['floor-b']!.ratio, 2)).join(' / ')} of the batched floor), ${cpu('gateway')} ms` : '';
    const done = kind === 'production' ? `; predictions completed per second, first submit to last completion, over the bare route's requests/s: floor ${rounds.map((r) => r.floor?.completionsRatio ?? Number.NaN).join(' / ')}, batched floor ${rounds.map((r) => r['floor-b']?.completionsRatio ?? Number.NaN).join(' / ')}` : '';
    lines.push(`${label[kind]}: floor ${ratios('floor').join(' / ')} (${cpu('floor')} ms per 2xx), batched floor ${ratios('floor-b').join(' / ')} (${cpu('floor-b')} ms)${gw}${done}`);
  }
  return lines;
}

/** Each path's target judged against the batched floor of this run (undefined: no floor phase, or no figures for that path). */
interface FloorShare {
  /**
   * the gateway's ratio to bare (its own phase), over the batched floor's mean ratio to bare (the
   * floor phase); production: of predictions completed per second, first submit to last completion
   */
  share: number;
  floorRatio: number;
  gatewayRatio: number;
  /** production only: the same share of the submits' 2xx/s alone (the backlog left to the drain not counted against either) */
  submits?: { share: number; floorRatio: number; gatewayRatio: number };
  p99Ms: number;
  target: { floorShare: number; p99Ms: number };
  met: boolean;
}

function floorShare(kind: 'read' | 'sandbox' | 'production', p: PathResult | undefined): FloorShare | undefined {
  const rounds = results.floor?.[kind];
  if (!p || !rounds?.length) return undefined;
  const floorRatio = round(mean(rounds.map((r) => r['floor-b']?.ratio ?? Number.NaN)), 3);
  const target = TARGETS[kind === 'read' ? 'reads' : kind];
  if (kind === 'production') {
    // submit + completion: the predictions each side completes per second of its window (submits and
    // drain), each round's rate over the bare route's of that round; the submits' rate alone rewards
    // whichever side leaves the larger backlog to its drain (the floor's submits are the cheaper)
    const gatewayRatio = round(mean(p.rounds.map((r) => (r.drain?.completionsPerS ?? Number.NaN) / r.bare.rps)), 4);
    const floorDone = round(mean(rounds.map((r) => r['floor-b']?.completionsRatio ?? Number.NaN)), 4);
    const share = round(gatewayRatio / floorDone, 3);
    const submits = { share: round(p.ratio / floorRatio, 3), floorRatio, gatewayRatio: p.ratio };
    return { share, floorRatio: floorDone, gatewayRatio, submits, p99Ms: p.p99Ms, target, met: share >= target.floorShare && p.p99Ms < target.p99Ms };
  }
  const share = round(p.ratio / floorRatio, 3);
  return { share, floorRatio, gatewayRatio: p.ratio, p99Ms: p.p99Ms, target, met: share >= target.floorShare && p.p99Ms < target.p99Ms };
}

// ---------------------------------------------------------------------------------------------
// summary

interface Row {
  path: string;
  gateway: string;
  p50: string;
  p99: string;
  bare: string;
  ratio: string;
  floor: string;
  share: string;
  target: string;
  result: string;
  cpu: string;
  trips: string;
}
const rows: Row[] = [];
const met = (ok: boolean) => (ok ? 'met' : 'NOT MET');
const shares = {
  sandbox: floorShare('sandbox', results.sandbox),
  reads: floorShare('read', results.reads),
  production: floorShare('production', results.production),
};
for (const [key, p] of [['sandbox', results.sandbox], ['reads', results.reads], ['production', results.production]] as const) {
  if (!p) continue;
  const t = TARGETS[key];
  const s = shares[key];
  rows.push({
    path: p.label.replace(/^\d+\. /, ''),
    gateway: `${p.gatewayOkPerS}`,
    p50: `${p.p50Ms}`,
    p99: `${p.p99Ms}`,
    bare: `${p.bareReqPerS}`,
    // production: completions' ratio beside the submits' (the share is of the completions')
    ratio: s?.submits ? `${p.ratio} (${s.gatewayRatio} done)` : `${p.ratio}`,
    floor: s ? `${s.floorRatio}${s.submits ? ' done' : ''}` : 'n/a',
    share: s ? `${s.share}` : 'n/a',
    target: `>= ${t.floorShare} of floor, p99 < ${t.p99Ms}`,
    result: s ? met(s.met) : 'no floor phase',
    cpu: `${p.cost.totalCpuMsPerRequest}`,
    trips: `${p.cost.queriesPerRequest.total} / ${p.cost.questionsPerRequest}`,
  });
}
if (results.sustain) {
  const r = results.sustain;
  rows.push({
    path: `completions, ${SUSTAIN_S} s`,
    gateway: `${r.completionsPerS}`,
    p50: `${r.drain.submitToCompletedP50Ms}*`,
    p99: `${r.drain.submitToCompletedP99Ms}*`,
    bare: `${r.bareReqPerS}`,
    ratio: `${r.ratio}`,
    floor: '',
    share: '',
    target: 'nothing lost',
    result: met(r.nothingLost),
    cpu: `${r.cost.totalCpuMsPerRequest}`,
    trips: `${r.cost.queriesPerRequest.total} / ${r.cost.questionsPerRequest}`,
  });
}

out();
out(`SUMMARY — side by side, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION_S} s; 2xx only (non-2xx apart); everything shares ${cpus.length} cores${LIMITS_OFF ? '; GENERATION LIMITS OFF (BENCH_GENERATE_LIMITS=off): not the gateway as deployed' : ''}`);
if (rows.length) {
  const head: Row = { path: 'path', gateway: 'gateway 2xx/s', p50: 'p50 ms', p99: 'p99 ms', bare: 'bare req/s', ratio: 'ratio', floor: 'batched floor', share: 'share of floor', target: 'target', result: 'result', cpu: 'CPU ms/req', trips: 'DB trips/req (knex / Questions)' };
  const cols = Object.keys(head) as Array<keyof Row>;
  const width = Object.fromEntries(cols.map((c) => [c, Math.max(head[c].length, ...rows.map((r) => r[c].length))])) as Record<keyof Row, number>;
  const line = (r: Row) => `| ${cols.map((c) => r[c].padEnd(width[c])).join(' | ')} |`;
  const rule = `+-${cols.map((c) => '-'.repeat(width[c])).join('-+-')}-+`;
  out(rule);
  out(line(head));
  out(rule);
  for (const r of rows) out(line(r));
  out(rule);
  out('  ratio: to the bare route of the same round; batched floor: the floor phase\'s batched floor, ratio to its bare route; share of floor: ratio / batched floor');
  if (results.production) out('  production submit: CPU and trips per prediction created, submit + completion (the window includes the drain)');
  const ps = shares.production;
  if (ps?.submits) out(`  production share of floor: predictions completed per second, first submit to last completion (gateway ${ps.gatewayRatio} of its bare route, batched floor ${ps.floorRatio}); by the submits' 2xx/s alone, ${ps.submits.gatewayRatio} / ${ps.submits.floorRatio} = ${ps.submits.share}`);
  if (results.sustain) out('  * completions: submit-to-completed latency; CPU and trips per completed prediction (submit + completion)');
  for (const [key, p] of [['sandbox', results.sandbox], ['reads', results.reads], ['production', results.production]] as const) {
    if (p && p.non2xx > 0) out(`  ${key}: ${p.non2xx} non-2xx answers/errors over the rounds, not counted as throughput`);
  }
  for (const p of [results.sandbox, results.reads, results.production]) {
    if (p) out(`  ${p.label.replace(/^\d+\. /, '')} CPU ms per 2xx by process: ${GROUPS.map((g) => `${g} ${p.cost.cpuMsPerRequest[g]}`).join(', ')}`);
  }
}
if (results.scaleout) {
  const { one, two, ratios, more } = results.scaleout;
  out(`scale-out${CPU_CAP ? ` (${CPU_CAP.label})` : ''} (one run each, fresh 1+1 -> fresh 2+2): sandbox ${round(one.sandbox.okPerS, 0)} -> ${round(two.sandbox.okPerS, 0)} 2xx/s (${ratios.sandbox}x); reads ${one.reads ? round(one.reads.okPerS, 0) : 'n/a'} -> ${two.reads ? round(two.reads.okPerS, 0) : 'n/a'} (${ratios.reads ?? 'n/a'}x); production submits ${round(one.production.okPerS, 0)} -> ${round(two.production.okPerS, 0)} (${ratios.productionSubmits}x); completions ${one.drain.completionsPerS} -> ${two.drain.completionsPerS}/s (${ratios.completions}x)`);
  for (const m of more) out(`  fresh ${m.processes}+${m.processes}: sandbox ${round(m.figures.sandbox.okPerS, 0)} 2xx/s (${m.ratios.sandbox}x); reads ${m.figures.reads ? round(m.figures.reads.okPerS, 0) : 'n/a'} (${m.ratios.reads ?? 'n/a'}x); production submits ${round(m.figures.production.okPerS, 0)} (${m.ratios.productionSubmits}x); completions ${m.figures.drain.completionsPerS}/s (${m.ratios.completions}x)`);
}
if (results.routingRatio) out(`routing: ${ENDPOINT_COUNTS.at(-1)} vs ${ENDPOINT_COUNTS[0]} endpoints, p50 ${results.routingRatio.validP50}x (valid), ${results.routingRatio.invalidP50}x (422)`);
if (results.floor) {
  out('floor (test/bench/floor.ts, its own processes in this run; ratios to the bare route of the same round):');
  for (const line of floorLines(results.floor)) out(`  ${line}`);
}

const report = {
  startedAt: startedAt.toISOString(),
  finishedAt: new Date().toISOString(),
  commit,
  machine: { cores: cpus.length, cpu: cpus[0]?.model ?? null, memGiB: round(os.totalmem() / 2 ** 30, 1), node: process.version, loadAverage: os.loadavg(), busyPctDuringRun: round(cpuBusyPct(cpus, os.cpus()), 0) },
  notes: [
    'autocannon runs on the benchmark process\'s main thread and shares the cores with the bare hapi process, the gateway processes, MariaDB and RabbitMQ',
    'ratio = gateway 2xx/s divided by bare hapi req/s on the same requests in the same round; the bare route parses the same JSON body and answers an id (POST) or a small JSON (GET)',
    'CPU per request: utime+stime deltas from /proc over the run (and the drain, for production), minus the idle baseline rate measured just before, divided by 2xx',
    'database round trips: knex queries counted inside the API and worker processes (exact), and MariaDB Questions minus the idle baseline (noisy when other clients use the server)',
  ],
  settings: { durationS: DURATION_S, warmupS: WARMUP_S, rounds: ROUNDS, connections: CONNECTIONS, idleS: IDLE_S, sustainS: SUSTAIN_S, sustainRate: SUSTAIN_RATE || null, keys: KEYS, users: USERS, rows: ROWS, workerConcurrency: WORKER_CONCURRENCY, processCpu: CPU_CAP?.share ?? null, scaleoutMax: SCALEOUT_MAX, endpointCounts: ENDPOINT_COUNTS, phases: [...PHASES], generateLimits: LIMITS_OFF ? 'off' : 'on' },
  targets: TARGETS,
  results,
  /** each path's share of the batched floor under it and whether its target is met (null: no floor phase in this run) */
  shares: { sandbox: shares.sandbox ?? null, reads: shares.reads ?? null, production: shares.production ?? null, completions: results.sustain ? { nothingLost: results.sustain.nothingLost, met: results.sustain.nothingLost } : null },
  summary: rows,
  errors,
};
const reportDir = path.join(ROOT, '.bench');
await fs.mkdir(reportDir, { recursive: true });
await fs.writeFile(path.join(reportDir, 'last.json'), `${JSON.stringify(report, null, 2)}\n`);
out(`\nwrote ${path.relative(process.cwd(), path.join(reportDir, 'last.json')) || '.bench/last.json'} (${round((Date.now() - startedAt.getTime()) / 1000, 0)} s)`);

const failed = Object.keys(errors);
if (failed.length) {
  out(`could not run: ${failed.join(', ')}`);
  process.exit(1);
}
process.exit(0);
