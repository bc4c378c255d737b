// Cross-cutting policies an operation declares in the spec, applied around its handler by the
// route bridge (plugins/spec-routes.ts):
//   x-rate-limit: <budget>     a name from RATE_LIMIT_POLICIES (./rate-limit.ts). Checked after
//                              validation and before the handler; attempt budgets count a request
//                              as a failure until its handler succeeds.
//   x-audit: <event>           an event of AUDIT_EVENTS (./audit.ts), logged when the handler succeeds,
//                              with the fields the handler put on `ctx.audit`.
//   x-audit-refusal: <event>   logged (with the same fields) when the handler refuses the request
//                              with a 4xx.
// Start-up refuses an unknown name, naming the operation. The two support modules do not import
// each other: a refused budget is recorded as `rate_limited` here.
import Boom from '@hapi/boom';
import type { Operation } from 'openapi-backend';
import { AUDIT_EVENTS, audit, isAuditEvent } from './audit.ts';
import type { AuditFields, AuthContext, AuthEvent } from './audit.ts';
import { BudgetExceededError, isRateLimitPolicy, RATE_LIMIT_POLICIES } from './rate-limit.ts';
import type { RateLimitContext, RateLimitPolicy } from './rate-limit.ts';
import { DomainError } from '../lib/errors.ts';

export interface OperationPolicies {
  rateLimit?: RateLimitPolicy;
  audit?: AuthEvent;
  auditRefusal?: AuthEvent;
}

/** What applying the policies needs of the handler's context. */
export interface PolicyContext extends AuthContext {
  body: Record<string, unknown>;
  audit: AuditFields;
  /** the caller and resolved owner (the generation budget counts per key and per owner) */
  caller?: RateLimitContext['caller'];
}

function bodyProperties(operation: Operation): Record<string, unknown> {
  const content = (operation.requestBody as { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } | undefined)?.content;
  return content?.['application/json']?.schema?.properties ?? {};
}

/** The policies an operation declares, checked: an unknown name stops start-up, naming the operation. */
export function policiesOf(operationId: string, operation: Operation): OperationPolicies {
  const ext = operation as unknown as Record<string, unknown>;
  const policies: OperationPolicies = {};
  const rateLimit = ext['x-rate-limit'];
  if (rateLimit !== undefined) {
    if (!isRateLimitPolicy(rateLimit)) throw new Error(`${operationId}: x-rate-limit must be one of ${Object.keys(RATE_LIMIT_POLICIES).join(', ')}`);
    if (RATE_LIMIT_POLICIES[rateLimit].email && !('email' in bodyProperties(operation))) {
      throw new Error(`${operationId}: x-rate-limit ${rateLimit} counts per email, but the operation's JSON body has no email`);
    }
    policies.rateLimit = rateLimit;
  }
  for (const [name, key] of [['x-audit', 'audit'], ['x-audit-refusal', 'auditRefusal']] as const) {
    const event = ext[name];
    if (event === undefined) continue;
    if (!isAuditEvent(event)) throw new Error(`${operationId}: ${name} must be one of ${Object.keys(AUDIT_EVENTS).join(', ')}`);
    policies[key] = event;
  }
  return policies;
}

export function hasPolicies(p: OperationPolicies): boolean {
  return p.rateLimit !== undefined || p.audit !== undefined || p.auditRefusal !== undefined;
}

/** A refusal of the request (4xx), as opposed to a fault (5xx) or success. */
function isRefusal(err: unknown): boolean {
  const status = err instanceof DomainError ? err.status : Boom.isBoom(err) ? err.output.statusCode : 500;
  return status >= 400 && status < 500;
}

/** A hapi response the handler built itself with an error status (h.response(...).code(4xx)). */
function answeredError(result: unknown): boolean {
  const status = typeof result === 'object' && result !== null ? (result as { statusCode?: unknown }).statusCode : undefined;
  return typeof status === 'number' && status >= 400;
}

/** Runs the handler (`run`) inside the operation's declared policies. */
export async function withPolicies<T>(policies: OperationPolicies, ctx: PolicyContext, run: () => Promise<T>): Promise<T> {
  let attempt: { succeeded(): Promise<void> } | void = undefined;
  if (policies.rateLimit) {
    const email = ctx.body.email;
    try {
      attempt = await RATE_LIMIT_POLICIES[policies.rateLimit].admit(ctx, typeof email === 'string' ? email : '');
    } catch (err) {
      if (err instanceof BudgetExceededError) audit(ctx, 'rate_limited', { budget: err.budget });
      throw err;
    }
  }
  let result: T;
  try {
    result = await run();
  } catch (err) {
    if (policies.auditRefusal && isRefusal(err)) audit(ctx, policies.auditRefusal, ctx.audit);
    throw err;
  }
  if (answeredError(result)) {
    if (policies.auditRefusal) audit(ctx, policies.auditRefusal, ctx.audit);
    return result;
  }
  if (attempt) await attempt.succeeded();
  if (policies.audit) audit(ctx, policies.audit, ctx.audit);
  return result;
}
