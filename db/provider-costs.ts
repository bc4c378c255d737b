// The provider's cost of one prediction beside what the gateway was paid for it (migration
// 20261130_0101, docs/operating/model-files.md "Provider cost and margin"). Written once, when a
// run ends: a copy of the same message finishing again finds the row there and writes nothing.
import type { Db } from './knex.ts';

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
}

export async function recordProviderCost(db: Db, c: ProviderCost): Promise<void> {
  await db('prediction_costs').insert({
    prediction_id: c.predictionId, model: c.model, day: Math.floor(c.now / DAY_MS), provider: c.provider,
    upstream_model: c.upstreamModel, charged: c.charged, provider_cost: c.providerCost, cost_source: c.source, created_at: c.now,
  }).onConflict('prediction_id').ignore();
}
