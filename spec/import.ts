// `mediagate models import` (docs/operating/model-files.md, "Importing a provider's model"): a
// model file drafted from a provider's published machine-readable schema, saved as a file: a fal
// endpoint's OpenAPI document, or a Replicate model's `openapi_schema` (or the model or version
// JSON that holds it). Pure: the parsed document in, the model file out.
//
// The input schema keeps the provider's fields, types, enums, ranges and defaults, with the
// interface's conventions where they differ: an integer `duration` in seconds (fal sends "5" or
// "8s": the mapping converts), `aspect_ratio` for fal's `image_size` presets (a value map),
// `image_url` and `num_images` for the provider's own names (a rename). What the provider accepts
// of those goes to `limits`. Fields the gateway cannot offer as they are (lists of objects,
// fal's `sync_mode`) are left out and named in a comment. The price is left for the operator:
// `base: null`, which start-up refuses until it is filled in.
import yaml from 'js-yaml';

export type ImportProvider = 'fal' | 'replicate';

export interface ImportOptions {
  provider: ImportProvider;
  /** the provider's model id: fal-ai/veo3.1, stability-ai/stable-diffusion */
  model: string;
  /** our model's slug: <model>-<tier>-<task>, e.g. clip-v1-fast-text-to-video */
  slug: string;
  category?: string;
  tier?: string;
  /** the file read, named in the header comment */
  source?: string;
  /** the categories and tiers of the gateway's catalog (x-catalog) */
  vocabulary: { categories: readonly string[]; tiers: readonly string[] };
  /** today, for the header comment (YYYY-MM-DD) */
  date: string;
}

export interface Imported {
  /** the model file, as YAML with comments */
  text: string;
  /** the model's declaration (what the YAML holds under models.<slug>) */
  model: Record<string, unknown>;
  /** fields of the provider left out, and why */
  leftOut: string[];
}

/** A document that cannot be imported, with the reason. */
export class ImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportError';
  }
}

type Schema = Record<string, unknown>;

const SLUG = /^[a-z0-9][a-z0-9.]*(-[a-z0-9.]+)+$/;
/** fal's image_size presets, as aspect ratios (square_hd before square: one preset per ratio) */
const FAL_PRESETS: ReadonlyArray<[string, string]> = [
  ['square_hd', '1:1'], ['square', '1:1'], ['landscape_4_3', '4:3'], ['landscape_16_9', '16:9'], ['portrait_4_3', '3:4'], ['portrait_16_9', '9:16'],
];
/** the provider's name -> the interface's, where they only differ by name */
const RENAMES: Readonly<Record<string, string>> = { start_image_url: 'image_url', num_outputs: 'num_images' };
/** fields that would change how the provider answers (a data URI instead of a file URL) */
const NEVER = new Set(['sync_mode']);
const URI_MAX = 2048;
const SEED_MAX = 4294967295;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Follows local $refs, one-element allOf, and drops a `null` alternative (fal's optional fields). */
function resolve(doc: Schema, schema: unknown, depth = 0): Schema {
  if (!isRecord(schema) || depth > 20) return {};
  if (typeof schema.$ref === 'string') {
    if (!schema.$ref.startsWith('#/')) throw new ImportError(`the document refers outside itself (${schema.$ref}); save the whole document`);
    let at: unknown = doc;
    for (const part of schema.$ref.slice(2).split('/')) at = isRecord(at) ? at[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    if (at === undefined) throw new ImportError(`the document has no ${schema.$ref}`);
    const { $ref: _ref, ...rest } = schema;
    return resolve(doc, { ...(at as Schema), ...rest }, depth + 1);
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1) {
    const { allOf, ...rest } = schema;
    return { ...resolve(doc, allOf[0], depth + 1), ...rest };
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = schema[key];
    if (!Array.isArray(list)) continue;
    const kept = list.filter((s) => !(isRecord(s) && s.type === 'null'));
    const { [key]: _alt, ...rest } = schema;
    if (kept.length === 1) return { ...resolve(doc, kept[0], depth + 1), ...rest };
    return { ...rest, [key]: kept.map((s) => resolve(doc, s, depth + 1)) };
  }
  return schema;
}

interface ProviderSchemas { input: Schema; output: Schema; doc: Schema }

function falSchemas(doc: Schema, model: string): ProviderSchemas {
  const paths = isRecord(doc.paths) ? doc.paths : {};
  const item = paths[`/${model}`];
  const post = isRecord(item) ? item.post : undefined;
  if (!isRecord(post)) {
    const posts = Object.entries(paths).filter(([p, v]) => isRecord(v) && isRecord(v.post) && !p.includes('/requests/')).map(([p]) => p.slice(1));
    throw new ImportError(`the document has no POST /${model}: it is not fal's OpenAPI document of ${model}${posts.length ? ` (it describes ${posts.join(', ')})` : ''}`);
  }
  const body = (post.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)?.content?.['application/json']?.schema;
  const result = paths[`/${model}/requests/{request_id}`];
  const got = isRecord(result) && isRecord(result.get) ? (result.get.responses as Record<string, { content?: Record<string, { schema?: unknown }> }> | undefined)?.['200']?.content?.['application/json']?.schema : undefined;
  return { input: resolve(doc, body), output: resolve(doc, got), doc };
}

function replicateSchemas(raw: Schema): ProviderSchemas {
  const latest = isRecord(raw.latest_version) ? raw.latest_version : undefined;
  const version = isRecord(raw.version) ? raw.version : undefined;
  const candidate = latest?.openapi_schema ?? version?.openapi_schema ?? raw.openapi_schema ?? raw;
  const doc = isRecord(candidate) ? candidate : {};
  const schemas = isRecord(doc.components) && isRecord(doc.components.schemas) ? doc.components.schemas : {};
  if (!isRecord(schemas.Input)) throw new ImportError('no openapi_schema with components.schemas.Input: save the model (GET /v1/models/{owner}/{name}), one of its versions, or its openapi_schema');
  return { input: resolve(doc, schemas.Input), output: resolve(doc, schemas.Output), doc };
}

/** What the provider's answer holds, by its fields (fal) or its type (Replicate: the category says). */
function outputOf(provider: ImportProvider, output: Schema): string | undefined {
  if (provider !== 'fal') return undefined;
  const props = isRecord(output.properties) ? Object.keys(output.properties) : [];
  if (props.includes('video')) return 'video';
  if (props.includes('images') || props.includes('image')) return 'image';
  if (props.some((p) => p.startsWith('audio'))) return 'audio';
  if (props.some((p) => p.startsWith('model_'))) return 'model3d';
  return undefined;
}

const OUTPUT_OF_CATEGORY: Readonly<Record<string, string>> = {
  'text-to-image': 'image', 'image-to-image': 'image', 'text-to-video': 'video', 'image-to-video': 'video', 'video-edit': 'video', lipsync: 'video', audio: 'audio', '3d': 'model3d', llm: 'text',
};

function categoryOf(output: string | undefined, inputs: readonly string[]): string | undefined {
  const fromImage = inputs.some((n) => /(^|_)image_url$|^image$/.test(n));
  if (output === 'video') return fromImage ? 'image-to-video' : 'text-to-video';
  if (output === 'image') return fromImage ? 'image-to-image' : 'text-to-image';
  if (output === 'audio') return 'audio';
  if (output === 'model3d') return '3d';
  return undefined;
}

function trimmed(text: unknown): string | undefined {
  if (typeof text !== 'string' || text.trim() === '') return undefined;
  const one = text.replace(/\s+/g, ' ').replace(/\s*Default value:.*$/i, '').trim();
  return one.length > 300 ? `${one.slice(0, 297)}...` : one;
}

const NUMERIC_STRING = /^([0-9]+)(s?)$/;

interface Field {
  name: string;
  schema: Schema;
  transform?: unknown;
  limit?: Schema;
  example?: unknown;
}

/** One provider field as ours, or why it is left out. */
function fieldOf(name: string, p: Schema, prompt: boolean): Field | string {
  const described = trimmed(p.description) ?? trimmed(p.title);
  const withText = (s: Schema): Schema => (described ? { ...s, description: described } : s);
  const example = Array.isArray(p.examples) ? p.examples[0] : undefined;
  const ours = RENAMES[name] ?? name;
  const renamed = ours !== name ? name : undefined;
  // fal's image_size: a preset or {width, height}; offered as our aspect ratio
  if (name === 'image_size' && Array.isArray(p.anyOf)) {
    const presets = (p.anyOf as Schema[]).flatMap((s) => (Array.isArray(s.enum) ? s.enum : [])).filter((v): v is string => typeof v === 'string');
    const values: Record<string, string> = {};
    for (const [preset, ratio] of FAL_PRESETS) if (presets.includes(preset) && values[ratio] === undefined) values[ratio] = preset;
    if (Object.keys(values).length === 0) return 'image_size: no preset the gateway knows';
    const def = FAL_PRESETS.find(([preset]) => preset === p.default)?.[1];
    return {
      name: 'aspect_ratio',
      schema: { type: 'string', enum: Object.keys(values), ...(def ? { default: def } : {}), description: 'Image ratio written as w:h.' },
      transform: { to: 'image_size', values },
    };
  }
  if (Array.isArray(p.anyOf) || Array.isArray(p.oneOf)) return `${name}: one of several types`;
  const type = p.type;
  if (Array.isArray(p.enum) && p.enum.length > 0) {
    const values = p.enum as unknown[];
    const matches = values.map((v) => (typeof v === 'string' ? NUMERIC_STRING.exec(v) : null));
    // "5"/"10" or "4s"/"8s": an integer number of seconds in the interface, a string at the provider
    if (/duration|seconds/.test(name) && matches.every((m) => m !== null) && new Set(matches.map((m) => m![2])).size === 1) {
      const nums = matches.map((m) => Number(m![1]));
      const suffix = matches[0]![2]!;
      const def = typeof p.default === 'string' ? NUMERIC_STRING.exec(p.default) : null;
      return {
        name: ours,
        schema: withText({ type: 'integer', minimum: Math.min(...nums), maximum: Math.max(...nums), ...(def ? { default: Number(def[1]) } : {}) }),
        transform: { ...(renamed ? { to: renamed } : {}), type: 'string', ...(suffix ? { suffix } : {}) },
        limit: { enum: nums },
        ...(typeof example === 'string' && NUMERIC_STRING.test(example) ? { example: Number(NUMERIC_STRING.exec(example)![1]) } : {}),
      };
    }
    if (!values.every((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')) return `${name}: an enum of structured values`;
    const enumType = typeof values[0] === 'number' ? (values.every((v) => Number.isInteger(v)) ? 'integer' : 'number') : typeof values[0];
    return { name: ours, schema: withText({ type: enumType, enum: values, ...(p.default !== undefined ? { default: p.default } : {}) }), ...(renamed ? { transform: renamed } : {}), ...(example !== undefined ? { example } : {}) };
  }
  const copy = (keys: readonly string[]) => Object.fromEntries(keys.filter((k) => p[k] !== undefined).map((k) => [k, p[k]]));
  switch (type) {
    case 'boolean':
      return { name: ours, schema: withText({ type: 'boolean', ...copy(['default']) }), ...(renamed ? { transform: renamed } : {}) };
    case 'integer':
    case 'number': {
      const bounds: Schema = copy(['minimum', 'maximum', 'default']);
      // fal writes exclusiveMinimum: 0 for "positive"
      if (typeof p.exclusiveMinimum === 'number' && bounds.minimum === undefined) bounds.minimum = type === 'integer' ? p.exclusiveMinimum + 1 : p.exclusiveMinimum;
      if (name === 'seed') Object.assign(bounds, { minimum: bounds.minimum ?? 0, maximum: bounds.maximum ?? SEED_MAX });
      return { name: ours, schema: withText({ type, ...bounds }), ...(renamed ? { transform: renamed } : {}), ...(example !== undefined ? { example } : {}) };
    }
    case 'string': {
      if (p.format === 'uri' || /(^|_)url$|^image$|^audio$|^video$/.test(name)) {
        return { name: ours, schema: withText({ type: 'string', format: 'uri', maxLength: URI_MAX }), ...(renamed ? { transform: renamed } : {}), ...(typeof example === 'string' && /^https?:\/\//.test(example) ? { example } : {}) };
      }
      const max = typeof p.maxLength === 'number' ? p.maxLength : undefined;
      // our bound is the interface's; a shorter one of the provider is its limit
      const ourMax = prompt ? 4000 : Math.max(max ?? 0, 2000);
      return {
        name: ours,
        schema: withText({ type: 'string', ...(prompt ? { minLength: 1 } : copy(['minLength'])), maxLength: ourMax, ...copy(['default']) }),
        ...(renamed ? { transform: renamed } : {}),
        ...(max !== undefined && max < ourMax ? { limit: { maximum: max } } : {}),
        ...(typeof example === 'string' ? { example } : {}),
      };
    }
    case 'array': {
      const items = isRecord(p.items) ? p.items : {};
      if (items.type !== 'string') return `${name}: a list of ${String(items.type ?? 'structured values')}`;
      const uri = items.format === 'uri' || /url/.test(name);
      return {
        name: ours,
        schema: withText({ type: 'array', ...copy(['minItems']), maxItems: typeof p.maxItems === 'number' ? p.maxItems : 8, items: uri ? { type: 'string', format: 'uri', maxLength: URI_MAX } : { type: 'string', maxLength: 2000 } }),
        ...(renamed ? { transform: renamed } : {}),
      };
    }
    default:
      return `${name}: ${type === 'object' ? 'an object' : `type ${String(type ?? 'unknown')}`}`;
  }
}

/** An example input that meets the schema: the provider's examples and defaults, else a short text or an example URL. */
function exampleOf(fields: readonly Field[], required: ReadonlySet<string>): Record<string, unknown> {
  const example: Record<string, unknown> = {};
  for (const f of fields) {
    const s = f.schema;
    const fits = (v: unknown) => typeof v !== 'string' || (typeof s.maxLength !== 'number' || v.length <= s.maxLength);
    if (f.example !== undefined && fits(f.example) && (!Array.isArray(s.enum) || s.enum.includes(f.example))) example[f.name] = f.example;
    else if (required.has(f.name) || f.name === 'prompt') {
      if (s.default !== undefined) example[f.name] = s.default;
      else if (s.format === 'uri') example[f.name] = 'https://example.com/inputs/input.png';
      else if (Array.isArray(s.enum)) example[f.name] = s.enum[0];
      else if (s.type === 'string') example[f.name] = 'A lighthouse on a cliff at dusk, waves below';
      else if (s.type === 'array') example[f.name] = ['https://example.com/inputs/input.png'];
      else if (typeof s.minimum === 'number') example[f.name] = s.minimum;
    }
  }
  return example;
}

function title(slug: string): string {
  return slug.split('-').map((w) => (w.length ? w[0]!.toUpperCase() + w.slice(1) : w)).join(' ');
}

export function importModel(raw: unknown, opts: ImportOptions): Imported {
  if (!isRecord(raw)) throw new ImportError('the file is not a JSON or YAML object');
  if (!SLUG.test(opts.slug)) throw new ImportError(`--slug ${opts.slug}: a slug is <model>-<tier>-<task> in lowercase letters, digits and dashes, e.g. clip-v1-fast-text-to-video`);
  // the slug names its tier (clip-v1-best-text-to-video): that one, unless --tier says otherwise
  const tier = opts.tier ?? opts.slug.split('-').find((w) => opts.vocabulary.tiers.includes(w)) ?? 'balanced';
  if (!opts.vocabulary.tiers.includes(tier)) throw new ImportError(`--tier ${tier}: one of ${opts.vocabulary.tiers.join(', ')}`);
  const { input, output: answer } = opts.provider === 'fal' ? falSchemas(raw, opts.model) : replicateSchemas(raw);
  const props = isRecord(input.properties) ? input.properties : {};
  if (Object.keys(props).length === 0) throw new ImportError('the provider\'s input schema has no properties');
  const requiredByProvider = new Set(Array.isArray(input.required) ? input.required.filter((r): r is string => typeof r === 'string') : []);
  const leftOut: string[] = [];
  const fields: Field[] = [];
  const required = new Set<string>();
  // in the provider's order (Replicate's x-order), as its form shows them
  const order = (p: unknown) => (isRecord(p) && typeof p['x-order'] === 'number' ? p['x-order'] : Number.MAX_SAFE_INTEGER);
  const entries = Object.entries(props).map((e, i) => [e, i] as const).sort((a, b) => order(a[0][1]) - order(b[0][1]) || a[1] - b[1]).map(([e]) => e);
  for (const [name, prop] of entries) {
    if (NEVER.has(name)) {
      leftOut.push(`${name}: the gateway stores the provider's files itself`);
      continue;
    }
    const f = fieldOf(name, resolve(raw, prop), /prompt/.test(name) && !/negative/.test(name));
    if (typeof f === 'string') {
      leftOut.push(`${f} (map it by hand if the model needs it)`);
      if (requiredByProvider.has(name)) throw new ImportError(`the provider requires ${name}, which the gateway cannot offer as it is (${f})`);
      continue;
    }
    fields.push(f);
    if (requiredByProvider.has(name)) required.add(f.name);
  }
  const output = outputOf(opts.provider, answer);
  const category = opts.category ?? categoryOf(output, fields.map((f) => f.name));
  if (!category) throw new ImportError(`--category is required: ${opts.provider === 'replicate' ? 'a Replicate schema does not say what its output URLs hold' : 'the answer does not say what it holds'} (one of ${opts.vocabulary.categories.join(', ')})`);
  if (!opts.vocabulary.categories.includes(category)) throw new ImportError(`--category ${category}: one of ${opts.vocabulary.categories.join(', ')}`);
  const kind = output ?? OUTPUT_OF_CATEGORY[category];
  if (!kind) throw new ImportError(`--category ${category}: the output cannot be told from it; pick a category of media`);

  const inputMap: Record<string, unknown> = {};
  const limits: Record<string, unknown> = {};
  for (const f of fields) {
    const from = f.transform;
    if (from !== undefined) {
      // keyed by our field; a bare rename is the provider's name
      inputMap[f.name] = from;
    }
    if (f.limit) limits[f.name] = f.limit;
  }
  const inputSchema: Schema = {
    examples: [exampleOf(fields, required)],
    type: 'object',
    additionalProperties: false,
    ...(required.size ? { required: [...required] } : {}),
    properties: Object.fromEntries(fields.map((f) => [f.name, f.schema])),
  };
  const family = opts.slug.split('-').slice(0, 2).join('-');
  const provider: Record<string, unknown> = {
    adapter: opts.provider,
    upstream: opts.provider,
    upstream_model: opts.model,
    ...(Object.keys(inputMap).length ? { input_map: inputMap } : {}),
    ...(Object.keys(limits).length ? { limits } : {}),
  };
  const names = fields.map((f) => `${f.name}${required.has(f.name) ? ' (required)' : ''}`).join(', ');
  const model: Record<string, unknown> = {
    summary: `${title(opts.slug)} (tier ${tier})`,
    description: `Action: Runs ${opts.provider === 'fal' ? 'fal' : 'Replicate'}'s ${opts.model}. Input: ${names}. Output: ${kind === 'image' ? 'image URLs' : `one ${kind === 'model3d' ? '3D model' : kind} URL`}.`,
    'x-model': {
      category,
      tier,
      family,
      output: kind,
      providers: [provider],
      price: { base: null },
    },
    input: inputSchema,
  };
  const body = yaml.dump({ models: { [opts.slug]: model } }, { lineWidth: 120, noRefs: true, quotingType: '\'' });
  const header = [
    `# ${opts.slug}: drafted by \`mediagate models import\` on ${opts.date} from ${opts.provider === 'fal' ? 'fal' : 'Replicate'}'s ${opts.model}${opts.source ? ` (${opts.source})` : ''}.`,
    '# Review the input schema and the description, then fill in the price: start-up refuses this model until',
    '# x-model.price has a number (credits, 1000 = 1 USD; rules in docs/operating/model-files.md, "Prices").',
    '# Add the provider\'s own price as the provider\'s `cost` to see the margin.',
    ...(leftOut.length ? ['# Left out of the input (the provider has them; the gateway does not offer them as they are):', ...leftOut.map((l) => `#   ${l}`)] : []),
  ];
  const text = `${header.join('\n')}\n${body.replace(/^(\s+)price:\n\s+base: null\n/m, '$1# fill in: the price of one request (see the comment at the top)\n$1price:\n$1  base: null\n')}`;
  return { text, model, leftOut };
}
