// Caller guards the typed handlers share: what a sandbox key may see and change, and what a
// studio's user may not do.
import type { App, Caller, StudioContext } from '../lib/context.ts';
import { ForbiddenError, StudioRefusedError } from '../lib/errors.ts';
import type { OwnedCaller } from './types.ts';
import { studioOfUser } from '../db/studios.ts';

/**
 * Whether this caller may see a prediction it found with its owner (findPrediction scopes the
 * query, so a team's prediction by another member is found under team_id): a sandbox key sees
 * only sandbox predictions (a sandbox key can do only sandbox things; issue 16). Anything else is
 * as unknown as a made-up id.
 */
export function canSee(caller: Caller, p: { isTest: boolean; embedCodeId?: number | null; embedVisitor?: string | null } | undefined): boolean {
  if (p === undefined) return false;
  // an embed code's visitor sees only what it made with that code (README "Embeds")
  if (caller.embed) return p.embedCodeId === caller.embed.codeId && p.embedVisitor === caller.embed.visitorHash;
  return !caller.isTest || p.isTest;
}

/** For routes that change the account's production credentials: a sandbox key gets 403. */
export function refuseSandboxKey(caller: Caller, what: string): void {
  if (caller.isTest) throw new ForbiddenError(`a sandbox key may not ${what}; use a production key or a session`);
}

/** Which of `scopes` the caller's credential does not hold (none for a session or an unrestricted key). */
export function missingScopes(caller: Caller, scopes: readonly string[]): string[] {
  return scopes.filter((s) => !(caller.scopes as readonly string[]).includes(s));
}

/**
 * For routes that set up something acting with `scopes` (a studio whose owner pays runs its
 * users' models on the caller's credit; a team role granted to another account): a caller that
 * does not hold all of them gets 403, since no credential makes another that can do more than
 * itself. `purpose` says, in the detail, what each missing scope is for (scopes for the same
 * purpose are named together). Sessions and unrestricted keys hold every scope.
 */
export function refuseBeyondScopes(caller: Caller, scopes: readonly string[], what: string, purpose?: (scope: string) => string): void {
  const missing = missingScopes(caller, scopes);
  if (!missing.length) return;
  const named = purpose ? listed(byPurpose(missing, purpose).map(([why, some]) => `${listed(some)} (${why})`)) : missing.join(' ');
  throw new ForbiddenError(`${what} needs ${named}, which this credential does not hold; no credential may make another that can do more than itself`);
}

/** The scopes grouped by what they are for, in the order each purpose first comes. */
function byPurpose(scopes: readonly string[], purpose: (scope: string) => string): Array<[string, string[]]> {
  const groups = new Map<string, string[]>();
  for (const s of scopes) {
    const why = purpose(s);
    groups.set(why, [...(groups.get(why) ?? []), s]);
  }
  return [...groups];
}

/** `a`, `a and b`, `a, b and c`. */
function listed(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/**
 * A studio's user (README "Whitelabel studios") runs models only within the studio, at its prices
 * and among its models: whatever would let them run one outside it (an embed code, a team with
 * its wallet and keys) is 403, `refusal` saying what they cannot do. A team's key is the team's,
 * never a studio user's; a studio's owner and its team's members are no studio's users.
 */
export async function refuseStudioUser(app: App, caller: Caller, studio: StudioContext | undefined, refusal: string): Promise<void> {
  if (caller.keyTeamId !== undefined) return;
  const userStudio = caller.studioId !== undefined ? caller.studioId : await studioOfUser(app.db, caller.userId);
  if (userStudio === null) return;
  const which = studio?.id === userStudio ? `the studio "${studio.slug}"` : 'a studio';
  throw new ForbiddenError(`this account belongs to ${which}, whose users run models only within it: ${refusal}`);
}

/**
 * A credential used in a studio's context that is not of a user of the studio, of its owner or of
 * a member of its owning team (or the team's key); an embed code always, since a code never acts
 * in a studio. One answer wherever it is refused: the studio context's check of every credential
 * (plugins/credentials.ts, whitelabelPlugin), and resolving a code in a studio's context.
 */
export function studioForbiddenRefusal(studio: Pick<StudioContext, 'slug'>): StudioRefusedError {
  return new StudioRefusedError(403, 'studio_forbidden', `this credential does not belong to the studio "${studio.slug}" (its users, its owner or its owning team's members)`);
}

/**
 * Whether the caller may read the wallet's balance: its own, or a team's with `read_balance` (a
 * team key has it). A team member without it (viewer) reads the team's history through
 * `read_history` without what tells the balance: the ledger's balance fields, the team's alerts.
 */
export function readsBalance(caller: OwnedCaller): boolean {
  return caller.owner.teamId === null || (caller.teamPermissions?.includes('read_balance') ?? false);
}

/**
 * Whether the caller may see the wallet's alerts where a route it reaches by another scope lists
 * them (the webhook delivery log, `generate:read`): it reads the balance, and its credential holds
 * `account:read`, which `listAlerts` needs (sessions and unrestricted keys hold every scope).
 */
export function readsAlerts(caller: OwnedCaller): boolean {
  return readsBalance(caller) && missingScopes(caller, ['account:read']).length === 0;
}
