// The provider's cost of one prediction beside what the gateway was paid for it (migration
// 20261129_6001, docs/operating/model-files.md "Provider cost and margin"). Written once, when a
// run ends: a copy of the same message finishing again finds the row there and writes nothing.
import type { Knex } from 'knex';
import type { Db } from './knex.ts';
import { insertHead } from './sql.ts';
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

/**
 * What a run cost at its provider, as its completion carries it to the store (db/store/types.ts
 * `Completion.cost`): the store writes the row in the completion's transaction, with what the
 * completion charged, so the worker's run ends in one round trip rather than two.
 */
export type RunCost = Omit<ProviderCost, 'predictionId' | 'model' | 'charged' | 'now'>;

/**
 * The rows of recorded completions, in the completion's transaction (the portable store). A row
 * already there (a copy of the same message) is kept as it is.
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

/** One row, outside a completion: a run the provider did that did not complete (nothing charged). A row already there is kept. */
export async function recordProviderCost(db: Db, c: ProviderCost): Promise<void> {
  await db('prediction_costs').insert(rowOf(c)).onConflict('prediction_id').ignore();
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
