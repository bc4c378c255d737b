// Who owns what a request reads or creates: the caller's own account, or a team the caller is
// a member of. Resolved once per request by the route bridge (plugins/spec-routes.ts), from the
// operation's `team_id` parameter, before the handler runs; handlers and db/ only see the result.
import { ForbiddenError, NotFoundError } from './errors.ts';
import { isTeamRole, requirePermission, TEAM_KEY_PERMISSIONS } from './team-permissions.ts';
import type { TeamPermission } from './team-permissions.ts';

/**
 * Who owns a record, and whose wallet holds and pays (the one owner type of every room): a user's
 * own account (teamId null) or a team's. As a wallet's owner on a ledger row, userId is the member
 * whose prediction it was (or who was credited); a user's personal rows are those with team_id null.
 */
export interface Owner {
  userId: number;
  /** null: the caller's personal account */
  teamId: number | null;
}

/**
 * The one key of an owner, wherever an owner is stored or looked up by a string (a wallet's
 * subscriptions and grants, a group of a batch, a history counter, discounts): `user:<id>` for a
 * user's own account, `team:<id>` for a team's.
 */
export function ownerKey(o: Owner): string {
  return o.teamId === null ? `user:${o.userId}` : `team:${o.teamId}`;
}

/**
 * THE seam for teams: the one membership lookup owner resolution needs. Until db/teams.ts is
 * wired in (app.teams), every `team_id` answers 404 `team not found`.
 */
export interface TeamDirectory {
  /** the caller's membership of the team, or undefined when the team does not exist or the caller is not in it */
  membership(teamId: number, userId: number): Promise<{ role: string } | undefined>;
}

export const TEAM_NOT_FOUND = 'team not found';

/**
 * A team API key acts for its team and nothing else (the key belongs to the team, not to the
 * member who created it, so no membership is asked): an operation with a team scope
 * (`x-team-permission`) runs as the key's team, with or without `team_id`; a `team_id` naming
 * another team is 403; an operation without a team scope acts on a personal account (user
 * details, personal keys, OAuth clients) or needs a member (team management),
 * and is 403 too. A key holds
 * the permissions in TEAM_KEY_PERMISSIONS.
 */
function teamKeyOwner(caller: { userId: number; keyTeamId: number }, teamId: number | null | undefined, permission: TeamPermission | undefined): Owner {
  if (permission === undefined) {
    throw new ForbiddenError('this API key belongs to a team and acts only for it; this operation acts on a personal account: use a personal API key or a session');
  }
  if (teamId !== null && teamId !== undefined && teamId !== caller.keyTeamId) {
    throw new ForbiddenError(`this API key belongs to team ${caller.keyTeamId} and acts for no other team`);
  }
  if (!TEAM_KEY_PERMISSIONS.includes(permission)) {
    throw new ForbiddenError(`a team API key lacks the "${permission}" permission; use a member's session or personal API key`);
  }
  return { userId: caller.userId, teamId: caller.keyTeamId };
}

/**
 * A team that does not exist and a team the caller is not in are the same 404 (no probing); a
 * member whose role lacks the operation's permission (`x-team-permission` in the spec) gets 403
 * naming it. An operation that takes `team_id` without declaring a permission never reaches
 * here with one: start-up refuses it (spec/team-permissions check in app.ts). A team API key
 * (`keyTeamId`) follows teamKeyOwner.
 */
export async function resolveOwner(
  app: { teams?: TeamDirectory },
  caller: { userId: number; keyTeamId?: number },
  teamId: number | null | undefined,
  permission?: TeamPermission,
): Promise<Owner> {
  if (caller.keyTeamId !== undefined) return teamKeyOwner({ userId: caller.userId, keyTeamId: caller.keyTeamId }, teamId, permission);
  if (teamId === null || teamId === undefined) return { userId: caller.userId, teamId: null };
  // An id no team can have (1e309 coerces to Infinity, which passes "integer") is unknown, not a query.
  if (!Number.isSafeInteger(teamId) || teamId <= 0) throw new NotFoundError(TEAM_NOT_FOUND);
  const membership = app.teams ? await app.teams.membership(teamId, caller.userId) : undefined;
  if (!membership || !isTeamRole(membership.role)) throw new NotFoundError(TEAM_NOT_FOUND);
  if (permission) requirePermission(membership.role, permission);
  return { userId: caller.userId, teamId };
}
