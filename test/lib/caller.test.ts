// lib/caller.ts: the team permission table, and resolveOwner (resolveOwnerAccess: with the caller's team permissions).
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { can, requirePermission, resolveOwner, resolveOwnerAccess, roleScopes, TEAM_KEY_PERMISSIONS, TEAM_NOT_FOUND, TEAM_PERMISSION_SCOPES, TEAM_PERMISSIONS, TEAM_ROLES } from '../../lib/caller.ts';
import type { TeamPermission } from '../../lib/caller.ts';
import { ForbiddenError, NotFoundError } from '../../lib/errors.ts';
import { loadSpecDocument } from '../../spec/load.ts';

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

/** Per operation of the committed spec: its `x-team-permission` and the scopes its OAuth2 security asks. */
function specOperations(): Array<{ operationId: string; permission: unknown; scopes: string[] }> {
  const doc = loadSpecDocument(path.join(import.meta.dirname, '..', '..', 'spec', 'v1')) as { paths: Record<string, Record<string, unknown>>; security?: unknown };
  const ops = [];
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) {
      const o = op as { operationId?: string; security?: Array<Record<string, string[]>>; 'x-team-permission'?: unknown };
      if (typeof o?.operationId !== 'string') continue;
      const security = o.security ?? (doc.security as Array<Record<string, string[]>> | undefined) ?? [];
      ops.push({ operationId: o.operationId, permission: o['x-team-permission'], scopes: security.flatMap((s) => s.OAuth2 ?? []) });
    }
  }
  return ops;
}

test('each team permission\'s scopes are exactly those of the operations that declare it, and keys:manage for those only the team routes ask', (t) => {
  const ops = specOperations();
  const declared = new Map<TeamPermission, Set<string>>();
  for (const op of ops) {
    if (op.permission === undefined) continue;
    const p = op.permission as TeamPermission;
    declared.set(p, new Set([...(declared.get(p) ?? []), ...op.scopes]));
  }
  for (const p of TEAM_PERMISSIONS) {
    const scopes = declared.get(p);
    if (scopes) t.deepEqual([...TEAM_PERMISSION_SCOPES[p]].sort(), [...scopes].sort(), p);
    else t.deepEqual(TEAM_PERMISSION_SCOPES[p], ['keys:manage'], p);
  }
  const teamRoutes = ['createTeamInvite', 'changeTeamMemberRole', 'removeTeamMember', 'revokeTeamInvite', 'renameTeam', 'deleteTeam'];
  for (const id of teamRoutes) t.deepEqual(ops.find((o) => o.operationId === id)?.scopes, ['keys:manage'], id);
});

test('granting a role takes every scope of its permissions', (t) => {
  t.deepEqual(roleScopes('viewer'), ['generate:read', 'account:read']);
  t.deepEqual(roleScopes('billing'), ['generate:read', 'account:read', 'keys:manage']);
  for (const role of ['developer', 'admin', 'owner'] as const) t.deepEqual(new Set(roleScopes(role)), new Set(['generate:write', 'files:write', 'generate:read', 'account:read', 'keys:manage']), role);
});

test('the teams page\'s table of the scopes that grant each role is roleScopes', (t) => {
  const page = fs.readFileSync(new URL('../../docs/api/teams.md', import.meta.url), 'utf8');
  const rows = new Map<string, string[]>();
  for (const line of page.split('\n')) {
    const m = /^\s*\| ([a-z]+) \| (`.*`) \|$/.exec(line);
    if (m && (TEAM_ROLES as readonly string[]).includes(m[1]!)) rows.set(m[1]!, m[2]!.split(', ').map((c) => c.replace(/`/g, '')));
  }
  t.deepEqual([...rows.keys()].sort(), [...TEAM_ROLES].sort());
  for (const role of TEAM_ROLES) t.deepEqual(new Set(rows.get(role)), new Set(roleScopes(role)), role);
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
