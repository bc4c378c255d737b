// Where the API process's CPU per request goes, by difference: the same request served by our
// stack built up one layer at a time, each stack in a process of its own, loaded by autocannon
// from this process (50 connections, like run.ts), its CPU read from /proc (utime + stime) and
// divided by the 2xx answers. The cost of a layer is its row minus the row above.
//   node test/bench/layers.ts [read|sandbox|both]       (default both)
// Layers (each adds to the previous one):
//   bare          a bare hapi route on the same path (what test/bench/bare-hapi.ts answers)
//   options       + server.ts's hapi options (payload cap, timeouts, cors, router)
//   request-log   + plugins/responses.ts (request line, request id, HTTP metrics)
//   ops           + plugins/ops.ts (/livez, /readyz, /metrics routes)
//   errors        + plugins/responses.ts (payload timer, error rendering)
//   embed+studio  + plugins/credentials.ts's embed policy and whitelabel plugins
//   spec-routes   the bare route replaced by the spec bridge (plugins/spec-routes.ts: validation,
//                 owner, policies) with stub credential plugins (a constant caller) and a handler
//                 answering a constant
//   api-key       + the real credential plugins (the key from the credential cache)
//   handler       + the real handler (the result read; the sandbox submit)
//   server.ts     createServer itself (adds the files, uploads, docs and dashboard routes)
//   gateway.ts    the benchmark's own API process (test/bench/gateway.ts: main.ts's start(), ROLE=api,
//                 with its query and response counters), so the two harnesses compare in one run
//                 (not with LAYERS_MODE=inject)
// Knobs: LAYERS_DURATION (5 s per run, after 1 s of warm-up; every process first gets LAYERS_WARMUP, 3 s), LAYERS_ROUNDS (2: every layer once per round, the order
//   flipping each round), LAYERS_CONNECTIONS (50), LAYERS_KEYS (20 sandbox keys, one user each),
//   LAYERS_ROWS (1,000 predictions to read), LAYERS_LOG_LEVEL (silent, as run.ts; `info` writes
//   every request line to the child's stdout, which this process reads and throws away),
//   LAYERS_ONLY (comma list of layer names), LAYERS_MODE=inject (every layer in this process through
//   server.inject, LAYERS_INJECT_N requests each: no sockets, far less noise; for A/B of a change),
//   LAYERS_RATES (a comma list of offered requests/s, e.g. "3000,6000,0": each layer also run at
//   each rate, 0 meaning as fast as it answers; a table per rate),
//   LAYERS_NODE_ARGS ("<layer>=<flags>;...": Node/V8 flags for that layer's process only, e.g.
//   "server.ts=--max-semi-space-size=64"; swap them between two layers in the next run to A/B a flag),
//   LAYERS_CPU_PROF (a directory: each layer's process writes its .cpuprofile there when it stops;
//   the profile holds its warm-up too).
// Besides CPU, each run prints per 2xx the process's system calls, context switches and ms waited
// runnable for a core (/proc: how crowded the cores were), and every layer but gateway.ts its
// garbage collections per 1,000 2xx (asked for with SIGUSR2 before and after the run).
// MariaDB and RabbitMQ as the tests find them (TEST_MYSQL_URL, TEST_AMQP_URL); a fresh database.
// The figures are CPU ms per 2xx answer of the serving process only: load on the machine moves
// them much less than it moves throughput, but run before/after back to back all the same.
import crypto from 'node:crypto';
import { PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import Boom from '@hapi/boom';
import Hapi from '@hapi/hapi';
import type { Plugin, Request, ResponseToolkit, Server } from '@hapi/hapi';
import type { HandlerContext } from '../../handlers/types.ts';
import type { AutocannonOptions, ProcStats } from './lib.ts';
import { bareRoutes } from './bare-routes.ts';

const LAYERS = ['bare', 'options', 'request-log', 'ops', 'errors', 'embed+studio', 'spec-routes', 'api-key', 'handler', 'server.ts', 'gateway.ts'] as const;
type Layer = (typeof LAYERS)[number];
type PathKind = 'read' | 'sandbox';

const MODEL = 'canvas-v1-fast-text-to-image';
const READ_PATH = '/api/v1/predictions/{request_id}/result';
const SANDBOX_BODY = JSON.stringify({ prompt: 'bench' });
// the generation limits far above the load: their checks run on every submit, never a 429 (as run.ts)
const LIMITS = { GENERATE_RATE_PER_KEY: '1000000', GENERATE_RATE_PER_ACCOUNT: '1000000', GENERATE_CONCURRENT_PER_KEY: '10000', GENERATE_CONCURRENT_PER_ACCOUNT: '10000' };

function intEnv(name: string, fallback: number): number {
  const n = Number(process.env[name] ?? fallback);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

// ---------------------------------------------------------------------------------------------
// the child: one layer's server


/** One layer's server (not started), and how to close what it opened. */
async function build(layer: Layer): Promise<{ server: Server; close(): Promise<void> }> {
  const at = (l: Layer) => LAYERS.indexOf(layer) >= LAYERS.indexOf(l);
  if (layer === 'bare') {
    const server = Hapi.server({ port: 0, host: '127.0.0.1', load: { sampleInterval: 0 } });
    server.route(bareRoutes(`/api/v1/${MODEL}`, READ_PATH, 'request_id'));
    return { server, close: async () => {} };
  }
  const { loadConfig } = await import('../../config.ts');
  const { createApp } = await import('../../app.ts');
  const { createServer, credentialPlugins, serverOptions } = await import('../../server.ts');
  const config = loadConfig({ ...process.env, PORT: '0', HOST: '127.0.0.1' });
  const app = await createApp(config);
  let server: Server;
  if (layer === 'server.ts') {
    server = await createServer(app);
  } else {
    const { requestLogPlugin } = await import('../../plugins/responses.ts');
    const { opsPlugin } = await import('../../plugins/ops.ts');
    const { errorsPlugin } = await import('../../plugins/responses.ts');
    const { embedPolicyPlugin, whitelabelPlugin } = await import('../../plugins/credentials.ts');
    const { specRoutesPlugin, registerHandler } = await import('../../plugins/spec-routes.ts');
    const { CODE_SCOPES } = await import('../../spec/scopes.ts');
    server = Hapi.server(serverOptions(app));
    const plugins: Array<{ plugin: Plugin<never>; options?: unknown }> = [];
    if (at('request-log')) plugins.push({ plugin: requestLogPlugin as Plugin<never>, options: { app } });
    if (at('ops')) plugins.push({ plugin: opsPlugin as Plugin<never>, options: { app, openMetricsWithoutToken: false } });
    if (at('errors')) plugins.push({ plugin: errorsPlugin as Plugin<never>, options: { log: app.log, payloadTimeoutMs: config.payloadTimeoutMs, trustedProxies: config.trustedProxies } });
    if (at('embed+studio')) plugins.push({ plugin: embedPolicyPlugin as Plugin<never>, options: { app } }, { plugin: whitelabelPlugin as Plugin<never>, options: { app } });
    if (at('spec-routes')) {
      const real = at('api-key');
      // Stubs: the same names, schemes and strategies; the api-key one answers a constant caller
      // (a sandbox key's), the others find no credential.
      const credentials = real ? credentialPlugins : credentialPlugins.map((p) => ({
        name: p.name, securityScheme: p.securityScheme, strategy: p.strategy, dependencies: ['mediagate-errors'],
        register(srv: Server) {
          srv.auth.scheme(p.strategy, () => ({
            authenticate: (request: Request, h: ResponseToolkit) => {
              if (p.strategy !== 'api-key' || typeof request.headers['x-api-key'] !== 'string') return h.unauthenticated(Boom.unauthorized(null, 'stub'));
              const caller = { userId: 1, role: 'user' as const, via: 'api-key' as const, apiKeyId: 1, isTest: true, scopes: CODE_SCOPES, keyLimits: { rateLimitPerMinute: null, maxConcurrent: null }, studioId: null, keyOwnerDiscounts: 0 };
              return h.authenticated({ credentials: { user: { caller }, scope: [...CODE_SCOPES] } });
            },
          }));
          srv.auth.strategy(p.strategy, p.strategy);
        },
      }));
      if (!at('handler')) {
        registerHandler(app.spec.api, 'getPredictionResult', async ({ params }: HandlerContext) => ({ id: params.request_id, status: 'completed', outputs: ['https://example.com/a.png'] }));
        registerHandler(app.spec.api, MODEL, async (ctx: HandlerContext) => ({ request_id: crypto.randomUUID(), status: 'queued', prompt: typeof ctx.body.prompt === 'string' ? ctx.body.prompt.length : 0 }));
      }
      plugins.push(...credentials.map((plugin) => ({ plugin: plugin as unknown as Plugin<never>, options: { app } })), { plugin: specRoutesPlugin as Plugin<never>, options: { app, credentials } });
    }
    await server.register(plugins as Parameters<Server['register']>[0]);
    if (!at('spec-routes')) server.route(bareRoutes(`/api/v1/${MODEL}`, READ_PATH, 'request_id'));
  }
  return { server, close: () => app.close() };
}

async function serve(layer: Layer): Promise<void> {
  const { server, close } = await build(layer);
  await server.start();
  process.stdout.write(`${JSON.stringify({ port: server.info.port })}\n`);
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) process.exit(0);
  }, 1_000).unref();
  // garbage collections so far (count and pause ms, minor and major), asked for with SIGUSR2
  const gc = { minor: 0, minorMs: 0, major: 0, majorMs: 0 };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const major = (e as { detail?: { kind?: number } }).detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR;
      gc[major ? 'major' : 'minor']++;
      gc[major ? 'majorMs' : 'minorMs'] += e.duration;
    }
  }).observe({ entryTypes: ['gc'] });
  process.on('SIGUSR2', () => {
    // after the observer's pending entries are delivered
    setImmediate(() => process.stdout.write(`${JSON.stringify({ gc })}\n`));
  });
  process.on('SIGTERM', () => {
    void server.stop({ timeout: 500 }).then(close).then(() => process.exit(0), () => process.exit(1));
  });
}

/**
 * LAYERS_MODE=inject: every layer in this process through server.inject (no sockets, no load
 * generator), 20 requests in flight; CPU from process.cpuUsage. Much less noise on a shared
 * machine, without the HTTP parsing and socket writes of the real thing: for A/B of a change.
 */
async function injectLayers(kind: PathKind, layers: readonly Layer[], rounds: number, n: number, next: () => { url: string; headers: Record<string, string>; payload?: string }): Promise<Map<Layer, number[]>> {
  const servers = new Map<Layer, Awaited<ReturnType<typeof build>>>();
  for (const layer of layers) {
    const built = await build(layer);
    await built.server.initialize();
    servers.set(layer, built);
  }
  const results = new Map<Layer, number[]>();
  const once = async (server: Server, count: number) => {
    let done = 0;
    await Promise.all(Array.from({ length: 20 }, async () => {
      while (done < count) {
        done++;
        const r = next();
        const res = await server.inject({ method: kind === 'read' ? 'GET' : 'POST', url: r.url, headers: r.headers, ...(r.payload ? { payload: r.payload } : {}) });
        if (res.statusCode !== 200) throw new Error(`inject: ${res.statusCode} ${res.payload}`);
      }
    }));
  };
  for (const { server } of servers.values()) await once(server, n);
  for (let r = 0; r < rounds; r++) {
    for (const layer of r % 2 === 0 ? layers : [...layers].reverse()) {
      const { server } = servers.get(layer)!;
      const cpu0 = process.cpuUsage();
      await once(server, n);
      const cpu = process.cpuUsage(cpu0);
      results.set(layer, [...(results.get(layer) ?? []), (cpu.user + cpu.system) / 1000 / n]);
    }
  }
  for (const { server, close } of servers.values()) {
    await server.stop();
    await close();
  }
  return results;
}

// ---------------------------------------------------------------------------------------------
// the parent: seed, start one child per layer, load each in turn

async function main(which: string): Promise<void> {
  const { startGateway, newAccount } = await import('../helpers/gateway.ts');
  const { fire, processStats, spawnNode } = await import('./lib.ts');
  const DURATION_S = intEnv('LAYERS_DURATION', 5);
  const ROUNDS = intEnv('LAYERS_ROUNDS', 2);
  const WARMUP_S = intEnv('LAYERS_WARMUP', 3);
  const CONNECTIONS = intEnv('LAYERS_CONNECTIONS', 50);
  const KEYS = intEnv('LAYERS_KEYS', 20);
  const ROWS = intEnv('LAYERS_ROWS', 1_000);
  const logLevel = process.env.LAYERS_LOG_LEVEL ?? 'silent';
  // LAYERS_NODE_ARGS="server.ts=--max-semi-space-size=64;gateway.ts=...": Node/V8 flags for one layer's process
  const nodeArgsOf = new Map((process.env.LAYERS_NODE_ARGS ?? '').split(';').filter(Boolean).map((part) => {
    const at = part.indexOf('=');
    if (at < 1) throw new Error(`LAYERS_NODE_ARGS: "<layer>=<flags>" parts separated by ";" (got ${JSON.stringify(part)})`);
    return [part.slice(0, at), part.slice(at + 1).split(' ').filter(Boolean)] as const;
  }));
  const RATES = (process.env.LAYERS_RATES ?? '0').split(',').map((v) => Number(v.trim())).filter((v) => Number.isInteger(v) && v >= 0);
  if (RATES.length === 0) throw new Error('LAYERS_RATES: a comma list of requests per second (0: as fast as the layer answers)');
  const only = process.env.LAYERS_ONLY ? process.env.LAYERS_ONLY.split(',').map((s) => s.trim()) : null;
  const inject = process.env.LAYERS_MODE === 'inject';
  // the gateway.ts layer is a process of its own: no server.inject
  const layers = LAYERS.filter((l) => (!only || only.includes(l)) && !(inject && l === 'gateway.ts'));
  const kinds: PathKind[] = which === 'both' ? ['read', 'sandbox'] : [which as PathKind];

  const gw = await startGateway({ env: LIMITS });
  const keys: string[] = [];
  for (let i = 0; i < KEYS; i++) keys.push((await newAccount(gw)).testKey);
  const rows: Array<{ key: string; id: string }> = [];
  if (kinds.includes('read')) {
    for (let i = 0; i < ROWS; i++) {
      const key = keys[i % keys.length]!;
      const res = await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': key, 'content-type': 'application/json' }, payload: SANDBOX_BODY });
      if (res.statusCode !== 200) throw new Error(`seeding: ${res.statusCode} ${res.payload}`);
      rows.push({ key, id: (JSON.parse(res.payload) as { request_id: string }).request_id });
    }
  }
  const pick = <T>(a: readonly T[]) => a[Math.floor(Math.random() * a.length)]!;
  const loadFor = (kind: PathKind): Pick<AutocannonOptions, 'requests'> => kind === 'read'
    ? { requests: [{ method: 'GET', path: '/', setupRequest: (req) => { const r = pick(rows); return { ...req, path: `/api/v1/predictions/${r.id}/result`, headers: { 'x-api-key': r.key } }; } }] }
    : { requests: [{ method: 'POST', path: `/api/v1/${MODEL}`, body: SANDBOX_BODY, setupRequest: (req) => ({ ...req, headers: { 'content-type': 'application/json', 'x-api-key': pick(keys) } }) }] };

  const env = { ...gw.env, ...LIMITS, ROLE: 'api', LOG_LEVEL: logLevel };
  const script = new URL(import.meta.url).pathname;
  console.log(`layers: ${kinds.join(', ')}; ${ROUNDS} rounds of ${DURATION_S} s per layer, ${CONNECTIONS} connections, ${KEYS} sandbox keys${kinds.includes('read') ? `, ${ROWS} predictions` : ''}, LOG_LEVEL=${logLevel}`);
  const prof = process.env.LAYERS_CPU_PROF;
  if (inject) Object.assign(process.env, env);
  for (const kind of kinds) {
    const title = kind === 'read' ? 'GET /api/v1/predictions/{id}/result' : `POST /api/v1/${MODEL} (sandbox key)`;
    if (inject) {
      const n = intEnv('LAYERS_INJECT_N', 5_000);
      const results = await injectLayers(kind, layers, ROUNDS, n, () => {
        if (kind === 'read') {
          const r = pick(rows);
          return { url: `/api/v1/predictions/${r.id}/result`, headers: { 'x-api-key': r.key } as Record<string, string> };
        }
        return { url: `/api/v1/${MODEL}`, headers: { 'content-type': 'application/json', 'x-api-key': pick(keys) } as Record<string, string>, payload: SANDBOX_BODY };
      });
      console.log(`\n${title} (server.inject, ${n} requests per layer and round)`);
      printTable(layers, new Map([...results].map(([l, list]) => [l, list.map((cpu) => ({ cpu }))])));
      continue;
    }
    const children = new Map<Layer, { child: Awaited<ReturnType<typeof spawnNode>>; port: number }>();
    for (const layer of layers) {
      const own = layer === 'gateway.ts';
      const nodeArgs = [...(nodeArgsOf.get(layer) ?? []), ...(prof ? ['--cpu-prof', '--cpu-prof-interval', '200', '--cpu-prof-dir', prof, '--cpu-prof-name', `${kind}-${layer}-${process.pid}.cpuprofile`] : [])];
      const child = spawnNode(own ? 'test/bench/gateway.ts' : script, own ? [] : ['serve', layer], { env: own ? { ...env, PORT: '0', HOST: '127.0.0.1' } : env, nodeArgs });
      const { port } = await child.nextJson<{ port: number }>(60_000);
      children.set(layer, { child, port });
    }
    // fresh processes: every layer's JIT warmed and its caches filled before anything is measured
    for (const { port } of children.values()) await fire({ ...loadFor(kind), url: `http://127.0.0.1:${port}`, connections: CONNECTIONS, duration: WARMUP_S });
    // LAYERS_RATES: the same layers also at fixed offered rates (autocannon's overallRate), in turn
    // with the unlimited run inside each round: what a request costs at a lower rate on the same process
    const gcLines: string[] = [];
    const results = new Map<number, Map<Layer, Array<{ cpu: number; okPerS: number; other: number; syscalls: number; cs: number; waitMs: number }>>>(RATES.map((rate) => [rate, new Map()]));
    for (let r = 0; r < ROUNDS; r++) {
      for (const layer of r % 2 === 0 ? layers : [...layers].reverse()) {
        for (const rate of r % 2 === 0 ? RATES : [...RATES].reverse()) {
          const { child, port } = children.get(layer)!;
          const url = `http://127.0.0.1:${port}`;
          const paced = rate > 0 ? { overallRate: rate } : {};
          await fire({ ...loadFor(kind), url, connections: CONNECTIONS, duration: 1, ...paced });
          const gcNow = async () => {
            if (layer === 'gateway.ts') return null;
            child.child.kill('SIGUSR2');
            return (await child.nextJson<{ gc: { minor: number; minorMs: number; major: number; majorMs: number } }>(10_000)).gc;
          };
          const g0 = await gcNow();
          const s0 = processStats(child.child.pid!);
          const run = await fire({ ...loadFor(kind), url, connections: CONNECTIONS, duration: DURATION_S, ...paced });
          const s1 = processStats(child.child.pid!);
          const g1 = await gcNow();
          if (g0 && g1) {
            const k = run.ok / 1000;
            gcLines.push(`${layer}${rate > 0 ? ` @${rate}/s` : ''} round ${r + 1}: per 1,000 2xx ${((g1.minor - g0.minor) / k).toFixed(2)} minor GCs (${((g1.minorMs - g0.minorMs) / k).toFixed(1)} ms), ${((g1.major - g0.major) / k).toFixed(3)} major (${((g1.majorMs - g0.majorMs) / k).toFixed(1)} ms)`);
          }
          const per = (k: keyof ProcStats) => (s1[k] - s0[k]) / Math.max(1, run.ok);
          const byLayer = results.get(rate)!;
          byLayer.set(layer, [...(byLayer.get(layer) ?? []), { cpu: per('cpuMs'), okPerS: run.okPerS, other: run.requests - run.ok + run.errors, syscalls: per('syscalls'), cs: per('volCs') + per('involCs'), waitMs: per('runqWaitMs') }]);
        }
      }
    }
    await Promise.all([...children.values()].map((c) => c.child.kill()));
    if (gcLines.length) console.log(`\ngarbage collection pauses (main thread):\n  ${gcLines.join('\n  ')}`);
    for (const rate of RATES) {
      console.log(`\n${title}${RATES.length > 1 || rate > 0 ? (rate > 0 ? `, offered ${rate}/s` : ', as fast as it answers') : ''}`);
      printTable(layers, results.get(rate)!);
    }
  }
  await gw.stop();
}

function printTable(layers: readonly Layer[], results: ReadonlyMap<Layer, ReadonlyArray<{ cpu: number; okPerS?: number; other?: number; syscalls?: number; cs?: number; waitMs?: number }>>): void {
  const round = (v: number) => Math.round(v * 10_000) / 10_000;
  const withProc = [...results.values()][0]?.[0]?.syscalls !== undefined;
  // per 2xx, each round: system calls (socket reads and writes), context switches, ms waited runnable for a core
  const procHead = withProc ? ' | per 2xx, each round: syscalls / ctx switches / runnable wait ms' : '';
  console.log(`${'layer'.padEnd(14)} ${'CPU ms/req (each round)'.padEnd(26)} ${'min'.padStart(6)} ${'+ vs above'.padStart(10)} ${'2xx/s'.padStart(10)} non-2xx/errors${procHead}`);
  let prev: number | null = null;
  for (const layer of layers) {
    const list = results.get(layer)!;
    const min = Math.min(...list.map((x) => x.cpu));
    const delta = prev === null ? '' : `${min - prev >= 0 ? '+' : ''}${round(min - prev)}`;
    const rate = list[0]?.okPerS === undefined ? '' : list.map((x) => Math.round(x.okPerS!)).join('/');
    const other = list[0]?.other === undefined ? '' : list.map((x) => x.other).join('/');
    const proc = withProc ? ` | ${list.map((x) => `${x.syscalls!.toFixed(2)} / ${x.cs!.toFixed(3)} / ${x.waitMs!.toFixed(4)}`).join(', ')}` : '';
    console.log(`${layer.padEnd(14)} ${list.map((x) => round(x.cpu)).join(' / ').padEnd(26)} ${String(round(min)).padStart(6)} ${delta.padStart(10)} ${rate.padStart(10)} ${other}${proc}`);
    prev = min;
  }
}

if (process.argv[2] === 'serve') {
  const layer = process.argv[3] as Layer;
  if (!LAYERS.includes(layer) || layer === 'gateway.ts') throw new Error(`unknown layer ${layer}; one of ${LAYERS.join(', ')}`);
  await serve(layer);
} else {
  const which = process.argv[2] ?? 'both';
  if (!['read', 'sandbox', 'both'].includes(which)) throw new Error('usage: node test/bench/layers.ts [read|sandbox|both]');
  await main(which);
  process.exit(0);
}
