// Security events of the /auth routes, one info line each (warn for refusals that suggest an
// attack), for operators: who signed in how, from where. Never a password, code, token or key;
// no email either, only account ids.
import type { Request } from '@hapi/hapi';
import type { App } from '../lib/context.ts';
import { clientIp } from '../lib/addresses.ts';

/** What the /auth helpers need of a request's context: typed (OperationContext) and legacy contexts alike. */
export interface AuthContext {
  app: App;
  request: Request;
  operationId: string;
}

export type AuthEvent =
  | 'registered' | 'signed_in' | 'sign_in_refused' | 'signed_out' | 'code_sent' | 'code_refused'
  | 'email_verified' | 'signup_credit_granted' | 'password_reset' | 'identity_linked' | 'rate_limited';

export function audit(ctx: AuthContext, event: AuthEvent, fields: Record<string, string | number | boolean | undefined> = {}): void {
  const level = event === 'rate_limited' || event === 'sign_in_refused' || event === 'code_refused' ? 'warn' : 'info';
  ctx.app.log[level]({ event, route: ctx.operationId, address: clientIp(ctx.request, ctx.app.config.trustedProxies)?.toString() ?? ctx.request.info.remoteAddress, ...fields }, `auth: ${event}`);
}
