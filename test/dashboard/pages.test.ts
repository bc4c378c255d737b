// The dashboard's history, gallery, media, billing, embeds and account pages, and the overview's
// chart (uPlot, from GET /app/usage), in a real browser (Debian chromium via playwright-core) against a gateway listening on a
// port, on MariaDB and RabbitMQ with a worker. One signed-in account walks through them in order.
// Screenshots of each page are kept in test-results/screenshots/dashboard/.
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { freePort } from '../helpers/processes.ts';
import { waitFor } from '../helpers/services.ts';
import { launchBrowser, pageProblems, screenshot } from '../helpers/browser.ts';
import { assertLedger } from '../helpers/ledger.ts';
import { startReceiver } from '../helpers/receiver.ts';

let gw: TestGateway;
let base: string;
let browser: Browser;
let page: Page;
let problems: string[];
let requestId: string;
let liveKey: string;
let testKey: string;

// a 1x1 PNG
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

test.before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  gw = await startGateway({ worker: true, env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, AUTH_RATE_PER_ADDRESS: '1000', WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '50,250,1050', WEBHOOK_TIMEOUT_MS: '500' } });
  await gw.server.start();
  browser = await launchBrowser();

  // an account with one completed run, made through the API like any client
  const account = await newAccount(gw, 1000);
  liveKey = account.liveKey;
  testKey = account.testKey;
  const submit = await fetch(`${base}/api/v1/canvas-v1-fast-text-to-image`, {
    method: 'POST',
    headers: { 'x-api-key': account.liveKey, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'a red kite over the dunes', width: 64, height: 64 }),
  });
  requestId = ((await submit.json()) as { request_id: string }).request_id;
  await waitFor(async () => {
    const r = await fetch(`${base}/api/v1/predictions/${requestId}/result`, { headers: { 'x-api-key': account.liveKey } });
    return ((await r.json()) as { status: string }).status === 'completed';
  }, { what: 'the run to complete', timeoutMs: 60_000 });

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

async function open(route: string, title: string): Promise<void> {
  await page.goto(`${base}/dashboard#/${route}`);
  await page.getByRole('heading', { name: title, exact: true }).waitFor();
}

/** Problems other than the 501s of routes other helpers are still building (discounts, export). */
const unexpected = () => problems.filter((p) => !p.includes('501'));

test.serial('the overview charts the day\'s spend from the ledger and lists the recent run', async (t) => {
  await open('overview', 'Overview');
  // the day's spend as the gateway summed it from the ledger, drawn by uPlot on a canvas
  await page.locator('[data-testid="spend-chart"][data-total="5"] .uplot canvas').waitFor({ state: 'attached' });
  t.regex(await page.getByTestId('spend-chart').innerText(), /5 credits .* spent on runs in the last 14 days/);
  await page.getByTestId('recent-runs').getByText('canvas-v1-fast-text-to-image').waitFor();
  await screenshot(page, 'dashboard', 'overview-chart');
  t.deepEqual(unexpected(), []);
});

test.serial('run history: find the run, open its detail, approve it with the bulk action', async (t) => {
  await open('history', 'Run history');
  const row = page.locator(`tbody tr[data-id="${requestId}"]`);
  // The unfiltered list shows the same one run, and Apply empties the table while the filtered
  // list loads: wait for the filtered answer, then for its row, or the count may see neither.
  await row.waitFor();
  await page.getByLabel('Search').fill(requestId);
  const filtered = page.waitForResponse((r) => r.url().includes('/app/get_run_history_data_by_search') && r.url().includes(`q=${requestId}`));
  await page.getByRole('button', { name: 'Apply' }).click();
  await filtered;
  await row.waitFor();
  t.is(await page.locator('tbody tr').count(), 1);
  await row.getByRole('button').click();
  const detail = page.getByTestId('run-detail');
  await detail.getByText('a red kite over the dunes').waitFor();
  await detail.locator('.outputs img').waitFor();
  t.truthy(await detail.getByText('5 credits').count());
  await row.getByRole('checkbox').check();
  await page.getByRole('group', { name: 'Selected runs' }).getByRole('button', { name: 'Approve' }).click();
  await page.getByText('1 run marked approved.').waitFor();
  await row.getByTestId('review-status').filter({ hasText: 'approved' }).waitFor();
  const stored = await fetch(`${base}/app/prediction_response/${requestId}`, { headers: { 'x-api-key': liveKey } });
  t.is(((await stored.json()) as { review_status: string }).review_status, 'approved');
  await screenshot(page, 'dashboard', 'history');

  await page.locator('select[name="status"]').selectOption('failed');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.getByText('No run matches these filters.').waitFor();
  t.deepEqual(unexpected(), []);
});

test.serial('gallery: the approved output is there; flagged, it is blurred until clicked', async (t) => {
  await open('gallery', 'Gallery');
  const tile = page.locator(`li.tile[data-request-id="${requestId}"]`);
  await tile.waitFor();
  t.is(await tile.locator('.badge').textContent(), 'approved');
  t.is(await tile.locator('img').count(), 1);
  await tile.getByRole('button', { name: 'Flag' }).click();
  const blurred = tile.getByRole('button', { name: 'This output may be sensitive. Show it.' });
  await blurred.waitFor();
  await screenshot(page, 'dashboard', 'gallery-flagged');
  await blurred.click();
  await tile.locator('a img').waitFor();
  await page.getByRole('tab', { name: 'Videos' }).click();
  await page.getByText('No videos yet.').waitFor();
  await page.getByRole('tab', { name: 'Images' }).click();
  await tile.waitFor();
  await screenshot(page, 'dashboard', 'gallery');
  t.deepEqual(unexpected(), []);
});

test.serial('media library: upload a file, find it, delete it', async (t) => {
  await open('media', 'Media library');
  await page.getByText('Your media library is empty.', { exact: false }).waitFor();
  await page.locator('input[type="file"]').setInputFiles({ name: 'kite.png', mimeType: 'image/png', buffer: PNG });
  await page.getByRole('button', { name: 'Upload' }).click();
  const tile = page.locator('li.tile[data-asset="kite.png"]');
  await tile.waitFor();
  const url = (await tile.getByRole('link', { name: 'Open' }).getAttribute('href'))!;
  t.is((await fetch(url)).status, 200);
  await page.getByLabel('Search').fill('nothing like it');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByText('No file matches this search.').waitFor();
  await page.getByLabel('Search').fill('KITE');
  await page.getByRole('button', { name: 'Search' }).click();
  await tile.waitFor();
  await screenshot(page, 'dashboard', 'media');
  page.once('dialog', (d) => d.accept());
  await tile.getByRole('button', { name: 'Delete' }).click();
  await page.getByText('kite.png was deleted.').waitFor();
  await tile.waitFor({ state: 'detached' });
  t.is((await fetch(url)).status, 404);
  t.deepEqual(unexpected(), []);
});

test.serial('billing: the balance and the ledger rows in words, credits and USD; discounts not available yet', async (t) => {
  await open('billing', 'Billing');
  t.is(await page.getByTestId('billing-balance').textContent(), '995 credits');
  const charge = page.locator('tr[data-kind="prediction"]');
  await charge.waitFor();
  t.regex((await charge.textContent())!, /Run charged.*-5 credits.*\$0\.005/);
  t.regex((await page.locator('tr[data-kind="grant"]').textContent())!, /Credit granted.*\+1,000 credits.*\$1\.00/);
  t.truthy(await page.locator('tr[data-kind="hold"]').count());
  // the discounts route is still 501 on this branch; when it goes live the card lists them
  await page.getByTestId('discounts').locator('p').filter({ hasNotText: 'Loading' }).waitFor();
  t.regex((await page.getByTestId('discounts').textContent())!, /not available on this gateway yet|No discount|% off/);
  await screenshot(page, 'dashboard', 'billing');
  t.deepEqual(unexpected(), []);
  await assertLedger(t, gw.app.db);
});

test.serial('embeds: create a code for one model with an origin and a cap, see it and its snippet, edit its cap, revoke it', async (t) => {
  await open('embeds', 'Embeds');
  await page.getByText('You have no embed codes yet.', { exact: false }).waitFor();
  await page.getByLabel('Name').fill('kite widget');
  await page.locator('select[name="models"]').selectOption('canvas-v1-fast-text-to-image');
  await page.getByLabel('Allowed origins').fill('https://kites.example.com');
  await page.getByLabel('Credits per day (UTC)').fill('200');
  await page.getByRole('button', { name: 'Create code' }).click();
  const code = (await page.getByTestId('embed-code').textContent())!;
  t.regex(code, /^emb_/);
  t.true((await page.locator('pre.snippet').textContent())!.includes(code));
  const row = page.locator('tbody tr', { hasText: 'kite widget' });
  await row.waitFor();
  t.regex((await row.textContent())!, /kites\.example\.com.*200 credits\/day/);
  // the code works from its allowed origin
  const resolved = await gw.server.inject({ url: `/app/get_model_name_for_embedcode?embed_code=${code}`, headers: { origin: 'https://kites.example.com' } });
  t.is(resolved.statusCode, 200);
  await screenshot(page, 'dashboard', 'embeds');
  await row.getByRole('button', { name: 'Edit' }).click();
  await page.getByLabel('Credits per day (UTC)').fill('300');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('The code "kite widget" was saved', { exact: false }).waitFor();
  await row.getByText('300 credits/day').waitFor();
  t.is(await page.getByTestId('embed-code').textContent(), code, 'an edit keeps the code');
  page.once('dialog', (d) => d.accept());
  await row.getByRole('button', { name: 'Revoke' }).click();
  await row.getByText('revoked').waitFor();
  t.deepEqual(unexpected(), []);
});

test.serial('account: request deletion (the date and countdown shown), then cancel it', async (t) => {
  await open('account', 'Account');
  page.once('dialog', (d) => d.accept());
  await page.getByRole('button', { name: 'Request deletion' }).click();
  const scheduled = page.getByTestId('deletion-scheduled');
  await scheduled.waitFor();
  t.regex((await scheduled.textContent())!, /in 14 days/);
  // the account's API keys are refused while the deletion is scheduled
  t.is((await fetch(`${base}/account/balance`, { headers: { 'x-api-key': liveKey } })).status, 401);
  await screenshot(page, 'dashboard', 'account-deletion');
  await page.getByRole('button', { name: 'Cancel the deletion' }).click();
  await page.getByRole('button', { name: 'Request deletion' }).waitFor();
  t.is((await fetch(`${base}/account/balance`, { headers: { 'x-api-key': liveKey } })).status, 200);

  await page.getByRole('button', { name: 'Prepare my data export' }).click();
  // exportAccount is 501 on this branch (another issue builds it); either outcome is a sentence or a link
  await page.locator('[data-testid="export-unavailable"], [data-testid="export-link"]').waitFor();
  await screenshot(page, 'dashboard', 'account');
  t.deepEqual(unexpected(), []);
});

test.serial('the playground quotes the price as the form changes', async (t) => {
  await page.goto(`${base}/dashboard#/playground?model=canvas-v1-fast-text-to-image`);
  await page.getByRole('heading', { name: 'Playground' }).waitFor();
  const quote = page.getByTestId('quote');
  await quote.filter({ hasText: 'Fill in prompt' }).waitFor();
  await page.locator('textarea[name="prompt"]').fill('a kite');
  await quote.filter({ hasText: 'This run costs' }).waitFor();
  t.regex((await quote.textContent())!, /This run costs \d+ credits \(\$/);
  t.deepEqual(unexpected(), []);
});

test.serial('the playground uploads a file for a URL input through the upload-address route', async (t) => {
  await page.goto(`${base}/dashboard#/playground?model=lumen-max-i2i`);
  await page.getByRole('heading', { name: 'Playground' }).waitFor();
  await page.locator('input[name="image_url-file"]').setInputFiles({ name: 'sketch.png', mimeType: 'image/png', buffer: PNG });
  await page.getByText('sketch.png uploaded.').waitFor();
  const url = await page.locator('input[name="image_url"]').inputValue();
  t.true(url.startsWith(`${base}/files/`), url);
  const stored = await fetch(url);
  t.is(stored.status, 200);
  t.deepEqual(Buffer.from(await stored.arrayBuffer()), PNG);
  await screenshot(page, 'dashboard', 'playground-upload');
  t.deepEqual(unexpected(), []);
});

test.serial('run detail: a dead webhook delivery is shown and redelivered with its button', async (t) => {
  const receiver = await startReceiver(() => ({ status: 502 }));
  t.teardown(() => receiver.close());
  // a sandbox run (never billed) with a webhook whose receiver fails until it is dead-lettered
  const submit = await fetch(`${base}/api/v1/canvas-v1-fast-text-to-image?webhook=${encodeURIComponent(receiver.url)}`, {
    method: 'POST',
    headers: { 'x-api-key': testKey, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'a hook', width: 64, height: 64 }),
  });
  const id = ((await submit.json()) as { request_id: string }).request_id;
  await waitFor(async () => {
    const r = await fetch(`${base}/app/prediction_response/${id}`, { headers: { 'x-api-key': liveKey } });
    const d = ((await r.json()) as { webhook_deliveries?: Array<{ status: string }> }).webhook_deliveries ?? [];
    return d[0]?.status === 'dead';
  }, { what: 'the delivery to be dead', timeoutMs: 30_000 });
  const tried = receiver.received.length;

  await page.goto(`${base}/dashboard#/history?id=${id}`);
  await page.getByRole('heading', { name: 'Run history', exact: true }).waitFor();
  const detail = page.getByTestId('run-detail');
  const delivery = detail.locator('tbody tr', { hasText: receiver.url });
  await delivery.getByText('HTTP 502').waitFor();
  t.regex((await delivery.textContent())!, /dead/);
  receiver.respond = () => ({ status: 200 });
  await delivery.getByRole('button', { name: 'Redeliver' }).click();
  await detail.getByText('The delivery was scheduled again.').waitFor();
  await waitFor(() => receiver.received.length === tried + 1, { what: 'the redelivery' });
  await screenshot(page, 'dashboard', 'history-deliveries');
  t.deepEqual(unexpected(), []);
});

test.serial('run detail: a running prediction\'s progress and log lines show live, and stay once it is finished', async (t) => {
  // a run as a provider reports it while it works: progress and timestamped lines on its row, as the worker writes them
  // (without the generated columns, which the database computes)
  const { output_expires_from: _e, unfinished: _u, team_unfinished: _t, embed_code_unfinished: _c, ...source } = await gw.app.db('predictions').where({ id: requestId }).first();
  const id = `${requestId.slice(0, 12)}${'7'.repeat(20)}`;
  const lines = (n: number) => ({ seen: n, lines: Array.from({ length: n }, (_, i) => ({ at: Date.UTC(2026, 10, 29, 6, 0, i), message: `step ${i + 1} of 4` })) });
  await gw.app.db('predictions').insert({
    ...source, id, status: 'processing', outputs: null, nsfw: null, completed_at: null, inference_ms: null, updated_at: Date.now(),
    upstream_progress: 0.25, logs: JSON.stringify(lines(1)),
  });
  t.teardown(() => gw.app.db('predictions').where({ id }).delete());
  // from another page: a change of the address's fragment alone does not reopen the history page
  await open('overview', 'Overview');
  await page.goto(`${base}/dashboard#/history?id=${id}`);
  const detail = page.getByTestId('run-detail');
  await detail.getByTestId('run-progress').getByText('25%').waitFor();
  await detail.getByTestId('run-logs').getByText('step 1 of 4').waitFor();
  // the worker moves it on: the page follows without a reload
  await gw.app.db('predictions').where({ id }).update({ upstream_progress: 0.75, logs: JSON.stringify(lines(3)), updated_at: Date.now() });
  await detail.getByTestId('run-progress').getByText('75%').waitFor();
  await detail.getByTestId('run-logs').getByText('step 3 of 4').waitFor();
  t.is(await detail.getByTestId('run-logs').getByText('step 1 of 4').count(), 1, 'each line once');
  t.is(Number(await detail.locator('progress').getAttribute('value')), 0.75);
  await screenshot(page, 'dashboard', 'history-progress');
  // finished: the progress goes, the log stays, the status says so
  await gw.app.db('predictions').where({ id }).update({ status: 'failed', error: 'the provider stopped', completed_at: Date.now(), logs: JSON.stringify(lines(4)) });
  await detail.getByText('the provider stopped').waitFor();
  await detail.getByTestId('run-logs').getByText('step 4 of 4').waitFor();
  t.is(await detail.getByTestId('run-progress').count(), 0);
  t.deepEqual(unexpected(), []);
  // gone again before the next test lists the runs, and off the history page so that it lists them afresh
  await gw.app.db('predictions').where({ id }).delete();
  await open('overview', 'Overview');
});

test.serial('run history: bulk delete after a confirm; the charge stays in the ledger', async (t) => {
  await open('history', 'Run history');
  await page.locator('tbody tr').nth(1).waitFor();
  await page.getByLabel('Select every run on this page').check();
  page.once('dialog', (d) => d.accept());
  await page.getByRole('group', { name: 'Selected runs' }).getByRole('button', { name: 'Delete' }).click();
  await page.getByText('2 runs deleted.').waitFor();
  await page.getByText('You have no runs yet.', { exact: false }).waitFor();
  await open('billing', 'Billing');
  await page.locator('tr[data-kind="prediction"]').waitFor();
  t.is(await page.getByTestId('billing-balance').textContent(), '995 credits');
  t.deepEqual(unexpected(), []);
  await assertLedger(t, gw.app.db);
});

test.serial('webhooks: the delivery log shows a gone delivery under its status, and redelivers it', async (t) => {
  const receiver = await startReceiver((n) => ({ status: n === 1 ? 410 : 200 }));
  t.teardown(() => receiver.close());
  const submit = await fetch(`${base}/api/v1/canvas-v1-fast-text-to-image?webhook=${encodeURIComponent(receiver.url)}`, {
    method: 'POST',
    headers: { 'x-api-key': testKey, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'a logged hook', width: 64, height: 64 }),
  });
  const id = ((await submit.json()) as { request_id: string }).request_id;
  await waitFor(async () => {
    const r = await fetch(`${base}/app/prediction_response/${id}`, { headers: { 'x-api-key': liveKey } });
    return ((await r.json()) as { webhook_deliveries?: Array<{ status: string }> }).webhook_deliveries?.[0]?.status === 'gone';
  }, { what: 'the delivery to be gone', timeoutMs: 30_000 });
  await open('webhooks', 'Webhooks');
  const log = page.getByTestId('delivery-log');
  await log.getByLabel('Status').selectOption('gone');
  const row = log.locator('tbody tr', { hasText: receiver.url });
  await row.getByText('HTTP 410').waitFor();
  // the row above is in the unfiltered list too: wait for the filtered one to replace it
  t.true(await waitFor(async () => await log.locator('tbody tr').evaluateAll((rows) => rows.every((r) => r.textContent!.includes('gone'))) || undefined, { what: 'the log to show gone deliveries only' }));
  await row.getByRole('button', { name: 'Redeliver' }).click();
  await log.getByText('The delivery was scheduled again.').waitFor();
  await waitFor(() => receiver.received.length === 2, { what: 'the redelivery' });
  await log.getByLabel('Status').selectOption('delivered');
  await log.locator('tbody tr', { hasText: receiver.url }).getByText('HTTP 200').waitFor();
  await screenshot(page, 'dashboard', 'webhook-deliveries');
  t.deepEqual(unexpected(), []);
});

test.serial('acting for a team, billing, embeds and the overview show the team\'s wallet and codes, not the account\'s', async (t) => {
  await open('teams', 'Teams');
  await page.getByLabel('New team').fill('kite club');
  await page.getByRole('button', { name: 'Create team' }).click();
  const row = page.locator('tbody tr', { hasText: 'kite club' });
  await row.getByRole('button', { name: 'Act for this team' }).click();
  await page.getByTestId('acting-for').filter({ hasText: 'kite club' }).waitFor();
  await open('billing', 'Billing');
  await page.getByText('No credit has moved on this wallet yet.').waitFor();
  t.is(await page.getByTestId('billing-balance').textContent(), '0 credits');
  await open('embeds', 'Embeds');
  await page.getByText('You have no embed codes yet.', { exact: false }).waitFor();
  await open('overview', 'Overview');
  await page.getByText('Nothing spent on runs in the last 14 days.').waitFor();
  await open('teams', 'Teams');
  await page.getByRole('button', { name: 'Switch to your own account' }).click();
  await open('embeds', 'Embeds');
  await page.locator('tbody tr', { hasText: 'kite widget' }).waitFor();
  t.deepEqual(unexpected(), []);
});

test.serial('the new pages are readable at phone width', async (t) => {
  await page.setViewportSize({ width: 390, height: 800 });
  for (const [route, title] of [['history', 'Run history'], ['gallery', 'Gallery'], ['media', 'Media library'], ['billing', 'Billing'], ['embeds', 'Embeds'], ['account', 'Account']]) {
    await open(route!, title!);
    await page.waitForLoadState('networkidle');
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    const widest = overflow > 0 ? await page.evaluate<string>("[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth).map((e) => e.tagName + '.' + e.className).slice(0, 5).join(', ')") : '';
    t.true(overflow <= 0, `${route} overflows by ${overflow}px: ${widest}`);
    await screenshot(page, 'dashboard', `phone-${route}`);
  }
});
