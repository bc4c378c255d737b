// Team management (issue 8): create, list, rename and delete teams, members and their roles,
// email invites. Every route that names a team resolves the caller's membership first (none:
// 404, existence stays hidden), then asks the permission table (lib/caller.ts; missing: 403 naming it).
// These routes declare no `x-team-permission` (which permission applies depends on the request,
// e.g. removing oneself is leaving), so the route bridge leaves the team to them, and a team API
// key, which acts only through operations with a team scope, is refused before they run.
import type { Handler, OwnedCaller } from './types.ts';
import type { App } from '../lib/context.ts';
import { ConflictError, ForbiddenError, NotFoundError, UnauthorizedError } from '../lib/errors.ts';
import { can, requirePermission, roleScopes, TEAM_NOT_FOUND, TEAM_PERMISSION_SCOPES, TEAM_PERMISSIONS } from '../lib/caller.ts';
import {
  acceptInvite, AlreadyMemberError, changeMemberRole, createInvite, createTeam as insertTeam, deleteTeam as softDeleteTeam, findMyTeam,
  InviteEmailMismatchError, InviteInvalidError, LastOwnerError, listInvites, listMembers, listMyTeams, removeMember, renameTeam as updateTeamName,
  membership, revokeInvite, TeamNotEmptyError,
} from '../db/teams.ts';
import type { Invite, Member, Membership } from '../db/teams.ts';
import { findUserById, normaliseEmail } from '../db/users.ts';
import { liveStripeSubscriptionsOf } from '../db/subscriptions.ts';
import { startStripeCancellation } from '../workers/stripe-cancellations.ts';
import { newSecret, sha256Hex } from '../lib/secrets.ts';
import type { TeamPermission, TeamRole } from '../lib/caller.ts';
import { sendInBackground, teamInviteMail } from '../lib/mail.ts';
import { refuseBeyondScopes, refuseSandboxKey, refuseStudioUser } from './guards.ts';

export const INVITE_TOKEN_PREFIX = 'mgi_';

export function teamView(t: Membership) {
  const balance = can(t.role, 'read_balance');
  return { id: t.id, name: t.name, role: t.role, balance: balance ? t.balance : null, held: balance ? t.held : null, created_at: t.createdAt };
}

function memberView(m: Member) {
  return { user_id: m.userId, email: m.email, role: m.role, joined_at: m.joinedAt };
}

function inviteView(i: Invite) {
  return { id: i.id, team_id: i.teamId, email: i.email, role: i.role, invited_by: i.invitedBy, created_at: i.createdAt, expires_at: i.expiresAt, expired: i.expired };
}

/** An id from the path; one no row can have (1e309 coerces to Infinity, which passes "integer") is not found, without a query. */
function idOf(v: number, what: string): number {
  if (!Number.isSafeInteger(v)) throw new NotFoundError(`${what} not found`);
  return v;
}

/** The team as the caller sees it, after checking `permission`; 404 for non-members. */
async function teamFor(app: App, caller: OwnedCaller, teamId: number, permission: TeamPermission): Promise<Membership> {
  const team = await findMyTeam(app.db, idOf(teamId, 'team'), caller.userId);
  if (!team) throw new NotFoundError(TEAM_NOT_FOUND);
  requirePermission(team.role, permission);
  return team;
}

/**
 * A team's wallet and keys run models outside any studio, at the list price: a studio's user
 * neither creates nor joins one. Teams they are in already are left as they are.
 */
const STUDIO_USER_NO_TEAMS = 'a studio\'s users cannot create or join teams, whose wallets and keys run models outside the studio';

/** Maps the domain errors of db/teams.ts onto statuses. */
async function mapped<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof LastOwnerError || err instanceof TeamNotEmptyError || err instanceof AlreadyMemberError) throw new ConflictError(err.message);
    if (err instanceof InviteInvalidError) throw new NotFoundError(err.message);
    if (err instanceof InviteEmailMismatchError) throw new ForbiddenError(err.message);
    throw err;
  }
}

/**
 * A sandbox key does only sandbox things, so it changes no team; an id it may not see (`exists`
 * false) is 404 first, as to every other credential (a member of another team, someone in none,
 * another team's invite).
 */
async function refuseSandboxKeyOn(caller: OwnedCaller, what: string, exists: () => Promise<boolean>, notFound: string): Promise<void> {
  if (!caller.isTest) return;
  if (!(await exists())) throw new NotFoundError(notFound);
  refuseSandboxKey(caller, what);
}

const isMember = (app: App, teamId: number, userId: number) => async () => (await membership(app.db, teamId, userId)) !== undefined;

export const createTeam: Handler<'createTeam'> = async ({ app, caller, body, h, studio }) => {
  refuseSandboxKey(caller, 'create teams');
  await refuseStudioUser(app, caller, studio, STUDIO_USER_NO_TEAMS);
  const team = await insertTeam(app.db, caller.userId, body.name.trim(), app.clock());
  return h.response(teamView(team)).code(201);
};

export const listTeams: Handler<'listTeams'> = async ({ app, caller }) => (await listMyTeams(app.db, caller.userId)).map(teamView);

export const getTeam: Handler<'getTeam'> = async ({ app, caller, params }) => teamView(await teamFor(app, caller, params.team_id, 'read_history'));

export const renameTeam: Handler<'renameTeam'> = async ({ app, caller, params, body }) => {
  const team = await teamFor(app, caller, params.team_id, 'rename');
  refuseSandboxKey(caller, 'rename teams');
  const name = body.name.trim();
  if (!(await updateTeamName(app.db, team.id, name))) throw new NotFoundError(TEAM_NOT_FOUND);
  return teamView({ ...team, name });
};

export const deleteTeam: Handler<'deleteTeam'> = async ({ app, caller, params }) => {
  const team = await teamFor(app, caller, params.team_id, 'delete_team');
  refuseSandboxKey(caller, 'delete teams');
  const now = app.clock();
  // asked again under the team lock: a demotion or removal of the caller may have committed since
  const mayDelete = (actor: TeamRole | undefined) => {
    if (actor === undefined) throw new NotFoundError(TEAM_NOT_FOUND);
    requirePermission(actor, 'delete_team');
  };
  if (!(await mapped(softDeleteTeam(app.db, team.id, now, mayDelete, caller.userId)))) throw new NotFoundError(TEAM_NOT_FOUND);
  // its keys were revoked with it (README "Credential cache")
  await app.credentials.invalidate({ teamIds: [team.id] });
  // its plan renews no more (the renewal job cancels it), but Stripe would go on charging every
  // subscription a checkout of its wallet started or paid for unapplied: the deletion recorded each
  // for cancelling, as an erasure does; each is tried after the answer (workers/stripe-cancellations.ts)
  const wallet = { userId: caller.userId, teamId: team.id };
  for (const sub of await liveStripeSubscriptionsOf(app.db, wallet)) startStripeCancellation(app, sub, wallet);
  return { id: team.id, deleted: true };
};

export const listTeamMembers: Handler<'listTeamMembers'> = async ({ app, caller, params }) => {
  const team = await teamFor(app, caller, params.team_id, 'read_history');
  return (await listMembers(app.db, team.id)).map(memberView);
};

/** What a permission lets a member do, for the refusal below. */
const PERMISSION_USE: Readonly<Record<TeamPermission, string>> = {
  generate: 'run models on the team\'s wallet and upload files for it',
  read_history: 'read the team\'s history',
  read_balance: 'read the team\'s balance',
  manage_keys: 'manage the team\'s keys, embed codes and studios',
  invite: 'invite and remove members',
  manage_owners: 'manage the owners',
  top_up: 'add credit to the team\'s wallet and set its alerts',
  rename: 'rename the team',
  delete_team: 'delete the team',
};

/**
 * A role is granted only by a credential holding every scope that reaches what the role may do
 * (lib/caller.ts roleScopes): otherwise a `keys:manage` token could invite an account of its
 * holder's and, through it, spend the team's wallet or read the team's history, which the token
 * itself may not (no credential makes another that can do more than itself). Sessions and
 * unrestricted keys hold every scope. The 403 names each missing scope and what the role uses it for.
 */
function refuseGrantingBeyondScopes(caller: OwnedCaller, role: TeamRole, what: string): void {
  const purpose = (scope: string) => {
    const uses = TEAM_PERMISSIONS.filter((p) => can(role, p) && (TEAM_PERMISSION_SCOPES[p] as readonly string[]).includes(scope));
    return `for the role to ${uses.map((p) => PERMISSION_USE[p]).join(' and ')}`;
  };
  refuseBeyondScopes(caller, roleScopes(role), what, purpose);
}

/**
 * Changing a member takes invite, and changing or granting the owner role manage_owners on top,
 * asked of the caller's role as it is under the team lock (db/teams.ts changeMember): a removal
 * or demotion of the caller committed since teamFor read it counts.
 */
function membersGuard(newRole: TeamRole | null) {
  return (current: TeamRole, actor: TeamRole | undefined) => {
    if (actor === undefined) throw new NotFoundError(TEAM_NOT_FOUND);
    requirePermission(actor, 'invite');
    if (current === 'owner' || newRole === 'owner') requirePermission(actor, 'manage_owners');
  };
}

export const changeTeamMemberRole: Handler<'changeTeamMemberRole'> = async ({ app, caller, params, body }) => {
  const team = await teamFor(app, caller, params.team_id, 'invite');
  const userId = idOf(params.user_id, 'member');
  await refuseSandboxKeyOn(caller, 'change team members\' roles', isMember(app, team.id, userId), 'member not found');
  // the spec's enum validated the role
  const role: TeamRole = body.role;
  const members = membersGuard(role);
  const guard = (current: TeamRole, actor: TeamRole | undefined) => {
    members(current, actor);
    refuseGrantingBeyondScopes(caller, role, `making a member ${role}`);
  };
  const before = await mapped(changeMemberRole(app.db, team.id, userId, role, app.clock(), guard, caller.userId));
  if (!before) throw new NotFoundError('member not found');
  const member = (await listMembers(app.db, team.id)).find((m) => m.userId === userId);
  if (!member) throw new NotFoundError('member not found');
  return memberView(member);
};

/**
 * After a removal committed: the team keys the member created were revoked with it, so every API
 * process forgets them before the answer (README "Credential cache").
 */
async function keysRevoked(app: App, teamId: number, userId: number, removed: { revokedKeyIds: readonly number[]; endedSecretKeyIds: readonly number[] }, by: number): Promise<void> {
  const { revokedKeyIds: keyIds, endedSecretKeyIds } = removed;
  if (keyIds.length === 0 && endedSecretKeyIds.length === 0) return;
  await app.credentials.invalidate({ teamIds: [teamId] });
  if (keyIds.length) app.log.info({ event: 'team_keys_revoked_with_member', teamId, userId, keyIds, by }, 'teams: the team keys a removed member created were revoked');
  if (endedSecretKeyIds.length) {
    app.log.info({ event: 'team_key_secrets_ended_with_member', teamId, userId, keyIds: endedSecretKeyIds, by }, 'teams: the replaced secrets a removed member held, still in their grace period, were ended');
  }
}

export const removeTeamMember: Handler<'removeTeamMember'> = async ({ app, caller, params }) => {
  const userId = idOf(params.user_id, 'member');
  // removing oneself is leaving, which every member may do
  const self = userId === caller.userId;
  const team = await teamFor(app, caller, params.team_id, self ? 'read_history' : 'invite');
  await refuseSandboxKeyOn(caller, 'remove team members', isMember(app, team.id, userId), 'member not found');
  const guard = self ? () => {} : membersGuard(null);
  const removed = await mapped(removeMember(app.db, team.id, userId, app.clock(), guard, caller.userId));
  if (!removed) throw new NotFoundError('member not found');
  await keysRevoked(app, team.id, userId, removed, caller.userId);
  return { id: userId, deleted: true, revoked_key_ids: removed.revokedKeyIds };
};

export const leaveTeam: Handler<'leaveTeam'> = async ({ app, caller, params }) => {
  const team = await teamFor(app, caller, params.team_id, 'read_history');
  refuseSandboxKey(caller, 'leave teams');
  const removed = await mapped(removeMember(app.db, team.id, caller.userId, app.clock()));
  if (!removed) throw new NotFoundError(TEAM_NOT_FOUND);
  await keysRevoked(app, team.id, caller.userId, removed, caller.userId);
  return { id: team.id, deleted: true, revoked_key_ids: removed.revokedKeyIds };
};

export const createTeamInvite: Handler<'createTeamInvite'> = async ({ app, caller, params, body, h }) => {
  const team = await teamFor(app, caller, params.team_id, 'invite');
  refuseSandboxKey(caller, 'invite team members');
  const role: TeamRole = body.role;
  if (role === 'owner') requirePermission(team.role, 'manage_owners');
  refuseGrantingBeyondScopes(caller, role, `inviting someone as ${role}`);
  const email = normaliseEmail(body.email);
  const token = newSecret(INVITE_TOKEN_PREFIX);
  // the role is asked again under the team lock: a removal or demotion may have committed since
  const mayInvite = (current: TeamRole) => {
    requirePermission(current, 'invite');
    if (role === 'owner') requirePermission(current, 'manage_owners');
  };
  const invite = await createInvite(app.db, { teamId: team.id, email, role, invitedBy: caller.userId, tokenHash: sha256Hex(token) }, app.clock(), mayInvite);
  if (!invite) throw new NotFoundError(TEAM_NOT_FOUND);
  sendInBackground(app, teamInviteMail(email, team.name, role, token, app.config.publicUrl));
  app.log.info({ event: 'team_invite_sent', teamId: team.id, inviteId: invite.id, by: caller.userId }, 'teams: invite sent');
  return h.response(inviteView(invite)).code(201);
};

export const listTeamInvites: Handler<'listTeamInvites'> = async ({ app, caller, params }) => {
  const team = await teamFor(app, caller, params.team_id, 'invite');
  return (await listInvites(app.db, team.id, app.clock())).map(inviteView);
};

export const revokeTeamInvite: Handler<'revokeTeamInvite'> = async ({ app, caller, params }) => {
  const team = await teamFor(app, caller, params.team_id, 'invite');
  const inviteId = idOf(params.invite_id, 'invite');
  await refuseSandboxKeyOn(caller, 'revoke team invites', async () => (await listInvites(app.db, team.id, app.clock())).some((i) => i.id === inviteId), 'invite not found');
  if (!(await revokeInvite(app.db, team.id, inviteId, app.clock()))) throw new NotFoundError('invite not found');
  return { id: inviteId, deleted: true };
};

export const acceptTeamInvite: Handler<'acceptTeamInvite'> = async ({ app, caller, body, studio }) => {
  refuseSandboxKey(caller, 'accept team invites');
  // before the token is looked at: the invite stays pending
  await refuseStudioUser(app, caller, studio, STUDIO_USER_NO_TEAMS);
  const user = await findUserById(app.db, caller.userId);
  if (!user) throw new UnauthorizedError('missing or invalid credentials: send x-api-key or Authorization: Bearer <token>');
  const team = await mapped(acceptInvite(app.db, sha256Hex(body.token), { id: user.id, email: user.email }, app.clock()));
  app.log.info({ event: 'team_invite_accepted', teamId: team.id, userId: user.id }, 'teams: invite accepted');
  return teamView(team);
};
