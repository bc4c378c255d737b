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
