// A sandbox key does only sandbox things: it may not manage teams (create, rename, delete, members,
// invites, leaving, joining) or change alert settings, whose budget applies to production submits.
// Each is 403 with a detail saying what it may not do, and nothing changes; the account's
// production key and session do the same things. On MariaDB, through the real spec and handlers.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';

let gw: TestGateway;
test.before(async () => {
  gw = await startGateway({ queue: 'memory' });
});
test.after.always(async () => {
  await gw?.stop();
});

test('a sandbox key may not manage teams; a production key may', async (t) => {
  const owner = await newAccount(gw, 0);
  const member = await newAccount(gw, 0);
  const team = await callOperation<{ id: number }>(gw, 'createTeam', { as: owner.session, body: { name: 'Crew' } });
  t.is(team.status, 201);
  const teamId = team.body.id;
  await gw.app.db('team_members').insert({ team_id: teamId, user_id: member.userId, role: 'developer', created_at: Date.now() });
  const invite = await callOperation<{ id: number }>(gw, 'createTeamInvite', { as: owner.session, params: { team_id: teamId }, body: { email: 'later@example.com', role: 'viewer' } });
  t.is(invite.status, 201, JSON.stringify(invite.body));

  const attempts: Array<[string, Parameters<typeof callOperation>[2], RegExp]> = [
    ['createTeam', { body: { name: 'Another' } }, /may not create teams/],
    ['renameTeam', { params: { team_id: teamId }, body: { name: 'Renamed' } }, /may not rename teams/],
    ['changeTeamMemberRole', { params: { team_id: teamId, user_id: member.userId }, body: { role: 'admin' } }, /may not change team members' roles/],
    ['removeTeamMember', { params: { team_id: teamId, user_id: member.userId } }, /may not remove team members/],
    ['createTeamInvite', { params: { team_id: teamId }, body: { email: 'someone@example.com', role: 'admin' } }, /may not invite team members/],
    ['revokeTeamInvite', { params: { team_id: teamId, invite_id: invite.body.id } }, /may not revoke team invites/],
    ['acceptTeamInvite', { body: { token: 'mgi_' + 'a'.repeat(43) } }, /may not accept team invites/],
    ['leaveTeam', { params: { team_id: teamId } }, /may not leave teams/],
    ['deleteTeam', { params: { team_id: teamId } }, /may not delete teams/],
  ];
  for (const [operationId, opts, what] of attempts) {
    const res = await callOperation<{ detail: string }>(gw, operationId, { ...opts, as: owner.testKey });
    t.is(res.status, 403, operationId);
    t.regex(res.body.detail, what, operationId);
    t.regex(res.body.detail, /use a production key or a session/, operationId);
  }
  // nothing changed
  const members = await callOperation<Array<{ user_id: number; role: string }>>(gw, 'listTeamMembers', { as: owner.session, params: { team_id: teamId } });
  t.deepEqual(members.body.map((m) => [m.user_id, m.role]).sort(), [[owner.userId, 'owner'], [member.userId, 'developer']].sort());
  const teams = await callOperation<Array<{ id: number; name: string }>>(gw, 'listTeams', { as: owner.session });
  t.deepEqual(teams.body.map((x) => x.name), ['Crew']);
  t.is((await callOperation<unknown[]>(gw, 'listTeamInvites', { as: owner.session, params: { team_id: teamId } })).body.length, 1);

  // the production key does what the sandbox key could not
  t.is((await callOperation(gw, 'renameTeam', { as: owner.liveKey, params: { team_id: teamId }, body: { name: 'Renamed' } })).status, 200);
  t.is((await callOperation(gw, 'deleteTeam', { as: owner.liveKey, params: { team_id: teamId } })).status, 200);
});

test('a sandbox key may not change alert settings; it may read them, and a production key may change them', async (t) => {
  const acct = await newAccount(gw, 0);
  const before = await callOperation(gw, 'getAlertSettings', { as: acct.testKey });
  t.is(before.status, 200);
  const res = await callOperation<{ detail: string }>(gw, 'updateAlertSettings', { as: acct.testKey, body: { monthly_budget: 1, monthly_budget_mode: 'hard' } });
  t.is(res.status, 403);
  t.regex(res.body.detail, /may not change alert settings/);
  t.deepEqual((await callOperation(gw, 'getAlertSettings', { as: acct.testKey })).body, before.body, 'nothing changed');
  t.is((await callOperation(gw, 'updateAlertSettings', { as: acct.liveKey, body: { monthly_budget: 1000 } })).status, 200);
});
