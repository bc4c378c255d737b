// Revenue, provider cost and margin by model and UTC day (GET /auth/admin_model_margins): a read
// of prediction_costs alone (db/provider-costs.ts writes it), grouped by its (day, model) index.
import type { Db } from './knex.ts';
import { DAY_MS } from './provider-costs.ts';
import { num } from './knex.ts';

export interface MarginRow {
  /** YYYY-MM-DD (UTC) */
  day: string;
  model: string;
  /** runs a provider (or the gateway) made */
  runs: number;
  /** of which completed and charged */
  charged_runs: number;
  /** credits the gateway was paid */
  revenue: number;
  /** credits the providers charged, where known */
  provider_cost: number;
  /** runs whose provider cost is not known (no cost in the answer, no cost rule) */
  unknown_cost_runs: number;
  /** revenue - provider_cost */
  margin: number;
}

const dayOf = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10);

/** Rows from `fromDay` to `toDay` (UTC day numbers, both included), by day then model; and their totals. */
export async function modelMargins(db: Db, fromDay: number, toDay: number, model?: string): Promise<{ rows: MarginRow[]; totals: Omit<MarginRow, 'day' | 'model'> }> {
  const q = db('prediction_costs')
    .whereBetween('day', [fromDay, toDay])
    .groupBy('day', 'model')
    .orderBy([{ column: 'day' }, { column: 'model' }])
    .select('day', 'model')
    .count({ runs: '*' })
    .sum({ revenue: 'charged', provider_cost: 'provider_cost' })
    .select(db.raw('sum(case when charged > 0 then 1 else 0 end) as charged_runs'))
    .select(db.raw('sum(case when provider_cost is null then 1 else 0 end) as unknown_cost_runs'));
  if (model !== undefined) q.where({ model });
  const raw = await q as Array<Record<string, unknown>>;
  const rows = raw.map((r): MarginRow => {
    const revenue = num(r.revenue ?? 0);
    const cost = num(r.provider_cost ?? 0);
    return {
      day: dayOf(num(r.day)), model: String(r.model), runs: num(r.runs), charged_runs: num(r.charged_runs ?? 0),
      revenue, provider_cost: cost, unknown_cost_runs: num(r.unknown_cost_runs ?? 0), margin: revenue - cost,
    };
  });
  const totals = rows.reduce((t, r) => ({
    runs: t.runs + r.runs, charged_runs: t.charged_runs + r.charged_runs, revenue: t.revenue + r.revenue,
    provider_cost: t.provider_cost + r.provider_cost, unknown_cost_runs: t.unknown_cost_runs + r.unknown_cost_runs, margin: t.margin + r.margin,
  }), { runs: 0, charged_runs: 0, revenue: 0, provider_cost: 0, unknown_cost_runs: 0, margin: 0 });
  return { rows, totals };
}
