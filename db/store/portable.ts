// The portable engine: the store (db/store/types.ts) on SQLite and MySQL, each unit of work one
// transaction of plain statements, retried whole on a lock conflict (db/retry.ts). MariaDB's
// engine (db/store/mariadb.ts) extends it. The two dialects differ in a few texts only, chosen once
// when the engine is made: SQLite answers `RETURNING` (an UPDATE reports the rows it changed) and
// takes one write lock for the whole database at the transaction's first write; MySQL has
// neither, so it reads what SQLite's statements return, and forces the primary key where its
// planner would lock index ranges.
import type { Knex } from 'knex';
import type { Db } from '../knex.ts';
import { affected, num, rawRows } from '../knex.ts';
import { ownerSql, ownerWhere } from '../owner.ts';
import type { Owner } from '../owner.ts';
import { ownerKey } from '../../lib/caller.ts';
import { withLockRetry } from '../retry.ts';
import { marks } from '../sql.ts';
import { checkKeySpend, lockKey } from '../key-spend.ts';
import { hardBudgetRefusal } from '../alerts.ts';
import { checkEmbedLimits } from '../embed-codes.ts';
import { InsufficientCreditError } from '../errors.ts';
import { unfinishedCounts } from '../unfinished.ts';
import type { UnfinishedScope } from '../unfinished.ts';
import { insertDeliveries, insertDelivery, newDeliveryId } from '../webhooks.ts';
import type { NewDelivery } from '../webhooks.ts';
import { insertProviderCosts } from '../provider-costs.ts';
import type { ProviderCost, RunCost } from '../provider-costs.ts';
import { bumpSubmitSeq, creditWallet, holdEach, holdFor, lockWallet, lockWallets, releaseFor, settleFor, settleWallets, studioOwner } from '../wallet/moves.ts';
import type { Charge, WalletCharges } from '../wallet/moves.ts';
import { payerOfRow, RESULT_FROM, RESULT_SELECT, toPrediction, toResult } from '../predictions/record.ts';
import type { NewPrediction, Prediction, PredictionResult, PredictionRow, PredictionStatus } from '../predictions/record.ts';
import { INSERT_SANDBOX_RETURNING_BALANCE_SQL, INSERT_SANDBOX_SQL, insertSubmitted, limitsApply, sandboxInsertSql, sandboxValues } from './rows.ts';
import type { BatchAnswer, Engine, ResultRead, RowedSubmit } from './engine.ts';
import type { CancelOutcome, ClaimRequest, Completion, ConcurrencyLimits, EngineName, Finished, InlineSettled, InlineSettlement, SandboxRecorded, SandboxRequest, SubmitOutcome, UsageCharge } from './types.ts';

export class PortableEngine implements Engine {
  readonly name: EngineName;
  protected readonly db: Db;
  /** MySQL's dialect (MariaDB's too): no UPDATE ... RETURNING, FORCE INDEX, locking reads */
  protected readonly mysql: boolean;
  /** INSERT ... RETURNING works (SQLite 3.35+, MariaDB 10.5+; not MySQL) */
  protected readonly returning: boolean;
  readonly completesAloneAsGroup: boolean = false;

  constructor(db: Db, name: EngineName) {
    this.db = db;
    this.name = name;
    this.mysql = name !== 'sqlite';
    this.returning = name !== 'mysql';
  }

  // ---- what the MariaDB engine changes ----

  /** The rows of a fixed statement (MariaDB: a server-side prepared statement). */
  protected rows<T>(sql: string, bindings: readonly Knex.RawBinding[]): Promise<T[]> {
    return rawRows<T>(this.db, sql, bindings);
  }

  /** A submit's answer once its row is written; the MariaDB engine adds the claim's ticket. */
  protected accepted(balance: number | undefined, _row: Record<string, unknown>): Extract<SubmitOutcome, { accepted: true }> {
    return balance === undefined ? { accepted: true } : { accepted: true, balance };
  }

  // ============================================================
  // Submit
  // ============================================================

  /**
   * One submit in one transaction. With limits, the owner's wallet row is locked first (by the
   * hold itself when there is a price) and the owner's and key's unfinished predictions are
   * counted under that lock (index-backed), so parallel submits past a limit cannot all get in:
   * every submit of an owner, whichever process serves it, queues on the same row. A refused
   * submit holds nothing (its hold is rolled back). A free request with no limit to count is one
   * INSERT.
   */
  async submitAlone(req: RowedSubmit): Promise<SubmitOutcome> {
    return this.submitWith(req);
  }

  /** An inline call: the submit's transaction, its row born `processing` (inlineRow), with its usage row, which marks it inline. */
  async startInline(req: RowedSubmit): Promise<SubmitOutcome> {
    return this.submitWith(req, async (trx) => {
      await trx('prediction_usage').insert({ prediction_id: req.p.id, created_at: req.now });
    });
  }

  /** submitAlone, and `alsoWrite` in the same transaction after the row's insert. */
  private async submitWith(req: RowedSubmit, alsoWrite?: (trx: Knex) => Promise<void>): Promise<SubmitOutcome> {
    const { p, now, limits, embed, row } = req;
    const checked = embed !== undefined || limitsApply(p, limits);
    const spendChecked = req.keySpendLimited === true && p.apiKeyId !== null && p.price > 0;
    const budgetChecked = req.hardBudget === true && p.price > 0;
    if (p.price === 0 && !checked && alsoWrite === undefined) {
      await this.db('predictions').insert(row);
      return this.accepted(undefined, row);
    }
    const payer = p.payer ?? { userId: p.userId, teamId: p.teamId ?? null };
    const listPrice = p.listPrice ?? p.price;
    const discountPercent = p.discountPercent ?? null;
    const hold = (trx: Knex) => holdFor(trx, payer, p.price, { predictionId: p.id, model: p.model, now, listPrice, discountPercent });
    // A deadlock victim is rolled back whole (hold and insert), so running it again is safe.
    try {
      return await withLockRetry(() => this.db.transaction(async (trx): Promise<SubmitOutcome> => {
        // A hard budget: every lock before any read, so that on MariaDB the reads' snapshot is
        // taken once the wallet is locked (the key's row, then the wallet's, as every submit
        // takes them); with an embed code, whose row comes before the wallet's, below.
        if (budgetChecked && !embed) {
          if (spendChecked) await lockKey(trx, p.apiKeyId!);
          await lockWallet(trx, payer);
        }
        if (spendChecked) await checkKeySpend(trx, p.apiKeyId!, p.price, now);
        if (budgetChecked && !embed) {
          const budget = await hardBudgetRefusal(trx, payer, p.price, now, { locking: false });
          if (budget !== undefined) return { accepted: false, scope: 'budget', limit: budget };
        }
        if (embed) {
          // the code's row first, then the wallet: every embed submit takes them in this order
          const outcome = await checkEmbedLimits(trx, embed, p.price, now);
          if (!outcome.ok) return { accepted: false, scope: outcome.reason === 'concurrency' ? 'embed' : outcome.reason === 'daily' ? 'embed-daily' : 'embed-monthly', limit: outcome.limit };
        }
        if (budgetChecked && embed) {
          // after the code's row: the wallet's, then the month's spend read with a locking read
          // (the snapshot may predate the wallet's lock)
          await lockWallet(trx, payer);
          const budget = await hardBudgetRefusal(trx, payer, p.price, now, { locking: true });
          if (budget !== undefined) return { accepted: false, scope: 'budget', limit: budget };
        }
        let wallet: { balance: number } | undefined;
        if (checked && limits) {
          // The counts need the wallet row locked first. A priced request's hold is that lock (its
          // UPDATE takes the row), so it goes first and a refusal rolls it back (LimitRefusal);
          // a free one locks the row with a write that changes nothing.
          if (p.price > 0) wallet = await hold(trx);
          else await lockWallet(trx, payer);
          const byKey = limits.perKey > 0 && p.apiKeyId !== null;
          const byAccount = limits.perAccount > 0;
          const counts = await unfinishedCounts(trx, [
            ...(byKey ? [{ scope: { keyId: p.apiKeyId! }, bound: limits.perKey }] : []),
            ...(byAccount ? [{ scope: { owner: payer }, bound: limits.perAccount }] : []),
          ]);
          let refused: SubmitOutcome | undefined;
          if (byKey && counts[0]! >= limits.perKey) refused = { accepted: false, scope: 'key', limit: limits.perKey };
          else if (byAccount && counts[byKey ? 1 : 0]! >= limits.perAccount) refused = { accepted: false, scope: 'account', limit: limits.perAccount };
          if (refused && wallet) throw new LimitRefusal(refused);
          if (refused) return refused;
        } else {
          wallet = await hold(trx);
        }
        await insertSubmitted(trx, [row]);
        if (alsoWrite) await alsoWrite(trx);
        return this.accepted(wallet?.balance, row);
      }));
    } catch (err) {
      if (err instanceof LimitRefusal) return err.outcome;
      throw err;
    }
  }

  /** A batch of two or more on the locked path (lockedBatch); a submit alone runs alone. */
  async submitBatch(requests: readonly RowedSubmit[]): Promise<BatchAnswer[] | undefined> {
    if (requests.length < 2) return undefined;
    return withLockRetry(() => this.db.transaction((trx) => this.lockedBatch(trx, requests)));
  }

  /**
   * Submits of one wallet or several (none with a key spend limit, an embed code or a studio;
   * each paid by its own or its team's wallet), decided in arrival order and written in one
   * transaction: every wallet row of the batch locked and read (lockWallets: one statement per
   * wallet table, rows in the one fixed order, compareWallets, so two batches never deadlock),
   * the unfinished predictions counted once under those locks (per key and per account, each up
   * to its limit), then each request in turn, exactly as submitAlone would decide it alone at that
   * point: 402 if the credit left in its wallet does not cover its price, else 429 if its key's or
   * its account's unfinished predictions (those counted plus the ones accepted before it in the
   * batch) are at the limit, else accepted. One UPDATE per wallet table for the sums accepted
   * (holdEach), one multi-row INSERT of their hold rows (each with its wallet's balance_after and
   * held_after), one of their prediction rows. Throws when a wallet of the batch has no row:
   * nothing is written, and each request runs alone.
   */
  protected async lockedBatch(trx: Knex, batch: readonly RowedSubmit[]): Promise<BatchAnswer[]> {
    const payers = batch.map(({ p }) => payerOf(p));
    const wallets = await lockWallets(trx, payers);
    for (const payer of payers) {
      if (!wallets.has(ownerKey(payer))) throw new Error(`wallet ${payer.teamId === null ? `of user ${payer.userId}` : `of team ${payer.teamId}`} not found`);
    }
    const { scopes, scopeIndex } = neededCounts(batch, payers);
    const counted = await unfinishedCounts(trx, scopes);
    const unfinished = (name: string) => {
      const i = scopeIndex.get(name);
      return i === undefined ? 0 : counted[i]!;
    };

    const balances = new Map([...wallets].map(([key, w]) => [key, w.balance]));
    const answers: BatchAnswer[] = [];
    const accepted: Array<{ at: number; req: RowedSubmit; payer: Owner }> = [];
    for (const [i, req] of batch.entries()) {
      const { p, limits } = req;
      const payer = payers[i]!;
      const wallet = ownerKey(payer);
      // a priced request's hold comes first (its conditional UPDATE), then the counts under it
      if (p.price > 0 && (!wallets.get(wallet)!.live || balances.get(wallet)! < p.price)) {
        answers.push({ error: new InsufficientCreditError(p.price) });
        continue;
      }
      const refused = limitRefusal(p, limits, payer, unfinished);
      if (refused) {
        answers.push({ outcome: refused });
        continue;
      }
      balances.set(wallet, balances.get(wallet)! - p.price);
      for (const name of [`key ${p.apiKeyId}`, `account ${wallet}`]) {
        const s = scopeIndex.get(name);
        if (s !== undefined) counted[s]!++;
      }
      accepted.push({ at: answers.length, req, payer });
      answers.push({ outcome: { accepted: true } });
    }
    if (accepted.length === 0) return answers;

    const priced = accepted.filter((a) => a.req.p.price > 0);
    const after = priced.length === 0 ? [] : await holdEach(trx, wallets, priced.map(({ payer, req: { p, now } }) => ({
      payer, userId: p.userId, predictionId: p.id, model: p.model, now, amount: p.price, listPrice: p.listPrice ?? p.price, discountPercent: p.discountPercent ?? null,
    })));
    // every wallet raises its submit_seq by the submits it records (db/wallet/moves.ts BUMP_SEQ): holdEach's UPDATE for the holds, here for the free ones
    const free = new Map<string, { payer: Owner; n: number }>();
    for (const a of accepted) {
      if (a.req.p.price > 0) continue;
      const f = free.get(ownerKey(a.payer)) ?? { payer: a.payer, n: 0 };
      f.n++;
      free.set(ownerKey(a.payer), f);
    }
    if (free.size > 0) await bumpSubmitSeq(trx, free);
    // one column list for every row (a free request's row leaves list_price and discount_percent null, their default)
    await insertSubmitted(trx, accepted.map((a) => a.req.row));
    priced.forEach((a, i) => {
      answers[a.at] = { outcome: this.accepted(after[i]!, a.req.row) };
    });
    for (const a of accepted) if (a.req.p.price === 0) answers[a.at] = { outcome: this.accepted(undefined, a.req.row) };
    return answers;
  }

  // ============================================================
  // Sandbox
  // ============================================================

  async insertSandboxAlone(req: SandboxRequest): Promise<SandboxRecorded> {
    const values = sandboxValues(req);
    const webhookUrl = req.p.webhookUrl;
    if (!webhookUrl) return { deliveryId: null, balance: await this.insertReadingBalance(this.db, values, req.balanceOf) };
    return this.db.transaction(async (trx) => {
      const balance = await this.insertReadingBalance(trx, values, req.balanceOf);
      const deliveryId = newDeliveryId();
      await insertDelivery(trx, { id: deliveryId, predictionId: req.p.id, userId: req.p.userId, url: webhookUrl }, req.now);
      return { deliveryId, balance };
    });
  }

  /**
   * Inserts a sandbox prediction row; with `balanceOf`, reads that user's balance in the same
   * statement (INSERT ... RETURNING a scalar subquery), so the sandbox's X-Balance-Remaining costs
   * no round trip of its own and is never a cached figure. MySQL has no RETURNING: undefined, and
   * the caller reads the balance.
   */
  private async insertReadingBalance(db: Knex, values: Knex.RawBinding[], balanceOf: number | undefined): Promise<number | undefined> {
    if (balanceOf === undefined || !this.returning) {
      await db.raw(INSERT_SANDBOX_SQL, values);
      return undefined;
    }
    const rows = await rawRows<{ balance: number | string | null }>(db, INSERT_SANDBOX_RETURNING_BALANCE_SQL, [...values, balanceOf]);
    return num(rows[0]?.balance ?? 0);
  }

  /** Sandbox rows (no webhook) in one multi-row INSERT, which also reads the balances asked for where the engine has RETURNING. */
  async insertSandboxBatch(requests: readonly SandboxRequest[]): Promise<Array<number | undefined>> {
    const returning = requests.some((r) => r.balanceOf !== undefined) && this.returning;
    const sql = sandboxInsertSql(requests.length, returning);
    const bindings = requests.flatMap((r) => sandboxValues(r));
    // the INSERT of n rows (MariaDB: prepared, parsed once per connection, not once per batch)
    const got = await this.rows<{ id: string; balance: number | string | null }>(sql, bindings);
    const balances = returning ? new Map(got.map((g) => [g.id, num(g.balance ?? 0)])) : undefined;
    return requests.map((r) => (r.balanceOf === undefined || !balances ? undefined : balances.get(r.p.id) ?? 0));
  }

  // ============================================================
  // Queue confirms
  // ============================================================

  /**
   * queued -> pending, in one statement for the whole batch (confirms arrive in bursts: RabbitMQ
   * acknowledges with `multiple`, so one flush usually carries many). MySQL/MariaDB: with `FORCE
   * INDEX (PRIMARY)`: a plain `WHERE id IN (…) AND status = 'queued'` may be planned as a range
   * scan of the (status, created_at) index, which locks index ranges that concurrent submits
   * (inserting `queued` rows) and claims wait on, and that deadlocked them; by primary key it
   * locks only the rows it names, in id order (so two flushes lock in the same order).
   * `status = 'queued'` stays a condition checked on each locked row. With `readFirst` (the
   * dispatcher marks a confirm after DISPATCH_MARK_DELAY_MS, workers/dispatch.ts, when a worker
   * has usually claimed the row) the rows still queued are read first, without locks, and only
   * those are written.
   */
  async markPending(ids: readonly string[], now: number, opts: { readFirst?: boolean } = {}): Promise<void> {
    const sorted = [...new Set(ids)].sort();
    if (sorted.length === 0) return;
    const db = this.db;
    if (this.mysql) {
      // at once after the confirm nearly every row is still queued, and the read would only add
      const queued = opts.readFirst
        ? (await rawRows<{ id: string }>(db, `select id from predictions force index (primary) where id in (${marks(sorted.length)}) and status = 'queued'`, sorted)).map((r) => r.id).sort()
        : sorted;
      if (queued.length === 0) return;
      await withLockRetry(() => db.raw(`update predictions force index (primary) set status = 'pending', updated_at = ? where id in (${marks(queued.length)}) and status = 'queued'`, [now, ...queued]));
      return;
    }
    await withLockRetry(() => db('predictions').whereIn('id', sorted).andWhere('status', 'queued').update({ status: 'pending', updated_at: now }));
  }

  // ============================================================
  // Claim
  // ============================================================

  /**
   * On SQLite one UPDATE that returns the row; on MySQL the UPDATE on the state, then a read of
   * the row. No ticket: the portable engine carries nothing from the submit.
   */
  async claimAlone({ id, now, takeOver }: ClaimRequest): Promise<Prediction | undefined> {
    const from: PredictionStatus[] = takeOver ? ['queued', 'pending', 'processing'] : ['queued', 'pending'];
    if (!this.mysql) {
      const rows = await withLockRetry(() => this.db('predictions').where('id', id).whereIn('status', from).update(this.claimSet(now), '*')) as unknown as PredictionRow[];
      return rows[0] ? toPrediction(rows[0]) : undefined;
    }
    return this.claimByState(id, now, from);
  }

  protected claimSet(now: number) {
    return { status: 'processing', started_at: now, updated_at: now, attempts: this.db.raw('attempts + 1') };
  }

  /** The claim on the state alone, then a read of the row (MySQL, MariaDB). */
  protected async claimByState(id: string, now: number, from: readonly PredictionStatus[]): Promise<Prediction | undefined> {
    const n = await withLockRetry(() => this.db('predictions').where('id', id).whereIn('status', from).update(this.claimSet(now)));
    if (affected(n) !== 1) return undefined;
    const row = await this.db<PredictionRow>('predictions').where('id', id).first();
    return row ? toPrediction(row) : undefined;
  }

  claimsTogether(_request: ClaimRequest): boolean {
    return false;
  }

  async claimBatch(_requests: readonly ClaimRequest[]): Promise<Array<Prediction | undefined> | undefined> {
    return undefined;
  }

  // ============================================================
  // Complete, fail, retry, hand back, cancel
  // ============================================================

  async completeAlone(c: Completion): Promise<Finished> {
    const { p, result, now, usage } = c;
    if (usage) return this.completeByUsage(c, usage);
    // Retried whole on a deadlock: the transition, the debit and the delivery row roll back together.
    return withLockRetry(() => this.db.transaction(async (trx) => {
      if (!await this.markCompleted(trx, p, result, now)) {
        await insertProviderCosts(trx, costsOf([c], () => false));
        return { recorded: false, deliveryId: null };
      }
      // The wallet that held the price pays it: the team's for a team prediction.
      await settleFor(trx, p.payer, p.price, p.id, p.model, now, p.billing);
      // end_user_pays: the studio owner's markup, a second ledger row of the same prediction
      if (p.studioId !== null && p.studioMarkup > 0) await creditStudioOwner(trx, p, now);
      await insertProviderCosts(trx, costsOf([c], () => true));
      return { recorded: true, deliveryId: await deliveryFor(trx, p, now) };
    }));
  }

  /**
   * A language model's completion charged by its usage, in one transaction: the guarded
   * transition, the price (and studio markup) recorded as charged, the charge taken from the hold
   * and the rest released, the markup paid out, the usage row, the webhook's delivery row.
   */
  private async completeByUsage({ p, result, now, cost }: Completion, usage: UsageCharge): Promise<Finished> {
    const { charged, listCharge, markup } = cappedCharge(p.price, p.studioId !== null ? p.studioMarkup : 0, usage);
    const discountPercent = p.billing?.discountPercent ?? null;
    const costRow = (paid: number) => (cost ? [{ ...cost, predictionId: p.id, model: p.model, charged: paid, now }] : []);
    return withLockRetry(() => this.db.transaction(async (trx) => {
      if (!await this.markCompleted(trx, p, result, now)) {
        await insertProviderCosts(trx, costRow(0));
        return { recorded: false, deliveryId: null };
      }
      await trx('predictions').where({ id: p.id }).update({ price: charged, studio_markup: markup, ...(p.price > 0 ? { list_price: listCharge } : {}) });
      await settleFor(trx, p.payer, charged, p.id, p.model, now, { listPrice: listCharge, discountPercent });
      if (p.price > charged) await releaseFor(trx, p.payer, p.price - charged, { predictionId: p.id, model: p.model, now });
      if (p.studioId !== null && markup > 0) await creditStudio(trx, p.studioId, markup, p.id, p.model, now);
      await trx('prediction_usage').insert({
        prediction_id: p.id, input_tokens: usage.usage.inputTokens, output_tokens: usage.usage.outputTokens, usage_source: usage.usage.source,
        output_text: usage.text, created_at: now, settled_at: now,
      });
      await insertProviderCosts(trx, costRow(charged - markup));
      return { recorded: true, deliveryId: await deliveryFor(trx, p, now) };
    }));
  }

  /** processing -> completed with the outputs (the guarded transition); false when the row was not `processing` any more. */
  private async markCompleted(trx: Knex, p: Prediction, result: Completion['result'], now: number): Promise<boolean> {
    if (this.mysql) {
      const c: Completion = { p, result, now };
      return rawAffected(await trx.raw(MARK_COMPLETED_SQL, [...COMPLETED_COLUMNS.map(([, value]) => value(c)), p.id])) === 1;
    }
    const n = await trx('predictions').where({ id: p.id, status: 'processing' }).update({
      status: 'completed', outputs: JSON.stringify(result.outputs), nsfw: JSON.stringify(result.nsfw),
      inference_ms: Math.round(result.inferenceMs), error: null, completed_at: now, updated_at: now,
      // a completed prediction with any NSFW output starts flagged for review (README "Run history")
      review_status: result.nsfw.some(Boolean) ? 'flagged' : 'unreviewed',
    });
    return affected(n) === 1;
  }

  /**
   * Completes several predictions (all `groupable`), of one paying wallet or several, in one
   * transaction: their guarded transitions (markManyCompleted: rows in id order, so two groups
   * lock in the same order); then one move of the wallets for the ones whose transition
   * succeeded (settleWallets: the wallets locked in the fixed order submits take them, one
   * UPDATE per wallet table, every charge's ledger row in one INSERT, each wallet's rows in
   * sequence); then their webhook delivery rows, in one INSERT. A prediction no longer
   * `processing` is not charged (`recorded: false`). On MySQL the transition first goes alone
   * (one statement fewer) and, when a row was no longer processing, the group rolls back and runs
   * again with the rows locked and read first, as SQLite always does.
   */
  async completeGroup(items: readonly Completion[]): Promise<Finished[]> {
    if (items.length === 0) return [];
    for (const { p, usage } of items) if (!groupable(p) || usage !== undefined) throw new Error(`prediction ${p.id} cannot be charged in a group`);
    if (!this.mysql) return this.completeInTransaction(items, false);
    return this.completeOptimistically(items);
  }

  /** The transition alone first (markManyCompleted optimistic); a group with a row no longer processing rolls back and runs again, locking and reading first. */
  protected async completeOptimistically(items: readonly Completion[]): Promise<Finished[]> {
    try {
      return await this.completeInTransaction(items, true);
    } catch (err) {
      if (err !== NOT_ALL_PROCESSING) throw err;
    }
    return this.completeInTransaction(items, false);
  }

  protected async completeInTransaction(items: readonly Completion[], optimistic: boolean): Promise<Finished[]> {
    return withLockRetry(() => this.db.transaction(async (trx) => {
      const recorded = await this.markManyCompleted(trx, items, optimistic);
      await settleWallets(trx, walletCharges(items.filter((_, i) => recorded[i])));
      // the webhook delivery rows of the group in one INSERT, after the charge: their foreign key to
      // users takes a shared lock on the user's row, the wallet the charge then has to lock
      // exclusively, so writing them first would not shorten the wallet's lock and would let two
      // groups of one user deadlock (both shared, both waiting to upgrade)
      const { deliveries, finished } = deliveriesOf(items, (i) => recorded[i]!);
      await insertDeliveries(trx, deliveries);
      await insertProviderCosts(trx, costsOf(items, (i) => recorded[i]!));
      return finished;
    }));
  }

  /**
   * The guarded transitions of a group, whatever its number. `optimistic` (MySQL/MariaDB): one
   * UPDATE of every named row still `processing` (by primary key, in id order), each with its own
   * values (CASE id ...); MySQL cannot say which rows an UPDATE changed, so when it changed fewer
   * than it named (a row cancelled or completed meanwhile: rare) it throws NOT_ALL_PROCESSING, and
   * the caller rolls back and runs again without `optimistic`. Otherwise two statements: the rows
   * still `processing` are locked (the same order) and read, then the UPDATE moves those. Returns,
   * per item, whether its transition succeeded; a prediction named twice succeeds once (its first item).
   */
  private async markManyCompleted(trx: Knex, items: readonly Completion[], optimistic: boolean): Promise<boolean[]> {
    const first = firstItems(items);
    const ids = [...first.keys()].sort();
    const force = this.mysql ? FORCE_PRIMARY : '';
    let taken: Set<string>;
    if (optimistic) {
      taken = new Set(ids);
    } else {
      const locked = await rawRows<{ id: string }>(trx, `select id from predictions${force} where id in (${marks(ids.length)}) and status = 'processing'${this.mysql ? ' order by id for update' : ''}`, ids);
      taken = new Set(locked.map((r) => r.id));
      if (taken.size === 0) return items.map(() => false);
    }
    const moving = [...taken].sort().map((id) => items[first.get(id)!]!);
    const bindings: Knex.RawBinding[] = [];
    manyCompletedBindings(moving, bindings);
    const changed = this.changedRows(await trx.raw(manyCompletedSql(moving.length, force), bindings));
    if (optimistic && changed !== moving.length) throw NOT_ALL_PROCESSING;
    return items.map((c, i) => taken.has(c.p.id) && first.get(c.p.id) === i);
  }

  /** The rows a raw UPDATE changed: mysql2's result header; SQLite's raw answer carries no count (the caller only needs it when optimistic, which SQLite never is). */
  private changedRows(result: unknown): number {
    return this.mysql ? rawAffected(result) : 0;
  }

  async fail(p: Prediction, error: string, now: number, code: string | null = null, cost?: RunCost): Promise<Finished> {
    return withLockRetry(() => this.db.transaction(async (trx) => {
      const n = await trx('predictions').where({ id: p.id, status: 'processing' })
        .update({ status: 'failed', error: error.slice(0, 2000), error_code: code, completed_at: now, updated_at: now });
      if (cost) await insertProviderCosts(trx, [{ ...cost, predictionId: p.id, model: p.model, charged: 0, now }]);
      if (affected(n) !== 1) return { recorded: false, deliveryId: null };
      await releaseFor(trx, p.payer, p.price, { predictionId: p.id, model: p.model, now });
      return { recorded: true, deliveryId: await deliveryFor(trx, p, now) };
    }));
  }

  /**
   * An inline call's end, in one transaction: the guarded transition (processing -> completed,
   * cancelled or failed), then the money: the charge (capped at the hold) taken from held and the
   * rest released, or the whole hold released for a failure; then the usage row. A call its owner
   * cancelled while it ran (Store.cancel left its hold) has its money settled the same way, its
   * status staying cancelled. Anything else moves nothing.
   */
  async settleInline(settlement: InlineSettlement): Promise<InlineSettled> {
    return this.settleInlineIf(settlement);
  }

  /**
   * settleInline; with `silentBefore` (the sweeper's) only a row that has not been touched since
   * (touchInline): a call whose stream touched it meanwhile is alive and left to settle itself.
   * Exactly once: the usage row's `settled_at`, set in the transaction that moves the money,
   * under the prediction row's lock, which every other move of this call's money takes first.
   */
  private async settleInlineIf({ p, outcome, now }: InlineSettlement, silentBefore?: number): Promise<InlineSettled> {
    // the wallet startInline held on: a studio's owner's when the owner pays (owner_pays), else the owner's
    const payer = p.payer ?? payerOf(p);
    const studioId = p.studioId ?? null;
    const failed = outcome.status === 'failed';
    const { charged, listCharge, markup } = failed ? { charged: 0, listCharge: 0, markup: 0 }
      : cappedCharge(p.price, studioId !== null ? p.studioMarkup ?? 0 : 0, outcome);
    const inferenceMs = outcome.inferenceMs === undefined ? null : Math.round(outcome.inferenceMs);
    // the prediction's price becomes what it cost: the run history, refunds and the margins read it
    const priced = { price: charged, ...(p.price > 0 ? { list_price: listCharge } : {}), ...(studioId !== null ? { studio_markup: markup } : {}) };
    const update: Record<string, unknown> = { status: outcome.status, completed_at: now, updated_at: now, inference_ms: inferenceMs };
    if (failed) Object.assign(update, { error: outcome.error.slice(0, 2000), error_code: outcome.code });
    else Object.assign(update, priced, { error: outcome.error?.slice(0, 2000) ?? null, error_code: outcome.code ?? null });
    const usage = outcome.usage;
    const usageRow = { input_tokens: usage?.inputTokens ?? null, output_tokens: usage?.outputTokens ?? null, usage_source: usage?.source ?? null, output_text: outcome.text ?? null, settled_at: now };
    const none: InlineSettled = { recorded: false, charged: 0 };
    return withLockRetry(() => this.db.transaction(async (trx): Promise<InlineSettled> => {
      const moving = trx('predictions').where({ id: p.id, status: 'processing' });
      if (silentBefore !== undefined) moving.andWhere('updated_at', '<', silentBefore);
      if (affected(await moving.update(update)) !== 1) {
        // not running: settled already, or cancelled by its owner while it ran (Store.cancel),
        // whose hold waits for this settle unless the money moved already (a cancel or an account
        // erasure of a version that released it): only then is there anything to do
        const row = await trx('predictions').where({ id: p.id }).forUpdate().first<{ status: string; updated_at: number | string } | undefined>('status', 'updated_at');
        if (row?.status !== 'cancelled' || (silentBefore !== undefined && num(row.updated_at) >= silentBefore)) return none;
        const moved = await trx('credit_transactions').where('prediction_id', p.id).whereIn('kind', ['release', 'prediction']).pluck('kind') as string[];
        const open = trx('prediction_usage').where({ prediction_id: p.id }).whereNull('settled_at');
        if (moved.length > 0) {
          if (affected(await open.update({ settled_at: now })) === 1 && !moved.includes('prediction')) {
            // released without a charge: its price says it cost nothing (spent-or-held sums count it)
            await trx('predictions').where({ id: p.id }).update({ price: 0 });
          }
          return none;
        }
        if (affected(await open.update(usageRow)) !== 1) return none;
        // a cancelled call's price is what it cost, 0 when its end charged nothing (spentOrHeld counts cancelled calls by it)
        await trx('predictions').where({ id: p.id }).update({
          updated_at: now, inference_ms: inferenceMs, ...priced, ...(failed ? {} : { error: outcome.error?.slice(0, 2000) ?? null, error_code: outcome.code ?? null }),
        });
      } else {
        await trx('prediction_usage').where({ prediction_id: p.id }).update(usageRow);
      }
      if (charged > 0) await settleFor(trx, payer, charged, p.id, p.model, now, { listPrice: listCharge, discountPercent: p.discountPercent ?? null });
      if (p.price > charged) await releaseFor(trx, payer, p.price - charged, { predictionId: p.id, model: p.model, now });
      // end_user_pays: the studio owner's markup, as an asynchronous prediction's completion pays it
      if (studioId !== null && markup > 0) await creditStudio(trx, studioId, markup, p.id, p.model, now);
      return { recorded: true, charged };
    }));
  }

  async touchInline(id: string, now: number): Promise<boolean> {
    return affected(await withLockRetry(() => this.db('predictions').where({ id, status: 'processing' }).update({ updated_at: now }))) === 1;
  }

  async failAbandonedInline(silentBefore: number, now: number): Promise<number> {
    // started before the cut-off (the index on settled_at, created_at) and not touched since
    const ids = (await this.db('prediction_usage').join('predictions', 'predictions.id', 'prediction_usage.prediction_id')
      .whereNull('prediction_usage.settled_at').andWhere('prediction_usage.created_at', '<', silentBefore).andWhere('predictions.updated_at', '<', silentBefore)
      .orderBy('prediction_usage.created_at').limit(500).pluck('prediction_usage.prediction_id')) as string[];
    let n = 0;
    for (const id of ids) {
      const row = await this.db<PredictionRow>('predictions').where('id', id).first();
      if (!row) continue;
      const p = toPrediction(row);
      const settled = await this.settleInlineIf({
        p: { id: p.id, userId: p.userId, teamId: p.teamId, apiKeyId: p.apiKeyId, model: p.model, input: p.input, price: p.price, webhookUrl: p.webhookUrl, payer: p.payer, discountPercent: p.billing?.discountPercent ?? null },
        outcome: { status: 'failed', error: 'the gateway stopped before the call ended; nothing was charged', code: 'inline_abandoned' },
        now,
      }, silentBefore);
      if (settled.recorded) n++;
      // a row settled meanwhile, or finished for another reason: its usage row is closed too (one
      // touched since it was read is running, and a cancelled one's is closed by its settle: left alone)
      else if (row.status !== 'processing' && row.status !== 'cancelled') await this.db('prediction_usage').where({ prediction_id: id }).whereNull('settled_at').update({ settled_at: now });
    }
    return n;
  }

  async retryLater(id: string, error: string, now: number): Promise<void> {
    await withLockRetry(() => this.db('predictions').where({ id, status: 'processing' }).update({ status: 'pending', error: error.slice(0, 2000), updated_at: now }));
  }

  async handBack(id: string, now: number): Promise<void> {
    await withLockRetry(() => this.db('predictions').where({ id, status: 'processing' }).update({ status: 'pending', updated_at: now }));
  }

  async cancel(owner: Owner, id: string, now: number): Promise<CancelOutcome> {
    // Retried whole on a deadlock or lock wait timeout (it takes the wallet row a hold or a charge may hold): the transition and the release roll back together.
    return withLockRetry(() => this.db.transaction(async (trx) => {
      const row = await trx<PredictionRow>('predictions').where('id', id).andWhere(ownerWhere(owner)).first();
      if (!row) return 'not-found';
      const n = await trx('predictions').where('id', id).andWhere(ownerWhere(owner)).whereIn('status', ['queued', 'pending', 'processing'])
        .update({ status: 'cancelled', completed_at: now, updated_at: now });
      if (affected(n) !== 1) return 'finished';
      // An inline call still running (POST /v1/chat/completions: its usage row not settled) has
      // relayed part of its answer, which is paid for: its hold stays for its own settle, which
      // charges what it relayed until it stopped (within a minute: handlers/openai.ts
      // INLINE_TOUCH_MS) and releases the rest; if its process is gone, the sweeper releases it.
      if (await trx('prediction_usage').where({ prediction_id: id }).whereNull('settled_at').first('prediction_id') !== undefined) return 'cancelled';
      await releaseFor(trx, payerOfRow(row), num(row.price), { predictionId: id, model: String(row.model), now });
      return 'cancelled';
    }));
  }

  // ============================================================
  // Result reads
  // ============================================================

  async readResultAlone(read: ResultRead): Promise<PredictionResult | undefined> {
    const scope = ownerSql(read.owner);
    let sql = findResultSql.get(scope.sql);
    if (sql === undefined) findResultSql.set(scope.sql, sql = `SELECT ${RESULT_SELECT} FROM ${RESULT_FROM} WHERE p.id = ? AND ${scope.sql} LIMIT 1`);
    const [r] = await this.rows<PredictionRow>(sql, [read.id, ...scope.bindings]);
    return r ? toResult(r) : undefined;
  }

  /**
   * Reads of several ids in one statement: `WHERE (id = ? AND <owner>) OR (id = ? AND <owner>) ...`,
   * each read's owner scoping written into the query as alone, so another owner's row is never
   * fetched. The selector puts an id (as the engine compares it, idKey) in a batch under one owner
   * only, so a row answers every read of its id.
   */
  async readResultBatch(reads: readonly ResultRead[]): Promise<Array<PredictionResult | undefined>> {
    const conditions: string[] = [];
    const bindings: Knex.RawBinding[] = [];
    const named = new Set<string>();
    for (const r of reads) {
      // the same read twice is asked once
      if (named.has(r.key)) continue;
      named.add(r.key);
      const scope = ownerSql(r.owner);
      conditions.push(`(p.id = ? AND ${scope.sql})`);
      bindings.push(r.id, ...scope.bindings);
    }
    // by primary key on MySQL/MariaDB: it may otherwise plan the OR as a scan of an owner index
    const rows = await this.rows<PredictionRow>(`SELECT ${RESULT_SELECT} FROM ${this.mysql ? RESULT_FROM.replace('predictions p', 'predictions p FORCE INDEX (PRIMARY)') : RESULT_FROM} WHERE ${conditions.join(' OR ')}`, bindings);
    const byKey = new Map(rows.map((r) => [this.idKey(r.id), toResult(r)]));
    return reads.map((r) => byKey.get(r.key));
  }

  /** MySQL's and MariaDB's utf8mb4_general_ci compare the ids the selector batches as their lower case; SQLite byte for byte. */
  idKey(id: string): string {
    return this.mysql ? id.toLowerCase() : id;
  }
}

const findResultSql = new Map<string, string>();
const FORCE_PRIMARY = ' force index (primary)';

// ============================================================
// What both engines' submits share
// ============================================================

export const payerOf = (p: NewPrediction): Owner => ({ userId: p.userId, teamId: p.teamId ?? null });

/** A concurrency limit refused a submit after its hold was taken: thrown so that the transaction rolls the hold back. */
class LimitRefusal extends Error {
  readonly outcome: SubmitOutcome;
  constructor(outcome: SubmitOutcome) {
    super('refused by a concurrency limit');
    this.outcome = outcome;
  }
}

/**
 * The counts of unfinished predictions a batch needs (each bounded by the largest limit any of
 * its requests applies to it) and how to look one up by name (`key <id>`, `account <owner key>`).
 */
export function neededCounts(batch: readonly RowedSubmit[], payers: readonly Owner[]) {
  const scopes: Array<{ scope: UnfinishedScope; bound: number }> = [];
  const scopeIndex = new Map<string, number>();
  const need = (name: string, scope: UnfinishedScope, bound: number) => {
    const i = scopeIndex.get(name);
    if (i === undefined) {
      scopeIndex.set(name, scopes.length);
      scopes.push({ scope, bound });
    } else scopes[i]!.bound = Math.max(scopes[i]!.bound, bound);
  };
  batch.forEach(({ p, limits }, i) => {
    if (!limits) return;
    if (limits.perKey > 0 && p.apiKeyId !== null) need(`key ${p.apiKeyId}`, { keyId: p.apiKeyId }, limits.perKey);
    if (limits.perAccount > 0) need(`account ${ownerKey(payers[i]!)}`, { owner: payers[i]! }, limits.perAccount);
  });
  return { scopes, scopeIndex };
}

/**
 * The generation-limit refusal of a request given the unfinished counts (those counted plus the
 * ones accepted before it in the batch), if any; `unfinished` looks a count up by name.
 */
export function limitRefusal(p: NewPrediction, limits: ConcurrencyLimits | undefined, payer: Owner, unfinished: (name: string) => number): SubmitOutcome | undefined {
  if (!limits || !limitsApply(p, limits)) return undefined;
  if (limits.perKey > 0 && p.apiKeyId !== null && unfinished(`key ${p.apiKeyId}`) >= limits.perKey) return { accepted: false, scope: 'key', limit: limits.perKey };
  if (limits.perAccount > 0 && unfinished(`account ${ownerKey(payer)}`) >= limits.perAccount) return { accepted: false, scope: 'account', limit: limits.perAccount };
  return undefined;
}

// ============================================================
// What both engines' completions share
// ============================================================

/**
 * Whether a completion may be charged together with others: a priced one whose hold's list price
 * and discount the row carries, and no studio markup to pay out (a second wallet:
 * creditStudioOwner). The rest complete alone.
 */
export function groupable(p: Prediction): boolean {
  return p.price > 0 && !(p.studioId !== null && p.studioMarkup > 0) && p.billing !== undefined && p.billing.listPrice !== null;
}

/** A completion's UPDATE on MySQL/MariaDB, as fixed SQL (no query building per completion); its values in COMPLETED_COLUMNS' order, then the id. */
const MARK_COMPLETED_SQL = `update predictions set status = 'completed', error = null, outputs = ?, nsfw = ?, inference_ms = ?, completed_at = ?, updated_at = ?, review_status = ? where id = ? and status = 'processing'`;

/** The columns a completion sets that differ per prediction, as values. */
const COMPLETED_COLUMNS: ReadonlyArray<[string, (c: Completion) => Knex.Value]> = [
  ['outputs', (c) => JSON.stringify(c.result.outputs)],
  ['nsfw', (c) => JSON.stringify(c.result.nsfw)],
  ['inference_ms', (c) => Math.round(c.result.inferenceMs)],
  ['completed_at', (c) => c.now],
  ['updated_at', (c) => c.now],
  // a completed prediction with any NSFW output starts flagged for review (README "Run history")
  ['review_status', (c) => (c.result.nsfw.some(Boolean) ? 'flagged' : 'unreviewed')],
];

const NOT_ALL_PROCESSING = new Error('a completion of the group found its row no longer processing');

/** The rows a MySQL/MariaDB UPDATE matched (mysql2's answer to a raw statement). */
export function rawAffected(result: unknown): number {
  const header = Array.isArray(result) ? result[0] as { affectedRows?: unknown } | undefined : undefined;
  return typeof header?.affectedRows === 'number' ? header.affectedRows : 0;
}

/** Each prediction of a group once: its id and the index of its first item (a copy of a message finishing twice moves it once). */
export function firstItems(items: readonly Completion[]): Map<string, number> {
  const first = new Map<string, number>();
  items.forEach((c, i) => { if (!first.has(c.p.id)) first.set(c.p.id, i); });
  return first;
}

/** manyCompletedSql's bindings for the rows `moving` (in id order), appended to `bindings`. */
export function manyCompletedBindings(moving: readonly Completion[], bindings: Knex.RawBinding[]): void {
  for (const [, value] of COMPLETED_COLUMNS) for (const c of moving) bindings.push(c.p.id, value(c));
  for (const c of moving) bindings.push(c.p.id);
}

const manyCompletedText = new Map<string, string>();

/** The transition UPDATE of `k` rows, written once per `k` (and engine): each row still `processing` set to its own values. */
export function manyCompletedSql(k: number, force: string): string {
  const key = `${k}${force}`;
  let sql = manyCompletedText.get(key);
  if (sql === undefined) {
    const when = Array.from({ length: k }, () => 'when ? then ?').join(' ');
    const sets = COMPLETED_COLUMNS.map(([column]) => `${column} = case id ${when} end`);
    sql = `update predictions${force} set status = 'completed', error = null, ${sets.join(', ')} where id in (${marks(k)}) and status = 'processing'`;
    manyCompletedText.set(key, sql);
  }
  return sql;
}

/** The charges of the completions whose transition succeeded, per paying wallet, each wallet's in id order. */
export function walletCharges(recorded: readonly Completion[]): WalletCharges[] {
  const byWallet = new Map<string, WalletCharges & { charges: Charge[] }>();
  for (const { p, now } of [...recorded].sort((a, b) => (a.p.id < b.p.id ? -1 : a.p.id > b.p.id ? 1 : 0))) {
    const key = ownerKey(p.payer);
    let group = byWallet.get(key);
    if (group === undefined) byWallet.set(key, group = { payer: p.payer, charges: [] });
    group.charges.push({ amount: p.price, predictionId: p.id, model: p.model, now, listPrice: p.billing!.listPrice, discountPercent: p.billing!.discountPercent });
  }
  return [...byWallet.values()];
}

/** The delivery rows of a group's recorded completions that have a webhook, and every item's answer. */
export function deliveriesOf(items: readonly Completion[], recorded: (i: number) => boolean): { deliveries: Array<NewDelivery & { now: number }>; finished: Finished[] } {
  const deliveries: Array<NewDelivery & { now: number }> = [];
  const finished = items.map(({ p, now }, i): Finished => {
    if (!recorded(i)) return { recorded: false, deliveryId: null };
    if (!p.webhookUrl) return { recorded: true, deliveryId: null };
    const id = newDeliveryId();
    deliveries.push({ id, predictionId: p.id, userId: p.userId, url: p.webhookUrl, now });
    return { recorded: true, deliveryId: id };
  });
  return { deliveries, finished };
}

/**
 * The provider-cost rows of completions charged at their hold (not by usage), one per prediction
 * (its first item): with what it charged less a studio's markup when `recorded(i)`, else with
 * nothing charged (cancelled meanwhile: the provider ran it all the same).
 */
export function costsOf(items: readonly Completion[], recorded: (i: number) => boolean): ProviderCost[] {
  return [...firstItems(items).values()].flatMap((i) => {
    const { p, now, cost } = items[i]!;
    return cost ? [{ ...cost, predictionId: p.id, model: p.model, charged: recorded(i) ? p.price - p.studioMarkup : 0, now }] : [];
  });
}

async function deliveryFor(trx: Knex, p: Prediction, now: number): Promise<string | null> {
  if (!p.webhookUrl) return null;
  const id = newDeliveryId();
  await insertDelivery(trx, { id, predictionId: p.id, userId: p.userId, url: p.webhookUrl }, now);
  return id;
}

/** Credits the studio owner's wallet (user or team) the markup of a charged prediction: a `studio_revenue` row naming it. */
async function creditStudioOwner(trx: Knex, p: Prediction, now: number): Promise<void> {
  if (p.studioId !== null) await creditStudio(trx, p.studioId, p.studioMarkup, p.id, p.model, now);
}

async function creditStudio(trx: Knex, studioId: number, markup: number, predictionId: string, model: string, now: number): Promise<void> {
  const studio = await studioOwner(trx, studioId);
  if (!studio) return;
  await creditWallet(trx, studio.owner, markup, 'studio_revenue', `studio ${studio.slug}: ${model}`, now, { predictionId });
}

/**
 * A charge by usage as the store records it: whole credits, never more than the hold (`held`),
 * its list price at least the charge, and the studio's part never more than the markup held nor
 * than the charge.
 */
export function cappedCharge(held: number, heldMarkup: number, c: { charge: number; listCharge?: number; studioMarkup?: number }): { charged: number; listCharge: number; markup: number } {
  const charged = Math.max(0, Math.min(held, Math.floor(c.charge)));
  const listCharge = Math.max(charged, Math.floor(c.listCharge ?? charged));
  const markup = Math.max(0, Math.min(heldMarkup, charged, Math.floor(c.studioMarkup ?? 0)));
  return { charged, listCharge, markup };
}
