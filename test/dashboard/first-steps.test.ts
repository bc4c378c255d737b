// First steps in a real browser (Debian chromium via playwright-core): a newcomer goes from the
// start page to a generated image with no terminal (the verification code comes from the SMTP
// server the gateway mails through), the cookie session survives reloads and new tabs and is
// never readable by the page, signing out ends it on the server, a forgotten password is reset,
// a code signs in, and Google sign-in (a local OpenID provider standing in for Google) lands on
// the dashboard. MariaDB, RabbitMQ and a worker. Screenshots in test-results/screenshots/dashboard/.
import test from 'ava';
import crypto from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { freePort } from '../helpers/processes.ts';
import { uniqueName, waitFor } from '../helpers/services.ts';
import { launchBrowser, pageProblems, screenshot } from '../helpers/browser.ts';
import { startSmtp } from '../helpers/smtp.ts';
import type { SmtpCapture } from '../helpers/smtp.ts';
import { startProvider } from '../helpers/oidc.ts';
import type { LocalProvider } from '../helpers/oidc.ts';

let gw: TestGateway;
let base: string;
let browser: Browser;
let smtp: SmtpCapture;
let op: LocalProvider;

test.before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  smtp = await startSmtp();
  op = await startProvider([{ client_id: 'gateway-web', client_secret: 'gateway-web-secret', redirect_uri: `${base}/auth/google_callback` }]);
  gw = await startGateway({
    worker: true,
    env: {
      PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, SMTP_URL: smtp.url, AUTH_RATE_PER_ADDRESS: '1000', SIGNUP_CREDIT: '1000',
      GOOGLE_CLIENT_ID: 'gateway-web', GOOGLE_CLIENT_SECRET: 'gateway-web-secret', GOOGLE_ISSUER: op.issuer,
    },
  });
  await gw.server.start();
  browser = await launchBrowser();
});

test.after.always(async () => {
  await browser?.close();
  await gw?.stop();
  await smtp?.close();
  await op?.close();
});

const PASSWORD = 'correct horse battery';

async function emailOf(userId: number): Promise<string> {
  return (await gw.app.db('users').where({ id: userId }).first<{ email: string }>('email'))!.email;
}

/** Opens a page from the navigation: on a phone, through the Menu button first. */
async function openPage(page: Page, name: string): Promise<void> {
  const menu = page.getByRole('button', { name: 'Menu' });
  if (await menu.isVisible()) await menu.click();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
}

/** Generates a 64 px image in the playground and waits for it to load; returns its natural width. */
async function generateImage(page: Page): Promise<number> {
  await openPage(page, 'Playground');
  await page.getByRole('heading', { name: 'Playground' }).waitFor();
  await page.getByLabel('Category').selectOption('text-to-image');
  await page.getByRole('button', { name: /Canvas v1 Fast/ }).click();
  await page.locator('textarea[name="prompt"]').fill('a lighthouse at dusk');
  await page.locator('input[name="width"]').fill('64');
  await page.locator('input[name="height"]').fill('64');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByTestId('run-status').filter({ hasText: 'completed' }).waitFor({ timeout: 60_000 });
  await waitFor(() => page.evaluate<boolean>("(() => { const el = document.querySelector('.outputs img'); return el !== null && el.complete && el.naturalWidth > 0; })()"), { what: 'the image to load' });
  return page.evaluate<number>("document.querySelector('.outputs img').naturalWidth");
}

for (const [width, viewport] of [['desktop', { width: 1280, height: 900 }], ['phone', { width: 390, height: 844 }]] as const) {
test.serial(`a newcomer signs up, verifies the address with the mailed code and generates an image, all in the browser (${width})`, async (t) => {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const problems = pageProblems(page);
  const email = `${uniqueName('newcomer')}@example.com`;
  await page.goto(`${base}/`);
  t.is(new URL(page.url()).pathname, '/dashboard');
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await screenshot(page, 'dashboard', `start-${width}`);
  await page.getByRole('link', { name: 'Create an account' }).click();
  await page.getByRole('heading', { name: 'Create your account' }).waitFor();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Choose a password').fill(PASSWORD);
  await screenshot(page, 'dashboard', `sign-up-${width}`);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Verify your email' }).waitFor();
  await page.getByLabel('Code from the email').fill(await smtp.code(email));
  await page.getByRole('button', { name: 'Verify and continue' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  // the sign-up credit came with the verification
  t.is(await page.getByTestId('balance').textContent(), '1,000 credits');

  // the session is an HttpOnly cookie: the page's script cannot read it (only the "signed in" hint), and nothing is in storage
  t.is(await page.evaluate<string>('document.cookie'), 'mg_signed_in=1');
  t.is(await page.evaluate<number>('sessionStorage.length'), 0);
  const cookies = await context.cookies(base);
  const cookie = cookies.find((c) => c.name === 'mg_session');
  t.truthy(cookie);
  t.true(cookie!.httpOnly);
  t.is(cookie!.sameSite, 'Strict');

  // it survives a reload and a new tab
  await page.reload();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  const tab = await context.newPage();
  await tab.goto(`${base}/dashboard#/billing`);
  await tab.getByRole('heading', { name: 'Billing' }).waitFor();
  await tab.close();

  t.is(await generateImage(page), 64);
  await screenshot(page, 'dashboard', `first-image-${width}`);

  // signing out ends the session on the server: the cookie it had is refused afterwards
  const menu = page.getByRole('button', { name: 'Menu' });
  if (await menu.isVisible()) await menu.click();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  const replay = await fetch(`${base}/app/user_details`, { headers: { cookie: `mg_session=${cookie!.value}` } });
  t.is(replay.status, 401);
  const again = await context.newPage();
  await again.goto(`${base}/dashboard`);
  await again.getByRole('heading', { name: 'Sign in' }).waitFor();
  t.deepEqual(problems.filter((p) => !p.includes('401')), []);
  await context.close();
});
}

test.serial('a forgotten password is reset with a mailed code, which signs in; the old password no longer works', async (t) => {
  const account = await newAccount(gw);
  const email = await emailOf(account.userId);
  await smtp.code(email); // the registration's verification code
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${base}/dashboard`);
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Email me a code' }).click();
  await page.getByLabel('Code from the email').fill(await smtp.code(email));
  await page.getByLabel('New password').fill('a brand new password');
  await screenshot(page, 'dashboard', 'reset-password');
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  const old = await gw.server.inject({ method: 'POST', url: '/auth/login', payload: { email, password: PASSWORD } });
  t.is(old.statusCode, 401);
  // the bearer session made before the reset ended with it
  t.is((await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: { authorization: `Bearer ${account.session}` } })).statusCode, 401);
  await context.close();
});

test.serial('a one-time code signs in; a wrong code is a sentence', async (t) => {
  const account = await newAccount(gw);
  const email = await emailOf(account.userId);
  await smtp.code(email);
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${base}/dashboard`);
  await page.getByRole('button', { name: 'Email me a code' }).click();
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  const code = await smtp.code(email);
  await page.getByLabel('Code from the email').fill(code === '000000' ? '111111' : '000000');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  t.regex((await alert.textContent())!, /^Invalid or expired code/);
  await page.getByLabel('Code from the email').fill(code);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  t.pass();
  await context.close();
});

test.serial('Google sign-in, when configured, goes to Google and back to the dashboard with the cookie session', async (t) => {
  const sub = `sub-${crypto.randomBytes(6).toString('hex')}`;
  const email = `${uniqueName('google')}@example.com`;
  op.accounts.set(sub, { email, email_verified: true });
  const context = await browser.newContext();
  const page = await context.newPage();
  // the stand-in provider signs in whoever login_hint names (its own pages are never shown)
  await page.route(`${op.issuer}/auth?**`, (route) => {
    const url = new URL(route.request().url());
    url.searchParams.set('login_hint', sub);
    return route.continue({ url: url.href });
  });
  await page.goto(`${base}/dashboard`);
  await page.getByRole('button', { name: 'Continue with Google' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor({ timeout: 30_000 });
  t.is(new URL(page.url()).origin, base);
  t.truthy(await page.getByText(email).count());
  t.true((await context.cookies(base)).some((c) => c.name === 'mg_session' && c.httpOnly));
  // the address Google verified carries the sign-up credit
  t.is(await page.getByTestId('balance').textContent(), '1,000 credits');
  await context.close();
});
