// The LoRA registry on MariaDB (README "LoRAs"): the public catalogue (search, pages, edges),
// owners' own entries (a user's, a team's; nothing of one tenant visible to another), and the
// `loras` model input checked at submit (422 naming loras[i]).
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { waitFor } from '../helpers/services.ts';
import { insertLora } from '../../db/loras.ts';

let gw: TestGateway;
let a: Account;
let b: Account;
let teamId: number;
test.before(async () => {
  gw = await startGateway({ worker: true });
  a = await newAccount(gw, 1_000);
  b = await newAccount(gw, 1_000);
  teamId = ((await callOperation(gw, 'createTeam', { as: a.session, body: { name: 'lora team' } })).body as { id: number }).id;
});
test.after.always(async () => {
  await gw?.stop();
});

type LoraView = { id: number; name: string; lora_type: string; base_model: string; visibility: string; weights_url: string; team_id: number | null; trigger_words: string[] };
type LoraPage = { items: LoraView[]; page: number; page_size: number; total: number | null; has_more: boolean };

const LORA = { lora_type: 'style', base_model: 'lumen', weights_url: 'https://weights.example.com/x.safetensors', trigger_words: ['xyzstyle'] };

test.serial('the public catalogue lists seeded LoRAs of a type by name, searchable by name, title and trigger word', async (t) => {
  const res = await callOperation(gw, 'getLoraModelsData', { query: { lora_type: 'style' } });
  t.is(res.status, 200);
  const page = res.body as LoraPage;
  const names = page.items.map((l) => l.name);
  t.deepEqual(names, [...names].sort());
  t.true(names.includes('watercolor-wash') && names.includes('ink-noir'));
  t.false(names.includes('captain-nova'));
  t.true(page.items.every((l) => l.visibility === 'public' && l.team_id === null));
  t.like(page, { page: 1, page_size: 20, has_more: false });
  t.is(page.total, page.items.length);
  const byTrigger = (await callOperation(gw, 'getLoraModelsData', { query: { lora_type: 'style', q: 'PXL16' } })).body as LoraPage;
  t.deepEqual(byTrigger.items.map((l) => l.name), ['retro-pixel']);
  const byTitle = (await callOperation(gw, 'getLoraModelsData', { query: { lora_type: 'character', q: 'nova' } })).body as LoraPage;
  t.deepEqual(byTitle.items.map((l) => l.name), ['captain-nova']);
  // LIKE wildcards are taken literally
  t.deepEqual(((await callOperation(gw, 'getLoraModelsData', { query: { lora_type: 'style', q: '%' } })).body as LoraPage).items, []);
  t.deepEqual(((await callOperation(gw, 'getLoraModelsData', { query: { lora_type: 'style', q: '_' } })).body as LoraPage).items, []);
});

test.serial('pages: page 0 is 422, a page past the end is empty; lora_type is required and must be known', async (t) => {
  t.is((await callOperation(gw, 'getLoraModelsData', { query: { lora_type: 'style', page: 0 } })).status, 422);
  const past = await callOperation(gw, 'getLoraModelsData', { query: { lora_type: 'style', page: 2 } });
  t.is(past.status, 200);
  t.like(past.body, { items: [], page: 2, has_more: false });
  const far = await callOperation(gw, 'getLoraModelsData', { query: { lora_type: 'style', page: 9_000_000_000_000 } });
  t.is(far.status, 200);
  t.deepEqual((far.body as LoraPage).items, []);
  t.is((await callOperation(gw, 'getLoraModelsData')).status, 422);
  t.is((await callOperation(gw, 'getLoraModelsData', { query: { lora_type: 'video' } })).status, 422);
});

test.serial('one public LoRA by name and type; another type or an unknown name is 404', async (t) => {
  const res = await callOperation(gw, 'getLoraData', { query: { name: 'ink-noir', lora_type: 'style' } });
  t.is(res.status, 200);
  t.like(res.body, { name: 'ink-noir', lora_type: 'style', base_model: 'lumen', visibility: 'public', trigger_words: ['inknoir'] });
  t.is((await callOperation(gw, 'getLoraData', { query: { name: 'ink-noir', lora_type: 'character' } })).status, 404);
  t.is((await callOperation(gw, 'getLoraData', { query: { name: 'nope', lora_type: 'style' } })).status, 404);
  t.is((await callOperation(gw, 'getLoraData', { query: { name: 'ink-noir' } })).status, 422);
});

test.serial('an owner registers its own LoRAs; they are its alone and never in the public catalogue', async (t) => {
  const created = await callOperation(gw, 'createLora', { as: a.session, body: { ...LORA, name: 'a-private-style', title: 'A private' } });
  t.is(created.status, 201, JSON.stringify(created.body));
  t.like(created.body, { name: 'a-private-style', visibility: 'owned', team_id: null, base_model: 'lumen' });
  t.is((await callOperation(gw, 'createLora', { as: a.liveKey, body: { ...LORA, name: 'a-private-style' } })).status, 409);
  // b may use the same name: names are per owner
  t.is((await callOperation(gw, 'createLora', { as: b.session, body: { ...LORA, name: 'a-private-style', weights_url: 'https://weights.example.com/b.safetensors' } })).status, 201);
  const mine = (await callOperation(gw, 'listOwnLoras', { as: a.session })).body as LoraPage;
  t.deepEqual(mine.items.map((l) => l.weights_url), ['https://weights.example.com/x.safetensors']);
  const theirs = (await callOperation(gw, 'listOwnLoras', { as: b.liveKey })).body as LoraPage;
  t.deepEqual(theirs.items.map((l) => l.weights_url), ['https://weights.example.com/b.safetensors']);
  const pub = (await callOperation(gw, 'getLoraModelsData', { query: { lora_type: 'style', q: 'a-private' } })).body as LoraPage;
  t.deepEqual(pub.items, []);
  t.is((await callOperation(gw, 'getLoraData', { query: { name: 'a-private-style', lora_type: 'style' } })).status, 404);
  t.is((await callOperation(gw, 'listOwnLoras', { as: a.session, query: { page: 0 } })).status, 422);
  t.deepEqual(((await callOperation(gw, 'listOwnLoras', { as: a.session, query: { page: 2 } })).body as LoraPage).items, []);
  t.is((await callOperation(gw, 'listOwnLoras')).status, 401);
});

test.serial('registration refuses a base model no family here takes LoRAs for, and non-https weights', async (t) => {
  const family = await callOperation(gw, 'createLora', { as: a.session, body: { ...LORA, name: 'video-thing', base_model: 'aurora-v3' } });
  t.is(family.status, 422);
  t.deepEqual((family.body as { detail: Array<{ loc: unknown[] }> }).detail[0]!.loc, ['body', 'base_model']);
  t.is((await callOperation(gw, 'createLora', { as: a.session, body: { ...LORA, name: 'plain-http', weights_url: 'http://weights.example.com/x' } })).status, 422);
  t.is((await callOperation(gw, 'createLora', { as: a.session, body: { ...LORA, name: 'Bad Name' } })).status, 422);
});

test.serial('registration refuses weights or a preview at a private, loopback or internal address, as a webhook is', async (t) => {
  for (const [field, url] of [
    ['weights_url', 'https://169.254.169.254/latest/meta-data'],
    ['weights_url', 'https://10.0.0.7/x.safetensors'],
    ['weights_url', 'https://[::1]/x.safetensors'],
    ['weights_url', 'https://localhost/x.safetensors'],
    ['weights_url', 'https://metadata.google.internal/x'],
    ['preview_url', 'https://192.168.1.1/p.png'],
  ] as const) {
    const res = await callOperation(gw, 'createLora', { as: a.session, body: { ...LORA, name: 'ssrf-probe', [field]: url } });
    t.is(res.status, 422, `${field} ${url}`);
    const item = (res.body as { detail: Array<{ loc: unknown[]; msg: string }> }).detail[0]!;
    t.deepEqual(item.loc, ['body', field]);
    t.regex(item.msg, new RegExp(`^${field} must point at a public`));
  }
  const own = (await callOperation(gw, 'listOwnLoras', { as: a.session, query: { lora_type: 'style', q: 'ssrf-probe' } })).body as LoraPage;
  t.deepEqual(own.items, [], 'nothing was stored');
});

test.serial('an own LoRA stored with weights at a private address (registered before the rule) is 422 at submit, nothing held', async (t) => {
  await insertLora(gw.app.db, { userId: a.userId, teamId: null }, { name: 'old-internal', loraType: 'style', title: 'old', description: '', baseModel: 'lumen', triggerWords: [], previewUrl: null, weightsUrl: 'https://10.1.2.3/w.safetensors' }, gw.app.clock());
  const before = await gw.app.db('users').where({ id: a.userId }).first('balance');
  const res = await gw.server.inject({ method: 'POST', url: '/api/v1/lumen-dev-text-to-image', headers: { 'x-api-key': a.testKey }, payload: { prompt: 'x', loras: [{ name: 'old-internal' }] } });
  t.is(res.statusCode, 422, res.payload);
  const item = (res.result as { detail: Array<{ loc: unknown[]; msg: string }> }).detail[0]!;
  t.deepEqual(item.loc, ['body', 'loras', 0, 'name']);
  t.regex(item.msg, /LoRA old-internal: its weights_url must point at a public address/);
  t.deepEqual(await gw.app.db('users').where({ id: a.userId }).first('balance'), before);
});

test.serial('a team\'s LoRAs: registered with team_id, listed with it, not in the personal list; a non-member gets 404', async (t) => {
  const created = await callOperation(gw, 'createLora', { as: a.session, query: { team_id: teamId }, body: { ...LORA, name: 'team-style' } });
  t.is(created.status, 201);
  t.like(created.body, { team_id: teamId, visibility: 'owned' });
  const team = (await callOperation(gw, 'listOwnLoras', { as: a.session, query: { team_id: teamId } })).body as LoraPage;
  t.deepEqual(team.items.map((l) => l.name), ['team-style']);
  const personal = (await callOperation(gw, 'listOwnLoras', { as: a.session })).body as LoraPage;
  t.false(personal.items.some((l) => l.name === 'team-style'));
  t.is((await callOperation(gw, 'listOwnLoras', { as: b.session, query: { team_id: teamId } })).status, 404);
  t.is((await callOperation(gw, 'createLora', { as: b.session, query: { team_id: teamId }, body: { ...LORA, name: 'intruder' } })).status, 404);
});

test.serial('a submit with loras: a public or own LoRA of the model\'s family passes with its weights; unknown, foreign or other-family is 422 naming loras[i]', async (t) => {
  await callOperation(gw, 'createLora', { as: b.session, body: { ...LORA, name: 'b-only', weights_url: 'https://weights.example.com/b-only.safetensors' } });
  const url = '/api/v1/lumen-dev-text-to-image';
  const submit = (key: string, loras: unknown[], query = '') => gw.server.inject({ method: 'POST', url: `${url}${query}`, headers: { 'x-api-key': key }, payload: { prompt: 'x', loras } });

  const ok = await submit(a.testKey, [{ name: 'watercolor-wash', scale: 0.5 }, { name: 'ink-noir' }]);
  t.is(ok.statusCode, 200, ok.payload);
  const row = await gw.app.db('predictions').where({ id: (ok.result as { request_id: string }).request_id }).first();
  t.deepEqual(JSON.parse(row.input).loras, [
    { name: 'watercolor-wash', scale: 0.5, weights_url: 'https://example.com/loras/weights/watercolor-wash.safetensors' },
    { name: 'ink-noir', scale: 1, weights_url: 'https://example.com/loras/weights/ink-noir.safetensors' },
  ]);

  const foreign = await submit(a.testKey, [{ name: 'ink-noir' }, { name: 'b-only' }]);
  t.is(foreign.statusCode, 422);
  const detail = (JSON.parse(foreign.payload) as { detail: Array<{ loc: unknown[]; msg: string }> }).detail;
  t.deepEqual(detail.map((d) => d.loc), [['body', 'loras', 1, 'name']]);
  const unknown = await submit(a.testKey, [{ name: 'no-such-lora' }]);
  t.deepEqual((JSON.parse(unknown.payload) as { detail: Array<{ loc: unknown[] }> }).detail[0]!.loc, ['body', 'loras', 0, 'name']);
  const family = await submit(a.testKey, [{ name: 'canvas-stripes' }]);
  t.is(family.statusCode, 422);
  t.regex((JSON.parse(family.payload) as { detail: Array<{ msg: string }> }).detail[0]!.msg, /canvas-v1 family/);
  // the team's LoRA only for the team's submits
  t.is((await submit(a.testKey, [{ name: 'team-style' }])).statusCode, 422);
  // a family without `loras` in its schema refuses the field outright
  const noLoras = await gw.server.inject({ method: 'POST', url: '/api/v1/lumen-pro-text-to-image', headers: { 'x-api-key': a.testKey }, payload: { prompt: 'x', loras: [{ name: 'ink-noir' }] } });
  t.is(noLoras.statusCode, 422);
});

test.serial('a team submit may use the team\'s LoRA; a production local submit with a LoRA completes', async (t) => {
  await callOperation(gw, 'createLora', { as: a.session, query: { team_id: teamId }, body: { ...LORA, name: 'team-canvas', base_model: 'canvas-v1' } });
  const res = await gw.server.inject({
    method: 'POST', url: `/api/v1/canvas-v1-fast-text-to-image?team_id=${teamId}`, headers: { authorization: `Bearer ${a.session}` },
    payload: { prompt: 'x', width: 64, height: 64, loras: [{ name: 'team-canvas' }, { name: 'canvas-stripes' }] },
  });
  // the team wallet is empty: the LoRA check passed and the hold refused
  t.is(res.statusCode, 402, res.payload);
  const own = await gw.server.inject({
    method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { 'x-api-key': a.liveKey },
    payload: { prompt: 'x', width: 64, height: 64, loras: [{ name: 'canvas-stripes', scale: 2 }] },
  });
  t.is(own.statusCode, 200, own.payload);
  const id = (own.result as { request_id: string }).request_id;
  const done = await waitFor(async () => {
    const p = await gw.app.db('predictions').where({ id }).first();
    return p.status === 'completed' ? p : undefined;
  }, { what: 'the LoRA prediction to complete' });
  t.is(done.status, 'completed');
});
