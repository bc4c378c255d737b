// The worker's database steps alone, in Node CPU and statements per prediction:
// `node test/bench/worker-db-cost.ts [n] [group] [hooks]`. Submits `group` (16) production predictions
// (every `hooks`-th with a webhook: 4; 0 none), claims them together with their tickets (a prefetch of 16
// brings them so: the store's claim batch) and completes them together (the store's completion
// group), n predictions in all (after five groups not measured), on MariaDB, and
// prints this process's CPU (process.cpuUsage: knex, mysql2 and the db/ code; MariaDB's not) and
// the statements per prediction of each step. The whole worker's CPU (profile-worker.ts) moves by
// more from run to run on a shared machine than these steps cost; this figure resolves them.
// To compare with another commit, copy this file into a worktree of it and alternate (A B B A).
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { newPredictionId } from '../../db/predictions/record.ts';
import type { Prediction } from '../../db/predictions/record.ts';
const N = Number(process.argv[2] ?? 2000);
const G = Number(process.argv[3] ?? 16);
const HOOKS = Number(process.argv[4] ?? 4);
const gw = await startGateway({ queue: 'memory' });
const db = gw.app.db;
const store = gw.app.store;
const acct = await newAccount(gw, 1e12);
const model = 'canvas-v1-fast-text-to-image';
let queries = 0;
db.on('query', () => { queries++; });
let claimUs = 0, completeUs = 0, claimQ = 0, completeQ = 0;
const us = (c: NodeJS.CpuUsage) => c.user + c.system;
for (let done = -5 * G; done < N; done += G) {
  const subs: Array<{ id: string; ticket: unknown }> = [];
  for (let i = 0; i < G; i++) {
    const id = newPredictionId(Date.now());
    const o = await store.submit({ p: { id, userId: acct.userId, apiKeyId: null, model, input: { prompt: 'a lighthouse at dusk', width: 64, height: 64, num_inference_steps: 1 }, price: 5, listPrice: 5, discountPercent: null, webhookUrl: HOOKS > 0 && i % HOOKS === 0 ? 'https://example.com/hook' : null, httpRequestId: 'req' }, now: Date.now() });
    if (!o.accepted || !o.ticket) throw new Error('refused, or no ticket');
    subs.push({ id, ticket: JSON.parse(JSON.stringify(o.ticket)) });
  }
  const measure = done >= 0;
  let q0 = queries; let c0 = process.cpuUsage();
  const ps = await Promise.all(subs.map((s) => store.claim({ id: s.id, now: Date.now(), takeOver: false, ticket: s.ticket })));
  if (measure) { claimUs += us(process.cpuUsage(c0)); claimQ += queries - q0; }
  if (ps.some((p) => !p)) throw new Error('not claimed');
  const items = (ps as Prediction[]).map((p, i) => ({ p, result: { outputs: [`outputs/${p.id}/0.png`], nsfw: [false], inferenceMs: 3 + i }, now: Date.now() }));
  q0 = queries; c0 = process.cpuUsage();
  const f = await Promise.all(items.map((c) => store.complete(c)));
  if (measure) { completeUs += us(process.cpuUsage(c0)); completeQ += queries - q0; }
  if (!f.every((x) => x.recorded)) throw new Error('not recorded');
}
console.log(JSON.stringify({ n: N, group: G, hooks: HOOKS, claimUsPerPrediction: +(claimUs / N).toFixed(1), completeUsPerPrediction: +(completeUs / N).toFixed(1), claimQueries: +(claimQ / N).toFixed(3), completeQueries: +(completeQ / N).toFixed(3) }));
await gw.stop();
process.exit(0);
