// lib/caller.ts: the team permission table, and resolveOwner (resolveOwnerAccess: with the caller's team permissions).
import test from 'ava';
import fs from 'node:fs';
import { can, requirePermission, resolveOwner, resolveOwnerAccess, TEAM_KEY_PERMISSIONS, TEAM_NOT_FOUND, TEAM_PERMISSIONS, TEAM_ROLES } from '../../lib/caller.ts';
import { ForbiddenError, NotFoundError } from '../../lib/errors.ts';

// The permission table of the teams page (docs/api/teams.md) is the one lib/caller.ts enforces.

test('the teams page\'s permission table matches can() cell by cell', (t) => {
  const readme = fs.readFileSync(new URL('../../docs/api/teams.md', import.meta.url), 'utf8');
  const header = readme.split('\n').find((l) => l.startsWith('| Permission |'));
  t.truthy(header);
  t.deepEqual(header!.split('|').slice(2, -1).map((c) => c.trim()), [...TEAM_ROLES]);
  const seen = new Set<string>();
  for (const line of readme.split('\n')) {
    const m = /^\| `([a-z_]+)`[^|]*\|(.*)\|$/.exec(line);
    if (!m || !(TEAM_PERMISSIONS as readonly string[]).includes(m[1]!)) continue;
    const permission = m[1] as (typeof TEAM_PERMISSIONS)[number];
    seen.add(permission);
    const cells = m[2]!.split('|').map((c) => c.trim());
    TEAM_ROLES.forEach((role, i) => t.is(cells[i] === 'yes', can(role, permission), `${permission} for ${role}`));
  }
  t.deepEqual([...seen].sort(), [...TEAM_PERMISSIONS].sort());
});

test('a refusal is a 403 naming the missing permission', (t) => {
  const err = t.throws(() => requirePermission('viewer', 'generate'), { instanceOf: ForbiddenError });
  t.is(err?.status, 403);
  t.regex(err?.message ?? '', /"generate"/);
  t.notThrows(() => requirePermission('owner', 'delete_team'));
});

test('only owners may delete a team or manage owners, and every role may read history', (t) => {
  for (const role of TEAM_ROLES) {
    t.is(can(role, 'delete_team'), role === 'owner');
    t.is(can(role, 'manage_owners'), role === 'owner');
    t.true(can(role, 'read_history'));
  }
});

// resolveOwner: the one place `team_id` becomes an owner.

const caller = { userId: 42 };

test('no team_id: the caller\'s personal account', async (t) => {
  t.deepEqual(await resolveOwner({}, caller, undefined), { userId: 42, teamId: null });
  t.deepEqual(await resolveOwner({}, caller, null), { userId: 42, teamId: null });
});

test('a team_id before teams are wired in is 404 team not found', async (t) => {
  const err = await t.throwsAsync(resolveOwner({}, caller, 3), { instanceOf: NotFoundError });
  t.is(err?.message, TEAM_NOT_FOUND);
});

test('a member acts for the team; a non-member gets the same 404 as an unknown team', async (t) => {
  const teams = { membership: async (teamId: number, userId: number) => (teamId === 3 && userId === 42 ? { role: 'developer' } : undefined) };
  t.deepEqual(await resolveOwner({ teams }, caller, 3), { userId: 42, teamId: 3 });
  const err = await t.throwsAsync(resolveOwner({ teams }, caller, 4), { instanceOf: NotFoundError });
  t.is(err?.message, TEAM_NOT_FOUND);
});

test('a member whose role lacks the operation\'s team permission gets 403 naming it; one that has it acts for the team', async (t) => {
  const teams = { membership: async () => ({ role: 'viewer' }) };
  t.deepEqual(await resolveOwner({ teams }, caller, 3, 'read_history'), { userId: 42, teamId: 3 });
  const err = await t.throwsAsync(resolveOwner({ teams }, caller, 3, 'generate'), { instanceOf: ForbiddenError });
  t.regex(err?.message ?? '', /lacks the "generate" permission/);
});

test('a membership with a role the permission table does not know is treated as no membership', async (t) => {
  const teams = { membership: async () => ({ role: 'superuser' }) };
  await t.throwsAsync(resolveOwner({ teams }, caller, 3), { instanceOf: NotFoundError });
});

test('a team_id no team can have (Infinity from 1e309, 0, negative, fractional) is 404 without asking the database', async (t) => {
  let asked = 0;
  const teams = { membership: async () => { asked += 1; return { role: 'owner' }; } };
  for (const id of [Infinity, 0, -3, 1.5, 2 ** 60]) {
    const err = await t.throwsAsync(resolveOwner({ teams }, caller, id), { instanceOf: NotFoundError });
    t.is(err?.message, TEAM_NOT_FOUND);
  }
  t.is(asked, 0);
});

test('a team API key acts for its team without a membership lookup, with or without team_id', async (t) => {
  let asked = 0;
  const teams = { membership: async () => { asked++; return undefined; } };
  const key = { userId: 42, keyTeamId: 9 };
  t.deepEqual(await resolveOwner({ teams }, key, undefined, 'generate'), { userId: 42, teamId: 9 });
  t.deepEqual(await resolveOwner({ teams }, key, 9, 'read_history'), { userId: 42, teamId: 9 });
  t.deepEqual(await resolveOwner({ teams }, key, 9, 'manage_keys'), { userId: 42, teamId: 9 });
  t.is(asked, 0, 'the key belongs to the team: its creator\'s membership is not asked');
});

test('a team API key naming another team, or on an operation without a team scope, is 403 saying why', async (t) => {
  const key = { userId: 42, keyTeamId: 9 };
  const other = await t.throwsAsync(resolveOwner({}, key, 10, 'generate'), { instanceOf: ForbiddenError });
  t.is(other?.message, 'this API key belongs to team 9 and acts for no other team');
  const personal = await t.throwsAsync(resolveOwner({}, key, undefined), { instanceOf: ForbiddenError });
  t.regex(personal?.message ?? '', /belongs to a team and acts only for it; this operation acts on a personal account/);
  const invite = await t.throwsAsync(resolveOwner({}, key, 9, 'invite'), { instanceOf: ForbiddenError });
  t.regex(invite?.message ?? '', /a team API key lacks the "invite" permission/);
});

test('with the owner comes what the caller may do in its team: its role\'s permissions, a team key\'s, none asked for its own account', async (t) => {
  const teams = { membership: async () => ({ role: 'billing' }) };
  t.deepEqual(await resolveOwnerAccess({ teams }, caller, undefined), { owner: { userId: 42, teamId: null }, teamPermissions: null });
  t.deepEqual(await resolveOwnerAccess({ teams }, caller, 3, 'read_history'), { owner: { userId: 42, teamId: 3 }, teamPermissions: ['read_history', 'read_balance', 'top_up'] });
  t.deepEqual(await resolveOwnerAccess({ teams }, { userId: 42, keyTeamId: 9 }, undefined, 'read_history'), { owner: { userId: 42, teamId: 9 }, teamPermissions: TEAM_KEY_PERMISSIONS });
});
