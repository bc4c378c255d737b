// A gateway with REGISTRATION=closed, in the browser: the sign-up page says that new accounts are
// by invitation, a stranger's attempt is refused in a sentence and creates nothing, and an address
// a team owner invited signs up, verifies and reaches the dashboard. MariaDB, a real SMTP server,
// chromium.
import test from 'ava';
import type { Browser } from 'playwright-core';
import { startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { freePort } from '../helpers/processes.ts';
import { uniqueName, waitFor } from '../helpers/services.ts';
import { launchBrowser, pageProblems, screenshot, seriousAxeViolations } from '../helpers/browser.ts';
import { startSmtp } from '../helpers/smtp.ts';
import type { SmtpCapture } from '../helpers/smtp.ts';
import { createUser } from '../../db/users.ts';
import { hashPassword } from '../../lib/secrets.ts';

const PASSWORD = 'correct horse battery';
let gw: TestGateway;
let base: string;
let browser: Browser;
let smtp: SmtpCapture;

test.before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  smtp = await startSmtp();
  gw = await startGateway({
    queue: 'memory',
    env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, SMTP_URL: smtp.url, AUTH_RATE_PER_ADDRESS: '1000', REGISTRATION: 'closed', SIGNUP_CREDIT: '300' },
  });
  await gw.server.start();
  browser = await launchBrowser();
});

test.after.always(async () => {
  await browser?.close();
  await gw?.stop();
  await smtp?.close();
});

async function signUp(email: string) {
  const context = await browser.newContext({ bypassCSP: true });
  const page = await context.newPage();
  const problems = pageProblems(page);
  await page.goto(`${base}/dashboard`);
  await page.getByRole('link', { name: 'Create an account' }).click();
  await page.getByRole('heading', { name: 'Create your account' }).waitFor();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Choose a password').fill(PASSWORD);
  return { context, page, problems };
}

test.serial('a stranger is told that accounts are by invitation, and the attempt creates nothing', async (t) => {
  const email = `${uniqueName('stranger')}@example.com`;
  const { context, page, problems } = await signUp(email);
  await page.getByRole('note').filter({ hasText: 'New accounts are by invitation' }).waitFor();
  t.deepEqual(await seriousAxeViolations(page), []);
  await page.getByRole('button', { name: 'Create account' }).click();
  const refusal = page.getByText(/registration is closed on this gateway/i);
  await refusal.waitFor();
  t.regex((await refusal.textContent())!, /invit/);
  t.is(await page.getByRole('heading', { name: 'Verify your email' }).count(), 0);
  await screenshot(page, 'dashboard', 'registration-closed');
  t.is(await gw.app.db('users').where({ email }).first(), undefined);
  // the refusal is the page's sentence, not a broken page
  t.deepEqual(problems.filter((p) => !p.includes('403')), []);
  await context.close();
});

test.serial('an address a team owner invited follows the mail\'s link, signs up, verifies and joins the team, all in the browser', async (t) => {
  const ownerEmail = `${uniqueName('owner')}@example.com`;
  await createUser(gw.app.db, ownerEmail, await hashPassword(PASSWORD), Date.now());
  const login = await gw.server.inject({ method: 'POST', url: '/auth/login', payload: { email: ownerEmail, password: PASSWORD } });
  const auth = { authorization: `Bearer ${(login.result as { access_token: string }).access_token}` };
  const team = await gw.server.inject({ method: 'POST', url: '/app/teams', payload: { name: 'Closed studio' }, headers: auth });
  const email = `${uniqueName('invitee')}@example.com`;
  const invited = await gw.server.inject({ method: 'POST', url: `/app/teams/${(team.result as { id: number }).id}/invites`, payload: { email, role: 'developer' }, headers: auth });
  t.is(invited.statusCode, 201, invited.payload);
  // the invite mail's link, as a mail reader shows it (quoted-printable undone)
  const mail = await waitFor(() => smtp.messages.find((m) => m.to.includes(email) && m.raw.includes('invited')), { what: 'the invite mail' });
  const text = mail.raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  const link = /(http\S+#\/teams\?invite=mgi_[A-Za-z0-9_-]+)/.exec(text)?.[1];
  t.truthy(link, text);
  t.false(/POST .*accept it with/.test(text), 'the mail does not send a newcomer to a terminal');

  const context = await browser.newContext({ bypassCSP: true });
  const page = await context.newPage();
  const problems = pageProblems(page);
  await page.goto(link!);
  await page.getByRole('link', { name: 'Create an account' }).click();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Choose a password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Verify your email' }).waitFor();
  // the code's mail, not the invite's
  const codeMail = await waitFor(() => smtp.messages.find((m) => m.to.includes(email) && /code is \d{6}/.test(m.raw)), { what: 'the code mail' });
  await page.getByLabel('Code from the email').fill(/code is (\d{6})/.exec(codeMail.raw)![1]!);
  await page.getByRole('button', { name: 'Verify and continue' }).click();
  // back on the page the link opened, with the invite to accept
  await page.getByRole('heading', { name: 'You are invited to a team' }).waitFor();
  t.deepEqual(await seriousAxeViolations(page), []);
  await page.getByRole('button', { name: 'Accept invite' }).click();
  await page.getByText('You joined the team Closed studio as developer.').waitFor();
  await page.getByRole('cell', { name: 'Closed studio' }).waitFor();
  t.false(page.url().includes('mgi_'), 'the spent token leaves the address bar');
  await screenshot(page, 'dashboard', 'team-invite-accepted');
  const user = await gw.app.db('users').where({ email }).first<{ id: number }>('id');
  t.is((await gw.app.db('team_members').where({ user_id: user!.id })).length, 1);
  t.deepEqual(problems, []);
  await context.close();
});
