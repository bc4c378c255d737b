// The web dashboard in a real browser (Debian chromium via playwright-core) against a gateway
// listening on a port, on MariaDB and RabbitMQ with a worker. Screenshots of each page are kept
// in test-results/screenshots/dashboard/.
import test from 'ava';
import type { Browser } from 'playwright-core';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { freePort } from '../helpers/processes.ts';
import { waitFor } from '../helpers/services.ts';
import { launchBrowser, pageProblems, screenshot } from '../helpers/browser.ts';
import { startSmtp } from '../helpers/smtp.ts';
import type { SmtpCapture } from '../helpers/smtp.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { Webhook } from 'standardwebhooks';
import { createTeam } from '../../db/teams.ts';

let gw: TestGateway;
let base: string;
let browser: Browser;
let smtp: SmtpCapture;

test.before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  smtp = await startSmtp();
  gw = await startGateway({ worker: true, env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, SMTP_URL: smtp.url, AUTH_RATE_PER_ADDRESS: '1000', WEBHOOK_ALLOW_INSECURE: 'true' } });
  await gw.server.start();
  browser = await launchBrowser();
});

test.after.always(async () => {
  await browser?.close();
  await gw?.stop();
  await smtp?.close();
});

async function signedIn(credit: number) {
  const account = await newAccount(gw, credit);
  const { email } = (await gw.app.db('users').where({ id: account.userId }).first<{ email: string }>())!;
  await smtp.code(email); // the verification code mailed at registration
  const page = await browser.newPage();
  const problems = pageProblems(page);
  await page.goto(`${base}/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  return { page, problems, email, account };
}

test.serial('GET / leads to the dashboard; a wrong password is a sentence, not a JSON dump', async (t) => {
  const page = await browser.newPage();
  const problems = pageProblems(page);
  const res = await page.goto(`${base}/`);
  t.is(new URL(page.url()).pathname, '/dashboard');
  t.regex(res!.headers()['content-security-policy'] ?? '', /script-src 'self'/);
  await page.getByLabel('Email').fill('nobody@example.com');
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  const text = await alert.textContent();
  t.false(text!.includes('{'), text!);
  await screenshot(page, 'dashboard', 'sign-in');
  // the 401 of a wrong password is the one expected console error
  t.deepEqual(problems.filter((p) => !p.includes('401')), []);
  await page.close();
});

test.serial('sign in, see the balance, generate an image in the playground and see it appear', async (t) => {
  const { page, problems, email } = await signedIn(1000);
  t.is(await page.getByTestId('balance').textContent(), '1,000 credits');
  t.truthy(await page.getByText(email).count());
  await screenshot(page, 'dashboard', 'overview');

  await page.goto(`${base}/dashboard#/playground?model=canvas-v1-fast-text-to-image`);
  await page.getByRole('heading', { name: 'Playground' }).waitFor();
  await page.locator('textarea[name="prompt"]').fill('a lighthouse at dusk');
  await page.locator('input[name="width"]').fill('64');
  await page.locator('input[name="height"]').fill('64');
  await page.getByRole('button', { name: 'Run' }).click();
  await page.getByTestId('run-status').filter({ hasText: 'completed' }).waitFor({ timeout: 60_000 });
  const img = page.locator('.outputs img').first();
  await img.waitFor();
  // browser-side code as strings: the test is type-checked without the DOM library
  // page.evaluate runs through the debugger protocol (the page's CSP forbids the eval waitForFunction would use)
  await waitFor(() => page.evaluate<boolean>("(() => { const el = document.querySelector('.outputs img'); return el !== null && el.complete && el.naturalWidth > 0; })()"), { what: 'the image to load' });
  t.is(await page.evaluate("document.querySelector('.outputs img').naturalWidth"), 64);
  await screenshot(page, 'dashboard', 'playground');
  t.deepEqual(problems, []);
  await page.close();
});

test.serial('a 3D model from the playground is drawn in the viewer (GLB and OBJ), and turns with the arrow keys', async (t) => {
  const { page, problems } = await signedIn(1000);
  for (const format of ['glb', 'obj']) {
    await page.goto(`${base}/dashboard#/playground?model=forma-v1-fast-text-to-3d`);
    await page.getByRole('heading', { name: 'Playground' }).waitFor();
    await page.locator('textarea[name="prompt"]').fill(`a mossy rock (${format})`);
    const select = page.locator('select[name="format"]');
    if (await select.count()) await select.selectOption(format);
    else await page.locator('input[name="format"]').fill(format);
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByTestId('run-status').filter({ hasText: 'completed' }).waitFor({ timeout: 60_000 });
    const canvas = page.locator('.viewer3d canvas');
    await canvas.waitFor();
    // data-triangles: how many front-facing triangles the last frame drew
    const drawn = await waitFor(async () => Number(await canvas.getAttribute('data-triangles')) || undefined, { what: `the ${format} model to be drawn` });
    t.true(drawn > 100, `${format}: ${drawn} triangles drawn`);
    const painted = "(() => { const c = document.querySelector('.viewer3d canvas'); const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++; return n; })()";
    t.true(await page.evaluate<number>(painted) > 5_000, `${format}: the canvas is painted`);
    const before = await page.evaluate<string>("document.querySelector('.viewer3d canvas').toDataURL()");
    await canvas.focus();
    await page.keyboard.press('ArrowRight');
    await waitFor(async () => (await page.evaluate<string>("document.querySelector('.viewer3d canvas').toDataURL()")) !== before || undefined, { what: 'the model to turn' });
    t.truthy(await page.getByRole('link', { name: 'Download the 3D model' }).count());
    await screenshot(page, 'dashboard', `playground-3d-${format}`);
  }
  t.deepEqual(problems, []);
  await page.close();
});

test.serial('create a sandbox key: shown once in a dialog, then listed with its badge; revoke it', async (t) => {
  const { page, problems } = await signedIn(0);
  await page.goto(`${base}/dashboard#/keys`);
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  // newAccount made a production and a sandbox key
  await page.locator('tbody tr').nth(1).waitFor();
  const before = await page.locator('tbody tr').count();
  await page.getByLabel('Name', { exact: true }).fill('ci sandbox');
  await page.getByLabel('Sandbox (mock outputs, never billed)').check();
  await page.getByRole('button', { name: 'Create key' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  const key = (await page.getByTestId('new-key').textContent())!;
  t.true(key.length > 20);
  await screenshot(page, 'dashboard', 'keys-created');
  await dialog.getByRole('button', { name: 'I have stored it' }).click();
  const row = page.locator('tbody tr', { hasText: 'ci sandbox' });
  await row.waitFor();
  t.is(await row.locator('.badge.sandbox').textContent(), 'sandbox');
  t.false((await page.content()).includes(key), 'the key is not on the page after the dialog');
  // the key works against the API
  const me = await fetch(`${base}/account/balance`, { headers: { 'x-api-key': key } });
  t.is(me.status, 200);
  page.once('dialog', (d) => d.accept());
  t.is(await page.locator('tbody tr').count(), before + 1);
  await row.getByRole('button', { name: 'Revoke' }).click();
  await row.waitFor({ state: 'detached' });
  t.is(await page.locator('tbody tr').count(), before);
  t.is((await fetch(`${base}/account/balance`, { headers: { 'x-api-key': key } })).status, 401);
  t.deepEqual(problems, []);
  await page.close();
});

test.serial('readable at phone width: nothing wider than the screen', async (t) => {
  const { page } = await signedIn(0);
  await page.setViewportSize({ width: 390, height: 800 });
  for (const route of ['overview', 'playground', 'keys', 'clients', 'webhooks', 'teams']) {
    await page.goto(`${base}/dashboard#/${route}`);
    await page.locator('main h1').waitFor();
    await page.waitForLoadState('networkidle');
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    const widest = overflow > 0 ? await page.evaluate<string>("[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth).map((e) => e.tagName + '.' + e.className).slice(0, 5).join(', ')") : '';
    t.true(overflow <= 0, `${route} overflows by ${overflow}px: ${widest}`);
    await screenshot(page, 'dashboard', `phone-${route}`);
  }
  await page.close();
});

test.serial('a link followed while the dashboard is still starting opens its page, not the overview', async (t) => {
  const account = await newAccount(gw, 0);
  const { email } = (await gw.app.db('users').where({ id: account.userId }).first<{ email: string }>())!;
  const page = await browser.newPage();
  const problems = pageProblems(page);
  await page.goto(`${base}/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('correct horse battery');
  // the fragment changes in the same moment the signed-in page first renders, before its effects
  // run: the hashchange comes before the page listens for it
  await page.evaluate(`{
    const seen = new MutationObserver(() => {
      if (document.getElementById('page-title')?.textContent !== 'Overview') return;
      seen.disconnect();
      location.hash = '#/history';
    });
    seen.observe(document.body, { childList: true, subtree: true, characterData: true });
  }`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Run history' }).waitFor();
  t.deepEqual(problems, []);
  await page.close();
});

test.serial('sign in with a one-time code mailed to the address', async (t) => {
  const account = await newAccount(gw, 0);
  const { email } = (await gw.app.db('users').where({ id: account.userId }).first<{ email: string }>())!;
  await smtp.code(email); // the verification code mailed at registration
  const page = await browser.newPage();
  const problems = pageProblems(page);
  await page.goto(`${base}/dashboard`);
  await page.getByRole('button', { name: 'Email me a code' }).click();
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await page.getByLabel('Code from the email').waitFor();
  await page.getByLabel('Code from the email').fill(await smtp.code(email));
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  t.truthy(await page.getByText(email).count());
  t.deepEqual(problems, []);
  await page.close();
});

test.serial('OAuth clients: create one with a scope, the secret shown once, then delete it; the webhook secret reveals and rotates', async (t) => {
  const { page, problems } = await signedIn(0);
  await page.goto(`${base}/dashboard#/clients`);
  await page.getByRole('heading', { name: 'OAuth clients' }).waitFor();
  await page.getByText('No OAuth clients yet.').waitFor();
  await page.getByLabel('Name').fill('renderer');
  await page.locator('fieldset.scopes input[type="checkbox"]').first().check();
  await page.getByRole('button', { name: 'Create client' }).click();
  await page.getByRole('dialog').waitFor();
  const secret = (await page.getByTestId('client-secret').textContent())!;
  t.true(secret.length > 20);
  await screenshot(page, 'dashboard', 'clients-created');
  await page.getByRole('dialog').getByRole('button', { name: 'I have stored it' }).click();
  const row = page.locator('tbody tr', { hasText: 'renderer' });
  await row.waitFor();
  page.once('dialog', (d) => d.accept());
  await row.getByRole('button', { name: 'Delete' }).click();
  await page.getByText('No OAuth clients yet.').waitFor();

  await page.goto(`${base}/dashboard#/webhooks`);
  await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
  // the production secret signs test events sent with a session
  const production = page.getByRole('region', { name: 'Production signing secret' });
  await production.getByRole('button', { name: 'Reveal' }).click();
  const first = (await production.getByTestId('webhook-secret').textContent())!;
  t.regex(first, /^whsec_/);
  page.once('dialog', (d) => d.accept());
  await production.getByRole('button', { name: 'Rotate production secret' }).click();
  await waitFor(async () => (await production.getByTestId('webhook-secret').textContent()) !== first, { what: 'the rotated secret' });
  t.regex((await production.getByTestId('webhook-secret').textContent())!, /^whsec_/);
  // a test event to a real receiver, signed with the rotated secret; then one it refuses
  const receiver = await startReceiver((n) => ({ status: n === 1 ? 200 : 503 }));
  t.teardown(() => receiver.close());
  await page.getByLabel('Receiver URL').fill(receiver.url);
  await page.getByRole('button', { name: 'Send test event' }).click();
  await page.getByTestId('webhook-test-result').getByText('Delivered: the receiver answered HTTP 200').waitFor();
  const rotated = (await production.getByTestId('webhook-secret').textContent())!;
  const received = receiver.received[0]!;
  t.is((new Webhook(rotated).verify(received.body, received.headers as Record<string, string>) as { type: string }).type, 'webhook.test');
  await page.getByRole('button', { name: 'Send test event' }).click();
  await page.getByTestId('webhook-test-result').getByText('Not delivered: the receiver answered HTTP 503').waitFor();
  await screenshot(page, 'dashboard', 'webhooks');
  t.deepEqual(problems, []);
  await page.close();
});

/** The owner's secret of one mode as the gateway answers it to the account's session (with team_id, the team's). */
async function secretOf(session: string, sandbox: boolean, teamId?: number): Promise<string> {
  const query = new URLSearchParams({ sandbox: String(sandbox), ...(teamId === undefined ? {} : { team_id: String(teamId) }) });
  const res = await gw.server.inject({ method: 'GET', url: `/app/webhook_secret?${query}`, headers: { authorization: `Bearer ${session}` } });
  if (res.statusCode !== 200) throw new Error(`webhook_secret answered ${res.statusCode}: ${res.payload}`);
  return (res.result as { secret: string }).secret;
}

test.serial('webhooks: the production and the sandbox secret side by side, for the account and a team; rotating the sandbox one leaves the production one', async (t) => {
  const { page, problems, account } = await signedIn(0);
  const team = await createTeam(gw.app.db, account.userId, 'hook crew', Date.now());
  const production = page.getByRole('region', { name: 'Production signing secret' });
  const sandbox = page.getByRole('region', { name: 'Sandbox signing secret' });
  const shown = async (card: typeof production) => (await card.getByTestId('webhook-secret').textContent())!;
  const bothRevealed = async () => {
    await page.goto(`${base}/dashboard#/webhooks`);
    // a new hash alone loads nothing again when the page is already there
    await page.reload();
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    for (const card of [production, sandbox]) await card.getByRole('button', { name: 'Reveal' }).click();
    return { production: await shown(production), sandbox: await shown(sandbox) };
  };

  for (const teamId of [undefined, team.id]) {
    if (teamId !== undefined) {
      await page.goto(`${base}/dashboard#/teams`);
      await page.locator('tbody tr', { hasText: 'hook crew' }).getByRole('button', { name: 'Act for this team' }).click();
      await page.getByTestId('acting-for').filter({ hasText: 'hook crew' }).waitFor();
    }
    const before = await bothRevealed();
    await page.getByText(teamId === undefined ? 'with one of your account\'s two secrets' : 'with one of the team\'s two secrets').waitFor();
    // each card says what it signs, and shows the secret the gateway has for that mode
    await production.getByText('Signs the deliveries of production runs and of alerts').waitFor();
    await sandbox.getByText('Signs the deliveries of sandbox runs').waitFor();
    t.is(before.production, await secretOf(account.session, false, teamId));
    t.is(before.sandbox, await secretOf(account.session, true, teamId));
    t.not(before.production, before.sandbox);

    page.once('dialog', (d) => d.accept());
    await sandbox.getByRole('button', { name: 'Rotate sandbox secret' }).click();
    await waitFor(async () => (await shown(sandbox)) !== before.sandbox || undefined, { what: 'the rotated sandbox secret' });
    const rotated = await shown(sandbox);
    t.regex(rotated, /^whsec_/);
    await sandbox.getByText('1 previous secret(s) still verify').waitFor();
    t.is(await shown(production), before.production, 'the production card is unchanged');
    t.is(await secretOf(account.session, false, teamId), before.production, 'the production secret is unchanged');
    t.is(await secretOf(account.session, true, teamId), rotated);
    // and after a reload the page reads the same two
    t.deepEqual(await bothRevealed(), { production: before.production, sandbox: rotated });
    t.is(await production.getByText('previous secret(s) still verify').count(), 0);

    // a test event signed with the sandbox secret: a receiver of sandbox deliveries verifies it with that one alone
    const receiver = await startReceiver();
    t.teardown(() => receiver.close());
    await page.getByLabel('Receiver URL').fill(receiver.url);
    await page.getByLabel('Signed with').selectOption({ label: 'Sandbox secret' });
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByTestId('webhook-test-result').getByText('Signed with the sandbox secret.').waitFor();
    const sent = receiver.received[0]!;
    const headers = sent.headers as Record<string, string>;
    t.is((new Webhook(rotated).verify(sent.body, headers) as { type: string }).type, 'webhook.test');
    t.throws(() => new Webhook(before.production).verify(sent.body, headers));
    // nor with the other owner's sandbox secret (the team's for the account, the account's for the team)
    const otherSandbox = teamId === undefined ? await secretOf(account.session, true, team.id) : await secretOf(account.session, true);
    t.throws(() => new Webhook(otherSandbox).verify(sent.body, headers));
  }
  // the team's secrets are its own
  t.not(await secretOf(account.session, true, team.id), await secretOf(account.session, true));
  await screenshot(page, 'dashboard', 'webhook-secrets');
  t.deepEqual(problems, []);
  await page.close();
});

test.serial('teams: create one, act for it (its wallet on the overview), invite a member', async (t) => {
  const { page, problems } = await signedIn(500);
  await page.goto(`${base}/dashboard#/teams`);
  await page.getByRole('heading', { name: 'Teams' }).waitFor();
  await page.getByLabel('New team').fill('studio crew');
  await page.getByRole('button', { name: 'Create team' }).click();
  const row = page.locator('tbody tr', { hasText: 'studio crew' });
  await row.waitFor();
  await row.getByRole('button', { name: 'Act for this team' }).click();
  await page.getByTestId('acting-for').filter({ hasText: 'studio crew' }).waitFor();
  await page.getByLabel('Email').fill('new.member@example.com');
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await page.locator('tbody tr', { hasText: 'new.member@example.com' }).waitFor();
  await screenshot(page, 'dashboard', 'teams');
  await page.goto(`${base}/dashboard#/overview`);
  t.is(await page.getByTestId('balance').textContent(), '0 credits', 'the team wallet, not the 500 of the account');
  t.deepEqual(problems, []);
  await page.close();
});

test.serial('support links: a login link signs the tab in as the account; a reset link sets a new password', async (t) => {
  const staff = await newAccount(gw);
  await gw.app.db('users').where({ id: staff.userId }).update({ role: 'support' });
  const target = await newAccount(gw, 300);
  const { email } = (await gw.app.db('users').where({ id: target.userId }).first<{ email: string }>())!;
  const makeLink = async (url: string) => {
    const res = await gw.server.inject({ method: 'POST', url, headers: { authorization: `Bearer ${staff.session}` }, payload: { email, reason: 'ticket 3' } });
    return (res.result as { url: string }).url;
  };

  const page = await browser.newPage();
  const problems = pageProblems(page);
  await page.goto(await makeLink('/auth/admin_support_login_link'));
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  t.truthy(await page.getByText(email).count(), 'signed in as the account');
  t.is(await page.getByTestId('balance').textContent(), '300 credits');
  t.false(page.url().includes('token='), 'the token leaves the address bar');
  t.deepEqual(problems, []);
  await page.close();

  const reset = await browser.newPage();
  await reset.goto(await makeLink('/auth/admin_password_reset_link'));
  await reset.getByLabel('New password').fill('a brand new password');
  await reset.getByRole('button', { name: 'Set password' }).click();
  await reset.getByRole('status').filter({ hasText: 'password has been changed' }).waitFor();
  await reset.getByRole('button', { name: 'Sign in' }).click();
  await reset.getByLabel('Email').fill(email);
  await reset.getByLabel('Password').fill('a brand new password');
  await reset.getByRole('button', { name: 'Sign in' }).click();
  await reset.getByRole('heading', { name: 'Overview' }).waitFor();
  await screenshot(reset, 'dashboard', 'after-support-reset');
  await reset.close();
});
