// The usage row of a language model's answer (prediction_usage, migration 20261129_7001): its
// tokens and the answer's text. An inline call's (POST /v1/chat/completions) is written by the
// store's startInline and settleInline; an asynchronous one's by its completion (Store.complete
// with `usage`), already settled, so that it never marks a prediction that is still unfinished,
// which is all the sweepers look at (db/predictions/sweeps.ts).
import type { Db } from './knex.ts';
import { numOrNull } from './knex.ts';

export interface InlineUsageRecord {
  inputTokens: number | null;
  outputTokens: number | null;
  source: 'reported' | 'counted' | null;
  text: string | null;
}

/** A language model answer's usage, or undefined for any other prediction (its id already scoped to its owner by the caller). */
export async function findInlineUsage(db: Db, predictionId: string): Promise<InlineUsageRecord | undefined> {
  const row = await db('prediction_usage').where({ prediction_id: predictionId }).first('input_tokens', 'output_tokens', 'usage_source', 'output_text') as Record<string, unknown> | undefined;
  if (!row) return undefined;
  const source = row.usage_source === 'reported' || row.usage_source === 'counted' ? row.usage_source : null;
  return { inputTokens: numOrNull(row.input_tokens as number | null), outputTokens: numOrNull(row.output_tokens as number | null), source, text: typeof row.output_text === 'string' ? row.output_text : null };
}
