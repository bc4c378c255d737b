// Security events of the /auth routes, one line each (warn for refusals that suggest an attack),
// for operators: who signed in how, from where. Never a password, code, token or key; no email
// either, only account ids. An operation's own outcome is declared in the spec (`x-audit`,
// `x-audit-refusal`) and logged by the route bridge (handlers/policies.ts); `audit()` is called by
// hand only for a fact that some requests of an operation establish and others do not (a code
// mailed to an account that exists, an address verified for the first time).
import type { Request } from '@hapi/hapi';
import type { App } from '../lib/context.ts';
import { clientIp } from '../lib/addresses.ts';

/** What the /auth helpers need of a request's context: typed (OperationContext) and legacy contexts alike. */
export interface AuthContext {
  app: App;
  request: Request;
  operationId: string;
}

/** Every audit event and its log level: refusals that suggest an attack are warnings. */
export const AUDIT_EVENTS = {
  registered: 'info',
  signed_in: 'info',
  sign_in_refused: 'warn',
  signed_out: 'info',
  code_sent: 'info',
  code_refused: 'warn',
  email_verified: 'info',
  signup_credit_granted: 'info',
  password_reset: 'info',
  identity_linked: 'info',
  rate_limited: 'warn',
} as const satisfies Record<string, 'info' | 'warn'>;

export type AuthEvent = keyof typeof AUDIT_EVENTS;

export function isAuditEvent(v: unknown): v is AuthEvent {
  return typeof v === 'string' && Object.hasOwn(AUDIT_EVENTS, v);
}

/** What a handler adds to its operation's declared event (`ctx.audit.userId = user.id`): account ids, methods, reasons. */
export type AuditFields = Record<string, string | number | boolean | undefined>;

export function audit(ctx: AuthContext, event: AuthEvent, fields: AuditFields = {}): void {
  ctx.app.log[AUDIT_EVENTS[event]]({ event, route: ctx.operationId, address: clientIp(ctx.request, ctx.app.config.trustedProxies)?.toString() ?? ctx.request.info.remoteAddress, ...fields }, `auth: ${event}`);
}
