// What an engine implements: the store's operations one request at a time, and each kind of
// batch as one unit of work. The selector (db/store/index.ts) decides which requests go together
// and drives these; callers never see them. Implemented by PortableEngine (db/store/portable.ts:
// SQLite and MySQL) and MariadbEngine (db/store/mariadb.ts, extending it).
import type { Owner } from '../../lib/caller.ts';
import type { Prediction, PredictionResult } from '../predictions/record.ts';
import type { CancelOutcome, ClaimRequest, Completion, EngineName, Finished, InlineSettled, InlineSettlement, SandboxRecorded, SandboxRequest, SubmitOutcome, SubmitRequest } from './types.ts';
import type { RunCost } from '../provider-costs.ts';

/** A submit on its way to an engine, with the row it inserts (db/store/rows.ts submittedRow) built once. */
export type RowedSubmit = SubmitRequest & { row: Record<string, unknown> };

/** What one submit of a batch gets: its outcome, or the error it would have thrown alone (402, ...). */
export type BatchAnswer = { outcome: SubmitOutcome } | { error: Error };

/** One result read: the owner it is scoped to, the id asked for, and that id as the engine compares ids. */
export interface ResultRead {
  owner: Owner;
  id: string;
  key: string;
}

export interface Engine {
  readonly name: EngineName;

  // --- one request at a time ---

  /** Store.submit for one request, in its own transaction. */
  submitAlone(request: RowedSubmit): Promise<SubmitOutcome>;
  /** Store.startInline: the submit's transaction with the row born `processing` and its usage row. */
  startInline(request: RowedSubmit): Promise<SubmitOutcome>;
  /** Store.settleInline, in one transaction. */
  settleInline(settlement: InlineSettlement): Promise<InlineSettled>;
  /** Store.touchInline. */
  touchInline(id: string, now: number): Promise<boolean>;
  /** Store.failAbandonedInline. */
  failAbandonedInline(silentBefore: number, now: number): Promise<number>;
  /** Store.insertSandbox for one request (with its webhook delivery, in one transaction). */
  insertSandboxAlone(request: SandboxRequest): Promise<SandboxRecorded>;
  /** Store.claim for one message. */
  claimAlone(request: ClaimRequest): Promise<Prediction | undefined>;
  /** Store.complete for one completion, in its own transaction. */
  completeAlone(completion: Completion): Promise<Finished>;
  /** Store.readResult for one read. */
  readResultAlone(read: ResultRead): Promise<PredictionResult | undefined>;
  markPending(ids: readonly string[], now: number, opts?: { readFirst?: boolean }): Promise<void>;
  fail(p: Prediction, error: string, now: number, code?: string | null, cost?: RunCost): Promise<Finished>;
  retryLater(id: string, error: string, now: number): Promise<void>;
  handBack(id: string, now: number): Promise<void>;
  cancel(owner: Owner, id: string, now: number): Promise<CancelOutcome>;

  // --- batches (each answers in the order of its items) ---

  /**
   * Submits decided in arrival order and written as one unit of work, each answered as it would
   * have been alone at that point. Undefined when the engine does not take these as one (nothing
   * written): each then runs alone. Throws when the unit failed (rolled back whole): each then
   * runs alone too, so one bad request fails only itself.
   */
  submitBatch(requests: readonly RowedSubmit[]): Promise<BatchAnswer[] | undefined>;
  /** Sandbox rows (none with a webhook) in one statement; answers each balance asked for. Throws when it wrote nothing: each then runs alone. */
  insertSandboxBatch(requests: readonly SandboxRequest[]): Promise<Array<number | undefined>>;
  /**
   * Whether a claim may share a batch (claimBatch): false on engines that claim one by one. A
   * claim that may not runs alone.
   */
  claimsTogether(request: ClaimRequest): boolean;
  /**
   * Claims that share one unit of work, committed only when every one of them took its row.
   * Undefined when not all did (nothing claimed): each runs alone. Throws on any other failure:
   * each claim fails with it (its message is retried, and the retry takes the row over).
   */
  claimBatch(requests: readonly ClaimRequest[]): Promise<Array<Prediction | undefined> | undefined>;
  /**
   * Completions (all `groupable`) of one paying wallet or several, as one unit of work. Throws
   * when it failed (beyond its lock-conflict retries): each completion is then recorded alone,
   * one after another, and one the group did commit is found completed and not charged twice.
   */
  completeGroup(completions: readonly Completion[]): Promise<Finished[]>;
  /** Whether a completion with nothing to group with still goes as a group of one (cheaper than completeAlone on this engine). */
  readonly completesAloneAsGroup: boolean;
  /** Result reads in one statement (each scoped to its owner). Throws when it failed: each then reads alone. */
  readResultBatch(reads: readonly ResultRead[]): Promise<Array<PredictionResult | undefined>>;
  /** An id as the engine's collation compares it (lower case on MariaDB and MySQL): one result read per key and owner in a batch. */
  idKey(id: string): string;
}
