// Support of the route bridge: the audit row of a call to an operation with `x-required-role`
// (db/admin-audit.ts). Written at onPreResponse for every call by an authenticated caller,
// whatever the answer: successes, refusals by role or credential (403), bad bodies (422), unknown
// users (404). A call without a valid credential (401) has no actor and is not recorded. The
// handler adds what only it knows to `ctx.audit` (target_user_id, target_team_id).
// Also the row of every request of an impersonated session (virtualLogin, supportLogin), on any
// operation: actor the staff member (credential `impersonation`), target the account acted as.
import Boom from '@hapi/boom';
import type { Request } from '@hapi/hapi';
import type { App } from '../lib/context.ts';
import { clientIp } from '../lib/addresses.ts';
import { insertAdminAudit } from '../db/admin-audit.ts';
import { accountIdsByEmail, addressesInValue, pseudonymiseValue, replaceAddresses } from '../db/pseudonymise.ts';

declare module '@hapi/hapi' {
  interface RequestApplicationState {
    /** what a role operation's handler added to its audit row (ctx.audit) */
    adminAudit?: Record<string, string | number | boolean | undefined>;
  }
}

/** What a value nested below the cut is replaced with (cutBelow). */
export const CUT = '[cut: nested too deeply]';

/**
 * A copy of `value` with every object or array below `limit` levels replaced by CUT, each object's
 * entries passed through `entry` (which may rewrite a value by its key). Recursion is bounded by
 * `limit`, so a value of any depth is safe to pass.
 */
export function cutBelow(value: unknown, limit: number, entry: (key: string, v: unknown, walk: (v: unknown) => unknown) => unknown = (_k, v, walk) => walk(v)): unknown {
  const walk = (node: unknown, depth: number): unknown => {
    if (typeof node !== 'object' || node === null) return node;
    if (depth >= limit) return CUT;
    if (Array.isArray(node)) return node.map((v) => walk(v, depth + 1));
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, entry(k, v, (inner) => walk(inner, depth + 1))]));
  };
  return walk(value, 0);
}

/** Field names whose values never reach the audit log. */
const SECRET = /pass(word)?|secret|token|otp|api_?key|authorization|signature/i;
/** How deep the log records parameters: deeper parts are cut, so any body can be recorded. */
const AUDIT_DEPTH = 8;
/** Longer strings are cut to this many characters. */
const AUDIT_STRING = 500;
/** Recorded parameters larger than this (as JSON) are replaced by their size: the row must fit its column. */
const AUDIT_BYTES = 16_000;

const clip = (v: unknown) => (typeof v === 'string' && v.length > AUDIT_STRING ? `${v.slice(0, AUDIT_STRING)}[cut]` : v);

/** The parameters as recorded: secrets redacted, long strings clipped, nesting cut below AUDIT_DEPTH. */
export function redact(value: unknown): unknown {
  return cutBelow(clip(value), AUDIT_DEPTH, (k, v, walk) => (SECRET.test(k) ? '[redacted]' : walk(clip(v))));
}

/** The recorded parameters, or their size alone when they would not fit the row. */
function bounded(params: Record<string, unknown>): Record<string, unknown> {
  const bytes = Buffer.byteLength(JSON.stringify(params));
  return bytes <= AUDIT_BYTES ? params : { cut: `parameters of ${bytes} bytes are too large to record` };
}

/**
 * Audit rows are never updated, and an erased account must leave only anonymised ones (README
 * "Roles and administration"): so an email is never written to the log. A field named `email` is
 * recorded as the account it named (`user:<id>`, which the erasure leaves pointing at the
 * anonymised tombstone), or `[no account]`; an address inside any other string (the console's
 * search, a reason) is replaced the same way, by `user:<id>` or `[address]`. Both walks below see
 * only parameters already cut by redact(), so their depth is bounded; `reason` is clipped as its
 * column is.
 */
async function pseudonymiseEmails(app: App, params: Record<string, unknown>, reason: string | null): Promise<{ params: Record<string, unknown>; reason: string | null }> {
  const clipped = reason?.slice(0, AUDIT_STRING) ?? null;
  const emails = [...addressesInValue([params, clipped])];
  if (emails.length === 0) return { params, reason: clipped };
  const ids = await accountIdsByEmail(app.db, emails);
  return { params: pseudonymiseValue(params, ids) as Record<string, unknown>, reason: clipped === null ? null : replaceAddresses(clipped, ids) };
}

/** The largest id the audit's target columns (unsigned INT, as every id column) hold. */
const MAX_ID = 4_294_967_295;

/**
 * A target id, or null when no row can have it (out of the columns' range: a request naming
 * team 2^32 is still audited, with what it sent in `params`, instead of its row failing to insert).
 */
function idOf(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) && n >= 1 && n <= MAX_ID ? n : null;
}

export async function auditAdminCall(app: App, request: Request, operationId: string, roleOperation: boolean): Promise<void> {
  // (request.auth.credentials as plugins/credentials.ts declares them; spec-routes' callerOf would be an import cycle)
  const caller = request.auth.credentials?.user?.caller ?? null;
  if (!caller) return;
  const response = request.response;
  const status = Boom.isBoom(response) ? response.output.statusCode : (response as { statusCode?: number } | null)?.statusCode ?? 200;
  const body = typeof request.payload === 'object' && request.payload !== null && !Buffer.isBuffer(request.payload) ? request.payload as Record<string, unknown> : {};
  const fields = request.app.adminAudit ?? {};
  const said = typeof body.reason === 'string' ? body.reason : null;
  // an impersonated session: the staff member acts, on the account the session belongs to
  const { impersonator } = caller;
  try {
    // an impersonated request to an ordinary route records that it happened (the request id ties
    // it to the request log), not what was sent: a prompt is the user's, not the audit log's
    const recorded = impersonator && !roleOperation
      ? { params: {}, reason: (await pseudonymiseEmails(app, {}, said)).reason }
      // bounded before the accounts are looked up too: parameters too large to record name none
      : await pseudonymiseEmails(app, bounded({ query: redact({ ...request.query }) as Record<string, unknown>, body: redact(body) }), said);
    await insertAdminAudit(app.db, {
      actorUserId: impersonator?.userId ?? caller.userId,
      actorRole: impersonator?.role ?? caller.role,
      credential: impersonator ? 'impersonation' : caller.via,
      action: operationId,
      targetUserId: idOf(fields.target_user_id) ?? (impersonator ? caller.userId : null),
      targetTeamId: idOf(fields.target_team_id ?? (request.query as Record<string, unknown>).team_id),
      params: bounded(recorded.params),
      reason: recorded.reason,
      status,
      clientAddress: clientIp(request, app.config.trustedProxies)?.toString() ?? request.info.remoteAddress ?? null,
      // set at onRequest by plugins/responses.ts
      requestId: request.app.requestId ?? null,
      now: app.clock(),
    });
  } catch (err) {
    // The answer stands (a money move has committed by now); the operator is told loudly.
    app.log.error({ err, event: 'admin_audit_failed', action: operationId, actor: caller.userId, status }, 'could not write the admin audit row');
  }
}
