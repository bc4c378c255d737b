// Idempotency keys (README "Idempotent requests"). A request claims its key with one INSERT on
// the primary key: of two concurrent requests exactly one inserts, the other finds the row.
// A record whose request never finished (its process died) is taken over by a later request with
// the same key once it is older than the caller's bound, with one conditional UPDATE that exactly
// one of several racing retries wins. Each claim writes a random token (`claim`): a run stores its
// answer or frees the key only under its own token, so a run that was taken over can no longer
// touch the record. The first claim also records the id its work is to have (`ref`), before any
// work: every run of the key, a takeover's included, does its work under that one id.
// Expected outcomes are returned, never thrown.
import crypto from 'node:crypto';
import type { Db } from './knex.ts';
import { affected, isMysql, jsonOr, num, numOrNull } from './knex.ts';
import { marks } from './sql.ts';
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
  /**
   * running: a request is being served (since `createdAt`); done: `response` holds its answer;
   * released: a run failed after its work (`ref`) was done, and left the key to the next request
   * with it, which takes it over at once
   */
  state: 'running' | 'done' | 'released';
  response: StoredResponse | null;
  /** when the request holding the key claimed it (a takeover claims it anew) */
  createdAt: number;
  expiresAt: number;
  /** the id of the key's work, recorded when it was first claimed (a model submit: its prediction id); null on records older than the column */
  ref: string | null;
}

export interface IdempotencyClaim {
  keyHash: string;
  userId: number;
  operationId: string;
  requestHash: string;
  /** the id the key's work is to have, should this claim be the key's first (or take over a record without one) */
  ref: string;
}

/**
 * `claimed`: this request runs, under `token`, its work's id `ref` (the claim's own, or after a
 * takeover the record's, which an earlier run's work may have already). `existing`: another
 * request holds (or held) the key.
 */
export type ClaimOutcome =
  | { kind: 'claimed'; token: string; ref: string; takenOver: boolean }
  | { kind: 'existing'; record: IdempotencyRecord };

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
  claim: string | null;
  ref: string | null;
}

function toRecord(r: Row): IdempotencyRecord {
  const status = numOrNull(r.response_status);
  return {
    keyHash: r.key_hash,
    operationId: r.operation_id,
    requestHash: r.request_hash,
    state: r.state === 'done' || r.state === 'released' ? r.state : 'running',
    response: r.state === 'done' && status !== null
      ? { status, body: jsonOr<unknown>(r.response_body, null), headers: jsonOr<Record<string, string>>(r.response_headers, {}) }
      : null,
    createdAt: num(r.created_at),
    expiresAt: num(r.expires_at),
    ref: r.ref ?? null,
  };
}

export async function findIdempotencyKey(db: Db, keyHash: string): Promise<IdempotencyRecord | undefined> {
  const row = await db('idempotency_keys').where('key_hash', keyHash).first<Row | undefined>();
  return row ? toRecord(row) : undefined;
}

/**
 * Whether the next request with the key may take the record over: its run left it (`released`),
 * or it has been `running` for `abandonedAfterMs` or more, which the caller chooses far above
 * the longest a live request can run, so that only a dead one is taken over.
 */
export function isAbandoned(record: IdempotencyRecord, now: number, abandonedAfterMs: number): boolean {
  return record.state === 'released' || (record.state === 'running' && now - record.createdAt >= abandonedAfterMs);
}

const newToken = () => crypto.randomBytes(16).toString('hex');

/**
 * Claims the key for this request, or returns the record that holds it. An expired record is
 * removed and the key claimed afresh (a conditional DELETE, so two racing requests still end
 * with one claim). An abandoned record of the same request (isAbandoned) is taken over: one
 * UPDATE conditional on the state and claim time it was read with, which only one of several
 * racing retries matches; the winner works under the key's work id (`ref`), the one the key's
 * first claim recorded (or its own, on a record written before the column).
 */
export async function claimIdempotencyKey(db: Db, claim: IdempotencyClaim, now: number, ttlMs: number, abandonedAfterMs: number): Promise<ClaimOutcome> {
  for (let attempt = 0; ; attempt++) {
    const token = newToken();
    try {
      await db('idempotency_keys').insert({
        key_hash: claim.keyHash, user_id: claim.userId, operation_id: claim.operationId, request_hash: claim.requestHash,
        state: 'running', created_at: now, expires_at: now + ttlMs, claim: token, ref: claim.ref,
      });
      return { kind: 'claimed', token, ref: claim.ref, takenOver: false };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    const record = await findIdempotencyKey(db, claim.keyHash);
    // gone between the INSERT and the SELECT (its request failed and released it): claim again
    if (!record) {
      if (attempt < 5) continue;
      throw new Error('idempotency key: claimed and released repeatedly by concurrent requests');
    }
    if (attempt >= 3) return { kind: 'existing', record };
    if (record.expiresAt <= now) {
      await db('idempotency_keys').where('key_hash', claim.keyHash).andWhere('expires_at', '<=', now).delete();
      continue;
    }
    // another request under the key, a live run, or an answer: the caller decides
    if (record.requestHash !== claim.requestHash || !isAbandoned(record, now, abandonedAfterMs)) return { kind: 'existing', record };
    const n = await db('idempotency_keys')
      .where({ key_hash: claim.keyHash, request_hash: claim.requestHash, state: record.state, created_at: record.createdAt })
      .update({ state: 'running', claim: token, created_at: now, expires_at: now + ttlMs, ref: db.raw('COALESCE(ref, ?)', [claim.ref]) });
    // another retry took it over first: read it again (running now, so the caller waits for it)
    if (affected(n) !== 1) continue;
    return { kind: 'claimed', token, ref: record.ref ?? claim.ref, takenOver: true };
  }
}

/**
 * Stores the answer of the run that holds the key under `token`; its retries are answered with
 * it. `db` may be the transaction that does the run's work, so that the work and its answer
 * commit together. false when the run no longer holds the key, or its answer is stored already.
 */
export async function completeIdempotencyKey(db: Db, keyHash: string, token: string, response: StoredResponse): Promise<boolean> {
  const n = await db('idempotency_keys').where({ key_hash: keyHash, claim: token, state: 'running' }).update({
    state: 'done',
    response_status: response.status,
    response_body: JSON.stringify(response.body ?? null),
    response_headers: JSON.stringify(response.headers),
  });
  return affected(n) === 1;
}

/** Frees a key whose run did not succeed and did no work, so that a retry runs it again (or any request uses the key). */
export async function releaseIdempotencyKey(db: Db, keyHash: string, token: string): Promise<void> {
  await db('idempotency_keys').where({ key_hash: keyHash, claim: token, state: 'running' }).delete();
}

/**
 * Leaves the key of a run that did not succeed but whose work (`ref`) was, or may have been,
 * done: the record stays, `released`, and the next request with the same key takes it over at
 * once and finds the work.
 */
export async function handOverIdempotencyKey(db: Db, keyHash: string, token: string): Promise<void> {
  await db('idempotency_keys').where({ key_hash: keyHash, claim: token, state: 'running' }).update({ state: 'released' });
}

/**
 * Removes up to `limit` expired records (their keys may be used again anyway); for a retention
 * job, which calls it until it returns less than `limit`. Returns how many it removed.
 * Read first without locks, then deleted by primary key alone, the expiry checked again on each
 * record (a key used again meanwhile has a new, live record under the same key, which stays). On
 * MariaDB/MySQL the key is forced: with the expiry in the WHERE the planner read a batch as large
 * as the expired range (the usual hourly run) over the expiry index, locking its entries before
 * the records, while a claim deleting an expired record (claimIdempotencyKey) locks the record
 * before its entry: the two deadlocked on one record (db/retention.ts purgeSomeExpired).
 */
export async function deleteExpiredIdempotencyKeys(db: Db, now: number, limit: number): Promise<number> {
  const expired = await db('idempotency_keys').where('expires_at', '<=', now).orderBy('expires_at').limit(limit).pluck('key_hash') as string[];
  if (expired.length === 0) return 0;
  if (isMysql(db)) {
    // an index hint needs the multiple-table form of DELETE (MariaDB and MySQL alike)
    const [header] = await db.raw(`delete k from idempotency_keys k force index (primary) where k.key_hash in (${marks(expired.length)}) and k.expires_at <= ?`, [...expired, now]) as [{ affectedRows: number }];
    return header.affectedRows;
  }
  return affected(await db('idempotency_keys').whereIn('key_hash', expired).andWhere('expires_at', '<=', now).delete());
}
