// MariaDB: a batch of submits (or one alone) as one program that takes the wallets' row locks
// with the holds' own UPDATE, decides and writes, or rolls back and says why (README "No request
// lost, none charged twice"). When it does not apply, or finds a request not accepted, the engine
// takes the portable locked path (db/store/portable.ts lockedBatch), which decides each request.
import type { Knex } from 'knex';
import type { Db } from '../../knex.ts';
import { num, rawRows } from '../../knex.ts';
import { withLockRetry } from '../../retry.ts';
import { marks } from '../../sql.ts';
import { ownerKey } from '../../../lib/caller.ts';
import type { Owner } from '../../../lib/caller.ts';
import { unfinishedCountColumn } from '../../unfinished.ts';
import type { UnfinishedScope } from '../../unfinished.ts';
import { LEDGER_HEAD } from '../../wallet/ledger.ts';
import { compareWallets, holdValues } from '../../wallet/moves.ts';
import { limitsApply, submittedInsertSql } from '../rows.ts';
import { limitRefusal, neededCounts, payerOf } from '../portable.ts';
import type { RowedSubmit } from '../engine.ts';
import { ANSWER, DECLARE_OUTCOME, runProgram } from './outcome.ts';

/**
 * The hold-first path of a batch (holdFirst), per engine: answers each request's balance after
 * its hold (undefined for a free one), or undefined when the path did not apply, its wallets are
 * paused (HOLD_FIRST_PAUSE_MS) or it found a request not accepted (rolled back whole, nothing of
 * it written): the caller's locked path then decides every request. Any other error is thrown.
 */
export function holdFirstPath(db: Db): (batch: readonly RowedSubmit[]) => Promise<Array<number | undefined> | undefined> {
  const hints = new Map<string, number>();
  return async (batch) => {
    if (!holdFirstApplies(batch)) return undefined;
    const wallets = batch.map(({ p }) => ownerKey(payerOf(p)));
    const now = Date.now();
    if (wallets.some((w) => now - (hints.get(w) ?? -Infinity) < HOLD_FIRST_PAUSE_MS)) return undefined;
    try {
      const plan = await holdFirstPlan(db, batch);
      return await withLockRetry(() => holdFirst(db, batch, plan));
    } catch (err) {
      if (!(err instanceof NotAllAccepted)) throw err;
      if (hints.size >= 10_000) hints.clear();
      for (const w of wallets) hints.set(w, now);
      return undefined;
    }
  };
}

/**
 * After a hold-first attempt fell back, this process's batches of its wallets go straight to the
 * locked path for a while: a wallet out of credit or an account at its limit would otherwise pay
 * two transactions per batch, the lock held through both. Only the path is chosen by it, never
 * an answer: both decide exactly.
 */
const HOLD_FIRST_PAUSE_MS = 1000;

/** The hold-first attempt of a batch found that not every request of it is accepted: rolled back, and the locked path decides. */
class NotAllAccepted extends Error {
  constructor() {
    super('not every request of the batch is accepted');
  }
}

/**
 * Whether a batch may try the hold-first path (holdFirst): only when every wallet of the batch
 * takes a hold (a wallet that only free requests with limits use would have no row lock for their
 * counts).
 */
function holdFirstApplies(batch: readonly RowedSubmit[]): boolean {
  const priced = new Set<string>();
  for (const { p } of batch) if (p.price > 0) priced.add(ownerKey(payerOf(p)));
  return batch.every(({ p }) => priced.has(ownerKey(payerOf(p))));
}

/** A wallet of a hold-first batch: its payer, the sum of its requests' prices and their number, its number N (the fixed order, compareWallets). */
interface HoldFirstWallet {
  payer: Owner;
  sum: number;
  submits: number;
  n: number;
}

/** A hold-first batch's wallets and what was read of them before its transaction (holdFirstPlan). */
interface HoldFirstPlan {
  payers: Owner[];
  /** each wallet by ownerKey */
  wallets: Map<string, HoldFirstWallet>;
  ordered: HoldFirstWallet[];
  scopes: Array<{ scope: UnfinishedScope; bound: number }>;
  scopeIndex: Map<string, number>;
  /** per scope, the numbers N of the wallets whose submits its count can include */
  scopeWallets: Array<Set<number>>;
  /** the counts as read before the locks, and each wallet's submit_seq in the same read (by N) */
  counted: number[];
  seqs: number[];
}

/**
 * Before a hold-first batch's transaction (on a connection of the pool, outside any transaction,
 * so that the transaction's own reads later take a snapshot of their own): the unfinished counts
 * the batch needs and each of its wallets' submit sequence, in one read (one snapshot), and the
 * decision they give. Throws NotAllAccepted (nothing locked, nothing written) when a request is
 * past a limit by those counts or a wallet has no row: the locked path decides then.
 */
async function holdFirstPlan(db: Db, batch: readonly RowedSubmit[]): Promise<HoldFirstPlan> {
  const payers = batch.map(({ p }) => payerOf(p));
  const wallets = new Map<string, HoldFirstWallet>();
  for (const [i, { p }] of batch.entries()) {
    const key = ownerKey(payers[i]!);
    const w = wallets.get(key) ?? { payer: payers[i]!, sum: 0, n: 0, submits: 0 };
    w.sum += p.price;
    w.submits++;
    wallets.set(key, w);
  }
  const ordered = [...wallets.values()].sort((a, b) => compareWallets(a.payer, b.payer));
  ordered.forEach((w, n) => { w.n = n; });
  const { scopes, scopeIndex } = neededCounts(batch, payers);
  // the wallets whose submits each count can include (an account: its wallet; a key: the wallets it pays from in the batch)
  const scopeWallets = scopes.map(() => new Set<number>());
  for (const [i, { p, limits }] of batch.entries()) {
    if (!limits) continue;
    const n = wallets.get(ownerKey(payers[i]!))!.n;
    for (const name of [`key ${p.apiKeyId}`, `account ${ownerKey(payers[i]!)}`]) {
      const s = scopeIndex.get(name);
      if (s !== undefined) scopeWallets[s]!.add(n);
    }
  }
  const plan: HoldFirstPlan = { payers, wallets, ordered, scopes, scopeIndex, scopeWallets, counted: [], seqs: [] };
  if (scopes.length === 0) return plan;
  const bindings: Knex.RawBinding[] = [];
  const columns = ordered.map((w) => {
    bindings.push(w.payer.teamId ?? w.payer.userId);
    return `(select submit_seq from ${w.payer.teamId === null ? 'users' : 'teams'} where id = ?) as s${w.n}`;
  });
  scopes.forEach(({ scope, bound }, i) => columns.push(unfinishedCountColumn(db, scope, bound, `c${i}`, bindings)));
  const [row] = await rawRows<Record<string, number | string | null>>(db, `select ${columns.join(', ')}`, bindings);
  for (const w of ordered) {
    const seq = row![`s${w.n}`];
    if (seq === null || seq === undefined) throw new NotAllAccepted();
    plan.seqs[w.n] = num(seq);
  }
  plan.counted = scopes.map((_, i) => num(row![`c${i}`]!));
  if (!passesLimits(batch, plan, plan.counted)) throw new NotAllAccepted();
  return plan;
}

/** Whether every request of the batch passes its generation limits, decided in arrival order from `counts` (the plan's scopes) plus the ones before it. */
function passesLimits(batch: readonly RowedSubmit[], plan: HoldFirstPlan, counts: readonly number[]): boolean {
  const counted = [...counts];
  const unfinished = (name: string) => {
    const i = plan.scopeIndex.get(name);
    return i === undefined ? 0 : counted[i]!;
  };
  for (const [i, { p, limits }] of batch.entries()) {
    if (limitRefusal(p, limits, plan.payers[i]!, unfinished)) return false;
    for (const name of [`key ${p.apiKeyId}`, `account ${ownerKey(plan.payers[i]!)}`]) {
      const s = plan.scopeIndex.get(name);
      if (s !== undefined) counted[s]!++;
    }
  }
  return true;
}

/**
 * PROGRAM submit hold-first
 *
 * Inputs (bindings, in the text's order): per wallet table the holds' UPDATE (holdSumsSql: each
 *   wallet's id and sum, its number of submits); when a count is near its limit, the bounds
 *   (each scope's submit_seq read plus the batch's own, its room) and the recount's; each hold
 *   row's values and its offsets from its wallet after the UPDATE; the prediction rows, one nested
 *   binding.
 * Variables set: `outcome`, `ok`; @mg_bN, @mg_hN, @mg_sN: wallet N's balance, held and
 *   submit_seq after its UPDATE (N its place in the order submits lock wallets).
 * Answers: the hold rows' balance_after (RETURNING, one row per priced request), then
 *   'committed'; or 'not every request accepted' (a wallet short, deleted or missing, a request
 *   the counts refuse): rolled back before any row was written.
 * Errors: raised again after the rollback (a deadlock is retried by the caller).
 *
 * A batch's hold-first path (README "No request lost, none charged twice"): the generation-limit
 * counts read before the locks (holdFirstPlan), and the whole transaction sent as one statement,
 * a MariaDB compound statement (`begin not atomic ... end`) that starts it, takes the wallet rows'
 * locks with the holds' own conditional UPDATE (no locking read before it), decides, writes the
 * hold rows and the prediction rows, and commits or rolls back, in one round trip. The wallets'
 * locks are held only while MariaDB runs it, never across a round trip to this process or a wait
 * of this process for a core, so that batches of several processes on one wallet hardly wait on
 * each other (test/bench/README.md, "Earlier runs", 2026-11-25). Any error inside it (a deadlock,
 * a lock wait timeout, a duplicate id) rolls the transaction back in its exit handler and is
 * raised again: the caller retries (withLockRetry) or falls back, and the connection goes back to
 * the pool outside any transaction. No statement is ever sent behind another in a transaction
 * (pipelining, unsafe on MariaDB: after a deadlock the next one would autocommit).
 * It expects every request accepted, which is what the locked path (PortableEngine.lockedBatch) decides
 * whenever each wallet's balance covers the sum of its requests' prices and no request is past a
 * limit:
 * - the credit: the UPDATE takes each wallet's sum only where `balance >= sum` (and, for a team,
 *   only while it is not deleted), on the row as its lock found it; every row matched, or nothing;
 * - the limits: each wallet's `submit_seq` counts the submits the limits count that were ever
 *   recorded on it (every transaction recording such submits raises it by their number in the
 *   statement that locks the wallet: a hold, lockWallet, a batch's UPDATE; migration
 *   20261128_0101), read with the counts, and this UPDATE leaves it in @mg_sN. Under the locks, the
 *   submits recorded since the read are that value less this batch's and less the one read; each
 *   count now is at most its value as read plus those of its wallets (predictions finishing
 *   meanwhile only lower it), so a batch those bounds accept is accepted by the counts now too
 *   (limitSlack: per scope, how many more it may have). When they do not (close to a limit), the
 *   counts are made again under the locks inside the statement (its first consistent read, so
 *   they see every submit that held a lock before), as the locked path makes them.
 * Anything else (a wallet short, deleted or missing; a request the counts refuse) rolls it back
 * before any row is written and answers 'not every request accepted': NotAllAccepted, and the locked path
 * decides each request. Each hold row's balance_after/held_after comes from the wallet as the
 * UPDATE left it (user variables it sets, @mg_bN/@mg_hN for the wallet numbered N), plus/minus
 * the holds of that wallet after it in the batch, and its INSERT returns the balance_after of
 * each row, the client's remaining balance.
 */
async function holdFirst(db: Db, batch: readonly RowedSubmit[], plan: HoldFirstPlan): Promise<Array<number | undefined>> {
  const { payers, wallets, ordered, scopes } = plan;
  const rows = batch.map((req) => req.row);
  const insertPredictions = submittedInsertSql(rows);
  // the selector batches no row with embed or studio columns
  if (insertPredictions === null) throw new Error('a hold-first batch with a row of other columns');
  const bindings: Knex.RawBinding[] = [];
  const steps: string[] = [];

  // the holds: one UPDATE per wallet table, every row of it matched, or nothing of the batch is written
  for (const table of ['users', 'teams'] as const) {
    const rowsOf = ordered.filter((w) => (w.payer.teamId === null) === (table === 'users'));
    if (rowsOf.length === 0) continue;
    const hold = `${holdSumsSql(table, rowsOf, bindings)}; set ok = (row_count() = ${rowsOf.length});`;
    steps.push(steps.length === 0 ? hold : `if ok then ${hold} end if;`);
  }

  if (scopes.length > 0) {
    // passesLimits, scope by scope: the most submits each count may have gained beyond the count read
    const slack = limitSlack(batch, plan);
    const bounded = slack.flatMap((room, i) => (room === null ? [] : [i]));
    if (bounded.length > 0) {
      // the submits other transactions recorded on each scope's wallets between the read and the
      // locks (@mg_sN as the UPDATE left it, less this batch's and the value read) within its room
      // (every number a binding: the text is prepared once per shape, db/prepared.ts)
      const since = bounded.map((i) => {
        const terms = [...plan.scopeWallets[i]!].map((n) => { bindings.push(plan.seqs[n]! + ordered[n]!.submits); return `(@mg_s${n} - ?)`; });
        bindings.push(slack[i]!);
        return `${terms.join(' + ')} <= ?`;
      });
      // else counted again (this transaction's first consistent read, after the locks): each count within its room
      const recount = bounded.map((i) => {
        const count = unfinishedCountColumn(db, scopes[i]!.scope, scopes[i]!.bound, `c${i}`, bindings).replace(/ as c\d+$/, '');
        bindings.push(plan.counted[i]! + slack[i]!);
        return `${count} <= ?`;
      });
      steps.push(`if ok and not (${since.join(' and ')}) then set ok = (${recount.join(' and ')}); end if;`);
    }
  }

  // the hold rows in batch order; each wallet's later holds, which its row's balance_after adds back
  const later = new Map([...wallets].map(([key, w]) => [key, w.sum]));
  const templates: string[] = [];
  const priced: number[] = [];
  for (const [i, { p, now }] of batch.entries()) {
    if (p.price === 0) continue;
    const key = ownerKey(payers[i]!);
    const rest = later.get(key)! - p.price;
    later.set(key, rest);
    const n = wallets.get(key)!.n;
    templates.push(`(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, @mg_b${n} + ?, @mg_h${n} - ?)`);
    // holdValues, then the offsets from the wallet after the UPDATE
    bindings.push(...holdValues({ payer: payers[i]!, userId: p.userId, predictionId: p.id, model: p.model, now, amount: p.price, listPrice: p.listPrice ?? p.price, discountPercent: p.discountPercent ?? null }), rest, rest);
    priced.push(i);
  }
  bindings.push(insertPredictions.binding);
  const sql = `begin not atomic
${DECLARE_OUTCOME}
declare ok boolean default true;
declare exit handler for sqlexception begin rollback; resignal; end;
start transaction;
${steps.join('\n')}
if ok then
${LEDGER_HEAD}${templates.join(', ')} returning balance_after;
${insertPredictions.sql};
commit;
else
rollback;
set outcome = 'not every request accepted';
end if;
${ANSWER}
end`;
  const { outcome, sets } = await runProgram(db, sql, bindings);
  if (outcome !== 'committed') throw new NotAllAccepted();
  const returned = sets[0] ?? [];
  const balances: Array<number | undefined> = rows.map(() => undefined);
  priced.forEach((at, j) => { balances[at] = num(returned[j]!.balance_after); });
  return balances;
}

/**
 * Per scope of the plan, how many more unfinished predictions than it counted it may have with
 * every request of the batch still passing (passesLimits decides each scope apart: a request is
 * refused when any count it is limited by, plus the requests before it in that scope, reaches
 * its limit); null for a scope no request is limited by.
 */
function limitSlack(batch: readonly RowedSubmit[], plan: HoldFirstPlan): Array<number | null> {
  const slack: Array<number | null> = plan.scopes.map(() => null);
  const before = plan.scopes.map(() => 0);
  const room = (s: number | undefined, limit: number) => {
    if (s === undefined) return;
    const r = limit - 1 - plan.counted[s]! - before[s]!;
    slack[s] = slack[s] === null ? r : Math.min(slack[s]!, r);
  };
  for (const [i, { p, limits }] of batch.entries()) {
    const key = plan.scopeIndex.get(`key ${p.apiKeyId}`);
    const account = plan.scopeIndex.get(`account ${ownerKey(plan.payers[i]!)}`);
    if (limits && limitsApply(p, limits)) {
      if (limits.perKey > 0 && p.apiKeyId !== null) room(key, limits.perKey);
      if (limits.perAccount > 0) room(account, limits.perAccount);
    }
    for (const s of [key, account]) if (s !== undefined) before[s]!++;
  }
  return slack;
}

/**
 * The UPDATE of a wallet table taking each wallet's sum (balance -> held) where its balance
 * covers it (and a team is not deleted), and leaving each wallet's new balance and held in the
 * user variables @mg_bN and @mg_hN (N its number in the batch), and raising its submit_seq by
 * its submits into @mg_sN; its bindings appended to `bindings`. The variables are read only
 * when every row matched, so a value an earlier statement of the connection left is never used.
 */
function holdSumsSql(table: 'users' | 'teams', rows: readonly HoldFirstWallet[], bindings: Knex.RawBinding[]): string {
  const idOf = (w: { payer: Owner }) => (table === 'users' ? w.payer.userId : w.payer.teamId!);
  const set = (column: 'balance' | 'held', v: 'b' | 'h', sign: 1 | -1) => {
    if (rows.length === 1) {
      bindings.push(sign * rows[0]!.sum);
      return `${column} = (@mg_${v}${rows[0]!.n} := ${column} + ?)`;
    }
    const cases = rows.map((w) => {
      bindings.push(idOf(w), sign * w.sum);
      return `when ? then (@mg_${v}${w.n} := ${column} + ?)`;
    });
    return `${column} = case id ${cases.join(' ')} end`;
  };
  const balance = set('balance', 'b', -1);
  const held = set('held', 'h', 1);
  let seq: string;
  if (rows.length === 1) {
    bindings.push(rows[0]!.submits);
    seq = `submit_seq = (@mg_s${rows[0]!.n} := submit_seq + ?)`;
  } else {
    seq = `submit_seq = case id ${rows.map((w) => { bindings.push(idOf(w), w.submits); return `when ? then (@mg_s${w.n} := submit_seq + ?)`; }).join(' ')} end`;
  }
  const sets = `${balance}, ${held}, ${seq}`;
  let where: string;
  if (rows.length === 1) {
    bindings.push(idOf(rows[0]!), rows[0]!.sum);
    where = 'id = ? and balance >= ?';
  } else {
    bindings.push(...rows.map(idOf));
    where = `id in (${marks(rows.length)}) and balance >= case id ${rows.map(() => 'when ? then ?').join(' ')} end`;
    for (const w of rows) bindings.push(idOf(w), w.sum);
  }
  if (table === 'teams') where += ' and deleted_at is null';
  return `update \`${table}\` set ${sets} where ${where}`;
}

