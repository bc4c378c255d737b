// MariaDB's CPU per statement kind of production predictions, submit and completion in one process:
// `node test/bench/statement-cost.ts [n] [concurrency]`. Submits n production predictions (64x64,
// 1 step) from `concurrency` (20) callers while a run-model consumer (prefetch WORKER_CONCURRENCY,
// 16) drains them, and charges each statement the CPU that mariadbd's thread of its connection
// used from the statement's start to that connection's next one (/proc/<pid>/task/<tid>/schedstat:
// other clients of a shared server do not count; InnoDB's background threads, purge and page
// flushing, are not included). Prints per statement kind (SQL with its value lists folded) the
// count per prediction and the µs per prediction, dearest first (TOP kinds, 20; MISSED=1 also
// lists statements on a connection whose thread was not known yet, which are not counted).
// DISPATCH_MARK_DELAY_MS passes through (0: confirms marked pending at once, as before 2026-11-25).
// KIND=sandbox: sandbox submits instead (KEYS sandbox keys, 200, of 10 users, as the benchmark's
// sandbox phase, with its generation limits: counted on every submit, never reached), no worker.
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { createRunModel } from '../../workers/run-model.ts';

const N = Number(process.argv[2] ?? 2000);
const C = Number(process.argv[3] ?? 20);
const mariadbPid = execFileSync('pgrep', ['-x', 'mariadbd']).toString().trim().split('\n')[0]!;
const sandbox = process.env.KIND === 'sandbox';
const gw = await startGateway({ env: sandbox
  ? { GENERATE_RATE_PER_KEY: '1000000', GENERATE_RATE_PER_ACCOUNT: '1000000', GENERATE_CONCURRENT_PER_KEY: '10000', GENERATE_CONCURRENT_PER_ACCOUNT: '10000' }
  : { GENERATE_RATE_PER_KEY: '0', GENERATE_RATE_PER_ACCOUNT: '0', ...(process.env.DISPATCH_MARK_DELAY_MS === undefined ? {} : { DISPATCH_MARK_DELAY_MS: process.env.DISPATCH_MARK_DELAY_MS }) } });
const db = gw.app.db;
const acct = await newAccount(gw, 1e9);
const keys = [acct.liveKey];
if (sandbox) {
  keys.length = 0;
  for (let u = 0; u < 10; u++) {
    const owner = u === 0 ? acct : await newAccount(gw, 1e9);
    keys.push(owner.testKey);
    for (let k = 1; k < Number(process.env.KEYS ?? 200) / 10; k++) {
      const r = await gw.server.inject({ method: 'POST', url: '/api/v1/keys', headers: { authorization: `Bearer ${owner.session}` }, payload: { name: `k${k}`, is_test: true } });
      keys.push((r.result as { key: string }).key);
    }
  }
}
const model = 'canvas-v1-fast-text-to-image';
const body = { prompt: 'a lighthouse at dusk', width: 64, height: 64, num_inference_steps: 1 };
const submit = async () => {
  const r = await gw.server.inject({ method: 'POST', url: `/api/v1/${model}`, headers: { 'x-api-key': keys[Math.floor(Math.random() * keys.length)]! }, payload: body });
  if (r.statusCode >= 300) throw new Error(r.payload);
};
if (!sandbox) await gw.app.queue.consume('predictions', createRunModel(gw.app).handle, { prefetch: Number(process.env.WORKER_CONCURRENCY ?? 16) });
for (let i = 0; i < (sandbox ? keys.length * 2 : 100); i++) await submit();

// knex's connection of a query -> mariadbd's thread serving it
type Conn = { threadId: number; __knexUid: string };
const pool = (db.client as unknown as { pool: { used: Array<{ resource: Conn }>; free: Array<{ resource: Conn }> } }).pool;
const tids = new Map<number, string>();
const tidOf = async (connectionId: number): Promise<string | undefined> => {
  if (!tids.has(connectionId)) {
    const [rows] = await db.raw('select id, tid from information_schema.processlist') as [Array<{ id: number; tid: number }>];
    for (const r of rows) tids.set(Number(r.id), String(r.tid));
  }
  return tids.get(connectionId);
};
for (let i = 0; i < 3; i++) await tidOf(-1);
const cpuUs = (tid: string) => { try { return Number(fs.readFileSync(`/proc/${mariadbPid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1000; } catch { return NaN; } };
// a connection runs one statement at a time: the CPU its thread used from one statement's start to
// the next one's is the first statement's (BEGIN and COMMIT have no 'query-response' event)
const last = new Map<string, { kind: string; at: number }>();
const kinds = new Map<string, { n: number; us: number }>();
let measuring = false;
const missed = new Map<string, number>();
const fold = (sql: string) => sql.replace(/\((\s*\?\s*,?)+\)/g, '(…)').replace(/(\(…\),?\s*)+/g, '(…) ').replace(/(when \? then \? ?)+/g, 'when … ').replace(/\s+/g, ' ').slice(0, 150);
const charge = (tid: string, now: number) => {
  const l = last.get(tid);
  if (l === undefined) return;
  const k = kinds.get(l.kind) ?? { n: 0, us: 0 };
  k.n++; k.us += now - l.at;
  kinds.set(l.kind, k);
};
db.on('query', (q: { sql: string; __knexUid: string }) => {
  if (!measuring) return;
  const conn = [...pool.used, ...pool.free].map((x) => x.resource).find((c) => c.__knexUid === q.__knexUid);
  const tid = conn === undefined ? undefined : tids.get(conn.threadId);
  if (tid === undefined) { missed.set(fold(q.sql), (missed.get(fold(q.sql)) ?? 0) + 1); if (conn) void tidOf(conn.threadId); return; }
  const now = cpuUs(tid);
  charge(tid, now);
  last.set(tid, { kind: fold(q.sql), at: now });
});
// every connection of the pool known before measuring
await Promise.all(Array.from({ length: 10 }, () => db.raw('select sleep(0.05)')));
for (const c of [...pool.used, ...pool.free]) await tidOf(c.resource.threadId);
await new Promise((r) => setTimeout(r, 500));
const [{ before }] = await db('predictions').where('status', 'completed').count({ before: '*' }) as [{ before: number | string }];
measuring = true;
let sent = 0;
await Promise.all(Array.from({ length: C }, async () => { while (sent < N) { sent++; await submit(); } }));
for (;!sandbox;) {
  const [{ n }] = await db.raw("select count(*) as n from predictions where status = 'completed' -- poll") .then(([r]: [Array<{ n: number }>]) => r) as [{ n: number | string }];
  if (Number(n) - Number(before) >= N) break;
  await new Promise((r) => setTimeout(r, 100));
}
// the confirms' markers still waiting (DISPATCH_MARK_DELAY_MS) are made now, and counted
await gw.app.dispatcher.stop();
await new Promise((r) => setTimeout(r, 500));
measuring = false;
for (const tid of last.keys()) charge(tid, cpuUs(tid));
const rows = [...kinds].map(([kind, k]) => ({ kind, perPrediction: k.n / N, usPerPrediction: k.us / N, usEach: k.us / k.n })).sort((a, b) => b.usPerPrediction - a.usPerPrediction);
const total = rows.reduce((a, r) => a + r.usPerPrediction, 0);
console.log(JSON.stringify({ n: N, concurrency: C, mariadbUsPerPrediction: Math.round(total), statementsPerPrediction: +rows.reduce((a, r) => a + r.perPrediction, 0).toFixed(2) }));
for (const r of rows.slice(0, Number(process.env.TOP ?? 20))) console.log(`${r.usPerPrediction.toFixed(1).padStart(7)} µs ${r.perPrediction.toFixed(3).padStart(6)}× ${r.usEach.toFixed(0).padStart(5)} µs each  ${r.kind}`);
if (process.env.MISSED) console.log(missed);
await gw.stop();
process.exit(0);
