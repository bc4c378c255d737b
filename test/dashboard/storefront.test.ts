// A whitelabel studio's storefront in a real browser, at the studio's own domain (mapped to
// 127.0.0.1 inside chromium with --host-resolver-rules) and under the gateway's address at
// /s/<slug>: the studio's name, logo and colours, only its models at its prices, sign-up with the
// code mailed in the studio's name, a run charged at the studio price, credit for sale where its
// users pay, and no trace of the gateway's brand or of another studio; a disabled studio's
// storefront, where its users only take their data and leave. MariaDB, RabbitMQ, a worker, a real
// SMTP server.
import test from 'ava';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { freePort } from '../helpers/processes.ts';
import { uniqueName, waitFor } from '../helpers/services.ts';
import { launchBrowser, pageProblems, screenshot, seriousAxeViolations } from '../helpers/browser.ts';
import { startSmtp } from '../helpers/smtp.ts';
import type { SmtpCapture } from '../helpers/smtp.ts';
import { creditWallet } from '../../db/wallet/moves.ts';
import { startProvider } from '../helpers/oidc.ts';
import { publishChallenges, startDns } from '../helpers/dns.ts';
import type { TestDns } from '../helpers/dns.ts';
import type { LocalProvider } from '../helpers/oidc.ts';

const DOMAIN = 'pixelshop.test';
const LOGO = 'https://cdn.pixelshop.test/logo.png';
const PNG = readFileSync(new URL('../../workers/sandbox/sample.png', import.meta.url));
let gw: TestGateway;
let port: number;
let base: string;
let browser: Browser;
let smtp: SmtpCapture;
let owner: Account;
let slug: string;
let otherSlug: string;
let listPrice: number;
let op: LocalProvider;
let dns: TestDns;

test.before(async () => {
  port = await freePort();
  base = `http://127.0.0.1:${port}`;
  smtp = await startSmtp();
  dns = await startDns();
  // a local OpenID provider stands in for Google; like Google, it knows one callback: the gateway's own address
  op = await startProvider([{ client_id: 'gateway-web', client_secret: 'gateway-web-secret', redirect_uri: `${base}/auth/google_callback` }]);
  gw = await startGateway({
    worker: true,
    env: {
      PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, SMTP_URL: smtp.url, AUTH_RATE_PER_ADDRESS: '1000', STRIPE_SECRET_KEY: 'sk_test_storefront', STRIPE_WEBHOOK_SECRET: 'whsec_storefrontsecret',
      GOOGLE_CLIENT_ID: 'gateway-web', GOOGLE_CLIENT_SECRET: 'gateway-web-secret', GOOGLE_ISSUER: op.issuer, STUDIO_DNS_SERVERS: dns.server,
    },
  });
  await gw.server.start();
  browser = await launchBrowser({ hosts: [DOMAIN] });
  owner = await newAccount(gw, 10_000);
  slug = uniqueName('pixel').toLowerCase().replace(/[^a-z0-9-]/g, '').slice(0, 30);
  otherSlug = `${slug.slice(0, 25)}-other`;
  const made = await callOperation(gw, 'createStudio', {
    as: owner.session,
    body: {
      slug, name: 'Pixel Shop', branding: { logo_url: LOGO, primary_color: '#0b6e4f', accent_color: '#c2410c' }, domains: [DOMAIN],
      allowed_models: ['canvas-v1-fast-text-to-image'], payer_mode: 'end_user_pays', markup_percent: 100,
    },
  });
  if (made.status !== 201) throw new Error(made.raw.payload);
  // the studio's domain serves it once its DNS record is seen
  publishChallenges(dns, made.body as never);
  const verified = await callOperation(gw, 'verifyStudioDomains', { as: owner.session, params: { studio_id: (made.body as { id: number }).id } });
  if (verified.status !== 200) throw new Error(verified.raw.payload);
  await callOperation(gw, 'createStudio', { as: owner.session, body: { slug: otherSlug, name: 'Other Studio', allowed_models: ['canvas-v1-budget-text-to-image'], payer_mode: 'owner_pays' } });
  const quote = await callOperation<{ cost: number }>(gw, 'calculateDynamicCost', { as: owner.session, body: { model: 'canvas-v1-fast-text-to-image', input: { prompt: 'x' } } });
  listPrice = quote.body.cost;
});
test.after.always(async () => {
  await browser?.close();
  await gw?.stop();
  await smtp?.close();
  await op?.close();
  await dns?.close();
});

async function storefrontPage(): Promise<{ page: Page; problems: string[] }> {
  const ctx = await browser.newContext({ bypassCSP: true });
  const page = await ctx.newPage();
  const problems = pageProblems(page);
  // the studio's logo, from its own CDN
  await page.route(LOGO, (route) => route.fulfill({ status: 200, contentType: 'image/png', body: PNG }));
  return { page, problems };
}

/** Everything a visitor can read: the text, the title, images' alt text. */
const visibleText = (page: Page) => page.evaluate<string>("document.title + ' ' + document.body.innerText + ' ' + [...document.querySelectorAll('[alt],[aria-label],[title]')].map((e) => e.getAttribute('alt') || e.getAttribute('aria-label') || e.getAttribute('title')).join(' ')");

test.serial('at the studio\'s domain a newcomer signs up inside the studio, sees only its models at its prices and its colours, and runs one', async (t) => {
  const { page, problems } = await storefrontPage();
  const email = `${uniqueName('shopper')}@example.com`;
  await page.goto(`http://${DOMAIN}:${port}/`);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  t.is(await page.title(), 'Sign in · Pixel Shop');
  t.is(await page.locator('.brand-line img.logo').getAttribute('src'), LOGO);
  t.false(/mediagate|Other Studio/i.test(await visibleText(page)), 'no trace of the gateway or another studio');
  await screenshot(page, 'storefront', 'sign-in');

  await page.getByRole('link', { name: 'Create an account' }).click();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Choose a password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Verify your email' }).waitFor();
  const code = await smtp.code(email);
  const mail = smtp.messages.find((m) => m.to.includes(email))!.raw;
  t.regex(mail, /^From: "?Pixel Shop"? </m, 'the code is mailed in the studio\'s name');
  t.regex(mail, /^Subject: Your Pixel Shop one-time code/m);
  t.false(/mediagate/i.test(mail));
  await page.getByLabel('Code from the email').fill(code);
  await page.getByRole('button', { name: 'Verify and continue' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();

  // the account is the studio's
  const user = await gw.app.db('users').where({ email }).first<{ id: number; studio_id: number }>('id', 'studio_id');
  const studio = await gw.app.db('studios').where({ slug }).first<{ id: number }>('id');
  t.is(Number(user!.studio_id), Number(studio!.id));
  await gw.app.db.transaction((trx) => creditWallet(trx, { userId: user!.id, teamId: null }, 1000, 'grant', 'test credit', Date.now()));

  // its colours, its nav (none of the gateway's own business pages)
  t.is(await page.evaluate<string>("getComputedStyle(document.querySelector('.top')).backgroundColor"), 'rgb(11, 110, 79)');
  const nav = (await page.getByRole('navigation', { name: 'Main' }).textContent())!;
  for (const gone of ['Studios', 'Teams', 'Embeds', 'OAuth clients']) t.false(nav.includes(gone), gone);
  t.true(nav.includes('Billing'), 'its users pay, so they buy credit');

  await page.getByRole('link', { name: 'Playground' }).first().click();
  await page.getByRole('heading', { name: 'Models' }).waitFor();
  t.is(await page.locator('ul.models > li').count(), 1, 'only the studio\'s model');
  // twice the list price (100 % markup), shown as the studio's price
  await page.getByText(`${(listPrice * 2).toLocaleString('en-US')} credits at the defaults`).first().waitFor();
  await page.locator('textarea[name="prompt"]').fill('a pixel cat');
  await page.locator('input[name="width"]').fill('64');
  await page.locator('input[name="height"]').fill('64');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByTestId('run-status').filter({ hasText: 'completed' }).waitFor({ timeout: 60_000 });
  const charged = await waitFor(async () => {
    const row = await gw.app.db('credit_transactions').where({ user_id: user!.id, kind: 'prediction' }).first<{ amount: number | string }>('amount');
    return row ? -Number(row.amount) : undefined;
  }, { what: 'the charge' });
  t.is(charged, listPrice * 2);
  const seen = await visibleText(page);
  t.false(/mediagate|Other Studio/i.test(seen), seen.match(/.{0,80}(mediagate|Other Studio).{0,80}/i)?.[0]);
  await screenshot(page, 'storefront', 'playground');

  await page.getByRole('link', { name: 'Billing' }).first().click();
  await page.getByRole('heading', { name: 'Buy credits' }).waitFor();
  t.deepEqual(await seriousAxeViolations(page), []);
  await screenshot(page, 'storefront', 'billing');
  t.deepEqual(problems, []);
  await page.context().close();
});

test.serial('at the studio\'s domain, Google sign-in comes back to the studio\'s domain with its own session, once', async (t) => {
  const { page, problems } = await storefrontPage();
  const sub = `sub-${uniqueName('g')}`;
  const email = `${uniqueName('gshopper')}@example.com`;
  op.accounts.set(sub, { email, email_verified: true });
  // the stand-in provider signs in whoever login_hint names (its own pages are never shown)
  await page.route(`${op.issuer}/auth?**`, (route) => {
    const url = new URL(route.request().url());
    url.searchParams.set('login_hint', sub);
    return route.continue({ url: url.href });
  });
  const handoffs: string[] = [];
  page.on('request', (r) => { if (r.url().includes('/auth/google_handoff')) handoffs.push(r.url()); });
  const studioOrigin = `http://${DOMAIN}:${port}`;
  await page.goto(`${studioOrigin}/`);
  await page.getByRole('button', { name: 'Continue with Google' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor({ timeout: 30_000 });
  t.is(new URL(page.url()).origin, studioOrigin, 'back on the studio\'s domain');
  t.truthy(await page.getByText(email).count());
  t.true((await page.context().cookies(studioOrigin)).some((c) => c.httpOnly && c.name.startsWith('mg_session')), 'the studio domain\'s own cookie');
  t.false((await page.context().cookies(base)).some((c) => c.name.startsWith('mg_session')), 'no session left at the gateway\'s address');
  // the account is the studio's
  const user = await gw.app.db('users').where({ email }).first<{ studio_id: number }>('studio_id');
  const studio = await gw.app.db('studios').where({ slug }).first<{ id: number }>('id');
  t.is(Number(user!.studio_id), Number(studio!.id));
  t.false(/mediagate|Other Studio/i.test(await visibleText(page)));

  // the hand-off code is single-use, and only the studio's domain takes it
  t.is(handoffs.length, 1);
  const path = new URL(handoffs[0]!).pathname + new URL(handoffs[0]!).search;
  const again = await gw.server.inject({ method: 'GET', url: path, headers: { host: `${DOMAIN}:${port}` } });
  t.is(again.statusCode, 400);
  t.regex(JSON.parse(again.payload).detail ?? again.payload, /already used|sign in again/);
  const unknown = await gw.server.inject({ method: 'GET', url: '/auth/google_handoff?code=mgh_nothing', headers: { host: `${DOMAIN}:${port}` } });
  t.is(unknown.statusCode, 400);
  t.deepEqual(problems, []);
  await page.context().close();
});

test.serial('under the gateway\'s address the storefront is /s/<slug>; its users sign in there, and the studio\'s session is its own', async (t) => {
  const { page, problems } = await storefrontPage();
  const email = `${uniqueName('visitor')}@example.com`;
  const reg = await gw.server.inject({ method: 'POST', url: '/auth/register', headers: { 'x-whitelabel-studio': slug }, payload: { email, password: 'correct horse battery' } });
  t.is(reg.statusCode, 201);
  await page.goto(`${base}/s/${slug}`);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  t.is(await page.title(), 'Sign in · Pixel Shop');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  t.true((await page.context().cookies(base)).some((c) => c.name === `mg_session_${slug}` && c.httpOnly));
  t.false(/mediagate|Other Studio/i.test(await visibleText(page)));
  // the gateway's own dashboard on the same address is signed out: the studio's session is not its
  await page.goto(`${base}/dashboard`);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  t.false((await visibleText(page)).includes('Pixel Shop'));
  // an account of the studio cannot sign in to the gateway's own dashboard
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('alert').waitFor();
  t.deepEqual(problems.filter((p) => !p.includes('401')), []);
  await page.context().close();
});

test.serial('a storefront whose owner pays shows no wallet or credit for sale; an unknown studio is a sentence', async (t) => {
  const { page } = await storefrontPage();
  const email = `${uniqueName('guest')}@example.com`;
  await gw.server.inject({ method: 'POST', url: '/auth/register', headers: { 'x-whitelabel-studio': otherSlug }, payload: { email, password: 'correct horse battery' } });
  await page.goto(`${base}/s/${otherSlug}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  const nav = (await page.getByRole('navigation', { name: 'Main' }).textContent())!;
  t.false(nav.includes('Billing'));
  t.is(await page.getByTestId('balance').count(), 0);
  t.false((await visibleText(page)).includes('Pixel Shop'));
  await page.goto(`${base}/s/no-such-studio`);
  await page.getByRole('heading', { name: 'This page cannot load' }).waitFor();
  t.regex((await page.getByRole('alert').textContent())!, /No studio "no-such-studio"/);
  await page.context().close();
});

test.serial('a disabled studio\'s storefront says it has closed; its users sign in there, download their data and delete their account, and nothing else', async (t) => {
  const closingSlug = `${slug.slice(0, 25)}-closing`;
  const made = await callOperation<{ id: number }>(gw, 'createStudio', {
    as: owner.session,
    body: { slug: closingSlug, name: 'Closing Shop', branding: { primary_color: '#0b6e4f' }, allowed_models: ['canvas-v1-fast-text-to-image'], payer_mode: 'end_user_pays' },
  });
  t.is(made.status, 201);
  const email = `${uniqueName('leaver')}@example.com`;
  const reg = await gw.server.inject({ method: 'POST', url: '/auth/register', headers: { 'x-whitelabel-studio': closingSlug }, payload: { email, password: 'correct horse battery' } });
  t.is(reg.statusCode, 201);
  t.is((await callOperation(gw, 'disableStudio', { as: owner.session, params: { studio_id: made.body.id } })).status, 200);
  // this gateway sells credit and offers Google sign-in; the closed studio offers neither
  const site = await callOperation<{ disabled: boolean; registration: string; sign_in: { google: boolean }; payments: { enabled: boolean } }>(gw, 'getSiteInfo', { headers: { 'x-whitelabel-studio': closingSlug } });
  t.like(site.body, { disabled: true, registration: 'closed', sign_in: { google: false }, payments: { enabled: false } });

  const { page, problems } = await storefrontPage();
  await page.goto(`${base}/s/${closingSlug}`);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  t.is(await page.title(), 'Sign in · Closing Shop');
  t.regex((await page.getByTestId('studio-closed').textContent())!, /Closing Shop has closed.*sign in to download your data or delete your account/);
  t.is(await page.getByRole('link', { name: 'Create an account' }).count(), 0);
  t.is(await page.getByRole('button', { name: 'Continue with Google' }).count(), 0);
  t.is(await page.getByRole('link', { name: 'Forgot your password?' }).count(), 1);
  t.deepEqual(await seriousAxeViolations(page), []);
  await screenshot(page, 'storefront', 'closed-sign-in');
  // the sign-up page's address leads to signing in
  await page.goto(`${base}/s/${closingSlug}#/sign-up`);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();

  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Account', exact: true }).waitFor();
  await page.getByTestId('studio-closed').waitFor();
  const nav = page.getByRole('navigation', { name: 'Main' });
  t.deepEqual(await nav.locator('ul a').allTextContents(), ['Account'], 'no page that would only be refused');
  t.is(await nav.getByRole('button', { name: 'Sign out' }).count(), 1);
  t.is(await page.getByText('Staff access to your account').count(), 0);
  // another page's address shows the account
  await page.goto(`${base}/s/${closingSlug}#/keys`);
  await page.getByRole('heading', { name: 'Account', exact: true }).waitFor();

  await page.getByRole('button', { name: 'Prepare my data export' }).click();
  const download = page.waitForEvent('download');
  await page.getByTestId('export-link').click();
  const file = await (await download).path();
  const exported = JSON.parse(readFileSync(file, 'utf8')) as { user: { email: string } };
  t.is(exported.user.email, email);

  page.once('dialog', (d) => d.accept());
  await page.getByRole('button', { name: 'Request deletion' }).click();
  await page.getByTestId('deletion-scheduled').waitFor();
  const due = await gw.app.db('users').where({ email }).first<{ deletion_due_at: number | string | null }>('deletion_due_at');
  t.not(due!.deletion_due_at, null, 'the deletion is scheduled');
  t.deepEqual(await seriousAxeViolations(page), []);
  await screenshot(page, 'storefront', 'closed-account');

  await nav.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  t.deepEqual(problems, []);
  await page.context().close();
});
