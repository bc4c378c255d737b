// The studio form in a real browser: laid out in groups, a colour picker beside each colour, a
// live preview of the studio's top bar and button, a searchable model picker, and problems shown
// beside the fields they concern (the form's own checks and the gateway's refusal of a slug in
// use). axe-core finds no serious violation in it. MariaDB, RabbitMQ.
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { freePort } from '../helpers/processes.ts';
import { uniqueName } from '../helpers/services.ts';
import { launchBrowser, pageProblems, screenshot, seriousAxeViolations } from '../helpers/browser.ts';

let gw: TestGateway;
let base: string;
let browser: Browser;
let owner: Account;
let page: Page;
let problems: string[];

test.before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  gw = await startGateway({ queue: 'memory', env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, AUTH_RATE_PER_ADDRESS: '1000' } });
  await gw.server.start();
  browser = await launchBrowser();
  owner = await newAccount(gw);
  const email = (await gw.app.db('users').where({ id: owner.userId }).first<{ email: string }>('email'))!.email;
  const ctx = await browser.newContext({ bypassCSP: true });
  page = await ctx.newPage();
  problems = pageProblems(page);
  await page.goto(`${base}/dashboard`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
});
test.after.always(async () => {
  await browser?.close();
  await gw?.stop();
});

test.serial('problems are shown beside their fields, and nothing is sent until they are fixed', async (t) => {
  await page.goto(`${base}/dashboard#/studios`);
  const form = page.getByRole('form', { name: 'Create a studio' });
  await form.waitFor();
  await form.getByLabel('Slug').fill('No Spaces Allowed');
  await form.getByLabel('Main colour', { exact: true }).fill('blue');
  await form.getByLabel('Domains').fill('not a host');
  await form.getByRole('button', { name: 'Create studio' }).click();
  await page.getByText('Some fields need another look: see the messages beside them.').waitFor();
  const beside = async (label: string) => {
    const input = form.getByLabel(label, { exact: true });
    t.is(await input.getAttribute('aria-invalid'), 'true', label);
    const id = (await input.getAttribute('aria-describedby'))!.split(' ').find((x) => x.endsWith('-error'))!;
    return (await page.locator(`#${id}`).textContent())!;
  };
  t.regex(await beside('Slug'), /lowercase letters, digits and dashes/);
  t.regex(await beside('Name'), /Give the studio a name/);
  t.regex(await beside('Main colour'), /#rgb or #rrggbb/);
  t.regex(await beside('Domains'), /"not" is not a hostname/);
  t.regex((await page.locator('#studio-models-error').textContent())!, /at least one model/);
  // the first field in trouble has the focus
  t.is(await page.evaluate<string>('document.activeElement.id'), 'studio-slug');
  t.is((await gw.app.db('studios').where({ user_id: owner.userId })).length, 0, 'nothing was sent');
  await screenshot(page, 'dashboard', 'studio-form-problems');
});

test.serial('the colour picker, the live preview and the searchable model picker; a slug in use is refused beside the slug', async (t) => {
  await page.goto(`${base}/dashboard#/studios`);
  await page.reload();
  const form = page.getByRole('form', { name: 'Create a studio' });
  await form.waitFor();
  const slug = uniqueName('look').toLowerCase().replace(/[^a-z0-9-]/g, '').slice(0, 30);
  await form.getByLabel('Slug').fill(slug);
  await form.getByLabel('Name', { exact: true }).fill('Lumen Lab');
  // the picker writes the hex, and the preview follows
  await form.getByLabel('Pick the main colour').fill('#0b6e4f');
  t.is(await form.getByLabel('Main colour', { exact: true }).inputValue(), '#0b6e4f');
  await form.getByLabel('Accent colour', { exact: true }).fill('#fde047');
  const bar = page.getByTestId('preview-bar');
  t.regex((await bar.textContent())!, /Lumen Lab/);
  t.is(await page.evaluate<string>("getComputedStyle(document.querySelector('[data-testid=preview-bar]')).backgroundColor"), 'rgb(11, 110, 79)');
  t.is(await page.evaluate<string>("getComputedStyle(document.querySelector('[data-testid=preview-bar]')).color"), 'rgb(255, 255, 255)', 'white reads better on the dark green');
  t.is(await page.evaluate<string>("getComputedStyle(document.querySelector('[data-testid=preview-button]')).color"), 'rgb(0, 0, 0)', 'black reads better on the pale yellow');
  await page.getByText('The accent is light: links use dark text').waitFor();

  // the model picker narrows as you type; the choice stays listed
  const choices = form.locator('ul.model-choices li');
  const all = await choices.count();
  await form.getByLabel('Find a model').fill('forma');
  t.true((await choices.count()) < all);
  for (const text of await choices.allTextContents()) t.regex(text, /forma/i);
  await form.getByRole('checkbox').first().check();
  await form.getByLabel('Find a model').fill('canvas fast');
  await form.getByRole('checkbox', { name: /Canvas v1 Fast/ }).check();
  await form.getByText(/2 chosen: forma-.*canvas-v1-fast-text-to-image/).waitFor();
  await screenshot(page, 'dashboard', 'studio-form-preview');
  t.deepEqual(await seriousAxeViolations(page), []);

  // the gateway refuses a slug that another studio has: the sentence lands beside the slug
  const other = await newAccount(gw);
  await callOperation(gw, 'createStudio', { as: other.session, body: { slug, name: 'First', allowed_models: ['canvas-v1-fast-text-to-image'], payer_mode: 'owner_pays' } });
  await form.getByRole('button', { name: 'Create studio' }).click();
  const slugInput = form.getByLabel('Slug');
  await form.locator('#studio-slug-error').waitFor();
  t.regex((await form.locator('#studio-slug-error').textContent())!, /already used by another studio/);
  t.is(await slugInput.getAttribute('aria-invalid'), 'true');
  // with another slug it is created, with the colours and models chosen
  const free = `${slug.slice(0, 30)}-b`;
  await slugInput.fill(free);
  await form.getByRole('button', { name: 'Create studio' }).click();
  await page.getByText('The studio "Lumen Lab" was created.').waitFor();
  const row = await gw.app.db('studios').where({ slug: free }).first<{ branding: string; allowed_models: string }>();
  t.like(JSON.parse(row!.branding), { primary_color: '#0b6e4f', accent_color: '#fde047' });
  t.is(JSON.parse(row!.allowed_models).length, 2);
  t.deepEqual(problems.filter((p) => !p.includes('409')), []);
});
