// Price rules from the spec's x-model.price, and provider cost rules from a provider's `cost`
// (docs/operating/model-files.md, "Prices"). Pure: integers in, integers out (1000 credits = 1 USD).
//   price = base
//         + each term: per_unit (amount x a numeric field, or x the characters of a text field;
//           `per` divides: 130 per 1000 characters), per_output (amount x the outputs asked
//           for), per_megapixel (amount x megapixels, from width/height, a size preset or an
//           aspect ratio), tiers (the amount of the step the field's value falls in)
//   then, for each multiplier whose field's value matches, price = ceil(price * percent / 100)
//   then price = max(price, minimum)
// A fractional term (a number field, megapixels billed exactly) is rounded up to a whole credit.
// per_token (language models: a provider's cost, or an llm model's own price): the most a request
// can cost is known before it runs (its text, and the longest answer it allows), what it did cost
// only after (the usage the provider reports); see tokenHold and tokenCharge. A token price is held
// at its most and charged by the usage when the call settles (db/store/types.ts settleInline) or,
// on the asynchronous endpoint, when its prediction completes (complete with its usage).
import { sizeOf } from './mapping.ts';

/** The gateway's credit: 1000 credits = 1 USD. */
export const CREDITS_PER_USD = 1000;

/** How a per_megapixel term finds the image size. */
export type SizeSource =
  | { kind: 'fields'; width: string; height: string }
  | { kind: 'preset'; field: string; presets: ReadonlyMap<string, { width: number; height: number }> }
  | { kind: 'aspect'; field: string; longSide?: number; pixels?: number; multiple: number };

export type PriceTerm =
  | { kind: 'per_unit'; field: string; amount: number; per: number; text: boolean }
  | { kind: 'per_output'; amount: number; count?: string }
  | { kind: 'per_megapixel'; amount: number; size: SizeSource; count?: string; exact: boolean }
  | { kind: 'tiers'; field: string; steps: ReadonlyArray<{ upTo?: number; amount: number }> };

/** Language-model pricing by tokens, in credits per `per` tokens. */
export interface TokenRule {
  input: number;
  output: number;
  per: number;
  /** the text fields that make the prompt: no tokenizer makes more tokens of a text than its UTF-8 bytes */
  inputFields: readonly string[];
  /** tokens the provider adds around the messages (its chat template) */
  overhead: number;
  /** the longest answer: a field of the input (max_tokens) or a fixed number of tokens */
  maxOutput: { field: string } | { tokens: number };
  /**
   * the most tokens the provider bills for one image part of a conversation (OpenAI's
   * `image_url`), whose URL has far fewer bytes than the image has tokens; undefined: the model
   * takes no image parts on the OpenAI-compatible route (handlers/openai.ts)
   */
  imageTokens?: number;
}

export interface PriceRule {
  base: number;
  /** the first per_unit term (kept for the clients that read `per_unit`) */
  perUnit?: { field: string; amount: number };
  /** every term after base, in rule order */
  terms: PriceTerm[];
  multipliers: Array<{ field: string; percentByValue: ReadonlyMap<string, number> }>;
  /** the least a request costs (0: no minimum) */
  minimum: number;
  /** per_token: a provider's cost, or a language model's price (kind 'llm-price') */
  tokens?: TokenRule;
}

interface InputSchema {
  properties?: Record<string, { type?: unknown; default?: unknown; enum?: unknown[]; const?: unknown; minimum?: unknown; exclusiveMinimum?: unknown; maximum?: unknown; exclusiveMaximum?: unknown }>;
  required?: string[];
}

/**
 * A price the gateway cannot charge: not a whole number of credits from 0 to 2^53 - 1. Start-up
 * refuses a rule whose fields are unbounded, so valid input should never get here; when it does,
 * the model file is at fault and nothing is held or charged.
 */
export class PriceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PriceError';
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function nonNegativeInt(v: unknown): v is number {
  return Number.isSafeInteger(v) && (v as number) >= 0;
}

const PRICE_KEYS = ['base', 'per_unit', 'per_output', 'per_megapixel', 'tiers', 'minimum', 'multipliers', 'per_token'];

function typeOf(prop: { type?: unknown } | undefined): string | undefined {
  const t = Array.isArray(prop?.type) ? prop.type.find((x) => x !== 'null') : prop?.type;
  return typeof t === 'string' ? t : undefined;
}

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * A number field a price is multiplied by must be bounded in the input schema: at least 0 (a
 * negative value would make the price, and so the hold, negative: a hold that adds credit) and at
 * most a maximum (an unbounded value makes a price too large to charge exactly). An `enum` or
 * `const` of numbers from 0 up bounds it too. Its default must lie within the bounds.
 */
function checkBounds(prop: NonNullable<InputSchema['properties']>[string], field: string, where: string): void {
  const listed = Array.isArray(prop.enum) ? prop.enum.filter((v) => v !== null) : prop.const !== undefined ? [prop.const] : undefined;
  let low: number | undefined;
  let high: number | undefined;
  if (listed !== undefined) {
    if (listed.length === 0 || !listed.every((v) => finite(v) && v >= 0)) throw new Error(`${where} "${field}": every value its enum lists must be a number of 0 or more, since the price is computed from it`);
    low = Math.min(...(listed as number[]));
    high = Math.max(...(listed as number[]));
  } else {
    const lows = [prop.minimum, prop.exclusiveMinimum].filter(finite);
    const highs = [prop.maximum, prop.exclusiveMaximum].filter(finite);
    low = lows.length ? Math.max(...lows) : undefined;
    high = highs.length ? Math.min(...highs) : undefined;
    const missing = [
      ...(low === undefined ? ['a "minimum" of 0 or more'] : low < 0 ? [`a "minimum" of 0 or more (it has ${low})`] : []),
      ...(high === undefined ? ['a "maximum"'] : []),
    ];
    if (missing.length) {
      throw new Error(`${where} "${field}" needs ${missing.join(' and ')} in the input schema: the price is computed from its value, so without ${missing.length > 1 ? 'them' : 'it'} a request could make the price negative or too large to charge`);
    }
  }
  if (finite(prop.default) && (prop.default < low! || prop.default > high!)) throw new Error(`${where} "${field}": its default ${prop.default} is outside its bounds (${low} to ${high})`);
}

/**
 * A priced field: an input property of the given kind, always present once defaults are filled in.
 * `bounded`: a number the price grows with (not a tier's field, whose steps are fixed amounts) must
 * have bounds (checkBounds).
 */
function pricedField(schema: InputSchema, field: unknown, where: string, kinds: readonly string[], bounded = true): string {
  if (typeof field !== 'string') throw new Error(`${where} must name an input field`);
  const prop = schema.properties?.[field];
  if (!prop) throw new Error(`${where} "${field}" is not an input property`);
  const type = typeOf(prop) ?? '';
  if (!kinds.includes(type)) throw new Error(`${where} "${field}" must be ${kinds.includes('number') ? 'a number' : kinds.includes('integer') ? 'an integer' : `a ${kinds.join(' or ')}`} property`);
  if (prop.default === undefined && !(schema.required ?? []).includes(field)) throw new Error(`${where} "${field}" needs a default or must be required`);
  if (bounded && (type === 'integer' || type === 'number')) checkBounds(prop, field, where);
  return field;
}

function keysOnly(raw: Record<string, unknown>, known: readonly string[], where: string): void {
  const unknown = Object.keys(raw).find((k) => !known.includes(k));
  if (unknown !== undefined) throw new Error(`${where} has unknown key "${unknown}" (known: ${known.join(', ')})`);
}

function amountOf(raw: Record<string, unknown>, where: string): number {
  if (!nonNegativeInt(raw.amount)) throw new Error(`${where}.amount must be a non-negative integer (credits)`);
  return raw.amount;
}

function parsePerUnit(raw: unknown, schema: InputSchema, where: string): PriceTerm {
  if (!isRecord(raw) || typeof raw.field !== 'string' || !nonNegativeInt(raw.amount)) {
    throw new Error(`${where} needs a string "field" and a non-negative integer "amount"`);
  }
  keysOnly(raw, ['field', 'amount', 'per'], where);
  if (raw.per !== undefined && (!Number.isSafeInteger(raw.per) || (raw.per as number) < 1)) throw new Error(`${where}.per must be a positive integer (units per amount, e.g. 1000 characters)`);
  // a text field is billed by its length in characters (providers bill speech per character)
  const field = pricedField(schema, raw.field, `${where}.field`, ['integer', 'number', 'string']);
  const text = typeOf(schema.properties?.[field]) === 'string';
  return { kind: 'per_unit', field, amount: raw.amount, per: (raw.per as number | undefined) ?? 1, text };
}

function parsePerOutput(raw: unknown, schema: InputSchema, where: string): PriceTerm {
  if (!isRecord(raw)) throw new Error(`${where} needs an "amount" per output, and the "count" field that asks for several (1 output without one)`);
  keysOnly(raw, ['amount', 'count'], where);
  const amount = amountOf(raw, where);
  return { kind: 'per_output', amount, ...(raw.count !== undefined ? { count: pricedField(schema, raw.count, `${where}.count`, ['integer']) } : {}) };
}

function positive(v: unknown, where: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw new Error(`${where} must be a positive number`);
  return v;
}

function parsePerMegapixel(raw: unknown, schema: InputSchema, where: string): PriceTerm {
  if (!isRecord(raw)) throw new Error(`${where} needs an "amount" per megapixel and where the size comes from (width and height, size and presets, or aspect)`);
  keysOnly(raw, ['amount', 'width', 'height', 'size', 'presets', 'aspect', 'long_side', 'pixels', 'multiple', 'count', 'round'], where);
  const amount = amountOf(raw, where);
  let size: SizeSource;
  if (raw.width !== undefined || raw.height !== undefined) {
    size = { kind: 'fields', width: pricedField(schema, raw.width, `${where}.width`, ['integer', 'number']), height: pricedField(schema, raw.height, `${where}.height`, ['integer', 'number']) };
  } else if (raw.size !== undefined) {
    const field = pricedField(schema, raw.size, `${where}.size`, ['string']);
    if (!isRecord(raw.presets)) throw new Error(`${where}.presets must map each value of "${field}" to its [width, height]`);
    const presets = new Map<string, { width: number; height: number }>();
    for (const [value, wh] of Object.entries(raw.presets)) {
      if (!Array.isArray(wh) || wh.length !== 2 || !wh.every((n) => Number.isSafeInteger(n) && n > 0)) throw new Error(`${where}.presets.${value} must be [width, height] in pixels`);
      presets.set(value, { width: wh[0] as number, height: wh[1] as number });
    }
    const values = schema.properties?.[field]?.enum;
    if (!Array.isArray(values)) throw new Error(`${where}.size "${field}" must be an enum, so that every value has a preset`);
    const missing = values.map(String).filter((v) => !presets.has(v));
    if (missing.length) throw new Error(`${where}.presets has no size for ${missing.map((v) => JSON.stringify(v)).join(', ')}`);
    size = { kind: 'preset', field, presets };
  } else if (raw.aspect !== undefined) {
    const field = pricedField(schema, raw.aspect, `${where}.aspect`, ['string']);
    if ((raw.long_side === undefined) === (raw.pixels === undefined)) throw new Error(`${where} with aspect needs one of long_side or pixels (the size the ratio is drawn at)`);
    size = {
      kind: 'aspect', field, multiple: raw.multiple === undefined ? 1 : positive(raw.multiple, `${where}.multiple`),
      ...(raw.long_side !== undefined ? { longSide: positive(raw.long_side, `${where}.long_side`) } : {}),
      ...(raw.pixels !== undefined ? { pixels: positive(raw.pixels, `${where}.pixels`) } : {}),
    };
  } else {
    throw new Error(`${where} needs width and height, size and presets, or aspect: where the image size comes from`);
  }
  if (raw.round !== undefined && raw.round !== 'up' && raw.round !== 'exact') throw new Error(`${where}.round must be up (each image billed in whole megapixels, rounded up) or exact`);
  return { kind: 'per_megapixel', amount, size, exact: raw.round === 'exact', ...(raw.count !== undefined ? { count: pricedField(schema, raw.count, `${where}.count`, ['integer']) } : {}) };
}

function parseTiers(raw: unknown, schema: InputSchema, where: string): PriceTerm {
  if (!isRecord(raw) || !Array.isArray(raw.steps) || raw.steps.length === 0) throw new Error(`${where} needs a "field" and "steps": [{up_to, amount}, ..., {amount}]`);
  keysOnly(raw, ['field', 'steps'], where);
  // a tier's amount is fixed whatever the value: the field needs no bounds
  const field = pricedField(schema, raw.field, `${where}.field`, ['integer', 'number'], false);
  const steps = raw.steps.map((step: unknown, i) => {
    const at = `${where}.steps[${i}]`;
    if (!isRecord(step)) throw new Error(`${at} must be {up_to, amount}`);
    keysOnly(step, ['up_to', 'amount'], at);
    if (step.up_to !== undefined && (typeof step.up_to !== 'number' || !Number.isFinite(step.up_to))) throw new Error(`${at}.up_to must be a number`);
    return { ...(step.up_to !== undefined ? { upTo: step.up_to as number } : {}), amount: amountOf(step, at) };
  });
  for (const [i, step] of steps.entries()) {
    const next = steps[i + 1];
    if (next && step.upTo === undefined) throw new Error(`${where}.steps[${i}] has no up_to but is not the last step`);
    if (next?.upTo !== undefined && next.upTo <= step.upTo!) throw new Error(`${where}.steps[${i + 1}].up_to must be above the step before it`);
  }
  const last = steps[steps.length - 1]!;
  const max = schema.properties?.[field]?.maximum;
  if (last.upTo !== undefined && (typeof max !== 'number' || max > last.upTo)) {
    throw new Error(`${where}: a "${field}" above ${last.upTo} has no step (add a last step without up_to${typeof max === 'number' ? `, or one up to ${max}` : ''})`);
  }
  return { kind: 'tiers', field, steps };
}

function parseTokens(raw: unknown, schema: InputSchema, where: string): TokenRule {
  if (!isRecord(raw)) throw new Error(`${where} needs input and output (credits per "per" tokens), input_fields and max_output`);
  keysOnly(raw, ['input', 'output', 'per', 'input_fields', 'overhead', 'max_output', 'image_tokens'], where);
  for (const k of ['input', 'output'] as const) if (!nonNegativeInt(raw[k])) throw new Error(`${where}.${k} must be a non-negative integer (credits per ${String(raw.per ?? 'per')} tokens)`);
  if (!Number.isSafeInteger(raw.per) || (raw.per as number) <= 0) throw new Error(`${where}.per must be a positive integer (e.g. 1000000: the amounts are per million tokens)`);
  if (!Array.isArray(raw.input_fields) || raw.input_fields.length === 0) throw new Error(`${where}.input_fields must list the text fields that make the prompt`);
  const inputFields = raw.input_fields.map((f, i) => {
    if (typeof f !== 'string' || !schema.properties?.[f]) throw new Error(`${where}.input_fields[${i}] "${String(f)}" is not an input property`);
    return f;
  });
  if (raw.overhead !== undefined && !nonNegativeInt(raw.overhead)) throw new Error(`${where}.overhead must be a non-negative integer (tokens)`);
  if (raw.image_tokens !== undefined && !nonNegativeInt(raw.image_tokens)) throw new Error(`${where}.image_tokens must be a non-negative integer (the most tokens the provider bills for one image)`);
  let maxOutput: TokenRule['maxOutput'];
  if (typeof raw.max_output === 'string') {
    const field = pricedField(schema, raw.max_output, `${where}.max_output`, ['integer']);
    if (typeof schema.properties?.[field]?.maximum !== 'number') throw new Error(`${where}.max_output "${field}" needs a maximum: the hold covers the longest answer`);
    maxOutput = { field };
  } else if (Number.isSafeInteger(raw.max_output) && (raw.max_output as number) > 0) {
    maxOutput = { tokens: raw.max_output as number };
  } else {
    throw new Error(`${where}.max_output must name the input's max_tokens field or give a number of tokens`);
  }
  return {
    input: raw.input as number, output: raw.output as number, per: raw.per as number, inputFields, overhead: (raw.overhead as number | undefined) ?? 16, maxOutput,
    ...(raw.image_tokens !== undefined ? { imageTokens: raw.image_tokens as number } : {}),
  };
}

/** The values a field can take, as a multiplier's keys spell them, when its schema lists them (enum, const, boolean); undefined otherwise. */
function listedValues(prop: NonNullable<InputSchema['properties']>[string]): string[] | undefined {
  if (Array.isArray(prop.enum)) return prop.enum.map(String);
  if (prop.const !== undefined) return [String(prop.const)];
  if (typeOf(prop) === 'boolean') return ['true', 'false'];
  return undefined;
}

/**
 * Checks a rule against the model's input schema; throws an Error whose message names the key.
 * `kind`: a model's price (what users pay), a language model's price ('llm-price': may be by
 * tokens, held at its most and charged by the usage the provider reports), or a provider's cost
 * (x-model.providers[i].cost).
 */
export function parsePriceRule(raw: unknown, inputSchema: unknown, where = 'x-model.price', kind: 'price' | 'llm-price' | 'cost' = 'price'): PriceRule {
  if (!isRecord(raw)) throw new Error(`${where} must be an object`);
  const schema = (isRecord(inputSchema) ? inputSchema : {}) as InputSchema;
  const props = schema.properties ?? {};
  for (const key of Object.keys(raw)) {
    if (!PRICE_KEYS.includes(key)) throw new Error(`${where} has unknown key "${key}" (known: ${PRICE_KEYS.join(', ')})`);
  }
  const base = raw.base ?? (kind === 'cost' ? 0 : undefined);
  if (!nonNegativeInt(base)) throw new Error(`${where}.base must be a non-negative integer`);
  const rule: PriceRule = { base, terms: [], multipliers: [], minimum: 0 };

  if (raw.per_unit !== undefined) {
    const list = Array.isArray(raw.per_unit) ? raw.per_unit : [raw.per_unit];
    list.forEach((pu, i) => rule.terms.push(parsePerUnit(pu, schema, Array.isArray(raw.per_unit) ? `${where}.per_unit[${i}]` : `${where}.per_unit`)));
    const first = rule.terms[0] as Extract<PriceTerm, { kind: 'per_unit' }> | undefined;
    // the legacy per_unit view means "amount x the field's value": not for a per-character or divided term
    if (first && first.per === 1 && !first.text) rule.perUnit = { field: first.field, amount: first.amount };
  }
  if (raw.per_output !== undefined) rule.terms.push(parsePerOutput(raw.per_output, schema, `${where}.per_output`));
  if (raw.per_megapixel !== undefined) rule.terms.push(parsePerMegapixel(raw.per_megapixel, schema, `${where}.per_megapixel`));
  if (raw.tiers !== undefined) rule.terms.push(parseTiers(raw.tiers, schema, `${where}.tiers`));
  if (raw.per_token !== undefined) {
    if (kind === 'price') {
      throw new Error(`${where}.per_token: only a language model (category llm) is priced by tokens, since only its calls settle by the usage the provider reports; price this model per request or per unit`);
    }
    rule.tokens = parseTokens(raw.per_token, schema, `${where}.per_token`);
  }
  if (raw.minimum !== undefined) {
    if (!nonNegativeInt(raw.minimum)) throw new Error(`${where}.minimum must be a non-negative integer`);
    rule.minimum = raw.minimum;
  }

  if (raw.multipliers !== undefined) {
    if (!isRecord(raw.multipliers)) throw new Error(`${where}.multipliers must be an object`);
    for (const [field, table] of Object.entries(raw.multipliers)) {
      if (!props[field]) throw new Error(`${where}.multipliers field "${field}" is not an input property`);
      if (!isRecord(table)) throw new Error(`${where}.multipliers.${field} must map values to percents`);
      const values = listedValues(props[field]!);
      const map = new Map<string, number>();
      for (const [value, pct] of Object.entries(table)) {
        // a value the field never has (a typo, another case) would never apply: the price would be too low, silently
        if (values !== undefined && !values.includes(value)) {
          throw new Error(`${where}.multipliers.${field}.${JSON.stringify(value)}: "${field}" never has this value (its values: ${values.map((v) => JSON.stringify(v)).join(', ')}); the values not listed are priced at 100 percent`);
        }
        if (!Number.isSafeInteger(pct) || (pct as number) <= 0) throw new Error(`${where}.multipliers.${field}.${value} must be a positive integer percent`);
        map.set(value, pct as number);
      }
      rule.multipliers.push({ field, percentByValue: map });
    }
  }
  if (kind !== 'cost') {
    // what GET /api/v1/models shows as the price at the defaults must be one the gateway can charge
    const defaults = Object.fromEntries(Object.entries(props).filter(([, p]) => isRecord(p) && p.default !== undefined).map(([k, p]) => [k, p.default]));
    try {
      computePriceBreakdown(rule, defaults);
    } catch (err) {
      if (err instanceof PriceError) throw new Error(`${where}: at the input's defaults ${err.message}`);
      throw err;
    }
  }
  return rule;
}

/** One term of a price as computed: what it counted (`units`) and what it added (`subtotal`). */
export interface TermBreakdown {
  kind: PriceTerm['kind'] | 'per_token';
  /** the input field it reads (per_output: the count field; per_megapixel: width or size); null when none */
  field: string | null;
  /** credits per unit (tiers: the step's amount) */
  amount: number;
  /** what it counted: the field's value, the outputs, the megapixels billed, the tokens */
  units: number;
  subtotal: number;
}

/** One step of a price: what `computePriceBreakdown` did, in order (docs/api/models.md "Prices and quotes"). */
export interface PriceBreakdown {
  base: number;
  /** the first per-unit charge: amount x units (null when the rule has none) */
  perUnit: { field: string; amount: number; units: number; subtotal: number } | null;
  /** every term after base, in rule order (perUnit is the first per_unit one) */
  terms: TermBreakdown[];
  /** the multipliers that matched the input, in rule order, each with the price after it */
  multipliers: Array<{ field: string; value: string; percent: number; priceAfter: number }>;
  /** the rule's minimum, and whether it raised the price */
  minimum: { amount: number; applied: boolean } | null;
  /** the list price: what a submit holds */
  total: number;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** The size of the image a per_megapixel term prices, from the input. */
function sizeFrom(size: SizeSource, input: Readonly<Record<string, unknown>>): { width: number; height: number } {
  switch (size.kind) {
    case 'fields':
      return { width: num(input[size.width]), height: num(input[size.height]) };
    case 'preset':
      return size.presets.get(String(input[size.field])) ?? { width: 0, height: 0 };
    case 'aspect': {
      const ratio = input[size.field];
      const wh = typeof ratio === 'string' ? sizeOf(ratio, { kind: 'aspect-to-size', width: [], height: [], multiple: size.multiple, ...(size.longSide !== undefined ? { longSide: size.longSide } : {}), ...(size.pixels !== undefined ? { pixels: size.pixels } : {}) }) : undefined;
      return wh ?? { width: 0, height: 0 };
    }
  }
}

/** One term's units and subtotal for an input. */
function termOf(term: PriceTerm, input: Readonly<Record<string, unknown>>): TermBreakdown {
  switch (term.kind) {
    case 'per_unit': {
      const value = input[term.field];
      const units = term.text ? (typeof value === 'string' ? [...value].length : 0) : num(value);
      return { kind: term.kind, field: term.field, amount: term.amount, units, subtotal: Math.ceil((term.amount * units) / term.per) };
    }
    case 'per_output': {
      const units = term.count === undefined ? 1 : num(input[term.count]);
      return { kind: term.kind, field: term.count ?? null, amount: term.amount, units, subtotal: term.amount * units };
    }
    case 'per_megapixel': {
      const { width, height } = sizeFrom(term.size, input);
      const each = (width * height) / 1_000_000;
      const count = term.count === undefined ? 1 : num(input[term.count]);
      // each image in whole megapixels, rounded up (fal's rule), unless the rule bills exactly
      const units = (term.exact ? each : Math.ceil(each)) * count;
      const field = term.size.kind === 'fields' ? term.size.width : term.size.field;
      return { kind: term.kind, field, amount: term.amount, units, subtotal: Math.ceil(term.amount * units) };
    }
    case 'tiers': {
      const units = num(input[term.field]);
      const step = term.steps.find((s) => s.upTo === undefined || units <= s.upTo) ?? term.steps[term.steps.length - 1]!;
      return { kind: term.kind, field: term.field, amount: step.amount, units, subtotal: step.amount };
    }
  }
}

/**
 * The price of one request with how it was reached; `input` has already been validated and has
 * its defaults applied. The one price rule: billing (the hold) and the quote (calculateDynamicCost)
 * both come through here, by handlers/admission.ts priceFor, which then applies the paying wallet's
 * discount (chooseDiscount, applyDiscount below); `total` is the list price. A token rule (a
 * provider's cost) counts at its hold: the most the request can cost.
 */
export function computePriceBreakdown(rule: PriceRule, input: Readonly<Record<string, unknown>>, usage?: TokenUsage): PriceBreakdown {
  let price = rule.base;
  const terms = rule.terms.map((t) => termOf(t, input));
  for (const t of terms) price += chargeable(t.subtotal, `the ${t.kind} term${t.field ? ` of ${t.field}` : ''}`);
  if (rule.tokens) {
    const counted = usage ?? tokenHold(rule.tokens, input);
    const subtotal = tokenCharge(rule.tokens, counted);
    terms.push({ kind: 'per_token', field: null, amount: rule.tokens.output, units: counted.inputTokens + counted.outputTokens, subtotal });
    price += chargeable(subtotal, 'the per_token term');
  }
  chargeable(price, 'the terms');
  const firstPerUnit = terms.find((t) => t.kind === 'per_unit');
  const perUnit: PriceBreakdown['perUnit'] = firstPerUnit ? { field: firstPerUnit.field!, amount: firstPerUnit.amount, units: firstPerUnit.units, subtotal: firstPerUnit.subtotal } : null;
  const multipliers: PriceBreakdown['multipliers'] = [];
  for (const m of rule.multipliers) {
    const value = input[m.field];
    if (value === undefined || value === null) continue;
    const pct = m.percentByValue.get(String(value));
    if (pct === undefined) continue;
    price = chargeable(Math.ceil((price * pct) / 100), `the multiplier of ${m.field}`);
    multipliers.push({ field: m.field, value: String(value), percent: pct, priceAfter: price });
  }
  const minimum = rule.minimum > 0 ? { amount: rule.minimum, applied: price < rule.minimum } : null;
  if (minimum?.applied) price = rule.minimum;
  return { base: rule.base, perUnit, terms, multipliers, minimum, total: price };
}

/**
 * A step of a price as computed, when it is one the gateway can charge: a whole number of credits
 * from 0 to 2^53 - 1. Anything else (negative, fractional, past the integers kept exactly, not a
 * number) throws PriceError: nothing is ever held or charged from it.
 */
function chargeable(value: number, after: string): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new PriceError(`the price after ${after} is ${value}, not a whole number of credits from 0 to ${Number.MAX_SAFE_INTEGER}`);
  return value;
}

/** The price of one request (what a submit holds); `input` has already been validated and has its defaults applied. */
export function computePrice(rule: PriceRule, input: Readonly<Record<string, unknown>>): number {
  return computePriceBreakdown(rule, input).total;
}

/** Tokens a language-model request used (reported by the provider) or may use (its hold). */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/**
 * The image parts (`{"type": "image_url"}`) of a conversation: `messages`, or an object holding
 * it (the OpenAI-compatible route's prompt material). An image is billed by its pixels, not by
 * the bytes of its URL.
 */
export function imageParts(v: unknown): number {
  const messages = Array.isArray(v) ? v : isRecord(v) && Array.isArray(v.messages) ? v.messages : [];
  let n = 0;
  for (const m of messages) {
    if (!isRecord(m) || !Array.isArray(m.content)) continue;
    for (const part of m.content) if (isRecord(part) && part.type === 'image_url') n++;
  }
  return n;
}

/**
 * The most a request can use: no tokenizer makes more tokens of a text than its UTF-8 bytes (each
 * token stands for at least one byte), plus the provider's template overhead and, for each image
 * part, the most the provider bills for one image (`imageTokens`); and the longest answer the
 * request allows.
 */
export function tokenHold(rule: TokenRule, input: Readonly<Record<string, unknown>>): TokenUsage {
  let bytes = 0;
  let images = 0;
  for (const f of rule.inputFields) {
    const v = input[f];
    if (typeof v === 'string') bytes += Buffer.byteLength(v, 'utf8');
    else if (v !== undefined && v !== null) {
      bytes += Buffer.byteLength(JSON.stringify(v), 'utf8');
      images += imageParts(v);
    }
  }
  const outputTokens = 'tokens' in rule.maxOutput ? rule.maxOutput.tokens : num(input[rule.maxOutput.field]);
  return { inputTokens: bytes + rule.overhead + images * (rule.imageTokens ?? 0), outputTokens };
}

/** What a usage costs by the rule, rounded up to a whole credit. */
export function tokenCharge(rule: TokenRule, usage: TokenUsage): number {
  return Math.ceil((usage.inputTokens * rule.input + usage.outputTokens * rule.output) / rule.per);
}

/** A wallet's discount as the price function sees it (docs/operating/administration.md "Discounts"). */
export interface DiscountRule {
  id: number;
  /** a model slug, or `*` for every model */
  model: string;
  /** 1-100 */
  percentOff: number;
  /** epoch ms; null: never expires */
  expiresAt: number | null;
}

/**
 * The one discount that applies to `model` at `now` among a wallet's discounts (no stacking):
 * expired ones (expiresAt <= now) are ignored; a discount on the exact model wins over `*`, even
 * a smaller one; among equally specific ones the larger percent wins (then the older id).
 */
export function chooseDiscount<D extends DiscountRule>(discounts: readonly D[], model: string, now: number): D | null {
  let best: D | null = null;
  const rank = (d: D) => (d.model === model ? 1 : 0);
  for (const d of discounts) {
    if (d.model !== model && d.model !== '*') continue;
    if (d.expiresAt !== null && d.expiresAt <= now) continue;
    if (best === null || rank(d) > rank(best) || (rank(d) === rank(best) && (d.percentOff > best.percentOff || (d.percentOff === best.percentOff && d.id < best.id)))) best = d;
  }
  return best;
}

/**
 * The price after a discount: the list price times (100 - percent) / 100, rounded DOWN to a whole
 * credit (in the customer's favour), but never below 1 credit for a list price of at least 1: only
 * 100 percent off makes a call free (a 1 % discount does not make a 1-credit call free). No
 * discount: the list price. Never more for a lower list price, so a hold covers any charge of a
 * usage below it (usagePrice).
 */
export function applyDiscount(listPrice: number, percentOff: number | null): number {
  if (percentOff === null) return listPrice;
  const discounted = Math.floor((listPrice * (100 - percentOff)) / 100);
  return percentOff < 100 && listPrice >= 1 ? Math.max(1, discounted) : discounted;
}

/** What a whitelabel studio charges on top of list prices (docs/partners/studios.md "Whitelabel studios"). */
export interface StudioPricing {
  payerMode: 'owner_pays' | 'end_user_pays';
  markupPercent: number;
  /** credits per run for some models, instead of the markup */
  modelPrices: Readonly<Record<string, number>>;
}

/**
 * List price -> studio price: the model's own price where the studio sets one, else the list price
 * plus the markup (rounded up); never below the list price (the gateway is always paid its list
 * price, the markup is the owner's). `owner_pays`: the owner pays the list price, no markup.
 */
export function studioPrice(studio: StudioPricing, model: string, listPrice: number): number {
  if (studio.payerMode === 'owner_pays') return listPrice;
  const fixed = studio.modelPrices[model];
  const price = fixed !== undefined ? fixed : Math.ceil((listPrice * (100 + studio.markupPercent)) / 100);
  return Math.max(listPrice, price);
}

/** A term of a rule in one sentence, for the catalog's clients (GET /api/v1/models). */
export function describeTerm(term: PriceTerm): { kind: PriceTerm['kind']; field: string | null; amount: number | null; summary: string } {
  switch (term.kind) {
    case 'per_unit':
      return {
        kind: term.kind, field: term.field, amount: term.amount,
        summary: `${term.amount} credits per ${term.per === 1 ? '' : `${term.per} `}${term.text ? `character${term.per === 1 ? '' : 's'} of` : `unit${term.per === 1 ? '' : 's'} of`} ${term.field}`,
      };
    case 'per_output':
      return { kind: term.kind, field: term.count ?? null, amount: term.amount, summary: `${term.amount} credits per output${term.count ? ` (x ${term.count})` : ''}` };
    case 'per_megapixel': {
      const from = term.size.kind === 'fields' ? `${term.size.width} x ${term.size.height}` : term.size.kind === 'preset' ? `the ${term.size.field} preset` : `${term.size.field}`;
      return {
        kind: term.kind, field: term.size.kind === 'fields' ? term.size.width : term.size.field, amount: term.amount,
        summary: `${term.amount} credits per megapixel of each image (${from}${term.exact ? '' : ', rounded up to whole megapixels'})${term.count ? `, x ${term.count}` : ''}`,
      };
    }
    case 'tiers':
      return {
        kind: term.kind, field: term.field, amount: null,
        summary: `by ${term.field}: ${term.steps.map((s) => (s.upTo === undefined ? `${s.amount} above` : `${s.amount} up to ${s.upTo}`)).join(', ')}`,
      };
  }
}

/** What a call was held at: its price (after the wallet's discount), its list price and the studio markup within both. */
export interface HeldPrice {
  price: number;
  listPrice: number;
  discountPercent: number | null;
  studioMarkup: number;
}

/**
 * What a language-model call costs for the usage it reports (or that was counted), from what it
 * was held at. One rule for both ways of calling a model: POST /v1/chat/completions (settled by
 * the API process) and its asynchronous endpoint (completed by the worker).
 *   - the model's token price of the usage is its list price; the paying wallet's discount applies
 *     to it as to the hold;
 *   - a studio's markup is its held markup in the proportion of the usage's list price to the
 *     hold's (rounded up, never more than held), so a call that used half of what it could pays
 *     half the markup; a studio's per-model price is scaled the same way;
 *   - a model priced otherwise than by tokens costs its hold.
 * The store caps the charge at the hold; a usage whose price is past what the gateway keeps
 * exactly (PriceError) costs the hold.
 */
export function usagePrice(rule: PriceRule, input: Readonly<Record<string, unknown>>, usage: TokenUsage, held: HeldPrice): { charge: number; listCharge: number; studioMarkup: number } {
  const asHeld = { charge: held.price, listCharge: held.listPrice, studioMarkup: held.studioMarkup };
  if (!rule.tokens) return asHeld;
  let list: number;
  try {
    list = computePriceBreakdown(rule, input, usage).total;
  } catch (err) {
    // a usage too large to price exactly costs what the charge is capped at anyway: the hold
    if (err instanceof PriceError) return asHeld;
    throw err;
  }
  const heldList = held.listPrice - held.studioMarkup;
  const markup = held.studioMarkup <= 0 ? 0 : heldList <= 0 ? held.studioMarkup : Math.min(held.studioMarkup, Math.ceil((held.studioMarkup * list) / heldList));
  return { charge: applyDiscount(list, held.discountPercent) + markup, listCharge: list + markup, studioMarkup: markup };
}

/**
 * A price rule as text to keep with a prediction (db: predictions.price_rule), and back: JSON, its
 * maps (multipliers, size presets) as `{"$map": [[key, value], ...]}`.
 */
export function storePriceRule(rule: PriceRule): string {
  return JSON.stringify(rule, (_key, value: unknown) => (value instanceof Map ? { $map: [...value] } : value));
}

export function storedPriceRule(text: string): PriceRule {
  return JSON.parse(text, (_key, value: unknown) => {
    if (isRecord(value) && Array.isArray(value.$map) && Object.keys(value).length === 1) return new Map(value.$map as Array<[unknown, unknown]>);
    return value;
  }) as PriceRule;
}

/** Text the provider did not count, as tokens: each four of its UTF-8 bytes one token, rounded up. */
export function tokensOfBytes(bytes: number): number {
  return Math.ceil(bytes / 4);
}

/**
 * Tokens counted where the provider reported none: each four UTF-8 bytes of the prompt's fields
 * (and of the answer, when its tokens are not counted otherwise) as one token, rounded up.
 */
export function countedTokens(rule: TokenRule | undefined, input: Readonly<Record<string, unknown>>, text: string): TokenUsage {
  const fields = rule?.inputFields ?? ['prompt'];
  let bytes = 0;
  for (const f of fields) {
    const v = input[f];
    if (typeof v === 'string') bytes += Buffer.byteLength(v, 'utf8');
    else if (v !== undefined && v !== null) bytes += Buffer.byteLength(JSON.stringify(v), 'utf8');
  }
  return { inputTokens: tokensOfBytes(bytes), outputTokens: tokensOfBytes(Buffer.byteLength(text, 'utf8')) };
}
