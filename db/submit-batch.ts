// Group commit of production submits (README "No request lost, none charged twice"). Every priced
// submit takes its wallet's row lock for its whole transaction, and each submit alone pays its own
// round trips and its own COMMIT. Here, while one batch transaction is in flight in this process,
// further submits wait, whichever wallet pays them; when it finishes, everything that waited (up
// to 64 requests and 1 MiB of input) becomes the next batch, decided and written in one
// transaction that locks every wallet of the batch in one fixed order (lib/batch.ts
// naturalBatcher, one per knex instance). No timer: at low load a submit finds no batch in flight
// and runs at the end of the current job, with whatever else that job submitted; under load a
// batch covers what arrived meanwhile, over one wallet or many. Each client still gets its answer
// only after the transaction holding its request committed. Batches of different processes (and
// of different knex instances in one process) queue on the wallet rows' locks as single submits
// do, taking them in the same order.
import type { Knex } from 'knex';
import { answersReturning, isMysql, rawRows } from './knex.ts';
import type { Db } from './knex.ts';
import { InsufficientCreditError } from './errors.ts';
import { bumpSubmitSeq, compareWallets, holdEach, holdValues, lockWallets } from './wallet/moves.ts';
import { LEDGER_HEAD } from './wallet/ledger.ts';
import { ownerKey } from '../lib/owner.ts';
import type { Owner } from '../lib/owner.ts';
import { insertSubmitted, limitsApply, submitPrediction, submittedInsertSql, submittedRow, unfinishedCountColumn, unfinishedCounts, withSnapshot } from './predictions.ts';
import type { ConcurrencyLimits, NewPrediction, SubmitOptions, SubmitOutcome, UnfinishedScope } from './predictions.ts';
import { withLockRetry } from './retry.ts';
import { executeRaw } from './prepared.ts';
import { eachAlone, naturalBatcher, perInstance } from '../lib/batch.ts';
import { marks } from './sql.ts';
import { num } from './rows.ts';
import type { ItemOutcome } from '../lib/batch.ts';

/** One submit as submitPrediction takes it. */
export interface SubmitRequest {
  p: NewPrediction;
  now: number;
  limits?: ConcurrencyLimits;
  /** its row (submittedRow), when already built */
  row?: Record<string, unknown>;
}

/** What one submit of a batch gets: the outcome submitPrediction would return, or the error it would throw (402 insufficient credit). */
export type BatchAnswer = { outcome: SubmitOutcome } | { error: Error };

/**
 * Submits of one wallet or several (none with a key spend limit, an embed code or a studio: see
 * `batchable`; each paid by its own or its team's wallet), decided in arrival order and written in
 * one transaction: every wallet row of the batch locked and read (lockWallets: one statement per
 * wallet table, rows in the one fixed order, compareWallets, so two batches never deadlock), the
 * unfinished predictions counted once under those locks (per key and per account, each up to its
 * limit), then each request in turn, exactly as submitPrediction would decide it alone at that
 * point: 402 if the credit left in its wallet does not cover its price, else 429 if its key's or
 * its account's unfinished predictions (those counted plus the ones accepted before it in the
 * batch) are at the limit, else accepted. One UPDATE per wallet table for the sums accepted
 * (holdEach), one multi-row INSERT of their hold rows (each with its wallet's balance_after and
 * held_after), one of their prediction rows. Throws when the transaction failed (after the
 * lock-conflict retries) or a wallet of the batch has no row: then nothing of it was written, and
 * the caller runs each request alone.
 */
export async function submitBatch(db: Db, batch: readonly SubmitRequest[]): Promise<BatchAnswer[]> {
  return await tryHoldFirst(db, batch) ?? withLockRetry(() => db.transaction((trx) => decideAndWrite(trx, batch)));
}

/**
 * The hold-first path of a batch (holdFirst), when it applies and its wallets are not paused
 * (HOLD_FIRST_PAUSE_MS); undefined when it was not taken or found a request not accepted (rolled
 * back whole, nothing of it written): the caller's locked path then decides every request.
 */
async function tryHoldFirst(db: Db, batch: readonly SubmitRequest[]): Promise<BatchAnswer[] | undefined> {
  if (!holdFirstApplies(db, batch) || !await answersReturning(db)) return undefined;
  const hints = shortHints(db);
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
}

/**
 * After a hold-first attempt fell back, this process's batches of its wallets go straight to the
 * locked path for a while: a wallet out of credit or an account at its limit would otherwise pay
 * two transactions per batch, the lock held through both. Only the path is chosen by it, never
 * an answer: both decide exactly.
 */
const HOLD_FIRST_PAUSE_MS = 1000;
const shortHints = perInstance((_db: Db) => new Map<string, number>());

const payerOf = (p: NewPrediction): Owner => ({ userId: p.userId, teamId: p.teamId ?? null });

/**
 * The counts of unfinished predictions a batch needs (each bounded by the largest limit any of
 * its requests applies to it) and how to look one up by name (`key <id>`, `account <wallet>`).
 */
function neededCounts(batch: readonly SubmitRequest[], payers: readonly Owner[]) {
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
function limitRefusal(p: NewPrediction, limits: ConcurrencyLimits | undefined, payer: Owner, unfinished: (name: string) => number): SubmitOutcome | undefined {
  if (!limits || !limitsApply(p, limits)) return undefined;
  if (limits.perKey > 0 && p.apiKeyId !== null && unfinished(`key ${p.apiKeyId}`) >= limits.perKey) return { accepted: false, scope: 'key', limit: limits.perKey };
  if (limits.perAccount > 0 && unfinished(`account ${ownerKey(payer)}`) >= limits.perAccount) return { accepted: false, scope: 'account', limit: limits.perAccount };
  return undefined;
}

async function decideAndWrite(trx: Knex, batch: readonly SubmitRequest[]): Promise<BatchAnswer[]> {
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
  const accepted: Array<{ at: number; row: Record<string, unknown>; req: SubmitRequest; payer: Owner }> = [];
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
    accepted.push({ at: answers.length, row: req.row ?? submittedRow(p, req.now), req, payer });
    answers.push({ outcome: { accepted: true } });
  }
  if (accepted.length === 0) return answers;

  const priced = accepted.filter((a) => a.req.p.price > 0);
  const after = priced.length === 0 ? [] : await holdEach(trx, wallets, priced.map(({ payer, req: { p, now } }) => ({
    payer, userId: p.userId, predictionId: p.id, model: p.model, now, amount: p.price, listPrice: p.listPrice ?? p.price, discountPercent: p.discountPercent ?? null,
  })));
  // every wallet raises its submit_seq by the submits it records (holdFirst): holdEach's UPDATE for the holds, here for the free ones
  const free = new Map<string, { payer: Owner; n: number }>();
  for (const a of accepted) {
    if (a.req.p.price > 0) continue;
    const f = free.get(ownerKey(a.payer)) ?? { payer: a.payer, n: 0 };
    f.n++;
    free.set(ownerKey(a.payer), f);
  }
  if (free.size > 0) await bumpSubmitSeq(trx, free);
  // one column list for every row (a free request's row leaves list_price and discount_percent null, their default)
  await insertSubmitted(trx, accepted.map((a) => a.row));
  priced.forEach((a, i) => {
    answers[a.at] = { outcome: withSnapshot({ accepted: true, balance: after[i]! }, a.row) };
  });
  for (const a of accepted) if (a.req.p.price === 0) answers[a.at] = { outcome: withSnapshot({ accepted: true }, a.row) };
  return answers;
}

/** The hold-first attempt of a batch found that not every request of it is accepted: rolled back, and the locked path decides. */
class NotAllAccepted extends Error {
  constructor() {
    super('not every request of the batch is accepted');
  }
}

/**
 * Whether a batch may try the hold-first path (holdFirst): on MariaDB (its INSERT ... RETURNING
 * and user variables; SQLite's lock is the whole database's, taken at once by lockWallets' write,
 * and MySQL answers no RETURNING), and only when every wallet of the batch takes a hold (a wallet
 * that only free requests with limits use would have no row lock for their counts).
 */
function holdFirstApplies(db: Db, batch: readonly SubmitRequest[]): boolean {
  if (!isMysql(db)) return false;
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
async function holdFirstPlan(db: Db, batch: readonly SubmitRequest[]): Promise<HoldFirstPlan> {
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
function passesLimits(batch: readonly SubmitRequest[], plan: HoldFirstPlan, counts: readonly number[]): boolean {
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
 * It expects every request accepted, which is what the locked path (decideAndWrite) decides
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
 * before any row is written and answers `mg_not_all_accepted`: NotAllAccepted, and the locked path
 * decides each request. Each hold row's balance_after/held_after comes from the wallet as the
 * UPDATE left it (user variables it sets, @mg_bN/@mg_hN for the wallet numbered N), plus/minus
 * the holds of that wallet after it in the batch, and its INSERT returns the balance_after of
 * each row, the client's remaining balance.
 */
async function holdFirst(db: Db, batch: readonly SubmitRequest[], plan: HoldFirstPlan): Promise<BatchAnswer[]> {
  const { payers, wallets, ordered, scopes } = plan;
  const rows = batch.map((req) => req.row ?? submittedRow(req.p, req.now));
  const insertPredictions = submittedInsertSql(rows);
  // batchable() admits no row with embed or studio columns
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
select 1 as mg_not_all_accepted;
end if;
end`;
  const [sets] = await executeRaw(db, sql, bindings) as [[Array<Record<string, number | string>>, ...unknown[]]];
  const returned = sets[0];
  if (returned.length === 0 || 'mg_not_all_accepted' in returned[0]!) throw new NotAllAccepted();
  const answers: BatchAnswer[] = rows.map((row) => ({ outcome: withSnapshot({ accepted: true }, row) }));
  priced.forEach((at, j) => {
    answers[at] = { outcome: withSnapshot({ accepted: true, balance: num(returned[j]!.balance_after!) }, rows[at]!) };
  });
  return answers;
}

/**
 * Per scope of the plan, how many more unfinished predictions than it counted it may have with
 * every request of the batch still passing (passesLimits decides each scope apart: a request is
 * refused when any count it is limited by, plus the requests before it in that scope, reaches
 * its limit); null for a scope no request is limited by.
 */
function limitSlack(batch: readonly SubmitRequest[], plan: HoldFirstPlan): Array<number | null> {
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

/**
 * Whether a submit may join a batch. The others run alone through submitPrediction, as before:
 * a key with a spend limit (its own row lock and spend read), an embed code (its caps), a studio
 * (markup columns, or another payer), and a free request with no limit to count (one INSERT, no
 * transaction, no wallet).
 */
export function batchable(p: NewPrediction, limits: ConcurrencyLimits | undefined, opts: SubmitOptions): boolean {
  if (opts.keySpendLimited === true || opts.embed !== undefined) return false;
  if (p.studioId || p.payer || p.studioMarkup || p.embedCodeId) return false;
  return p.price > 0 || limitsApply(p, limits);
}

/** The most requests in one batch, and the most bytes of input (a large batch waits for its INSERT, and MariaDB's max_allowed_packet bounds a statement). */
const MAX_BATCH = 64;
const MAX_BATCH_INPUT_BYTES = 1 << 20;

/** A batchable submit waiting for the next batch. */
interface Grouped {
  req: SubmitRequest & { row: Record<string, unknown> };
  opts: SubmitOptions;
  /** the size of its row's input, which bounds the batch */
  inputBytes: number;
}

/** Per knex instance (one per process, or per app in tests): one natural batcher for every wallet (lib/batch.ts). */
const batcher = perInstance((db: Db) => naturalBatcher<Grouped, SubmitOutcome>((batch) => runBatch(db, batch), {
  max: MAX_BATCH,
  compatible: (taken, g) => taken.reduce((n, t) => n + t.inputBytes, 0) + g.inputBytes <= MAX_BATCH_INPUT_BYTES,
}));

/**
 * submitPrediction with group commit: the same arguments and the same answer (an outcome, or the
 * error it throws), but while a batch of submits is in flight in this process the request waits
 * and then joins the next batch (submitBatch), whichever wallet pays it.
 */
export function submitGrouped(db: Db, p: NewPrediction, now: number, limits?: ConcurrencyLimits, opts: SubmitOptions = {}): Promise<SubmitOutcome> {
  if (!batchable(p, limits, opts)) return submitPrediction(db, p, now, limits, opts);
  const row = submittedRow(p, now);
  const req = limits ? { p, now, limits, row } : { p, now, row };
  return batcher(db)({ req, opts, inputBytes: String(row.input).length });
}

async function runBatch(db: Db, batch: Grouped[]): Promise<Array<ItemOutcome<SubmitOutcome>>> {
  try {
    // a request alone takes the hold-first path too (its one statement holds the wallet's lock for
    // no round trip), else submitPrediction's transaction below
    const answers = batch.length > 1 ? await submitBatch(db, batch.map((g) => g.req)) : await tryHoldFirst(db, [batch[0]!.req]);
    if (answers !== undefined) return answers.map((a) => ('outcome' in a ? { ok: true, value: a.outcome } : { ok: false, error: a.error }));
  } catch {
    // the batch's transaction rolled back whole: each request runs alone below, so one that
    // fails (a duplicate id, a vanished wallet) fails only itself, whichever wallets the others pay from
  }
  return eachAlone(batch, ({ req: { p, now, limits, row }, opts }) => submitPrediction(db, p, now, limits, { ...opts, row }));
}
