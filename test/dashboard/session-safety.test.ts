// The dashboard's hold on its session in a real browser (Debian chromium via playwright-core), on
// MariaDB: what an address can make a tab sign in as, what "Sign out" promises, and which
// addresses stored by another member of a team the page turns into links.
import test from 'ava';
import type { Browser } from 'playwright-core';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { freePort } from '../helpers/processes.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { insertMediaAsset } from '../../db/media-assets.ts';

let gw: TestGateway;
let base: string;
let browser: Browser;

test.before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  gw = await startGateway({ queue: 'memory', env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, AUTH_RATE_PER_ADDRESS: '1000' } });
  await gw.server.start();
  browser = await launchBrowser();
});
test.after.always(async () => {
  await browser?.close();
  await gw?.stop();
});

/** Signs in through the form in a browser context of its own, so a test can open more tabs of that browser. */
async function signIn(email: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${base}/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  return { context, page };
}

async function emailOf(userId: number): Promise<string> {
  return (await gw.app.db('users').where({ id: userId }).first<{ email: string }>('email'))!.email;
}

test('an "Act as" address holding an ordinary session is ignored: a link cannot sign a browser in to someone else\'s account', async (t) => {
  const victim = await newAccount(gw);
  const attacker = await newAccount(gw);
  const victimEmail = await emailOf(victim.userId);
  const { context, page } = await signIn(victimEmail);
  // the attacker's own session token, sent as if it were the tab session staff open to act as a user
  // (a new tab of the victim's browser, as a link opens it)
  const tab = await context.newPage();
  await tab.goto(`${base}/dashboard#/impersonate?token=${encodeURIComponent(attacker.session)}`);
  await tab.getByRole('heading', { name: 'Overview' }).waitFor();
  t.is(await tab.locator('.who .email').textContent(), victimEmail);
  t.is(await tab.getByTestId('impersonation-banner').count(), 0);
  t.is(await tab.evaluate(() => sessionStorage.getItem('mediagate.session')), null);
  t.false(tab.url().includes('token='));
  await context.close();
});

test('a sign-out the gateway did not confirm is not shown as done: the page says so and stays signed in', async (t) => {
  const acct = await newAccount(gw);
  const { context, page } = await signIn(await emailOf(acct.userId));
  // the sign-out request never reaches the gateway (a dropped connection)
  await page.route('**/auth/logout', (route) => route.abort('connectionfailed'));
  await page.getByRole('button', { name: 'Sign out' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  t.regex((await alert.textContent())!, /not signed out/i);
  t.is(await page.getByRole('button', { name: 'Sign in' }).count(), 0);
  // once it gets through, the session ends on the server and the page shows the sign-in
  await page.unroute('**/auth/logout');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  const live = await gw.app.db('sessions').where({ user_id: acct.userId }).whereNull('revoked_at').count<{ n: number }[]>({ n: '*' });
  t.is(Number(live[0]!.n), 1, 'only the bearer session newAccount opened is left');
  await context.close();
});

test('a media asset whose address is not http or https (stored before the gateway refused them) is never a link or a source', async (t) => {
  const acct = await newAccount(gw);
  const owner = { userId: acct.userId, teamId: null };
  for (const [name, url] of [['script', 'javascript:document.title=1'], ['page', 'data:text/html,%3Cscript%3Ealert(1)%3C/script%3E'], ['fine', 'https://cdn.example.com/fine.png']]) {
    await insertMediaAsset(gw.app.db, owner, { name: name!, url: url!, mediaType: 'image', contentType: null, sizeBytes: null, requestId: null, storageKey: null, uploadId: null }, Date.now());
  }
  const { context, page } = await signIn(await emailOf(acct.userId));
  await page.goto(`${base}/dashboard#/media`);
  await page.locator('li.tile[data-asset="fine"]').waitFor();
  const addresses = await page.locator('li.tile [href], li.tile [src]').evaluateAll((els) => els.map((e) => e.getAttribute('href') ?? e.getAttribute('src')));
  t.true(addresses.includes('https://cdn.example.com/fine.png'));
  t.deepEqual(addresses.filter((a) => !/^https?:/.test(a ?? '')), []);
  // the other two are still listed, by name, and can be deleted
  t.is(await page.locator('li.tile[data-asset="script"] .name').textContent(), 'script');
  t.is(await page.locator('li.tile[data-asset="page"] .name').textContent(), 'page');
  await context.close();
});
