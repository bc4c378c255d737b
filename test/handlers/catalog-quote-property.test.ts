// The quote equals the charge (README "Prices and quotes"), a property over random valid inputs
// of every model: calculateDynamicCost's `cost` is what a real production submit of the same
// input holds (its `price`, X-Cost, and the wallet's `held` delta). Every upstream is
// configured with an address nothing listens on and no worker runs, so each submit takes its
// real hold and then waits in the queue; nothing is called.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import fc from 'fast-check';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { upstreamVariable } from '../../workers/adapters/upstream-config.ts';
import type { ModelInfo } from '../../spec/catalog.ts';
import { upsertDiscounts } from '../../db/discounts.ts';
import { ledgerCheckedAfterEach } from '../helpers/ledger.ts';

let gw: TestGateway;
let acct: Account;
/** an account with discounts in force (README "Discounts"): 37% on every model, and on every other model its own percent */
let discounted: Account;
const exactPercent = (i: number) => 1 + ((i * 29) % 100);
test.before(async () => {
  // the upstream names, from the spec itself
  const probe = await startGateway({ queue: 'memory' });
  const upstreams = new Set([...probe.app.spec.models.values()].map((m) => m.upstream).filter((u): u is string => u !== undefined));
  await probe.stop();
  const env: Record<string, string> = { UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true' };
  for (const u of upstreams) {
    env[upstreamVariable(u, 'URL')] = 'http://127.0.0.1:9';
    env[upstreamVariable(u, 'KEY')] = 'unused';
  }
  gw = await startGateway({ env });
  acct = await newAccount(gw, 1_000_000_000);
  discounted = await newAccount(gw, 1_000_000_000);
  const now = gw.app.clock();
  await upsertDiscounts(gw.app.db, [
    { owner: { userId: discounted.userId, teamId: null }, model: '*', percentOff: 37, expiresAt: null, reason: 'property', createdBy: discounted.userId },
    ...[...gw.app.spec.models.keys()].flatMap((slug, i) => (i % 2 === 0
      ? [{ owner: { userId: discounted.userId, teamId: null }, model: slug, percentOff: exactPercent(i), expiresAt: null, reason: 'property', createdBy: discounted.userId }]
      : [])),
  ], now);
});
test.after.always(async () => {
  await gw?.stop();
});

type Schema = { properties?: Record<string, { type?: unknown; enum?: unknown[]; minimum?: number; maximum?: number; minLength?: number; maxLength?: number; default?: unknown }>; examples?: unknown[] };

function schemaOf(model: ModelInfo): Schema {
  const op = gw.app.spec.operations.find((o) => o.operationId === model.operationId)!;
  return (op.requestBody as { content: Record<string, { schema: Schema }> }).content['application/json']!.schema;
}

/** Random valid inputs of a model: its example, with every priced field drawn from its schema (or left out, to be priced at its default). */
function inputs(model: ModelInfo): fc.Arbitrary<Record<string, unknown>> {
  const schema = schemaOf(model);
  const example = (schema.examples?.[0] ?? {}) as Record<string, unknown>;
  const props = schema.properties ?? {};
  const priced: Record<string, fc.Arbitrary<unknown>> = {};
  const valuesOf = (field: string, fallback: readonly string[]): fc.Arbitrary<unknown> => {
    const p = props[field] ?? {};
    if (Array.isArray(p.enum)) return fc.constantFrom(...p.enum);
    if (p.type === 'boolean') return fc.boolean();
    if (p.type === 'integer') return fc.integer({ min: p.minimum ?? 0, max: p.maximum ?? (p.minimum ?? 0) + 100 });
    if (p.type === 'number') return fc.double({ min: p.minimum ?? 0, max: p.maximum ?? (p.minimum ?? 0) + 100, noNaN: true });
    // an aspect ratio drawn from the common ones (a pattern a generator cannot read)
    if (fallback.length === 0 && /aspect/.test(field)) return fc.constantFrom('1:1', '16:9', '9:16', '4:3', '3:4', '21:9');
    // a text priced by its characters (speech per 1000 characters, a prompt's tokens), of any length the schema allows
    if (fallback.length === 0 && p.type === 'string' && p.enum === undefined) return fc.string({ unit: 'grapheme', minLength: p.minLength ?? 1, maxLength: Math.min(p.maxLength ?? 2000, 2000) });
    return fc.constantFrom(...(fallback.length ? fallback : [p.default]));
  };
  // every field a term of the rule reads (spec/pricing.ts PriceTerm), then the multipliers' fields
  for (const term of model.price.terms) {
    const fields = term.kind === 'per_unit' || term.kind === 'tiers' ? [term.field]
      : term.kind === 'per_output' ? (term.count ? [term.count] : [])
        : [...(term.count ? [term.count] : []), ...(term.size.kind === 'fields' ? [term.size.width, term.size.height] : [term.size.field])];
    for (const f of fields) priced[f] = term.kind === 'per_megapixel' && term.size.kind === 'preset' && f === term.size.field ? fc.constantFrom(...term.size.presets.keys()) : valuesOf(f, []);
  }
  for (const m of model.price.multipliers) priced[m.field] = valuesOf(m.field, [...m.percentByValue.keys()]);
  const fields = Object.keys(priced);
  return fc.tuple(fc.record(priced), fc.subarray(fields)).map(([values, leftOut]) => {
    const input: Record<string, unknown> = { ...example, ...values };
    for (const f of leftOut) if (!(schema as { required?: string[] }).required?.includes(f)) delete input[f];
    return input;
  });
}

ledgerCheckedAfterEach(test, () => gw?.app.db);

async function held(of: Account): Promise<number> {
  return Number((await gw.app.db('users').where({ id: of.userId }).first('held')).held);
}

type Quote = { cost: number; list_price: number; discount: { percent: number; amount: number } | null };

test('for random valid inputs of every model, the quote is what a production submit holds', async (t) => {
  t.true(gw.app.spec.models.size > 20);
  const compared = await quoteEqualsHold(t, acct, 4, (quote) => {
    t.is(quote.discount, null);
    t.is(quote.cost, quote.list_price);
  });
  t.true(compared >= gw.app.spec.models.size, `compared ${compared} submits`);
});

test('with discounts in force (exact model over *), the quote is still what a production submit holds, the list price less the discount rounded down (never below 1 credit short of 100 % off)', async (t) => {
  const slugs = [...gw.app.spec.models.keys()];
  const compared = await quoteEqualsHold(t, discounted, 2, (quote, model) => {
    const i = slugs.indexOf(model.operationId);
    const percent = i % 2 === 0 ? exactPercent(i) : 37;
    if (quote.list_price > 0) t.is(quote.discount?.percent, percent, model.operationId);
    const rounded = Math.floor((quote.list_price * (100 - percent)) / 100);
    t.is(quote.cost, percent < 100 && quote.list_price >= 1 ? Math.max(1, rounded) : rounded, model.operationId);
    t.is(quote.cost, quote.list_price - (quote.discount?.amount ?? 0));
  });
  t.true(compared >= slugs.length, `compared ${compared} submits`);
});

async function quoteEqualsHold(t: ExecutionContext, who: Account, numRuns: number, check: (quote: Quote, model: ModelInfo) => void): Promise<number> {
  const models = [...gw.app.spec.models.values()];
  let compared = 0;
  for (const model of models) {
    await fc.assert(fc.asyncProperty(inputs(model), async (input) => {
      const quote = await callOperation<Quote>(gw, 'calculateDynamicCost', { as: who.liveKey, body: { model: model.operationId, input } });
      const before = await held(who);
      const submit = await gw.server.inject({ method: 'POST', url: model.path, headers: { 'x-api-key': who.liveKey }, payload: input });
      // an input the schema refuses (a combination the generator could not know) is refused by both alike
      if (quote.status === 422) {
        t.is(submit.statusCode, 422, `${model.operationId} ${JSON.stringify(input)}: quote 422, submit ${submit.statusCode}`);
        return;
      }
      t.is(quote.status, 200, JSON.stringify(quote.body));
      t.is(submit.statusCode, 200, `${model.operationId}: ${submit.payload}`);
      const cost = quote.body.cost;
      check(quote.body, model);
      t.is((submit.result as { price: number }).price, cost, `${model.operationId} ${JSON.stringify(input)}`);
      t.is(submit.headers['x-cost'], String(cost));
      t.is(await held(who) - before, cost, `${model.operationId}: held delta`);
      compared++;
    }), { numRuns });
  }
  return compared;
}
