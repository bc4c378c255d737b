// Routing + validation cost against the size of the spec: one gateway per process, so start-up
// time and memory are those of a fresh gateway. Driven by the benchmark (run.ts) over stdin/stdout,
// one JSON object per line, so that the runs for several spec sizes can be interleaved in rounds
// and drift in the machine's state (other processes, MariaDB flushing) hits them all alike.
//
// Usage: node --expose-gc test/bench/routing.ts <specDir> <dataDir> <operationId> [warmup]
// Starts the gateway (ROLE=all, embedded SQLite in <dataDir>, in-process queue, one worker slot),
// creates a sandbox key, sends the first (cold) request and <warmup> warm-up requests of each
// kind, then prints {"ready": true, ...start-up figures} and answers commands:
//   {"cmd":"run","kind":"valid"|"invalid","n":1000,"warm":200} -> {"kind":..., "us":[...], "unexpected":0, "statuses":{...}}
//     (`warm` untimed requests first: the process may have sat idle while another size was measured)
//   {"cmd":"stop"}                                  -> {"stopped":true, "memory":{...}} and exits
// Requests are server.inject calls (no TCP) to POST /api/v1/<operationId> with the sandbox key:
// "valid" has a valid body (200, one sandbox row written), "invalid" fails validation (422).
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { start } from '../../main.ts';
import type { Running } from '../../main.ts';
import type { Server, ServerInjectOptions } from '@hapi/hapi';
import { round } from './lib.ts';

const [specDir, dataDir, operationId, warmupArg] = process.argv.slice(2);
if (!specDir || !dataDir || !operationId) {
  process.stderr.write('usage: node test/bench/routing.ts <specDir> <dataDir> <operationId> [warmup]\n');
  process.exit(2);
}
const WARMUP = Number(warmupArg ?? 500);

interface Memory {
  rssMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
  externalMb: number;
}

type Kind = 'valid' | 'invalid';
type Command = { cmd: 'run'; kind: Kind; n: number; warm?: number } | { cmd: 'stop' };

const send = (message: object) => process.stdout.write(`${JSON.stringify(message)}\n`);

function memory(): Memory {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) gc();
  const m = process.memoryUsage();
  const mb = (b: number) => round(b / 1024 / 1024, 1);
  return { rssMb: mb(m.rss), heapUsedMb: mb(m.heapUsed), heapTotalMb: mb(m.heapTotal), externalMb: mb(m.external) };
}

async function injectJson(server: Server, opts: ServerInjectOptions, expected: number): Promise<Record<string, unknown>> {
  const res = await server.inject(opts);
  if (res.statusCode !== expected) throw new Error(`${String(opts.method)} ${String(opts.url)}: expected ${expected}, got ${res.statusCode} ${res.payload}`);
  return res.result as Record<string, unknown>;
}

/** Registers a user, logs in and creates a sandbox key, all through the API. */
async function sandboxKey(server: Server): Promise<string> {
  const email = `bench-${process.pid}@example.com`;
  const password = 'correct horse battery';
  await injectJson(server, { method: 'POST', url: '/auth/register', payload: { email, password } }, 201);
  const login = await injectJson(server, { method: 'POST', url: '/auth/login', payload: { email, password } }, 200);
  const key = await injectJson(server, { method: 'POST', url: '/api/v1/keys', headers: { authorization: `Bearer ${String(login.access_token)}` }, payload: { name: 'bench', is_test: true } }, 200);
  return String(key.key);
}

let running: Running | null = null;
let stopping = false;
async function stop(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    try {
      await running?.stop();
    } catch (err) {
      process.stderr.write(`routing: stop failed: ${(err as Error).message}\n`);
    }
  }
  process.exit(code);
}
process.on('SIGTERM', () => void stop(0));
process.on('SIGINT', () => void stop(0));
// The benchmark going away (crash, kill -9) closes stdin: do not outlive it.
process.stdin.on('end', () => void stop(0));

try {
  const processStartToImportedMs = performance.now();
  const beforeStart = memory();
  const t0 = performance.now();
  running = await start({
    PATH: process.env.PATH ?? '',
    ROLE: 'all',
    SPEC_DIR: specDir,
    DATA_DIR: dataDir,
    WORKER_CONCURRENCY: '1',
    PORT: '0',
    HOST: '127.0.0.1',
    PUBLIC_URL: 'http://bench.test',
    LOG_LEVEL: 'silent',
    // thousands of submits with one sandbox key: the generation limits (60 a minute by default)
    // would answer 429 and measure the refusal instead of routing and validation
    GENERATE_RATE_PER_KEY: '0',
    GENERATE_RATE_PER_ACCOUNT: '0',
  });
  const startMs = performance.now() - t0;
  const processStartToReadyMs = performance.now();
  const afterStart = memory();
  const server = running.server!;
  if (!running.app.spec.models.has(operationId)) throw new Error(`${operationId} is not a model endpoint of ${specDir}`);

  const key = await sandboxKey(server);
  const url = `/api/v1/${operationId}`;
  const headers = { 'x-api-key': key, 'content-type': 'application/json' };
  const requests: Record<Kind, { options: ServerInjectOptions; expected: number }> = {
    valid: { options: { method: 'POST', url, headers, payload: { prompt: 'bench' } }, expected: 200 },
    invalid: { options: { method: 'POST', url, headers, payload: { prompt: '', width: 1, colour: 'red' } }, expected: 422 },
  };

  // The first request to an endpoint compiles its validators (openapi-backend's lazy mode).
  const c0 = performance.now();
  const first = await server.inject(requests.valid.options);
  const firstRequest = { us: round((performance.now() - c0) * 1000, 0), status: first.statusCode };
  for (let i = 0; i < WARMUP; i++) {
    await server.inject(requests.valid.options);
    await server.inject(requests.invalid.options);
  }

  send({
    ready: true,
    models: running.app.spec.models.size,
    operations: running.app.spec.operations.length,
    startMs: round(startMs, 0),
    processStartToImportedMs: round(processStartToImportedMs, 0),
    processStartToReadyMs: round(processStartToReadyMs, 0),
    memory: { beforeStart, afterStart },
    warmup: WARMUP,
    firstRequest,
  });

  const commands = createInterface({ input: process.stdin });
  for await (const line of commands) {
    if (line.trim() === '') continue;
    const command = JSON.parse(line) as Command;
    if (command.cmd === 'stop') {
      send({ stopped: true, memory: memory() });
      await stop(0);
    } else if (command.cmd === 'run') {
      const { options, expected } = requests[command.kind];
      const us: number[] = [];
      const statuses: Record<string, number> = {};
      let unexpected = 0;
      for (let i = 0; i < (command.warm ?? 0); i++) await server.inject(options);
      for (let i = 0; i < command.n; i++) {
        const t = performance.now();
        const res = await server.inject(options);
        us.push(round((performance.now() - t) * 1000, 1));
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        if (res.statusCode !== expected) unexpected++;
      }
      send({ kind: command.kind, us, unexpected, statuses });
    }
  }
} catch (err) {
  process.stderr.write(`routing: ${(err as Error).stack ?? String(err)}\n`);
  await stop(1);
}
