// Teams, their members and invites (issue 8). Membership changes lock the team row first
// (SELECT ... FOR UPDATE), so two concurrent changes of the same team run one after the other
// and the last-owner rule cannot be beaten by a race. On SQLite the single connection already
// serialises transactions and forUpdate compiles to nothing.
import type { Knex } from 'knex';
import type { Db } from './knex.ts';
import { affected, iso, num, numOrNull } from './knex.ts';
import { isDuplicateKey } from './errors.ts';
import { recordWalletStripeCancellations } from './stripe-cancellations.ts';
import { disableTeamStudios } from './studios.ts';
import { unfinishedCounts } from './unfinished.ts';
import { can, isTeamRole } from '../lib/caller.ts';
import type { TeamRole } from '../lib/caller.ts';

export const INVITE_TTL_MS = 7 * 24 * 3600 * 1000;

/** The team would be left without an owner (last owner leaving, removed or demoted). */
export class LastOwnerError extends Error {
  constructor() {
    super('a team needs at least one owner: make another member an owner first');
    this.name = 'LastOwnerError';
  }
}

/** The team still holds credit, or owes some, so deleting it would lose money, a debt or running predictions. */
export class TeamNotEmptyError extends Error {
  /** `running`: the team has unfinished predictions (a free one, a 100% discount, holds nothing) */
  constructor(balance: number, held: number, running = false) {
    super(held > 0
      ? `the team has ${held} credits held by running predictions: wait for them to finish`
      : running
        ? 'the team has predictions still running: wait for them to finish (or cancel them) before deleting the team'
        : balance < 0
        ? `the team wallet owes ${-balance} credits (a refund took back more than it held): top it up to 0 before deleting the team`
        : `the team wallet still holds ${balance} credits: spend them before deleting the team`);
    this.name = 'TeamNotEmptyError';
  }
}

/** The invite token is unknown, used, revoked or expired, or its team is gone. */
export class InviteInvalidError extends Error {
  constructor() {
    super('invalid invite: it does not exist, was already used, was revoked or has expired');
    this.name = 'InviteInvalidError';
  }
}

/** The invite is valid but was sent to another address than the signed-in account's. */
export class InviteEmailMismatchError extends Error {
  constructor() {
    super('this invite was sent to another email address: sign in with the invited address to accept it');
    this.name = 'InviteEmailMismatchError';
  }
}

export class AlreadyMemberError extends Error {
  constructor() {
    super('you are already a member of this team');
    this.name = 'AlreadyMemberError';
  }
}

export interface Team {
  id: number;
  name: string;
  balance: number;
  held: number;
  createdAt: string;
}

export interface Membership extends Team {
  role: TeamRole;
}

export interface Member {
  userId: number;
  email: string;
  role: TeamRole;
  joinedAt: string;
}

export interface Invite {
  id: number;
  teamId: number;
  email: string;
  role: TeamRole;
  invitedBy: number | null;
  createdAt: string;
  expiresAt: string;
  expired: boolean;
}

type Row = Record<string, unknown>;

function role(v: unknown): TeamRole {
  if (!isTeamRole(v)) throw new Error(`unknown team role in the database: ${String(v)}`);
  return v;
}

function toTeam(r: Row): Team {
  return { id: num(r.id), name: String(r.name), balance: num(r.balance), held: num(r.held), createdAt: iso(r.created_at) };
}

function toInvite(r: Row, now: number): Invite {
  return {
    id: num(r.id),
    teamId: num(r.team_id),
    email: String(r.email),
    role: role(r.role),
    invitedBy: numOrNull(r.invited_by),
    createdAt: iso(r.created_at),
    expiresAt: iso(r.expires_at),
    expired: num(r.expires_at) <= now,
  };
}

/** Locks the (live) team row for the rest of the transaction; undefined when there is no such team. */
async function lockTeam(trx: Knex.Transaction, teamId: number): Promise<Row | undefined> {
  return trx('teams').where({ id: teamId }).whereNull('deleted_at').forUpdate().first();
}

export async function createTeam(db: Db, userId: number, name: string, now: number): Promise<Membership> {
  return db.transaction(async (trx) => {
    const [id] = await trx('teams').insert({ name, balance: 0, held: 0, created_at: now });
    await trx('team_members').insert({ team_id: id, user_id: userId, role: 'owner', created_at: now });
    const row = await trx('teams').where({ id }).first();
    return { ...toTeam(row), role: 'owner' as const };
  });
}

/**
 * The caller's role in a live team, or undefined (not a member, no such team, or deleted).
 * This is what the edge calls for every request that names a team_id.
 */
export async function membership(db: Db | Knex.Transaction, teamId: number, userId: number): Promise<TeamRole | undefined> {
  const row = await db('team_members')
    .join('teams', 'teams.id', 'team_members.team_id')
    .select('team_members.role')
    .where({ 'team_members.team_id': teamId, 'team_members.user_id': userId })
    .whereNull('teams.deleted_at')
    .first();
  return row ? role(row.role) : undefined;
}

/** The team with the caller's role in it, or undefined when the caller must not see it. */
export async function findMyTeam(db: Db, teamId: number, userId: number): Promise<Membership | undefined> {
  const row = await db('teams')
    .join('team_members', 'team_members.team_id', 'teams.id')
    .select('teams.*', 'team_members.role')
    .where({ 'teams.id': teamId, 'team_members.user_id': userId })
    .whereNull('teams.deleted_at')
    .first();
  return row ? { ...toTeam(row), role: role(row.role) } : undefined;
}

export async function listMyTeams(db: Db, userId: number): Promise<Membership[]> {
  const rows: Row[] = await db('teams')
    .join('team_members', 'team_members.team_id', 'teams.id')
    .select('teams.*', 'team_members.role')
    .where('team_members.user_id', userId)
    .whereNull('teams.deleted_at')
    .orderBy('teams.id', 'asc');
  return rows.map((r) => ({ ...toTeam(r), role: role(r.role) }));
}

export async function renameTeam(db: Db, teamId: number, name: string): Promise<boolean> {
  return affected(await db('teams').where({ id: teamId }).whereNull('deleted_at').update({ name })) === 1;
}

/**
 * Soft-deletes a team whose wallet is empty (balance and held both 0; otherwise
 * TeamNotEmptyError: a negative balance is a debt that deleting would wipe out), revokes its keys and pending invites, drops its webhook secrets, disables its studios and frees their domains. Members lose access at once
 * because `membership` ignores deleted teams. False when there is no such live team.
 * `authorize` (which may throw) gets `actorId`'s role under the team lock (undefined: none named, or not a member).
 */
export async function deleteTeam(db: Db, teamId: number, now: number, authorize: (actor: TeamRole | undefined) => void = () => {}, actorId: number | null = null): Promise<boolean> {
  return db.transaction(async (trx) => {
    const team = await lockTeam(trx, teamId);
    if (!team) return false;
    // the acting member's role as it is now (a demotion or removal may have committed since it was read)
    authorize(actorId === null ? undefined : await membership(trx, teamId, actorId));
    const balance = num(team.balance);
    const held = num(team.held);
    if (balance !== 0 || held > 0) throw new TeamNotEmptyError(balance, held);
    // a run that holds nothing (free, or a 100% discount) would finish for a team that is gone,
    // its result readable by no one; a submit that holds or is counted locks this row first
    const [running] = await unfinishedCounts(trx, [{ scope: { owner: { userId: 0, teamId } }, bound: 1 }]);
    if (running! > 0) throw new TeamNotEmptyError(balance, held, true);
    await trx('teams').where({ id: teamId }).update({ deleted_at: now });
    await trx('api_keys').where({ team_id: teamId }).whereNull('revoked_at').update({ revoked_at: now });
    await trx('team_invites').where({ team_id: teamId }).whereNull('accepted_at').whereNull('revoked_at').update({ revoked_at: now });
    // the row stays (soft delete), so its foreign key's cascade does not remove these
    await trx('team_webhook_secrets').where({ team_id: teamId }).delete();
    // its studios are disabled (their users may still sign in by the slug, take their data and
    // leave) and their domains freed for another studio
    await disableTeamStudios(trx, teamId, now);
    // Stripe would go on charging its wallet's subscriptions: recorded for cancelling, in the name
    // of the member deleting it (the handler tries them after the answer; the subscription job after that)
    if (actorId !== null) await recordWalletStripeCancellations(trx, { userId: actorId, teamId }, now);
    return true;
  });
}

export async function listMembers(db: Db, teamId: number): Promise<Member[]> {
  const rows: Row[] = await db('team_members')
    .join('users', 'users.id', 'team_members.user_id')
    .select('team_members.user_id', 'users.email', 'team_members.role', 'team_members.created_at')
    .where('team_members.team_id', teamId)
    .orderBy('team_members.created_at', 'asc')
    .orderBy('team_members.user_id', 'asc');
  return rows.map((r) => ({ userId: num(r.user_id), email: String(r.email), role: role(r.role), joinedAt: iso(r.created_at) }));
}

/**
 * Asks whether a change may be made: `current` is the member's role, `actor` the acting member's
 * role as it is under the team lock (undefined when no actor was named, or they are no longer in
 * the team: a removal or demotion of the actor may have committed since their role was read).
 */
export type ChangeAuthorizer = (current: TeamRole, actor: TeamRole | undefined) => void;

/**
 * Runs `change` on one member's row under the team lock, after `authorize(currentRole,
 * actorRole)` (which may throw) and the last-owner rule. Undefined when the team or the member
 * does not exist.
 */
async function changeMember(
  db: Db,
  teamId: number,
  userId: number,
  change: { role: TeamRole; at: number } | { removedAt: number },
  authorize: ChangeAuthorizer,
  actorId: number | null,
): Promise<{ previous: TeamRole; revokedKeyIds: number[]; endedSecretKeyIds: number[] } | undefined> {
  const newRole = 'role' in change ? change.role : null;
  return db.transaction(async (trx) => {
    if (!(await lockTeam(trx, teamId))) return undefined;
    const actor = actorId === null ? undefined : await membership(trx, teamId, actorId);
    const row = await trx('team_members').where({ team_id: teamId, user_id: userId }).forUpdate().first();
    if (!row) return undefined;
    const current = role(row.role);
    authorize(current, actor);
    if (current === 'owner' && newRole !== 'owner') {
      const owners = await trx('team_members').where({ team_id: teamId, role: 'owner' }).count<Array<{ n: number | string }>>({ n: '*' });
      if (num(owners[0]?.n ?? 0) <= 1) throw new LastOwnerError();
    }
    if (!('role' in change)) {
      await trx('team_members').where({ team_id: teamId, user_id: userId }).delete();
      // the invites they sent to this team go with them: someone no longer in the team admits nobody
      await trx('team_invites').where({ team_id: teamId, invited_by: userId }).whereNull('accepted_at').whereNull('revoked_at').update({ revoked_at: change.removedAt });
      // and so do the team keys they created: they hold those secrets, and would otherwise go on
      // spending the team's wallet and reading its history from outside it
      const revokedKeyIds = (await revokeTeamKeysCreatedBy(trx, userId, teamId, change.removedAt)).map((k) => k.id);
      // a secret of theirs that a rotation replaced still works for its grace period: it ends too
      const endedSecretKeyIds = (await endRetiredSecretsHeldBy(trx, userId, teamId, change.removedAt)).map((k) => k.id);
      return { previous: current, revokedKeyIds, endedSecretKeyIds };
    } else {
      await trx('team_members').where({ team_id: teamId, user_id: userId }).update({ role: change.role });
      // a role that may not invite admits nobody either: the invites they sent while they could go;
      // one that may not grant the owner role makes no owner: their pending owner invites go
      const pending = () => trx('team_invites').where({ team_id: teamId, invited_by: userId }).whereNull('accepted_at').whereNull('revoked_at');
      if (!can(change.role, 'invite')) await pending().update({ revoked_at: change.at });
      else if (!can(change.role, 'manage_owners')) await pending().andWhere('role', 'owner').update({ revoked_at: change.at });
    }
    return { previous: current, revokedKeyIds: [], endedSecretKeyIds: [] };
  });
}

/**
 * Changes a member's role; returns the previous role, or undefined when there is no such member.
 * A role without `invite` revokes, at `now` and in the same transaction, the invites to this team
 * the member sent that are still pending; a role with `invite` but without `manage_owners` (admin)
 * revokes those of them that invite an owner.
 */
export async function changeMemberRole(db: Db, teamId: number, userId: number, newRole: TeamRole, now: number, authorize: ChangeAuthorizer = () => {}, actorId: number | null = null): Promise<TeamRole | undefined> {
  return (await changeMember(db, teamId, userId, { role: newRole, at: now }, authorize, actorId))?.previous;
}

/**
 * Removes a member (also how a member leaves) and, in the same transaction, revokes the invites to
 * this team they sent that are still pending and the team's API keys they created (keys other
 * members created stay); returns the removed role and the ids of the keys revoked, or undefined.
 */
export function removeMember(db: Db, teamId: number, userId: number, now: number, authorize: ChangeAuthorizer = () => {}, actorId: number | null = null) {
  return changeMember(db, teamId, userId, { removedAt: now }, authorize, actorId);
}

/**
 * Stores an invite sent by a member, under the team lock after `authorize(senderRole)` (which may
 * throw), so a removal or demotion of the sender (which revokes their pending invites under the
 * same lock) cannot slip between the handler's permission check and the insert and leave an invite
 * from someone who may no longer send it. Undefined when the team is gone or the sender is no
 * longer in it.
 */
export async function createInvite(
  db: Db,
  i: { teamId: number; email: string; role: TeamRole; invitedBy: number; tokenHash: string },
  now: number,
  authorize: (senderRole: TeamRole) => void = () => {},
): Promise<Invite | undefined> {
  return db.transaction(async (trx) => {
    if (!(await lockTeam(trx, i.teamId))) return undefined;
    const sender = await membership(trx, i.teamId, i.invitedBy);
    if (sender === undefined) return undefined;
    authorize(sender);
    return insertInvite(trx, i, now);
  });
}

async function insertInvite(
  db: Knex.Transaction,
  i: { teamId: number; email: string; role: TeamRole; invitedBy: number; tokenHash: string },
  now: number,
): Promise<Invite> {
  const [id] = await db('team_invites').insert({
    team_id: i.teamId,
    email: i.email,
    role: i.role,
    token_hash: i.tokenHash,
    invited_by: i.invitedBy,
    created_at: now,
    expires_at: now + INVITE_TTL_MS,
  });
  return toInvite(await db('team_invites').where({ id }).first(), now);
}

/** Whether some team has invited this address and the invite is still usable (REGISTRATION=closed lets it register). */
export async function hasPendingInvite(db: Db | Knex.Transaction, email: string, now: number): Promise<boolean> {
  const row = await db('team_invites')
    .whereRaw('lower(email) = ?', [email.trim().toLowerCase()])
    .whereNull('accepted_at')
    .whereNull('revoked_at')
    .andWhere('expires_at', '>', now)
    .first('id');
  return row !== undefined;
}

/** Invites neither accepted nor revoked (expired ones included, flagged), oldest first. */
export async function listInvites(db: Db, teamId: number, now: number): Promise<Invite[]> {
  const rows: Row[] = await db('team_invites').where({ team_id: teamId }).whereNull('accepted_at').whereNull('revoked_at').orderBy('id', 'asc');
  return rows.map((r) => toInvite(r, now));
}

export async function revokeInvite(db: Db, teamId: number, inviteId: number, now: number): Promise<boolean> {
  const n = await db('team_invites').where({ id: inviteId, team_id: teamId }).whereNull('accepted_at').whereNull('revoked_at').update({ revoked_at: now });
  return affected(n) === 1;
}

/** A team API key revoked because the member who created it went. */
export interface RevokedTeamKey {
  id: number;
  teamId: number;
}

/**
 * Revokes the live team API keys this account created, of one team (a removal or a leave) or of
 * every team (null: an erasure), with their rows locked; the keys revoked, by id. Whoever created
 * a team key holds its secret, and it would otherwise go on spending the team's wallet and
 * reading its history from outside the team. The rows stay, revoked, for the team's records.
 */
export async function revokeTeamKeysCreatedBy(db: Db, userId: number, teamId: number | null, now: number): Promise<RevokedTeamKey[]> {
  const keys = () => {
    const q = db('api_keys').where({ user_id: userId }).whereNull('revoked_at');
    return teamId === null ? q.whereNotNull('team_id') : q.where({ team_id: teamId });
  };
  const rows = await keys().orderBy('id').forUpdate().select<Array<{ id: number | string; team_id: number | string }>>('id', 'team_id');
  const revoked = rows.map((r) => ({ id: num(r.id), teamId: num(r.team_id) }));
  if (revoked.length > 0) await keys().whereIn('id', revoked.map((k) => k.id)).update({ revoked_at: now });
  return revoked;
}

/**
 * Ends the replaced secrets of the team keys this member held before someone rotated them (still
 * working for the rotation's grace period): removing a member, or erasing their account, must cut
 * them off as revoking the keys they hold now does. The keys stay, with their current secrets. Of
 * one team (teamId), or of every team (null: an erasure). The keys whose replaced secret ended.
 */
export async function endRetiredSecretsHeldBy(db: Db, userId: number, teamId: number | null, now: number): Promise<RevokedTeamKey[]> {
  const keys = () => {
    const q = db('api_keys').where({ previous_holder: userId }).whereNull('revoked_at').whereNotNull('previous_key_hash').andWhere('previous_valid_until', '>', now);
    return teamId === null ? q.whereNotNull('team_id') : q.where({ team_id: teamId });
  };
  const rows = await keys().orderBy('id').forUpdate().select<Array<{ id: number | string; team_id: number | string }>>('id', 'team_id');
  const ended = rows.map((r) => ({ id: num(r.id), teamId: num(r.team_id) }));
  if (ended.length > 0) {
    await db('api_keys').whereIn('id', ended.map((k) => k.id)).update({ previous_key_hash: null, previous_valid_until: null, previous_holder: null });
  }
  return ended;
}

/**
 * Revokes every invite this account sent that could still be accepted, whatever its team; how
 * many. For an account taken back (db/credentials.ts takeBackAccount): whoever registered it may
 * have invited themselves.
 */
export async function revokeInvitesSentBy(db: Db, userId: number, now: number): Promise<number> {
  const n = await db('team_invites').where({ invited_by: userId }).whereNull('accepted_at').whereNull('revoked_at').andWhere('expires_at', '>', now).update({ revoked_at: now });
  return affected(n);
}

/**
 * Accepts the invite whose token has this digest for the signed-in user. The invite is used
 * up by a conditional UPDATE, so a token works once even when presented twice at the same time.
 */
export async function acceptInvite(db: Db, tokenHash: string, user: { id: number; email: string }, now: number): Promise<Membership> {
  return db.transaction(async (trx) => {
    const invite = await trx('team_invites').where({ token_hash: tokenHash }).first();
    if (!invite || invite.accepted_at !== null || invite.revoked_at !== null || num(invite.expires_at) <= now) throw new InviteInvalidError();
    const team = await lockTeam(trx, num(invite.team_id));
    if (!team) throw new InviteInvalidError();
    if (String(invite.email).toLowerCase() !== user.email.toLowerCase()) throw new InviteEmailMismatchError();
    if (await trx('team_members').where({ team_id: team.id, user_id: user.id }).first()) throw new AlreadyMemberError();
    const used = await trx('team_invites')
      .where({ id: invite.id })
      .whereNull('accepted_at')
      .whereNull('revoked_at')
      .andWhere('expires_at', '>', now)
      .update({ accepted_at: now, accepted_by: user.id });
    if (affected(used) !== 1) throw new InviteInvalidError();
    try {
      await trx('team_members').insert({ team_id: team.id, user_id: user.id, role: role(invite.role), created_at: now });
    } catch (err) {
      if (isDuplicateKey(err)) throw new AlreadyMemberError();
      throw err;
    }
    return { ...toTeam(team), role: role(invite.role) };
  });
}
