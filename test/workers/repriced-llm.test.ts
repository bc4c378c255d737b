// A language model repriced by a catalog reload while its asynchronous prediction waits: the
// prediction is charged its usage at the price it was held by, not at the new one (the charge is
// still capped at the hold). The provider is a local server speaking OpenAI's API
// (test/helpers/openai-upstream.ts), which reports 11 prompt and 4 completion tokens.
import test from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { startFakeOpenAI, USAGE } from '../helpers/openai-upstream.ts';
import { createRunModel } from '../../workers/run-model.ts';

const MODEL = 'tally-v1-budget-chat';

/** A language model at `perToken` credits a token, in and out. */
const modelFile = (perToken: number) => `models:
  ${MODEL}:
    summary: Tally v1 chat (tier budget)
    description: "Action: Answers a prompt. Input: prompt (required), max_tokens. Output: one text file. Use for: a repriced model."
    x-model:
      category: llm
      tier: budget
      family: tally-v1
      output: text
      adapter: openai-compatible
      upstream: openai
      upstream_model: gpt-4o-mini
      price:
        base: 0
        per_token: { input: ${perToken}, output: ${perToken}, per: 1, input_fields: [prompt], max_output: max_tokens }
    input:
      type: object
      additionalProperties: false
      required: [prompt]
      examples: [{ prompt: "hi", max_tokens: 100 }]
      properties:
        prompt: { type: string, maxLength: 100 }
        max_tokens: { type: integer, minimum: 1, maximum: 200, default: 100 }
`;

test('a language model repriced while its prediction waits charges the price it was held by', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-repriced-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  await fs.writeFile(path.join(dir, 'tally.yaml'), modelFile(1));
  const fake = await startFakeOpenAI();
  t.teardown(() => fake.close());
  // no worker: the prediction waits while the catalog changes
  const gw = await startGateway({ queue: 'memory', env: { MODELS_DIR: dir, UPSTREAM_OPENAI_URL: fake.url, UPSTREAM_OPENAI_KEY: 'sk-provider-repriced', UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true' } });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 1_000);
  const res = await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'hi', max_tokens: 100 } });
  t.is(res.statusCode, 200, res.payload);
  const { request_id: id, price: held } = res.result as { request_id: string; price: number };
  const used = USAGE.prompt_tokens + USAGE.completion_tokens;
  t.true(held >= 2 * used, `the hold (${held}) leaves room for the usage at the doubled price`);

  await fs.writeFile(path.join(dir, 'tally.yaml'), modelFile(2));
  t.like(await gw.app.catalog.reload({ broadcast: false }), { changed: [MODEL] });
  t.deepEqual(await createRunModel(gw.app).handle({ body: { id }, attempt: 0, redelivered: false }), { kind: 'ack' });

  const row = await gw.app.db('predictions').where({ id }).first();
  t.is(row.status, 'completed', String(row.error));
  t.is(Number(row.price), used, 'charged at 1 credit a token, as held, not at the 2 of the reload');
  const wallet = await gw.app.db('users').where({ id: acct.userId }).first('balance', 'held');
  t.deepEqual([Number(wallet.balance), Number(wallet.held)], [1_000 - used, 0]);
});
