// The MariaDB engine: the portable engine (db/store/portable.ts) where a unit of work can be one
// statement, a program (db/store/mariadb/*.ts, each with a header: its inputs, the variables it
// sets, what it answers: one ProgramOutcome), holding its whole transaction, so that no wallet's
// row lock waits on a round trip to a gateway process (README "No request lost, none charged
// twice"); and its fixed hot statements as server-side prepared statements (db/prepared.ts). When
// a program rolls back (a wallet short, a row changed meanwhile, expiring grants to spend), the
// unit of work goes down the portable path, which decides every case.
//   - submits: a batch (a lone batchable submit too) first as the hold-first program (submit-hold-first.ts);
//   - claims: a first delivery whose ticket (ticket.ts) still matches its row takes it in one
//     UPDATE, without reading it; such claims arriving together share one program (claim-batch.ts);
//   - completions: a group, or one alone, as one program (complete-group.ts).
import type { Knex } from 'knex';
import type { Db } from '../knex.ts';
import { preparedRows } from '../prepared.ts';
import { withLockRetry } from '../retry.ts';
import type { Prediction } from '../predictions/record.ts';
import { groupable, PortableEngine } from './portable.ts';
import type { BatchAnswer, RowedSubmit } from './engine.ts';
import type { ClaimRequest, Completion, Finished, SubmitOutcome, Ticket } from './types.ts';
import { parseTicket, snapshotOfRow } from './mariadb/ticket.ts';
import { carriedClaim, claimBatch, claimCarried, claimedAsCarried } from './mariadb/claim-batch.ts';
import type { CarriedClaim } from './mariadb/claim-batch.ts';
import { completeGroupProgram } from './mariadb/complete-group.ts';
import { holdFirstPath } from './mariadb/submit-hold-first.ts';

export class MariadbEngine extends PortableEngine {
  override readonly completesAloneAsGroup = true;
  private readonly holdFirst: ReturnType<typeof holdFirstPath>;
  /** the carried claim of a request, made once (claimsTogether, then claimAlone or claimBatch) */
  private readonly carried = new WeakMap<ClaimRequest, CarriedClaim | null>();

  constructor(db: Db) {
    super(db, 'mariadb');
    this.holdFirst = holdFirstPath(db);
  }

  protected override rows<T>(sql: string, bindings: readonly Knex.RawBinding[]): Promise<T[]> {
    return preparedRows<T>(this.db, sql, bindings);
  }

  /** The answer carries the row as inserted, the claim's ticket (none for a large input). */
  protected override accepted(balance: number | undefined, row: Record<string, unknown>): Extract<SubmitOutcome, { accepted: true }> {
    const outcome = super.accepted(balance, row);
    const snapshot = snapshotOfRow(row);
    return snapshot ? { ...outcome, ticket: snapshot as unknown as Ticket } : outcome;
  }

  // ---- submits ----

  /** A batch, or one submit alone, first as the hold-first program; a request past its limits or a wallet short sends it down the portable locked path (one alone: its own transaction). */
  override async submitBatch(requests: readonly RowedSubmit[]): Promise<BatchAnswer[] | undefined> {
    return await this.tryHoldFirst(requests) ?? super.submitBatch(requests);
  }

  private async tryHoldFirst(requests: readonly RowedSubmit[]): Promise<BatchAnswer[] | undefined> {
    const balances = await this.holdFirst(requests);
    return balances?.map((balance, i) => ({ outcome: this.accepted(balance, requests[i]!.row) }));
  }

  // ---- claims ----

  /** A first delivery's claim with a ticket it can read: the row it carried, and the digest the UPDATE compares. */
  private carriedOf(req: ClaimRequest): CarriedClaim | undefined {
    let c = this.carried.get(req);
    if (c === undefined) {
      const known = req.takeOver ? undefined : parseTicket(req.ticket);
      c = known ? carriedClaim(req.id, req.now, known, ['queued', 'pending']) : null;
      this.carried.set(req, c);
    }
    return c ?? undefined;
  }

  override claimsTogether(req: ClaimRequest): boolean {
    return this.carriedOf(req) !== undefined;
  }

  /** With a ticket: the UPDATE that requires every carried value (no read); a row that differs from it, and any other claim, on its state and read. */
  override async claimAlone(req: ClaimRequest): Promise<Prediction | undefined> {
    const c = this.carriedOf(req);
    if (c === undefined) return super.claimAlone(req);
    return await claimCarried(this.db, c) ? claimedAsCarried(c) : this.claimByState(c.id, c.now, c.from);
  }

  /**
   * MariaDB cannot say which rows an UPDATE changed, so the batch commits only when it took every
   * one of its rows (the usual case: first deliveries of rows still pending); otherwise (a copy
   * of a message already claimed, a row cancelled or changed, the same id twice) it rolls back
   * whole and each claim runs alone, so every prediction is claimed once and each caller learns
   * exactly whether it claimed.
   */
  override async claimBatch(requests: readonly ClaimRequest[]): Promise<Array<Prediction | undefined> | undefined> {
    const claims = requests.map((r) => this.carriedOf(r)!);
    const sorted = [...claims].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    if (!await claimBatch(this.db, sorted)) return undefined;
    return claims.map(claimedAsCarried);
  }

  // ---- completions ----

  /**
   * The group as one program first; a row no longer processing sends it to the portable path
   * that locks and reads the rows first, a wallet with expiring grants (or none) to the portable
   * path as MySQL takes it.
   */
  override async completeGroup(items: readonly Completion[]): Promise<Finished[]> {
    if (items.length === 0) return [];
    for (const { p, usage } of items) if (!groupable(p) || usage !== undefined) throw new Error(`prediction ${p.id} cannot be charged in a group`);
    const done = await withLockRetry(() => completeGroupProgram(this.db, items));
    if (Array.isArray(done)) return done;
    if (done === 'not every row processing') return this.completeInTransaction(items, false);
    return this.completeOptimistically(items);
  }
}
