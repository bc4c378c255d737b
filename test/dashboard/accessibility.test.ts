// Every page of the dashboard, signed out and signed in (as an administrator, so the operator's
// pages are included), at desktop and phone width, checked by axe-core inside chromium: no
// serious or critical violation. Each page's screenshot is kept in
// test-results/screenshots/accessibility/. The phone menu works from the keyboard. MariaDB,
// RabbitMQ and a worker (a finished run fills history, gallery and the overview).
import test from 'ava';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { freePort } from '../helpers/processes.ts';
import { waitFor } from '../helpers/services.ts';
import { launchBrowser, pageProblems, screenshot, seriousAxeViolations } from '../helpers/browser.ts';

let gw: TestGateway;
let base: string;
let browser: Browser;
let email: string;

const PAGES = ['overview', 'playground', 'history', 'gallery', 'media', 'keys', 'clients', 'webhooks', 'embeds', 'billing', 'teams', 'studios', 'account', 'admin'];
const SIGNED_OUT = ['sign-in', 'sign-up', 'forgot-password'];
const WIDTHS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const;

test.before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  gw = await startGateway({ worker: true, env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, AUTH_RATE_PER_ADDRESS: '1000' } });
  await gw.server.start();
  browser = await launchBrowser();
  const acct = await newAccount(gw, 10_000);
  email = (await gw.app.db('users').where({ id: acct.userId }).first<{ email: string }>('email'))!.email;
  await gw.app.db('users').where({ id: acct.userId }).update({ role: 'admin' });
  const run = await fetch(`${base}/api/v1/canvas-v1-fast-text-to-image`, { method: 'POST', headers: { 'x-api-key': acct.liveKey, 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'a harbour', width: 64, height: 64 }) });
  const id = ((await run.json()) as { request_id: string }).request_id;
  await waitFor(async () => (await gw.app.db('predictions').where({ id }).first<{ status: string }>('status'))?.status === 'completed' || undefined, { what: 'the run to finish', timeoutMs: 60_000 });
});
test.after.always(async () => {
  await browser?.close();
  await gw?.stop();
});

async function context(width: keyof typeof WIDTHS): Promise<BrowserContext> {
  // axe-core is added to the page as a script: only the test's context bypasses the page's CSP
  return browser.newContext({ bypassCSP: true, viewport: WIDTHS[width] });
}

async function signIn(page: Page): Promise<void> {
  await page.goto(`${base}/dashboard`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
}

/** Waits until the page has nothing left loading. */
async function settled(page: Page): Promise<void> {
  await waitFor(() => page.evaluate<boolean>("!document.querySelector('.loading, .boot') && !/Loading/.test(document.querySelector('main')?.innerText ?? '')"), { what: 'the page to finish loading', timeoutMs: 20_000 });
}

for (const width of Object.keys(WIDTHS) as Array<keyof typeof WIDTHS>) {
  test.serial(`every page has no serious or critical accessibility violation at ${width} width`, async (t) => {
    const ctx = await context(width);
    const page = await ctx.newPage();
    const problems = pageProblems(page);
    const found: Record<string, unknown> = {};
    for (const view of SIGNED_OUT) {
      await page.goto(`${base}/dashboard#/${view}`);
      await page.locator('main h1').waitFor();
      await settled(page);
      const v = await seriousAxeViolations(page);
      if (v.length) found[view] = v;
      await screenshot(page, 'accessibility', `${view}-${width}`);
    }
    await signIn(page);
    for (const view of PAGES) {
      await page.goto(`${base}/dashboard#/${view}`);
      await page.locator('#page-title').waitFor();
      await settled(page);
      const v = await seriousAxeViolations(page);
      if (v.length) found[view] = v;
      await screenshot(page, 'accessibility', `${view}-${width}`);
    }
    t.deepEqual(found, {});
    t.deepEqual(problems, []);
    await ctx.close();
  });
}

test.serial('on a phone the navigation is a menu that opens and is used from the keyboard', async (t) => {
  const ctx = await context('phone');
  const page = await ctx.newPage();
  await signIn(page);
  const menu = page.getByRole('button', { name: 'Menu' });
  t.is(await menu.getAttribute('aria-expanded'), 'false');
  t.false(await page.getByRole('link', { name: 'API keys' }).isVisible());
  await menu.focus();
  await page.keyboard.press('Enter');
  t.is(await menu.getAttribute('aria-expanded'), 'true');
  await page.getByRole('link', { name: 'API keys' }).waitFor();
  await screenshot(page, 'accessibility', 'menu-open-phone');
  await page.getByRole('link', { name: 'API keys' }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'API keys', exact: true }).waitFor();
  // the menu closes behind the choice, and focus moves to the new page's heading
  t.is(await menu.getAttribute('aria-expanded'), 'false');
  t.is(await page.evaluate<string>('document.activeElement.id'), 'page-title');
  const widest = await page.evaluate<number>('document.documentElement.scrollWidth');
  t.true(widest <= 390, `the page is ${widest}px wide`);
  await ctx.close();
});

test.serial('on a desktop the navigation is a sidebar of groups, always visible', async (t) => {
  const ctx = await context('desktop');
  const page = await ctx.newPage();
  await signIn(page);
  t.false(await page.getByRole('button', { name: 'Menu' }).isVisible());
  const nav = page.getByRole('navigation', { name: 'Main' });
  for (const group of ['Create', 'Develop', 'Business', 'You']) t.true(await nav.getByRole('heading', { name: group }).isVisible(), group);
  t.is(await nav.getByRole('link', { name: 'Overview' }).getAttribute('aria-current'), 'page');
  await ctx.close();
});
