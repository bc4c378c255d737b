// The provider-cost rows and the margin report on the embedded SQLite database (the MariaDB path
// runs end to end in test/http/margins.test.ts): one row per prediction, a second write ignored,
// grouped by UTC day and model, unknown costs counted apart.
import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb, migrate } from '../../db/knex.ts';
import { DAY_MS, insertProviderCosts } from '../../db/provider-costs.ts';
import { modelMargins } from '../../db/model-margins.ts';

test('a prediction is recorded once; rows group by UTC day and model; an unknown cost adds nothing and is counted', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-margins-'));
  const db = createDb({ databaseUrl: undefined, sqliteFile: path.join(dir, 'm.sqlite'), poolMax: 1 });
  t.teardown(async () => { await db.destroy(); fs.rmSync(dir, { recursive: true, force: true }); });
  await migrate(db);
  const day = Date.UTC(2026, 10, 30, 23, 59);
  const next = Date.UTC(2026, 11, 1, 0, 1);
  const row = { model: 'clip', provider: 'fal', upstreamModel: 'fal-ai/x', source: 'rule' as const };
  await insertProviderCosts(db, [{ ...row, predictionId: 'a', charged: 100, providerCost: 40, now: day }]);
  await insertProviderCosts(db, [{ ...row, predictionId: 'a', charged: 999, providerCost: 999, now: day }]);
  await insertProviderCosts(db, [{ ...row, predictionId: 'b', charged: 0, providerCost: null, source: 'unknown', now: day }]);
  await insertProviderCosts(db, [{ ...row, predictionId: 'c', charged: 50, providerCost: 10, now: next }]);
  await insertProviderCosts(db, [{ ...row, predictionId: 'd', model: 'chat', charged: 5, providerCost: 1, now: next }]);
  const { rows, totals } = await modelMargins(db, Math.floor(day / DAY_MS), Math.floor(next / DAY_MS));
  t.deepEqual(rows, [
    { day: '2026-11-30', model: 'clip', runs: 2, charged_runs: 1, revenue: 100, provider_cost: 40, unknown_cost_runs: 1, margin: 60 },
    { day: '2026-12-01', model: 'chat', runs: 1, charged_runs: 1, revenue: 5, provider_cost: 1, unknown_cost_runs: 0, margin: 4 },
    { day: '2026-12-01', model: 'clip', runs: 1, charged_runs: 1, revenue: 50, provider_cost: 10, unknown_cost_runs: 0, margin: 40 },
  ]);
  t.deepEqual(totals, { runs: 4, charged_runs: 3, revenue: 155, provider_cost: 51, unknown_cost_runs: 1, margin: 104 });
  t.is((await modelMargins(db, Math.floor(next / DAY_MS), Math.floor(next / DAY_MS), 'chat')).rows.length, 1);
});
