// What a run cost the operator at its provider (docs/operating/model-files.md, "Provider cost and
// margin"): the cost the provider's answer reports, else the provider's cost rule applied to the
// input (a token rule to the usage reported), else unknown. The gateway's own adapters cost it
// nothing at a provider. Pure.
import type { ModelInfo } from '../spec/catalog.ts';
import { computePriceBreakdown, CREDITS_PER_USD } from '../spec/pricing.ts';
import type { ProviderReport } from './adapters/types.ts';

export interface RunCost {
  cost: number | null;
  source: 'reported' | 'rule' | 'local' | 'unknown';
}

/** `model` as the provider that ran it runs it (upstream-jobs.ts runBy): its own cost rule. */
export function runCost(model: Pick<ModelInfo, 'adapterKind' | 'cost'>, input: Readonly<Record<string, unknown>>, report?: ProviderReport): RunCost {
  if (model.adapterKind === 'local') return { cost: 0, source: 'local' };
  const usd = report?.costUsd;
  // rounded to a millionth of a credit first: 0.035 * 1000 is 35.000000000000004 in binary
  if (typeof usd === 'number' && Number.isFinite(usd) && usd >= 0) return { cost: Math.ceil(Math.round(usd * CREDITS_PER_USD * 1e6) / 1e6), source: 'reported' };
  if (model.cost) return { cost: computePriceBreakdown(model.cost, input, report?.usage).total, source: 'rule' };
  return { cost: null, source: 'unknown' };
}
