// Reloading the catalog without a restart (POST /auth/admin_reload_catalog; SIGHUP does the same
// in a real process, test/integration/catalog-reload.test.ts): a model file added to MODELS_DIR
// answers at once, a removed one answers 404, a file that does not load changes nothing and the
// 422 names the file and the key, what applies at start-up only is refused, a request in flight
// finishes on the catalog it started with, and only an admin session may ask, audited.
import test from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { createDb } from '../../db/knex.ts';

let gw: TestGateway;
let acct: Account;
let admin: Account;
let dir = '';

/** A procedural model file (no upstream) of one model at one price. */
function modelFile(slug: string, price: number, extra = ''): string {
  return `models:
  ${slug}:
    summary: ${slug} (tier budget)
    description: "Action: Draws a test pattern. Input: prompt (required). Output: one PNG. Use for: trying a reload."
    x-model: { category: text-to-image, tier: budget, family: ${slug.split('-').slice(0, 2).join('-')}, output: image, adapter: procedural-image, price: { base: ${price} } }
${extra}    input: { type: object, additionalProperties: false, required: [prompt], properties: { prompt: { type: string, maxLength: 100 } } }
`;
}

async function reload(as: string) {
  return gw.server.inject({ method: 'POST', url: '/auth/admin_reload_catalog', headers: { authorization: `Bearer ${as}` } });
}

async function submit(slug: string, key = acct.liveKey) {
  return gw.server.inject({ method: 'POST', url: `/api/v1/${slug}`, headers: { 'x-api-key': key }, payload: { prompt: 'a test' } });
}

test.before(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-reload-'));
  await fs.writeFile(path.join(dir, 'dot.yaml'), modelFile('dot-v1-budget-text-to-image', 4));
  gw = await startGateway({ worker: true, queue: 'memory', env: { MODELS_DIR: dir } });
  acct = await newAccount(gw, 1000);
  admin = await newAccount(gw, 0);
  await gw.app.db('users').where({ id: admin.userId }).update({ role: 'admin' });
});

test.after.always(async () => {
  await gw?.stop();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

test.serial('a model file added to MODELS_DIR answers after a reload, listed and priced; an unchanged catalog changes nothing', async (t) => {
  t.is((await submit('ring-v1-budget-text-to-image')).statusCode, 404);
  await fs.writeFile(path.join(dir, 'ring.yaml'), modelFile('ring-v1-budget-text-to-image', 6));
  const res = await reload(admin.session);
  t.is(res.statusCode, 200, res.payload);
  t.like(res.result, { added: ['ring-v1-budget-text-to-image'], removed: [], changed: [], unchanged: false });
  const made = await submit('ring-v1-budget-text-to-image');
  t.is(made.statusCode, 200, made.payload);
  t.is((made.result as { price: number }).price, 6);
  const list = await gw.server.inject({ method: 'GET', url: '/api/v1/models' });
  t.true((list.result as { models: Array<{ slug: string }> }).models.some((m) => m.slug === 'ring-v1-budget-text-to-image'));
  const served = await gw.server.inject({ method: 'GET', url: '/openapi.json' });
  t.true(served.payload.includes('/api/v1/ring-v1-budget-text-to-image'), 'the served document lists it');
  const again = await reload(admin.session);
  t.like(again.result, { added: [], removed: [], changed: [], unchanged: true });
});

test.serial('a model file that does not load changes nothing; the 422 names the file and the key', async (t) => {
  const before = gw.app.spec;
  await fs.writeFile(path.join(dir, 'broken.yaml'), modelFile('kite-v1-budget-text-to-image', 5).replace('adapter: procedural-image', 'adapter: procedural-image, upstrem: x'));
  const res = await reload(admin.session);
  t.is(res.statusCode, 422, res.payload);
  const detail = (res.result as { detail: Array<{ loc: string[]; msg: string; type: string }> }).detail[0]!;
  t.is(detail.type, 'catalog_invalid');
  t.regex(detail.msg, /broken\.yaml/);
  t.regex(detail.msg, /upstrem/);
  t.is(gw.app.spec, before, 'the catalog in use is the same object');
  t.is((await submit('kite-v1-budget-text-to-image')).statusCode, 404);
  t.is((await submit('dot-v1-budget-text-to-image')).statusCode, 200);
  await fs.rm(path.join(dir, 'broken.yaml'));
});

test.serial('a model file whose input schema is not valid JSON Schema does not load; the 422 names the file and the model, never a 500 at the first request', async (t) => {
  const before = gw.app.spec;
  await fs.writeFile(path.join(dir, 'badschema.yaml'), modelFile('kite-v1-budget-text-to-image', 5).replace('prompt: { type: string, maxLength: 100 }', 'prompt: { type: strng, maxLength: 100 }'));
  const res = await reload(admin.session);
  t.is(res.statusCode, 422, res.payload);
  const detail = (res.result as { detail: Array<{ loc: string[]; msg: string; type: string }> }).detail[0]!;
  t.is(detail.type, 'catalog_invalid');
  t.regex(detail.msg, /badschema\.yaml: kite-v1-budget-text-to-image \(POST \/api\/v1\/kite-v1-budget-text-to-image\): the input schema is not valid JSON Schema/);
  t.is(gw.app.spec, before, 'the catalog in use is the same object');
  t.is((await submit('kite-v1-budget-text-to-image')).statusCode, 404);
  await fs.rm(path.join(dir, 'badschema.yaml'));
});

test.serial('a model file pricing a number field that has no minimum of 0 or no maximum does not load on reload; the 422 names the model, the field and the missing bound', async (t) => {
  const before = gw.app.spec;
  await fs.writeFile(path.join(dir, 'unbounded.yaml'), modelFile('kite-v1-budget-text-to-image', 5)
    .replace('price: { base: 5 }', 'price: { base: 5, per_unit: { field: n, amount: 10 } }')
    .replace('prompt: { type: string, maxLength: 100 } }', 'prompt: { type: string, maxLength: 100 }, n: { type: integer, default: 1, maximum: 10 } }'));
  const res = await reload(admin.session);
  t.is(res.statusCode, 422, res.payload);
  const detail = (res.result as { detail: Array<{ loc: string[]; msg: string; type: string }> }).detail[0]!;
  t.is(detail.type, 'catalog_invalid');
  t.regex(detail.msg, /unbounded\.yaml: kite-v1-budget-text-to-image \(POST \/api\/v1\/kite-v1-budget-text-to-image\): x-model\.price\.per_unit\.field "n" needs a "minimum" of 0 or more in the input schema/);
  t.is(gw.app.spec, before, 'the catalog in use is the same object');
  t.is((await submit('kite-v1-budget-text-to-image')).statusCode, 404);
  await fs.rm(path.join(dir, 'unbounded.yaml'));
});

test.serial('a removed model answers 404; put back, it answers again on the route it had', async (t) => {
  const file = path.join(dir, 'ring.yaml');
  const saved = await fs.readFile(file, 'utf8');
  await fs.rm(file);
  const res = await reload(admin.session);
  t.like(res.result, { removed: ['ring-v1-budget-text-to-image'] });
  const gone = await submit('ring-v1-budget-text-to-image');
  t.is(gone.statusCode, 404);
  t.regex(gone.payload, /no model ring-v1-budget-text-to-image/);
  await fs.writeFile(file, saved.replace('base: 6', 'base: 9'));
  t.like((await reload(admin.session)).result, { added: ['ring-v1-budget-text-to-image'] });
  t.is(((await submit('ring-v1-budget-text-to-image')).result as { price: number }).price, 9);
});

test.serial('what applies at start-up only is refused with the reason: a model\'s route settings', async (t) => {
  const file = path.join(dir, 'dot.yaml');
  const saved = await fs.readFile(file, 'utf8');
  // the model overrides a shared part (only API keys may call it): its route's authentication would change
  await fs.writeFile(file, modelFile('dot-v1-budget-text-to-image', 4, '    security: [{ ApiKeyAuth: [] }]\n'));
  const res = await reload(admin.session);
  t.is(res.statusCode, 422, res.payload);
  t.regex((res.result as { detail: Array<{ msg: string }> }).detail[0]!.msg, /dot\.yaml: dot-v1-budget-text-to-image: its route settings .* restart the gateway/);
  await fs.writeFile(file, saved);
});

test.serial('a submit in flight finishes on the catalog it started with: held at its old price while a reload changes it', async (t) => {
  const file = path.join(dir, 'dot.yaml');
  const saved = await fs.readFile(file, 'utf8');
  // the wallet's row locked (on connections of our own): the submit priced its request and waits to hold it
  const other = createDb({ databaseUrl: gw.env.DATABASE_URL!, sqliteFile: '', poolMax: 2 });
  const trx = await other.transaction();
  // a failed check must not leave the lock held: destroy waits for every connection it lent
  t.teardown(async () => { if (!trx.isCompleted()) await trx.rollback().catch(() => {}); await other.destroy(); });
  await trx('users').where({ id: acct.userId }).forUpdate().first();
  const inFlight = submit('dot-v1-budget-text-to-image');
  // The waiting UPDATE is seen in the process list of this test's database. INNODB_TRX does not
  // always list a transaction waiting on its first lock (MariaDB 10.11, after the submit read the
  // row unlocked), so it cannot tell.
  await waitFor(async () => {
    const [rows] = await other.raw("SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND STATE = 'Updating' AND INFO LIKE 'update `users`%'") as [Array<{ n: number }>];
    return Number(rows[0]!.n) > 0 ? true : undefined;
  }, { what: 'the submit to wait for the wallet lock', timeoutMs: 20_000 });
  await fs.writeFile(file, saved.replace('base: 4', 'base: 40'));
  t.like((await reload(admin.session)).result, { changed: ['dot-v1-budget-text-to-image'] });
  await trx.commit();
  const res = await inFlight;
  t.is(res.statusCode, 200, res.payload);
  t.is((res.result as { price: number }).price, 4, 'the price of the catalog it started with');
  t.is(((await submit('dot-v1-budget-text-to-image')).result as { price: number }).price, 40, 'the next one is priced by the new catalog');
  await fs.writeFile(file, saved);
  await reload(admin.session);
});

test.serial('a LoRA sent to a model whose input does not declare loras is 422, even where its schema lets unknown fields through', async (t) => {
  // a model of the lumen family (which takes LoRAs) whose own input neither declares loras nor refuses unknown fields
  await fs.writeFile(path.join(dir, 'open.yaml'), `models:
  open-v1-budget-text-to-image:
    summary: open (tier budget)
    description: "Action: Draws a test pattern. Input: prompt (required). Output: one PNG. Use for: trying LoRAs."
    x-model: { category: text-to-image, tier: budget, family: lumen, output: image, adapter: procedural-image, price: { base: 4 } }
    input: { type: object, required: [prompt], properties: { prompt: { type: string, maxLength: 100 } } }
`);
  t.like((await reload(admin.session)).result, { added: ['open-v1-budget-text-to-image'] });
  const lora = await gw.server.inject({ method: 'POST', url: '/app/loras', headers: { authorization: `Bearer ${acct.session}` }, payload: { name: 'open-style', lora_type: 'style', base_model: 'lumen', weights_url: 'https://weights.example.com/o.safetensors' } });
  t.is(lora.statusCode, 201, lora.payload);
  const before = await gw.app.db('users').where({ id: acct.userId }).first('balance');
  const res = await gw.server.inject({ method: 'POST', url: '/api/v1/open-v1-budget-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'a test', loras: [{ name: 'open-style' }] } });
  t.is(res.statusCode, 422, res.payload);
  const item = (res.result as { detail: Array<{ loc: unknown[]; msg: string }> }).detail[0]!;
  t.deepEqual(item.loc, ['body', 'loras']);
  t.regex(item.msg, /open-v1-budget-text-to-image takes no LoRAs/);
  t.deepEqual(await gw.app.db('users').where({ id: acct.userId }).first('balance'), before, 'nothing was held');
  await fs.rm(path.join(dir, 'open.yaml'));
  await reload(admin.session);
});

test.serial('only an admin session reloads; every call is audited', async (t) => {
  const billing = await newAccount(gw, 0);
  await gw.app.db('users').where({ id: billing.userId }).update({ role: 'billing' });
  t.is((await reload(billing.session)).statusCode, 403);
  const key = await gw.server.inject({ method: 'POST', url: '/auth/admin_reload_catalog', headers: { 'x-api-key': admin.liveKey } });
  t.is(key.statusCode, 403, 'an API key never reaches a role route');
  t.is((await reload(admin.session)).statusCode, 200);
  const rows = await gw.app.db('admin_audit').where({ action: 'adminReloadCatalog' }).select('actor_user_id');
  t.true(rows.some((r: { actor_user_id: number }) => r.actor_user_id === admin.userId));
  t.true(rows.some((r: { actor_user_id: number }) => r.actor_user_id === billing.userId), 'the refusal is recorded too');
});
