// The team permission table (issue 8): the one place that says which role may do what.
// Handlers and the edge ask `can` / `requirePermission`; nothing else compares role names.
import { ForbiddenError } from './errors.ts';

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

/** The table as rows, for the README and tests. */
export function permissionTable(): Array<{ role: TeamRole; permissions: readonly TeamPermission[] }> {
  return TEAM_ROLES.map((role) => ({ role, permissions: TABLE[role] }));
}
