// Provider cost beside what the user paid (docs/operating/model-files.md, "Provider cost and
// margin"), end to end with the real worker: a provider's declared cost rule, a cost the
// provider's answer reports (OpenRouter's usage.cost, through the OpenAI-compatible adapter), the
// gateway's own adapters (no provider cost), and a run the provider finished that the gateway
// failed (its cost, no revenue). The admin route reports them by model and day, for billing and
// admin sessions only, audited. Providers are third-party HTTP: nock.
import test from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { tinyMp4, tinyPng } from '../helpers/adapters.ts';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { waitFor } from '../helpers/services.ts';

const ACME = 'https://acme.provider.test';
const ROUTER = 'https://router.provider.test';

const MODELS = `models:
  clip-v1-fast-text-to-video:
    summary: Clip v1 text-to-video (tier fast)
    description: "Action: Generates a short clip. Input: prompt (required), duration. Output: one MP4 URL. Use for: tests of provider costs."
    x-model:
      category: text-to-video
      tier: fast
      family: clip-v1
      output: video
      adapter: http-json
      upstream: acme
      upstream_model: clip
      # acme: $0.03 a second
      cost: { per_unit: { field: duration, amount: 30 } }
      price: { base: 0, per_unit: { field: duration, amount: 50 } }
    input:
      type: object
      additionalProperties: false
      required: [prompt]
      properties:
        prompt: { type: string, maxLength: 200 }
        duration: { type: integer, minimum: 1, maximum: 10, default: 5 }
  chat-v1-fast-chat:
    summary: Chat v1 (tier fast)
    description: "Action: Answers a prompt. Input: prompt (required). Output: a text file. Use for: tests of reported costs."
    x-model:
      category: llm
      tier: fast
      family: chat-v1
      output: text
      adapter: openai-compatible
      upstream: router
      upstream_model: some/model
      # the usage rate, used only when the answer reports no cost
      cost: { per_token: { input: 150, output: 600, per: 1000000, input_fields: [prompt], max_output: 1000 } }
      price: { base: 20 }
    input:
      type: object
      additionalProperties: false
      required: [prompt]
      properties:
        prompt: { type: string, maxLength: 2000 }
`;

let gw: TestGateway;
let dir = '';
let user: Account;

test.before(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-margins-'));
  await fs.writeFile(path.join(dir, 'costed.yaml'), MODELS);
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  gw = await startGateway({
    worker: true, queue: 'memory',
    env: { MODELS_DIR: dir, UPSTREAM_ACME_URL: ACME, UPSTREAM_ROUTER_URL: `${ROUTER}/v1`, UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true', UPSTREAM_POLL_DELAYS_MS: '20' },
  });
  user = await newAccount(gw, 100_000);
});
test.after.always(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  await gw?.stop();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

async function run(url: string, payload: Record<string, unknown>): Promise<string> {
  const res = await gw.server.inject({ method: 'POST', url, headers: { 'x-api-key': user.liveKey }, payload });
  if (res.statusCode !== 200) throw new Error(`submit failed: ${res.payload}`);
  const id = (res.result as { request_id: string }).request_id;
  await waitFor(async () => ['completed', 'failed'].includes((await gw.app.db('predictions').where({ id }).first('status'))?.status), { what: 'the run to end', timeoutMs: 20_000 });
  // the cost row follows the completion
  await waitFor(async () => gw.app.db('prediction_costs').where({ prediction_id: id }).first(), { what: 'the cost row', timeoutMs: 5000 });
  return id;
}

async function staff(role: 'billing' | 'admin' | 'support'): Promise<Account> {
  const a = await newAccount(gw, 0);
  await gw.app.db('users').where({ id: a.userId }).update({ role });
  return a;
}

test.serial('each run records its provider cost beside what the user paid, and the report sums them by model and day', async (t) => {
  nock(ACME).post('/v1/models/clip/predictions').reply(200, { status: 'completed', outputs: [`${ACME}/a.mp4`] });
  nock(ACME).get('/a.mp4').reply(200, tinyMp4(), { 'content-type': 'video/mp4' });
  const clip = await run('/api/v1/clip-v1-fast-text-to-video', { prompt: 'a kite', duration: 4 });
  t.like(await gw.app.db('prediction_costs').where({ prediction_id: clip }).first(), { provider: 'acme', upstream_model: 'clip', cost_source: 'rule' });
  const row = await gw.app.db('prediction_costs').where({ prediction_id: clip }).first();
  t.is(Number(row.charged), 200);
  t.is(Number(row.provider_cost), 120);

  // the answer reports its cost ($0.0031 -> 4 credits, rounded up): it wins over the rule
  nock(ROUTER).post('/v1/chat/completions').reply(200, { id: 'gen-1', choices: [{ message: { content: 'hello' }, finish_reason: 'stop' }], usage: { prompt_tokens: 12, completion_tokens: 3, cost: 0.0031 } });
  const chat = await run('/api/v1/chat-v1-fast-chat', { prompt: 'say hello' });
  t.like(await gw.app.db('prediction_costs').where({ prediction_id: chat }).first(), { cost_source: 'reported' });
  t.is(Number((await gw.app.db('prediction_costs').where({ prediction_id: chat }).first()).provider_cost), 4);

  // no cost in the answer: the token rule on the reported usage (2000 x 150 + 1000 x 600 per million: 1)
  nock(ROUTER).post('/v1/chat/completions').reply(200, { choices: [{ message: { content: 'hi' }, finish_reason: 'stop' }], usage: { prompt_tokens: 2000, completion_tokens: 1000 } });
  const ruled = await run('/api/v1/chat-v1-fast-chat', { prompt: 'say hi' });
  t.like(await gw.app.db('prediction_costs').where({ prediction_id: ruled }).first(), { cost_source: 'rule' });
  t.is(Number((await gw.app.db('prediction_costs').where({ prediction_id: ruled }).first()).provider_cost), 1);

  // the gateway's own model: no provider
  const local = await run('/api/v1/canvas-v1-fast-text-to-image', { prompt: 'a square' });
  t.like(await gw.app.db('prediction_costs').where({ prediction_id: local }).first(), { provider: 'local', cost_source: 'local' });

  // the provider finished, but what it sent is not a video: failed, not charged, its cost counted
  nock(ACME).post('/v1/models/clip/predictions').reply(200, { status: 'completed', outputs: [`${ACME}/b.png`] });
  nock(ACME).get('/b.png').reply(200, tinyPng(), { 'content-type': 'image/png' });
  const wrong = await run('/api/v1/clip-v1-fast-text-to-video', { prompt: 'a kite', duration: 2 });
  t.is((await gw.app.db('predictions').where({ id: wrong }).first('status')).status, 'failed');
  const wrongRow = await gw.app.db('prediction_costs').where({ prediction_id: wrong }).first();
  t.is(Number(wrongRow.charged), 0);
  t.is(Number(wrongRow.provider_cost), 60);

  const billing = await staff('billing');
  const today = new Date(gw.app.clock()).toISOString().slice(0, 10);
  const report = await callOperation<{ rows: Array<Record<string, unknown>>; totals: { revenue: number; provider_cost: number; margin: number } }>(gw, 'adminModelMargins', { as: billing.session, query: { from: today, to: today } });
  t.is(report.status, 200);
  const byModel = Object.fromEntries(report.body.rows.map((r) => [r.model, r]));
  t.like(byModel['clip-v1-fast-text-to-video'], { day: today, runs: 2, charged_runs: 1, revenue: 200, provider_cost: 180, margin: 20, unknown_cost_runs: 0 });
  t.like(byModel['chat-v1-fast-chat'], { runs: 2, charged_runs: 2, revenue: 40, provider_cost: 5, margin: 35 });
  t.like(byModel['canvas-v1-fast-text-to-image'], { runs: 1, provider_cost: 0 });
  t.is(report.body.totals.margin, report.body.totals.revenue - report.body.totals.provider_cost);
  // one model, and an empty day
  const one = await callOperation<{ rows: unknown[] }>(gw, 'adminModelMargins', { as: billing.session, query: { from: today, to: today, model: 'chat-v1-fast-chat' } });
  t.is(one.body.rows.length, 1);
  const empty = await callOperation<{ rows: unknown[]; totals: { runs: number } }>(gw, 'adminModelMargins', { as: billing.session, query: { from: '2020-01-01', to: '2020-01-02' } });
  t.deepEqual([empty.body.rows, empty.body.totals.runs], [[], 0]);
  // audited like every role route
  const audited = await gw.app.db('admin_audit').where({ action: 'adminModelMargins', actor_user_id: billing.userId }).count({ n: '*' });
  t.true(Number(audited[0]!.n) >= 3);
});

test.serial('only billing and admin sessions read it; a reversed or too long range is 422', async (t) => {
  const support = await staff('support');
  t.is((await callOperation(gw, 'adminModelMargins', { as: support.session, query: { from: '2026-01-01', to: '2026-01-02' } })).status, 403);
  t.is((await callOperation(gw, 'adminModelMargins', { as: user.liveKey, query: { from: '2026-01-01', to: '2026-01-02' } })).status, 403);
  const admin = await staff('admin');
  const reversed = await callOperation(gw, 'adminModelMargins', { as: admin.session, query: { from: '2026-02-01', to: '2026-01-01' } });
  t.is(reversed.status, 422);
  const long = await callOperation(gw, 'adminModelMargins', { as: admin.session, query: { from: '2024-01-01', to: '2026-01-01' } });
  t.is(long.status, 422);
  t.is((await callOperation(gw, 'adminModelMargins', { as: admin.session, query: { from: 'yesterday', to: '2026-01-01' } })).status, 422);
});
