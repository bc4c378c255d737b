// Pre-registration takeover through a Google identity: someone whose Google account claims an
// address it has not verified creates the gateway account first (a new account, never verified,
// linked to that identity). When the mailbox's owner takes the account back (Google sign-in with
// the verified address, or a password reset with a mailed code), that earlier link must go with
// everything else whoever registered the account set up, what could spend its wallet or hear about
// it included (embed codes, studios, pending invites it sent, the alert webhook URL). A local OpenID provider stands in for
// Google; real SMTP for the codes; MariaDB.
import test from 'ava';
import crypto from 'node:crypto';
import { startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { startProvider } from '../helpers/oidc.ts';
import type { LocalProvider, TestClient } from '../helpers/oidc.ts';
import { startSmtp } from '../helpers/smtp.ts';
import type { SmtpCapture } from '../helpers/smtp.ts';
import { plantSpenders, standing, TAKEN_BACK } from '../helpers/wallet-spenders.ts';
import { captureLog } from '../helpers/logs.ts';
import { deadlockOnce } from '../helpers/lock-victim.ts';

const WEB: TestClient = { client_id: 'gateway-web', client_secret: 'gateway-web-secret', redirect_uri: 'http://gateway.test/auth/google_callback' };

let op: LocalProvider;
let gw: TestGateway;
let smtp: SmtpCapture;
const log = captureLog('info');

test.before(async () => {
  op = await startProvider([WEB]);
  smtp = await startSmtp();
  gw = await startGateway({
    queue: 'memory',
    log: log.log,
    env: {
      GOOGLE_CLIENT_ID: WEB.client_id, GOOGLE_CLIENT_SECRET: WEB.client_secret, GOOGLE_ISSUER: op.issuer,
      SMTP_URL: smtp.url, MAIL_FROM: 'mediagate <codes@gateway.test>', AUTH_RATE_PER_ADDRESS: '1000',
    },
  });
});
test.after.always(async () => {
  await gw?.stop();
  await op?.close();
  await smtp?.close();
});

const newSub = () => `sub-${crypto.randomBytes(6).toString('hex')}`;

/** The browser's round trip through the provider as `sub`, back to the gateway's callback. */
async function googleSignIn(sub: string) {
  const start = await gw.server.inject({ method: 'GET', url: '/auth/get-google-url' });
  if (start.statusCode !== 200) throw new Error(start.payload);
  const back = await op.authorize((start.result as { url: string }).url, sub);
  return gw.server.inject({ method: 'GET', url: `/auth/google_callback${back.search}` });
}

async function userIdOf(session: string): Promise<number> {
  const res = await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: { authorization: `Bearer ${session}` } });
  return (res.result as { id: number }).id;
}

/** A squatter's Google identity, whose address Google has not verified, creates the account first. */
async function squatted() {
  const email = `owner-${crypto.randomBytes(5).toString('hex')}@example.com`;
  const squatter = newSub();
  op.accounts.set(squatter, { email, email_verified: false });
  const first = await googleSignIn(squatter);
  if (first.statusCode !== 200) throw new Error(first.payload);
  const session = (first.result as { access_token: string }).access_token;
  return { email, squatter, userId: await userIdOf(session), session };
}

test('the owner signing in with Google takes the account back from an unverified Google identity linked before', async (t) => {
  const { email, squatter, userId } = await squatted();
  const owner = newSub();
  op.accounts.set(owner, { email, email_verified: true });
  const back = await googleSignIn(owner);
  t.is(back.statusCode, 200, back.payload);
  t.is(await userIdOf((back.result as { access_token: string }).access_token), userId);

  const again = await googleSignIn(squatter);
  t.not(again.statusCode, 200, 'the squatter\'s Google identity no longer signs in to the owner\'s account');
  t.is(again.statusCode, 409);
  t.deepEqual((await gw.app.db('user_identities').where({ user_id: userId }).select('subject')).map((r: { subject: string }) => r.subject), [owner]);
});

test('the owner resetting the password takes the account back from an unverified Google identity linked before', async (t) => {
  const { email, squatter, userId } = await squatted();
  await gw.server.inject({ method: 'POST', url: '/auth/forgot-password', payload: { email } });
  const reset = await gw.server.inject({ method: 'POST', url: '/auth/reset-password', payload: { email, otp: await smtp.code(email), new_password: 'the owner\'s password' } });
  t.is(reset.statusCode, 200, reset.payload);
  t.regex((reset.result as { detail: string }).detail, /Google sign-in set up before the address was verified no longer opens this account/);

  const again = await googleSignIn(squatter);
  t.not(again.statusCode, 200, 'the squatter\'s Google identity no longer signs in to the owner\'s account');
  t.is(again.statusCode, 409);
  t.is(await gw.app.db('user_identities').where({ user_id: userId }).first(), undefined);
});

test('the owner signing in with a mailed code takes the account back from an unverified Google identity linked before', async (t) => {
  const { email, squatter, userId } = await squatted();
  await gw.server.inject({ method: 'POST', url: '/auth/request-otp', payload: { email } });
  const login = await gw.server.inject({ method: 'POST', url: '/auth/login-otp', payload: { email, otp: await smtp.code(email) } });
  t.is(login.statusCode, 200, login.payload);
  t.regex(String((login.result as { detail?: string }).detail), /Google sign-in set up before the address was verified no longer opens this account/);

  const again = await googleSignIn(squatter);
  t.not(again.statusCode, 200, 'the squatter\'s Google identity no longer signs in to the owner\'s account');
  t.is(again.statusCode, 409);
  t.is(await gw.app.db('user_identities').where({ user_id: userId }).first(), undefined);
});

test('the owner signing in with Google also revokes the embed codes, disables the studios, revokes the invites sent and removes the alert webhook URL', async (t) => {
  const { email, session, userId } = await squatted();
  const planted = await plantSpenders(gw, smtp, session);
  const owner = newSub();
  op.accounts.set(owner, { email, email_verified: true });
  const back = await googleSignIn(owner);
  t.is(back.statusCode, 200, back.payload);
  const ownerSession = (back.result as { access_token: string }).access_token;
  t.is(await userIdOf(ownerSession), userId);
  t.deepEqual(await standing(gw, planted, ownerSession), TAKEN_BACK);
  // the sign-in's event tells what was taken back
  const event = log.parsed<Record<string, unknown>>().find((l) => l.event === 'signed_in' && l.userId === userId && l.passwordRemoved === true);
  t.like(event, { embedCodesRevoked: 2, studiosDisabled: 1, invitesRevoked: 1, alertWebhookRemoved: true, apiKeysRevoked: 0 });
});

test.serial('a Google sign-in whose take-back is picked as a deadlock victim is retried whole: the owner signs in, the account is taken back and linked once', async (t) => {
  const { email, squatter, userId, session } = await squatted();
  // the new webhook secret's insert, late in the take-back (after sessions, identities, keys and
  // clients): the first attempt fails there, as a squatter's request at the same moment could make it
  const victim = await deadlockOnce(gw.app.db, 'webhook_secrets', userId);
  t.teardown(() => victim.drop());
  const owner = newSub();
  op.accounts.set(owner, { email, email_verified: true });
  const start = await gw.server.inject({ method: 'GET', url: '/auth/get-google-url' });
  const callback = `/auth/google_callback${(await op.authorize((start.result as { url: string }).url, owner)).search}`;
  const back = await gw.server.inject({ method: 'GET', url: callback });
  t.is(back.statusCode, 200, back.payload);
  t.is(await victim.seen(), 3, 'the first attempt was the victim (at its production secret), the second committed (a production and a sandbox secret)');
  t.is(await userIdOf((back.result as { access_token: string }).access_token), userId);
  t.is((await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: { authorization: `Bearer ${session}` } })).statusCode, 401, 'the squatter\'s session has ended');
  t.deepEqual((await gw.app.db('user_identities').where({ user_id: userId }).select('subject')).map((r: { subject: string }) => r.subject), [owner]);
  t.is((await googleSignIn(squatter)).statusCode, 409);
  for (const isTest of [false, true]) {
    t.is(Number((await gw.app.db('webhook_secrets').where({ user_id: userId, is_test: isTest }).count({ n: '*' }).first())?.n), 1, 'one new secret of each mode, none from the rolled-back attempt');
  }
  // the sign-in's state was used once, and its events were logged once
  t.is((await gw.server.inject({ method: 'GET', url: callback })).statusCode, 400);
  const events = log.parsed<Record<string, unknown>>().filter((l) => l.userId === userId);
  t.is(events.filter((l) => l.event === 'signed_in' && l.passwordRemoved === true).length, 1);
  t.is(events.filter((l) => l.event === 'identity_linked' && l.to === 'existing account').length, 1);
});
