// Team invites send mail to whatever address the body names, so they share the code mails'
// budgets (AUTH_RATE_MAILS_PER_EMAIL per recipient, AUTH_RATE_PER_ADDRESS per client address,
// per window): nobody can flood a mailbox, or send mail at volume, through invites. MariaDB.
import test from 'ava';
import crypto from 'node:crypto';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';

let gw: TestGateway;
test.before(async () => {
  gw = await startGateway({ queue: 'memory', env: { AUTH_RATE_MAILS_PER_EMAIL: '3', AUTH_RATE_PER_ADDRESS: '6' } });
});
test.after.always(async () => {
  await gw?.stop();
});

async function teamOf(session: string): Promise<number> {
  const res = await gw.server.inject({ method: 'POST', url: '/app/teams', headers: { authorization: `Bearer ${session}` }, payload: { name: 'Invites' } });
  if (res.statusCode !== 201) throw new Error(res.payload);
  return (res.result as { id: number }).id;
}

function invite(session: string, teamId: number, email: string, from: string) {
  return gw.server.inject({
    method: 'POST', url: `/app/teams/${teamId}/invites`, remoteAddress: from,
    headers: { authorization: `Bearer ${session}` }, payload: { email, role: 'viewer' },
  });
}

const newEmail = () => `invitee-${crypto.randomBytes(5).toString('hex')}@example.com`;

test('invites to one address stop at its mail budget, whoever sends them and from wherever', async (t) => {
  const a = await newAccount(gw);
  const b = await newAccount(gw);
  const [teamA, teamB] = [await teamOf(a.session), await teamOf(b.session)];
  const victim = newEmail();
  t.is((await invite(a.session, teamA, victim, '10.30.0.1')).statusCode, 201);
  t.is((await invite(b.session, teamB, victim, '10.30.0.2')).statusCode, 201);
  // the one-time-code route counts against the same recipient budget
  t.is((await gw.server.inject({ method: 'POST', url: '/auth/request-otp', remoteAddress: '10.30.0.3', payload: { email: victim } })).statusCode, 200);
  const refused = await invite(a.session, teamA, victim, '10.30.0.4');
  t.is(refused.statusCode, 429);
  t.truthy(refused.headers['retry-after']);
  t.is(typeof (refused.result as { detail?: unknown }).detail, 'string');
  // nothing was stored for the refused one: team A has one pending invite
  const list = await gw.server.inject({ method: 'GET', url: `/app/teams/${teamA}/invites`, headers: { authorization: `Bearer ${a.session}` } });
  t.is((list.result as unknown[]).length, 1);
});

test('one client address sends at most its budget of invites, whatever the recipients', async (t) => {
  const a = await newAccount(gw);
  const team = await teamOf(a.session);
  for (let i = 0; i < 6; i++) t.is((await invite(a.session, team, newEmail(), '10.31.0.1')).statusCode, 201);
  t.is((await invite(a.session, team, newEmail(), '10.31.0.1')).statusCode, 429);
  t.is((await invite(a.session, team, newEmail(), '10.31.0.2')).statusCode, 201);
});
