// How a provider receives a model's input (docs/operating/model-files.md, "Mapping inputs to a
// provider"): x-model's `input_map` (our field -> the provider's, with transforms), `fixed_input`
// (provider-only values) and `limits` (what the provider accepts of our fields). Pure: parsed and
// checked against the input schema at start-up (an error names the key), applied by the upstream
// adapters, and dry-run at submit so that a value a provider cannot take is a 422 naming the
// field, before any hold, instead of a failed run.
//
// input_map entry forms (our field -> ...):
//   "name"                         rename ("" drops the field: the provider has no such input)
//   { to, default, values, scale, round, type, prefix, suffix, drop }
//       applied in that order: `default` when the input lacks the field; `values` maps a value to
//       the provider's (a value the map lacks cannot be sent); `scale` multiplies a number, then
//       `round` (nearest, up, down; integers by default); `type` converts to string, integer,
//       number or boolean, a string taking `prefix`/`suffix` (8 -> "8s") and losing them the other
//       way ("8s" -> 8); `to` names the provider's field, a dotted path nests it (image_size.width).
//   { aspect_to_size: { width, height, long_side | pixels, multiple } }
//       our "w:h" ratio becomes the provider's width and height (each a path)
//   { to, size_to_aspect: { height, nearest } }
//       our width (this field) and height become the provider's "w:h" ratio, reduced, or the
//       nearest of the ratios it accepts
// Fields the map does not name pass through under their own name; fixed_input wins over all.

export type Scalar = string | number | boolean;

/** One of our fields, as one provider receives it. */
export type FieldTransform =
  | { kind: 'drop' }
  | {
    kind: 'value';
    to: readonly string[];
    default?: unknown;
    values?: ReadonlyMap<string, unknown>;
    scale?: number;
    round?: 'nearest' | 'up' | 'down';
    type?: 'string' | 'integer' | 'number' | 'boolean';
    prefix: string;
    suffix: string;
  }
  | { kind: 'aspect-to-size'; width: readonly string[]; height: readonly string[]; longSide?: number; pixels?: number; multiple: number }
  | { kind: 'size-to-aspect'; to: readonly string[]; height: string; nearest?: readonly string[] };

/** What a provider accepts of one of our fields (checked on our value, before the mapping). */
export interface FieldLimit {
  minimum?: number;
  maximum?: number;
  enum?: readonly Scalar[];
  pattern?: RegExp;
}

export interface InputMapping {
  fields: ReadonlyMap<string, FieldTransform>;
  /** our fields another transform reads (size_to_aspect's height): not passed through under their own name */
  consumed: ReadonlySet<string>;
  fixed: Readonly<Record<string, unknown>>;
  limits: ReadonlyMap<string, FieldLimit>;
}

/** Why one provider cannot take a request: the field (ours) and what it accepts. */
export interface MappingProblem {
  field: string;
  msg: string;
}

interface SchemaProp {
  type?: unknown;
  enum?: unknown[];
  default?: unknown;
}

const VALUE_KEYS = ['to', 'default', 'values', 'scale', 'round', 'type', 'prefix', 'suffix', 'drop'];
const LIMIT_KEYS = ['minimum', 'maximum', 'enum', 'pattern'];
const TYPES = ['string', 'integer', 'number', 'boolean'] as const;
const ROUNDING = ['nearest', 'up', 'down'] as const;
const RATIO = /^([1-9][0-9]*(?:\.[0-9]+)?):([1-9][0-9]*(?:\.[0-9]+)?)$/;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const isScalar = (v: unknown): v is Scalar => typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

function typeOf(prop: SchemaProp | undefined): string | undefined {
  const t = Array.isArray(prop?.type) ? prop.type.find((x) => x !== 'null') : prop?.type;
  return typeof t === 'string' ? t : undefined;
}

function pathOf(target: unknown, where: string): string[] {
  if (typeof target !== 'string' || target === '' || target.split('.').some((p) => p === '')) {
    throw new Error(`${where} must name the provider's field (a dotted path such as image_size.width nests it)`);
  }
  return target.split('.');
}

function unknownKeys(raw: Record<string, unknown>, known: readonly string[], where: string): void {
  const unknown = Object.keys(raw).filter((k) => !known.includes(k));
  if (unknown.length) throw new Error(`${where}.${unknown[0]}: unknown key (known: ${known.join(', ')})`);
}

function positive(v: unknown, where: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw new Error(`${where} must be a positive number`);
  return v;
}

/** One input_map entry, checked against our field's schema (when known). */
function parseTransform(field: string, raw: unknown, props: Record<string, SchemaProp> | undefined, where: string): FieldTransform {
  const prop = props?.[field];
  const ours = typeOf(prop);
  if (typeof raw === 'string') return raw === '' ? { kind: 'drop' } : { kind: 'value', to: pathOf(raw, where), prefix: '', suffix: '' };
  if (!isRecord(raw)) throw new Error(`${where} must be the provider's field name ("" drops it) or a transform (to, type, values, scale, default, aspect_to_size, size_to_aspect)`);
  if (raw.aspect_to_size !== undefined) {
    unknownKeys(raw, ['aspect_to_size'], where);
    const a = raw.aspect_to_size;
    if (!isRecord(a)) throw new Error(`${where}.aspect_to_size must say where width and height go, and how large (long_side or pixels)`);
    unknownKeys(a, ['width', 'height', 'long_side', 'pixels', 'multiple'], `${where}.aspect_to_size`);
    if (props && ours !== 'string') throw new Error(`${where}.aspect_to_size: our field "${field}" must be a "w:h" string`);
    if ((a.long_side === undefined) === (a.pixels === undefined)) throw new Error(`${where}.aspect_to_size needs one of long_side (pixels on the longer side) or pixels (the image's area)`);
    return {
      kind: 'aspect-to-size',
      width: pathOf(a.width, `${where}.aspect_to_size.width`),
      height: pathOf(a.height, `${where}.aspect_to_size.height`),
      ...(a.long_side !== undefined ? { longSide: positive(a.long_side, `${where}.aspect_to_size.long_side`) } : {}),
      ...(a.pixels !== undefined ? { pixels: positive(a.pixels, `${where}.aspect_to_size.pixels`) } : {}),
      multiple: a.multiple === undefined ? 1 : positive(a.multiple, `${where}.aspect_to_size.multiple`),
    };
  }
  if (raw.size_to_aspect !== undefined) {
    unknownKeys(raw, ['to', 'size_to_aspect'], where);
    const s = raw.size_to_aspect;
    if (!isRecord(s) || typeof s.height !== 'string') throw new Error(`${where}.size_to_aspect.height must name our height field`);
    unknownKeys(s, ['height', 'nearest'], `${where}.size_to_aspect`);
    if (props) {
      if (!['integer', 'number'].includes(ours ?? '')) throw new Error(`${where}.size_to_aspect: our field "${field}" must be a number (the width)`);
      if (!Object.hasOwn(props, s.height)) throw new Error(`${where}.size_to_aspect.height: the input has no field "${s.height}"`);
    }
    let nearest: string[] | undefined;
    if (s.nearest !== undefined) {
      if (!Array.isArray(s.nearest) || s.nearest.length === 0 || !s.nearest.every((r) => typeof r === 'string' && RATIO.test(r))) {
        throw new Error(`${where}.size_to_aspect.nearest must list the "w:h" ratios the provider accepts`);
      }
      nearest = s.nearest as string[];
    }
    return { kind: 'size-to-aspect', to: pathOf(raw.to, `${where}.to`), height: s.height, ...(nearest ? { nearest } : {}) };
  }
  unknownKeys(raw, VALUE_KEYS, where);
  if (raw.drop !== undefined) {
    if (raw.drop !== true || Object.keys(raw).length > 1) throw new Error(`${where}.drop: true drops the field and takes no other key`);
    return { kind: 'drop' };
  }
  const t: Extract<FieldTransform, { kind: 'value' }> = { kind: 'value', to: raw.to === undefined ? [field] : pathOf(raw.to, `${where}.to`), prefix: '', suffix: '' };
  if (raw.default !== undefined) t.default = raw.default;
  if (raw.values !== undefined) {
    if (!isRecord(raw.values) || Object.keys(raw.values).length === 0) throw new Error(`${where}.values must map our values to the provider's`);
    if (raw.scale !== undefined || raw.type !== undefined || raw.round !== undefined) throw new Error(`${where}.values gives the provider's values as they are: it takes no scale, round or type`);
    const allowed = Array.isArray(prop?.enum) ? prop.enum.map((v) => String(v)) : undefined;
    if (allowed) {
      const stray = Object.keys(raw.values).find((k) => !allowed.includes(k));
      if (stray !== undefined) throw new Error(`${where}.values.${stray}: our field "${field}" has no such value (its values: ${allowed.join(', ')})`);
    }
    t.values = new Map(Object.entries(raw.values));
  }
  if (raw.scale !== undefined) {
    t.scale = positive(raw.scale, `${where}.scale`);
    if (props && !['integer', 'number'].includes(ours ?? '')) throw new Error(`${where}.scale: our field "${field}" is not a number`);
  }
  if (raw.round !== undefined) {
    if (!(ROUNDING as readonly unknown[]).includes(raw.round)) throw new Error(`${where}.round must be one of ${ROUNDING.join(', ')}`);
    t.round = raw.round as (typeof ROUNDING)[number];
  }
  if (raw.type !== undefined) {
    if (!(TYPES as readonly unknown[]).includes(raw.type)) throw new Error(`${where}.type must be one of ${TYPES.join(', ')} (got ${JSON.stringify(raw.type)})`);
    t.type = raw.type as (typeof TYPES)[number];
  }
  for (const key of ['prefix', 'suffix'] as const) {
    if (raw[key] === undefined) continue;
    if (typeof raw[key] !== 'string') throw new Error(`${where}.${key} must be a string`);
    const converts = t.type === 'string' || ((t.type === 'integer' || t.type === 'number' || t.type === 'boolean') && (ours === 'string' || !props));
    if (!converts) throw new Error(`${where}.${key} goes with type: string (added, 8 -> "8s"), or with a number type on a string field (removed, "8s" -> 8)`);
    t[key] = raw[key];
  }
  return t;
}

function parseLimit(field: string, raw: unknown, props: Record<string, SchemaProp> | undefined, where: string): FieldLimit {
  if (!isRecord(raw)) throw new Error(`${where} must say what the provider accepts (${LIMIT_KEYS.join(', ')})`);
  unknownKeys(raw, LIMIT_KEYS, where);
  const ours = typeOf(props?.[field]);
  // on a text or list field, minimum and maximum bound its length in characters or items (a
  // provider reading at most 2500 characters of a prompt; one without LoRAs: loras maximum 0)
  const numeric = !props || ours === 'integer' || ours === 'number' || ours === 'array' || ours === 'string';
  const limit: FieldLimit = {};
  for (const key of ['minimum', 'maximum'] as const) {
    if (raw[key] === undefined) continue;
    if (typeof raw[key] !== 'number' || !Number.isFinite(raw[key])) throw new Error(`${where}.${key} must be a number`);
    if (!numeric) throw new Error(`${where}.${key}: our field "${field}" is not a number, a text or a list`);
    limit[key] = raw[key];
  }
  if (raw.enum !== undefined) {
    if (!Array.isArray(raw.enum) || raw.enum.length === 0 || !raw.enum.every(isScalar)) throw new Error(`${where}.enum must list the values the provider accepts`);
    limit.enum = raw.enum;
  }
  if (raw.pattern !== undefined) {
    if (typeof raw.pattern !== 'string') throw new Error(`${where}.pattern must be a regular expression`);
    if (props && ours !== 'string') throw new Error(`${where}.pattern: our field "${field}" is not a string`);
    try {
      limit.pattern = new RegExp(raw.pattern, 'u');
    } catch (err) {
      throw new Error(`${where}.pattern is not a valid regular expression: ${(err as Error).message}`);
    }
  }
  return limit;
}

/**
 * A provider's input_map, fixed_input and limits, checked against the model's input schema
 * (`schema`; undefined: unchecked, for adapters used without a catalog). Throws an Error whose
 * message names the key (`where` is its prefix, e.g. x-model.providers[1]).
 */
export function parseInputMapping(raw: { input_map?: unknown; fixed_input?: unknown; limits?: unknown }, schema: unknown, where: string): InputMapping {
  const props = isRecord(schema) && isRecord(schema.properties) ? schema.properties as Record<string, SchemaProp> : schema === undefined ? undefined : {};
  const fields = new Map<string, FieldTransform>();
  const consumed = new Set<string>();
  if (raw.input_map !== undefined) {
    if (!isRecord(raw.input_map)) throw new Error(`${where}.input_map must map input fields to the provider's fields`);
    for (const [field, entry] of Object.entries(raw.input_map)) {
      const at = `${where}.input_map.${field}`;
      if (props && !Object.hasOwn(props, field)) throw new Error(`${at}: the input has no field "${field}"`);
      const t = parseTransform(field, entry, props, at);
      fields.set(field, t);
      if (t.kind === 'size-to-aspect') consumed.add(t.height);
    }
    for (const field of consumed) {
      if (fields.has(field)) throw new Error(`${where}.input_map.${field}: this field is read by size_to_aspect; it cannot be mapped as well`);
    }
  }
  let fixed: Record<string, unknown> = {};
  if (raw.fixed_input !== undefined) {
    if (!isRecord(raw.fixed_input)) throw new Error(`${where}.fixed_input must be an object of provider field values`);
    fixed = raw.fixed_input;
  }
  const limits = new Map<string, FieldLimit>();
  if (raw.limits !== undefined) {
    if (!isRecord(raw.limits)) throw new Error(`${where}.limits must map input fields to what the provider accepts`);
    for (const [field, entry] of Object.entries(raw.limits)) {
      if (props && !Object.hasOwn(props, field)) throw new Error(`${where}.limits.${field}: the input has no field "${field}"`);
      limits.set(field, parseLimit(field, entry, props, `${where}.limits.${field}`));
    }
  }
  const mapping: InputMapping = { fields, consumed, fixed, limits };
  if (props) checkTargets(mapping, Object.keys(props), where);
  return mapping;
}

/** Two of our fields sent to one provider field (or one inside the other) is a mistake: refused at start-up. */
function checkTargets(mapping: InputMapping, ourFields: readonly string[], where: string): void {
  const targets: Array<{ path: string; from: string }> = [];
  for (const field of ourFields) {
    if (mapping.consumed.has(field)) continue;
    const t = mapping.fields.get(field);
    if (!t) targets.push({ path: field, from: field });
    else if (t.kind === 'value' || t.kind === 'size-to-aspect') targets.push({ path: t.to.join('.'), from: field });
    else if (t.kind === 'aspect-to-size') targets.push({ path: t.width.join('.'), from: field }, { path: t.height.join('.'), from: field });
  }
  for (const [i, a] of targets.entries()) {
    for (const b of targets.slice(i + 1)) {
      if (a.path === b.path || a.path.startsWith(`${b.path}.`) || b.path.startsWith(`${a.path}.`)) {
        const field = mapping.fields.has(b.from) ? b.from : a.from;
        throw new Error(`${where}.input_map.${field}: the provider's field "${b.path}" would also receive "${a.from === b.from ? a.path : a.from}"`);
      }
    }
  }
}

function setPath(out: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = out;
  for (const key of path.slice(0, -1)) {
    if (!isRecord(node[key])) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

const listOf = (values: Iterable<unknown>) => [...values].map((v) => JSON.stringify(v)).join(', ');

function rounded(v: number, mode: 'nearest' | 'up' | 'down'): number {
  return mode === 'up' ? Math.ceil(v) : mode === 'down' ? Math.floor(v) : Math.round(v);
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** A value transform; a string naming the problem when it cannot apply. */
function convert(t: Extract<FieldTransform, { kind: 'value' }>, value: unknown): { ok: true; value: unknown } | { ok: false; msg: string } {
  if (t.values) {
    const key = String(value);
    if (!t.values.has(key)) return { ok: false, msg: `Input should be one of ${listOf(t.values.keys())}` };
    return { ok: true, value: t.values.get(key) };
  }
  let v = value;
  if (t.scale !== undefined) {
    if (typeof v !== 'number') return { ok: false, msg: 'Input should be a number' };
    v = v * t.scale;
  }
  if (typeof v === 'number' && (t.round !== undefined || (t.scale !== undefined && t.type !== 'number'))) v = rounded(v, t.round ?? 'nearest');
  switch (t.type) {
    case undefined:
      return { ok: true, value: v };
    case 'string':
      return { ok: true, value: `${t.prefix}${String(v)}${t.suffix}` };
    case 'boolean': {
      if (typeof v === 'boolean') return { ok: true, value: v };
      if (typeof v === 'number') return { ok: true, value: v !== 0 };
      const s = typeof v === 'string' ? stripped(v, t) : undefined;
      if (s === 'true' || s === 'false') return { ok: true, value: s === 'true' };
      return { ok: false, msg: 'Input cannot be sent to this model\'s provider as true or false' };
    }
    case 'integer':
    case 'number': {
      let n: number | undefined;
      if (typeof v === 'number') n = v;
      else if (typeof v === 'boolean') n = v ? 1 : 0;
      else if (typeof v === 'string') {
        const s = stripped(v, t);
        n = s !== undefined && /^-?\d+(\.\d+)?$/.test(s) ? Number(s) : undefined;
      }
      if (n === undefined || !Number.isFinite(n)) return { ok: false, msg: `Input cannot be sent to this model's provider as ${t.type === 'integer' ? 'an integer' : 'a number'}${t.prefix || t.suffix ? ` (expected ${t.prefix}<number>${t.suffix})` : ''}` };
      return { ok: true, value: t.type === 'integer' ? rounded(n, t.round ?? 'nearest') : n };
    }
  }
}

/** A string without the transform's prefix and suffix; undefined when it lacks them. */
function stripped(s: string, t: { prefix: string; suffix: string }): string | undefined {
  if (!s.startsWith(t.prefix) || !s.endsWith(t.suffix) || s.length < t.prefix.length + t.suffix.length) return undefined;
  return s.slice(t.prefix.length, s.length - t.suffix.length);
}

/** The width and height of a "w:h" ratio at the transform's size, each a multiple of `multiple`. */
export function sizeOf(ratio: string, t: Extract<FieldTransform, { kind: 'aspect-to-size' }>): { width: number; height: number } | undefined {
  const m = RATIO.exec(ratio);
  if (!m) return undefined;
  const w = Number(m[1]);
  const h = Number(m[2]);
  let width: number;
  let height: number;
  if (t.longSide !== undefined) {
    [width, height] = w >= h ? [t.longSide, (t.longSide * h) / w] : [(t.longSide * w) / h, t.longSide];
  } else {
    width = Math.sqrt((t.pixels! * w) / h);
    height = Math.sqrt((t.pixels! * h) / w);
  }
  const snap = (v: number) => Math.max(t.multiple, Math.round(v / t.multiple) * t.multiple);
  return { width: snap(width), height: snap(height) };
}

/** Our width and height as a "w:h" ratio: reduced, or the nearest of the provider's list. */
export function aspectOf(width: number, height: number, nearest?: readonly string[]): string | undefined {
  if (!(width > 0) || !(height > 0)) return undefined;
  if (nearest) {
    const target = Math.log(width / height);
    let best = nearest[0]!;
    let distance = Infinity;
    for (const r of nearest) {
      const [a, b] = r.split(':').map(Number);
      const d = Math.abs(Math.log(a! / b!) - target);
      if (d < distance) [best, distance] = [r, d];
    }
    return best;
  }
  if (!Number.isInteger(width) || !Number.isInteger(height)) return undefined;
  const g = gcd(width, height);
  return `${width / g}:${height / g}`;
}

/** Whether one of our values passes a provider's limit; the message when it does not. */
function limitProblem(limit: FieldLimit, value: unknown): string | undefined {
  if (limit.enum && !limit.enum.some((v) => v === value)) return `Input should be one of ${listOf(limit.enum)}`;
  if (typeof value === 'number') {
    if (limit.minimum !== undefined && value < limit.minimum) return `Input should be greater than or equal to ${limit.minimum}`;
    if (limit.maximum !== undefined && value > limit.maximum) return `Input should be less than or equal to ${limit.maximum}`;
  }
  if (typeof value === 'string' && (limit.minimum !== undefined || limit.maximum !== undefined)) {
    const length = [...value].length;
    if (limit.minimum !== undefined && length < limit.minimum) return `String should have at least ${limit.minimum} character${limit.minimum === 1 ? '' : 's'}`;
    if (limit.maximum !== undefined && length > limit.maximum) return `String should have at most ${limit.maximum} character${limit.maximum === 1 ? '' : 's'}`;
  }
  if (Array.isArray(value)) {
    if (limit.minimum !== undefined && value.length < limit.minimum) return `List should have at least ${limit.minimum} item${limit.minimum === 1 ? '' : 's'}`;
    if (limit.maximum !== undefined && value.length > limit.maximum) return limit.maximum === 0 ? 'List should be empty' : `List should have at most ${limit.maximum} item${limit.maximum === 1 ? '' : 's'}`;
  }
  if (limit.pattern && typeof value === 'string' && !limit.pattern.test(value)) return `String should match pattern '${limit.pattern.source}'`;
  return undefined;
}

/**
 * Our validated input (defaults filled in) as one provider receives it, or why it cannot: a
 * limit the value breaks, or a transform that cannot apply to it (a value the map lacks). Each
 * problem names our field.
 */
export function applyMapping(mapping: InputMapping | undefined, input: Readonly<Record<string, unknown>>): { ok: true; value: Record<string, unknown> } | { ok: false; problems: MappingProblem[] } {
  if (!mapping) return { ok: true, value: { ...input } };
  const problems: MappingProblem[] = [];
  for (const [field, limit] of mapping.limits) {
    const value = input[field];
    if (value === undefined || value === null) continue;
    const msg = limitProblem(limit, value);
    if (msg) problems.push({ field, msg });
  }
  const out: Record<string, unknown> = {};
  const names = new Set([...Object.keys(input), ...[...mapping.fields].flatMap(([f, t]) => (t.kind === 'value' && t.default !== undefined ? [f] : []))]);
  for (const field of names) {
    if (mapping.consumed.has(field)) continue;
    const t = mapping.fields.get(field);
    const value = input[field];
    if (!t) {
      out[field] = value;
      continue;
    }
    switch (t.kind) {
      case 'drop':
        break;
      case 'value': {
        const v = value === undefined ? t.default : value;
        if (v === undefined) break;
        const converted = convert(t, v);
        if (converted.ok) setPath(out, t.to, converted.value);
        else if (!problems.some((p) => p.field === field)) problems.push({ field, msg: converted.msg });
        break;
      }
      case 'aspect-to-size': {
        if (value === undefined) break;
        const size = typeof value === 'string' ? sizeOf(value, t) : undefined;
        if (!size) problems.push({ field, msg: 'Input should be a ratio written as w:h' });
        else {
          setPath(out, t.width, size.width);
          setPath(out, t.height, size.height);
        }
        break;
      }
      case 'size-to-aspect': {
        const height = input[t.height];
        if (value === undefined || height === undefined) break;
        const ratio = typeof value === 'number' && typeof height === 'number' ? aspectOf(value, height, t.nearest) : undefined;
        if (!ratio) problems.push({ field, msg: `Input cannot be sent to this model's provider as a w:h ratio with ${t.height}` });
        else setPath(out, t.to, ratio);
        break;
      }
    }
  }
  if (problems.length) return { ok: false, problems };
  return { ok: true, value: { ...out, ...mapping.fixed } };
}

/**
 * The providers (in order) that can take this input, and, when none can, every reason: each
 * provider's limits and transforms are tried on the input. A provider without a mapping (a local
 * adapter, a plain pass-through) takes anything the schema accepted.
 */
export function acceptingProviders<P extends { mapping?: InputMapping }>(providers: readonly P[], input: Readonly<Record<string, unknown>>): { accepting: P[]; problems: MappingProblem[] } {
  const accepting: P[] = [];
  const problems: MappingProblem[] = [];
  for (const p of providers) {
    const mapped = applyMapping(p.mapping, input);
    if (mapped.ok) accepting.push(p);
    else for (const problem of mapped.problems) if (!problems.some((q) => q.field === problem.field && q.msg === problem.msg)) problems.push(problem);
  }
  return { accepting, problems: accepting.length ? [] : problems };
}
