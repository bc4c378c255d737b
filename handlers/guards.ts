// Caller guards the typed handlers share: what a sandbox key may see and change.
import type { Caller } from '../lib/context.ts';
import { ForbiddenError } from '../lib/errors.ts';

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
