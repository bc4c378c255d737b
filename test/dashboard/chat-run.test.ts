// A call through POST /v1/chat/completions, and a request to the same model's asynchronous
// endpoint, in the dashboard's run history: the detail shows the answer's text and the tokens it
// was charged for. MariaDB, a real local server speaking OpenAI's
// API as the provider, chromium.
import test from 'ava';
import type { Browser } from 'playwright-core';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { freePort } from '../helpers/processes.ts';
import { launchBrowser, screenshot, signIn } from '../helpers/browser.ts';
import { ANSWER, USAGE, startFakeOpenAI } from '../helpers/openai-upstream.ts';
import type { FakeOpenAI } from '../helpers/openai-upstream.ts';
import { waitFor } from '../helpers/services.ts';

let gw: TestGateway;
let base = '';
let browser: Browser;
let fake: FakeOpenAI;

test.before(async () => {
  fake = await startFakeOpenAI();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  gw = await startGateway({ queue: 'memory', worker: true, env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, UPSTREAM_OPENAI_URL: fake.url, UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true' } });
  await gw.server.start();
  browser = await launchBrowser();
});
test.after.always(async () => {
  await browser?.close();
  await gw?.stop();
  await fake?.close();
});

test.serial('a chat call\'s detail shows its answer and its tokens', async (t) => {
  const acct = await newAccount(gw, 1000);
  const res = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST', headers: { authorization: `Bearer ${acct.liveKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'lexi-v1-balanced-chat', messages: [{ role: 'user', content: 'Name the primary colours.' }], max_tokens: 50 }),
  });
  t.is(res.status, 200);
  const id = res.headers.get('x-prediction-id')!;
  const email = (await gw.app.db('users').where({ id: acct.userId }).first<{ email: string }>('email'))!.email;
  const { page, problems } = await signIn(browser, base, email);
  await page.goto(`${base}/dashboard#/history?id=${id}`);
  const answer = page.getByTestId('run-answer');
  await answer.waitFor();
  t.is(await answer.textContent(), ANSWER);
  t.is(await page.getByTestId('run-tokens').textContent(), `${USAGE.prompt_tokens} in, ${USAGE.completion_tokens} out`);
  await screenshot(page, 'dashboard', 'chat-run-detail');
  t.deepEqual(problems, []);
  await page.context().close();
});

test.serial('an asynchronous language-model request\'s detail shows its answer and the tokens counted where the provider reported none', async (t) => {
  const acct = await newAccount(gw, 1000);
  fake.mode = 'no-usage';
  t.teardown(() => {
    fake.mode = 'ok';
  });
  const prompt = 'Name the primary colours.';
  const res = await fetch(`${base}/api/v1/lexi-v1-balanced-chat`, {
    method: 'POST', headers: { 'x-api-key': acct.liveKey, 'content-type': 'application/json' }, body: JSON.stringify({ prompt, max_tokens: 50 }),
  });
  const id = ((await res.json()) as { request_id: string }).request_id;
  await waitFor(async () => (await gw.app.db('predictions').where({ id }).first<{ status: string }>('status'))?.status === 'completed');
  const email = (await gw.app.db('users').where({ id: acct.userId }).first<{ email: string }>('email'))!.email;
  const { page, problems } = await signIn(browser, base, email);
  await page.goto(`${base}/dashboard#/history?id=${id}`);
  const answer = page.getByTestId('run-answer');
  await answer.waitFor();
  t.is(await answer.textContent(), ANSWER);
  const input = Math.ceil(Buffer.byteLength(prompt) / 4);
  const output = Math.ceil(Buffer.byteLength(ANSWER) / 4);
  t.is(await page.getByTestId('run-tokens').textContent(), `${input} in, ${output} out (counted by the gateway from the prompt and the answer: the provider reported none)`);
  await screenshot(page, 'dashboard', 'async-chat-run-detail');
  t.deepEqual(problems, []);
  await page.context().close();
});
