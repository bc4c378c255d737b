// Price rules from the spec's x-model.price (docs/api/models.md "Pricing"). Pure: integers in, integers out.
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

/** One step of a price: what `computePriceBreakdown` did, in order (docs/api/models.md "Prices and quotes"). */
export interface PriceBreakdown {
  base: number;
  /** the per-unit charge: amount x units (null when the rule has none) */
  perUnit: { field: string; amount: number; units: number; subtotal: number } | null;
  /** the multipliers that matched the input, in rule order, each with the price after it */
  multipliers: Array<{ field: string; value: string; percent: number; priceAfter: number }>;
  /** the list price: what a submit holds */
  total: number;
}

/**
 * The price of one request with how it was reached; `input` has already been validated and has
 * its defaults applied. The one price rule: billing (the hold) and the quote (calculateDynamicCost)
 * both come through here, by handlers/catalog.ts priceFor, which then applies the paying wallet's
 * discount (chooseDiscount, applyDiscount below); `total` is the list price.
 */
export function computePriceBreakdown(rule: PriceRule, input: Readonly<Record<string, unknown>>): PriceBreakdown {
  let price = rule.base;
  let perUnit: PriceBreakdown['perUnit'] = null;
  if (rule.perUnit) {
    const raw = input[rule.perUnit.field];
    const units = typeof raw === 'number' ? raw : 0;
    const subtotal = rule.perUnit.amount * units;
    price += subtotal;
    perUnit = { field: rule.perUnit.field, amount: rule.perUnit.amount, units, subtotal };
  }
  const multipliers: PriceBreakdown['multipliers'] = [];
  for (const m of rule.multipliers) {
    const value = input[m.field];
    if (value === undefined || value === null) continue;
    const pct = m.percentByValue.get(String(value));
    if (pct === undefined) continue;
    price = Math.ceil((price * pct) / 100);
    multipliers.push({ field: m.field, value: String(value), percent: pct, priceAfter: price });
  }
  return { base: rule.base, perUnit, multipliers, total: price };
}

/** The price of one request (what a submit holds); `input` has already been validated and has its defaults applied. */
export function computePrice(rule: PriceRule, input: Readonly<Record<string, unknown>>): number {
  return computePriceBreakdown(rule, input).total;
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
 * credit (in the customer's favour; 100 percent off is free). No discount: the list price.
 */
export function applyDiscount(listPrice: number, percentOff: number | null): number {
  if (percentOff === null) return listPrice;
  return Math.floor((listPrice * (100 - percentOff)) / 100);
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
