// The playground in a real browser: the model picker's search and filters, the explanation of an
// unavailable model, a run whose output appears large beside the form with its cost and timings,
// and the Code tabs: the saved key's secret never on the page, a key made for the snippet written
// into it, and the curl and JavaScript snippets run as they are against the gateway. MariaDB,
// RabbitMQ and a worker.
import test from 'ava';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { freePort } from '../helpers/processes.ts';
import { waitFor } from '../helpers/services.ts';
import { launchBrowser, pageProblems, screenshot, signIn } from '../helpers/browser.ts';

const run = promisify(execFile);
let gw: TestGateway;
let base: string;
let browser: Browser;
let acct: Account;
let page: Page;
let problems: string[];

test.before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  gw = await startGateway({ worker: true, env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, AUTH_RATE_PER_ADDRESS: '1000' } });
  await gw.server.start();
  browser = await launchBrowser();
  acct = await newAccount(gw, 10_000);
  const email = (await gw.app.db('users').where({ id: acct.userId }).first<{ email: string }>('email'))!.email;
  ({ page, problems } = await signIn(browser, base, email));
  await page.setViewportSize({ width: 1440, height: 1000 });
});
test.after.always(async () => {
  await browser?.close();
  await gw?.stop();
});

test.serial('the model picker searches by name and filters by category and tier; an unavailable model says which provider is missing', async (t) => {
  await page.goto(`${base}/dashboard#/playground`);
  await page.getByRole('heading', { name: 'Models' }).waitFor();
  const list = page.locator('ul.models > li');
  const all = await list.count();
  t.true(all > 10);
  await page.getByLabel('Search', { exact: true }).fill('forma');
  await waitFor(async () => (await list.count()) < all || undefined, { what: 'the search to narrow the list' });
  for (const text of await list.allTextContents()) t.regex(text, /forma/i);
  await page.getByLabel('Search', { exact: true }).fill('');
  await page.getByLabel('Category', { exact: true }).selectOption('text-to-image');
  await page.getByLabel('Tier', { exact: true }).selectOption('budget');
  for (const text of await list.allTextContents()) t.regex(text, /text-to-image.*budget/);
  // a model that needs an upstream provider this gateway has not set up
  await page.getByLabel('Tier', { exact: true }).selectOption('');
  await page.getByLabel('Search', { exact: true }).fill('lumen');
  const lumen = list.filter({ hasText: 'unavailable' }).first();
  await lumen.waitFor();
  t.regex((await lumen.textContent())!, /Unavailable: its providers? [a-z, ]*(lumen|replicate)[a-z ]* (is|are) not set up on this gateway\. Sandbox keys still return mock outputs\./);
  await page.getByLabel('Only models available here').check();
  t.is(await list.filter({ hasText: 'unavailable' }).count(), 0);
  await screenshot(page, 'dashboard', 'playground-picker');
});

test.serial('a run shows its output large beside the form, with progress, cost and timings', async (t) => {
  await page.goto(`${base}/dashboard#/playground?model=canvas-v1-fast-text-to-image`);
  await page.getByRole('heading', { name: /Canvas v1 Fast/ }).waitFor();
  await page.locator('textarea[name="prompt"]').fill('a lighthouse at dusk');
  await page.locator('input[name="width"]').fill('256');
  await page.locator('input[name="height"]').fill('256');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByTestId('run-status').filter({ hasText: 'completed' }).waitFor({ timeout: 60_000 });
  await waitFor(() => page.evaluate<boolean>("(() => { const el = document.querySelector('.output .outputs img'); return el !== null && el.complete && el.naturalWidth > 0; })()"), { what: 'the image to load' });
  const form = (await page.locator('section.run').boundingBox())!;
  const output = (await page.locator('section.output').boundingBox())!;
  const img = (await page.locator('.output .outputs img').boundingBox())!;
  t.true(output.x >= form.x + form.width - 1, 'the output is beside the form, not under it');
  t.true(img.width >= 400, `the image is shown ${img.width}px wide`);
  const facts = (await page.getByTestId('run-facts').textContent())!;
  t.regex(facts, /Cost\d+ credits \(\$[\d.]+\) charged/);
  t.regex(facts, /Time[\d.]+ s in all/);
  t.regex(facts, /Request[0-9a-z]{20,}/);
  await screenshot(page, 'dashboard', 'playground-output');
  t.deepEqual(problems, []);
});

test.serial('the Code tabs: curl, JavaScript and Python with the form\'s values; a saved key\'s secret is never shown, a new one is, and the snippets run', async (t) => {
  await page.goto(`${base}/dashboard#/playground?model=canvas-v1-fast-text-to-image`);
  await page.getByRole('heading', { name: /Canvas v1 Fast/ }).waitFor();
  await page.locator('textarea[name="prompt"]').fill("a kite's shadow");
  await page.locator('input[name="width"]').fill('64');
  await page.locator('input[name="height"]').fill('64');
  const code = page.getByTestId('code');
  await code.filter({ hasText: "kite'\\''s shadow" }).waitFor();
  t.regex((await code.textContent())!, /x-api-key: \$MEDIAGATE_API_KEY/);
  // a saved key: named in a comment by its prefix, its secret nowhere on the page
  await page.getByLabel('Key in the code').selectOption({ label: `live (${acct.liveKey.slice(0, 12)}…)` });
  t.regex((await code.textContent())!, new RegExp(`your key "live" \\(${acct.liveKey.slice(0, 12)}…\\)`));
  t.false((await page.content()).includes(acct.liveKey));

  // the tabs move with the arrow keys
  await page.getByRole('tab', { name: 'curl' }).focus();
  await page.keyboard.press('ArrowRight');
  t.is(await page.getByRole('tab', { name: 'JavaScript' }).getAttribute('aria-selected'), 'true');
  t.regex((await code.textContent())!, /await fetch\('http:\/\/127\.0\.0\.1:\d+\/api\/v1\/canvas-v1-fast-text-to-image'/);
  await page.keyboard.press('ArrowRight');
  t.regex((await code.textContent())!, /json=\{\n\s+"prompt": "a kite's shadow",\n\s+"width": 64,/);
  t.regex((await code.textContent())!, /import requests/);

  // a key made for the snippet is written into it; the curl and JavaScript versions run as they are
  await page.getByRole('button', { name: 'New sandbox key' }).click();
  await code.filter({ hasText: 'mg_test_' }).waitFor();
  await page.getByRole('tab', { name: 'curl' }).click();
  const curl = (await code.textContent())!;
  t.regex(curl, /-H "x-api-key: mg_test_[A-Za-z0-9_-]{40,}"/);
  await screenshot(page, 'dashboard', 'playground-code');
  const fromCurl = JSON.parse((await run('bash', ['-c', curl], { timeout: 90_000 })).stdout) as { status: string; outputs: string[] };
  t.is(fromCurl.status, 'completed');
  t.is(fromCurl.outputs.length, 1);

  await page.getByRole('tab', { name: 'JavaScript' }).click();
  const js = (await code.textContent())!;
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-snippet-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  await fs.writeFile(path.join(dir, 'run.mjs'), js);
  const out = (await run(process.execPath, [path.join(dir, 'run.mjs')], { timeout: 90_000 })).stdout;
  t.regex(out, /^completed \[ 'http:\/\/127\.0\.0\.1:\d+\/files\/.*' \]/);
  t.deepEqual(problems, []);
});

test.serial('the OpenAI SDK tab, for the models the OpenAI-compatible routes serve, runs as it is with the official openai package', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-openai-snippet-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  // the snippet imports 'openai' as a program of the reader's would, from a node_modules beside it
  await fs.symlink(path.join(import.meta.dirname, '..', '..', 'node_modules'), path.join(dir, 'node_modules'));
  const code = page.getByTestId('code');

  // a model the routes do not serve has no such tab
  await page.goto(`${base}/dashboard#/playground?model=sonar-v2-best-text-to-speech`);
  await page.getByRole('tab', { name: 'curl' }).waitFor();
  t.is(await page.getByRole('tab', { name: 'OpenAI SDK' }).count(), 0);

  // an image model: client.images.generate with the form's prompt and size
  await page.goto(`${base}/dashboard#/playground?model=canvas-v1-fast-text-to-image`);
  await page.getByRole('heading', { name: /Canvas v1 Fast/ }).waitFor();
  await page.locator('textarea[name="prompt"]').fill('a paper boat');
  await page.locator('input[name="width"]').fill('64');
  await page.locator('input[name="height"]').fill('64');
  await page.getByRole('button', { name: 'New sandbox key' }).click();
  await page.getByRole('tab', { name: 'OpenAI SDK' }).click();
  await code.filter({ hasText: 'mg_test_' }).waitFor();
  const images = (await code.textContent())!;
  t.regex(images, /baseURL: 'http:\/\/127\.0\.0\.1:\d+\/v1'/);
  t.regex(images, /"size": "64x64"/);
  await fs.writeFile(path.join(dir, 'images.mjs'), images);
  const out = (await run(process.execPath, [path.join(dir, 'images.mjs')], { timeout: 90_000, cwd: dir })).stdout;
  t.regex(out, /\[ 'http:\/\/127\.0\.0\.1:\d+\/files\/.*' \]/);

  // a language model: client.chat.completions.create with the form's prompt as the user's message
  await page.goto(`${base}/dashboard#/playground?model=lexi-v1-balanced-chat`);
  await page.getByRole('heading', { name: /Lexi v1/ }).waitFor();
  await page.locator('textarea[name="prompt"]').fill('Name a colour.');
  await page.getByRole('button', { name: 'New sandbox key' }).click();
  await page.getByRole('tab', { name: 'OpenAI SDK' }).click();
  await code.filter({ hasText: 'chat.completions.create' }).filter({ hasText: 'mg_test_' }).waitFor();
  const chat = (await code.textContent())!;
  t.regex(chat, /"content": "Name a colour\."/);
  await screenshot(page, 'dashboard', 'playground-openai-sdk');
  await fs.writeFile(path.join(dir, 'chat.mjs'), chat);
  const answer = (await run(process.execPath, [path.join(dir, 'chat.mjs')], { timeout: 90_000, cwd: dir })).stdout;
  t.regex(answer, /completion_tokens/);
  t.deepEqual(problems, []);
});
