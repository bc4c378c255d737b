// REGISTRATION=closed over HTTP: /auth/register answers 403 to an address no team has invited,
// and lets an invited address register (then verify, sign in and accept the invite); a revoked
// invite opens nothing. The sign-up credit still waits for the verified address.
import test from 'ava';
import { Writable } from 'node:stream';
import pino from 'pino';
import { startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { uniqueName, waitFor } from '../helpers/services.ts';
import { createUser } from '../../db/users.ts';
import { hashPassword } from '../../lib/secrets.ts';
import { loadConfig, ConfigError } from '../../config.ts';
import { LOGGED_MAIL_MESSAGE } from '../../lib/mail.ts';
import { startProvider } from '../helpers/oidc.ts';
import type { LocalProvider, TestClient } from '../helpers/oidc.ts';

const WEB: TestClient = { client_id: 'gateway-web', client_secret: 'gateway-web-secret', redirect_uri: 'http://gateway.test/auth/google_callback' };
let op: LocalProvider;

const PASSWORD = 'correct horse battery';
let gw: TestGateway;
const lines: string[] = [];

test.before(async () => {
  const sink = new Writable({ write(chunk: Buffer, _enc, done) { lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)); done(); } });
  op = await startProvider([WEB]);
  gw = await startGateway({
    queue: 'memory',
    env: { REGISTRATION: 'closed', SIGNUP_CREDIT: '500', MAIL_TO_LOG: 'on', GOOGLE_CLIENT_ID: WEB.client_id, GOOGLE_CLIENT_SECRET: WEB.client_secret, GOOGLE_ISSUER: op.issuer },
    log: pino({ level: 'info' }, sink),
  });
});
test.after.always(async () => {
  await gw?.stop();
  await op?.close();
});

const post = (url: string, payload: object, headers: Record<string, string> = {}) => gw.server.inject({ method: 'POST', url, payload, headers });

/** The text of the last mail logged for this address that contains `marker` (no SMTP_URL: mails go to the log). */
function loggedMail(to: string, marker: string): Promise<string> {
  return waitFor(() => lines.map((l) => JSON.parse(l) as { msg: string; mail?: { to: string; text: string } })
    .filter((l) => l.msg === LOGGED_MAIL_MESSAGE && l.mail?.to === to && l.mail.text.includes(marker)).at(-1)?.mail?.text, { what: `a mail to ${to}` });
}

/** An account made the way an operator would on a closed gateway (not through /auth/register), signed in. */
async function existingOwner(): Promise<{ auth: Record<string, string>; teamId: number }> {
  const email = `${uniqueName('owner')}@example.com`;
  await createUser(gw.app.db, email, await hashPassword(PASSWORD), Date.now());
  const login = await post('/auth/login', { email, password: PASSWORD });
  const auth = { authorization: `Bearer ${(login.result as { access_token: string }).access_token}` };
  const team = await post('/app/teams', { name: 'Closed' }, auth);
  return { auth, teamId: (team.result as { id: number }).id };
}

test('REGISTRATION=closed: an address nobody invited gets 403 with a clear detail, and no account', async (t) => {
  const email = `${uniqueName('stranger')}@example.com`;
  const res = await post('/auth/register', { email, password: PASSWORD });
  t.is(res.statusCode, 403);
  const body = JSON.parse(res.payload) as { detail: string };
  t.regex(body.detail, /registration is closed on this gateway/);
  t.regex(body.detail, /invite/);
  t.is(await gw.app.db('users').where({ email }).first(), undefined);
});

test('REGISTRATION=closed: an invited address registers, gets the sign-up credit once verified, and joins the team', async (t) => {
  const { auth, teamId } = await existingOwner();
  const email = `${uniqueName('invitee')}@example.com`;
  t.is((await post(`/app/teams/${teamId}/invites`, { email, role: 'developer' }, auth)).statusCode, 201);
  const token = /invite token is (mgi_[A-Za-z0-9_-]+)/.exec(await loggedMail(email, 'invite token'))![1]!;

  // the address is compared as accounts are: trimmed, case-insensitively
  const registered = await post('/auth/register', { email: `  ${email.toUpperCase()} `, password: PASSWORD });
  t.is(registered.statusCode, 201, registered.payload);
  const session = { authorization: `Bearer ${((await post('/auth/login', { email, password: PASSWORD })).result as { access_token: string }).access_token}` };
  const balance = async () => (JSON.parse((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: session })).payload) as { balance: number }).balance;
  t.is(await balance(), 0, 'no credit before the address is verified');
  const otp = /code is (\d{6})/.exec(await loggedMail(email, 'code is'))![1]!;
  t.is((await post('/auth/verify-otp', { email, otp })).statusCode, 200);
  t.is(await balance(), 500, 'the sign-up credit comes with the verification');

  const accepted = await post('/app/team_invites/accept', { token }, session);
  t.is(accepted.statusCode, 200, accepted.payload);
  t.like(accepted.result as object, { id: teamId, role: 'developer' });
  // the invite is used up: registering the address again is the closed door (403), not a 409
  // that would tell a stranger the account exists
  t.is((await post('/auth/register', { email, password: PASSWORD })).statusCode, 403);
});

test('REGISTRATION=closed: a revoked invite opens nothing', async (t) => {
  const { auth, teamId } = await existingOwner();
  const email = `${uniqueName('revoked')}@example.com`;
  const invite = (await post(`/app/teams/${teamId}/invites`, { email, role: 'developer' }, auth)).result as { id: number };
  t.is((await gw.server.inject({ method: 'DELETE', url: `/app/teams/${teamId}/invites/${invite.id}`, headers: auth })).statusCode, 200);
  t.is((await post('/auth/register', { email, password: PASSWORD })).statusCode, 403);
});

test('REGISTRATION=closed: Google sign-in creates an account only for an invited address, and still signs existing accounts in', async (t) => {
  const mobile = async (email: string) => {
    const sub = uniqueName('sub');
    op.accounts.set(sub, { email, email_verified: true });
    return gw.server.inject({ method: 'POST', url: '/auth/google/mobile', payload: { id_token: await op.idTokenFor(WEB, sub) } });
  };
  const stranger = `${uniqueName('gstranger')}@example.com`;
  const refused = await mobile(stranger);
  t.is(refused.statusCode, 403, refused.payload);
  t.regex((JSON.parse(refused.payload) as { detail: string }).detail, /registration is closed on this gateway/);
  t.is(await gw.app.db('users').where({ email: stranger }).first(), undefined);

  const { auth, teamId } = await existingOwner();
  const invited = `${uniqueName('ginvited')}@example.com`;
  t.is((await post(`/app/teams/${teamId}/invites`, { email: invited, role: 'developer' }, auth)).statusCode, 201);
  t.is((await mobile(invited)).statusCode, 200);

  const existing = `${uniqueName('gexisting')}@example.com`;
  await createUser(gw.app.db, existing, null, Date.now(), { emailVerified: true });
  t.is((await mobile(existing)).statusCode, 200, 'an existing account is a sign-in, not a registration');
});

test('REGISTRATION takes open or closed; anything else stops start-up naming the variable', (t) => {
  t.is(loadConfig({}).registration, 'open');
  t.is(loadConfig({ REGISTRATION: 'closed' }).registration, 'closed');
  t.throws(() => loadConfig({ REGISTRATION: 'invite-only' }), { instanceOf: ConfigError, message: /^invalid configuration: REGISTRATION: must be one of \[open, closed\]/ });
});
