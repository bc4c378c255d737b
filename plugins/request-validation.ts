// Spec validation of a request from what hapi already parsed. openapi-backend's validateRequest
// parses the request again on every call (the path template compiled to a regex and matched,
// the query deep-cloned, headers re-keyed, cookies parsed) before running the operation's
// compiled ajv validators; for an operation whose parameters need none of its special parsing,
// this builds the same object those validators check from hapi's params, query and headers, and
// runs them the same way (same validators, same order, same coercion and defaults). Any other
// operation, or a body that is not a JSON object or array, goes through openapi-backend.
import type { Request } from '@hapi/hapi';
import type { Operation } from 'openapi-backend';

/** What validation answers: openapi-backend's ValidationResult, as the bridge reads it. */
export interface ValidationOutcome {
  valid: boolean;
  errors?: unknown[] | null;
  coerced?: { query?: unknown; params?: unknown };
}

/** An operation's compiled ajv validators (openapi-backend's requestValidators[operationId]). */
type ValidateFn = ((data: unknown) => boolean) & { errors?: unknown[] | null };

/** Worked out once per operation: which query parameters are arrays (a single value becomes [value]). */
export interface ParsedValidationPlan {
  arrayQuery: ReadonlySet<string>;
}

type Parameter = { $ref?: string; in?: string; name?: string; schema?: { type?: unknown }; content?: unknown; explode?: boolean };

/**
 * The plan for validating from hapi's parse, or null when the operation needs openapi-backend's
 * own parsing: a cookie or JSON-content parameter, a non-exploded one, a body other than JSON.
 */
export function parsedValidationPlan(operation: Operation): ParsedValidationPlan | null {
  const params = (operation.parameters ?? []) as Parameter[];
  if (params.some((p) => p.$ref !== undefined || p.in === 'cookie' || p.content !== undefined || p.explode === false)) return null;
  const bodyTypes = Object.keys((operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content ?? {});
  if (bodyTypes.some((type) => type !== 'application/json')) return null;
  return { arrayQuery: new Set(params.filter((p) => p.in === 'query' && p.schema?.type === 'array').map((p) => p.name!)) };
}

/**
 * Validates with the operation's compiled validators. `body` is what the bridge validates (the
 * parsed JSON, or undefined without one); ajv's defaults and coercion apply to it and to the
 * copies of query and path parameters returned in `coerced`, as openapi-backend's do.
 * Returns undefined when the body needs openapi-backend's own handling (a JSON scalar).
 */
export function validateParsed(validators: readonly ValidateFn[], plan: ParsedValidationPlan, request: Request, body: unknown): ValidationOutcome | undefined {
  if (body !== undefined && typeof body !== 'object') return undefined;
  const query: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(request.query as Record<string, unknown>)) {
    query[name] = Array.isArray(value) ? [...value] : typeof value === 'string' && plan.arrayQuery.has(name) ? [value] : value;
  }
  const parameters: Record<string, unknown> = { path: { ...request.params }, query, header: { ...request.headers }, cookie: {} };
  const rawType = request.headers['content-type'];
  const contentType = String((Array.isArray(rawType) ? rawType[0] : rawType) || '').split(';')[0]!.trim().toLowerCase();
  if (typeof body === 'object' || contentType === 'application/json') parameters.requestBody = body;
  const errors: unknown[] = [];
  for (const validate of validators) {
    validate(parameters);
    if (validate.errors) errors.push(...validate.errors);
  }
  if (errors.length > 0) return { valid: false, errors };
  return { valid: true, errors: null, coerced: { query: parameters.query, params: parameters.path } };
}
