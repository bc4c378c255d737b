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
export const IMPERSONATING_ROLES: readonly Role[] = ['support', 'admin'];
