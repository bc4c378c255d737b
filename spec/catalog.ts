// The model catalog: every operation carrying x-model, checked at start-up so a spec whose
// adapter names or price rules do not resolve never serves a request.
import type { AdapterDefinition, MediaKind } from '../workers/adapters/types.ts';
import { parsePriceRule } from './pricing.ts';
import type { PriceRule } from './pricing.ts';
import { displayPath, SpecError } from './load.ts';
import { parseInputMapping } from './mapping.ts';
import type { InputMapping } from './mapping.ts';

/**
 * The media kinds the workers can store, sample and check. The spec's `x-catalog.outputs` picks
 * from these; a new kind needs code (a sandbox sample, a type check), so it is listed here.
 */
export const MEDIA_KINDS: readonly MediaKind[] = ['image', 'video', 'audio', 'model3d', 'text'];

/** The catalog's vocabulary, declared by the spec's root `x-catalog` (categories, tiers, output kinds). */
export interface CatalogVocabulary {
  categories: readonly string[];
  tiers: readonly string[];
  outputs: readonly MediaKind[];
}

function nameList(v: unknown, where: string): string[] {
  if (!Array.isArray(v) || v.length === 0 || !v.every((e) => typeof e === 'string' && /^[a-z0-9][a-z0-9-]*$/.test(e))) {
    throw new SpecError(`${where} must be a non-empty list of lowercase names`);
  }
  if (new Set(v).size !== v.length) throw new SpecError(`${where} lists a name twice`);
  return v as string[];
}

/** Reads and checks the root document's `x-catalog`; throws SpecError naming the bad field. */
export function catalogVocabulary(document: Record<string, unknown>): CatalogVocabulary {
  const raw = document['x-catalog'];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new SpecError('openapi.yaml: x-catalog (categories, tiers, outputs) is required: the vocabulary of the models\' x-model');
  }
  const x = raw as Record<string, unknown>;
  const outputs = nameList(x.outputs, 'openapi.yaml: x-catalog.outputs');
  const unsupported = outputs.filter((o) => !(MEDIA_KINDS as readonly string[]).includes(o));
  if (unsupported.length) {
    throw new SpecError(`openapi.yaml: x-catalog.outputs: ${unsupported.join(', ')} not supported by this build (supported: ${MEDIA_KINDS.join(', ')})`);
  }
  return {
    categories: nameList(x.categories, 'openapi.yaml: x-catalog.categories'),
    tiers: nameList(x.tiers, 'openapi.yaml: x-catalog.tiers'),
    outputs: outputs as MediaKind[],
  };
}

const SLUG = /^[a-z0-9][a-z0-9.]*(-[a-z0-9.]+)+$/;
/** Values of `x-handled-by`: operations a plugin serves itself (plugins/oauth.ts), skipped by spec-routes. */
export const HANDLED_BY = ['oauth-provider'] as const;

/** One provider that can run a model: its adapter and how the provider is called. */
export interface ProviderInfo {
  adapter: string;
  adapterKind: AdapterDefinition['kind'];
  upstream?: string;
  upstreamModel?: string;
  /** x-model.input_map as written: our input field -> the provider's field, or a transform ("" drops the field) */
  inputMap?: Readonly<Record<string, unknown>>;
  /** x-model.fixed_input: provider-only values sent with every request */
  fixedInput?: Readonly<Record<string, unknown>>;
  /** input_map, fixed_input and limits, checked and compiled (spec/mapping.ts): what adapters apply */
  mapping?: InputMapping;
  /** x-model.providers[i].cost: what this provider charges the operator for a request (spec/pricing.ts) */
  cost?: PriceRule;
}

/**
 * A model endpoint. Its own adapter/upstream fields are those of its first provider; `providers`
 * lists every provider in failover order (x-model.providers, or the single-provider form as a
 * list of one). docs/operating/providers.md "Providers".
 */
export interface ModelInfo extends ProviderInfo {
  operationId: string;
  path: string;
  category: string;
  tier: string;
  family: string;
  output: MediaKind;
  providers: readonly ProviderInfo[];
  price: PriceRule;
}

/** The fields of one provider, in the single-provider form (on x-model) or as an entry of x-model.providers. */
const PROVIDER_FIELDS = ['adapter', 'upstream', 'upstream_model', 'input_map', 'fixed_input', 'limits', 'cost'];
/** The fields of x-model besides the provider's. */
const MODEL_FIELDS = ['category', 'tier', 'family', 'output', 'price', 'providers'];

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

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * x-model.input_map (our field -> the provider's field, or a transform), x-model.fixed_input
 * (provider-only values) and x-model.limits (what the provider accepts). Upstream adapters only;
 * every named field must be one of the input schema's properties, so a typo stops start-up
 * instead of silently sending the field unmapped (spec/mapping.ts checks the rest).
 */
function providerMapping(x: Record<string, unknown>, schema: unknown, kind: AdapterDefinition['kind'], where = 'x-model'): InputMapping | undefined {
  const { input_map: map, fixed_input: fixed, limits } = x;
  if (map === undefined && fixed === undefined && limits === undefined) return undefined;
  if (kind !== 'upstream') throw new Error(`${where}.input_map / fixed_input / limits apply to upstream adapters only`);
  return parseInputMapping({ input_map: map, fixed_input: fixed, limits }, isPlainObject(schema) ? schema : {}, where);
}

const schemaType = (s: Record<string, unknown>): string | undefined => {
  const t = Array.isArray(s.type) ? s.type.find((v) => v !== 'null') : s.type;
  return typeof t === 'string' ? t : undefined;
};
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Why `value` does not meet `s` (the keywords a model input uses), or null when it does. */
function defaultProblem(s: Record<string, unknown>, value: unknown): string | null {
  const shown = JSON.stringify(value);
  if (value === null) return Array.isArray(s.type) && s.type.includes('null') || (Array.isArray(s.enum) && s.enum.includes(null)) ? null : `its default null is not allowed (type ${JSON.stringify(s.type)})`;
  if (Array.isArray(s.enum)) return s.enum.some((e) => JSON.stringify(e) === shown) ? null : `its default ${shown} is not one of its enum (${s.enum.map((e) => JSON.stringify(e)).join(', ')})`;
  if (s.const !== undefined) return JSON.stringify(s.const) === shown ? null : `its default ${shown} is not its const ${JSON.stringify(s.const)}`;
  const type = schemaType(s);
  switch (type) {
    case 'integer':
    case 'number': {
      if (!isNumber(value)) return `its default ${shown} is not a number`;
      if (type === 'integer' && !Number.isInteger(value)) return `its default ${shown} is not an integer`;
      if (isNumber(s.minimum) && value < s.minimum) return `its default ${shown} is below its minimum ${s.minimum}`;
      if (isNumber(s.exclusiveMinimum) && value <= s.exclusiveMinimum) return `its default ${shown} is not above its exclusiveMinimum ${s.exclusiveMinimum}`;
      if (isNumber(s.maximum) && value > s.maximum) return `its default ${shown} is above its maximum ${s.maximum}`;
      if (isNumber(s.exclusiveMaximum) && value >= s.exclusiveMaximum) return `its default ${shown} is not below its exclusiveMaximum ${s.exclusiveMaximum}`;
      return null;
    }
    case 'string': {
      if (typeof value !== 'string') return `its default ${shown} is not a string`;
      const length = [...value].length;
      if (isNumber(s.maxLength) && length > s.maxLength) return `its default ${shown} is longer than its maxLength ${s.maxLength}`;
      if (isNumber(s.minLength) && length < s.minLength) return `its default ${shown} is shorter than its minLength ${s.minLength}`;
      if (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(value)) return `its default ${shown} does not match its pattern ${s.pattern}`;
      return null;
    }
    case 'boolean':
      return typeof value === 'boolean' ? null : `its default ${shown} is not a boolean`;
    case 'array': {
      if (!Array.isArray(value)) return `its default ${shown} is not a list`;
      if (isNumber(s.maxItems) && value.length > s.maxItems) return `its default has more than its maxItems ${s.maxItems} items`;
      if (isNumber(s.minItems) && value.length < s.minItems) return `its default has fewer than its minItems ${s.minItems} items`;
      if (isPlainObject(s.items)) {
        for (const item of value) {
          const problem = defaultProblem(s.items, item);
          if (problem) return problem.replace('its default', 'an item of its default');
        }
      }
      return null;
    }
    case 'object':
      return isPlainObject(value) ? null : `its default ${shown} is not an object`;
    default:
      return null;
  }
}

/**
 * A model's input schema must bound what a request sends on: each string a maxLength (or an
 * enum or const), each list a maxItems (each item is work: a URL fetched, a LoRA applied), down
 * through list items, nested objects and alternatives; and each default must meet its own schema
 * (it is filled in unchecked). A number the price follows is bounded by spec/pricing.ts
 * checkBounds. Throws naming the field: `input.opts.tag`, `input.refs[]`.
 */
function inputBounds(node: unknown, where: string): void {
  if (!isPlainObject(node)) return;
  const listed = Array.isArray(node.enum) || node.const !== undefined;
  const type = schemaType(node);
  if (!listed) {
    if (type === 'string' && !isNumber(node.maxLength)) throw new Error(`${where}: a string needs a maxLength (or an enum): the input schema bounds what a request may send`);
    if (type === 'array' && !isNumber(node.maxItems)) throw new Error(`${where}: an array needs a maxItems: the input schema bounds what a request may send`);
  }
  if (node.default !== undefined) {
    const problem = defaultProblem(node, node.default);
    if (problem) throw new Error(`${where}: ${problem}; a default is filled in unchecked, so it must meet its own schema`);
  }
  if (isPlainObject(node.properties)) for (const [name, prop] of Object.entries(node.properties)) inputBounds(prop, `${where}.${name}`);
  if (isPlainObject(node.items)) inputBounds(node.items, `${where}[]`);
  if (isPlainObject(node.additionalProperties)) inputBounds(node.additionalProperties, `${where}.*`);
  for (const k of ['oneOf', 'anyOf', 'allOf'] as const) {
    const alternatives = node[k];
    if (Array.isArray(alternatives)) alternatives.forEach((alt, i) => inputBounds(alt, `${where}.${k}[${i}]`));
  }
}

export function modelFromOperation(op: SpecOperation, adapters: Readonly<Record<string, AdapterDefinition>>, vocabulary: CatalogVocabulary): ModelInfo {
  const raw = op['x-model'];
  if (typeof raw !== 'object' || raw === null) throw new Error('x-model must be an object');
  const x = raw as Record<string, unknown>;
  const unknownKey = Object.keys(x).find((k) => !MODEL_FIELDS.includes(k) && !PROVIDER_FIELDS.includes(k));
  if (unknownKey !== undefined) throw new Error(`x-model.${unknownKey}: unknown key (known: ${[...MODEL_FIELDS, ...PROVIDER_FIELDS].join(', ')})`);
  const operationId = op.operationId ?? '';
  if (op.method !== 'post') throw new Error('model endpoints are POST operations');
  if (!SLUG.test(operationId) || op.path !== `/api/v1/${operationId}`) {
    throw new Error('a model endpoint lives at /api/v1/<operationId> and its operationId is a <model>-<tier>-<task> slug');
  }
  // Every submit counts against the key's and the account's generation limits (handlers/policies.ts).
  if ((op as unknown as Record<string, unknown>)['x-rate-limit'] !== 'generations') throw new Error('a model endpoint declares x-rate-limit: generations (the per-key and per-account generation limits)');
  if (typeof x.family !== 'string' || x.family === '') throw new Error('x-model.family must be a non-empty string');
  const schema = jsonBodySchema(op);
  if (!schema) throw new Error('a model endpoint needs an application/json request body schema');
  inputBounds(schema, 'input');
  const providers = providerList(x, schema, adapters);
  const category = oneOf(x.category, vocabulary.categories, 'category');
  return {
    operationId,
    path: op.path,
    category,
    tier: oneOf(x.tier, vocabulary.tiers, 'tier'),
    family: x.family,
    output: oneOf(x.output, vocabulary.outputs, 'output'),
    ...providers[0]!,
    providers,
    price: parsePriceRule(x.price, schema, 'x-model.price', category === 'llm' ? 'llm-price' : 'price'),
  };
}

/** One provider: an adapter the registry knows, and for an upstream adapter its provider name and model. */
function providerFrom(x: Record<string, unknown>, schema: unknown, adapters: Readonly<Record<string, AdapterDefinition>>, where: string): ProviderInfo {
  const adapterName = x.adapter;
  if (typeof adapterName !== 'string' || !Object.hasOwn(adapters, adapterName)) {
    throw new Error(`${where}.adapter ${JSON.stringify(adapterName)} is not a known adapter (known: ${Object.keys(adapters).join(', ')})`);
  }
  const adapter = adapters[adapterName]!;
  const upstream = x.upstream;
  const upstreamModel = x.upstream_model;
  if (adapter.kind === 'upstream') {
    if (typeof upstream !== 'string' || !/^[a-z][a-z0-9_]*$/.test(upstream)) throw new Error(`${where}.upstream must name a provider (lowercase letters, digits, _)`);
    if (typeof upstreamModel !== 'string' || upstreamModel === '') throw new Error(`${where}.upstream_model is required for upstream adapters`);
  }
  const mapping = providerMapping(x, schema, adapter.kind, where);
  const cost = x.cost === undefined ? undefined : parsePriceRule(x.cost, schema, `${where}.cost`, 'cost');
  return {
    adapter: adapterName,
    adapterKind: adapter.kind,
    ...(typeof upstream === 'string' ? { upstream } : {}),
    ...(typeof upstreamModel === 'string' ? { upstreamModel } : {}),
    ...(isPlainObject(x.input_map) ? { inputMap: x.input_map } : {}),
    ...(isPlainObject(x.fixed_input) ? { fixedInput: x.fixed_input } : {}),
    ...(mapping ? { mapping } : {}),
    ...(cost ? { cost } : {}),
  };
}

/**
 * x-model.providers (failover order), or the single-provider form as a list of one. A list names
 * upstream providers only, each once (a prediction's job is found again by its provider's name),
 * and the provider fields then live in its entries, not beside it.
 */
function providerList(x: Record<string, unknown>, schema: unknown, adapters: Readonly<Record<string, AdapterDefinition>>): ProviderInfo[] {
  if (x.providers === undefined) return [providerFrom(x, schema, adapters, 'x-model')];
  const beside = PROVIDER_FIELDS.filter((f) => x[f] !== undefined);
  if (beside.length) throw new Error(`x-model.providers lists the providers: ${beside.map((f) => `x-model.${f}`).join(', ')} belong in its entries`);
  if (!Array.isArray(x.providers) || x.providers.length === 0) throw new Error('x-model.providers must be a non-empty list of providers');
  const providers = x.providers.map((entry: unknown, i) => {
    const where = `x-model.providers[${i}]`;
    if (!isPlainObject(entry)) throw new Error(`${where} must be an object (${PROVIDER_FIELDS.join(', ')})`);
    const unknown = Object.keys(entry).filter((k) => !PROVIDER_FIELDS.includes(k));
    if (unknown.length) throw new Error(`${where}: unknown field ${unknown.join(', ')} (known: ${PROVIDER_FIELDS.join(', ')})`);
    const provider = providerFrom(entry, schema, adapters, where);
    if (provider.adapterKind !== 'upstream') throw new Error(`${where}: failover lists upstream providers only (${provider.adapter} is a local adapter)`);
    return provider;
  });
  const names = providers.map((p) => p.upstream);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) throw new Error(`x-model.providers names provider "${twice}" twice`);
  return providers;
}

export interface CatalogOptions {
  vocabulary: CatalogVocabulary;
  /**
   * The document as written: whether an operation declares `security` is read there, because
   * openapi-backend's operation list fills a missing one with [] (public).
   */
  document: { paths: Record<string, Record<string, unknown>>; security?: unknown };
  /** operationId -> the file that declares it (spec/load.ts): each problem names its file */
  sources?: ReadonlyMap<string, string>;
  /**
   * Throws when a model's input schema is not valid JSON Schema (app.ts: the request validator's
   * Ajv). Validators compile at a model's first request, which would otherwise fail with a 500
   * instead of the catalog refusing to load.
   */
  checkInputSchema?: (schema: unknown) => void;
}

/** One error of a JSON Schema validator checking a schema against its meta-schema (Ajv's shape). */
export interface SchemaError {
  instancePath: string;
  keyword: string;
  message?: string;
  params?: Record<string, unknown>;
}

const JSON_SCHEMA_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object', 'null'];
/** Keywords whose errors only say that the alternatives under them failed. */
const WRAPPERS = ['anyOf', 'oneOf', 'allOf', 'if', 'not'];

/** `/properties/opts/properties/tag/type` as the catalog names fields elsewhere: `input.opts.tag.type`. */
function fieldOf(pointer: string): string {
  const parts = pointer.split('/').slice(1).map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  let out = 'input';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part === 'properties' && i + 1 < parts.length) out += `.${parts[++i]!}`;
    else if (part === 'items' && i + 1 < parts.length) out += '[]';
    else if (part === 'additionalProperties' && i + 1 < parts.length) out += '.*';
    else if (/^\d+$/.test(part)) out += `[${part}]`;
    else out += `.${part}`;
  }
  return out;
}

function valueAt(schema: unknown, pointer: string): unknown {
  let node = schema;
  for (const raw of pointer.split('/').slice(1)) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, token)) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

/**
 * What is wrong with an input schema that is not JSON Schema, one entry per field in the words
 * of the rest of the catalog's messages (`input.prompt.type: "strng" is not a JSON Schema type
 * ...`), instead of the validator's meta-schema errors (its pointers, and every alternative of a
 * keyword that may be a name or a list).
 */
export function describeSchemaErrors(schema: unknown, errors: readonly SchemaError[]): string {
  const byPath = new Map<string, SchemaError[]>();
  for (const e of errors) byPath.set(e.instancePath, [...(byPath.get(e.instancePath) ?? []), e]);
  const lines: string[] = [];
  const pointers = [...byPath.keys()];
  const shownTypes: string[] = [];
  for (const [pointer, errs] of byPath) {
    if (shownTypes.some((t) => pointer.startsWith(`${t}/`))) continue;
    const value = valueAt(schema, pointer);
    const segments = pointer.split('/');
    // `type` the keyword, not a field named `type` (`properties.type`)
    const isKeyword = !['properties', 'patternProperties', 'definitions', '$defs'].includes(segments.at(-2) ?? '');
    if (segments.at(-1) === 'type' && isKeyword) {
      shownTypes.push(pointer);
      const names = Array.isArray(value) ? value : [value];
      const bad = names.filter((n) => typeof n !== 'string' || !JSON_SCHEMA_TYPES.includes(n));
      const shown = bad.length ? bad.map((n) => JSON.stringify(n)).join(', ') : JSON.stringify(value);
      lines.push(`${fieldOf(pointer)}: ${shown} ${bad.length > 1 ? 'are not JSON Schema types' : 'is not a JSON Schema type'} (known: ${JSON_SCHEMA_TYPES.join(', ')})`);
      continue;
    }
    // alternatives (`items`: a schema or a list of schemas) of which one got further down: the
    // deeper error is the one that says what is wrong
    if (errs.some((e) => WRAPPERS.includes(e.keyword)) && pointers.some((q) => q.startsWith(`${pointer}/`))) continue;
    const own = errs.filter((e) => !WRAPPERS.includes(e.keyword));
    const chosen = own[0] ?? errs[0]!;
    let message = chosen.message ?? `breaks the ${chosen.keyword} rule`;
    if (chosen.keyword === 'enum' && Array.isArray(chosen.params?.allowedValues)) {
      message = `must be one of ${chosen.params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    }
    lines.push(`${fieldOf(pointer)}: ${message}${value === undefined ? '' : ` (got ${JSON.stringify(value)})`}`);
  }
  return lines.join('; ');
}

/** operationId -> its `security` as written (undefined when absent). */
function declaredSecurity(document: CatalogOptions['document']): Map<string, unknown> {
  const declared = new Map<string, unknown>();
  for (const item of Object.values(document.paths)) {
    for (const op of Object.values(item)) {
      if (typeof op !== 'object' || op === null) continue;
      const { operationId, security } = op as { operationId?: unknown; security?: unknown };
      if (typeof operationId === 'string') declared.set(operationId, security);
    }
  }
  return declared;
}

/**
 * Builds the catalog and checks that every operation resolves: a model endpoint to an adapter
 * and a price rule, any other operation to a handler, and every operation to a security
 * requirement (its own, or a non-empty root one; `security: []` marks a public operation, which
 * must be said, never implied by omission). Throws one SpecError listing every problem, each
 * naming its operation.
 */
export function buildCatalog(
  operations: readonly SpecOperation[],
  adapters: Readonly<Record<string, AdapterDefinition>>,
  hasHandler: (operationId: string) => boolean,
  { vocabulary, document, sources, checkInputSchema }: CatalogOptions,
): Map<string, ModelInfo> {
  const inherited = Array.isArray(document.security) && document.security.length > 0;
  const security = declaredSecurity(document);
  const models = new Map<string, ModelInfo>();
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const op of operations) {
    const id = op.operationId;
    const where = `${op.method.toUpperCase()} ${op.path}`;
    const source = id ? sources?.get(id) : undefined;
    const file = source ? `${displayPath(source)}: ` : '';
    if (!id) {
      problems.push(`${file}${where}: missing operationId`);
      continue;
    }
    if (seen.has(id)) problems.push(`${file}${id} (${where}): duplicate operationId`);
    seen.add(id);
    const declared = security.get(id);
    if (declared === undefined ? !inherited : !Array.isArray(declared)) {
      problems.push(`${file}${id} (${where}): no security requirement; list the credentials that may call it, or \`security: []\` if it is public`);
    }
    if (op['x-model'] !== undefined) {
      try {
        const model = modelFromOperation(op, adapters, vocabulary);
        try {
          checkInputSchema?.(jsonBodySchema(op));
        } catch (err) {
          throw new Error(`the input schema is not valid JSON Schema: ${(err as Error).message}`);
        }
        models.set(id, model);
      } catch (err) {
        problems.push(`${file}${id} (${where}): ${(err as Error).message}`);
      }
    } else if (op['x-handled-by'] !== undefined) {
      // Served by a plugin instead of a generated route (issueToken: oidc-provider).
      if (!(HANDLED_BY as readonly unknown[]).includes(op['x-handled-by'])) {
        problems.push(`${file}${id} (${where}): x-handled-by must be one of ${HANDLED_BY.join(', ')}`);
      }
    } else if (!hasHandler(id)) {
      problems.push(`${file}${id} (${where}): no handler for this operationId and no x-model`);
    }
  }
  if (problems.length) {
    const shown = problems.slice(0, 20).join('\n  ');
    throw new SpecError(`spec does not resolve (${problems.length} problem${problems.length > 1 ? 's' : ''}):\n  ${shown}`);
  }
  return models;
}
