// db/teams.ts and the team wallet against real MariaDB (and the embedded SQLite for the
// migration): the last-owner rule under concurrency, invites used once, holds that never
// overdraw a small team wallet.
import test from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createDb, migrate } from '../../db/knex.ts';
import type { Db } from '../../db/knex.ts';
import { freshDatabase, uniqueName } from '../helpers/services.ts';
import {
  acceptInvite, changeMemberRole, createInvite, createTeam, deleteTeam, InviteEmailMismatchError, InviteInvalidError, LastOwnerError,
  listMembers, listMyTeams, membership, removeMember, TeamNotEmptyError, INVITE_TTL_MS,
} from '../../db/teams.ts';
import { creditTeam, creditWallet, debitWallet, holdFor, holdTeam, releaseTeam, settleTeam } from '../../db/wallet/moves.ts';
import { getTeamBalance } from '../../db/wallet/ledger.ts';
import { ledgerCheckedAfterEach } from '../helpers/ledger.ts';
import { InsufficientCreditError } from '../../db/errors.ts';
import { sha256Hex } from '../../lib/secrets.ts';
import { requirePermission } from '../../lib/caller.ts';
import type { TeamRole } from '../../lib/caller.ts';
import { ForbiddenError } from '../../lib/errors.ts';

let db: Db;
ledgerCheckedAfterEach(test, () => db);
let drop: () => Promise<void>;

test.before(async () => {
  const fresh = await freshDatabase(undefined, { migrated: true });
  drop = fresh.drop;
  db = createDb({ databaseUrl: fresh.url, sqliteFile: '', poolMax: 20 });
  await migrate(db);
});
test.after.always(async () => {
  await db?.destroy();
  await drop?.();
});

async function user(email = `${uniqueName('u')}@example.com`): Promise<{ id: number; email: string }> {
  const [id] = await db('users').insert({ email, created_at: Date.now() });
  return { id: Number(id), email };
}

async function memberOf(teamId: number, role: 'owner' | 'admin' | 'developer' | 'billing' | 'viewer') {
  const u = await user();
  await db('team_members').insert({ team_id: teamId, user_id: u.id, role, created_at: Date.now() });
  return u;
}

test('the migration runs up and down on the embedded SQLite', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-teams-'));
  const lite = createDb({ databaseUrl: undefined, sqliteFile: path.join(dir, 'db.sqlite') });
  t.teardown(async () => {
    await lite.destroy();
    await fs.rm(dir, { recursive: true, force: true });
  });
  await migrate(lite);
  t.true(await lite.schema.hasColumn('credit_transactions', 'team_id'));
  t.true(await lite.schema.hasColumn('api_keys', 'team_id'));
  t.true(await lite.schema.hasColumn('predictions', 'team_id'));
  // Roll back this migration by name: later migrations stay applied, so it cannot rely on being the last.
  await lite.migrate.down({ migrationSource: (await import('../../db/migrations/index.ts')).migrationSource, name: '20261123_0701_teams' });
  t.false(await lite.schema.hasTable('teams'));
  t.false(await lite.schema.hasColumn('api_keys', 'team_id'));
});

test('the creator becomes the owner and a deleted team is no membership at all', async (t) => {
  const u = await user();
  const team = await createTeam(db, u.id, 'Studio', Date.now());
  t.is(team.role, 'owner');
  t.is(await membership(db, team.id, u.id), 'owner');
  t.deepEqual((await listMyTeams(db, u.id)).map((x) => x.id), [team.id]);
  t.true(await deleteTeam(db, team.id, Date.now()));
  t.is(await membership(db, team.id, u.id), undefined);
  t.deepEqual(await listMyTeams(db, u.id), []);
  t.false(await deleteTeam(db, team.id, Date.now()));
});

test('a team with credit or held credit cannot be deleted', async (t) => {
  const u = await user();
  const team = await createTeam(db, u.id, 'Rich', Date.now());
  const payer = { userId: u.id, teamId: team.id };
  await db.transaction((trx) => creditWallet(trx, payer, 5, 'grant', 'test credit', Date.now()));
  await t.throwsAsync(deleteTeam(db, team.id, Date.now()), { instanceOf: TeamNotEmptyError });
  // balance 0, held 3: a hold of 3 and a deduction of the other 2
  await db.transaction((trx) => holdFor(trx, payer, 3, { predictionId: uniqueName('p').slice(0, 32), model: 'm', now: Date.now() }));
  await db.transaction((trx) => debitWallet(trx, payer, 2, 'test', Date.now()));
  t.deepEqual(await getTeamBalance(db, team.id), { balance: 0, held: 3 });
  await t.throwsAsync(deleteTeam(db, team.id, Date.now()), { instanceOf: TeamNotEmptyError });
  t.is(await membership(db, team.id, u.id), 'owner');
});

test('a team whose wallet owes credit cannot be deleted: the debt would go with it', async (t) => {
  const u = await user();
  const team = await createTeam(db, u.id, 'Owing', Date.now());
  const payer = { userId: u.id, teamId: team.id };
  // a refund of a purchase already spent, taken back with allow_negative
  await db.transaction((trx) => debitWallet(trx, payer, 7, 'refund', Date.now(), true));
  t.deepEqual(await getTeamBalance(db, team.id), { balance: -7, held: 0 });
  await t.throwsAsync(deleteTeam(db, team.id, Date.now()), { instanceOf: TeamNotEmptyError, message: /owes 7 credits.*top it up to 0/ });
  t.is(await membership(db, team.id, u.id), 'owner');
  await db.transaction((trx) => creditWallet(trx, payer, 7, 'grant', 'pays the debt', Date.now()));
  t.true(await deleteTeam(db, team.id, Date.now()));
});

test('the last owner can neither leave nor be demoted', async (t) => {
  const u = await user();
  const team = await createTeam(db, u.id, 'Solo', Date.now());
  await t.throwsAsync(removeMember(db, team.id, u.id, Date.now()), { instanceOf: LastOwnerError });
  await t.throwsAsync(changeMemberRole(db, team.id, u.id, 'admin', Date.now()), { instanceOf: LastOwnerError });
  const other = await memberOf(team.id, 'owner');
  t.is(await changeMemberRole(db, team.id, u.id, 'admin', Date.now()), 'owner');
  await t.throwsAsync(removeMember(db, team.id, other.id, Date.now()), { instanceOf: LastOwnerError });
});

test('two owners demoting each other at the same time leave exactly one owner', async (t) => {
  for (let round = 0; round < 5; round++) {
    const a = await user();
    const team = await createTeam(db, a.id, 'Race', Date.now());
    const b = await memberOf(team.id, 'owner');
    const results = await Promise.allSettled([
      changeMemberRole(db, team.id, a.id, 'viewer', Date.now()),
      removeMember(db, team.id, b.id, Date.now()),
    ]);
    t.is(results.filter((r) => r.status === 'fulfilled').length, 1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    t.true(rejected.reason instanceof LastOwnerError);
    const owners = (await listMembers(db, team.id)).filter((m) => m.role === 'owner');
    t.is(owners.length, 1);
  }
});

test('a role change or removal asks the acting member\'s role under the team lock, not the one read before', async (t) => {
  const a = await user();
  const team = await createTeam(db, a.id, 'Stale', Date.now());
  const b = await memberOf(team.id, 'owner');
  const friend = await memberOf(team.id, 'viewer');
  const victim = await memberOf(team.id, 'developer');
  // b read its role (owner) before a demoted it to viewer; its own change then runs
  t.is(await changeMemberRole(db, team.id, b.id, 'viewer', Date.now()), 'owner');
  const ownersOnly = (_current: TeamRole, actor: TeamRole | undefined) => {
    if (actor === undefined) throw new Error('the actor left');
    requirePermission(actor, 'manage_owners');
  };
  await t.throwsAsync(changeMemberRole(db, team.id, friend.id, 'owner', Date.now(), ownersOnly, b.id), { instanceOf: ForbiddenError });
  t.is(await membership(db, team.id, friend.id), 'viewer');
  // removed meanwhile: the actor is no member at all
  await removeMember(db, team.id, b.id, Date.now());
  await t.throwsAsync(removeMember(db, team.id, victim.id, Date.now(), ownersOnly, b.id), { message: 'the actor left' });
  t.is(await membership(db, team.id, victim.id), 'developer');
});

test('deleting a team asks the acting member\'s role under the team lock', async (t) => {
  const a = await user();
  const team = await createTeam(db, a.id, 'Stale delete', Date.now());
  const b = await memberOf(team.id, 'owner');
  // b read its role (owner) before a demoted it to admin
  t.is(await changeMemberRole(db, team.id, b.id, 'admin', Date.now()), 'owner');
  const mayDelete = (actor: TeamRole | undefined) => {
    if (actor === undefined) throw new Error('the actor left');
    requirePermission(actor, 'delete_team');
  };
  await t.throwsAsync(deleteTeam(db, team.id, Date.now(), mayDelete, b.id), { instanceOf: ForbiddenError });
  t.is(await membership(db, team.id, a.id), 'owner', 'the team is still there');
  t.true(await deleteTeam(db, team.id, Date.now(), mayDelete, a.id));
});

test('an invite is accepted once, by the invited address only, case-insensitively', async (t) => {
  const owner = await user();
  const team = await createTeam(db, owner.id, 'Invites', Date.now());
  const invitee = await user(`${uniqueName('Inv')}@Example.com`);
  const now = Date.now();
  const tokenHash = sha256Hex(uniqueName('token'));
  await createInvite(db, { teamId: team.id, email: invitee.email.toLowerCase(), role: 'developer', invitedBy: owner.id, tokenHash }, now);
  const stranger = await user();
  await t.throwsAsync(acceptInvite(db, tokenHash, stranger, now), { instanceOf: InviteEmailMismatchError });
  const both = await Promise.allSettled([acceptInvite(db, tokenHash, invitee, now), acceptInvite(db, tokenHash, invitee, now)]);
  t.is(both.filter((r) => r.status === 'fulfilled').length, 1);
  t.is(await membership(db, team.id, invitee.id), 'developer');
  await t.throwsAsync(acceptInvite(db, tokenHash, invitee, now), { instanceOf: InviteInvalidError });
});

test('an invite racing its sender\'s removal or demotion is never left pending', async (t) => {
  const mayInvite = (role: string) => {
    if (role !== 'owner' && role !== 'admin') throw new Error(`a ${role} may not invite`);
  };
  for (let round = 0; round < 5; round++) {
    const owner = await user();
    const team = await createTeam(db, owner.id, 'Race', Date.now());
    const removed = await memberOf(team.id, 'admin');
    const demoted = await memberOf(team.id, 'admin');
    const invite = (by: number) => createInvite(db, { teamId: team.id, email: `${uniqueName('i')}@example.com`, role: 'viewer', invitedBy: by, tokenHash: sha256Hex(uniqueName('token')) }, Date.now(), mayInvite);
    await Promise.allSettled([
      removeMember(db, team.id, removed.id, Date.now()), invite(removed.id),
      changeMemberRole(db, team.id, demoted.id, 'viewer', Date.now()), invite(demoted.id),
    ]);
    const pending = await db('team_invites').where({ team_id: team.id }).whereNull('revoked_at').whereNull('accepted_at');
    t.deepEqual(pending, [], 'an invite stored after its sender lost invite would still admit someone');
  }
  // the sender no longer in the team: nothing is stored
  const team = await createTeam(db, (await user()).id, 'Gone', Date.now());
  const outsider = await user();
  t.is(await createInvite(db, { teamId: team.id, email: 'x@example.com', role: 'viewer', invitedBy: outsider.id, tokenHash: sha256Hex(uniqueName('token')) }, Date.now()), undefined);
  t.is((await db('team_invites').where({ team_id: team.id })).length, 0);
});

test('an expired invite is refused', async (t) => {
  const owner = await user();
  const team = await createTeam(db, owner.id, 'Late', Date.now());
  const invitee = await user();
  const now = Date.now();
  const tokenHash = sha256Hex(uniqueName('token'));
  await createInvite(db, { teamId: team.id, email: invitee.email, role: 'viewer', invitedBy: owner.id, tokenHash }, now);
  await t.throwsAsync(acceptInvite(db, tokenHash, invitee, now + INVITE_TTL_MS), { instanceOf: InviteInvalidError });
  t.is(await membership(db, team.id, invitee.id), undefined);
});

test('concurrent holds never take a small team wallet below zero', async (t) => {
  const owner = await user();
  const team = await createTeam(db, owner.id, 'Wallet', Date.now());
  const price = 70;
  const affordable = 7;
  await db.transaction((trx) => creditTeam(trx, team.id, owner.id, price * affordable + price - 1, 'grant', 'test credit', Date.now()));
  const attempts = 60;
  const ids = Array.from({ length: attempts }, () => uniqueName('p').slice(0, 32));
  const results = await Promise.allSettled(ids.map((predictionId) => db.transaction((trx) => holdTeam(trx, team.id, owner.id, price, { predictionId, model: 'm', now: Date.now() }))));
  t.is(results.filter((r) => r.status === 'fulfilled').length, affordable);
  t.true(results.filter((r) => r.status === 'rejected').every((r) => (r as PromiseRejectedResult).reason instanceof InsufficientCreditError));
  t.deepEqual(await getTeamBalance(db, team.id), { balance: price - 1, held: price * affordable });

  // settle one (ledger row with team_id and the member), release another
  const held = ids.filter((_, i) => results[i]!.status === 'fulfilled');
  await db.transaction((trx) => settleTeam(trx, team.id, owner.id, price, held[0]!, 'm', Date.now()));
  await db.transaction((trx) => releaseTeam(trx, team.id, owner.id, price, { predictionId: held[1]!, model: 'm', now: Date.now() }));
  t.deepEqual(await getTeamBalance(db, team.id), { balance: 2 * price - 1, held: price * (affordable - 2) });
  const kinds = (await db('credit_transactions').where({ team_id: team.id }).orderBy('id')).map((r: { kind: string }) => r.kind);
  t.deepEqual(kinds, ['grant', ...Array(affordable).fill('hold'), 'prediction', 'release'], 'every move is a ledger row');
  const ledger = await db('credit_transactions').where({ team_id: team.id, kind: 'prediction' });
  t.is(ledger.length, 1);
  t.is(Number(ledger[0].user_id), owner.id);
  t.is(Number(ledger[0].amount), -price);
  t.is(Number(ledger[0].balance_after), 2 * price - 1 - price);
});
