// The dashboard's catalog and quote (README "Prices and quotes"): getHomepageModels and
// getTaskData are views of the entries GET /api/v1/models lists (handlers/models.ts entryOf, the
// one source), and calculateDynamicCost prices an input with the function the submit holds
// (spec/pricing.ts computePriceBreakdown), after the same validation and defaults.
import type { Handler, ReplyOf } from './types.ts';
import type { App, Caller, StudioContext } from '../lib/context.ts';
import type { Owner } from '../lib/caller.ts';
import { NotFoundError, ValidationFailedError } from '../lib/errors.ts';
import { toValidationItems } from '../lib/validation-errors.ts';
import type { AjvLikeError } from '../lib/validation-errors.ts';
import type { ModelInfo } from '../spec/catalog.ts';
import { applyDiscount, chooseDiscount, computePriceBreakdown, studioPrice } from '../spec/pricing.ts';
import type { PriceBreakdown } from '../spec/pricing.ts';
import { discountsForModel } from '../db/discounts.ts';
import { studioHides } from './studios.ts';
import { getBalance, getTeamBalance } from '../db/wallet/ledger.ts';
import { entryOf } from './models.ts';
import { configuredProviders } from '../workers/adapters/index.ts';
import { acceptingProviders } from '../spec/mapping.ts';
import type { ModelEntry } from './models.ts';

type Task = ReplyOf<'getTaskData'>;

function taskOf(app: App, entry: ModelEntry, withSchema: boolean): Task {
  const op = app.spec.operations.find((o) => o.operationId === entry.slug);
  return {
    name: entry.slug,
    title: entry.title,
    category: entry.category as Task['category'],
    tier: entry.tier as Task['tier'],
    family: entry.family,
    output: entry.output as Task['output'],
    description: typeof op?.description === 'string' ? op.description : '',
    endpoint: entry.path,
    base_price: entry.price.base,
    price: entry.price,
    available: entry.available,
    ...(withSchema ? { input_schema: entry.input_schema } : {}),
  };
}

/** GET /app/get_homepage_models: one model per (category, tier), the first available one in spec order, else the first. */
export const getHomepageModels: Handler<'getHomepageModels'> = async ({ app, studio }) => {
  const picked = new Map<string, ModelEntry>();
  for (const model of app.spec.models.values()) {
    if (studioHides(studio, model.operationId)) continue;
    const entry = entryOf(app, model);
    const slot = `${entry.category}\u0000${entry.tier}`;
    const held = picked.get(slot);
    if (!held || (!held.available && entry.available)) picked.set(slot, entry);
  }
  // spec order of the picked entries
  const chosen = new Set([...picked.values()].map((e) => e.slug));
  return [...app.spec.models.values()].filter((m) => chosen.has(m.operationId)).map((m) => taskOf(app, picked.get(`${m.category}\u0000${m.tier}`)!, false));
};

/** GET /app/get-task-data?name=<slug>: one model with its input schema. */
export const getTaskData: Handler<'getTaskData'> = async ({ app, query, studio }) => {
  const model = app.spec.models.get(query.name);
  if (!model || studioHides(studio, model.operationId)) throw new NotFoundError(`no model ${query.name} on this gateway; GET /api/v1/models lists them`);
  return taskOf(app, entryOf(app, model), true);
};

/**
 * The input as the submit would see it: validated against the model operation's request body
 * with the same validator (defaults filled in, so a field left out is priced at its default).
 * Problems are reported under ["body", "input", ...].
 */
/** A model's input validated against its schema, defaults applied; a 422 names each field under `at` (the body's `input` by default). */
export function validatedInput(app: App, model: ModelInfo, input: Record<string, unknown>, at: readonly string[] = ['body', 'input']): Record<string, unknown> {
  const operation = app.spec.operations.find((o) => o.operationId === model.operationId)!;
  const { validator } = app.spec.api;
  if (validator.requestValidators[model.operationId] === undefined) {
    validator.requestValidators[model.operationId] = validator.buildRequestValidatorsForOperation(operation);
  }
  const body = structuredClone(input);
  const validation = validator.validateRequest({ method: 'post', path: model.path, headers: { 'content-type': 'application/json' }, query: {}, body }, operation);
  if (!validation.valid) {
    const items = toValidationItems((validation.errors ?? []) as unknown as AjvLikeError[])
      .filter((i) => i.loc[0] === 'body')
      .map((i) => ({ ...i, loc: [...at, ...i.loc.slice(1)] }));
    throw new ValidationFailedError(items.length ? items : [{ loc: [...at], msg: 'Input is not valid for this model', type: 'value_error' }]);
  }
  return body;
}

/**
 * Refuses (422, before any hold) an input that none of the providers that would run it can take:
 * a value outside a provider's limits, or one its mapping cannot send (a value its value map
 * lacks). Production checks the configured providers; with none configured (a sandbox key, or
 * the quote of a model this gateway cannot run) every declared provider is tried, so the answer
 * is the model's, whatever this gateway configures. Each item names the field under `loc`.
 */
export function refuseUnservable(app: App, model: ModelInfo, input: Readonly<Record<string, unknown>>, loc: readonly string[]): void {
  const configured = configuredProviders(model, app.adapterEnv);
  const { problems } = acceptingProviders(configured.length ? configured : model.providers, input);
  if (problems.length === 0) return;
  throw new ValidationFailedError(problems.map((p) => ({ loc: [...loc, p.field], msg: `${p.msg} (a limit of this model's provider${model.providers.length > 1 ? 's' : ''} on this gateway)`, type: 'provider_limit' })));
}

/** What a production submit of an input to a model holds: the list price, the discount that applies, the price after it. */
export interface Priced {
  breakdown: PriceBreakdown;
  /** the price before the discount: the gateway's list price, or in a studio its studio price (README "Whitelabel studios") */
  listPrice: number;
  /** the one discount applied (README "Discounts"); null: none */
  discountPercent: number | null;
  price: number;
  /** in a studio (end_user_pays): the owner's markup in `price`, credited to the owner on the charge; 0 otherwise */
  studioMarkup: number;
}

/**
 * THE price function: the quote (calculateDynamicCost) and the submit's hold (handlers/generate.ts)
 * both come through here, so a quote equals the charge. The discount is that of the wallet that
 * pays (`owner`: the team for team keys, team embed codes and `team_id`; in an `owner_pays` studio
 * the studio owner's), chosen by spec/pricing.ts chooseDiscount at the app's clock, and applied
 * by applyDiscount to the gateway's list price. A studio's markup (spec/pricing.ts studioPrice)
 * is added after the discount and is the studio owner's whole: a discount is the gateway's to give.
 */
export async function priceFor(
  app: App, owner: Owner, model: ModelInfo, input: Readonly<Record<string, unknown>>, studio?: StudioContext | null, caller?: Pick<Caller, 'userId' | 'keyOwnerDiscounts'>,
): Promise<Priced> {
  const breakdown = computePriceBreakdown(model.price, input);
  const payer = studio?.payerMode === 'owner_pays' ? { userId: studio.userId, teamId: studio.teamId } : owner;
  // a personal key's owner paying from a wallet with no discount rows (the marker read with the key): no lookup
  const none = caller?.keyOwnerDiscounts === 0 && payer.teamId === null && payer.userId === caller.userId;
  const discount = breakdown.total > 0 && !none ? chooseDiscount(await discountsForModel(app.db, payer, model.operationId), model.operationId, app.clock()) : null;
  const discountPercent = discount?.percentOff ?? null;
  const studioMarkup = studio ? studioPrice(studio, model.operationId, breakdown.total) - breakdown.total : 0;
  return { breakdown, listPrice: breakdown.total + studioMarkup, discountPercent, price: applyDiscount(breakdown.total, discountPercent) + studioMarkup, studioMarkup };
}

/** POST /app/calculate_dynamic_cost: what a production submit of `input` would hold, with the paying wallet's balance. */
export const calculateDynamicCost: Handler<'calculateDynamicCost'> = async ({ app, caller, body, studio }) => {
  const model = app.spec.models.get(body.model);
  if (!model || studioHides(studio, model.operationId)) throw new NotFoundError(`no model ${body.model} on this gateway; GET /api/v1/models lists them`);
  const input = validatedInput(app, model, body.input);
  refuseUnservable(app, model, input, ['body', 'input']);
  const { breakdown: b, listPrice, discountPercent, price: cost, studioMarkup } = await priceFor(app, caller.owner, model, input, studio, caller);
  const { teamId, userId } = caller.owner;
  const { balance } = teamId === null ? await getBalance(app.db, userId) : await getTeamBalance(app.db, teamId);
  return {
    model: model.operationId,
    cost,
    list_price: listPrice,
    unit: 'credits',
    // in a studio that marks prices up, its price is one figure: the model's rule would show the
    // gateway's list price, which is the studio owner's business (README "Whitelabel studios")
    breakdown: studioMarkup > 0 ? { base: listPrice, per_unit: null, terms: [], multipliers: [], minimum: null } : {
      base: b.base,
      per_unit: b.perUnit,
      terms: b.terms.map((t) => ({ kind: t.kind, field: t.field, amount: t.amount, units: t.units, subtotal: t.subtotal })),
      multipliers: b.multipliers.map((m) => ({ field: m.field, value: m.value, percent: m.percent, price_after: m.priceAfter })),
      minimum: b.minimum,
    },
    discount: discountPercent === null ? null : { percent: discountPercent, amount: listPrice - cost },
    balance,
    affordable: balance >= cost,
  };
};
