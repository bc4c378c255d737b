// The dashboard's admin page in a real browser (Debian chromium via playwright-core), on MariaDB:
// hidden from a plain user; an admin looks a user up, adds and removes credit, refunds a run and
// reads the audit log with both moves in it; a support account sees the lookup and refunds but
// not the credit form nor the audit log. Screenshots in test-results/screenshots/dashboard/.
import test from 'ava';
import type { Browser } from 'playwright-core';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { freePort } from '../helpers/processes.ts';
import { waitFor } from '../helpers/services.ts';
import { launchBrowser, pageProblems, screenshot, signIn as signInPage } from '../helpers/browser.ts';
import { assertLedger } from '../helpers/ledger.ts';

let gw: TestGateway;
let base: string;
let browser: Browser;

test.before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  gw = await startGateway({ worker: true, env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, AUTH_RATE_PER_ADDRESS: '1000' } });
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

const signIn = (email: string) => signInPage(browser, base, email);

test.serial('a plain user has no admin page; the link is not shown and the route falls back to the overview', async (t) => {
  const user = await newAccount(gw, 0);
  const { page, problems } = await signIn(await emailOf(user.userId));
  t.is(await page.getByRole('link', { name: 'Admin' }).count(), 0);
  await page.goto(`${base}/dashboard#/admin`);
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  t.deepEqual(problems, []);
  await page.close();
});

test.serial('an admin looks a user up, adds and removes credit, refunds a run, and finds the moves in the audit log', async (t) => {
  const admin = await newAccount(gw, 0);
  await gw.app.db('users').where({ id: admin.userId }).update({ role: 'admin' });
  const customer = await newAccount(gw, 1000);
  const customerEmail = await emailOf(customer.userId);
  // a completed run of the customer's to refund
  const submit = await fetch(`${base}/api/v1/canvas-v1-fast-text-to-image`, {
    method: 'POST', headers: { 'x-api-key': customer.liveKey, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'a paper boat', width: 64, height: 64 }),
  });
  const requestId = ((await submit.json()) as { request_id: string }).request_id;
  await waitFor(async () => {
    const r = await fetch(`${base}/api/v1/predictions/${requestId}/result`, { headers: { 'x-api-key': customer.liveKey } });
    return ((await r.json()) as { status: string }).status === 'completed';
  }, { what: 'the run to complete', timeoutMs: 60_000 });

  const { page, problems } = await signIn(await emailOf(admin.userId));
  await page.getByRole('link', { name: 'Admin' }).click();
  await page.getByRole('heading', { name: 'Admin', exact: true }).waitFor();
  // an unknown email is a sentence
  await page.getByLabel('User\'s email').fill('nobody-here@example.com');
  await page.getByRole('button', { name: 'Look up' }).click();
  await page.getByText('No account uses nobody-here@example.com.').waitFor();

  await page.getByLabel('User\'s email').fill(customerEmail);
  await page.getByRole('button', { name: 'Look up' }).click();
  await page.getByTestId('admin-user').getByRole('heading', { name: customerEmail }).waitFor();
  t.is(await page.getByTestId('admin-balance').textContent(), '995 credits');

  const credits = page.getByTestId('admin-credits');
  await credits.getByLabel('Credits (1,000 = 1 USD)').fill('250');
  await credits.getByLabel('Reason (shown in the user\'s transactions)').fill('goodwill');
  await credits.getByRole('button', { name: 'Add credit' }).click();
  await credits.getByText('Added 250 credits. The balance is now 1,245 credits.').waitFor();
  await page.getByTestId('admin-balance').filter({ hasText: '1,245 credits' }).waitFor();

  await credits.locator('select[name="kind"]').selectOption('deduct');
  await credits.getByLabel('Credits (1,000 = 1 USD)').fill('5000');
  await credits.getByRole('button', { name: 'Remove credit' }).click();
  // more than the balance without allow_negative: the gateway's 409 as a sentence
  await credits.getByRole('alert').waitFor();
  t.false((await credits.getByRole('alert').textContent())!.includes('{'));
  await credits.getByLabel('Credits (1,000 = 1 USD)').fill('45');
  await credits.getByRole('button', { name: 'Remove credit' }).click();
  await credits.getByText('Removed 45 credits. The balance is now 1,200 credits.').waitFor();

  const refund = page.getByTestId('admin-refund');
  await refund.getByLabel('Run (request id)').fill(requestId);
  await refund.getByRole('button', { name: 'Refund' }).click();
  await refund.getByText(`Refunded 5 credits for run ${requestId}.`).waitFor();

  // the user's own audit trail, and the whole log on its tab
  const trail = page.getByTestId('admin-user-audit');
  for (const action of ['adminTopup', 'adminDeductCredits', 'adminRefund']) await trail.getByText(action, { exact: true }).first().waitFor();
  await page.getByRole('tab', { name: 'Audit log' }).click();
  const audit = page.getByTestId('admin-audit');
  await audit.getByLabel('On user id').fill(String(customer.userId));
  await audit.getByRole('button', { name: 'Filter' }).click();
  for (const action of ['adminTopup', 'adminDeductCredits', 'adminRefund', 'adminUserInfo']) await audit.getByText(action, { exact: true }).first().waitFor();
  await screenshot(page, 'dashboard', 'admin');
  await assertLedger(t, gw.app.db);
  // the refused deduction (409) is the one expected console error
  t.deepEqual(problems.filter((p) => !p.includes('409') && !p.includes('404')), []);
  await page.close();
});

test.serial('a support account looks users up and refunds, without the credit form or the audit log', async (t) => {
  const support = await newAccount(gw, 0);
  await gw.app.db('users').where({ id: support.userId }).update({ role: 'support' });
  const customer = await newAccount(gw, 100);
  const { page, problems } = await signIn(await emailOf(support.userId));
  await page.goto(`${base}/dashboard#/admin`);
  await page.getByRole('heading', { name: 'Admin', exact: true }).waitFor();
  await page.getByLabel('User\'s email').fill(await emailOf(customer.userId));
  await page.getByRole('button', { name: 'Look up' }).click();
  await page.getByTestId('admin-balance').waitFor();
  t.is(await page.getByTestId('admin-refund').count(), 1);
  t.is(await page.getByTestId('admin-credits').count(), 0);
  t.is(await page.getByTestId('admin-audit').count(), 0);
  t.deepEqual(problems, []);
  await page.close();
});

test.serial('support acts as a user: a new tab signed in as the user with a banner naming the staff member; key creation refused there; End signs it out', async (t) => {
  const support = await newAccount(gw, 0);
  await gw.app.db('users').where({ id: support.userId }).update({ role: 'support' });
  const customer = await newAccount(gw, 100);
  const customerEmail = await emailOf(customer.userId);
  const { page, problems } = await signIn(await emailOf(support.userId));
  await page.goto(`${base}/dashboard#/admin`);
  await page.getByLabel('User\'s email').fill(customerEmail);
  await page.getByRole('button', { name: 'Look up' }).click();
  const form = page.getByTestId('admin-act-as');
  await form.getByLabel('Reason (a ticket, the user\'s request)').fill('ticket 4521');
  const [tab] = await Promise.all([page.context().waitForEvent('page'), form.getByRole('button', { name: `Act as ${customerEmail}` }).click()]);
  const tabProblems = pageProblems(tab);
  const banner = tab.getByTestId('impersonation-banner');
  await banner.waitFor();
  t.true((await banner.textContent())!.includes(customerEmail));
  t.true((await banner.textContent())!.includes(`staff user ${support.userId}`));
  // the token left the address bar
  t.false(tab.url().includes('token='));
  // the staff member's own tab is still the staff member's
  t.is(await page.getByTestId('impersonation-banner').count(), 0);
  // key creation is refused while impersonating, as a sentence
  await tab.goto(`${base}/dashboard#/keys`);
  await tab.getByRole('heading', { name: 'API keys' }).waitFor();
  await tab.getByLabel('Name').fill('not allowed');
  await tab.getByRole('button', { name: 'Create key' }).click();
  await tab.getByRole('alert').waitFor();
  t.false((await tab.getByRole('alert').textContent())!.includes('{'));
  await screenshot(tab, 'dashboard', 'impersonating');
  // the audit log has the impersonated requests with both identities
  const rows = await gw.app.db('admin_audit').where({ actor_user_id: support.userId, target_user_id: customer.userId }).select('action');
  t.true(rows.some((r: { action: string }) => r.action === 'virtualLogin'));
  t.true(rows.length >= 2);
  await tab.getByTestId('impersonation-banner').getByRole('button', { name: 'End' }).click();
  await tab.getByRole('button', { name: 'Sign in' }).waitFor();
  t.deepEqual(tabProblems.filter((p) => !p.includes('403')), []);
  t.deepEqual(problems, []);
  await tab.close();
  await page.close();
});

