// The keys page in a real browser: a key created with every property (addresses, expiry, spend
// limit, per-minute and concurrency limits), checked through the API; its spend so far after a
// run; an edit; a rotation whose old secret keeps working for the chosen grace period, and one
// that stops it at once. MariaDB, RabbitMQ, a worker.
import test from 'ava';
import type { Browser } from 'playwright-core';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { freePort } from '../helpers/processes.ts';
import { launchBrowser, screenshot, signIn } from '../helpers/browser.ts';
import { callOperation } from '../helpers/operation.ts';

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

interface Key { id: number; name: string; ip_whitelist: string[]; expires_at: string | null; spend_limit: number | null; spend_limit_period: string | null; rate_limit_per_minute: number | null; max_concurrent: number | null; spend_so_far: number | null }

const balanceWith = (key: string) => fetch(`${base}/account/balance`, { headers: { 'x-api-key': key } });

test.serial('a key is created with every property, shows its spend, is edited, and rotates with a grace period', async (t) => {
  const acct = await newAccount(gw, 50_000);
  const email = (await gw.app.db('users').where({ id: acct.userId }).first<{ email: string }>('email'))!.email;
  const { page, problems } = await signIn(browser, base, email);
  await page.goto(`${base}/dashboard#/keys`);
  await page.getByRole('heading', { name: 'API keys', exact: true }).waitFor();
  await page.locator('tbody tr').nth(1).waitFor();

  const create = page.getByRole('form', { name: 'Create a key' });
  await create.getByLabel('Name', { exact: true }).fill('render server');
  await create.getByText('Restrictions and limits').click();
  await create.getByLabel('Allowed addresses').fill('127.0.0.1, 10.0.0.0/8');
  await create.getByLabel('Expires').fill('2099-06-01T12:00');
  await create.getByLabel('Spend limit (credits)').fill('500');
  await create.getByLabel('Per', { exact: true }).selectOption('day');
  await create.getByLabel('Runs per minute').fill('10');
  await create.getByLabel('Runs at once').fill('2');
  await screenshot(page, 'dashboard', 'keys-create');
  await create.getByRole('button', { name: 'Create key' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  const secret = (await page.getByTestId('new-key').textContent())!;
  await dialog.getByRole('button', { name: 'I have stored it' }).click();

  const listed = async () => (await callOperation<Key[]>(gw, 'getUserKeys', { as: acct.session })).body.find((k) => k.name === 'render server')!;
  const made = await listed();
  t.deepEqual(made.ip_whitelist, ['127.0.0.1', '10.0.0.0/8']);
  t.is(new Date(made.expires_at!).getUTCFullYear(), 2099);
  t.like(made, { spend_limit: 500, spend_limit_period: 'day', rate_limit_per_minute: 10, max_concurrent: 2, spend_so_far: 0 });
  const row = page.locator('tbody tr', { hasText: 'render server' });
  t.regex((await row.textContent())!, /0 credits of 500 credits per day/);
  t.regex((await row.textContent())!, /10\/min, 2 at once/);

  // a run with the key counts against its spend
  const run = await fetch(`${base}/api/v1/canvas-v1-fast-text-to-image`, { method: 'POST', headers: { 'x-api-key': secret, 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'a kite', width: 64, height: 64 }) });
  t.is(run.status, 200, await run.clone().text());
  const price = ((await run.json()) as { price: number }).price;
  await page.reload();
  await row.waitFor();
  t.regex((await row.textContent())!, new RegExp(`${price} credits of 500 credits per day`));

  // edit: a new name and a lower rate; the other properties stay
  await row.getByRole('button', { name: 'Edit render server' }).click();
  const edit = page.getByRole('dialog');
  await edit.getByLabel('Name', { exact: true }).fill('render server v2');
  await edit.getByLabel('Runs per minute').fill('4');
  // and what it may do: no more uploads or key management
  await edit.getByLabel('Upload files').uncheck();
  await edit.getByLabel('Manage keys').uncheck();
  await screenshot(page, 'dashboard', 'keys-edit');
  await edit.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Saved "render server v2".').waitFor();
  const edited = (await callOperation<Key[]>(gw, 'getUserKeys', { as: acct.session })).body.find((k) => k.id === made.id)!;
  t.like(edited, { name: 'render server v2', rate_limit_per_minute: 4, max_concurrent: 2, spend_limit: 500 });
  t.deepEqual((edited as unknown as { scopes: string[] }).scopes, ['generate:write', 'generate:read', 'account:read']);
  t.is(edited.expires_at, made.expires_at, 'an untouched expiry is not sent again');

  // rotate, keeping the old secret for an hour
  const row2 = page.locator('tbody tr', { hasText: 'render server v2' });
  await row2.getByRole('button', { name: 'Rotate render server v2' }).click();
  const rotate = page.getByRole('dialog');
  await rotate.getByLabel('Keep the old secret working for').selectOption({ label: '1 hour' });
  await rotate.getByRole('button', { name: 'Rotate', exact: true }).click();
  await page.getByRole('heading', { name: 'New secret for "render server v2"' }).waitFor();
  t.regex((await page.getByRole('dialog').textContent())!, /The old secret keeps working until/);
  const second = (await page.getByTestId('new-key').textContent())!;
  t.not(second, secret);
  await screenshot(page, 'dashboard', 'keys-rotated');
  await page.getByRole('dialog').getByRole('button', { name: 'I have stored it' }).click();
  t.is((await balanceWith(second)).status, 200);
  t.is((await balanceWith(secret)).status, 200, 'the old secret works during its grace period');
  await row2.getByText(/Old secret works until/).waitFor();

  // rotate again and stop the previous secret at once
  await row2.getByRole('button', { name: 'Rotate render server v2' }).click();
  await page.getByRole('dialog').getByLabel('Keep the old secret working for').selectOption({ label: 'Stop it now' });
  await page.getByRole('dialog').getByRole('button', { name: 'Rotate', exact: true }).click();
  await page.getByText('The old secret has stopped working.').waitFor();
  const third = (await page.getByTestId('new-key').textContent())!;
  await page.getByRole('dialog').getByRole('button', { name: 'I have stored it' }).click();
  t.is((await balanceWith(third)).status, 200);
  t.is((await balanceWith(second)).status, 401);
  t.is((await balanceWith(secret)).status, 401);
  t.deepEqual(problems, []);
  await page.close();
});
