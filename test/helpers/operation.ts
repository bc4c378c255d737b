// Calls an operation by its operationId, the way a client generated from the spec would, and
// checks every reply against the spec: the status must be one the operation declares, and a JSON
// body must match that status's schema. A handler whose reply drifts from the spec fails the test
// that called it, whatever that test asserts itself.
import type { ServerInjectResponse } from '@hapi/hapi';
import { ValidationContext } from 'openapi-backend';
import type { OpenAPIValidator } from 'openapi-backend';
import type { TestGateway } from './gateway.ts';

export interface CallOptions {
  params?: Record<string, string | number>;
  query?: Record<string, string | number | boolean>;
  body?: unknown;
  headers?: Record<string, string>;
  /** a credential: an API key (mg_…) goes in x-api-key, anything else is a bearer token */
  as?: string;
}

export interface OperationReply<T = unknown> {
  status: number;
  body: T;
  headers: Record<string, unknown>;
  raw: ServerInjectResponse;
}

interface DeclaredOperation {
  method: string;
  path: string;
  responses: Record<string, { content?: Record<string, unknown> } | undefined>;
}

function declared(gw: TestGateway, operationId: string): DeclaredOperation {
  const op = gw.app.spec.operations.find((o) => o.operationId === operationId);
  if (!op) throw new Error(`callOperation: the spec declares no operation ${operationId}`);
  return op as unknown as DeclaredOperation;
}

export function urlFor(gw: TestGateway, operationId: string, params: CallOptions['params'] = {}, query: CallOptions['query'] = {}): string {
  const op = declared(gw, operationId);
  const pathname = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    if (!(name in params)) throw new Error(`callOperation ${operationId}: missing path parameter ${name}`);
    return encodeURIComponent(String(params[name]));
  });
  const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
  return search ? `${pathname}?${search}` : pathname;
}

function credentialHeaders(as: string | undefined): Record<string, string> {
  if (!as) return {};
  return as.startsWith('mg_') ? { 'x-api-key': as } : { authorization: `Bearer ${as}` };
}

type Validate = ((body: unknown) => boolean) & { errors?: Array<{ instancePath: string; message?: string; params: unknown }> | null };
const validators = new Map<string, Validate>();
let responseAjv: ReturnType<OpenAPIValidator['getAjv']> | undefined;

/**
 * The errors of a reply's JSON body against the schema its operation declares for its status (the
 * status itself, its `NXX`, or `default`, as openapi-backend's validateResponse picks), or null
 * when the status declares no JSON body. Validators are compiled once per process and schema on
 * the gateway's own Ajv settings: the library compiles every status of an operation on a new Ajv
 * instance, once per gateway, while the spec's 1,263 response bodies are 97 distinct schemas
 * (up to a tenth of a handler test file's CPU went there). The schemas are dereferenced without
 * cycles, so their JSON is the key.
 */
export function responseErrors(gw: TestGateway, operationId: string, status: number, body: unknown): NonNullable<Validate['errors']> | null {
  const op = declared(gw, operationId);
  const response = op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
  const schema = (response?.content?.['application/json'] as { schema?: object } | undefined)?.schema
    ?? (status === 204 && response && !response.content ? { type: 'null' } : undefined);
  if (!schema) return null;
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (!validate) {
    responseAjv ??= gw.app.spec.api.validator.getAjv(ValidationContext.Response);
    validate = responseAjv.compile(schema) as unknown as Validate;
    validators.set(key, validate);
  }
  return validate(body) ? [] : (validate.errors ?? []);
}

/**
 * Problems of one reply against the spec (empty when it conforms). Exported for sweeps that make
 * requests themselves.
 */
export function specProblems(gw: TestGateway, operationId: string, res: ServerInjectResponse): string[] {
  const op = declared(gw, operationId);
  const status = res.statusCode;
  const response = op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
  if (!response) return [`${operationId} answered ${status}, which the spec does not declare (declared: ${Object.keys(op.responses).join(', ')})`];
  const type = String(res.headers['content-type'] ?? '');
  if (!response.content || !type.startsWith('application/json')) return [];
  const body = JSON.parse(res.payload) as unknown;
  return (responseErrors(gw, operationId, status, body) ?? []).map((e) => `${operationId} ${status}: body${e.instancePath} ${e.message ?? 'is invalid'} (${JSON.stringify(e.params)})`);
}

export async function callOperation<T = unknown>(gw: TestGateway, operationId: string, opts: CallOptions = {}): Promise<OperationReply<T>> {
  const op = declared(gw, operationId);
  const res = await gw.server.inject({
    method: op.method.toUpperCase(),
    url: urlFor(gw, operationId, opts.params, opts.query),
    headers: { ...credentialHeaders(opts.as), ...opts.headers },
    ...(opts.body === undefined ? {} : { payload: opts.body as object }),
  });
  const problems = specProblems(gw, operationId, res);
  if (problems.length) throw new Error(`the reply does not match the spec:\n  ${problems.join('\n  ')}\n  body: ${res.payload.slice(0, 500)}`);
  const isJson = String(res.headers['content-type'] ?? '').startsWith('application/json');
  return { status: res.statusCode, body: (isJson ? JSON.parse(res.payload) : res.payload) as T, headers: res.headers, raw: res };
}
