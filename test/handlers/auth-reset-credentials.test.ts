// A password reset can "sign out everywhere" (issue 16 item 1): with revoke_all_credentials, or
// always when the address had never been verified, it also revokes every API key, OAuth client
// and token and replaces the webhook secret; a reset of a never-verified address also takes back
// what could spend the wallet or hear about it (embed codes, studios, pending invites it sent, the
// alert webhook URL), which a verified account's reset never touches. Real SMTP for the codes, MariaDB.
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

const PASSWORD = 'the first password';
const post = (url: string, payload: object) => gw.server.inject({ method: 'POST', url, payload });

/** An account with a production and a sandbox key, an OAuth client with a live token, and a webhook secret. */
async function equipped(opts: { verified: boolean }) {
  const email = `reset-${crypto.randomBytes(5).toString('hex')}@example.com`;
  const reg = await post('/auth/register', { email, password: PASSWORD });
  if (reg.statusCode !== 201) throw new Error(reg.payload);
  const verification = await smtp.code(email);
  if (opts.verified) await post('/auth/verify-otp', { email, otp: verification });
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
  const embedCode = ((await gw.server.inject({ method: 'POST', url: '/app/embed-codes', headers: auth, payload: { kind: 'embed', name: 'widget', models: ['canvas-v1-fast-text-to-image'] } })).result as { code: string }).code;
  return { email, session, keys, token, accessToken, secret, embedCode };
}

const balance = (headers: Record<string, string>) => gw.server.inject({ method: 'GET', url: '/account/balance', headers }).then((r) => r.statusCode);
/** What a run through an embed code answers: 401 once the code is revoked (a live one runs, or finds no credit: 402). */
const embedRun = (code: string) => gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { 'x-embed-code': code, 'content-type': 'application/json' }, payload: { prompt: 'a lighthouse' } }).then((r) => r.statusCode);

async function reset(email: string, extra: object = {}) {
  await post('/auth/forgot-password', { email });
  const res = await post('/auth/reset-password', { email, otp: await smtp.code(email), new_password: 'the second password', ...extra });
  if (res.statusCode !== 200) throw new Error(res.payload);
  return { detail: String((res.result as { detail: string }).detail), session: ((await post('/auth/login', { email, password: 'the second password' })).result as { access_token: string }).access_token };
}

async function webhookSecret(session: string) {
  return (await gw.server.inject({ method: 'GET', url: '/app/webhook_secret', headers: { authorization: `Bearer ${session}` } })).result as { secret: string; previous: unknown[] };
}

test('by default a reset of a verified account ends sessions but keeps keys, clients, tokens and the webhook secret', async (t) => {
  const a = await equipped({ verified: true });
  const { session, detail } = await reset(a.email);
  t.notRegex(detail, /API key/);
  t.not(await embedRun(a.embedCode), 401);
  for (const key of a.keys) t.is(await balance({ 'x-api-key': key }), 200);
  t.is(await balance({ authorization: `Bearer ${a.accessToken}` }), 200);
  t.is((await a.token()).status, 200);
  t.is((await webhookSecret(session)).secret, a.secret);
});

test('revoke_all_credentials also revokes every key, embed code, client and token and replaces the webhook secret with no overlap', async (t) => {
  const a = await equipped({ verified: true });
  t.not(await embedRun(a.embedCode), 401);
  const { session, detail } = await reset(a.email, { revoke_all_credentials: true });
  t.regex(detail, /API key, embed code/);
  t.is(await embedRun(a.embedCode), 401, 'an embed code spends the wallet: whoever took the account over may have planted one');
  for (const key of a.keys) t.is(await balance({ 'x-api-key': key }), 401);
  t.is(await balance({ authorization: `Bearer ${a.accessToken}` }), 401);
  t.is((await a.token()).status, 401);
  const now = await webhookSecret(session);
  t.not(now.secret, a.secret);
  t.deepEqual(now.previous, []);
});

test('revoke_all_credentials revokes the team keys the account created, not those another member created', async (t) => {
  const a = await equipped({ verified: true });
  const loginOf = async (email: string) => ({ authorization: `Bearer ${((await post('/auth/login', { email, password: PASSWORD })).result as { access_token: string }).access_token}` });
  const auth = await loginOf(a.email);
  const team = (await gw.server.inject({ method: 'POST', url: '/app/teams', headers: auth, payload: { name: 'Reset team' } })).result as { id: number };
  const teamKey = async (headers: Record<string, string>) => ((await gw.server.inject({ method: 'POST', url: `/app/teams/${team.id}/keys`, headers, payload: { name: 'tk', is_test: true } })).result as { key: string }).key;
  // another owner of the team, with a team key of their own making
  const other = await equipped({ verified: true });
  const otherId = (await gw.app.db('users').where({ email: other.email }).first<{ id: number }>('id')).id;
  await gw.app.db('team_members').insert({ team_id: team.id, user_id: otherId, role: 'owner', created_at: Date.now() });
  const otherAuth = await loginOf(other.email);
  const [mine, theirs] = [await teamKey(auth), await teamKey(otherAuth)];

  await reset(a.email, { revoke_all_credentials: true });
  t.is(await balance({ 'x-api-key': mine }), 401, "the account's team key is revoked: it may have been planted");
  t.is(await balance({ 'x-api-key': theirs }), 200, "another member's team key keeps working");
});

test('a reset of an address that was never verified revokes everything without being asked', async (t) => {
  const a = await equipped({ verified: false });
  const { session } = await reset(a.email);
  for (const key of a.keys) t.is(await balance({ 'x-api-key': key }), 401);
  t.is(await balance({ authorization: `Bearer ${a.accessToken}` }), 401);
  t.is((await a.token()).status, 401);
  t.not((await webhookSecret(session)).secret, a.secret);
});

test.serial('a reset of a never-verified address whose take-back is picked as a deadlock victim is retried whole: the new password works, the code is used once, everything is taken back once', async (t) => {
  const a = await equipped({ verified: false });
  const userId = (await gw.app.db('users').where({ email: a.email }).first<{ id: number }>('id')).id;
  // the new webhook secret's insert, late in the take-back: the first attempt fails there
  const victim = await deadlockOnce(gw.app.db, 'webhook_secrets', userId);
  t.teardown(() => victim.drop());
  await post('/auth/forgot-password', { email: a.email });
  const code = await smtp.code(a.email);
  const res = await post('/auth/reset-password', { email: a.email, otp: code, new_password: 'the second password' });
  t.is(res.statusCode, 200, res.payload);
  t.is(await victim.seen(), 3, 'the first attempt was the victim (at its production secret), the second committed (a production and a sandbox secret)');
  t.regex(String((res.result as { detail: string }).detail), /API key/);
  t.is((await post('/auth/login', { email: a.email, password: PASSWORD })).statusCode, 401);
  const session = ((await post('/auth/login', { email: a.email, password: 'the second password' })).result as { access_token: string }).access_token;
  t.is(await balance({ authorization: `Bearer ${a.session}` }), 401);
  for (const key of a.keys) t.is(await balance({ 'x-api-key': key }), 401);
  t.is((await a.token()).status, 401);
  for (const isTest of [false, true]) {
    t.is(Number((await gw.app.db('webhook_secrets').where({ user_id: userId, is_test: isTest }).count({ n: '*' }).first())?.n), 1, 'one new secret of each mode, none from the rolled-back attempt');
  }
  t.not((await webhookSecret(session)).secret, a.secret);
  // the code was used by the attempt that committed only: one guess counted, and it works no more
  const codes = await gw.app.db('otp_codes').where({ user_id: userId, purpose: 'reset' }).select('attempts', 'consumed_at');
  t.deepEqual(codes.map((c: { attempts: number; consumed_at: unknown }) => [Number(c.attempts), c.consumed_at !== null]), [[1, true]]);
  t.is((await post('/auth/reset-password', { email: a.email, otp: code, new_password: 'a third password' })).statusCode, 401);
});

test('a reset of an address that was never verified also revokes the embed codes, disables the studios, revokes the invites sent and removes the alert webhook URL', async (t) => {
  const a = await equipped({ verified: false });
  const planted = await plantSpenders(gw, smtp, a.session);
  const { session, detail } = await reset(a.email);
  t.deepEqual(await standing(gw, planted, session), TAKEN_BACK);
  t.regex(detail, /3 embed codes were revoked/);
  t.regex(detail, /1 studio was disabled/);
  t.regex(detail, /1 pending team invite was revoked/);
  t.regex(detail, /alert webhook URL was removed/);
});

test('a reset of a verified account keeps its embed codes, studios, invites and alert webhook URL', async (t) => {
  const a = await equipped({ verified: true });
  const planted = await plantSpenders(gw, smtp, a.session);
  const userId = (await gw.app.db('users').where({ email: a.email }).first<{ id: number }>('id')).id;
  await gw.app.db.transaction((trx) => creditWallet(trx, { userId, teamId: null }, 100_000, 'grant', 'test credit', gw.app.clock()));
  const { session, detail } = await reset(a.email);
  t.notRegex(detail, /embed code|studio|invite|alert/);
  t.deepEqual(await standing(gw, planted, session), {
    embed: 200, agentEmbed: 200, studioUser: 200, invite: 200, teamEmbed: 402, webhookUrl: 'https://hooks.example.com/squatter', lowBalanceThreshold: 100,
  });
});

test('revoke_all_credentials must be a boolean', async (t) => {
  const res = await post('/auth/reset-password', { email: 'nobody@example.com', otp: '123456', new_password: 'the second password', revoke_all_credentials: 'yes' });
  t.is(res.statusCode, 422);
});

test('a reset with an emailed code also ends the sign-in and reset links staff made and nobody used: 410', async (t) => {
  const a = await equipped({ verified: true });
  const staff = await equipped({ verified: true });
  await gw.app.db('users').where({ email: staff.email }).update({ role: 'support' });
  const auth = { authorization: `Bearer ${staff.session}` };
  const tokenOf = async (url: string) => {
    const res = await gw.server.inject({ method: 'POST', url, headers: auth, payload: { email: a.email, reason: 'ticket 9' } });
    t.is(res.statusCode, 200, res.payload);
    return new URLSearchParams(String((res.result as { url: string }).url).split('?')[1]).get('token')!;
  };
  const login = await tokenOf('/auth/admin_support_login_link');
  const resetLink = await tokenOf('/auth/admin_password_reset_link');
  await reset(a.email);
  t.is((await post('/auth/support-login', { token: login })).statusCode, 410, 'the sign-in link would have opened a session the reset did not end');
  t.is((await post('/auth/support-reset-password', { token: resetLink, new_password: 'set by whoever holds the link' })).statusCode, 410);
  t.is((await post('/auth/login', { email: a.email, password: 'the second password' })).statusCode, 200, 'the owner\'s new password stands');
});
