// The model catalog: every operation carrying x-model, checked at start-up so a spec whose
// adapter names or price rules do not resolve never serves a request.
import type { AdapterDefinition, MediaKind } from '../workers/adapters/types.ts';
import { parsePriceRule } from './pricing.ts';
import type { PriceRule } from './pricing.ts';
import { SpecError } from './load.ts';

export const CATEGORIES = [
  'text-to-image', 'image-to-image', 'text-to-video', 'image-to-video', 'video-edit', 'lipsync', 'audio', '3d', 'llm',
] as const;
export const TIERS = ['best', 'balanced', 'fast', 'budget'] as const;
const OUTPUTS: readonly MediaKind[] = ['image', 'video', 'audio', 'model3d', 'text'];
const SLUG = /^[a-z0-9][a-z0-9.]*(-[a-z0-9.]+)+$/;
/** Values of `x-handled-by`: operations a plugin serves itself (plugins/oauth.ts), skipped by spec-routes. */
export const HANDLED_BY = ['oauth-provider'] as const;

export interface ModelInfo {
  operationId: string;
  path: string;
  category: (typeof CATEGORIES)[number];
  tier: (typeof TIERS)[number];
  family: string;
  output: MediaKind;
  adapter: string;
  adapterKind: AdapterDefinition['kind'];
  upstream?: string;
  upstreamModel?: string;
  price: PriceRule;
}

/** The subset of openapi-backend's dereferenced operation that the catalog reads. */
export interface SpecOperation {
  operationId?: string;
  method: string;
  path: string;
  requestBody?: unknown;
  [ext: `x-${string}`]: unknown;
}

function jsonBodySchema(op: SpecOperation): unknown {
  const rb = op.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined;
  return rb?.content?.['application/json']?.schema;
}

function oneOf<T extends string>(v: unknown, allowed: readonly T[], what: string): T {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    throw new Error(`x-model.${what} must be one of ${allowed.join(', ')} (got ${JSON.stringify(v)})`);
  }
  return v as T;
}

export function modelFromOperation(op: SpecOperation, adapters: Readonly<Record<string, AdapterDefinition>>): ModelInfo {
  const raw = op['x-model'];
  if (typeof raw !== 'object' || raw === null) throw new Error('x-model must be an object');
  const x = raw as Record<string, unknown>;
  const operationId = op.operationId ?? '';
  if (op.method !== 'post') throw new Error('model endpoints are POST operations');
  if (!SLUG.test(operationId) || op.path !== `/api/v1/${operationId}`) {
    throw new Error('a model endpoint lives at /api/v1/<operationId> and its operationId is a <model>-<tier>-<task> slug');
  }
  const adapterName = x.adapter;
  if (typeof adapterName !== 'string' || !Object.hasOwn(adapters, adapterName)) {
    throw new Error(`x-model.adapter ${JSON.stringify(adapterName)} is not a known adapter (known: ${Object.keys(adapters).join(', ')})`);
  }
  const adapter = adapters[adapterName]!;
  const upstream = x.upstream;
  const upstreamModel = x.upstream_model;
  if (adapter.kind === 'upstream') {
    if (typeof upstream !== 'string' || !/^[a-z][a-z0-9_]*$/.test(upstream)) throw new Error('x-model.upstream must name a provider (lowercase letters, digits, _)');
    if (typeof upstreamModel !== 'string' || upstreamModel === '') throw new Error('x-model.upstream_model is required for upstream adapters');
  }
  if (typeof x.family !== 'string' || x.family === '') throw new Error('x-model.family must be a non-empty string');
  const schema = jsonBodySchema(op);
  if (!schema) throw new Error('a model endpoint needs an application/json request body schema');
  return {
    operationId,
    path: op.path,
    category: oneOf(x.category, CATEGORIES, 'category'),
    tier: oneOf(x.tier, TIERS, 'tier'),
    family: x.family,
    output: oneOf(x.output, OUTPUTS, 'output'),
    adapter: adapterName,
    adapterKind: adapter.kind,
    ...(typeof upstream === 'string' ? { upstream } : {}),
    ...(typeof upstreamModel === 'string' ? { upstreamModel } : {}),
    price: parsePriceRule(x.price, schema),
  };
}

/**
 * Builds the catalog and checks that every operation resolves: a model endpoint to an adapter
 * and a price rule, any other operation to a handler. Throws one SpecError listing every problem,
 * each naming its operation.
 */
export function buildCatalog(
  operations: readonly SpecOperation[],
  adapters: Readonly<Record<string, AdapterDefinition>>,
  hasHandler: (operationId: string) => boolean,
): Map<string, ModelInfo> {
  const models = new Map<string, ModelInfo>();
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const op of operations) {
    const id = op.operationId;
    const where = `${op.method.toUpperCase()} ${op.path}`;
    if (!id) {
      problems.push(`${where}: missing operationId`);
      continue;
    }
    if (seen.has(id)) problems.push(`${id} (${where}): duplicate operationId`);
    seen.add(id);
    if (op['x-model'] !== undefined) {
      try {
        models.set(id, modelFromOperation(op, adapters));
      } catch (err) {
        problems.push(`${id} (${where}): ${(err as Error).message}`);
      }
    } else if (op['x-handled-by'] !== undefined) {
      // Served by a plugin instead of a generated route (issueToken: oidc-provider).
      if (!(HANDLED_BY as readonly unknown[]).includes(op['x-handled-by'])) {
        problems.push(`${id} (${where}): x-handled-by must be one of ${HANDLED_BY.join(', ')}`);
      }
    } else if (!hasHandler(id)) {
      problems.push(`${id} (${where}): no handler for this operationId and no x-model`);
    }
  }
  if (problems.length) {
    const shown = problems.slice(0, 20).join('\n  ');
    throw new SpecError(`spec does not resolve (${problems.length} problem${problems.length > 1 ? 's' : ''}):\n  ${shown}`);
  }
  return models;
}
