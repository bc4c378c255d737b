// Issue 10's storage on the embedded default (SQLite, in-process queue): the LoRA search's LIKE
// (escaping, case), the per-owner unique name, and a key's spend limit under parallel submits
// (the key-row lock is SQLite's write lock there) behave as on MariaDB.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';

let gw: TestGateway;
test.before(async () => {
  gw = await startGateway({ db: 'sqlite', queue: 'memory' });
});
test.after.always(async () => {
  await gw?.stop();
});

type Page = { items: Array<{ name: string }> };

test('the LoRA search is a case-insensitive substring with wildcards taken literally; names are unique per owner', async (t) => {
  const acct = await newAccount(gw);
  const search = async (q: string) => ((await callOperation(gw, 'getLoraModelsData', { query: { lora_type: 'style', q } })).body as Page).items.map((l) => l.name);
  t.deepEqual(await search('INK'), ['ink-noir']);
  t.deepEqual(await search('%'), []);
  t.deepEqual(await search('!'), []);
  t.deepEqual(await search('pxl16'), ['retro-pixel']);
  const body = { name: 'mine', lora_type: 'style', base_model: 'lumen', weights_url: 'https://example.com/w.safetensors' };
  t.is((await callOperation(gw, 'createLora', { as: acct.session, body })).status, 201);
  t.is((await callOperation(gw, 'createLora', { as: acct.session, body })).status, 409);
  // the same name as a public entry is the owner's own
  t.is((await callOperation(gw, 'createLora', { as: acct.session, body: { ...body, name: 'ink-noir' } })).status, 201);
});

test('parallel submits at a key\'s spend limit admit exactly what fits on SQLite', async (t) => {
  const acct = await newAccount(gw, 10_000);
  const key = (await callOperation(gw, 'createApiKey', { as: acct.session, body: { name: 'limited' } })).body as { id: number; key: string };
  t.is((await callOperation(gw, 'updateApiKey', { as: acct.session, params: { key_id: key.id }, body: { spend_limit: 12, spend_limit_period: 'month' } })).status, 200);
  const results = await Promise.all(Array.from({ length: 6 }, () => gw.server.inject({
    method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { 'x-api-key': key.key }, payload: { prompt: 'x', width: 64, height: 64 },
  })));
  const statuses = results.map((r) => r.statusCode).sort();
  t.deepEqual(statuses, [200, 200, 402, 402, 402, 402]);
  t.is(JSON.parse(results.find((r) => r.statusCode === 402)!.payload).code, 'key_spend_limit_exceeded');
});
