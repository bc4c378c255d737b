// The dashboard's catalog and quote (README "Prices and quotes"): getHomepageModels and
// getTaskData are views of the entries GET /api/v1/models lists (handlers/models.ts entryOf, the
// one source), and calculateDynamicCost prices an input with the function the submit holds
// (handlers/admission.ts priceFor, spec/pricing.ts computePriceBreakdown), after the same
// validation and defaults.
import type { Handler, ReplyOf } from './types.ts';
import type { App } from '../lib/context.ts';
import { NotFoundError, ValidationFailedError } from '../lib/errors.ts';
import { toValidationItems } from '../lib/validation-errors.ts';
import type { AjvLikeError } from '../lib/validation-errors.ts';
import type { ModelInfo } from '../spec/catalog.ts';
import { priceFor, refuseUnservable, studioHides } from './admission.ts';
import { getBalance, getTeamBalance } from '../db/wallet/ledger.ts';
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
