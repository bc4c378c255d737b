// The last dashboard pages (issue 13) in a real browser (Debian chromium via playwright-core), on
// MariaDB: a user creates, edits, inspects the usage of and disables a whitelabel studio, for
// themselves and for a team picked with the switcher; a billing account gives a user a discount,
// deletes it, and activates a subscription that the user then sees on the Billing page; the three
// pages at phone width.
// Screenshots in test-results/screenshots/dashboard/.
import test from 'ava';
import type { Browser } from 'playwright-core';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { freePort } from '../helpers/processes.ts';
import { launchBrowser, screenshot, signIn as signInPage } from '../helpers/browser.ts';
import { ledgerCheckedAfterEach } from '../helpers/ledger.ts';
import { createTeam } from '../../db/teams.ts';
import { startDns } from '../helpers/dns.ts';
import type { TestDns } from '../helpers/dns.ts';

let gw: TestGateway;
let base: string;
let browser: Browser;
let dns: TestDns;

test.before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  dns = await startDns();
  gw = await startGateway({ env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, AUTH_RATE_PER_ADDRESS: '1000', STUDIO_DNS_SERVERS: dns.server } });
  await gw.server.start();
  browser = await launchBrowser();
});
test.after.always(async () => {
  await browser?.close();
  await gw?.stop();
  await dns?.close();
});
ledgerCheckedAfterEach(test, () => gw?.app.db);

const emailOf = async (userId: number) => (await gw.app.db('users').where({ id: userId }).first<{ email: string }>())!.email;

const signIn = (email: string) => signInPage(browser, base, email);

test.serial('studios: create, edit, usage and disable; with the team switcher the team owns the new one', async (t) => {
  const user = await newAccount(gw, 0);
  const team = await createTeam(gw.app.db, user.userId, 'Studio team', Date.now());
  const slug = `art-${user.userId}`;
  const { page, problems } = await signIn(await emailOf(user.userId));
  await page.getByRole('link', { name: 'Studios' }).click();
  await page.getByRole('heading', { name: 'Studios', exact: true }).waitFor();
  await page.getByText('You have no studios yet.').waitFor();
  const form = page.getByRole('form', { name: 'Create a studio' });
  await form.getByLabel('Slug').fill(slug);
  await form.getByLabel('Name').fill('Art Corner');
  await form.getByLabel('Main colour', { exact: true }).fill('#336699');
  await form.getByLabel('Domains').fill(`${slug}.example.com`);
  await form.getByLabel('Find a model').fill('canvas fast');
  await form.getByRole('checkbox', { name: /Canvas v1 Fast/ }).check();
  await form.getByLabel(/^Markup/).fill('25');
  await form.getByLabel('Prices per model').fill('canvas-v1-fast-text-to-image=900');
  await form.getByLabel('Who pays').selectOption('end_user_pays');
  await form.getByRole('button', { name: 'Create studio' }).click();
  await page.getByText('The studio "Art Corner" was created.').waitFor();
  const row = await gw.app.db('studios').where({ slug }).first();
  t.truthy(row);
  t.is(row.user_id, user.userId);
  t.is(row.team_id, null);
  const studio = (await (await fetch(`${base}/app/studios/${row.id}`, { headers: { 'x-api-key': user.liveKey } })).json()) as Record<string, unknown>;
  t.like(studio, { slug, name: 'Art Corner', branding: { primary_color: '#336699' }, domains: [`${slug}.example.com`], allowed_models: ['canvas-v1-fast-text-to-image'],
    markup_percent: 25, model_prices: { 'canvas-v1-fast-text-to-image': 900 }, payer_mode: 'end_user_pays' });

  // the domain waits for its DNS record: the page shows the record, a check says what it found, then verifies it
  const checks = page.getByTestId('domain-checks');
  const { record } = (studio.domain_verification as Array<{ record: { name: string; value: string } }>)[0]!;
  await checks.getByText(record.name).waitFor();
  await checks.getByText(record.value).waitFor();
  await checks.getByRole('button', { name: 'Check the DNS of Art Corner' }).click();
  await page.getByText('Art Corner: nothing verified yet; 1 still waiting for the DNS record').waitFor();
  await checks.getByText(/no TXT record at _mediagate-challenge\./).waitFor();
  await screenshot(page, 'dashboard', 'studio-domains');
  dns.txt.set(record.name, [record.value]);
  await checks.getByRole('button', { name: 'Check the DNS of Art Corner' }).click();
  await page.getByText(`Art Corner: verified ${slug}.example.com.`).waitFor();
  await checks.waitFor({ state: 'detached' });
  await page.getByTestId('studios').getByText('verified', { exact: true }).waitFor();

  // edit: the form comes back filled, the slug fixed
  await page.getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('form', { name: 'Edit the studio Art Corner' });
  t.true(await edit.getByLabel('Slug').isDisabled());
  t.is(await edit.getByLabel('Prices per model').inputValue(), 'canvas-v1-fast-text-to-image=900');
  await edit.getByLabel('Name').fill('Art Corner II');
  await edit.getByLabel('Prices per model').fill('not a price');
  await edit.getByRole('button', { name: 'Save' }).click();
  await page.getByText('"not a price" is not a per-model price').waitFor();
  await edit.getByLabel('Prices per model').fill('');
  await edit.getByRole('button', { name: 'Save' }).click();
  await page.getByText('The studio "Art Corner II" was saved').waitFor();
  t.like(await gw.app.db('studios').where({ id: row.id }).first(), { name: 'Art Corner II' });

  await page.getByRole('button', { name: 'Usage' }).click();
  await page.getByTestId('studio-usage').getByText('0 runs').waitFor();
  await page.getByTestId('studio-usage').getByText('No runs in this period.').first().waitFor();
  await screenshot(page, 'dashboard', 'studios');

  page.once('dialog', (d) => d.accept());
  await page.getByRole('button', { name: 'Disable' }).click();
  await page.getByText('The studio "Art Corner II" was disabled.').waitFor();
  t.truthy((await gw.app.db('studios').where({ id: row.id }).first()).disabled_at);

  // the team switcher: the page lists and creates the team's studios
  await page.getByRole('link', { name: 'Teams' }).click();
  await page.getByRole('heading', { name: 'Teams', exact: true }).waitFor();
  await page.getByRole('button', { name: 'Act for this team' }).click();
  await page.getByTestId('acting-for').getByText('Studio team').waitFor();
  await page.getByRole('link', { name: 'Studios' }).click();
  await page.getByText('You have no studios yet.').waitFor();
  await page.getByRole('form', { name: 'Create a studio' }).getByLabel('Slug').fill(`${slug}-team`);
  await page.getByRole('form', { name: 'Create a studio' }).getByLabel('Name').fill('Team studio');
  await page.getByRole('form', { name: 'Create a studio' }).getByRole('checkbox', { name: /Canvas v1 Fast/ }).check();
  await page.getByRole('button', { name: 'Create studio' }).click();
  await page.getByText('The studio "Team studio" was created.').waitFor();
  t.is((await gw.app.db('studios').where({ slug: `${slug}-team` }).first()).team_id, team.id);
  t.deepEqual(problems, []);
  await page.close();
});

test.serial('admin: a billing account adds and deletes a discount and activates a subscription the user sees on Billing', async (t) => {
  const staff = await newAccount(gw, 0);
  await gw.app.db('users').where({ id: staff.userId }).update({ role: 'billing' });
  const customer = await newAccount(gw, 0);
  const customerEmail = await emailOf(customer.userId);
  const { page, problems } = await signIn(await emailOf(staff.userId));
  await page.getByRole('link', { name: 'Admin' }).click();
  await page.getByLabel('User\'s email').fill(customerEmail);
  await page.getByRole('button', { name: 'Look up' }).click();
  const discounts = page.getByTestId('admin-discounts');
  await discounts.getByText('No discount for this user on their own wallet.').waitFor();
  await discounts.getByLabel('Percent off').fill('20');
  await discounts.getByLabel('Reason').fill('launch offer');
  await discounts.getByRole('button', { name: 'Save discount' }).click();
  await discounts.getByText('20% off every model saved').waitFor();
  await discounts.getByText('launch offer').waitFor();
  t.like(await gw.app.db('model_discounts').where({ user_id: customer.userId }).first(), { model: '*', percent_off: 20 });

  const sub = page.getByTestId('admin-subscription');
  await sub.getByText('No subscription.').waitFor();
  await sub.getByLabel('Plan', { exact: true }).fill('platinum');
  await sub.getByRole('button', { name: 'Activate' }).click();
  await sub.getByText(/Unknown plan/).waitFor();
  await sub.getByLabel('Plan', { exact: true }).fill('starter');
  await sub.getByRole('button', { name: 'Activate' }).click();
  await sub.getByText(/The starter plan is active until/).waitFor();
  await sub.getByText(/^starter, active until/).waitFor();
  await screenshot(page, 'dashboard', 'admin-discounts-subscription');

  page.once('dialog', (d) => d.accept());
  await discounts.getByRole('button', { name: 'Delete' }).click();
  await discounts.getByText('The discount was deleted').waitFor();
  t.is((await gw.app.db('model_discounts').where({ user_id: customer.userId })).length, 0);

  // the Wallet switch: the same forms act on a team the user is a member of
  const team = await createTeam(gw.app.db, customer.userId, 'Billing team', Date.now());
  await page.getByRole('button', { name: 'Look up' }).click();
  await page.getByLabel('Wallet').selectOption(String(team.id));
  await discounts.getByText('No discount for this user on the team Billing team\'s wallet.').waitFor();
  await discounts.getByLabel('Percent off').fill('15');
  await discounts.getByRole('button', { name: 'Save discount' }).click();
  await discounts.getByText('15% off every model saved').waitFor();
  t.like(await gw.app.db('model_discounts').where({ user_id: customer.userId, team_id: team.id }).first(), { model: '*', percent_off: 15 });
  await sub.getByText('No subscription.').waitFor();
  await sub.getByLabel('Plan', { exact: true }).fill('pro');
  await sub.getByRole('button', { name: 'Activate' }).click();
  await sub.getByText(/The pro plan is active until/).waitFor();
  await page.getByTestId('admin-user').getByText(/Billing team .* subscription: pro/).waitFor();
  const credit = page.getByTestId('admin-credits');
  await credit.getByLabel('Credits').fill('700');
  await credit.getByRole('button', { name: 'Add credit' }).click();
  await credit.getByText(/Added .* \(the team Billing team's wallet\)/).waitFor();
  const teamRow = await gw.app.db('teams').where({ id: team.id }).first<{ balance: number | string }>();
  t.true(Number(teamRow!.balance) >= 700);
  // the user's own wallet kept its own discount list and plan
  await page.getByLabel('Wallet').selectOption('');
  await sub.getByText(/^starter, active until/).waitFor();
  // the unknown plan's 422 is logged by the browser; nothing else may be
  t.deepEqual(problems.filter((p) => !p.includes('status of 422')), []);
  await page.close();

  const own = await signIn(customerEmail);
  await own.page.getByRole('link', { name: 'Billing' }).click();
  await own.page.getByTestId('subscription-plan').getByText('starter').waitFor();
  await own.page.getByTestId('subscription').getByText(/every month/).waitFor();
  await screenshot(own.page, 'dashboard', 'billing-subscription');
  t.deepEqual(own.problems, []);
  await own.page.close();
});

test.serial('the studios, billing and admin pages are readable at phone width', async (t) => {
  const staff = await newAccount(gw, 0);
  await gw.app.db('users').where({ id: staff.userId }).update({ role: 'admin' });
  const { page, problems } = await signIn(await emailOf(staff.userId));
  await page.setViewportSize({ width: 390, height: 800 });
  for (const [route, title] of [['studios', 'Studios'], ['billing', 'Billing'], ['admin', 'Admin']] as const) {
    await page.goto(`${base}/dashboard#/${route}`);
    await page.getByRole('heading', { name: title, exact: true }).waitFor();
    if (route === 'admin') {
      await page.getByLabel('User\'s email').fill(await emailOf(staff.userId));
      await page.getByRole('button', { name: 'Look up' }).click();
      await page.getByTestId('admin-discounts').waitFor();
    }
    await page.waitForLoadState('networkidle');
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    t.true(overflow <= 0, `${route} overflows by ${overflow}px`);
    await screenshot(page, 'dashboard', `phone-${route}`);
  }
  t.deepEqual(problems, []);
  await page.close();
});
