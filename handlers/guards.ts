// Support for the handlers not converted to the typed contract yet: typed handlers of protected
// operations receive a caller that is never null, and typed params.
import type { Caller } from '../lib/context.ts';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../lib/errors.ts';
import type { HandlerContext } from './types.ts';

/** The authenticated caller; hapi's auth already refused requests without one on protected routes. */
export function requireCaller(ctx: HandlerContext): Caller {
  if (!ctx.caller) throw new UnauthorizedError('missing or invalid credentials: send x-api-key or Authorization: Bearer <token>');
  return ctx.caller;
}

export function integerParam(ctx: HandlerContext, name: string): number {
  const v = Number(ctx.params[name]);
  if (!Number.isSafeInteger(v)) throw new NotFoundError('not found');
  return v;
}

/**
 * Whether this caller may see the prediction: the account's own, and for a sandbox key only
 * sandbox predictions (a sandbox key can do only sandbox things; issue 16). Anything else is as
 * unknown as a made-up id.
 */
export function canSee(caller: Caller, p: { userId: number; isTest: boolean } | undefined): boolean {
  return p !== undefined && p.userId === caller.userId && (!caller.isTest || p.isTest);
}

/** For routes that change the account's production credentials: a sandbox key gets 403. */
export function refuseSandboxKey(caller: Caller, what: string): void {
  if (caller.isTest) throw new ForbiddenError(`a sandbox key may not ${what}; use a production key or a session`);
}
