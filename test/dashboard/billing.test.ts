// Buying credit in a real browser: the billing page opens a Stripe Checkout Session (Stripe's API
// answered by nock at api.stripe.com; its payment page answered by the browser's own routing),
// Stripe's signed webhook credits the wallet, and the page the browser returns to shows the
// purchase once it has landed. An amount outside the limits is refused beside the field; a
// cancelled payment says nothing was charged. MariaDB; screenshots in test-results/screenshots/dashboard/.
import test from 'ava';
import nock from 'nock';
import Stripe from 'stripe';
import type { Browser } from 'playwright-core';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { freePort } from '../helpers/processes.ts';
import { uniqueName } from '../helpers/services.ts';
import { launchBrowser, screenshot, signIn } from '../helpers/browser.ts';
import { ledgerCheckedAfterEach } from '../helpers/ledger.ts';
import { formOf } from '../helpers/stripe.ts';

const WEBHOOK_SECRET = 'whsec_mediagatebrowsersecret';
let gw: TestGateway;
let base: string;
let browser: Browser;

test.before(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  gw = await startGateway({
    queue: 'memory',
    env: {
      PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, AUTH_RATE_PER_ADDRESS: '1000',
      STRIPE_SECRET_KEY: 'sk_test_mediagatebrowser', STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, CHECKOUT_PRESETS: '1000,2000,5000',
      SUBSCRIPTION_PLANS: JSON.stringify({ starter: { credits: 10000, period: 'month', stripe_price: 'price_starter' } }),
    },
  });
  await gw.server.start();
  browser = await launchBrowser();
});
test.afterEach.always(() => { nock.cleanAll(); });
test.after.always(async () => {
  nock.enableNetConnect();
  await browser?.close();
  await gw?.stop();
});
ledgerCheckedAfterEach(test, () => gw?.app.db);

test.serial('buy credits: Stripe Checkout, the webhook, and the purchase on the page the browser returns to', async (t) => {
  const acct = await newAccount(gw);
  const email = (await gw.app.db('users').where({ id: acct.userId }).first('email')).email as string;
  const { page, problems } = await signIn(browser, base, email);
  const id = uniqueName('cs_test');
  let form: Record<string, string> = {};
  nock('https://api.stripe.com').post('/v1/checkout/sessions', (b: unknown) => { form = formOf(b); return true; })
    .reply(200, { id, object: 'checkout.session', url: `https://checkout.stripe.com/c/pay/${id}` });
  // the wallet's invoices, once it has a Stripe customer: none yet
  nock('https://api.stripe.com').persist().get('/v1/invoices').query(true).reply(200, { object: 'list', data: [], has_more: false, url: '/v1/invoices' });
  // Stripe's payment page, as far as this test needs it
  await page.route('https://checkout.stripe.com/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Stripe Checkout</title><h1>Pay</h1>' }));

  await page.getByRole('link', { name: 'Billing' }).first().click();
  await page.getByRole('heading', { name: 'Buy credits' }).waitFor();
  await page.getByText('No credit bought yet.').waitFor();
  // an amount outside the operator's limits is refused beside the field, before Stripe is asked
  await page.getByLabel('Another amount').check();
  await page.getByLabel('Amount (USD)').fill('2');
  await page.getByRole('button', { name: 'Continue to payment' }).click();
  await page.getByText('Choose an amount from $5.00 to $1,000.00.').waitFor();
  t.is(await page.getByLabel('Amount (USD)').getAttribute('aria-invalid'), 'true');
  await screenshot(page, 'dashboard', 'billing-buy-invalid');

  await page.getByLabel(/\$20\.00/).check();
  t.truthy(await page.getByText('You get 20,000 credits.').count());
  await page.getByRole('button', { name: 'Continue to payment' }).click();
  await page.waitForURL(/checkout\.stripe\.com/);
  t.like(form, { mode: 'payment', 'line_items[0][price_data][unit_amount]': '2000', 'metadata[credits]': '20000', client_reference_id: String(acct.userId) });

  // Stripe: the payment succeeds, the signed event arrives, the browser is sent back
  const payload = JSON.stringify({
    id: uniqueName('evt'), object: 'event', type: 'checkout.session.completed', api_version: Stripe.API_VERSION, created: Math.floor(Date.now() / 1000),
    data: { object: { id, object: 'checkout.session', mode: 'payment', payment_status: 'paid', amount_total: 2000, currency: 'usd', client_reference_id: String(acct.userId), customer: uniqueName('cus'), payment_intent: uniqueName('pi'), metadata: { user_id: String(acct.userId), credits: '20000' } } },
  });
  const back = form.success_url!.replace('{CHECKOUT_SESSION_ID}', id);
  await page.goto(back);
  const hook = await fetch(`${base}/api/v1/payment-webhooks/stripe`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) }, body: payload });
  t.deepEqual(await hook.json(), { status: 'credited' });
  await page.getByText('Payment received: 20,000 credits added.').waitFor();
  t.is(await page.getByTestId('billing-balance').textContent(), '20,000 credits');
  await page.getByTestId('purchases').getByText('$20.00').waitFor();
  await page.locator('tr[data-kind="purchase"]').waitFor();
  t.false(page.url().includes('session_id'), 'the address keeps no trace of the checkout');
  await page.getByText('No invoices yet. Plans are invoiced by Stripe every period.').waitFor();
  await screenshot(page, 'dashboard', 'billing-purchase-landed');
  t.deepEqual(problems.filter((p) => !p.includes('checkout.stripe.com')), []);
  await page.close();
});

test.serial('a cancelled payment says nothing was charged; a plan sold online is offered with its credit', async (t) => {
  const acct = await newAccount(gw);
  const email = (await gw.app.db('users').where({ id: acct.userId }).first('email')).email as string;
  const { page } = await signIn(browser, base, email);
  await page.goto(`${base}/dashboard?checkout=cancelled#/billing`);
  await page.getByText('The payment was cancelled; nothing was charged.').waitFor();
  await page.getByTestId('subscription-none').waitFor();
  t.regex((await page.getByTestId('subscription').textContent())!, /starter · 10,000 credits every month/);
  t.truthy(await page.getByRole('button', { name: 'Start the starter plan' }).count());
  await page.close();
});
