// An operator's model file in MODELS_DIR, through the HTTP edge: it holds only its x-model and input
// schema, and still answers as every model endpoint does (interface 6.6: the `webhook` parameter
// works on any generation endpoint; team_id, Idempotency-Key), listed in the catalog beside the
// shipped models.
import test from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';

let gw: TestGateway;
let acct: Account;
let dir = '';

test.before(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-models-'));
  await fs.writeFile(path.join(dir, 'pixel.yaml'), `models:
  pixel-v1-budget-text-to-image:
    summary: Pixel v1 text-to-image (tier budget)
    description: "Action: Draws a test pattern. Input: prompt (required). Output: one PNG. Use for: trying a model file."
    x-model: { category: text-to-image, tier: budget, family: pixel-v1, output: image, adapter: procedural-image, price: { base: 7 } }
    input: { type: object, additionalProperties: false, required: [prompt], properties: { prompt: { type: string, maxLength: 100 } } }
`);
  // priced as fal prices FLUX: per megapixel of each image, rounded up, with a minimum
  await fs.writeFile(path.join(dir, 'mega.yaml'), `models:
  mega-v1-fast-text-to-image:
    summary: Mega v1 text-to-image (tier fast)
    description: "Action: Draws a test pattern of the size asked. Input: prompt (required), width, height, num_images. Output: PNGs. Use for: trying price rules."
    x-model:
      category: text-to-image
      tier: fast
      family: mega-v1
      output: image
      adapter: procedural-image
      price:
        base: 0
        per_megapixel: { amount: 25, width: width, height: height, count: num_images }
        tiers: { field: num_images, steps: [{ up_to: 1, amount: 0 }, { amount: 5 }] }
        minimum: 30
    input:
      type: object
      additionalProperties: false
      required: [prompt]
      properties:
        prompt: { type: string, maxLength: 100 }
        width: { type: integer, minimum: 256, maximum: 2048, default: 1024 }
        height: { type: integer, minimum: 256, maximum: 2048, default: 1024 }
        num_images: { type: integer, minimum: 1, maximum: 4, default: 1 }
`);
  // bounded, but so widely that a valid input prices past what the gateway keeps exactly
  await fs.writeFile(path.join(dir, 'vast.yaml'), `models:
  vast-v1-fast-text-to-image:
    summary: Vast v1 text-to-image (tier fast)
    description: "Action: Draws a test pattern. Input: prompt (required), n. Output: one PNG. Use for: trying a price too large to charge."
    x-model: { category: text-to-image, tier: fast, family: vast-v1, output: image, adapter: procedural-image, price: { base: 0, per_unit: { field: n, amount: 1000 } } }
    input: { type: object, additionalProperties: false, required: [prompt], properties: { prompt: { type: string, maxLength: 100 }, n: { type: number, minimum: 0, maximum: 1.0e+300, default: 1 } } }
`);
  gw = await startGateway({ queue: 'memory', env: { MODELS_DIR: dir } });
  acct = await newAccount(gw, 1000);
});

test.after.always(async () => {
  await gw?.stop();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

test('an operator model that declares no parameters accepts ?webhook= (interface 6.6), and holds its price', async (t) => {
  const res = await gw.server.inject({
    method: 'POST', url: '/api/v1/pixel-v1-budget-text-to-image?webhook=https://receiver.example.com/hook',
    headers: { 'x-api-key': acct.liveKey, 'idempotency-key': 'pixel-1' }, payload: { prompt: 'a test' },
  });
  t.is(res.statusCode, 200, res.payload);
  t.is((res.result as { price: number }).price, 7);
  const row = await gw.app.db('predictions').where({ id: (res.result as { request_id: string }).request_id }).first('webhook_url');
  t.is(row.webhook_url, 'https://receiver.example.com/hook');
  // the shared Idempotency-Key parameter: the same request again is the same answer
  const again = await gw.server.inject({
    method: 'POST', url: '/api/v1/pixel-v1-budget-text-to-image?webhook=https://receiver.example.com/hook',
    headers: { 'x-api-key': acct.liveKey, 'idempotency-key': 'pixel-1' }, payload: { prompt: 'a test' },
  });
  t.is(again.headers['idempotent-replayed'], 'true');
});

test('the shared team_id parameter is declared: a team the caller is not in is 404, not an unknown-parameter 422', async (t) => {
  const res = await gw.server.inject({ method: 'POST', url: '/api/v1/pixel-v1-budget-text-to-image?team_id=999999', headers: { 'x-api-key': acct.testKey }, payload: { prompt: 'a test' } });
  t.is(res.statusCode, 404, res.payload);
});

test('the operator model is listed with the shipped ones and served in /openapi.json with the shared parameters', async (t) => {
  const list = await gw.server.inject({ method: 'GET', url: '/api/v1/models?tier=budget' });
  const slugs = (list.result as { models: Array<{ slug: string }> }).models.map((m) => m.slug);
  t.true(slugs.includes('pixel-v1-budget-text-to-image'));
  t.true(slugs.includes('canvas-v1-budget-text-to-image'));
  const doc = JSON.parse((await gw.server.inject({ method: 'GET', url: '/openapi.json' })).payload) as { paths: Record<string, { post: { parameters: Array<{ $ref: string }> } }> };
  t.true(doc.paths['/api/v1/pixel-v1-budget-text-to-image']!.post.parameters.some((p) => p.$ref === '#/components/parameters/Webhook'));
});

test('per-megapixel, tier and minimum rules: the quote breaks them down and a production submit holds exactly the quote', async (t) => {
  const { callOperation } = await import('../helpers/operation.ts');
  // its own account: the other tests of this file hold credit at the same time
  const acct = await newAccount(gw, 10_000);
  const cases: Array<[Record<string, unknown>, number]> = [
    // 1024 x 1024 is 1.05 MP: 2 MP billed, 50; one image: no tier charge
    [{ prompt: 'x' }, 50],
    // 512 x 512 is 0.26 MP: 1 MP, 25: the minimum, 30
    [{ prompt: 'x', width: 512, height: 512 }, 30],
    // 2048 x 1024 is 2.1 MP: 3 MP each, 75 x 3 images = 225, and 5 for more than one image
    [{ prompt: 'x', width: 2048, height: 1024, num_images: 3 }, 230],
  ];
  for (const [input, price] of cases) {
    const quote = await callOperation<{ cost: number; breakdown: { terms: Array<{ kind: string; units: number; subtotal: number }>; minimum: { applied: boolean } | null } }>(gw, 'calculateDynamicCost', { as: acct.liveKey, body: { model: 'mega-v1-fast-text-to-image', input } });
    t.is(quote.status, 200);
    t.is(quote.body.cost, price, JSON.stringify(input));
    t.is(quote.body.breakdown.terms[0]!.kind, 'per_megapixel');
    t.is(quote.body.breakdown.minimum?.applied, price === 30);
    const before = Number((await gw.app.db('users').where({ id: acct.userId }).first('held')).held);
    const res = await gw.server.inject({ method: 'POST', url: '/api/v1/mega-v1-fast-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: input });
    t.is((res.result as { price: number }).price, price);
    t.is(Number((await gw.app.db('users').where({ id: acct.userId }).first('held')).held) - before, price);
  }
  const listed = await gw.server.inject({ method: 'GET', url: '/app/get-task-data?name=mega-v1-fast-text-to-image' });
  const rule = (listed.result as { price: { terms: Array<{ summary: string }>; minimum: number; at_defaults: number } }).price;
  t.is(rule.minimum, 30);
  t.is(rule.at_defaults, 50);
  t.regex(rule.terms[0]!.summary, /25 credits per megapixel of each image/);
});

test('a valid input the model\'s price rule cannot price exactly is 422 naming the model, for the quote and the submit; nothing is held, the catalog still lists it', async (t) => {
  const acct = await newAccount(gw, 1000);
  const before = await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': acct.liveKey } });
  const quote = await gw.server.inject({ method: 'POST', url: '/app/calculate_dynamic_cost', headers: { 'x-api-key': acct.liveKey }, payload: { model: 'vast-v1-fast-text-to-image', input: { prompt: 'a test', n: 1e13 } } });
  t.is(quote.statusCode, 422, quote.payload);
  t.like(JSON.parse(quote.payload), { code: 'validation_failed' });
  t.regex(JSON.stringify(JSON.parse(quote.payload)), /vast-v1-fast-text-to-image cannot be priced for this input: the price after the per_unit term of n is 10000000000000000, not a whole number of credits from 0 to 9007199254740991; ask for less \(nothing was held\)/);
  const submit = await gw.server.inject({ method: 'POST', url: '/api/v1/vast-v1-fast-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'a test', n: 1e13 } });
  t.is(submit.statusCode, 422, submit.payload);
  t.is(JSON.parse(submit.payload).code, 'validation_failed');
  const after = await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': acct.liveKey } });
  t.deepEqual(after.result, before.result, 'nothing was held');
  t.is((await gw.app.db('predictions').where({ user_id: acct.userId, model: 'vast-v1-fast-text-to-image' })).length, 0);
  // an input it can price is served as any other
  const fine = await gw.server.inject({ method: 'POST', url: '/api/v1/vast-v1-fast-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'a test', n: 0.5 } });
  t.is(fine.statusCode, 200, fine.payload);
  t.is((fine.result as { price: number }).price, 500);
  const list = await gw.server.inject({ method: 'GET', url: '/api/v1/models' });
  t.is(list.statusCode, 200);
});
