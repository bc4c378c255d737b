// Team management (issue 8): create, list, rename and delete teams, members and their roles,
// email invites. Every route that names a team resolves the caller's membership first (none:
// 404, existence stays hidden), then asks lib/team-permissions.ts (missing: 403 naming it).
import type { Handler, HandlerContext } from './types.ts';
import { httpError } from '../plugins/errors.ts';
import { integerParam, requireCaller } from './guards.ts';
import {
  acceptInvite, AlreadyMemberError, changeMemberRole, createInvite, createTeam as insertTeam, deleteTeam as softDeleteTeam, findMyTeam,
  InviteEmailMismatchError, InviteInvalidError, LastOwnerError, listInvites, listMembers, listMyTeams, removeMember, renameTeam as updateTeamName,
  revokeInvite, TeamNotEmptyError,
} from '../db/teams.ts';
import type { Invite, Member, Membership } from '../db/teams.ts';
import { findUserById, normaliseEmail } from '../db/users.ts';
import { newSecret, sha256Hex } from '../lib/secrets.ts';
import { can, isTeamRole, requirePermission } from '../lib/team-permissions.ts';
import type { TeamPermission, TeamRole } from '../lib/team-permissions.ts';
import { sendInBackground, teamInviteMail } from '../lib/mail.ts';

export const INVITE_TOKEN_PREFIX = 'mgi_';
const TEAM_NOT_FOUND = 'team not found';

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

/** The team as the caller sees it, after checking `permission`; 404 for non-members. */
async function teamFor(ctx: HandlerContext, permission: TeamPermission): Promise<Membership> {
  const caller = requireCaller(ctx);
  const team = await findMyTeam(ctx.app.db, integerParam(ctx, 'team_id'), caller.userId);
  if (!team) throw httpError(404, TEAM_NOT_FOUND);
  requirePermission(team.role, permission);
  return team;
}

function roleOf(v: unknown): TeamRole {
  // the spec's enum already validated it; this narrows the type
  if (!isTeamRole(v)) throw httpError(422, 'unknown role');
  return v;
}

/** Maps the domain errors of db/teams.ts onto statuses. */
async function mapped<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof LastOwnerError || err instanceof TeamNotEmptyError || err instanceof AlreadyMemberError) throw httpError(409, err.message);
    if (err instanceof InviteInvalidError) throw httpError(404, err.message);
    if (err instanceof InviteEmailMismatchError) throw httpError(403, err.message);
    throw err;
  }
}

export const createTeam: Handler = async (ctx) => {
  const caller = requireCaller(ctx);
  const team = await insertTeam(ctx.app.db, caller.userId, String(ctx.body.name).trim(), ctx.app.clock());
  return ctx.h.response(teamView(team)).code(201);
};

export const listTeams: Handler = async (ctx) => {
  const caller = requireCaller(ctx);
  return (await listMyTeams(ctx.app.db, caller.userId)).map(teamView);
};

export const getTeam: Handler = async (ctx) => teamView(await teamFor(ctx, 'read_history'));

export const renameTeam: Handler = async (ctx) => {
  const team = await teamFor(ctx, 'rename');
  const name = String(ctx.body.name).trim();
  if (!(await updateTeamName(ctx.app.db, team.id, name))) throw httpError(404, TEAM_NOT_FOUND);
  return teamView({ ...team, name });
};

export const deleteTeam: Handler = async (ctx) => {
  const team = await teamFor(ctx, 'delete_team');
  if (!(await mapped(softDeleteTeam(ctx.app.db, team.id, ctx.app.clock())))) throw httpError(404, TEAM_NOT_FOUND);
  return { id: team.id, deleted: true };
};

export const listTeamMembers: Handler = async (ctx) => {
  const team = await teamFor(ctx, 'read_history');
  return (await listMembers(ctx.app.db, team.id)).map(memberView);
};

/** Changing or granting the owner role needs manage_owners on top of invite. */
function ownersGuard(actor: TeamRole, newRole: TeamRole | null) {
  return (current: TeamRole) => {
    if (current === 'owner' || newRole === 'owner') requirePermission(actor, 'manage_owners');
  };
}

export const changeTeamMemberRole: Handler = async (ctx) => {
  const team = await teamFor(ctx, 'invite');
  const userId = integerParam(ctx, 'user_id');
  const role = roleOf(ctx.body.role);
  const before = await mapped(changeMemberRole(ctx.app.db, team.id, userId, role, ownersGuard(team.role, role)));
  if (!before) throw httpError(404, 'member not found');
  const member = (await listMembers(ctx.app.db, team.id)).find((m) => m.userId === userId);
  if (!member) throw httpError(404, 'member not found');
  return memberView(member);
};

export const removeTeamMember: Handler = async (ctx) => {
  const caller = requireCaller(ctx);
  const userId = integerParam(ctx, 'user_id');
  // removing oneself is leaving, which every member may do
  const team = await teamFor(ctx, userId === caller.userId ? 'read_history' : 'invite');
  const guard = userId === caller.userId ? () => {} : ownersGuard(team.role, null);
  if (!(await mapped(removeMember(ctx.app.db, team.id, userId, guard)))) throw httpError(404, 'member not found');
  return { id: userId, deleted: true };
};

export const leaveTeam: Handler = async (ctx) => {
  const caller = requireCaller(ctx);
  const team = await teamFor(ctx, 'read_history');
  if (!(await mapped(removeMember(ctx.app.db, team.id, caller.userId)))) throw httpError(404, TEAM_NOT_FOUND);
  return { id: team.id, deleted: true };
};

export const createTeamInvite: Handler = async (ctx) => {
  const caller = requireCaller(ctx);
  const team = await teamFor(ctx, 'invite');
  const role = roleOf(ctx.body.role);
  if (role === 'owner') requirePermission(team.role, 'manage_owners');
  const email = normaliseEmail(String(ctx.body.email));
  const token = newSecret(INVITE_TOKEN_PREFIX);
  const now = ctx.app.clock();
  const invite = await createInvite(ctx.app.db, { teamId: team.id, email, role, invitedBy: caller.userId, tokenHash: sha256Hex(token) }, now);
  sendInBackground(ctx.app, teamInviteMail(email, team.name, role, token, ctx.app.config.publicUrl));
  ctx.app.log.info({ event: 'team_invite_sent', teamId: team.id, inviteId: invite.id, by: caller.userId }, 'teams: invite sent');
  return ctx.h.response(inviteView(invite)).code(201);
};

export const listTeamInvites: Handler = async (ctx) => {
  const team = await teamFor(ctx, 'invite');
  return (await listInvites(ctx.app.db, team.id, ctx.app.clock())).map(inviteView);
};

export const revokeTeamInvite: Handler = async (ctx) => {
  const team = await teamFor(ctx, 'invite');
  const inviteId = integerParam(ctx, 'invite_id');
  if (!(await revokeInvite(ctx.app.db, team.id, inviteId, ctx.app.clock()))) throw httpError(404, 'invite not found');
  return { id: inviteId, deleted: true };
};

export const acceptTeamInvite: Handler = async (ctx) => {
  const caller = requireCaller(ctx);
  const user = await findUserById(ctx.app.db, caller.userId);
  if (!user) throw httpError(401, 'missing or invalid credentials: send x-api-key or Authorization: Bearer <token>');
  const token = String(ctx.body.token);
  const team = await mapped(acceptInvite(ctx.app.db, sha256Hex(token), { id: user.id, email: user.email }, ctx.app.clock()));
  ctx.app.log.info({ event: 'team_invite_accepted', teamId: team.id, userId: user.id }, 'teams: invite accepted');
  return teamView(team);
};
