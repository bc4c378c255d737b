// MariaDB's CPU for the index work of a production prediction's row, with the indexes of
// `predictions` before and after migrations 20261126_0101/0102 (README "Rate limits on generation"):
// `node test/bench/index-maintenance.ts [rows] [rounds]`. Two fresh databases, one migrated to the
// latest and one with those two migrations rolled back, each prefilled with 100,000 completed
// rows; then, alternating `rounds` times, `rows` predictions in batches of 8 go through the
// statements the gateway sends (a multi-row INSERT in a transaction, queued -> pending by primary
// key, the batched claim, the locked batched completion). Prints the CPU of mariadbd's thread of
// this connection per prediction and per statement kind (/proc/<pid>/task/<tid>/schedstat: other
// clients of a shared server do not count; InnoDB's background purge is not included).
import fs from 'node:fs/promises';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { createDb, migrate } from '../../db/knex.ts';
import type { Db } from '../../db/knex.ts';
import { migrationSource } from '../../db/migrations/index.ts';
import { freshDatabase } from '../helpers/services.ts';

const ROWS = Number(process.argv[2] ?? 2000);
const ROUNDS = Number(process.argv[3] ?? 3);
const PREFILL = 100_000;
const BATCH = 8;
const mariadbPid = execFileSync('pgrep', ['-x', 'mariadbd']).toString().trim().split('\n')[0]!;

async function prepared(label: string, rollBack: string[]): Promise<{ label: string; db: Db; drop: () => Promise<void> }> {
  const fresh = await freshDatabase();
  const db = createDb({ databaseUrl: fresh.url, sqliteFile: '', poolMax: 1 });
  await migrate(db);
  for (const name of rollBack) await db.migrate.down({ migrationSource, name });
  await db.raw('set foreign_key_checks = 0');
  const at = Date.now() - 86_400_000;
  for (let i = 0; i < PREFILL; i += 1000) {
    await db('predictions').insert(Array.from({ length: 1000 }, (_, j) => ({
      id: crypto.randomBytes(13).toString('hex'), user_id: 1 + ((i + j) % 100), api_key_id: 1 + ((i + j) % 200), model: 'canvas-v1-fast-text-to-image',
      status: 'completed', input: '{"prompt":"a lighthouse at dusk"}', outputs: '["x/0.png"]', nsfw: '[false]', price: 5,
      created_at: at + i + j, updated_at: at + i + j, started_at: at + i + j, completed_at: at + i + j,
    })));
  }
  return { label, db, drop: async () => { await db.destroy(); await fresh.drop(); } };
}

async function run(label: string, db: Db): Promise<void> {
  // again on this run's connection: the pool may have replaced an idle one meanwhile
  await db.raw('set foreign_key_checks = 0');
  const [[{ tid }]] = await db.raw('select tid from information_schema.processlist where id = connection_id()') as [[{ tid: number }]];
  const cpuUs = async () => Number((await fs.readFile(`/proc/${mariadbPid}/task/${tid}/schedstat`, 'utf8')).split(' ')[0]) / 1000;
  const kinds: Record<string, number> = { insert: 0, pending: 0, claim: 0, complete: 0 };
  let last = await cpuUs();
  const mark = async (kind: string) => { const now = await cpuUs(); kinds[kind]! += now - last; last = now; };
  for (let r = 0; r < ROWS; r += BATCH) {
    const now = Date.now();
    const rows = Array.from({ length: BATCH }, (_, j) => ({
      id: crypto.randomBytes(13).toString('hex'), user_id: 1 + ((r + j) % 7), api_key_id: 1 + ((r + j) % 10), model: 'canvas-v1-fast-text-to-image', status: 'queued',
      input: '{"prompt":"a lighthouse at dusk","width":64,"height":64,"num_inference_steps":1}', price: 5, list_price: 5, source: 'api', http_request_id: `req-${r}-${j}`,
      created_at: now, updated_at: now,
    }));
    const ids = rows.map((x) => x.id).sort();
    const marks = ids.map(() => '?').join(', ');
    const when = ids.map(() => 'when ? then ?').join(' ');
    const at = ids.flatMap((id) => [id, now]);
    await db.transaction(async (trx) => { await trx('predictions').insert(rows); });
    await mark('insert');
    await db.raw(`update predictions force index (primary) set status = 'pending', updated_at = ? where id in (${marks}) and status = 'queued'`, [now, ...ids]);
    await mark('pending');
    await db.raw(`update predictions force index (primary) set status = 'processing', started_at = case id ${when} end, updated_at = case id ${when} end, attempts = attempts + 1 where id in (${marks}) and status in ('queued', 'pending') and attempts = 0`, [...at, ...at, ...ids]);
    await mark('claim');
    await db.transaction(async (trx) => {
      await trx.raw(`select id from predictions force index (primary) where id in (${marks}) and status = 'processing' order by id for update`, ids);
      const outputs = ids.flatMap((id) => [id, `["outputs/${id}/0.png"]`]);
      await trx.raw(`update predictions force index (primary) set status = 'completed', error = null, outputs = case id ${when} end, completed_at = case id ${when} end, updated_at = case id ${when} end where id in (${marks}) and status = 'processing'`, [...outputs, ...at, ...at, ...ids]);
    });
    await mark('complete');
  }
  const perRow = Object.fromEntries(Object.entries(kinds).map(([k, v]) => [k, Math.round(v / ROWS)]));
  console.log(JSON.stringify({ indexes: label, rows: ROWS, mariadbUsPerPrediction: Object.values(kinds).reduce((a, b) => a + b, 0) / ROWS | 0, byStatement: perRow }));
}

// BEFORE=name,name: the migrations the "before" side rolls back, latest first (default: 20261126_0102 and 0101)
const rollBack = (process.env.BEFORE ?? '20261126_0102_predictions_redundant_indexes,20261126_0101_predictions_unfinished').split(',');
const before = await prepared(`before ${rollBack.join(', ')}`, rollBack);
const after = await prepared('latest', []);
try {
  for (let i = 0; i < ROUNDS; i++) for (const side of [before, after]) await run(side.label, side.db);
} finally {
  await before.drop();
  await after.drop();
}
