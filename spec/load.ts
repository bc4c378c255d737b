// Loads the versioned spec: spec/v1/openapi.yaml plus every model file (spec/v1/models/*.yaml,
// then each MODELS_DIR directory's *.yaml) merged into its paths and components.schemas. Model
// files are data; adding a model is a YAML change (docs/operating/model-files.md).
//
// A model file holds what is specific to its models: `models` (slug -> summary, description,
// x-model and the input schema) and `components.schemas`. What every model endpoint shares (the
// root document's `x-model-endpoint`: parameters, security, responses, rate limit, team
// permission) is applied here, to every operation that carries `x-model`, so that interface 6.6
// (the `webhook` parameter works on any generation endpoint) holds for a model an operator adds.
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';

export type SpecDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
};

export class SpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SpecError';
  }
}

export interface LoadOptions {
  /** MODELS_DIR: operator directories whose model files add models or replace shipped ones by slug */
  modelsDirs?: readonly string[];
}

/** The merged document and where each of its operations was written. */
export interface LoadedFiles {
  document: SpecDocument;
  /** operationId -> the file that declares it (for messages that name the file) */
  sources: ReadonlyMap<string, string>;
  /** the root openapi.yaml as parsed, before any model file was merged (a reload compares it) */
  root: Readonly<Record<string, unknown>>;
}

/** A file as messages name it: relative to the working directory when it is inside it. */
export function displayPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}

function readYaml(file: string): Record<string, unknown> {
  let parsed: unknown;
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
    // js-yaml: about ten times faster than `yaml` on large catalogs (5,000 endpoints: 0.6 s vs 5.5 s).
    // CORE_SCHEMA keeps dates and the like as strings, as JSON Schema expects.
    parsed = yaml.load(text, { filename: displayPath(file), schema: yaml.CORE_SCHEMA });
  } catch (err) {
    // js-yaml's reason and its 0-based mark, in words (its own message repeats the file name)
    const { reason, mark } = err as { reason?: unknown; mark?: { line?: unknown; column?: unknown } };
    if (typeof reason === 'string' && typeof mark?.line === 'number' && typeof mark.column === 'number') {
      // a key written twice in one mapping (a model pasted twice): which one
      const key = reason === 'duplicated mapping key' ? /^\s*["']?([^"':#]+?)["']?\s*:/.exec(text.split('\n')[mark.line]?.slice(mark.column) ?? '')?.[1] : undefined;
      throw new SpecError(`${displayPath(file)}: line ${mark.line + 1}, column ${mark.column + 1}: ${reason}${key ? ` "${key}" (it is written twice)` : ''}`);
    }
    throw new SpecError(`${displayPath(file)}: ${(err as Error).message.split('\n')[0]}`);
  }
  if (parsed === undefined || parsed === null) throw new SpecError(`${displayPath(file)}: the file is empty; a model file holds \`models\` (and \`components.schemas\`)`);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new SpecError(`${displayPath(file)}: not a YAML mapping`);
  return parsed as Record<string, unknown>;
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function asMap(v: unknown, where: string): Record<string, unknown> {
  if (v === undefined) return {};
  if (!isMap(v)) throw new SpecError(`${where} must be a mapping`);
  return v;
}

/** Every `$ref` value in a parsed YAML tree. */
function refsIn(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) {
    for (const item of node) refsIn(item, out);
  } else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') out.push(value);
      else refsIn(value, out);
    }
  }
  return out;
}

/** Resolves a local JSON pointer (`#/components/schemas/X`) in the merged document. */
function resolve(document: unknown, ref: string): { found: boolean; value?: unknown } {
  if (!ref.startsWith('#/')) return { found: false };
  let node: unknown = document;
  for (const raw of ref.slice(2).split('/')) {
    const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, token)) return { found: false };
    node = (node as Record<string, unknown>)[token];
  }
  return { found: true, value: node };
}

/**
 * Every `$ref` of every file must point into the merged document: a dangling one stops start-up
 * naming the reference and the file that holds it (instead of a resolver error naming neither).
 */
function checkRefs(document: SpecDocument, refsByFile: ReadonlyMap<string, string[]>): void {
  const problems: string[] = [];
  for (const [file, refs] of refsByFile) {
    for (const ref of new Set(refs)) {
      if (!ref.startsWith('#/')) problems.push(`${displayPath(file)}: $ref "${ref}" is not a local reference (#/...); model files are merged into one document`);
      else if (!resolve(document, ref).found) problems.push(`${displayPath(file)}: $ref "${ref}" does not resolve: nothing is defined there`);
    }
  }
  if (problems.length) throw new SpecError(`spec has dangling references (${problems.length}):\n  ${problems.slice(0, 20).join('\n  ')}`);
}

/** The parts every model endpoint shares (the root's `x-model-endpoint`), and the keys a model may override. */
export const SHARED_PARTS = ['parameters', 'security', 'responses', 'x-rate-limit', 'x-team-permission', 'x-impersonation'] as const;

/** The keys of a model entry (`models.<slug>` of a model file). */
const MODEL_ENTRY_KEYS = ['summary', 'description', 'x-model', 'input', 'tags', 'deprecated', ...SHARED_PARTS];

const SLUG = /^[a-z0-9][a-z0-9.]*(-[a-z0-9.]+)+$/;

/** The root's `x-model-endpoint`, checked: only the shared parts. */
function sharedParts(root: Record<string, unknown>, file: string): Record<string, unknown> {
  const raw = root['x-model-endpoint'];
  if (raw === undefined) return {};
  if (!isMap(raw)) throw new SpecError(`${displayPath(file)}: x-model-endpoint must be a mapping of the parts every model endpoint shares (${SHARED_PARTS.join(', ')})`);
  for (const key of Object.keys(raw)) {
    if (!(SHARED_PARTS as readonly string[]).includes(key)) throw new SpecError(`${displayPath(file)}: x-model-endpoint.${key}: unknown key (known: ${SHARED_PARTS.join(', ')})`);
  }
  if (raw.parameters !== undefined && !Array.isArray(raw.parameters)) throw new SpecError(`${displayPath(file)}: x-model-endpoint.parameters must be a list`);
  if (raw.responses !== undefined && !isMap(raw.responses)) throw new SpecError(`${displayPath(file)}: x-model-endpoint.responses must be a mapping of status codes`);
  return raw;
}

/** A parameter's identity (`in` and `name`), its `$ref` followed into the root's components. */
function parameterKey(param: unknown, root: Record<string, unknown>): string | undefined {
  let p = param;
  if (isMap(p) && typeof p.$ref === 'string') p = resolve(root, p.$ref).value;
  return isMap(p) && typeof p.name === 'string' && typeof p.in === 'string' ? `${p.in}:${p.in === 'header' ? p.name.toLowerCase() : p.name}` : undefined;
}

/**
 * The shared parts applied to one model operation: a part it declares wins. Parameters and
 * responses merge (the operation's own win by name and location, and by status code; the shared
 * ones it does not name are added), so a model can change one without dropping the others, and
 * can never lose the `webhook` parameter by omission. Security, the rate limit and the team
 * permission are replaced whole when the operation declares them.
 */
function withSharedParts(op: Record<string, unknown>, shared: Record<string, unknown>, root: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...op };
  for (const key of ['security', 'x-rate-limit', 'x-team-permission', 'x-impersonation']) {
    if (out[key] === undefined && shared[key] !== undefined) out[key] = structuredClone(shared[key]);
  }
  if (Array.isArray(shared.parameters)) {
    const own = Array.isArray(op.parameters) ? op.parameters : [];
    const named = new Set(own.map((p) => parameterKey(p, root)).filter((k) => k !== undefined));
    const added = shared.parameters.filter((p) => !named.has(parameterKey(p, root) ?? ''));
    out.parameters = [...structuredClone(added), ...own];
  }
  if (isMap(shared.responses)) out.responses = { ...structuredClone(shared.responses), ...(isMap(op.responses) ? op.responses : {}) };
  return out;
}

/** A compact model entry (`models.<slug>`) as the operation it stands for. */
function operationOf(slug: string, entry: unknown, where: string): Record<string, unknown> {
  if (!isMap(entry)) throw new SpecError(`${where} must be a mapping (summary, description, x-model, input)`);
  for (const key of Object.keys(entry)) {
    if (!MODEL_ENTRY_KEYS.includes(key)) throw new SpecError(`${where}.${key}: unknown key (known: ${MODEL_ENTRY_KEYS.join(', ')})`);
  }
  if (!isMap(entry['x-model'])) throw new SpecError(`${where}.x-model is required: the model's category, tier, family, output, providers and price`);
  if (!isMap(entry.input)) throw new SpecError(`${where}.input is required: the JSON Schema of the request body (inline, or a $ref to components.schemas)`);
  const category = entry['x-model'].category;
  const { input, ...rest } = entry;
  return {
    operationId: slug,
    ...(typeof category === 'string' ? { tags: [category] } : {}),
    ...rest,
    requestBody: { required: true, content: { 'application/json': { schema: input } } },
  };
}

/** One model file's models, as (path, operation, where) triples; checks its keys. */
function modelsOf(part: Record<string, unknown>, file: string): Array<{ slug: string; path: string; op: Record<string, unknown>; where: string }> {
  const shown = displayPath(file);
  for (const key of Object.keys(part)) {
    if (!['models', 'paths', 'components'].includes(key)) throw new SpecError(`${shown}: ${key}: unexpected top-level key (a model file has models, components and, for operations written out in full, paths)`);
  }
  const out: Array<{ slug: string; path: string; op: Record<string, unknown>; where: string }> = [];
  for (const [slug, entry] of Object.entries(asMap(part.models, `${shown}: models`))) {
    const where = `${shown}: models.${slug}`;
    if (!SLUG.test(slug)) throw new SpecError(`${where}: a model slug is <model>-<tier>-<task> in lowercase letters, digits, dots and dashes`);
    out.push({ slug, path: `/api/v1/${slug}`, op: operationOf(slug, entry, where), where });
  }
  return out;
}

/** The operationIds of a path item. */
function operationIdsOf(item: Record<string, unknown>): string[] {
  return Object.values(item).flatMap((op) => (isMap(op) && typeof op.operationId === 'string' ? [op.operationId] : []));
}

/** The *.yaml files of a directory, sorted; a missing directory is an error naming it when `required`. */
function yamlFiles(dir: string, required: boolean): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (err) {
    if (!required && (err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new SpecError(`MODELS_DIR: ${displayPath(dir)} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  return names.filter((f) => /\.ya?ml$/.test(f)).sort().map((f) => path.join(dir, f));
}

/**
 * What a MODELS_DIR holds that is not read, in words for its operator: a folder of model files
 * (only a directory's own files are read, not its folders'), or no model file at all. Neither
 * stops loading (an operator may keep other things there); start-up logs them and `models check`
 * prints them.
 */
export function unreadModelFiles(dirs: readonly string[]): string[] {
  const notes: string[] = [];
  for (const dir of dirs) {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue; // loading names a directory it cannot read
    }
    if (!entries.some((e) => !e.isDirectory() && /\.ya?ml$/.test(e.name))) notes.push(`${displayPath(dir)}: no model file (*.yaml or *.yml) in it`);
    for (const sub of entries.filter((e) => e.isDirectory()).map((e) => e.name).sort()) {
      let inside: string[];
      try {
        inside = fs.readdirSync(path.join(dir, sub)).filter((f) => /\.ya?ml$/.test(f)).sort();
      } catch {
        continue;
      }
      if (inside.length) notes.push(`${displayPath(path.join(dir, sub))}: a folder; the model files in it (${inside.join(', ')}) are not read: only ${displayPath(dir)}'s own *.yaml and *.yml files are`);
    }
  }
  return notes;
}

/**
 * Reads the root document and every model file, and merges them: the shipped spec's `models/`
 * first, then each of `modelsDirs` in order. An operator file may replace a shipped model by its
 * slug; two operator files naming one slug, a slug or schema defined twice, an unknown key or a
 * dangling reference stop loading with one line naming the file and the key.
 */
export function loadSpecFiles(specDir: string, opts: LoadOptions = {}): LoadedFiles {
  const mainFile = path.join(specDir, 'openapi.yaml');
  const root = readYaml(mainFile);
  const doc = structuredClone(root);
  const refsByFile = new Map<string, string[]>([[mainFile, refsIn(doc)]]);
  const paths = asMap(doc.paths, `${displayPath(mainFile)}: paths`) as SpecDocument['paths'];
  const components = asMap(doc.components, `${displayPath(mainFile)}: components`) as SpecDocument['components'];
  const schemas = asMap(components.schemas, `${displayPath(mainFile)}: components.schemas`);
  components.schemas = schemas;
  const shared = sharedParts(root, mainFile);

  const sources = new Map<string, string>();
  for (const item of Object.values(paths)) for (const id of operationIdsOf(asMap(item, 'paths'))) sources.set(id, mainFile);
  const schemaSources = new Map<string, string>(Object.keys(schemas).map((s) => [s, mainFile]));
  /** slug -> the operator file that defined it (a shipped slug may be replaced once) */
  const operatorSlugs = new Map<string, string>();

  const files = [
    ...yamlFiles(path.join(specDir, 'models'), false).map((file) => ({ file, operator: false })),
    ...(opts.modelsDirs ?? []).flatMap((dir) => yamlFiles(dir, true).map((file) => ({ file, operator: true }))),
  ];
  for (const { file, operator } of files) {
    const shown = displayPath(file);
    const part = readYaml(file);
    refsByFile.set(file, refsIn(part));
    const place = (slug: string, p: string, item: Record<string, unknown>, where: string) => {
      const previous = sources.get(slug);
      if (previous !== undefined) {
        const first = operatorSlugs.get(slug);
        // An operator file replaces a shipped model by its slug, once; anything else is a conflict.
        if (!operator || first !== undefined || previous === mainFile) {
          throw new SpecError(`${where}: model ${slug} is already defined by ${displayPath(first ?? previous)}`);
        }
      } else if (paths[p] !== undefined && paths[p] !== item) {
        throw new SpecError(`${where}: path ${p} is already defined by ${displayPath(sources.get(operationIdsOf(paths[p]!)[0] ?? '') ?? mainFile)}`);
      }
      paths[p] = item;
      sources.set(slug, file);
      if (operator) operatorSlugs.set(slug, file);
    };
    for (const { slug, path: p, op, where } of modelsOf(part, file)) place(slug, p, { post: op }, where);
    for (const [p, raw] of Object.entries(asMap(part.paths, `${shown}: paths`))) {
      const item = asMap(raw, `${shown}: paths.${p}`);
      const ids = operationIdsOf(item);
      if (ids.length === 0) throw new SpecError(`${shown}: paths.${p}: no operation with an operationId`);
      for (const id of ids) place(id, p, item, `${shown}: paths.${p}`);
    }
    const partComponents = asMap(part.components, `${shown}: components`);
    for (const key of Object.keys(partComponents)) {
      if (key !== 'schemas') throw new SpecError(`${shown}: components.${key}: only components.schemas may be defined in a model file`);
    }
    for (const [s, schema] of Object.entries(asMap(partComponents.schemas, `${shown}: components.schemas`))) {
      const previous = schemaSources.get(s);
      if (previous !== undefined) throw new SpecError(`${shown}: components.schemas.${s} is already defined by ${displayPath(previous)}`);
      schemas[s] = schema;
      schemaSources.set(s, file);
    }
  }

  // The shared parts, on every model operation (compact or written out in full).
  for (const item of Object.values(paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (isMap(op) && op['x-model'] !== undefined) item[method] = withSharedParts(op, shared, root);
    }
  }
  const merged: SpecDocument = { ...doc, paths, components };
  checkRefs(merged, refsByFile);
  return { document: merged, sources, root };
}

/** The merged document alone (see loadSpecFiles). */
export function loadSpecDocument(specDir: string, opts: LoadOptions = {}): SpecDocument {
  return loadSpecFiles(specDir, opts).document;
}
