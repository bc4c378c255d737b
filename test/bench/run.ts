// The benchmark: `npm run bench`. One run starts the gateway on MariaDB + RabbitMQ (fresh database
// and queue prefix, both removed at the end), measures it over HTTP against a bare hapi baseline,
// measures routing + validation cost at 10 and 5,000 model endpoints, prints a summary against the
// targets, and writes the numbers to .bench/last.json.
//
// Tuning (environment):
//   BENCH_PHASES       comma list of sandbox, production, reads, webhooks, baseline, routing (default: all;
//                      e.g. BENCH_PHASES=reads node --cpu-prof test/bench/run.ts profiles one phase)
//   BENCH_DURATION     seconds per HTTP run (10), after BENCH_WARMUP seconds of warm-up (2)
//   BENCH_CONNECTIONS  concurrent connections (50)
//   BENCH_SUBMITS      production submits (2000); BENCH_WORKER_CONCURRENCY (16)
//   BENCH_ENDPOINTS    spec sizes for the routing measurement ("10,5000")
//   BENCH_MYSQL_URL, BENCH_AMQP_URL  default to the test services (TEST_MYSQL_URL / TEST_AMQP_URL,
//                      else mysql://root@127.0.0.1:3306 and amqp://guest:guest@127.0.0.1:5672)
//
// Exit code 0 when every measurement ran (whether or not the targets are met), 1 otherwise.
import crypto from 'node:crypto';
import os from 'node:os';
import fs from 'node:fs/promises';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import type { EventLoopUtilization } from 'node:perf_hooks';

if (process.env.BENCH_MYSQL_URL) process.env.TEST_MYSQL_URL = process.env.BENCH_MYSQL_URL;
if (process.env.BENCH_AMQP_URL) process.env.TEST_AMQP_URL = process.env.BENCH_AMQP_URL;

// services.ts reads TEST_MYSQL_URL / TEST_AMQP_URL when it is first evaluated, hence the dynamic imports.
const { start } = await import('../../main.ts');
const { topics } = await import('../../app.ts');
const { loadConfig } = await import('../../config.ts');
const { createQueue } = await import('../../workers/queue/index.ts');
const { insertSandboxPrediction, newPredictionId } = await import('../../db/predictions.ts');
const { AMQP_URL, deleteTopology, freshDatabase, uniqueName } = await import('../helpers/services.ts');
const { cpuBusyPct, fire, mean, percentile, processCpuSnapshot, round, spawnNode, topProcesses, waitForQuiet, ROOT } = await import('./lib.ts');
const { middleSlug, writeSpecDir } = await import('./spec-gen.ts');
import type { Running } from '../../main.ts';
import type { HttpRun, Child } from './lib.ts';
import type { Server } from '@hapi/hapi';

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

const DURATION_S = intEnv('BENCH_DURATION', 10, 1);
const WARMUP_S = intEnv('BENCH_WARMUP', 2, 0);
const CONNECTIONS = intEnv('BENCH_CONNECTIONS', 50, 1);
const SUBMITS = intEnv('BENCH_SUBMITS', 2_000, 1);
const WORKER_CONCURRENCY = intEnv('BENCH_WORKER_CONCURRENCY', 16, 1);
const ENDPOINT_COUNTS = [...new Set((process.env.BENCH_ENDPOINTS || '10,5000').split(',').map((s) => Number(s.trim())).filter((n) => Number.isInteger(n) && n > 0 && n < 100_000))].sort((a, b) => a - b);
if (ENDPOINT_COUNTS.length === 0) {
  process.stderr.write('bench: BENCH_ENDPOINTS must list spec sizes between 1 and 99999, e.g. "10,5000"\n');
  process.exit(2);
}
const ALL_PHASES = ['sandbox', 'production', 'reads', 'webhooks', 'baseline', 'routing'] as const;
type PhaseKey = (typeof ALL_PHASES)[number];
const PHASES = new Set((process.env.BENCH_PHASES ?? ALL_PHASES.join(',')).split(',').map((s) => s.trim()).filter((s): s is PhaseKey => (ALL_PHASES as readonly string[]).includes(s)));
const COMPLETION_TIMEOUT_MS = 120_000;
const ROUTING_CHILD_TIMEOUT_MS = 240_000;
const ROUTING_WARMUP = 500;
const ROUTING_ITERATIONS = 5_000;
const ROUTING_ROUNDS = 5;
/** untimed requests before each round: a process may have sat idle while the other size was measured */
const ROUTING_ROUND_WARMUP = 200;

const TARGETS = {
  sandboxSubmitsPerS: 1_500,
  resultReadsPerS: 5_000,
  p99Ms: 50,
  endpointLatencyRatio: 1.1,
  startupMs: 5_000,
  webhookDeliveriesPerS: 1_000,
  webhookFirstAttemptP50Ms: 50,
};
const WEBHOOK_DELIVERIES = intEnv('BENCH_WEBHOOKS', 5_000, 1);
const LATENCY_RATE = intEnv('BENCH_WEBHOOK_RATE', 100, 1);

const PRODUCTION_BODY = { prompt: 'bench', width: 64, height: 64, num_inference_steps: 1 };

// ---------------------------------------------------------------------------------------------
// output and clean-up

const out = (line = '') => process.stdout.write(`${line}\n`);
const step = (line: string) => process.stdout.write(`» ${line}\n`);

interface Cleanup {
  name: string;
  fn: () => Promise<void>;
}
const cleanups: Cleanup[] = [];

/** Runs (and forgets) every registered clean-up, newest first; a failing one does not stop the others. */
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

/** Runs one registered clean-up now (e.g. stopping the gateway before the baseline). */
async function cleanupNow(name: string): Promise<void> {
  const i = cleanups.findIndex((c) => c.name === name);
  if (i < 0) return;
  const [c] = cleanups.splice(i, 1);
  await c!.fn();
}

let interrupted = false;
/** Set on SIGINT/SIGTERM: cleans up, then exits 130; the main flow waits on it instead of going on. */
let halted: Promise<never> | null = null;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    process.stderr.write(`\nbench: ${signal}: cleaning up\n`);
    halted = cleanupAll().then(() => process.exit(130), () => process.exit(130));
  });
}

// ---------------------------------------------------------------------------------------------
// measurement helpers

const processLabels = new Map<number, string>([[process.pid, 'bench: gateway + autocannon']]);

interface Meters {
  machineCpuBusyPct: number;
  /** the main thread of this process, where the gateway runs (autocannon has its own thread) */
  gatewayEventLoopUtilisationPct: number;
  /** the busiest processes of the machine over the phase, % of one core */
  topProcesses: Array<{ pid: number; name: string; corePct: number }>;
}

/** Starts measuring how busy the machine, each process and the gateway's event loop are; call the result to stop. */
function meters(): () => Meters {
  const cpu0 = os.cpus();
  const proc0 = processCpuSnapshot();
  const t0 = performance.now();
  const elu0 = performance.eventLoopUtilization();
  return () => {
    const elu: EventLoopUtilization = performance.eventLoopUtilization(elu0);
    return {
      machineCpuBusyPct: round(cpuBusyPct(cpu0, os.cpus()), 0),
      gatewayEventLoopUtilisationPct: round(100 * elu.utilization, 0),
      topProcesses: topProcesses(proc0, processCpuSnapshot(), performance.now() - t0, processLabels),
    };
  };
}

function metersLine(m: Meters, what = 'gateway event loop'): string {
  const procs = m.topProcesses.map((p) => `${p.name} ${p.corePct}%`).join(', ');
  return `machine CPU busy ${m.machineCpuBusyPct}% of ${os.cpus().length} cores, ${what} ${m.gatewayEventLoopUtilisationPct}%; busiest processes (% of one core): ${procs || 'n/a'}`;
}

/** Lets the previous phase's aftermath settle before measuring; says so when the machine stays busy. */
async function settle(): Promise<void> {
  const q = await waitForQuiet();
  if (!q.quiet) out(`   (machine still ${q.busyPct}% busy after ${q.waitedMs} ms of waiting; measuring anyway)`);
}

function httpLine(label: string, r: HttpRun): string {
  const codes = Object.entries(r.statusCodes).map(([c, n]) => `${c}:${n}`).join(' ');
  return `${label}: ${round(r.rps, 0)} req/s (${r.requests} in ${r.durationS} s), latency p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, mean ${round(r.meanMs, 1)} ms, max ${r.maxMs} ms; non-2xx ${r.non2xx}, errors ${r.errors}, timeouts ${r.timeouts} [${codes}]`;
}

async function warmAndFire(opts: Parameters<typeof fire>[0]): Promise<HttpRun> {
  if (WARMUP_S > 0) await fire({ ...opts, duration: WARMUP_S });
  return fire(opts);
}

interface AccountKeys {
  userId: number;
  sandboxKey: string;
  liveKey: string;
  liveKeyId: number;
  warmKey: string;
  warmKeyId: number;
  webhookKey: string;
  webhookKeyId: number;
}

async function injectJson(server: Server, opts: { method: string; url: string; headers?: Record<string, string>; payload?: object }, expected: number): Promise<Record<string, unknown>> {
  const res = await server.inject(opts);
  if (res.statusCode !== expected) throw new Error(`${opts.method} ${opts.url}: expected ${expected}, got ${res.statusCode} ${res.payload}`);
  return res.result as Record<string, unknown>;
}

/** Registers a user, logs in and creates a sandbox key and two production keys, through the API. */
async function createAccount(running: Running, server: Server): Promise<AccountKeys> {
  const email = `${uniqueName('bench')}@example.com`;
  const password = 'correct horse battery';
  const user = await injectJson(server, { method: 'POST', url: '/auth/register', payload: { email, password } }, 201);
  const userId = Number(user.id);
  // Plenty of credit for every production request of the run.
  await running.app.db('users').where({ id: userId }).update({ balance: 1_000_000_000 });
  const login = await injectJson(server, { method: 'POST', url: '/auth/login', payload: { email, password } }, 200);
  const headers = { authorization: `Bearer ${String(login.access_token)}` };
  const key = async (name: string, isTest: boolean) => injectJson(server, { method: 'POST', url: '/api/v1/keys', headers, payload: { name, is_test: isTest } }, 200);
  const sandbox = await key('bench-sandbox', true);
  const live = await key('bench-live', false);
  const warm = await key('bench-warmup', false);
  const webhook = await key('bench-webhooks', true);
  return {
    webhookKey: String(webhook.key),
    webhookKeyId: Number(webhook.id),
    userId,
    sandboxKey: String(sandbox.key),
    liveKey: String(live.key),
    liveKeyId: Number(live.id),
    warmKey: String(warm.key),
    warmKeyId: Number(warm.id),
  };
}

interface Gateway {
  env: Record<string, string>;
  running: Running;
  server: Server;
  baseUrl: string;
  keys: AccountKeys;
}

interface StatusCounts {
  total: number;
  byStatus: Record<string, number>;
}

async function statusCounts(running: Running, apiKeyId: number): Promise<StatusCounts> {
  const rows = await running.app.db('predictions').where({ api_key_id: apiKeyId }).select('status').count({ n: '*' }).groupBy('status') as Array<{ status: string; n: number | string }>;
  const byStatus: Record<string, number> = {};
  let total = 0;
  for (const r of rows) {
    byStatus[r.status] = Number(r.n);
    total += Number(r.n);
  }
  return { total, byStatus };
}

const finished = (c: StatusCounts) => (c.byStatus.completed ?? 0) + (c.byStatus.failed ?? 0) + (c.byStatus.cancelled ?? 0);

async function waitAllFinished(running: Running, apiKeyId: number, expected: number, timeoutMs: number): Promise<StatusCounts> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const c = await statusCounts(running, apiKeyId);
    if (finished(c) >= expected || Date.now() > deadline) return c;
    await new Promise((r) => setTimeout(r, 100));
  }
}

// ---------------------------------------------------------------------------------------------
// result shapes

interface ProductionResult {
  requested: number;
  http: HttpRun;
  /** accepted (2xx) submits per second as seen by the client */
  submitsPerS: number;
  /** first accepted submit to last accepted submit, from the rows' created_at */
  serverSideSubmitsPerS: number;
  completed: number;
  failed: number;
  unfinished: number;
  /** completed when the last HTTP submit returned: how far the worker kept up */
  completedWhenSubmitsEnded: number;
  firstSubmitToLastCompletedS: number;
  completionsPerS: number;
  /** created_at -> completed_at of the completed predictions, ms */
  queueToCompletedP50Ms: number;
  queueToCompletedP99Ms: number;
  meters: Meters;
}

interface RoutingTiming {
  p50Us: number;
  p99Us: number;
  meanUs: number;
  maxUs: number;
  unexpected: number;
  statuses: Record<string, number>;
}

type RoutingKind = 'valid' | 'invalid';

interface RoutingMemory {
  rssMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
  externalMb: number;
}

/** What routing.ts reports once its gateway is up and warm. */
interface RoutingReady {
  models: number;
  operations: number;
  startMs: number;
  processStartToImportedMs: number;
  processStartToReadyMs: number;
  memory: Record<'beforeStart' | 'afterStart', RoutingMemory>;
  warmup: number;
  firstRequest: { us: number; status: number };
}

interface RoutingResult {
  models: number;
  operations: number;
  startMs: number;
  processStartToImportedMs: number;
  processStartToReadyMs: number;
  memory: Record<'beforeStart' | 'afterStart' | 'afterRequests', RoutingMemory>;
  warmup: number;
  iterations: number;
  firstRequest: { us: number; status: number };
  valid: RoutingTiming;
  invalid: RoutingTiming;
  specFileKiB: number;
  target: string;
  /** machine and process CPU while this gateway started (other processes slow a start-up down) */
  startupMeters: Meters;
}

interface Results {
  sandbox?: HttpRun & { meters: Meters };
  production?: ProductionResult;
  resultReads?: HttpRun & { meters: Meters };
  webhooks?: { deliveries: number; deliveriesPerS: number; firstAttemptP50Ms: number; firstAttemptP99Ms: number; meters: Meters };
  bareHapi?: HttpRun & { meters: Meters };
  gatewayToBareRatio?: number;
  routing: Record<string, RoutingResult>;
  routingRatio?: { validP50: number; validMean: number; invalidP50: number; invalidMean: number };
}

const results: Results = { routing: {} };
const errors: Record<string, string> = {};

/** Runs one measurement; a failure is recorded (and makes the exit code 1) without stopping the others. */
async function phase<T>(name: string, fn: () => Promise<T>, key?: PhaseKey): Promise<T | undefined> {
  if (halted) await halted;
  if (key && !PHASES.has(key)) return undefined;
  try {
    return await fn();
  } catch (err) {
    // Interrupted: the failure is the clean-up killing what the phase used.
    if (halted) await halted;
    errors[name] = (err as Error).stack ?? String(err);
    out(`!! ${name} could not run: ${(err as Error).message}`);
    return undefined;
  }
}

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
out('NOTE: the load generator (autocannon, in a worker thread of this process) shares the machine\'s cores with the server,');
out('      MariaDB and RabbitMQ; the gateway runs with ROLE=all, so the model worker shares the API\'s process and event loop.');
out(`settings: phases ${[...PHASES].join(', ')}; ${CONNECTIONS} connections, ${DURATION_S} s per HTTP run after ${WARMUP_S} s of warm-up, ${SUBMITS} production submits, WORKER_CONCURRENCY=${WORKER_CONCURRENCY}, endpoint counts ${ENDPOINT_COUNTS.join(' / ')}`);
out();

const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-bench-'));
cleanups.push({ name: 'temp dir', fn: () => fs.rm(tmp, { recursive: true, force: true }) });

try {
  const needGateway = PHASES.has('sandbox') || PHASES.has('production') || PHASES.has('reads') || PHASES.has('webhooks');
  const gateway = !needGateway ? undefined : await phase('gateway start', async (): Promise<Gateway> => {
    step('starting the gateway: fresh MariaDB database, RabbitMQ with its own prefix, 127.0.0.1 on a free port');
    const db = await freshDatabase();
    cleanups.push({ name: 'database', fn: db.drop });
    const prefix = uniqueName('bench').toLowerCase();
    const env: Record<string, string> = {
      ROLE: 'all',
      HOST: '127.0.0.1',
      PORT: '0',
      PUBLIC_URL: 'http://127.0.0.1',
      DATABASE_URL: db.url,
      ENCRYPTION_KEY: crypto.randomBytes(32).toString('hex'),
      AMQP_URL,
      AMQP_PREFIX: prefix,
      DATA_DIR: path.join(tmp, 'gateway'),
      WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
      LOG_LEVEL: 'silent',
      // the benchmark's webhook receiver listens on loopback
      WEBHOOK_ALLOW_INSECURE: 'true',
    };
    const specs = topics(loadConfig(env));
    cleanups.push({ name: 'queues', fn: () => deleteTopology(prefix, specs, AMQP_URL) });
    const t0 = performance.now();
    const running = await start(env);
    cleanups.push({ name: 'gateway', fn: () => running.stop() });
    if (!running.server) throw new Error('the gateway started without an HTTP server');
    const baseUrl = `http://127.0.0.1:${running.server.info.port}`;
    out(`   gateway listening on ${baseUrl} after ${round(performance.now() - t0, 0)} ms (${running.app.spec.models.size} model endpoints)`);
    return { env, running, server: running.server, baseUrl, keys: await createAccount(running, running.server) };
  });

  if (gateway) {
    const { running: gw, server, baseUrl, keys } = gateway;
    const gatewayEnv = gateway.env;

    await phase('sandbox submits', async () => {
      await settle();
      step(`1. sandbox submits: POST /api/v1/canvas-v1-fast-text-to-image with a sandbox key, ${CONNECTIONS} connections, ${DURATION_S} s`);
      const stop = meters();
      const r = await warmAndFire({
        url: `${baseUrl}/api/v1/canvas-v1-fast-text-to-image`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': keys.sandboxKey },
        body: JSON.stringify({ prompt: 'bench' }),
        connections: CONNECTIONS,
        duration: DURATION_S,
      });
      results.sandbox = { ...r, meters: stop() };
      out(`   ${httpLine('sandbox submits', r)}`);
      out(`   ${metersLine(results.sandbox.meters)} (incl. warm-up)`);
    }, 'sandbox');

    await phase('production submit-to-completed', async () => {
      step(`2. production: ${SUBMITS} submits (64x64, 1 step) with ${CONNECTIONS} connections, then wait until the worker (same process, WORKER_CONCURRENCY=${WORKER_CONCURRENCY}) completes them`);
      const body = JSON.stringify(PRODUCTION_BODY);
      const fireOpts = {
        url: `${baseUrl}/api/v1/canvas-v1-fast-text-to-image`,
        method: 'POST' as const,
        body,
        connections: Math.min(CONNECTIONS, SUBMITS),
      };
      // Warm-up on its own key, finished before the measured run starts.
      const warmN = Math.min(200, SUBMITS);
      if (warmN > 0) {
        await fire({ ...fireOpts, headers: { 'content-type': 'application/json', 'x-api-key': keys.warmKey }, amount: warmN, connections: Math.min(CONNECTIONS, warmN) });
        await waitAllFinished(gw, keys.warmKeyId, warmN, 60_000);
      }

      await settle();
      const stop = meters();
      const http = await fire({ ...fireOpts, headers: { 'content-type': 'application/json', 'x-api-key': keys.liveKey }, amount: SUBMITS });
      const atSubmitEnd = await statusCounts(gw, keys.liveKeyId);
      const accepted = atSubmitEnd.total;
      const final = await waitAllFinished(gw, keys.liveKeyId, accepted, COMPLETION_TIMEOUT_MS);
      const m = stop();
      const span = await gw.app.db('predictions').where({ api_key_id: keys.liveKeyId })
        .min({ firstCreated: 'created_at' }).max({ lastCreated: 'created_at' }).max({ lastCompleted: 'completed_at' })
        .first() as { firstCreated: number | string | null; lastCreated: number | string | null; lastCompleted: number | string | null } | undefined;
      const durations = (await gw.app.db('predictions').where({ api_key_id: keys.liveKeyId, status: 'completed' })
        .select(gw.app.db.raw('completed_at - created_at as ms')) as Array<{ ms: number | string }>).map((r) => Number(r.ms)).sort((a, b) => a - b);
      const firstCreated = Number(span?.firstCreated ?? Number.NaN);
      const lastCreated = Number(span?.lastCreated ?? Number.NaN);
      const lastCompleted = Number(span?.lastCompleted ?? Number.NaN);
      const completed = final.byStatus.completed ?? 0;
      const windowS = (lastCompleted - firstCreated) / 1000;
      const pct = (p: number) => durations.length ? durations[Math.min(durations.length - 1, Math.ceil((p / 100) * durations.length) - 1)]! : Number.NaN;
      results.production = {
        requested: SUBMITS,
        http,
        submitsPerS: http.durationS > 0 ? (http.requests - http.non2xx) / http.durationS : 0,
        serverSideSubmitsPerS: lastCreated > firstCreated ? (accepted - 1) / ((lastCreated - firstCreated) / 1000) : Number.NaN,
        completed,
        failed: final.byStatus.failed ?? 0,
        unfinished: final.total - finished(final),
        completedWhenSubmitsEnded: atSubmitEnd.byStatus.completed ?? 0,
        firstSubmitToLastCompletedS: round(windowS, 2),
        completionsPerS: windowS > 0 ? completed / windowS : 0,
        queueToCompletedP50Ms: pct(50),
        queueToCompletedP99Ms: pct(99),
        meters: m,
      };
      const p = results.production;
      out(`   ${httpLine('production submits (HTTP)', http)}`);
      out(`   accepted ${accepted}/${SUBMITS}; ${round(p.submitsPerS, 0)} submits/s at the client, ${round(p.serverSideSubmitsPerS, 0)}/s between first and last created_at`);
      out(`   completed ${completed}, failed ${p.failed}, unfinished ${p.unfinished}; ${p.completedWhenSubmitsEnded} were already completed when the last submit returned`);
      out(`   completions: ${round(p.completionsPerS, 0)}/s (first submit to last completed: ${p.firstSubmitToLastCompletedS} s); submit-to-completed p50 ${p.queueToCompletedP50Ms} ms, p99 ${p.queueToCompletedP99Ms} ms`);
      out(`   ${metersLine(m)}`);
    }, 'production');

    await phase('result reads', async () => {
      // A completed production prediction (outputs, timings); a sandbox one if production did not run.
      let key = keys.liveKey;
      let row = await gw.app.db('predictions').where({ api_key_id: keys.liveKeyId, status: 'completed' }).first('id') as { id: string } | undefined;
      if (!row) {
        key = keys.sandboxKey;
        row = await gw.app.db('predictions').where({ user_id: keys.userId, is_test: true, status: 'completed' }).first('id') as { id: string } | undefined;
      }
      if (!row) {
        // Neither earlier phase ran: make one sandbox prediction to read.
        const made = await injectJson(server, { method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { 'x-api-key': keys.sandboxKey }, payload: { prompt: 'bench' } }, 200);
        row = { id: String(made.request_id) };
      }
      await settle();
      step(`3. result reads: GET /api/v1/predictions/${row.id}/result, ${CONNECTIONS} connections, ${DURATION_S} s`);
      const stop = meters();
      const r = await warmAndFire({
        url: `${baseUrl}/api/v1/predictions/${row.id}/result`,
        method: 'GET',
        headers: { 'x-api-key': key },
        connections: CONNECTIONS,
        duration: DURATION_S,
      });
      results.resultReads = { ...r, meters: stop() };
      out(`   ${httpLine('result reads', r)}`);
      out(`   ${metersLine(results.resultReads.meters)} (incl. warm-up)`);
    }, 'reads');

    await phase('webhook deliveries', async () => {
      // A dedicated worker process (ROLE=worker, as in production) on its own queue prefix, so the
      // figure is per worker process and the in-process gateway's consumer takes no part.
      // Throughput: N finished sandbox predictions with their deliveries are queued first, then
      // the worker starts and drains them. Latency: with the worker idle, predictions finish at a
      // moderate rate and the time from completion to the first attempt is read from the database.
      const n = WEBHOOK_DELIVERIES;
      step(`4. webhooks: a ROLE=worker process delivers ${n} queued deliveries to a receiver process; then completion-to-first-attempt at ${LATENCY_RATE}/s`);
      const receiver: Child = spawnNode('test/bench/receiver.ts', ['0']);
      cleanups.push({ name: 'webhook receiver', fn: () => receiver.kill() });
      if (receiver.child.pid) processLabels.set(receiver.child.pid, 'webhook receiver');
      const { port } = await receiver.nextJson<{ port: number }>(30_000);
      const hookUrl = `http://127.0.0.1:${port}/hook`;
      const workerEnv = { ...gatewayEnv, ROLE: 'worker', AMQP_PREFIX: `${gatewayEnv.AMQP_PREFIX}_wh`, PORT: '0', LOG_LEVEL: 'warn' };
      const whConfig = loadConfig(workerEnv);
      cleanups.push({ name: 'webhook queues', fn: () => deleteTopology(whConfig.amqpPrefix, topics(whConfig), AMQP_URL) });
      const queue = await createQueue(AMQP_URL, { prefix: whConfig.amqpPrefix });
      cleanups.push({ name: 'webhook publisher', fn: () => queue.close() });
      await queue.setup(topics(whConfig));
      const db = gw.app.db;
      const finish = async (i: number) => {
        const now = Date.now();
        const id = newPredictionId(now);
        const deliveryId = await insertSandboxPrediction(db, { id, userId: keys.userId, apiKeyId: keys.webhookKeyId, model: 'canvas-v1-fast-text-to-image', input: { prompt: `bench ${i}` }, webhookUrl: hookUrl }, ['sandbox/sample.png'], now);
        await queue.publish('webhooks', { id: deliveryId });
      };
      for (let i = 0; i < n; i += 50) await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, k) => finish(i + k)));

      await settle();
      const stop = meters();
      const worker: Child = spawnNode('main.ts', [], { env: workerEnv });
      cleanups.push({ name: 'webhook worker', fn: () => worker.kill() });
      if (worker.child.pid) processLabels.set(worker.child.pid, 'webhook worker');
      const counted = async () => (await (await fetch(`http://127.0.0.1:${port}/count`)).json()) as { count: number; first: number; last: number };
      const deadline = Date.now() + COMPLETION_TIMEOUT_MS;
      let c = await counted();
      while (c.count < n && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        c = await counted();
      }
      const m = stop();
      const windowS = (c.last - c.first) / 1000;

      // Latency at a moderate rate, worker already warm.
      const latencyIds: string[] = [];
      const total = LATENCY_RATE * 5;
      for (let i = 0; i < total; i++) {
        const now = Date.now();
        const id = newPredictionId(now);
        latencyIds.push(id);
        const deliveryId = await insertSandboxPrediction(db, { id, userId: keys.userId, apiKeyId: keys.webhookKeyId, model: 'canvas-v1-fast-text-to-image', input: { prompt: `latency ${i}` }, webhookUrl: hookUrl }, ['sandbox/sample.png'], now);
        await queue.publish('webhooks', { id: deliveryId });
        await new Promise((r) => setTimeout(r, 1000 / LATENCY_RATE));
      }
      const attemptsDone = async () => Number(((await db('webhook_attempts as a').join('webhook_deliveries as d', 'd.id', 'a.delivery_id').whereIn('d.prediction_id', latencyIds).count({ n: '*' })) as Array<{ n: number | string }>)[0]?.n ?? 0);
      while ((await attemptsDone()) < latencyIds.length && Date.now() < deadline + 30_000) await new Promise((r) => setTimeout(r, 100));
      const delays = (await db('webhook_attempts as a')
        .join('webhook_deliveries as d', 'd.id', 'a.delivery_id')
        .join('predictions as p', 'p.id', 'd.prediction_id')
        .where('a.number', 1).whereIn('p.id', latencyIds)
        .select(db.raw('a.started_at - p.completed_at as ms')) as Array<{ ms: number | string }>).map((r) => Number(r.ms)).sort((a, b) => a - b);
      await cleanupNow('webhook worker');
      results.webhooks = {
        deliveries: c.count,
        deliveriesPerS: windowS > 0 ? (c.count - 1) / windowS : 0,
        firstAttemptP50Ms: percentile(delays, 50),
        firstAttemptP99Ms: percentile(delays, 99),
        meters: m,
      };
      const w = results.webhooks;
      out(`   delivered ${w.deliveries}/${n} by one worker process: ${round(w.deliveriesPerS, 0)} deliveries/s (first to last received)`);
      out(`   ${metersLine(m, 'bench main thread')}`);
      out(`   completion to first attempt at ${LATENCY_RATE}/s: p50 ${w.firstAttemptP50Ms} ms, p99 ${w.firstAttemptP99Ms} ms (${delays.length} deliveries)`);
      await cleanupNow('webhook publisher');
      await cleanupNow('webhook receiver');
    }, 'webhooks');
  }

  // The rest does not need the gateway: stop it so it does not compete for the cores.
  await cleanupNow('gateway');

  await phase('bare hapi baseline', async () => {
    step(`4. baseline: bare hapi (one GET route returning {ok:true}) in a child process, ${CONNECTIONS} connections, ${DURATION_S} s`);
    const child: Child = spawnNode('test/bench/bare-hapi.ts', ['0']);
    cleanups.push({ name: 'bare hapi', fn: () => child.kill() });
    if (child.child.pid) processLabels.set(child.child.pid, 'bare hapi');
    const { port } = await child.nextJson<{ port: number }>(30_000);
    await settle();
    const stop = meters();
    const r = await warmAndFire({ url: `http://127.0.0.1:${port}/ok`, method: 'GET', connections: CONNECTIONS, duration: DURATION_S });
    results.bareHapi = { ...r, meters: stop() };
    await cleanupNow('bare hapi');
    out(`   ${httpLine('bare hapi GET', r)}`);
    out(`   ${metersLine(results.bareHapi.meters, 'bench main thread (idle)')} (incl. warm-up)`);
    if (results.resultReads && r.rps > 0) {
      results.gatewayToBareRatio = results.resultReads.rps / r.rps;
      out(`   gateway result read / bare hapi: ${round(results.gatewayToBareRatio, 3)} (${round(results.resultReads.rps, 0)} vs ${round(r.rps, 0)} req/s)`);
    }
  }, 'baseline');

  await phase('routing', async () => {
    const started: Array<{ n: number; child: Child; name: string; ready: RoutingReady; specFileKiB: number; target: string; startupMeters: Meters }> = [];
    // One gateway process per spec size, started one after the other so each start-up has the machine to itself.
    for (const n of ENDPOINT_COUNTS) {
      const target = middleSlug(n);
      step(`5. routing + validation with ${n} model endpoints: starting a gateway in a child process (ROLE=all, SQLite, in-process queue)`);
      const specDir = path.join(tmp, `spec-${n}`);
      const dataDir = path.join(tmp, `data-${n}`);
      await writeSpecDir(specDir, n);
      await fs.mkdir(dataDir, { recursive: true });
      const specFileKiB = round((await fs.stat(path.join(specDir, 'models', 'bench.yaml'))).size / 1024, 0);
      await settle();
      const stopMeters = meters();
      const child: Child = spawnNode('test/bench/routing.ts', [specDir, dataDir, target, String(ROUTING_WARMUP)], { nodeArgs: ['--expose-gc'], input: true });
      const name = `routing child ${n}`;
      cleanups.push({ name, fn: () => child.kill() });
      if (child.child.pid) processLabels.set(child.child.pid, `gateway with ${n} endpoints`);
      const ready = await child.nextJson<RoutingReady>(ROUTING_CHILD_TIMEOUT_MS);
      const startupMeters = stopMeters();
      await fs.rm(specDir, { recursive: true, force: true });
      started.push({ n, child, name, ready, specFileKiB, target, startupMeters });
      const mem = ready.memory.afterStart;
      out(`   ${ready.models} model endpoints (${ready.operations} operations, models file ${specFileKiB >= 1024 ? `${round(specFileKiB / 1024, 1)} MiB` : `${specFileKiB} KiB`}): start-up ${ready.startMs} ms (process start to ready ${ready.processStartToReadyMs} ms), after start RSS ${mem.rssMb} MiB, heap used ${mem.heapUsedMb} MiB (before start: RSS ${ready.memory.beforeStart.rssMb} MiB)`);
      out(`   during start-up and warm-up: ${metersLine(startupMeters, 'bench main thread (idle)')}`);
      out(`   first request to ${target} (compiles its validators): ${round(ready.firstRequest.us / 1000, 1)} ms (status ${ready.firstRequest.status}); then ${ready.warmup} warm-up requests of each kind`);
    }

    // Interleaved rounds: every size sees the same machine, and the order flips every round.
    const perRound = Math.max(1, Math.ceil(ROUTING_ITERATIONS / ROUTING_ROUNDS));
    step(`5. timing: ${ROUTING_ROUNDS} interleaved rounds of ${perRound} sequential server.inject calls (after ${ROUTING_ROUND_WARMUP} untimed ones) per kind and spec size (valid body -> 200, invalid body -> 422)`);
    await settle();
    const samples = new Map<number, Record<RoutingKind, { us: number[]; unexpected: number; statuses: Record<string, number> }>>();
    for (const c of started) samples.set(c.n, { valid: { us: [], unexpected: 0, statuses: {} }, invalid: { us: [], unexpected: 0, statuses: {} } });
    for (let round_ = 0; round_ < ROUTING_ROUNDS; round_++) {
      const order = round_ % 2 === 0 ? started : [...started].reverse();
      for (const kind of ['valid', 'invalid'] as const) {
        for (const c of order) {
          c.child.send({ cmd: 'run', kind, n: perRound, warm: ROUTING_ROUND_WARMUP });
          const answer = await c.child.nextJson<{ kind: RoutingKind; us: number[]; unexpected: number; statuses: Record<string, number> }>(120_000);
          const acc = samples.get(c.n)![kind];
          acc.us.push(...answer.us);
          acc.unexpected += answer.unexpected;
          for (const [code, count] of Object.entries(answer.statuses)) acc.statuses[code] = (acc.statuses[code] ?? 0) + count;
        }
      }
    }

    for (const c of started) {
      c.child.send({ cmd: 'stop' });
      const stopped = await c.child.nextJson<{ memory: RoutingMemory }>(30_000);
      await cleanupNow(c.name);
      const timing = (kind: RoutingKind): RoutingTiming => {
        const acc = samples.get(c.n)![kind];
        const sorted = [...acc.us].sort((x, y) => x - y);
        return { p50Us: round(percentile(sorted, 50), 0), p99Us: round(percentile(sorted, 99), 0), meanUs: round(mean(sorted), 0), maxUs: round(sorted.at(-1) ?? Number.NaN, 0), unexpected: acc.unexpected, statuses: acc.statuses };
      };
      const { ready } = c;
      const res: RoutingResult = {
        models: ready.models,
        operations: ready.operations,
        startMs: ready.startMs,
        processStartToImportedMs: ready.processStartToImportedMs,
        processStartToReadyMs: ready.processStartToReadyMs,
        memory: { ...ready.memory, afterRequests: stopped.memory },
        warmup: ready.warmup,
        iterations: perRound * ROUTING_ROUNDS,
        firstRequest: ready.firstRequest,
        valid: timing('valid'),
        invalid: timing('invalid'),
        specFileKiB: c.specFileKiB,
        startupMeters: c.startupMeters,
        target: c.target,
      };
      results.routing[String(c.n)] = res;
      const extra = (t: RoutingTiming) => (t.unexpected ? `, ${t.unexpected} unexpected statuses ${JSON.stringify(t.statuses)}` : '');
      out(`   ${String(res.models).padStart(5)} endpoints, valid (200):   p50 ${res.valid.p50Us} µs, p99 ${res.valid.p99Us} µs, mean ${res.valid.meanUs} µs, max ${res.valid.maxUs} µs (${res.iterations} requests${extra(res.valid)})`);
      out(`   ${String(res.models).padStart(5)} endpoints, invalid (422): p50 ${res.invalid.p50Us} µs, p99 ${res.invalid.p99Us} µs, mean ${res.invalid.meanUs} µs, max ${res.invalid.maxUs} µs (${res.iterations} requests${extra(res.invalid)}); RSS afterwards ${stopped.memory.rssMb} MiB`);
    }
    const small = results.routing[String(Math.min(...ENDPOINT_COUNTS))];
    const large = results.routing[String(Math.max(...ENDPOINT_COUNTS))];
    if (small && large && small !== large) {
      results.routingRatio = {
        validP50: large.valid.p50Us / small.valid.p50Us,
        validMean: large.valid.meanUs / small.valid.meanUs,
        invalidP50: large.invalid.p50Us / small.invalid.p50Us,
        invalidMean: large.invalid.meanUs / small.invalid.meanUs,
      };
      const q = results.routingRatio;
      out(`   ratio ${large.models}/${small.models} endpoints: valid p50 ${round(q.validP50, 3)}, mean ${round(q.validMean, 3)}; invalid p50 ${round(q.invalidP50, 3)}, mean ${round(q.invalidMean, 3)}`);
    }
  }, 'routing');
} finally {
  if (!interrupted) {
    step('cleaning up (gateway, child processes, queues, database, temp files)');
    await cleanupAll();
  }
}

// ---------------------------------------------------------------------------------------------
// summary

if (halted) await halted;

interface Row {
  target: string;
  measured: string;
  met: boolean | null;
}
const rows: Row[] = [];
const num = (v: number | undefined): v is number => v !== undefined && Number.isFinite(v);
/** `text` when the value was measured, else "not measured". */
const shown = (v: number | undefined, text: (v: number) => string) => (num(v) ? text(v) : 'not measured');
const check = (v: number | undefined, ok: (v: number) => boolean) => (num(v) ? ok(v) : null);

const { sandbox, production, resultReads, bareHapi, routingRatio, gatewayToBareRatio } = results;
rows.push({ target: `sandbox submits >= ${TARGETS.sandboxSubmitsPerS} req/s`, measured: shown(sandbox?.rps, (v) => `${round(v, 0)} req/s`), met: check(sandbox?.rps, (v) => v >= TARGETS.sandboxSubmitsPerS) });
rows.push({ target: `result reads >= ${TARGETS.resultReadsPerS} req/s`, measured: shown(resultReads?.rps, (v) => `${round(v, 0)} req/s`), met: check(resultReads?.rps, (v) => v >= TARGETS.resultReadsPerS) });
rows.push({ target: `p99 < ${TARGETS.p99Ms} ms: sandbox submit`, measured: shown(sandbox?.p99Ms, (v) => `${v} ms`), met: check(sandbox?.p99Ms, (v) => v < TARGETS.p99Ms) });
rows.push({ target: `p99 < ${TARGETS.p99Ms} ms: result read`, measured: shown(resultReads?.p99Ms, (v) => `${v} ms`), met: check(resultReads?.p99Ms, (v) => v < TARGETS.p99Ms) });
rows.push({ target: `p99 < ${TARGETS.p99Ms} ms: production submit (worker busy)`, measured: shown(production?.http.p99Ms, (v) => `${v} ms`), met: check(production?.http.p99Ms, (v) => v < TARGETS.p99Ms) });
const small = results.routing[String(Math.min(...ENDPOINT_COUNTS))];
const large = results.routing[String(Math.max(...ENDPOINT_COUNTS))];
const ratioLabel = `${Math.max(...ENDPOINT_COUNTS)}/${Math.min(...ENDPOINT_COUNTS)} endpoints`;
rows.push({ target: `${ratioLabel} latency <= ${TARGETS.endpointLatencyRatio}x: valid p50`, measured: shown(routingRatio?.validP50, (v) => `${round(v, 3)}x (${large?.valid.p50Us} vs ${small?.valid.p50Us} µs)`), met: check(routingRatio?.validP50, (v) => v <= TARGETS.endpointLatencyRatio) });
rows.push({ target: `${ratioLabel} latency <= ${TARGETS.endpointLatencyRatio}x: 422 p50`, measured: shown(routingRatio?.invalidP50, (v) => `${round(v, 3)}x (${large?.invalid.p50Us} vs ${small?.invalid.p50Us} µs)`), met: check(routingRatio?.invalidP50, (v) => v <= TARGETS.endpointLatencyRatio) });
for (const n of ENDPOINT_COUNTS) {
  const r = results.routing[String(n)];
  rows.push({ target: `start-up < ${TARGETS.startupMs / 1000} s with ${n} endpoints`, measured: shown(r?.startMs, (v) => `${round(v / 1000, 2)} s (RSS ${round(r!.memory.afterStart.rssMb, 0)} MiB)`), met: check(r?.startMs, (v) => v < TARGETS.startupMs) });
}
rows.push({ target: `webhook deliveries >= ${TARGETS.webhookDeliveriesPerS}/s per worker process`, measured: shown(results.webhooks?.deliveriesPerS, (v) => `${round(v, 0)} /s`), met: check(results.webhooks?.deliveriesPerS, (v) => v >= TARGETS.webhookDeliveriesPerS) });
rows.push({ target: `completion to first webhook attempt p50 < ${TARGETS.webhookFirstAttemptP50Ms} ms`, measured: shown(results.webhooks?.firstAttemptP50Ms, (v) => `${v} ms (p99 ${results.webhooks!.firstAttemptP99Ms} ms)`), met: check(results.webhooks?.firstAttemptP50Ms, (v) => v < TARGETS.webhookFirstAttemptP50Ms) });
rows.push({ target: 'info: production submits/s (HTTP)', measured: shown(production?.submitsPerS, (v) => `${round(v, 0)} /s`), met: null });
rows.push({ target: 'info: production completions/s', measured: shown(production?.completionsPerS, (v) => `${round(v, 0)} /s (${production!.completed}/${production!.requested} completed)`), met: null });
rows.push({ target: 'info: result read gateway/bare hapi', measured: shown(gatewayToBareRatio, (v) => `${round(v, 3)} (bare hapi ${round(bareHapi!.rps, 0)} req/s)`), met: null });

out();
out('SUMMARY (load generator shares the cores with the server; worker shares the gateway process)');
const w1 = Math.max(...rows.map((r) => r.target.length));
const w2 = Math.max(...rows.map((r) => r.measured.length));
const line = `+-${'-'.repeat(w1)}-+-${'-'.repeat(w2)}-+---------+`;
out(line);
out(`| ${'target'.padEnd(w1)} | ${'measured'.padEnd(w2)} | result  |`);
out(line);
for (const r of rows) out(`| ${r.target.padEnd(w1)} | ${r.measured.padEnd(w2)} | ${(r.met === null ? '' : r.met ? 'met' : 'NOT MET').padEnd(7)} |`);
out(line);

const report = {
  startedAt: startedAt.toISOString(),
  finishedAt: new Date().toISOString(),
  commit,
  machine: { cores: cpus.length, cpu: cpus[0]?.model ?? null, memGiB: round(os.totalmem() / 2 ** 30, 1), node: process.version, loadAverage: os.loadavg() },
  notes: [
    'autocannon runs in a worker thread of the benchmark process and shares the machine\'s cores with the gateway, MariaDB and RabbitMQ',
    'the gateway runs with ROLE=all: the model worker shares the API\'s process and event loop',
    'routing numbers come from server.inject (no TCP) in a fresh child process per spec size, on SQLite and the in-process queue',
  ],
  settings: { durationS: DURATION_S, warmupS: WARMUP_S, connections: CONNECTIONS, submits: SUBMITS, workerConcurrency: WORKER_CONCURRENCY, endpointCounts: ENDPOINT_COUNTS, productionBody: PRODUCTION_BODY },
  targets: TARGETS,
  results,
  summary: rows,
  errors,
};
const reportDir = path.join(ROOT, '.bench');
await fs.mkdir(reportDir, { recursive: true });
await fs.writeFile(path.join(reportDir, 'last.json'), `${JSON.stringify(report, null, 2)}\n`);
out(`\nwrote ${path.relative(process.cwd(), path.join(reportDir, 'last.json')) || '.bench/last.json'}`);

const failed = Object.keys(errors);
if (failed.length) {
  out(`could not run: ${failed.join(', ')}`);
  process.exit(1);
}
process.exit(0);
