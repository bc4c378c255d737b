// The Account page's "Staff access to your account" in a real browser (Debian chromium via
// playwright-core), on MariaDB: empty at first, with a sentence; after an administrator acts as
// the user, the user sees it with the reason given; the staff member's own impersonated tab is
// told the list is the owner's, and does not ask for it. Screenshots in test-results/screenshots/dashboard/.
import test from 'ava';
import type { Browser } from 'playwright-core';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { freePort } from '../helpers/processes.ts';
import { launchBrowser, pageProblems, screenshot, signIn } from '../helpers/browser.ts';
import { callOperation } from '../helpers/operation.ts';

let gw: TestGateway;
let base: string;
let browser: Browser;

test.before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  gw = await startGateway({ env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, AUTH_RATE_PER_ADDRESS: '1000' } });
  await gw.server.start();
  browser = await launchBrowser();
});

test.after.always(async () => {
  await browser?.close();
  await gw?.stop();
});

async function emailOf(userId: number): Promise<string> {
  return (await gw.app.db('users').where({ id: userId }).first<{ email: string }>())!.email;
}

test.serial('an impersonation by an administrator shows on the user\'s Account page with its reason; the impersonated tab is not shown the list', async (t) => {
  const admin = await newAccount(gw, 0);
  await gw.app.db('users').where({ id: admin.userId }).update({ role: 'admin' });
  const customer = await newAccount(gw, 0);
  const customerEmail = await emailOf(customer.userId);
  const { page, problems } = await signIn(browser, base, customerEmail);

  await page.goto(`${base}/dashboard#/account`);
  await page.getByRole('heading', { name: 'Staff access to your account' }).waitFor();
  await page.getByTestId('staff-access-empty').waitFor();
  t.regex((await page.getByTestId('staff-access-empty').textContent())!, /No staff member has signed in as you/);

  const opened = await callOperation<string>(gw, 'virtualLogin', { as: admin.session, body: { email: customerEmail, reason: 'ticket 9120: the gallery is empty' } });
  t.is(opened.status, 200);

  await page.reload();
  const row = page.getByTestId('staff-access').locator('tr[data-kind="impersonation"]');
  await row.waitFor();
  const text = (await row.textContent())!;
  t.true(text.includes('An administrator'), text);
  t.true(text.includes('Signed in as you'), text);
  t.true(text.includes('ticket 9120: the gallery is empty'), text);
  t.false(text.includes(opened.body) || text.includes(await emailOf(admin.userId)), 'neither the token nor who the staff member is');
  await screenshot(page, 'dashboard', 'account-staff-access');
  t.deepEqual(problems, []);

  // the staff member's tab acting as the user: the list is the owner's, and is not asked for
  const tab = await browser.newPage();
  const tabProblems = pageProblems(tab);
  await tab.goto(`${base}/dashboard#/impersonate?token=${opened.body}`);
  await tab.getByTestId('impersonation-banner').waitFor();
  await tab.goto(`${base}/dashboard#/account`);
  await tab.getByTestId('staff-access-hidden').waitFor();
  t.is(await tab.getByTestId('staff-access').count(), 0);
  t.deepEqual(tabProblems, []);
  await tab.close();
  await page.close();
});
