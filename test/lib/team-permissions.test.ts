// The permission table in the README is the one lib/team-permissions.ts enforces.
import test from 'ava';
import { ForbiddenError } from '../../lib/errors.ts';
import fs from 'node:fs';
import { can, requirePermission, TEAM_PERMISSIONS, TEAM_ROLES } from '../../lib/team-permissions.ts';

test('the README permission table matches can() cell by cell', (t) => {
  const readme = fs.readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
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
