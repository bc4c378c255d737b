// The operator console in a real browser: the user list (search, a filter, opening a user with
// their runs and audit trail), the gateway's totals, and the failures view whose link opens the
// failed run in its user's view. Each tab is checked by axe-core at desktop and phone width.
// MariaDB, RabbitMQ, a worker; the failing upstream provider is third-party HTTP: nock.
import test from 'ava';
import nock from 'nock';
import type { Browser, Page } from 'playwright-core';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { freePort } from '../helpers/processes.ts';
import { waitFor } from '../helpers/services.ts';
import { launchBrowser, pageProblems, screenshot, seriousAxeViolations } from '../helpers/browser.ts';

const UPSTREAM = 'https://lumen.upstream.test';
let gw: TestGateway;
let base: string;
let browser: Browser;
let admin: Account;
let customer: Account;
let customerEmail: string;
let failedId: string;

test.before(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  gw = await startGateway({ worker: true, env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, AUTH_RATE_PER_ADDRESS: '1000', UPSTREAM_LUMEN_URL: UPSTREAM, UPSTREAM_LUMEN_KEY: 'sk-upstream' } });
  await gw.server.start();
  browser = await launchBrowser();
  admin = await newAccount(gw);
  await gw.app.db('users').where({ id: admin.userId }).update({ role: 'admin' });
  customer = await newAccount(gw, 10_000);
  customerEmail = (await gw.app.db('users').where({ id: customer.userId }).first<{ email: string }>('email'))!.email;
  nock(UPSTREAM).post(/\/v1\/models\/.*\/predictions/).once().reply(400, { error: 'prompt rejected by safety filter' });
  const res = await fetch(`${base}/api/v1/lumen-dev-text-to-image`, { method: 'POST', headers: { 'x-api-key': customer.liveKey, 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'x' }) });
  failedId = ((await res.json()) as { request_id: string }).request_id;
  await waitFor(async () => (await gw.app.db('predictions').where({ id: failedId }).first<{ status: string }>('status'))?.status === 'failed' || undefined, { what: 'the run to fail', timeoutMs: 60_000 });
});
test.after.always(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  await browser?.close();
  await gw?.stop();
});

async function signedInAdmin(width: number): Promise<{ page: Page; problems: string[] }> {
  const ctx = await browser.newContext({ bypassCSP: true, viewport: { width, height: 900 } });
  const page = await ctx.newPage();
  const problems = pageProblems(page);
  const email = (await gw.app.db('users').where({ id: admin.userId }).first<{ email: string }>('email'))!.email;
  await page.goto(`${base}/dashboard`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  await page.goto(`${base}/dashboard#/admin`);
  await page.getByRole('heading', { name: 'Admin', exact: true }).waitFor();
  return { page, problems };
}

test.serial('the user list finds a user by part of the email; opening one shows their runs with the provider\'s error and the audit trail', async (t) => {
  const { page, problems } = await signedInAdmin(1280);
  const table = page.getByTestId('users-table');
  await table.waitFor();
  await page.getByLabel('Search', { exact: true }).fill(customerEmail.split('@')[0]!);
  await page.getByRole('button', { name: 'Find users' }).click();
  await page.getByText('1 account', { exact: true }).waitFor();
  t.is(await table.locator('tbody tr').count(), 1);
  await page.getByLabel('Role').selectOption('admin');
  await page.getByRole('button', { name: 'Find users' }).click();
  await page.getByText('No account matches these filters.').waitFor();
  await page.getByLabel('Role').selectOption('');
  await page.getByRole('button', { name: 'Find users' }).click();
  await page.getByRole('button', { name: `Open ${customerEmail}` }).click();
  await page.getByTestId('admin-user').getByRole('heading', { name: customerEmail }).waitFor();
  const runs = page.getByTestId('admin-user-runs');
  const row = runs.locator('tr', { hasText: failedId });
  await row.waitFor();
  t.regex((await row.textContent())!, /failed.*safety filter/);
  // opening the account was itself audited, and the trail shows it
  await page.getByTestId('admin-user-audit').getByText('adminUserInfo').first().waitFor();
  await screenshot(page, 'dashboard', 'console-user');
  t.deepEqual(problems, []);
  await page.context().close();
});

test.serial('totals count the accounts, runs and the failure by model; the failures view links to the run in its user\'s view', async (t) => {
  const { page, problems } = await signedInAdmin(1280);
  await page.getByRole('tab', { name: 'Totals' }).click();
  await page.getByTestId('totals-users').waitFor();
  t.true(Number((await page.getByTestId('totals-users').textContent())!.replace(/,/g, '')) >= 2);
  t.true(Number((await page.getByTestId('totals-runs').textContent())!.replace(/,/g, '')) >= 1);
  t.regex((await page.getByTestId('totals-failures').textContent())!, /lumen-dev-text-to-image/);
  await screenshot(page, 'dashboard', 'console-totals');
  t.deepEqual(await seriousAxeViolations(page), []);

  await page.getByRole('tab', { name: 'Failures' }).click();
  const failures = page.getByTestId('failures-table');
  const row = failures.locator('tr', { hasText: customerEmail });
  await row.waitFor();
  t.regex((await row.textContent())!, /lumen-dev-text-to-image.*safety filter/);
  await screenshot(page, 'dashboard', 'console-failures');
  t.deepEqual(await seriousAxeViolations(page), []);
  await row.getByRole('link', { name: 'Open run' }).click();
  const highlighted = page.locator(`tr#run-${failedId}[aria-current="true"]`);
  await highlighted.waitFor();
  t.true(page.url().includes(`run=${failedId}`));
  // the tabs move with the arrow keys
  await page.getByRole('tab', { name: 'Users' }).focus();
  await page.keyboard.press('ArrowRight');
  await page.getByTestId('admin-totals').waitFor();
  t.deepEqual(problems, []);
  await page.context().close();
});

test.serial('the console has no serious accessibility violation on a phone', async (t) => {
  const { page } = await signedInAdmin(390);
  await page.getByTestId('users-table').waitFor();
  t.deepEqual(await seriousAxeViolations(page), []);
  for (const tab of ['Totals', 'Failures', 'Audit log']) {
    await page.getByRole('tab', { name: tab }).click();
    await waitFor(() => page.evaluate<boolean>("!document.querySelector('.loading')"), { what: `the ${tab} tab to load` });
    t.deepEqual(await seriousAxeViolations(page), [], tab);
    await screenshot(page, 'dashboard', `console-${tab.toLowerCase().replace(' ', '-')}-phone`);
  }
  t.true(await page.evaluate<number>('document.documentElement.scrollWidth') <= 390);
  await page.context().close();
});
