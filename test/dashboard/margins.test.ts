// The admin page's revenue, provider cost and margin table in a real browser (Debian chromium via
// playwright-core): a billing account sees the runs of the day by model with the totals, and
// narrows the table to one model; a support account does not see it. Screenshot in
// test-results/screenshots/dashboard/.
import test from 'ava';
import type { Browser } from 'playwright-core';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { freePort } from '../helpers/processes.ts';
import { launchBrowser, screenshot, signIn as signInPage } from '../helpers/browser.ts';
import { insertProviderCosts } from '../../db/provider-costs.ts';

let gw: TestGateway;
let base: string;
let browser: Browser;

test.before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  gw = await startGateway({ queue: 'memory', env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, AUTH_RATE_PER_ADDRESS: '1000' } });
  await gw.server.start();
  browser = await launchBrowser();
  // the day's runs, as the worker records them (test/http/margins.test.ts runs them for real)
  const now = gw.app.clock();
  const row = { provider: 'fal', upstreamModel: 'fal-ai/veo3.1', source: 'rule' as const, now };
  await insertProviderCosts(gw.app.db, [{ ...row, predictionId: 'p1', model: 'veloce-v2-standard-text-to-video', charged: 3200, providerCost: 2400 }]);
  await insertProviderCosts(gw.app.db, [{ ...row, predictionId: 'p2', model: 'veloce-v2-standard-text-to-video', charged: 3200, providerCost: 2400 }]);
  await insertProviderCosts(gw.app.db, [{ ...row, predictionId: 'p3', model: 'lumen-dev-text-to-image', charged: 40, providerCost: null, source: 'unknown' }]);
});

test.after.always(async () => {
  await browser?.close();
  await gw?.stop();
});

async function staff(role: 'billing' | 'support'): Promise<string> {
  const a = await newAccount(gw, 0);
  await gw.app.db('users').where({ id: a.userId }).update({ role });
  return (await gw.app.db('users').where({ id: a.userId }).first<{ email: string }>())!.email;
}

test.serial('a billing account reads the day\'s revenue, provider cost and margin by model, and narrows it to one model', async (t) => {
  const { page, problems } = await signInPage(browser, base, await staff('billing'));
  await page.goto(`${base}/dashboard#/admin`);
  await page.getByRole('tab', { name: 'Margins' }).click();
  const margins = page.getByTestId('admin-margins');
  await margins.getByRole('heading', { name: 'Revenue, provider cost and margin' }).waitFor();
  await margins.getByText('veloce-v2-standard-text-to-video').waitFor();
  t.regex(await margins.getByTestId('margins-total').textContent() ?? '', /1,640 credits/);
  // the unknown cost is counted beside the cost, in its row and in the total
  t.is(await margins.getByText('(1 unknown)').count(), 2);
  await screenshot(page, 'dashboard', 'admin-margins');
  await margins.getByLabel('Model').fill('lumen-dev-text-to-image');
  await margins.getByRole('button', { name: 'Show' }).click();
  // anchored: the day's total before the narrowing, "1,640 credits", ends with "40 credits" too
  await margins.getByTestId('margins-total').filter({ hasText: /^\s*40 credits/ }).waitFor();
  t.is(await margins.getByText('veloce-v2-standard-text-to-video').count(), 0);
  await margins.getByLabel('From').fill('2020-01-01');
  await margins.getByLabel('To').fill('2020-01-02');
  await margins.getByRole('button', { name: 'Show' }).click();
  await margins.getByText('No runs in this range.').waitFor();
  t.deepEqual(problems, []);
  await page.close();
});

test.serial('a support account does not see the table', async (t) => {
  const { page, problems } = await signInPage(browser, base, await staff('support'));
  await page.goto(`${base}/dashboard#/admin`);
  await page.getByRole('heading', { name: 'Admin', exact: true }).waitFor();
  t.is(await page.getByTestId('admin-margins').count(), 0);
  t.deepEqual(problems, []);
  await page.close();
});
