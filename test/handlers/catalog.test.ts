// The dashboard catalog and the quote on MariaDB (README "Prices and quotes"): getHomepageModels
// and getTaskData are the /api/v1/models entries; calculateDynamicCost validates like the
// submit, breaks the price down, and shows the paying wallet's balance, the team's with team_id.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { creditTeam } from '../../db/wallet/moves.ts';

let gw: TestGateway;
let a: Account;
let b: Account;
let teamId: number;
test.before(async () => {
  gw = await startGateway({ queue: 'memory' });
  a = await newAccount(gw, 1_000);
  b = await newAccount(gw, 7);
  const team = await callOperation(gw, 'createTeam', { as: a.session, body: { name: 'quotes' } });
  teamId = (team.body as { id: number }).id;
  await gw.app.db.transaction((trx) => creditTeam(trx, teamId, a.userId, 4_000, 'topup', 'test', Date.now()));
});
test.after.always(async () => {
  await gw?.stop();
});

type Entry = { slug: string; category: string; tier: string; price: unknown; input_schema: unknown; available: boolean };
type Task = { name: string; category: string; tier: string; endpoint: string; base_price: number; price: unknown; available: boolean; input_schema?: unknown };

test('homepage models: one per category and tier, each the same entry GET /api/v1/models lists, without a schema', async (t) => {
  const models = ((await callOperation(gw, 'listModels')).body as { models: Entry[] }).models;
  const res = await callOperation(gw, 'getHomepageModels');
  t.is(res.status, 200);
  const tasks = res.body as Task[];
  const slots = new Set(models.map((m) => `${m.category}/${m.tier}`));
  t.is(tasks.length, slots.size);
  t.is(new Set(tasks.map((x) => `${x.category}/${x.tier}`)).size, slots.size);
  for (const task of tasks) {
    const entry = models.find((m) => m.slug === task.name)!;
    t.deepEqual(task.price, entry.price);
    t.is(task.available, entry.available);
    t.is(task.input_schema, undefined);
    t.is(task.endpoint, `/api/v1/${task.name}`);
    // an available model is preferred in its slot
    if (!task.available) t.false(models.some((m) => m.category === task.category && m.tier === task.tier && m.available));
  }
  t.true(tasks.some((x) => x.name === 'canvas-v1-fast-text-to-image' && x.available));
});

test('task data: one model with its schema and price as listed; an unknown slug is 404, no name 422', async (t) => {
  const models = ((await callOperation(gw, 'listModels')).body as { models: Entry[] }).models;
  const res = await callOperation(gw, 'getTaskData', { query: { name: 'aurora-v3-pro-text-to-video' } });
  t.is(res.status, 200);
  const task = res.body as Task;
  const entry = models.find((m) => m.slug === 'aurora-v3-pro-text-to-video')!;
  t.deepEqual(task.input_schema, entry.input_schema);
  t.deepEqual(task.price, entry.price);
  t.is(task.available, false);
  t.is((await callOperation(gw, 'getTaskData', { query: { name: 'no-such-model' } })).status, 404);
  t.is((await callOperation(gw, 'getTaskData')).status, 422);
});

test('a quote breaks the price down and shows the caller\'s own balance', async (t) => {
  const input = { prompt: 'a storm at sea', duration: 10, generate_audio: false };
  const res = await callOperation(gw, 'calculateDynamicCost', { as: a.session, body: { model: 'aurora-v3-pro-text-to-video', input } });
  t.is(res.status, 200, JSON.stringify(res.body));
  const q = res.body as { cost: number; list_price: number; breakdown: { base: number; per_unit: { units: number; subtotal: number; amount: number } | null; multipliers: Array<{ price_after: number; percent: number }> }; discount: unknown; balance: number; affordable: boolean };
  const model = gw.app.spec.models.get('aurora-v3-pro-text-to-video')!;
  t.is(q.breakdown.base, model.price.base);
  t.is(q.breakdown.per_unit!.units, 10);
  t.is(q.breakdown.per_unit!.subtotal, 10 * q.breakdown.per_unit!.amount);
  t.true(q.breakdown.multipliers.length >= 1);
  t.is(q.list_price, q.breakdown.multipliers.at(-1)!.price_after);
  t.is(q.cost, q.list_price);
  t.is(q.discount, null);
  t.is(q.balance, 1_000);
  t.is(q.affordable, q.cost <= 1_000);
  const cheap = await callOperation(gw, 'calculateDynamicCost', { as: b.liveKey, body: { model: 'canvas-v1-fast-text-to-image', input: { prompt: 'x', num_images: 2 } } });
  t.like(cheap.body, { cost: 8, list_price: 8, balance: 7, affordable: false, breakdown: { base: 2, per_unit: { field: 'num_images', amount: 3, units: 2, subtotal: 6 }, multipliers: [] } });
  // a field left out is priced at its default, as the submit does
  const defaults = await callOperation(gw, 'calculateDynamicCost', { as: b.liveKey, body: { model: 'canvas-v1-fast-text-to-image', input: { prompt: 'x' } } });
  t.like(defaults.body, { cost: 5, breakdown: { per_unit: { units: 1 } } });
});

test('with team_id the balance is the team wallet\'s; a team the caller is not in is 404', async (t) => {
  const body = { model: 'canvas-v1-fast-text-to-image', input: { prompt: 'x' } };
  const res = await callOperation(gw, 'calculateDynamicCost', { as: a.session, query: { team_id: teamId }, body });
  t.is(res.status, 200);
  t.like(res.body, { balance: 4_000, cost: 5 });
  const stranger = await callOperation(gw, 'calculateDynamicCost', { as: b.session, query: { team_id: teamId }, body });
  t.is(stranger.status, 404);
});

test('the quote refuses what the submit refuses: a bad input 422 under body.input, an unknown model 404, no credential 401', async (t) => {
  const bad = await callOperation(gw, 'calculateDynamicCost', { as: a.session, body: { model: 'canvas-v1-fast-text-to-image', input: { prompt: 'x', num_images: 9, color: 'red' } } });
  t.is(bad.status, 422);
  const locs = (bad.body as { detail: Array<{ loc: unknown[] }> }).detail.map((d) => d.loc);
  t.true(locs.some((l) => JSON.stringify(l) === JSON.stringify(['body', 'input', 'num_images'])), JSON.stringify(locs));
  t.true(locs.some((l) => JSON.stringify(l) === JSON.stringify(['body', 'input', 'color'])), JSON.stringify(locs));
  const missing = await callOperation(gw, 'calculateDynamicCost', { as: a.session, body: { model: 'canvas-v1-fast-text-to-image', input: {} } });
  t.deepEqual((missing.body as { detail: Array<{ loc: unknown[] }> }).detail[0]!.loc, ['body', 'input', 'prompt']);
  t.is((await callOperation(gw, 'calculateDynamicCost', { as: a.session, body: { model: 'nope', input: {} } })).status, 404);
  t.is((await callOperation(gw, 'calculateDynamicCost', { body: { model: 'canvas-v1-fast-text-to-image', input: { prompt: 'x' } } })).status, 401);
  t.is((await callOperation(gw, 'calculateDynamicCost', { as: a.session, body: { model: 'canvas-v1-fast-text-to-image' } })).status, 422);
});
