// Support for the handlers not converted to the typed contract yet: typed handlers of protected
// operations receive a caller that is never null, and typed params.
import type { Caller } from '../plugins/auth.ts';
import { NotFoundError, UnauthorizedError } from '../lib/errors.ts';
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
