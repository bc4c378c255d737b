import type { Caller } from '../plugins/auth.ts';
import { httpError } from '../plugins/errors.ts';
import type { HandlerContext } from './types.ts';

/** The authenticated caller; hapi's auth already refused requests without one on protected routes. */
export function requireCaller(ctx: HandlerContext): Caller {
  if (!ctx.caller) throw httpError(401, 'missing or invalid credentials: send x-api-key or Authorization: Bearer <token>');
  return ctx.caller;
}

export function integerParam(ctx: HandlerContext, name: string): number {
  const v = Number(ctx.params[name]);
  if (!Number.isSafeInteger(v)) throw httpError(404, 'not found');
  return v;
}
