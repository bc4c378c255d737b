// The usage page in a real browser (Debian chromium via playwright-core) against a gateway on a
// port, on MariaDB and RabbitMQ with a worker: two real runs with two keys, and a month of another
// model's runs and charges inserted in bulk; the page's totals equal the ledger, the stacked chart
// and the by-key chart are drawn (uPlot, on canvas, with the models in the legend), the CSV
// export sums to the total, and a range with nothing in it says so.
import test from 'ava';
import fs from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { freePort } from '../helpers/processes.ts';
import { waitFor } from '../helpers/services.ts';
import { launchBrowser, pageProblems, screenshot } from '../helpers/browser.ts';
import { newPredictionId } from '../../db/predictions/record.ts';
import { startReceiver } from '../helpers/receiver.ts';

const DAY = 86_400_000;
let gw: TestGateway;
let base: string;
let browser: Browser;
let page: Page;
let problems: string[];
let account: Account;

async function run(key: string): Promise<void> {
  const submit = await fetch(`${base}/api/v1/canvas-v1-fast-text-to-image`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'a kite', width: 64, height: 64 }),
  });
  const { request_id: id } = (await submit.json()) as { request_id: string };
  await waitFor(async () => {
    const r = await fetch(`${base}/api/v1/predictions/${id}/result`, { headers: { 'x-api-key': key } });
    return ((await r.json()) as { status: string }).status === 'completed';
  }, { what: 'the run to complete', timeoutMs: 60_000 });
}

test.before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  // the alert webhook's receiver listens on 127.0.0.1 over plain HTTP
  gw = await startGateway({ worker: true, env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, AUTH_RATE_PER_ADDRESS: '1000', WEBHOOK_ALLOW_INSECURE: 'true' } });
  await gw.server.start();
  browser = await launchBrowser();
  account = await newAccount(gw, 100_000);
  const session = { authorization: `Bearer ${account.session}` };
  const second = await gw.server.inject({ method: 'POST', url: '/api/v1/keys', headers: session, payload: { name: 'second', is_test: false } });
  await run(account.liveKey);
  await run((second.result as { key: string }).key);
  // a month of another model's runs, charged on the ledger (inserted in bulk)
  const now = Date.now();
  const preds = [];
  const ledger = [];
  for (let i = 0; i < 300; i++) {
    const at = now - (i % 28 + 1) * DAY;
    const id = newPredictionId(at + i);
    preds.push({ id, user_id: account.userId, team_id: null, api_key_id: null, model: 'aurora-v3-pro-text-to-video', status: 'completed', is_test: false, input: '{}', price: 40, source: 'dashboard', created_at: at, updated_at: at });
    ledger.push({ user_id: account.userId, team_id: null, amount: -40, held_change: 0, kind: 'prediction', prediction_id: id, ref: '', description: 'seed', balance_after: 0, held_after: 0, created_at: at + 1 });
  }
  await gw.app.db('predictions').insert(preds);
  await gw.app.db('credit_transactions').insert(ledger);

  const { email } = (await gw.app.db('users').where({ id: account.userId }).first<{ email: string }>())!;
  page = await browser.newPage();
  problems = pageProblems(page);
  await page.goto(`${base}/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
});

test.after.always(async () => {
  await browser?.close();
  await gw?.stop();
});

/** Pixels of a canvas that something was drawn on. */
async function painted(selector: string): Promise<number> {
  return page.evaluate<number>(`(() => {
    const c = document.querySelector(${JSON.stringify(selector)});
    const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++;
    return n;
  })()`);
}

test.serial('the usage page shows totals equal to the ledger, spend per day stacked by model, spend by key, and exports CSV', async (t) => {
  const from = new Date(Date.now() - 29 * DAY).toISOString().slice(0, 10);
  const ledgerRows = await gw.app.db('credit_transactions').where({ user_id: account.userId }).whereNull('team_id').whereIn('kind', ['prediction', 'refund'])
    .andWhere('created_at', '>=', Date.parse(`${from}T00:00:00Z`)).sum({ s: 'amount' }).first();
  const spend = -Number(ledgerRows?.s ?? 0);
  t.true(spend > 300 * 40 - 40 * 28);

  await page.goto(`${base}/dashboard#/usage`);
  await page.getByRole('heading', { name: 'Usage', exact: true }).waitFor();
  const total = page.getByTestId('usage-spend');
  await total.waitFor();
  t.is(await total.getAttribute('data-spend'), String(spend));
  await page.locator('[data-testid="usage-by-day"] .uplot canvas').waitFor();
  t.true(await painted('[data-testid="usage-by-day"] .uplot canvas') > 500, 'the stacked bars are drawn');
  const legend = await page.locator('[data-testid="usage-by-day"] .u-legend').innerText();
  t.true(legend.includes('aurora-v3-pro-text-to-video') && legend.includes('canvas-v1-fast-text-to-image'), legend);
  t.true(await painted('[data-testid="usage-by-key"] .uplot canvas') > 100, 'the by-key bars are drawn');
  const keys = await page.getByTestId('usage-keys').innerText();
  for (const name of ['live', 'second', 'No key']) t.true(keys.includes(name), keys);

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('usage-csv').click()]);
  t.regex(download.suggestedFilename(), /^usage-\d{4}-\d\d-\d\d-to-\d{4}-\d\d-\d\d\.csv$/);
  const csv = await fs.readFile((await download.path())!, 'utf8');
  const lines = csv.trim().split('\r\n');
  t.is(lines[0], 'day,model,runs,failed_runs,sandbox_runs,spend_credits');
  t.is(lines.slice(1).reduce((s, l) => s + Number(l.split(',').at(-1)), 0), spend);
  await screenshot(page, 'dashboard', 'usage');

  // a range the user picks: a year ago has nothing
  await page.getByLabel('From', { exact: true }).fill('2025-01-01');
  await page.getByLabel('To', { exact: true }).fill('2025-01-31');
  await page.getByRole('button', { name: 'Show' }).click();
  await page.locator('[data-testid="usage-spend"][data-spend="0"]').waitFor();
  await page.getByText('Nothing spent in this range.').waitFor();
  t.deepEqual(problems, []);
});

test.serial('alerts and a budget are set on the usage page, and the alert a run then sends is listed there', async (t) => {
  await page.goto(`${base}/dashboard#/overview`);
  await page.goto(`${base}/dashboard#/usage`);
  const form = page.getByTestId('alert-settings');
  await form.waitFor();
  await form.getByLabel('Alert when the balance falls below (credits)').fill('50');
  // below what this month has spent whatever the day: the two runs made at the start (the seeded
  // month of runs lies in the previous calendar month on its first days)
  await form.getByLabel('Monthly budget (credits)').fill('5');
  await form.getByLabel('When the budget is reached').selectOption('soft');
  await form.getByRole('button', { name: 'Save alerts' }).click();
  await form.getByText('Saved.').waitFor();
  const settings = await gw.app.db('users').where({ id: account.userId }).first<{ low_balance_threshold: number; monthly_budget: number; monthly_budget_hard: number }>();
  t.deepEqual([Number(settings!.low_balance_threshold), Number(settings!.monthly_budget), Number(settings!.monthly_budget_hard)], [50, 5, 0]);
  await page.getByText('No alerts yet.').waitFor();
  // a run past the budget (this month's runs are above it) sends the budget's alert
  await run(account.liveKey);
  await waitFor(async () => (await gw.app.db('alerts').where({ user_id: account.userId })).length > 0, { what: 'the alert' });
  await page.reload();
  await page.getByTestId('alerts').getByText('Monthly budget reached').waitFor();
  await screenshot(page, 'dashboard', 'usage-alerts');
  t.deepEqual(problems, []);
});

test.serial('the alert webhook is set on the usage page, a test alert is sent from it, and a real alert\'s delivery shows in the webhooks page\'s log', async (t) => {
  const receiver = await startReceiver(() => ({ status: 200, body: 'alert noted\n' }));
  t.teardown(() => receiver.close());
  await page.goto(`${base}/dashboard#/usage`);
  const form = page.getByTestId('alert-settings');
  await form.waitFor();
  const test = form.getByRole('button', { name: 'Send test alert' });
  t.true(await test.isDisabled(), 'nothing to send to without an address');
  await form.getByLabel('Also send alerts to this webhook (optional)').fill(receiver.url);
  // tried before it is saved
  await test.click();
  await form.getByTestId('alert-test-result').getByText('Test alert delivered: the receiver answered HTTP 200', { exact: false }).waitFor();
  t.is((JSON.parse(receiver.received[0]!.body) as { type: string }).type, 'alert.test');
  await screenshot(page, 'dashboard', 'usage-alert-webhook');
  // a line above the balance: the next run alerts
  await form.getByLabel('Alert when the balance falls below (credits)').fill('1000000000');
  await form.getByRole('button', { name: 'Save alerts' }).click();
  await form.getByText('Saved.').waitFor();
  t.is((await gw.app.db('users').where({ id: account.userId }).first<{ alert_webhook_url: string }>())!.alert_webhook_url, receiver.url);
  await run(account.liveKey);
  await waitFor(() => receiver.received.length === 2, { what: 'the alert event' });
  t.is((JSON.parse(receiver.received[1]!.body) as { type: string }).type, 'alert.low_balance');
  await page.getByRole('link', { name: 'Webhooks' }).first().click();
  const row = page.getByTestId('delivery-log').locator('tbody tr', { hasText: 'Alert: low balance' });
  await row.getByText('HTTP 200').waitFor();
  t.is(await row.getByTestId('delivery-excerpt').textContent(), 'alert noted ');
  await screenshot(page, 'dashboard', 'alert-webhook-delivery');
  t.deepEqual(problems, []);
});

test.serial('a key\'s spend alert is set from the keys page', async (t) => {
  await page.goto(`${base}/dashboard#/keys`);
  await page.getByRole('button', { name: 'Edit second' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Alert at (credits)').fill('1000');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Saved "second".').waitFor();
  const key = await gw.app.db('api_keys').where({ user_id: account.userId, name: 'second' }).first<{ soft_spend_limit: number | string | null; name: string }>();
  t.is(Number(key!.soft_spend_limit), 1000);
  t.deepEqual(problems, []);
});

test.serial('the usage page fits a phone screen', async (t) => {
  await page.setViewportSize({ width: 390, height: 844 });
  // a fresh load starts again from the last 30 days
  await page.goto(`${base}/dashboard#/usage`);
  await page.reload();
  await page.locator('[data-testid="usage-by-day"] .uplot canvas').waitFor();
  const wide = await page.evaluate<number>('document.documentElement.scrollWidth');
  t.true(wide <= 390, `page is ${wide}px wide`);
  await screenshot(page, 'dashboard', 'usage-phone');
});
