// The dashboard's catalog and quote (README "Prices and quotes"): getHomepageModels and
// getTaskData are views of the entries GET /api/v1/models lists (handlers/models.ts entryOf, the
// one source), and calculateDynamicCost prices an input with the function the submit holds
// (spec/pricing.ts computePriceBreakdown), after the same validation and defaults.
import type { Handler, ReplyOf } from './types.ts';
import type { App } from '../lib/context.ts';
import type { Owner } from '../lib/owner.ts';
import { NotFoundError, ValidationFailedError } from '../lib/errors.ts';
import { toValidationItems } from '../lib/validation-errors.ts';
import type { AjvLikeError } from '../lib/validation-errors.ts';
import type { ModelInfo } from '../spec/catalog.ts';
import { computePriceBreakdown, studioPrice } from '../spec/pricing.ts';
import { studioHides } from './studios.ts';
import { getBalance, getTeamBalance } from '../db/wallet.ts';
import { entryOf } from './models.ts';
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
function validatedInput(app: App, model: ModelInfo, input: Record<string, unknown>): Record<string, unknown> {
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
      .map((i) => ({ ...i, loc: ['body', 'input', ...i.loc.slice(1)] }));
    throw new ValidationFailedError(items.length ? items : [{ loc: ['body', 'input'], msg: 'Input is not valid for this model', type: 'value_error' }]);
  }
  return body;
}

/**
 * THE discount seam: the caller's discount on a model. Discounts do not exist yet (a later issue
 * adds them, e.g. myModelDiscounts); until then nobody has one. When they exist, the submit must
 * apply the same function before its hold, so that the quote stays equal to the charge.
 */
export async function discountFor(_app: App, _owner: Owner, _model: ModelInfo): Promise<{ percent: number } | null> {
  return null;
}

/** POST /app/calculate_dynamic_cost: what a production submit of `input` would hold, with the paying wallet's balance. */
export const calculateDynamicCost: Handler<'calculateDynamicCost'> = async ({ app, caller, body, studio }) => {
  const model = app.spec.models.get(body.model);
  if (!model || studioHides(studio, model.operationId)) throw new NotFoundError(`no model ${body.model} on this gateway; GET /api/v1/models lists them`);
  const input = validatedInput(app, model, body.input);
  const b = computePriceBreakdown(model.price, input);
  const discount = await discountFor(app, caller.owner, model);
  // README "Whitelabel studios": the studio's price of the list price, the submit's own step (handlers/generate.ts)
  const listed = studio ? studioPrice(studio, model.operationId, b.total) : b.total;
  const discountAmount = discount ? Math.floor((listed * discount.percent) / 100) : 0;
  const cost = listed - discountAmount;
  const { teamId, userId } = caller.owner;
  const { balance } = teamId === null ? await getBalance(app.db, userId) : await getTeamBalance(app.db, teamId);
  return {
    model: model.operationId,
    cost,
    list_price: b.total,
    unit: 'credits',
    breakdown: {
      base: b.base,
      per_unit: b.perUnit,
      multipliers: b.multipliers.map((m) => ({ field: m.field, value: m.value, percent: m.percent, price_after: m.priceAfter })),
    },
    discount: discount ? { percent: discount.percent, amount: discountAmount } : null,
    balance,
    affordable: balance >= cost,
  };
};
