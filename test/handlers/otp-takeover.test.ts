// Pre-registration takeover through a password: someone registers another person's address with
// a password of their own and never verifies it. When the mailbox's owner first proves the
// address by signing in with a mailed code (login-otp), everything whoever registered it set up
// goes: the password, every session, API key, OAuth client and token, and the webhook secret,
// and what could spend the account's wallet or hear about it (its embed codes, studios, the
// pending invites it sent, its alert webhook URL). The verification of the registration code (verify-otp) changes nothing else. Real SMTP for
// the codes, MariaDB.
import test from 'ava';
import crypto from 'node:crypto';
import { startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { startSmtp } from '../helpers/smtp.ts';
import type { SmtpCapture } from '../helpers/smtp.ts';
import { basic, createClient, tokenRequest } from '../helpers/oauth.ts';
import { plantSpenders, standing, TAKEN_BACK } from '../helpers/wallet-spenders.ts';
import { creditWallet } from '../../db/wallet/moves.ts';
import { deadlockOnce } from '../helpers/lock-victim.ts';

let gw: TestGateway;
let smtp: SmtpCapture;

test.before(async () => {
  smtp = await startSmtp();
  gw = await startGateway({ queue: 'memory', env: { SMTP_URL: smtp.url, MAIL_FROM: 'mediagate <codes@gateway.test>', AUTH_RATE_PER_ADDRESS: '1000' } });
});
test.after.always(async () => {
  await gw?.stop();
  await smtp?.close();
});

const PASSWORD = 'the squatter password';
const post = (url: string, payload: object) => gw.server.inject({ method: 'POST', url, payload });
const balance = (headers: Record<string, string>) => gw.server.inject({ method: 'GET', url: '/account/balance', headers }).then((r) => r.statusCode);
const passwordLogin = (email: string) => post('/auth/login', { email, password: PASSWORD }).then((r) => r.statusCode);

/** An account registered with a password, with a session, a production and a sandbox key, an OAuth client with a live token, and its production and sandbox webhook secrets; verified with the registration code or not. */
async function registered(opts: { verified: boolean }) {
  const email = `otp-${crypto.randomBytes(5).toString('hex')}@example.com`;
  const reg = await post('/auth/register', { email, password: PASSWORD });
  if (reg.statusCode !== 201) throw new Error(reg.payload);
  const registrationCode = await smtp.code(email); // in the mailbox only
  if (opts.verified) await post('/auth/verify-otp', { email, otp: registrationCode });
  const session = ((await post('/auth/login', { email, password: PASSWORD })).result as { access_token: string }).access_token;
  const auth = { authorization: `Bearer ${session}` };
  const keys: string[] = [];
  for (const isTest of [false, true]) {
    keys.push(((await gw.server.inject({ method: 'POST', url: '/api/v1/keys', headers: auth, payload: { name: 'k', is_test: isTest } })).result as { key: string }).key);
  }
  const client = await createClient(gw, session, ['account:read']);
  const token = async () => tokenRequest(gw, { grant_type: 'client_credentials' }, { authorization: basic(client.client_id, client.client_secret) });
  const accessToken = (await token()).body.access_token as string;
  const secret = ((await gw.server.inject({ method: 'GET', url: '/app/webhook_secret', headers: auth })).result as { secret: string }).secret;
  // the sandbox key reads the sandbox secret
  const sandboxSecret = ((await gw.server.inject({ method: 'GET', url: '/app/webhook_secret', headers: { 'x-api-key': keys[1]! } })).result as { secret: string }).secret;
  return { email, session, keys, token, accessToken, secret, sandboxSecret };
}

/** The mailbox's owner asks for a code and signs in with it. */
async function codeSignIn(email: string, query = '') {
  await post('/auth/request-otp', { email });
  const res = await post(`/auth/login-otp${query}`, { email, otp: await smtp.code(email) });
  if (res.statusCode !== 200) throw new Error(res.payload);
  return res;
}

async function webhookSecret(session: string, query = '') {
  return (await gw.server.inject({ method: 'GET', url: `/app/webhook_secret${query}`, headers: { authorization: `Bearer ${session}` } })).result as { secret: string; previous: unknown[]; sandbox: boolean };
}

test('a code sign-in that first proves the address takes back the password, sessions, keys, clients, tokens and webhook secret set up before', async (t) => {
  const a = await registered({ verified: false });
  const res = await codeSignIn(a.email);
  const body = res.result as { access_token: string; detail?: string };
  t.regex(String(body.detail), /password.*removed/);
  t.regex(String(body.detail), /API key/);
  t.is(await balance({ authorization: `Bearer ${body.access_token}` }), 200, 'the owner is signed in');
  const user = await gw.app.db('users').where({ email: a.email }).first<{ email_verified: number | boolean; password_hash: string | null }>();
  t.truthy(user?.email_verified);
  t.is(user?.password_hash, null);

  t.is(await passwordLogin(a.email), 401, "the squatter's password no longer signs in");
  t.is(await balance({ authorization: `Bearer ${a.session}` }), 401, "the squatter's session has ended");
  for (const key of a.keys) t.is(await balance({ 'x-api-key': key }), 401, "the squatter's keys are revoked");
  t.is(await balance({ authorization: `Bearer ${a.accessToken}` }), 401, "the squatter's OAuth token is revoked");
  t.is((await a.token()).status, 401, "the squatter's OAuth client is gone");
  const now = await webhookSecret(body.access_token);
  t.not(now.secret, a.secret);
  t.deepEqual(now.previous, []);
  // the squatter's sandbox key could read the sandbox secret: it is replaced too, with no overlap
  const sandbox = await webhookSecret(body.access_token, '?sandbox=true');
  t.true(sandbox.sandbox);
  t.not(sandbox.secret, a.sandboxSecret);
  t.not(sandbox.secret, now.secret);
  t.deepEqual(sandbox.previous, []);
});

test('a code sign-in that first proves the address also revokes the embed codes, disables the studios, revokes the invites sent and removes the alert webhook URL', async (t) => {
  const a = await registered({ verified: false });
  const planted = await plantSpenders(gw, smtp, a.session);
  const res = await codeSignIn(a.email);
  const body = res.result as { access_token: string; detail?: string };
  t.deepEqual(await standing(gw, planted, body.access_token), TAKEN_BACK);
  t.regex(String(body.detail), /2 embed codes were revoked/);
  t.regex(String(body.detail), /1 studio was disabled/);
  t.regex(String(body.detail), /1 pending team invite was revoked/);
  t.regex(String(body.detail), /alert webhook URL was removed/);
  t.regex(String(body.detail), /review the teams/);
});

test('the takeover also holds for a cookie session, and a reset sets a password again', async (t) => {
  const a = await registered({ verified: false });
  const res = await codeSignIn(a.email, '?session=cookie');
  t.regex(String((res.result as { detail?: string }).detail), /password.*removed/);
  t.is(await passwordLogin(a.email), 401);
  for (const key of a.keys) t.is(await balance({ 'x-api-key': key }), 401);

  await post('/auth/forgot-password', { email: a.email });
  const reset = await post('/auth/reset-password', { email: a.email, otp: await smtp.code(a.email), new_password: 'the owner password' });
  t.is(reset.statusCode, 200, reset.payload);
  t.is((await post('/auth/login', { email: a.email, password: 'the owner password' })).statusCode, 200);
});

test.serial('a code sign-in whose take-back is picked as a deadlock victim is retried whole: the owner signs in, the code is used once, everything is taken back once', async (t) => {
  const a = await registered({ verified: false });
  const userId = (await gw.app.db('users').where({ email: a.email }).first<{ id: number }>('id')).id;
  // the new webhook secret's insert, late in the take-back (after sessions, identities, keys and
  // clients): the first attempt fails there, as a squatter's request at the same moment could make it
  const victim = await deadlockOnce(gw.app.db, 'webhook_secrets', userId);
  t.teardown(() => victim.drop());
  await post('/auth/request-otp', { email: a.email });
  const code = await smtp.code(a.email);
  const res = await post('/auth/login-otp', { email: a.email, otp: code });
  t.is(res.statusCode, 200, res.payload);
  t.is(await victim.seen(), 3, 'the first attempt was the victim (at its production secret), the second committed (a production and a sandbox secret)');
  const body = res.result as { access_token: string; detail?: string };
  t.regex(String(body.detail), /password.*removed/);
  t.is(await balance({ authorization: `Bearer ${body.access_token}` }), 200, 'the owner is signed in');
  t.is(await passwordLogin(a.email), 401);
  t.is(await balance({ authorization: `Bearer ${a.session}` }), 401);
  for (const key of a.keys) t.is(await balance({ 'x-api-key': key }), 401);
  t.is((await a.token()).status, 401);
  for (const isTest of [false, true]) {
    t.is(Number((await gw.app.db('webhook_secrets').where({ user_id: userId, is_test: isTest }).count({ n: '*' }).first())?.n), 1, 'one new secret of each mode, none from the rolled-back attempt');
  }
  t.not((await webhookSecret(body.access_token)).secret, a.secret);
  // the code was used by the attempt that committed only: one guess counted, and it works no more
  const codes = await gw.app.db('otp_codes').where({ user_id: userId, purpose: 'otp' }).whereNotNull('consumed_at').select('attempts');
  t.true(codes.length >= 1);
  t.true(codes.every((c: { attempts: number }) => Number(c.attempts) === 1), JSON.stringify(codes));
  t.is((await post('/auth/login-otp', { email: a.email, otp: code })).statusCode, 401);
});

test('a code sign-in to a verified account keeps its password, sessions, keys, clients and webhook secret', async (t) => {
  const a = await registered({ verified: true });
  const res = await codeSignIn(a.email);
  const body = res.result as { access_token: string; detail?: string };
  t.is(body.detail, undefined);
  t.is(await passwordLogin(a.email), 200);
  t.is(await balance({ authorization: `Bearer ${a.session}` }), 200);
  for (const key of a.keys) t.is(await balance({ 'x-api-key': key }), 200);
  t.is(await balance({ authorization: `Bearer ${a.accessToken}` }), 200);
  t.is((await a.token()).status, 200);
  t.is((await webhookSecret(body.access_token)).secret, a.secret);
});

test('a code sign-in to a verified account keeps its embed codes, studios, invites and alert webhook URL', async (t) => {
  const a = await registered({ verified: true });
  const planted = await plantSpenders(gw, smtp, a.session);
  const userId = (await gw.app.db('users').where({ email: a.email }).first<{ id: number }>('id')).id;
  await gw.app.db.transaction((trx) => creditWallet(trx, { userId, teamId: null }, 100_000, 'grant', 'test credit', gw.app.clock()));
  const res = await codeSignIn(a.email);
  t.deepEqual(await standing(gw, planted, (res.result as { access_token: string }).access_token), {
    embed: 200, agentEmbed: 200, studioUser: 200, invite: 200, teamEmbed: 402, webhookUrl: 'https://hooks.example.com/squatter', lowBalanceThreshold: 100,
  });
});

test('a second code sign-in after the takeover takes nothing more', async (t) => {
  const a = await registered({ verified: false });
  const first = (await codeSignIn(a.email)).result as { access_token: string };
  const second = (await codeSignIn(a.email)).result as { access_token: string; detail?: string };
  t.is(second.detail, undefined);
  t.is(await balance({ authorization: `Bearer ${first.access_token}` }), 200, 'the session of the first code sign-in goes on');
});

test('verify-otp with the registration code verifies the address and keeps the password, keys and clients', async (t) => {
  const a = await registered({ verified: true });
  const user = await gw.app.db('users').where({ email: a.email }).first<{ email_verified: number | boolean; password_hash: string | null }>();
  t.truthy(user?.email_verified);
  t.not(user?.password_hash, null);
  t.is(await passwordLogin(a.email), 200);
  for (const key of a.keys) t.is(await balance({ 'x-api-key': key }), 200);
  t.is((await a.token()).status, 200);
});
