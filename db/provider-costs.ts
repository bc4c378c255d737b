// The provider's cost of one prediction beside what the gateway was paid for it (migration
// 20261129_6001, docs/operating/model-files.md "Provider cost and margin"). Written once, when a
// run ends: a copy of the same message finishing again finds the row there and writes nothing.
import type { Db } from './knex.ts';
import { naturalBatcher } from '../lib/batch.ts';
import { cleanMetadata } from '../lib/provider-metadata.ts';
import type { ProviderMetadata } from '../lib/provider-metadata.ts';

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
  /** what the provider said of the result besides its outputs (lib/provider-metadata.ts, already checked) */
  metadata?: Record<string, unknown>;
}

function rowOf(c: ProviderCost) {
  return {
    prediction_id: c.predictionId, model: c.model, day: Math.floor(c.now / DAY_MS), provider: c.provider,
    upstream_model: c.upstreamModel, charged: c.charged, provider_cost: c.providerCost, cost_source: c.source, created_at: c.now,
    metadata: c.metadata ? JSON.stringify(c.metadata) : null,
  };
}

export async function recordProviderCost(db: Db, c: ProviderCost): Promise<void> {
  await db('prediction_costs').insert(rowOf(c)).onConflict('prediction_id').ignore();
}

/**
 * recordProviderCost for a worker process: the rows of the runs that end while one INSERT is in
 * flight go in the next one (lib/batch.ts), so a busy worker adds a fraction of a round trip per
 * completion rather than one. A row already there (a copy of the same message) is kept as it is.
 */
export function providerCostRecorder(db: Db): (c: ProviderCost) => Promise<void> {
  return naturalBatcher<ProviderCost, void>(async (items) => {
    // the same prediction twice in one batch: the first wins, as the conflict rule would have it
    const seen = new Set<string>();
    const rows = items.filter((c) => !seen.has(c.predictionId) && seen.add(c.predictionId)).map(rowOf);
    await db('prediction_costs').insert(rows).onConflict('prediction_id').ignore();
    return items.map(() => ({ ok: true as const, value: undefined }));
  }, { max: 200 });
}

/**
 * The provider metadata kept for a completed prediction (recordProviderCost), as the result and
 * the webhook show it; undefined when there is none (or the prediction did not complete).
 */
export async function providerMetadataOf(db: Db, p: { id: string; status: string }): Promise<ProviderMetadata | undefined> {
  if (p.status !== 'completed') return undefined;
  const row = await db('prediction_costs').where({ prediction_id: p.id }).first('metadata') as { metadata: string | null } | undefined;
  if (!row?.metadata) return undefined;
  try {
    return cleanMetadata(JSON.parse(row.metadata));
  } catch {
    return undefined;
  }
}
