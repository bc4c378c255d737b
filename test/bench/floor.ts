// The floor under each benchmarked path (issue 15): how fast a route can be on this machine that
// does no more than the path's least durable work against the same MariaDB (and RabbitMQ), with
// nothing of the gateway (no authentication, validation, rate limits, wallet, ledger, batching or
// logging). Its ratio to the bare hapi route, measured in the same run, bounds what any gateway
// built on hapi + MariaDB (+ RabbitMQ) in the same topology can reach here; the gateway's own
// process (test/bench/gateway.ts, as run.ts starts it) runs in the same rounds for reads and
// sandbox submits.
//   node test/bench/floor.ts [read|sandbox|production|all]      (default all)
// Each process is loaded in turn by autocannon from this process (50 connections, as run.ts),
// the order flipping each round; CPU per 2xx from /proc (the serving process, its floor worker,
// mariadbd, beam.smp; the services' idle rate just before subtracted).
//   bare        test/bench/bare-routes.ts: no database, no queue
//   floor       bare hapi + one statement through a mysql2 pool (`execute`: prepared), per request:
//                 read        SELECT the result read's columns FROM predictions WHERE id = ? (20,000 rows)
//                 sandbox     INSERT one predictions row (the sandbox insert's columns), autocommit
//                 production  INSERT one queued predictions row, then publish its id and input
//                             (persistent) on a confirm channel and wait for the confirm; a floor
//                             worker process (prefetch 16, as the benchmark's worker) consumes it and
//                             does the output work the gateway's local adapter does and nothing else:
//                             renders the image (the procedural-image adapter, the same input),
//                             stores it (lib/storage.ts, local files), UPDATEs the row to completed
//                             with its outputs, and acks. The window is the submits plus the drain,
//                             as run.ts's production phase; besides the submits' 2xx/s it reports
//                             the run's predictions completed per second, first submit to last
//                             completion (run.ts judges production's share by that rate).
//   floor-b     the same, batched: the statements of the requests that arrive while one is in
//               flight go together in the next (lib/batch.ts's batcher, as the gateway's reads and
//               inserts): one `SELECT ... WHERE id IN (...)`, one multi-row INSERT (text protocol);
//               production publishes and confirms per request, and its own worker completes the
//               renders that finish while an UPDATE is in flight in the next one (CASE id ...)
//   gateway     the benchmark's API process (reads and sandbox submits; not production, whose
//               keys, credit and worker run.ts sets up: compare with its production phase)
// Knobs: FLOOR_DURATION (8 s per run after 2 s of warm-up), FLOOR_ROUNDS (2), FLOOR_CONNECTIONS
// (50), FLOOR_ROWS (20,000), FLOOR_KEYS (200 sandbox keys for the gateway's reads and submits),
// BENCH_GENERATE_LIMITS (on; off: the gateway process keeps no per-minute generation counters).
// MariaDB and RabbitMQ as the tests find them (TEST_MYSQL_URL, TEST_AMQP_URL); a fresh database.
import Hapi from '@hapi/hapi';
import amqp from 'amqplib';
import mysql from 'mysql2/promise';
import path from 'node:path';
import { naturalBatcher } from '../../lib/batch.ts';
import { createLocalStorage } from '../../lib/storage.ts';
import { RESULT_COLUMNS, SANDBOX_COLUMNS, newPredictionId } from '../../db/predictions/record.ts';
import { adapterRegistry } from '../../workers/adapters/index.ts';

type Kind = 'read' | 'sandbox' | 'production';
const MODEL = 'canvas-v1-fast-text-to-image';
const READ_PATH = '/api/v1/predictions/{request_id}/result';
const BODY = JSON.stringify({ prompt: 'bench', width: 64, height: 64, num_inference_steps: 1 });

// lib.ts's helpers are imported by the parent only: its autocannon stays out of the measured servers
function intEnv(name: string, fallback: number): number {
  const n = Number(process.env[name] ?? fallback);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

// the gateway's sandbox insert's columns and its result read's, by primary key (one row, or a batch's)
const INSERT_SQL = `INSERT INTO predictions (${SANDBOX_COLUMNS.join(', ')}) VALUES (${SANDBOX_COLUMNS.map(() => '?').join(', ')})`;
const INSERT_ROWS_SQL = `INSERT INTO predictions (${SANDBOX_COLUMNS.join(', ')}) VALUES ?`;
const READ_SQL = `SELECT ${RESULT_COLUMNS} FROM predictions WHERE id = ? LIMIT 1`;
const READ_IDS_SQL = `SELECT ${RESULT_COLUMNS} FROM predictions WHERE id IN (?)`;
const COMPLETE_SQL = "UPDATE predictions SET status = 'completed', outputs = ?, nsfw = ?, inference_ms = ?, completed_at = ?, updated_at = ? WHERE id = ? AND status = 'queued'";

/** The UPDATE completing `n` rows at once, each with its own outputs (the batched floor's worker). */
function completeManySql(n: number): string {
  const when = Array.from({ length: n }, () => 'WHEN ? THEN ?').join(' ');
  return `UPDATE predictions SET status = 'completed', outputs = CASE id ${when} END, nsfw = CASE id ${when} END, inference_ms = CASE id ${when} END, completed_at = ?, updated_at = ? WHERE id IN (${Array.from({ length: n }, () => '?').join(', ')}) AND status = 'queued'`;
}

/** One process's figures in one round (floor.ts's JSON line, read by run.ts). */
export interface FloorFigures {
  okPerS: number;
  /** 2xx/s over the bare route's requests/s in the same round */
  ratio: number;
  p50Ms: number;
  p99Ms: number;
  /** per 2xx: the serving process (+ the floor's worker), mariadbd, beam.smp */
  cpuMs: { process: number; mariadbd: number; rabbitmq: number };
  /** non-2xx answers and errors */
  other: number;
  /**
   * production only: the predictions of the run completed per second from its first submit to its
   * last completion (the drain included), and that rate over the bare route's requests/s in the
   * same round; the submits' 2xx/s above leave out the backlog the worker drains after the load
   */
  completionsPerS?: number;
  completionsRatio?: number;
}
/** bare, floor, floor-b and (reads, sandbox) gateway */
export type FloorRound = Record<string, FloorFigures>;
export type FloorResults = Partial<Record<Kind, FloorRound[]>>;

function watchParent(): void {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) process.exit(0);
  }, 1_000).unref();
}

function pool(): mysql.Pool {
  // the gateway's default pool size (DB_POOL_MAX 20)
  return mysql.createPool({ uri: process.env.DATABASE_URL!, connectionLimit: 20, supportBigNumbers: true });
}

/** The floor's server for one path (a child process). */
async function serveFloor(kind: Kind, batched: boolean): Promise<void> {
  const db = pool();
  // batched: the statements of the requests that arrive while one is in flight go together in the
  // next (the gateway's own batcher, lib/batch.ts: one in flight, gathered at the event loop's turn)
  const readOne = batched
    ? naturalBatcher<string, Record<string, unknown> | undefined>(async (ids) => {
      const [rows] = await db.query(READ_IDS_SQL, [ids]);
      const byId = new Map((rows as Array<Record<string, unknown>>).map((r) => [r.id as string, r]));
      return ids.map((id) => ({ ok: true as const, value: byId.get(id) }));
    }, { max: 100, gather: 'turn' })
    : async (id: string) => ((await db.execute(READ_SQL, [id]))[0] as Array<Record<string, unknown>>)[0];
  const insertOne = batched
    ? naturalBatcher<mysql.ExecuteValues[], void>(async (list) => {
      await db.query(INSERT_ROWS_SQL, [list]);
      return list.map(() => ({ ok: true as const, value: undefined }));
    }, { max: 100, gather: 'turn' })
    : async (values: mysql.ExecuteValues[]) => { await db.execute(INSERT_SQL, values); };
  const userId = Number(process.env.FLOOR_USER_ID);
  // the batched floor has a worker (and a queue) of its own, which completes in batches too
  const queue = `${process.env.FLOOR_QUEUE!}${batched ? '-b' : ''}`;
  let channel: amqp.ConfirmChannel | null = null;
  if (kind === 'production') {
    const conn = await amqp.connect(process.env.AMQP_URL!);
    channel = await conn.createConfirmChannel();
    await channel.assertQueue(queue, { durable: true });
  }
  const server = Hapi.server({ port: 0, host: '127.0.0.1', load: { sampleInterval: 0 } });
  server.route({
    method: 'GET',
    path: READ_PATH,
    options: {
      auth: false,
      handler: async (request, h) => {
        const row = await readOne(String(request.params.request_id));
        return row ? row : h.response({ error: 'not_found' }).code(404);
      },
    },
  });
  server.route({
    method: 'POST',
    path: `/api/v1/${MODEL}`,
    options: {
      auth: false,
      payload: { parse: true, allow: 'application/json' },
      handler: async (request) => {
        const now = Date.now();
        const id = newPredictionId(now);
        const sandbox = kind !== 'production';
        const outputs = sandbox ? '["sandbox/sample.png"]' : '[]';
        const input = JSON.stringify(request.payload);
        await insertOne([id, userId, null, null, MODEL, sandbox ? 'completed' : 'queued', sandbox ? 1 : 0, input, outputs, '[]', sandbox ? 0 : 5, null, null, 0, now, sandbox ? now : null, sandbox ? now : null, now, 'api', null]);
        if (channel) {
          // the input rides in the message: the floor's worker reads nothing back
          await new Promise<void>((resolve, reject) => {
            channel!.sendToQueue(queue, Buffer.from(`${id}\n${input}`), { persistent: true }, (err) => (err ? reject(err) : resolve()));
          });
        }
        return { request_id: id, status: sandbox ? 'completed' : 'queued' };
      },
    },
  });
  await server.start();
  process.stdout.write(`${JSON.stringify({ port: server.info.port })}\n`);
  watchParent();
}

/**
 * The production floor's worker (a child process): the gateway's local adapter's output work and
 * nothing else. For each message: the procedural-image adapter renders the input (as the gateway's
 * worker runs it), the image is stored as the gateway stores outputs (lib/storage.ts, local files
 * under the data directory), the row is completed with its outputs, and the message acked. No
 * claim, no charge, no ledger, no webhook. `batched`: the completions that are ready while one
 * UPDATE is in flight go together in the next, as the gateway's completion groups.
 */
async function floorWorker(batched: boolean): Promise<void> {
  const db = pool();
  const conn = await amqp.connect(process.env.AMQP_URL!);
  const channel = await conn.createChannel();
  const queue = `${process.env.FLOOR_QUEUE!}${batched ? '-b' : ''}`;
  await channel.assertQueue(queue, { durable: true });
  await channel.prefetch(16);
  const storage = createLocalStorage(path.join(process.env.DATA_DIR!, 'floor-files'), 'http://floor.invalid');
  const adapter = adapterRegistry['procedural-image']!.create({ upstreams: new Map(), allowPrivateOutputs: false });
  type Done = { id: string; outputs: string; nsfw: string; inferenceMs: number };
  const completeOne = async (d: Done) => {
    const now = Date.now();
    await db.execute(COMPLETE_SQL, [d.outputs, d.nsfw, d.inferenceMs, now, now, d.id]);
  };
  const complete = batched
    ? naturalBatcher<Done, void>(async (list) => {
      const now = Date.now();
      const values: Array<string | number> = [];
      for (const column of ['outputs', 'nsfw', 'inferenceMs'] as const) for (const d of list) values.push(d.id, d[column]);
      values.push(now, now, ...list.map((d) => d.id));
      await db.query(completeManySql(list.length), values);
      return list.map(() => ({ ok: true as const, value: undefined }));
    }, { max: 64 })
    : completeOne;
  await channel.consume(queue, (msg) => {
    if (!msg) return;
    const text = msg.content.toString();
    const cut = text.indexOf('\n');
    const id = text.slice(0, cut);
    const input = JSON.parse(text.slice(cut + 1)) as Record<string, unknown>;
    (async () => {
      const result = await adapter.run(input, { signal: new AbortController().signal, predictionId: id, model: { operationId: MODEL, category: 'text-to-image' }, tempDir: storage.tempDir });
      const keys: string[] = [];
      for (const [i, file] of result.files.entries()) keys.push(await storage.save(id, i, file));
      await complete({ id, outputs: JSON.stringify(keys), nsfw: JSON.stringify(result.files.map((f) => f.nsfw === true)), inferenceMs: Math.round(result.inferenceMs) });
    })().then(() => channel.ack(msg), () => channel.nack(msg));
  });
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  watchParent();
}

async function main(which: string): Promise<void> {
  const { startGateway, newAccount } = await import('../helpers/gateway.ts');
  const { fire, processStats, processCpuMs, pidsByName, spawnNode, round } = await import('./lib.ts');
  const { uniqueName } = await import('../helpers/services.ts');
  /** One process's line of a round's table: its figures, ratios to the bare route of the same round included. */
  function roundLine(name: string, m: FloorFigures): string {
    const c = m.cpuMs;
    const done = m.completionsPerS === undefined ? '' : `; ${m.completionsPerS} completed/s, first submit to last completion, ratio ${round(m.completionsRatio!, 3)}`;
    return `${name.padEnd(8)} ${String(m.okPerS).padStart(8)} ${String(m.ratio).padStart(6)} ${`${m.p50Ms}/${m.p99Ms}`.padStart(11)}  ${c.process} + ${c.mariadbd} + ${c.rabbitmq} = ${round(c.process + c.mariadbd + c.rabbitmq, 3)}${m.other ? ` (non-2xx/errors ${m.other})` : ''}${done}`;
  }
  const DURATION_S = intEnv('FLOOR_DURATION', 8);
  const ROUNDS = intEnv('FLOOR_ROUNDS', 2);
  const CONNECTIONS = intEnv('FLOOR_CONNECTIONS', 50);
  const ROWS = intEnv('FLOOR_ROWS', 20_000);
  const KEYS = intEnv('FLOOR_KEYS', 200);
  const kinds: Kind[] = which === 'all' ? ['read', 'sandbox', 'production'] : [which as Kind];
  // the generation limits far above the load (as run.ts): checked on every submit, never a 429;
  // BENCH_GENERATE_LIMITS=off (as run.ts): no per-minute counters at all, to price them
  const rate = process.env.BENCH_GENERATE_LIMITS === 'off' ? '0' : '1000000';
  const limits = { GENERATE_RATE_PER_KEY: rate, GENERATE_RATE_PER_ACCOUNT: rate, GENERATE_CONCURRENT_PER_KEY: '10000', GENERATE_CONCURRENT_PER_ACCOUNT: '10000' };
  const gw = await startGateway({ env: limits });
  const owner = await newAccount(gw);
  const keys: string[] = [owner.testKey];
  // 10 users' sandbox keys, as run.ts's sandbox and reads phases
  const users = [owner];
  for (let i = 1; i < 10; i++) users.push(await newAccount(gw));
  for (let i = 1; i < KEYS; i++) {
    const u = users[i % users.length]!;
    const res = await gw.server.inject({ method: 'POST', url: '/api/v1/keys', headers: { authorization: `Bearer ${u.session}` }, payload: { name: `k${i}`, is_test: true } });
    keys.push((res.result as { key: string }).key);
  }
  const rows: Array<{ key: string; id: string }> = [];
  if (kinds.includes('read')) {
    // through the gateway's own sandbox insert, each key's rows its own
    for (let i = 0; i < ROWS; i += 50) {
      await Promise.all(Array.from({ length: Math.min(50, ROWS - i) }, async (_, j) => {
        const key = keys[(i + j) % keys.length]!;
        const res = await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': key, 'content-type': 'application/json' }, payload: BODY });
        if (res.statusCode !== 200) throw new Error(`seeding: ${res.statusCode} ${res.payload}`);
        rows.push({ key, id: (JSON.parse(res.payload) as { request_id: string }).request_id });
      }));
    }
  }
  const mariadbd = pidsByName(['mariadbd', 'mysqld']);
  const rabbit = pidsByName(['beam.smp']);
  const services = () => ({ mariadbd: mariadbd.reduce((s, p) => s + processCpuMs(p), 0), rabbitmq: rabbit.reduce((s, p) => s + processCpuMs(p), 0) });
  const pick = <T>(a: readonly T[]) => a[Math.floor(Math.random() * a.length)]!;
  const queue = uniqueName('floor').toLowerCase();
  const env = { ...gw.env, ...limits, ROLE: 'api', LOG_LEVEL: 'silent', FLOOR_USER_ID: String(owner.userId), FLOOR_QUEUE: queue };
  const script = new URL(import.meta.url).pathname;
  const db = mysql.createPool({ uri: gw.env.DATABASE_URL!, connectionLimit: 2 });
  console.log(`floor: ${kinds.join(', ')}; ${ROUNDS} rounds of ${DURATION_S} s per process, ${CONNECTIONS} connections${kinds.includes('read') ? `, ${ROWS} predictions of ${KEYS} keys` : ''}; mariadbd pids ${mariadbd.join(',') || 'not found'}, beam.smp ${rabbit.join(',') || 'not found'}`);

  const results: FloorResults = {};
  for (const kind of kinds) {
    const load = kind === 'read'
      ? { requests: [{ method: 'GET' as const, path: '/', setupRequest: (req: object) => { const r = pick(rows); return { ...req, path: `/api/v1/predictions/${r.id}/result`, headers: { 'x-api-key': r.key } }; } }] }
      : { requests: [{ method: 'POST' as const, path: `/api/v1/${MODEL}`, body: BODY, setupRequest: (req: object) => ({ ...req, headers: { 'content-type': 'application/json', 'x-api-key': pick(keys) } }) }] };
    const procs: Array<{ name: string; pid: number; port: number; extraPids: number[]; stop(): Promise<void> }> = [];
    const bare = spawnNode('test/bench/bare-hapi.ts', []);
    procs.push({ name: 'bare', pid: bare.child.pid!, port: (await bare.nextJson<{ port: number }>(60_000)).port, extraPids: [], stop: () => bare.kill() });
    const floor = spawnNode(script, ['serve', kind], { env });
    let worker: Awaited<ReturnType<typeof spawnNode>> | null = null;
    let workerB: Awaited<ReturnType<typeof spawnNode>> | null = null;
    if (kind === 'production') {
      worker = spawnNode(script, ['worker'], { env });
      await worker.nextJson(60_000);
      workerB = spawnNode(script, ['worker', 'batched'], { env });
      await workerB.nextJson(60_000);
    }
    procs.push({ name: 'floor', pid: floor.child.pid!, port: (await floor.nextJson<{ port: number }>(60_000)).port, extraPids: worker ? [worker.child.pid!] : [], stop: async () => { await floor.kill(); await worker?.kill(); } });
    const batched = spawnNode(script, ['serve', kind, 'batched'], { env });
    procs.push({ name: 'floor-b', pid: batched.child.pid!, port: (await batched.nextJson<{ port: number }>(60_000)).port, extraPids: workerB ? [workerB.child.pid!] : [], stop: async () => { await batched.kill(); await workerB?.kill(); } });
    if (kind !== 'production') {
      const g = spawnNode('test/bench/gateway.ts', [], { env: { ...env, PORT: '0', HOST: '127.0.0.1' } });
      const ready = await g.nextJson<{ port: number; pids: number[] }>(60_000);
      procs.push({ name: 'gateway', pid: ready.pids[0]!, port: ready.port, extraPids: [], stop: () => g.kill() });
    }
    const queued = async () => {
      const [r] = await db.query("SELECT COUNT(*) AS n FROM predictions WHERE status = 'queued'");
      return Number((r as Array<{ n: number }>)[0]!.n);
    };
    const drain = async () => {
      while (kind === 'production' && await queued() > 0) await new Promise((r) => setTimeout(r, 100));
    };
    // the rows created since `since`, completed per second from the first submit to the last completion (as run.ts's drain)
    const completionsPerS = async (since: number) => {
      const [r] = await db.query("SELECT COUNT(*) AS n, MIN(created_at) AS first, MAX(completed_at) AS last FROM predictions WHERE created_at >= ? AND status = 'completed'", [since]);
      const { n, first, last } = (r as Array<{ n: number; first: number | string | null; last: number | string | null }>)[0]!;
      const windowS = (Number(last) - Number(first)) / 1000;
      return windowS > 0 ? round(Number(n) / windowS, 1) : Number.NaN;
    };
    for (const p of procs) {
      await fire({ ...load, url: `http://127.0.0.1:${p.port}`, connections: CONNECTIONS, duration: 2 });
      await drain();
    }
    const title = kind === 'read' ? 'GET /api/v1/predictions/{id}/result' : `POST /api/v1/${MODEL} (${kind})`;
    console.log(`\n${title}`);
    console.log(`${'process'.padEnd(8)} ${'2xx/s'.padStart(8)} ${'ratio'.padStart(6)} ${'p50/p99 ms'.padStart(11)}  CPU ms per 2xx: process (+ worker) + mariadbd + beam.smp = total`);
    for (let r = 0; r < ROUNDS; r++) {
      let bareRps = Number.NaN;
      const measured: FloorRound = {};
      for (const p of r % 2 === 0 ? procs : [...procs].reverse()) {
        await fire({ ...load, url: `http://127.0.0.1:${p.port}`, connections: CONNECTIONS, duration: 2 });
        await drain();
        // the services' idle rate just before, subtracted
        const i0 = services();
        const t0 = Date.now();
        await new Promise((res) => setTimeout(res, 1_000));
        const idle = services();
        const idleMs = Date.now() - t0;
        const idleRate = { mariadbd: (idle.mariadbd - i0.mariadbd) / idleMs, rabbitmq: (idle.rabbitmq - i0.rabbitmq) / idleMs };
        const s0 = services();
        const c0 = processStats(p.pid).cpuMs + p.extraPids.reduce((s, x) => s + processCpuMs(x), 0);
        const w0 = Date.now();
        const run = await fire({ ...load, url: `http://127.0.0.1:${p.port}`, connections: CONNECTIONS, duration: DURATION_S });
        await drain();
        const wall = Date.now() - w0;
        const c1 = processStats(p.pid).cpuMs + p.extraPids.reduce((s, x) => s + processCpuMs(x), 0);
        const s1 = services();
        const n = Math.max(1, run.ok);
        const own = (c1 - c0) / n;
        const md = (s1.mariadbd - s0.mariadbd - idleRate.mariadbd * wall) / n;
        const mq = (s1.rabbitmq - s0.rabbitmq - idleRate.rabbitmq * wall) / n;
        if (p.name === 'bare') bareRps = run.rps;
        const other = run.requests - run.ok + run.errors;
        const completions = kind === 'production' && p.name !== 'bare' ? await completionsPerS(w0) : undefined;
        measured[p.name] = { okPerS: round(run.okPerS, 0), ratio: Number.NaN, p50Ms: run.p50Ms, p99Ms: run.p99Ms, cpuMs: { process: round(own, 3), mariadbd: round(md, 3), rabbitmq: round(mq, 3) }, other, ...(completions === undefined ? {} : { completionsPerS: completions }) };
      }
      // the ratios once the bare route has run (last in odd rounds), then the round's table
      for (const m of Object.values(measured)) {
        m.ratio = round(m.okPerS / bareRps, 3);
        if (m.completionsPerS !== undefined) m.completionsRatio = round(m.completionsPerS / bareRps, 4);
      }
      console.log(`round ${r + 1}/${ROUNDS}`);
      for (const [name, m] of Object.entries(measured)) console.log(roundLine(name, m));
      (results[kind] ??= []).push(measured);
    }
    for (const p of procs) await p.stop();
  }
  await db.end();
  if (kinds.includes('production')) {
    const conn = await amqp.connect(gw.env.AMQP_URL!);
    const ch = await conn.createChannel();
    await ch.deleteQueue(queue);
    await ch.deleteQueue(`${queue}-b`);
    await conn.close();
  }
  await gw.stop();
  // for run.ts's `floor` phase: everything above as one JSON line
  console.log(JSON.stringify({ floorResults: results }));
}

if (process.argv[2] === 'serve') {
  await serveFloor(process.argv[3] as Kind, process.argv[4] === 'batched');
} else if (process.argv[2] === 'worker') {
  await floorWorker(process.argv[3] === 'batched');
} else {
  const which = process.argv[2] ?? 'all';
  if (!['read', 'sandbox', 'production', 'all'].includes(which)) throw new Error('usage: node test/bench/floor.ts [read|sandbox|production|all]');
  await main(which);
  process.exit(0);
}
