// The provider's cost of one prediction beside what the gateway was paid for it (migration
// 20261129_6001, docs/operating/model-files.md "Provider cost and margin"). Written once, when a
// run ends, by the store in the transaction that completes or fails it (db/store/types.ts
// Completion.cost, Store.fail): a copy of the same message finishing again finds the row there
// and writes nothing. Read by the margin report (db/model-margins.ts) and, for its metadata, with
// the prediction (db/predictions/record.ts).
import type { Knex } from 'knex';
import { insertHead } from './sql.ts';

/** Milliseconds in a UTC day: a row's `day` is its time divided by this, rounded down. */
export const DAY_MS = 86_400_000;

export interface ProviderCost {
  predictionId: string;
  model: string;
  /** x-model.upstream, or `local` */
  provider: string;
  upstreamModel: string | null;
  /** credits the gateway was paid (0: the prediction did not complete) */
  charged: number;
  /** credits the provider charged; null when unknown */
  providerCost: number | null;
  source: 'reported' | 'rule' | 'local' | 'unknown';
  now: number;
  /** what the provider said of the result besides its outputs (lib/prediction-view.ts, already checked) */
  metadata?: Record<string, unknown>;
}

function rowOf(c: ProviderCost) {
  return {
    prediction_id: c.predictionId, model: c.model, day: Math.floor(c.now / DAY_MS), provider: c.provider,
    upstream_model: c.upstreamModel, charged: c.charged, provider_cost: c.providerCost, cost_source: c.source, created_at: c.now,
    metadata: c.metadata ? JSON.stringify(c.metadata) : null,
  };
}

/**
 * What a run cost at its provider, as its completion or failure carries it to the store: the
 * store writes the row in that transaction, with what was charged, so the worker's run ends in
 * one round trip rather than two.
 */
export type RunCost = Omit<ProviderCost, 'predictionId' | 'model' | 'charged' | 'now'>;

/**
 * Rows of runs that ended, in the transaction that ends them (the portable store). A row already
 * there (a copy of the same message) is kept as it is.
 */
export async function insertProviderCosts(trx: Knex, costs: readonly ProviderCost[]): Promise<void> {
  if (costs.length === 0) return;
  await trx('prediction_costs').insert(costs.map(rowOf)).onConflict('prediction_id').ignore();
}

const COST_COLUMNS = ['prediction_id', 'model', 'day', 'provider', 'upstream_model', 'charged', 'provider_cost', 'cost_source', 'created_at', 'metadata'] as const;
const NESTED_COST_INSERT = insertHead('prediction_costs', COST_COLUMNS).replace(/^insert into/, 'insert ignore into') + '?';

/** MariaDB/MySQL: insertProviderCosts as SQL text and its one binding (the rows, nested), for a statement that holds more (db/store/mariadb/complete-group.ts). */
export function providerCostsInsertSql(costs: readonly ProviderCost[]): { sql: string; binding: Knex.RawBinding } {
  const rows = costs.map((c) => { const row = rowOf(c); return COST_COLUMNS.map((column) => row[column]); });
  // knex types no array of arrays as a binding; mysql2 writes it as the rows' value lists
  return { sql: NESTED_COST_INSERT, binding: rows as unknown as Knex.RawBinding };
}
