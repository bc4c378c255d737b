// Price rules from the spec's x-model.price (README "Pricing"). Pure: integers in, integers out.
//   price = base + per_unit.amount * input[per_unit.field]
//   then, for each multiplier whose field's value matches, price = ceil(price * percent / 100)

export interface PriceRule {
  base: number;
  perUnit?: { field: string; amount: number };
  multipliers: Array<{ field: string; percentByValue: ReadonlyMap<string, number> }>;
}

interface InputSchema {
  properties?: Record<string, { type?: unknown; default?: unknown }>;
  required?: string[];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function nonNegativeInt(v: unknown): v is number {
  return Number.isSafeInteger(v) && (v as number) >= 0;
}

/** Checks a rule against the model's input schema; throws an Error whose message names the problem. */
export function parsePriceRule(raw: unknown, inputSchema: unknown): PriceRule {
  if (!isRecord(raw)) throw new Error('x-model.price must be an object');
  const schema = (isRecord(inputSchema) ? inputSchema : {}) as InputSchema;
  const props = schema.properties ?? {};
  for (const key of Object.keys(raw)) {
    if (!['base', 'per_unit', 'multipliers'].includes(key)) throw new Error(`x-model.price has unknown key "${key}"`);
  }
  if (!nonNegativeInt(raw.base)) throw new Error('x-model.price.base must be a non-negative integer');
  const rule: PriceRule = { base: raw.base, multipliers: [] };

  if (raw.per_unit !== undefined) {
    const pu = raw.per_unit;
    if (!isRecord(pu) || typeof pu.field !== 'string' || !nonNegativeInt(pu.amount)) {
      throw new Error('x-model.price.per_unit needs a string "field" and a non-negative integer "amount"');
    }
    const prop = props[pu.field];
    if (!prop) throw new Error(`x-model.price.per_unit.field "${pu.field}" is not an input property`);
    if (prop.type !== 'integer') throw new Error(`x-model.price.per_unit.field "${pu.field}" must be an integer property`);
    if (prop.default === undefined && !(schema.required ?? []).includes(pu.field)) {
      throw new Error(`x-model.price.per_unit.field "${pu.field}" needs a default or must be required`);
    }
    rule.perUnit = { field: pu.field, amount: pu.amount };
  }

  if (raw.multipliers !== undefined) {
    if (!isRecord(raw.multipliers)) throw new Error('x-model.price.multipliers must be an object');
    for (const [field, table] of Object.entries(raw.multipliers)) {
      if (!props[field]) throw new Error(`x-model.price.multipliers field "${field}" is not an input property`);
      if (!isRecord(table)) throw new Error(`x-model.price.multipliers.${field} must map values to percents`);
      const map = new Map<string, number>();
      for (const [value, pct] of Object.entries(table)) {
        if (!Number.isSafeInteger(pct) || (pct as number) <= 0) throw new Error(`x-model.price.multipliers.${field}.${value} must be a positive integer percent`);
        map.set(value, pct as number);
      }
      rule.multipliers.push({ field, percentByValue: map });
    }
  }
  return rule;
}

/** The price of one request; `input` has already been validated and has its defaults applied. */
export function computePrice(rule: PriceRule, input: Readonly<Record<string, unknown>>): number {
  let price = rule.base;
  if (rule.perUnit) {
    const units = input[rule.perUnit.field];
    price += rule.perUnit.amount * (typeof units === 'number' ? units : 0);
  }
  for (const m of rule.multipliers) {
    const value = input[m.field];
    if (value === undefined || value === null) continue;
    const pct = m.percentByValue.get(String(value));
    if (pct !== undefined) price = Math.ceil((price * pct) / 100);
  }
  return price;
}
