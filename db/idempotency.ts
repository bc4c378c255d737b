// Idempotency keys (README "Idempotent requests"). A request claims its key with one INSERT on
// the primary key: of two concurrent requests exactly one inserts, the other finds the row.
// Expected outcomes are returned, never thrown.
import type { Db } from './knex.ts';
import { affected, jsonOr, num, numOrNull } from './knex.ts';
import { isDuplicateKey } from './errors.ts';

/** The answer of the first request, replayed to its retries. */
export interface StoredResponse {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export interface IdempotencyRecord {
  keyHash: string;
  operationId: string;
  requestHash: string;
  /** running: the first request is being served; done: `response` holds its answer */
  state: 'running' | 'done';
  response: StoredResponse | null;
  createdAt: number;
  expiresAt: number;
}

export interface IdempotencyClaim {
  keyHash: string;
  userId: number;
  operationId: string;
  requestHash: string;
}

/** `claimed`: this request runs; `existing`: another request holds (or held) the key. */
export type ClaimOutcome = { kind: 'claimed' } | { kind: 'existing'; record: IdempotencyRecord };

interface Row {
  key_hash: string;
  operation_id: string;
  request_hash: string;
  state: string;
  response_status: number | null;
  response_body: string | null;
  response_headers: string | null;
  created_at: number | string;
  expires_at: number | string;
}

function toRecord(r: Row): IdempotencyRecord {
  const status = numOrNull(r.response_status);
  return {
    keyHash: r.key_hash,
    operationId: r.operation_id,
    requestHash: r.request_hash,
    state: r.state === 'done' ? 'done' : 'running',
    response: r.state === 'done' && status !== null
      ? { status, body: jsonOr<unknown>(r.response_body, null), headers: jsonOr<Record<string, string>>(r.response_headers, {}) }
      : null,
    createdAt: num(r.created_at),
    expiresAt: num(r.expires_at),
  };
}

export async function findIdempotencyKey(db: Db, keyHash: string): Promise<IdempotencyRecord | undefined> {
  const row = await db('idempotency_keys').where('key_hash', keyHash).first<Row | undefined>();
  return row ? toRecord(row) : undefined;
}

/**
 * Claims the key for this request, or returns the record that holds it. An expired record is
 * removed and the key claimed afresh (a conditional DELETE, so two racing requests still end
 * with one claim).
 */
export async function claimIdempotencyKey(db: Db, claim: IdempotencyClaim, now: number, ttlMs: number): Promise<ClaimOutcome> {
  for (let attempt = 0; ; attempt++) {
    try {
      await db('idempotency_keys').insert({
        key_hash: claim.keyHash, user_id: claim.userId, operation_id: claim.operationId, request_hash: claim.requestHash,
        state: 'running', created_at: now, expires_at: now + ttlMs,
      });
      return { kind: 'claimed' };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    const record = await findIdempotencyKey(db, claim.keyHash);
    // gone between the INSERT and the SELECT (its request failed and released it): claim again
    if (!record) {
      if (attempt < 5) continue;
      throw new Error('idempotency key: claimed and released repeatedly by concurrent requests');
    }
    if (record.expiresAt > now || attempt >= 2) return { kind: 'existing', record };
    await db('idempotency_keys').where('key_hash', claim.keyHash).andWhere('expires_at', '<=', now).delete();
  }
}

/** Stores the answer of the request that holds the key; its retries are answered with it. */
export async function completeIdempotencyKey(db: Db, keyHash: string, response: StoredResponse): Promise<boolean> {
  const n = await db('idempotency_keys').where({ key_hash: keyHash, state: 'running' }).update({
    state: 'done',
    response_status: response.status,
    response_body: JSON.stringify(response.body ?? null),
    response_headers: JSON.stringify(response.headers),
  });
  return affected(n) === 1;
}

/** Frees a key whose request did not succeed, so that a retry runs it again. */
export async function releaseIdempotencyKey(db: Db, keyHash: string): Promise<void> {
  await db('idempotency_keys').where({ key_hash: keyHash, state: 'running' }).delete();
}

/**
 * Removes up to `limit` expired records (their keys may be used again anyway); for a retention
 * job, which calls it until it returns less than `limit`. Returns how many it removed.
 */
export async function deleteExpiredIdempotencyKeys(db: Db, now: number, limit: number): Promise<number> {
  const expired = await db('idempotency_keys').where('expires_at', '<=', now).orderBy('expires_at').limit(limit).pluck('key_hash') as string[];
  if (expired.length === 0) return 0;
  return affected(await db('idempotency_keys').whereIn('key_hash', expired).andWhere('expires_at', '<=', now).delete());
}
