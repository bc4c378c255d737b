// The caller's rights and whom a request acts for, in three parts:
// - account roles (users.role): which staff operations a login session may call;
// - team roles and the team permission table: what a member, or a team's API key, may do in a team;
// - the owner: the caller's own account or a team, resolved once per request from `team_id`,
//   whose records the request reads and writes and whose wallet holds and pays.
// The Caller itself (what a credential resolves to) is typed in lib/context.ts.
import { ForbiddenError, NotFoundError } from './errors.ts';
import type { Scope } from '../spec/scopes.ts';

// ------------------------------------------------------------------ account roles

// The gateway's roles (users.role) and what they are for. An operation names the roles that may
// call it in the spec (`x-required-role`, one name or a list); `admin` may call every one of them.
// Only a login session carries its user's role: API keys, OAuth tokens and every other credential
// are refused on these operations (plugins/spec-routes.ts). README "Roles".
export const ROLES = ['user', 'support', 'billing', 'admin'] as const;

export type Role = (typeof ROLES)[number];

export function isRole(v: unknown): v is Role {
  return typeof v === 'string' && (ROLES as readonly string[]).includes(v);
}

/** A stored role; anything unknown counts as the least privileged. */
export function roleOf(v: unknown): Role {
  return isRole(v) ? v : 'user';
}

/** Whether `role` may call an operation that requires one of `allowed` (admin may call every one). */
export function roleAllows(role: Role, allowed: readonly Role[]): boolean {
  return role === 'admin' || allowed.includes(role);
}

/** The roles that may act as a user (virtualLogin, support login links); admin is always among them. */
/** The scopes an embed code's visitors act with on OAuth-scoped routes: submitting to its model(s) and reading what they made. */
export const EMBED_CODE_SCOPES = ['generate:write', 'generate:read'] as const;

export const IMPERSONATING_ROLES: readonly Role[] = ['support', 'admin'];

// ------------------------------------------------------------------ team roles and permissions

// The team permission table (issue 8): the one place that says which role may do what.
// Handlers and the edge ask `can` / `requirePermission`; nothing else compares role names.

export const TEAM_ROLES = ['owner', 'admin', 'developer', 'billing', 'viewer'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

export const TEAM_PERMISSIONS = [
  /** submit generations billed to the team wallet */
  'generate',
  /** read the team's predictions, ledger rows and members */
  'read_history',
  /** read the team wallet's balance and held credit */
  'read_balance',
  /** create, list and revoke the team's API keys */
  'manage_keys',
  /** invite people, revoke invites, remove members and change roles (never an owner's: see manage_owners) */
  'invite',
  /** make someone an owner, or change or remove an owner */
  'manage_owners',
  /** add credit to the team wallet */
  'top_up',
  'rename',
  'delete_team',
] as const;
export type TeamPermission = (typeof TEAM_PERMISSIONS)[number];

const TABLE: Readonly<Record<TeamRole, readonly TeamPermission[]>> = {
  owner: TEAM_PERMISSIONS,
  admin: ['generate', 'read_history', 'read_balance', 'manage_keys', 'invite', 'top_up', 'rename'],
  developer: ['generate', 'read_history', 'read_balance', 'manage_keys'],
  billing: ['read_history', 'read_balance', 'top_up'],
  viewer: ['read_history'],
};

/**
 * What a team API key may do for its team: the permissions of the least role that can create one
 * (`developer`, the weakest role with manage_keys), so a key never does more than some member who
 * could have made it. Inviting, roles, renaming, deleting and top-ups take a member's credential.
 */
export const TEAM_KEY_PERMISSIONS: readonly TeamPermission[] = ['generate', 'read_history', 'read_balance', 'manage_keys'];

export function isTeamRole(v: unknown): v is TeamRole {
  return typeof v === 'string' && (TEAM_ROLES as readonly string[]).includes(v);
}

export function isTeamPermission(v: unknown): v is TeamPermission {
  return typeof v === 'string' && (TEAM_PERMISSIONS as readonly string[]).includes(v);
}

export function can(role: TeamRole, permission: TeamPermission): boolean {
  return TABLE[role].includes(permission);
}

/** Throws 403 naming the missing permission; a non-member must get 404 before this is asked. */
export function requirePermission(role: TeamRole, permission: TeamPermission): void {
  if (!can(role, permission)) {
    throw new ForbiddenError(`your role in this team (${role}) lacks the "${permission}" permission`);
  }
}

/**
 * The OAuth and API-key scopes that reach what each permission allows: the scopes of the
 * operations that declare it as their `x-team-permission` in the spec (test/lib/caller.test.ts
 * checks them), and for invite, manage_owners, rename and delete_team, which only the team
 * management routes ask, the `keys:manage` those routes take. Granting a role (an invite, a role
 * change) takes a credential holding every scope of the role's permissions (roleScopes): no
 * credential gives another account more than it can do itself.
 */
export const TEAM_PERMISSION_SCOPES: Readonly<Record<TeamPermission, readonly Scope[]>> = {
  generate: ['generate:write', 'files:write'],
  read_history: ['generate:read', 'account:read'],
  read_balance: ['account:read'],
  manage_keys: ['keys:manage'],
  invite: ['keys:manage'],
  manage_owners: ['keys:manage'],
  top_up: ['keys:manage'],
  rename: ['keys:manage'],
  delete_team: ['keys:manage'],
};

/** Every scope a credential must hold to grant `role`, in the order of the role's permissions. */
export function roleScopes(role: TeamRole): Scope[] {
  return [...new Set(TABLE[role].flatMap((p) => TEAM_PERMISSION_SCOPES[p]))];
}

/** The table as rows, for the README and tests. */
export function permissionTable(): Array<{ role: TeamRole; permissions: readonly TeamPermission[] }> {
  return TEAM_ROLES.map((role) => ({ role, permissions: TABLE[role] }));
}

// ------------------------------------------------------------------ the owner

// Who owns what a request reads or creates: the caller's own account, or a team the caller is
// a member of. Resolved once per request by the route bridge (plugins/spec-routes.ts), from the
// operation's `team_id` parameter, before the handler runs; handlers and db/ only see the result.

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

/** The owner a request acts for, with what the caller may do in the owner's team (null: the owner is the caller's own account). */
export interface OwnerAccess {
  owner: Owner;
  /** the caller's role's permissions in that team, or a team key's (TEAM_KEY_PERMISSIONS) */
  teamPermissions: readonly TeamPermission[] | null;
}

/**
 * A team that does not exist and a team the caller is not in are the same 404 (no probing); a
 * member whose role lacks the operation's permission (`x-team-permission` in the spec) gets 403
 * naming it. An operation that takes `team_id` without declaring a permission never reaches
 * here with one: start-up refuses it (spec/team-permissions check in app.ts). A team API key
 * (`keyTeamId`) follows teamKeyOwner.
 */
export async function resolveOwnerAccess(
  app: { teams?: TeamDirectory },
  caller: { userId: number; keyTeamId?: number },
  teamId: number | null | undefined,
  permission?: TeamPermission,
): Promise<OwnerAccess> {
  if (caller.keyTeamId !== undefined) {
    return { owner: teamKeyOwner({ userId: caller.userId, keyTeamId: caller.keyTeamId }, teamId, permission), teamPermissions: TEAM_KEY_PERMISSIONS };
  }
  if (teamId === null || teamId === undefined) return { owner: { userId: caller.userId, teamId: null }, teamPermissions: null };
  // An id no team can have (1e309 coerces to Infinity, which passes "integer") is unknown, not a query.
  if (!Number.isSafeInteger(teamId) || teamId <= 0) throw new NotFoundError(TEAM_NOT_FOUND);
  const membership = app.teams ? await app.teams.membership(teamId, caller.userId) : undefined;
  if (!membership || !isTeamRole(membership.role)) throw new NotFoundError(TEAM_NOT_FOUND);
  if (permission) requirePermission(membership.role, permission);
  return { owner: { userId: caller.userId, teamId }, teamPermissions: TABLE[membership.role] };
}

/** resolveOwnerAccess's owner alone. */
export async function resolveOwner(
  app: { teams?: TeamDirectory },
  caller: { userId: number; keyTeamId?: number },
  teamId: number | null | undefined,
  permission?: TeamPermission,
): Promise<Owner> {
  return (await resolveOwnerAccess(app, caller, teamId, permission)).owner;
}
