// GET /api/v1/models: the model catalog (README "The models list"). Public: everything but
// `available` is already in the served /openapi.json. Built from the loaded spec, so an operator
// who adds a model (SPEC_DIR) sees it listed with no code change.
import type { Handler, ReplyOf } from './types.ts';
import type { App } from '../lib/context.ts';
import { ValidationFailedError } from '../lib/errors.ts';
import type { ValidationItem } from '../lib/errors.ts';
import { catalogVocabulary } from '../spec/catalog.ts';
import type { ModelInfo } from '../spec/catalog.ts';
import { computePrice, describeTerm, studioPrice } from '../spec/pricing.ts';
import type { PriceRule } from '../spec/pricing.ts';
import { configuredProviders } from '../workers/adapters/index.ts';

export type ModelEntry = ReplyOf<'listModels'>['models'][number];

function inputSchemaOf(app: App, operationId: string): Record<string, unknown> {
  const op = app.spec.operations.find((o) => o.operationId === operationId);
  const schema = (op?.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)?.content?.['application/json']?.schema;
  return typeof schema === 'object' && schema !== null ? schema as Record<string, unknown> : {};
}

/** The input every priced field takes when left out: the schema's defaults. */
function defaultsOf(schema: Record<string, unknown>): Record<string, unknown> {
  const props = (schema.properties ?? {}) as Record<string, { default?: unknown }>;
  return Object.fromEntries(Object.entries(props).filter(([, p]) => p && p.default !== undefined).map(([k, p]) => [k, p.default]));
}

function priceSummary(rule: PriceRule, schema: Record<string, unknown>): ModelEntry['price'] {
  return {
    unit: 'credit',
    base: rule.base,
    per_unit: rule.perUnit ? { field: rule.perUnit.field, amount: rule.perUnit.amount } : null,
    terms: rule.terms.map(describeTerm),
    ...(rule.tokens ? { per_token: { input: rule.tokens.input, output: rule.tokens.output, per: rule.tokens.per } } : {}),
    multipliers: rule.multipliers.map((m) => ({ field: m.field, percent_by_value: Object.fromEntries(m.percentByValue) })),
    minimum: rule.minimum,
    at_defaults: computePrice(rule, defaultsOf(schema)),
  };
}

/** One model as GET /api/v1/models lists it: also the source of the dashboard catalog (handlers/catalog.ts). */
export function entryOf(app: App, model: ModelInfo): ModelEntry {
  const op = app.spec.operations.find((o) => o.operationId === model.operationId);
  const schema = inputSchemaOf(app, model.operationId);
  return {
    slug: model.operationId,
    path: model.path,
    title: op?.summary ?? model.operationId,
    category: model.category,
    tier: model.tier,
    family: model.family,
    output: model.output,
    price: priceSummary(model.price, schema),
    input_schema: schema,
    available: configuredProviders(model, app.adapterEnv).length > 0,
    // which provider is missing, for a client explaining "unavailable"
    provider_setup: model.providers.map((p) => ({ name: p.adapterKind === 'local' ? 'local' : p.upstream ?? p.adapter, configured: configuredProviders({ ...model, providers: [p] }, app.adapterEnv).length > 0 })),
  };
}

export const listModels: Handler<'listModels'> = async ({ app, query, studio }) => {
  const vocabulary = catalogVocabulary(app.spec.document as unknown as Record<string, unknown>);
  // The vocabulary is data (x-catalog), so the filters are checked against it here rather than
  // by an enum the spec would have to repeat.
  const problems: ValidationItem[] = [];
  for (const [name, value, known] of [['category', query.category, vocabulary.categories], ['tier', query.tier, vocabulary.tiers]] as const) {
    if (value !== undefined && !known.includes(value)) problems.push({ loc: ['query', name], msg: `unknown ${name}; one of ${known.join(', ')}`, type: 'enum' });
  }
  if (problems.length) throw new ValidationFailedError(problems);
  const models = [...app.spec.models.values()]
    // README "Whitelabel studios": a studio lists only its allowed models
    .filter((m) => studio === undefined || studio.allowedModels.includes(m.operationId))
    .filter((m) => (query.category === undefined || m.category === query.category) && (query.tier === undefined || m.tier === query.tier))
    .map((m) => entryOf(app, m))
    // in a studio the price is the studio's: only its price at the defaults (the gateway's rule
    // under it is the owner's business, as in quotes); a quote prices any other input
    .map((e) => (studio === undefined ? e : { ...e, price: { unit: e.price.unit, base: studioPrice(studio, e.slug, e.price.at_defaults), per_unit: null, multipliers: [], at_defaults: studioPrice(studio, e.slug, e.price.at_defaults) } }));
  return { models };
};
