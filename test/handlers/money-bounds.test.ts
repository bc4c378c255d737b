// Money a user sets (a studio's per-model prices, an embed code's caps) is bounded by
// the spec at 1,000,000,000,000 credits, like a key's spend limit and a wallet's budget: a value
// past it is a 422 naming the field, never a 5xx or an unsafe integer in a price; a value at it
// still works. On SQLite with the in-process queue: the bounds are the spec's, the same on MariaDB.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { uniqueName } from '../helpers/services.ts';
import { creditWallet } from '../../db/wallet/moves.ts';

const MODEL = 'canvas-v1-fast-text-to-image';
const MAX_CREDITS = 1_000_000_000_000;
const PASSWORD = 'correct horse battery';

let gw: TestGateway;
let owner: Account;

test.before(async () => {
  gw = await startGateway({ db: 'sqlite', queue: 'memory' });
  owner = await newAccount(gw, 100_000);
});
test.after.always(async () => {
  await gw?.stop();
});

type Detail = { code: string; detail: Array<{ loc: Array<string | number>; msg: string; type: string }> };

/** A 422 whose detail names `field` somewhere in an entry's loc. */
function refusedNaming(t: import('ava').ExecutionContext, res: { status: number; body: unknown; raw: { payload: string } }, field: string) {
  t.is(res.status, 422, res.raw.payload);
  const body = res.body as Detail;
  t.is(body.code, 'validation_failed', res.raw.payload);
  t.true(Array.isArray(body.detail) && body.detail.some((d) => d.loc.includes(field)), res.raw.payload);
}

const slug = () => uniqueName('mb').toLowerCase().replace(/[^a-z0-9-]/g, '').slice(0, 30);
const studioBody = (model_prices: Record<string, unknown>) => ({ slug: slug(), name: 'Shop', allowed_models: [MODEL], payer_mode: 'end_user_pays', model_prices });

test('a studio price per model above 1,000,000,000,000 credits is 422 naming model_prices, on create and on update; one at the bound works end to end', async (t) => {
  for (const v of [MAX_CREDITS + 1, Number.MAX_SAFE_INTEGER, 1e300]) {
    refusedNaming(t, await callOperation(gw, 'createStudio', { as: owner.session, body: studioBody({ [MODEL]: v }) }), 'model_prices');
  }
  const created = await callOperation<{ id: number; slug: string; model_prices: Record<string, number> }>(gw, 'createStudio', { as: owner.session, body: studioBody({ [MODEL]: MAX_CREDITS }) });
  t.is(created.status, 201, created.raw.payload);
  t.deepEqual(created.body.model_prices, { [MODEL]: MAX_CREDITS });
  const studio = created.body;
  for (const v of [MAX_CREDITS + 1, Number.MAX_SAFE_INTEGER]) {
    refusedNaming(t, await callOperation(gw, 'updateStudio', { as: owner.session, params: { studio_id: studio.id }, body: { model_prices: { [MODEL]: v } } }), 'model_prices');
  }
  t.deepEqual((await callOperation<{ model_prices: Record<string, number> }>(gw, 'getStudio', { as: owner.session, params: { studio_id: studio.id } })).body.model_prices, { [MODEL]: MAX_CREDITS }, 'nothing changed');

  // an end user of the studio: quoted the bound exactly, and refused for credit (402, never 5xx)
  const headers = { 'x-whitelabel-studio': studio.slug };
  const email = `${uniqueName('enduser')}@example.com`;
  const reg = await gw.server.inject({ method: 'POST', url: '/auth/register', headers, payload: { email, password: PASSWORD } });
  t.is(reg.statusCode, 201, reg.payload);
  const userId = (reg.result as { id: number }).id;
  await gw.app.db.transaction((trx) => creditWallet(trx, { userId, teamId: null }, 1000, 'grant', 'test credit', gw.app.clock()));
  const login = await gw.server.inject({ method: 'POST', url: '/auth/login', headers, payload: { email, password: PASSWORD } });
  const session = (login.result as { access_token: string }).access_token;
  const quote = await callOperation<{ cost: number }>(gw, 'calculateDynamicCost', { as: session, headers, body: { model: MODEL, input: { prompt: 'a lighthouse' } } });
  t.is(quote.status, 200, quote.raw.payload);
  t.is(quote.body.cost, MAX_CREDITS);
  const submit = await callOperation<{ code: string }>(gw, MODEL, { as: session, headers, body: { prompt: 'a lighthouse' } });
  t.is(submit.status, 402, submit.raw.payload);
  t.is(submit.body.code, 'insufficient_credit');
});

test('an embed code\'s max_cost_per_run, daily_cap and monthly_cap above 1,000,000,000,000 credits are 422 naming the field; at the bound they are kept', async (t) => {
  for (const field of ['max_cost_per_run', 'daily_cap', 'monthly_cap']) {
    refusedNaming(t, await callOperation(gw, 'createEmbedCode', { as: owner.session, body: { kind: 'embed', name: 'w', models: [MODEL], [field]: MAX_CREDITS + 1 } }), field);
    const code = await callOperation<{ id: number } & Record<string, unknown>>(gw, 'createEmbedCode', { as: owner.session, body: { kind: 'embed', name: 'w', models: [MODEL], [field]: MAX_CREDITS } });
    t.is(code.status, 201, code.raw.payload);
    t.is(code.body[field], MAX_CREDITS);
    refusedNaming(t, await callOperation(gw, 'updateEmbedCode', { as: owner.session, params: { embed_code_id: code.body.id }, body: { [field]: Number.MAX_SAFE_INTEGER } }), field);
  }
});

test('Max-Cost and max_cost are caps, not amounts: the largest safe integer is accepted and refuses nothing', async (t) => {
  const acct = await newAccount(gw, 10_000);
  const body = { prompt: 'a lighthouse' };
  const ok = await callOperation(gw, MODEL, { as: acct.liveKey, body, headers: { 'max-cost': String(Number.MAX_SAFE_INTEGER) }, query: { max_cost: Number.MAX_SAFE_INTEGER } });
  t.is(ok.status, 200, ok.raw.payload);
});
