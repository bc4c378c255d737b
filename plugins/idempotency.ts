// The Idempotency-Key convention (README "Idempotent requests"), applied by the route bridge
// (plugins/spec-routes.ts) to every operation that declares the `Idempotency-Key` header
// parameter (`#/components/parameters/IdempotencyKey`): all model endpoints, and any
// money-moving route that adds the same one line to its `parameters`.
//
// The same key and the same request (operation, path, query, body) from the same owner within
// 24 hours get the first answer again (same status, body and headers, plus
// `Idempotent-Replayed: true`) and run nothing. A concurrent duplicate waits for the first to
// answer. Another request under a used key is 409. Only a successful (2xx) answer is kept: a
// failed request frees its key, so the retry runs again. The key is stored only hashed with its
// scope, the request only as a hash.
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Request, ResponseObject, ResponseToolkit } from '@hapi/hapi';
import type { Operation } from 'openapi-backend';
import type { App } from '../lib/context.ts';
import { ConflictError, InvalidInputError } from '../lib/errors.ts';
import {
  claimIdempotencyKey, completeIdempotencyKey, findIdempotencyKey, releaseIdempotencyKey,
} from '../db/idempotency.ts';
import type { StoredResponse } from '../db/idempotency.ts';

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** How long a duplicate waits for the first request to answer before it gets 409. */
const WAIT_MS = 15_000;
const POLL_MS = 40;

/** true when the operation declares the `Idempotency-Key` header parameter: the opt-in. */
export function declaresIdempotencyKey(operation: Operation): boolean {
  const params = (operation.parameters ?? []) as Array<{ name?: string; in?: string }>;
  return params.some((p) => p.in === 'header' && p.name?.toLowerCase() === 'idempotency-key');
}

/** The request's Idempotency-Key, or undefined without one; a malformed key is 400. */
export function idempotencyKeyOf(request: Request): string | undefined {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > IDEMPOTENCY_KEY_MAX_LENGTH || !/^[\x20-\x7e]+$/.test(raw)) {
    throw new InvalidInputError(`Idempotency-Key must be 1-${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters (a UUID is a good choice)`);
  }
  return raw;
}

/** JSON with object keys sorted, so that the same body in another key order is the same request. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).sort().filter((k) => o[k] !== undefined).map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

export interface IdempotentCall {
  app: App;
  h: ResponseToolkit;
  operationId: string;
  key: string;
  /**
   * who the key belongs to: an owner's keys are its own, sandbox and production never share one,
   * and each visitor of an embed code has its own (visitors are strangers to each other)
   */
  caller: { userId: number; isTest: boolean; owner: { userId: number; teamId: number | null }; embed?: { codeId: number; visitorHash: string } };
  /** what makes two requests "the same": method, path, query and body */
  request: { method: string; path: string; query: unknown; body: unknown };
}

function isResponseObject(v: unknown): v is ResponseObject {
  return typeof v === 'object' && v !== null && 'statusCode' in v && 'source' in v && typeof (v as { header?: unknown }).header === 'function';
}

function stored(result: unknown): StoredResponse {
  if (!isResponseObject(result)) return { status: 200, body: result, headers: {} };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers)) {
    if (typeof value === 'string' || typeof value === 'number') headers[name] = String(value);
  }
  // hapi fills in the default status (200) only when it prepares the response
  return { status: result.statusCode ?? 200, body: result.source, headers };
}

function replay(h: ResponseToolkit, answer: StoredResponse): ResponseObject {
  const response = h.response(answer.body as object).code(answer.status);
  for (const [name, value] of Object.entries(answer.headers)) response.header(name, value);
  return response.header('Idempotent-Replayed', 'true');
}

/** Runs `run` at most once per (owner, key, request) within 24 hours; see the top of this file. */
export async function runIdempotent(call: IdempotentCall, run: () => Promise<unknown>): Promise<unknown> {
  const { app, caller } = call;
  const visitor = caller.embed ? `:embed:${caller.embed.codeId}:${caller.embed.visitorHash}` : '';
  const scope = `${caller.owner.userId}:${caller.owner.teamId ?? '-'}:${caller.isTest ? 'test' : 'live'}${visitor}`;
  const keyHash = sha256(`${scope}\n${call.key}`);
  const requestHash = sha256(canonicalJson({ operationId: call.operationId, ...call.request }));
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const claim = await claimIdempotencyKey(app.db, { keyHash, userId: caller.userId, operationId: call.operationId, requestHash }, app.clock(), IDEMPOTENCY_TTL_MS);
    if (claim.kind === 'claimed') break;
    let record: typeof claim.record | undefined = claim.record;
    if (record.requestHash !== requestHash) {
      throw new ConflictError('this Idempotency-Key was already used with a different request (another body, query or operation) in the last 24 hours; send a new key for a new request');
    }
    // the first request is still running: wait for its answer (or for it to fail and free the key)
    while (record?.state === 'running' && Date.now() < deadline) {
      await sleep(POLL_MS);
      record = await findIdempotencyKey(app.db, keyHash);
    }
    if (record?.state === 'done' && record.response) return replay(call.h, record.response);
    if (record?.state === 'running') {
      throw new ConflictError('a request with this Idempotency-Key is still being processed; retry once it has answered');
    }
    // freed by a failed first request: this one runs (loop to claim it)
  }

  let result: unknown;
  try {
    result = await run();
  } catch (err) {
    await releaseIdempotencyKey(app.db, keyHash).catch((e: unknown) => app.log.error({ err: e }, 'could not free an idempotency key'));
    throw err;
  }
  const answer = stored(result);
  try {
    if (answer.status >= 200 && answer.status < 300) await completeIdempotencyKey(app.db, keyHash, answer);
    else await releaseIdempotencyKey(app.db, keyHash);
  } catch (err) {
    // The work is done: answer it. The key stays `running`, so a retry gets 409 rather than a second run.
    app.log.error({ err, operationId: call.operationId }, 'could not record an idempotent answer');
  }
  return result;
}
