// MariaDB: the first claims of a worker process that take the rows their tickets carried
// (README "No request lost, none charged twice"). One UPDATE takes every row of a batch, by
// primary key, only where the row was never claimed and its generated `claim_digest` is the one
// its ticket gives (the row holds every carried value); alone it is that UPDATE in autocommit, in
// a batch it is a program holding the batch's transaction.
import type { Knex } from 'knex';
import type { Db } from '../../knex.ts';
import { executeRaw } from '../../prepared.ts';
import { withLockRetry } from '../../retry.ts';
import { toPrediction } from '../../predictions/record.ts';
import type { Prediction, PredictionRow, PredictionStatus } from '../../predictions/record.ts';
import { rawAffected } from '../portable.ts';
import { claimDigest } from './ticket.ts';
import type { ClaimSnapshot } from './ticket.ts';
import { ANSWER, DECLARE_OUTCOME, runProgram } from './outcome.ts';

/** A first claim with the row its ticket carried; `from`: the states its fallback claims on. */
export interface CarriedClaim {
  id: string;
  now: number;
  known: ClaimSnapshot;
  /** claimDigest(id, known) */
  digest: Buffer;
  from: readonly PredictionStatus[];
}

export function carriedClaim(id: string, now: number, known: ClaimSnapshot, from: readonly PredictionStatus[]): CarriedClaim {
  return { id, now, known, digest: claimDigest(id, known), from };
}

const carriedSql = new Map<number, string>();

/**
 * The UPDATE of `k` carried claims, by primary key (MariaDB may otherwise plan it as a range of an
 * owner index, locking rows and gaps that submits and completions wait on), each row only if it
 * was never claimed and holds every carried value: its `claim_digest` (which covers the id) is
 * one of the claims' digests. Both IN lists are constants, which MariaDB sorts once and searches.
 */
function carriedClaimSql(k: number): string {
  let sql = carriedSql.get(k);
  if (sql === undefined) {
    const marks = Array.from({ length: k }, () => '?').join(', ');
    const when = Array.from({ length: k }, () => 'when ? then ?').join(' ');
    sql = `update predictions force index (primary) set status = 'processing', started_at = case id ${when} end, updated_at = case id ${when} end, attempts = attempts + 1 where id in (${marks}) and status in ('queued', 'pending') and attempts = 0 and error is null `
      + `and upstream_job_id is null and review_status = 'unreviewed' and claim_digest in (${marks})`;
    carriedSql.set(k, sql);
  }
  return sql;
}

function carriedBindings(claims: readonly CarriedClaim[]): Knex.RawBinding[] {
  const bindings: Knex.RawBinding[] = [];
  for (let i = 0; i < 2; i++) for (const c of claims) bindings.push(c.id, c.now);
  for (const c of claims) bindings.push(c.id);
  for (const c of claims) bindings.push(c.digest);
  return bindings;
}

/** The prediction a carried claim took: the carried row, now claimed. */
export function claimedAsCarried(c: CarriedClaim): Prediction {
  return toPrediction({
    ...(c.known as unknown as PredictionRow), id: c.id, status: 'processing', attempts: 1, started_at: c.now, review_status: 'unreviewed',
    outputs: null, nsfw: null, error: null, inference_ms: null, completed_at: null,
  });
}

/** One carried claim alone (autocommit): whether it took its row (false: the row differs from its ticket, or is taken). */
export async function claimCarried(db: Db, c: CarriedClaim): Promise<boolean> {
  return rawAffected(await withLockRetry(() => executeRaw(db, carriedClaimSql(1), carriedBindings([c])))) === 1;
}

const programText = new Map<number, string>();

/**
 * PROGRAM claim batch
 *
 * Inputs (bindings, the claims in id order): carriedClaimSql(k)'s: each claim's id and time
 *   twice (started_at, updated_at), the ids, the digests.
 * Variables set: `outcome` (its own).
 * Answers: 'committed' when the UPDATE took all k rows (the transaction committed: each claim
 *   holds its row); 'not every row claimed' when it took fewer (a copy of a message already
 *   claimed, a row cancelled or changed since its submit, the same id twice): rolled back, nothing
 *   claimed.
 * Errors: raised again after the rollback (a deadlock is retried by the caller).
 */
function claimBatchSql(k: number): string {
  let sql = programText.get(k);
  if (sql === undefined) {
    sql = `begin not atomic
${DECLARE_OUTCOME}
declare exit handler for sqlexception begin rollback; resignal; end;
start transaction;
${carriedClaimSql(k)};
if row_count() = ${k} then commit; else rollback; set outcome = 'not every row claimed'; end if;
${ANSWER}
end`;
    programText.set(k, sql);
  }
  return sql;
}

/** The claims (two or more, in id order) as one program: true when every one took its row, false when none did (rolled back). */
export async function claimBatch(db: Db, sorted: readonly CarriedClaim[]): Promise<boolean> {
  const { outcome } = await withLockRetry(() => runProgram(db, claimBatchSql(sorted.length), carriedBindings(sorted)));
  return outcome === 'committed';
}
