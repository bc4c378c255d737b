// The moves of a wallet (README "The ledger"). A prediction's price is held at submit (balance ->
// held), then either charged (held -> gone) on completion or released (held -> balance) on failure
// or cancellation; credit is added (top-ups, grants, refunds, a studio's markup) or removed
// (deductions). Every move runs in its caller's transaction: the conditional UPDATE of the wallet
// row and its ledger row (db/wallet/ledger.ts), which records the wallet as that UPDATE left it
// (holds, charges and releases take it from the UPDATE itself, moveWallet; other moves read the
// locked row, appendLedger). The moves of several wallets take their rows' locks in one fixed
// order (compareWallets), so two batches never wait on each other in a cycle. Whose wallet a
// move touches is an Owner: a user's own (team null) or a team's; its ledger rows carry team_id
// and, in user_id, the member whose prediction it was (or who was credited). A deleted team
// takes no new holds.
import type { Knex } from 'knex';
import { affected, isMysql, num, numOrNull } from '../knex.ts';
import { InsufficientCreditError } from '../errors.ts';
import { BalanceLimitError } from '../../lib/errors.ts';
import { ownerKey } from '../../lib/caller.ts';
import type { Owner } from '../../lib/caller.ts';
import { consumeGrants } from './grants.ts';
import { marks, multiRowInsert } from '../sql.ts';
import { appendLedger, insertLedger, LEDGER_HEAD, walletRow, walletTable } from './ledger.ts';
import type { LedgerEntry, LedgerKind } from './ledger.ts';

/** MariaDB/MySQL: the wallet as the UPDATE before left it in session variables (moveWallet) */
const insertLedgerAfterMoveSql = multiRowInsert(LEDGER_HEAD, '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, @mg_balance, @mg_held)');
/** MariaDB/MySQL: charges of one wallet, each row's held_after the held the UPDATE left plus what the later rows take (settleManyFor) */
const insertChargesAfterMoveSql = multiRowInsert(LEDGER_HEAD, '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, @mg_balance, @mg_held + ?)');

/**
 * Locks the payer's wallet row until the transaction ends (a write that changes nothing: it
 * locks on MariaDB and takes SQLite's write lock), so that checks made after it in the same
 * transaction, like counting the owner's unfinished predictions, see every submit that held it before.
 */
export async function lockWallet(trx: Knex, payer: Owner): Promise<void> {
  await walletRow(trx, payer).update({ held: trx.raw('held'), submit_seq: trx.raw('submit_seq + 1') });
}

/**
 * Whether the wallet's row is live, read under its lock (`FOR UPDATE`: the newest committed row,
 * and the deletion of a team or the erasure of an account waits for this transaction), so credit
 * never lands on a wallet whose deletion committed after a plain read said it was live.
 */
export async function lockLiveWallet(trx: Knex, payer: Owner): Promise<boolean> {
  const row = await trx(payer.teamId === null ? 'users' : 'teams').where('id', payer.teamId ?? payer.userId).forUpdate()
    .first<{ deleted_at: number | string | null } | undefined>('deleted_at');
  return row !== undefined && (row.deleted_at === null || row.deleted_at === undefined);
}

/**
 * `submit_seq = submit_seq + 1`: a wallet's count of recorded submits (migration 20261128_0101),
 * raised by every transaction that records submits the generation limits count, by their number
 * (or more: a refused free submit's lockWallet still raises it), in the statement that locks the
 * wallet (a hold, lockWallet, holdEach, bumpSubmitSeq), so that a submit batch which counted
 * before taking the lock knows, once it holds the lock, how many such submits committed since
 * (db/store/mariadb/submit-hold-first.ts).
 */
export const BUMP_SEQ = 'submit_seq = submit_seq + 1';

/** Raises the submit count of wallets the transaction has locked and records submits on without a hold (free requests of a batch), by each one's number of them. */
export async function bumpSubmitSeq(trx: Knex, added: ReadonlyMap<string, { payer: Owner; n: number }>): Promise<void> {
  for (const table of ['users', 'teams'] as const) {
    const rows = [...added.values()].filter((a) => (a.payer.teamId === null) === (table === 'users'))
      .map((a) => ({ id: table === 'users' ? a.payer.userId : a.payer.teamId!, n: a.n })).sort((a, b) => a.id - b.id);
    if (rows.length === 0) continue;
    const bindings = [...rows.flatMap((r) => [r.id, r.n]), ...rows.map((r) => r.id)];
    await trx.raw(`update \`${table}\` set submit_seq = submit_seq + case id ${rows.map(() => 'when ? then ?').join(' ')} end where id in (${marks(rows.length)})`, bindings);
  }
}

/** What a hold, charge or release names on its ledger row. */
export interface MoveRef {
  predictionId: string;
  /** the model (shown as the row's description) */
  model: string;
  now: number;
  /** a hold: the price before the discount and the percent taken off (README "Discounts") */
  listPrice?: number;
  discountPercent?: number | null;
}

/**
 * One move of a wallet and its ledger row, in two statements: the UPDATE reports the wallet it
 * leaves, so the row needs no read of the locked wallet between them (what appendLedger does).
 * On SQLite through `RETURNING`. On MariaDB (no UPDATE ... RETURNING) the UPDATE leaves the new
 * balance and held in session variables that the INSERT's VALUES read (a plain INSERT, so no
 * table-level AUTO-INC lock: see appendLedger), and the one figure the caller wants, `report`,
 * comes back in the statement's OK packet as its insert id (`LAST_INSERT_ID(expr)`, the trick of
 * db/rate-limits.ts; a value >= 0: the balance after a hold, or the `grants` marker; 0 without `report`). Both run on
 * the transaction's one connection, and the variables are read only after an UPDATE that matched
 * its row, so a value left by an earlier statement is never used. Returns undefined when the
 * UPDATE matched nothing (a conditional move refused, or no such wallet): nothing was written.
 */
async function moveWallet(
  trx: Knex, payer: Owner, change: { balance: number; held: number }, e: LedgerEntry,
  opts: { minBalance?: number; report?: 'balance' | 'grants' },
): Promise<number | undefined> {
  const table = walletTable(payer);
  const id = payer.teamId === null ? payer.userId : payer.teamId;
  // a deleted team cannot take new holds (its wallet still settles and releases what it held)
  const live = payer.teamId !== null && opts.minBalance !== undefined;
  // LEDGER_COLUMNS' values but the last two (balance_after, held_after)
  const values: Knex.RawBinding[] = [
    payer.userId, payer.teamId, e.amount, e.heldChange, e.kind, e.predictionId ?? null, e.ref ?? '', e.description.slice(0, 255), e.now, e.listPrice ?? null, e.discountPercent ?? null,
  ];
  if (isMysql(trx)) {
    // the UPDATE and the INSERT must share a connection: a pool would run them on any two
    if (!trx.isTransaction) throw new Error('a wallet move runs in its caller\'s transaction');
    // LAST_INSERT_ID is unsigned: only figures that cannot be negative go through it (a balance
    // after a hold, which required balance >= amount; the grants count), never a balance an admin's
    // deduction may have taken below zero (MariaDB refuses that UPDATE: out of range)
    const set = (opts.report === 'balance'
      ? 'balance = LAST_INSERT_ID(@mg_balance := balance + ?), held = (@mg_held := held + ?)'
      : `balance = (@mg_balance := balance + ?), held = (@mg_held := held + ?)${opts.report === 'grants' ? ', grants = LAST_INSERT_ID(grants)' : ''}`) + (e.kind === 'hold' ? `, ${BUMP_SEQ}` : '');
    const where = `id = ?${live ? ' and deleted_at is null' : ''}${opts.minBalance !== undefined ? ' and balance >= ?' : ''}`;
    const bindings = [change.balance, change.held, id, ...(opts.minBalance !== undefined ? [opts.minBalance] : [])];
    const [ok] = await trx.raw(`update \`${table}\` set ${set} where ${where}`, bindings) as unknown as [{ affectedRows: number; insertId: number | string }];
    if (ok.affectedRows !== 1) return undefined;
    await trx.raw(insertLedgerAfterMoveSql(1), values);
    return opts.report === undefined ? 0 : num(ok.insertId);
  }
  const q = walletRow(trx, payer);
  if (live) q.whereNull('deleted_at');
  if (opts.minBalance !== undefined) q.andWhere('balance', '>=', opts.minBalance);
  const [after] = await q.update({
    balance: trx.raw('balance + ?', [change.balance]), held: trx.raw('held + ?', [change.held]), ...(e.kind === 'hold' ? { submit_seq: trx.raw('submit_seq + 1') } : {}),
  }, ['balance', 'held', 'grants']) as Array<{ balance: number | string; held: number | string; grants: number | string }>;
  if (!after) return undefined;
  values.push(num(after.balance), num(after.held));
  await insertLedger(trx, [values]);
  return opts.report === undefined ? 0 : num(after[opts.report]);
}

/** A wallet as its row's lock found it (lockWallets). */
export interface LockedWallet {
  balance: number;
  held: number;
  /** the `grants` marker (db/wallet/grants.ts): 0 lets a charge skip consumeGrants */
  grants: number;
  /** false for a deleted team, which takes no new holds */
  live: boolean;
}

/**
 * The one order in which a transaction takes several wallets' row locks: users' rows before
 * teams', each by id. Every batch that locks more than one wallet (submits, completions) takes them
 * in this order, so two batches never wait on each other in a cycle.
 */
export function compareWallets(a: Owner, b: Owner): number {
  if ((a.teamId === null) !== (b.teamId === null)) return a.teamId === null ? -1 : 1;
  return a.teamId === null ? a.userId - b.userId : a.teamId - b.teamId!;
}

/**
 * Locks the rows of several wallets until the transaction ends and reads them, in one statement
 * per table (users', then teams'), each taking its rows in id order (compareWallets). The map holds
 * each wallet found, by ownerKey (lib/caller.ts); a wallet with no row is absent. On
 * MariaDB/MySQL a locking read (`FOR UPDATE`: the newest committed rows, and no snapshot taken
 * yet, so later plain reads see every transaction that held a lock before); on SQLite a write that
 * changes nothing (`RETURNING` the rows), which takes the database's write lock at once instead of
 * upgrading a read lock later.
 */
export async function lockWallets(trx: Knex, payers: readonly Owner[]): Promise<Map<string, LockedWallet>> {
  const ids = { users: new Set<number>(), teams: new Set<number>() };
  for (const p of payers) {
    if (p.teamId === null) ids.users.add(p.userId);
    else ids.teams.add(p.teamId);
  }
  type Row = { id: number | string; balance: number | string; held: number | string; grants: number | string; deleted_at?: number | string | null };
  const found = new Map<string, LockedWallet>();
  for (const table of ['users', 'teams'] as const) {
    const list = [...ids[table]].sort((a, b) => a - b);
    if (list.length === 0) continue;
    const columns = table === 'users' ? 'id, balance, held, grants' : 'id, balance, held, grants, deleted_at';
    const rows = isMysql(trx)
      ? (await trx.raw(`select ${columns} from \`${table}\` where id in (${marks(list.length)}) order by id for update`, list) as unknown as [Row[]])[0]
      : await trx.raw(`update \`${table}\` set \`held\` = held where id in (${marks(list.length)}) returning ${columns}`, list) as unknown as Row[];
    for (const r of rows) {
      found.set(ownerKey(table === 'users' ? { userId: num(r.id), teamId: null } : { userId: 0, teamId: num(r.id) }), {
        balance: num(r.balance), held: num(r.held), grants: num(r.grants), live: r.deleted_at === null || r.deleted_at === undefined,
      });
    }
  }
  return found;
}

/**
 * One UPDATE of a wallet table adding a signed amount per row to `balance` and/or `held` (CASE id
 * ... when several rows), only where `balance >= min` of that row when `min` is given; true when
 * every row matched.
 */
async function moveRows(trx: Knex, table: 'users' | 'teams', moves: ReadonlyMap<number, { balance: number; held: number; min?: number; submits?: number }>): Promise<boolean> {
  const ids = [...moves.keys()].sort((a, b) => a - b);
  const perRow = (value: (id: number) => number): [string, number[]] => {
    if (ids.length === 1) return ['?', [value(ids[0]!)]];
    const bindings: number[] = [];
    for (const id of ids) bindings.push(id, value(id));
    return [`case id ${ids.map(() => 'when ? then ?').join(' ')} end`, bindings];
  };
  const set: string[] = [];
  const bindings: number[] = [];
  for (const column of ['balance', 'held'] as const) {
    if (ids.every((id) => moves.get(id)![column] === 0)) continue;
    const [sql, values] = perRow((id) => moves.get(id)![column]);
    set.push(`${column} = ${column} + ${sql}`);
    bindings.push(...values);
  }
  if (ids.some((id) => moves.get(id)!.submits !== undefined)) {
    // the submits recorded on each wallet (BUMP_SEQ)
    const [sql, values] = perRow((id) => moves.get(id)!.submits ?? 0);
    set.push(`submit_seq = submit_seq + ${sql}`);
    bindings.push(...values);
  }
  bindings.push(...ids);
  let where = `id in (${marks(ids.length)})`;
  if (ids.some((id) => moves.get(id)!.min !== undefined)) {
    const [sql, values] = perRow((id) => moves.get(id)!.min ?? Number.MIN_SAFE_INTEGER);
    where += ` and balance >= ${sql}`;
    bindings.push(...values);
  }
  // SQLite: a raw statement answers no count of changed rows, so the UPDATE returns their ids
  const mysql = isMysql(trx);
  const result = await trx.raw(`update \`${table}\` set ${set.join(', ')} where ${where}${mysql ? '' : ' returning id'}`, bindings) as unknown;
  const moved = mysql ? (result as [{ affectedRows: number }])[0].affectedRows : (result as unknown[]).length;
  return moved === ids.length;
}

/** One hold of several taken together (holdEach): the wallet, the prediction, who made it (the ledger row's user_id) and its price. */
export interface EachHold extends MoveRef {
  payer: Owner;
  userId: number;
  amount: number;
}

/** A hold row's values in LEDGER_COLUMNS' order, but for balance_after and held_after (holdEach; the hold-first program, db/store/mariadb/submit-hold-first.ts). */
export function holdValues(h: EachHold): Knex.RawBinding[] {
  return [h.userId, h.payer.teamId, 0, h.amount, 'hold', h.predictionId, '', h.model.slice(0, 255), h.now, h.listPrice ?? h.amount, h.discountPercent ?? null];
}

/**
 * Several holds, on one wallet or several, whose rows the caller has locked and read (`locked`,
 * from lockWallets in the same transaction), in two statements whatever their number (three when
 * both users' and teams' wallets take holds): one UPDATE per wallet table taking each wallet's sum
 * (still conditional, `balance >= sum`), and one multi-row INSERT of the `hold` rows, in the given
 * order, each with its wallet as it stands after that hold (nothing else can move a locked row
 * between the read and the UPDATE, so these are exact; the rows' ids ascend in the same order, so
 * a wallet's newest row carries the wallet as it is). A multi-row INSERT of known rows is a
 * "simple insert" to InnoDB: no table-level AUTO-INC lock (see appendLedger). Returns the
 * spendable balance of its wallet after each hold. The caller has checked that the balances cover them.
 */
export async function holdEach(trx: Knex, locked: ReadonlyMap<string, LockedWallet>, holds: readonly EachHold[]): Promise<number[]> {
  if (holds.length === 0 || holds.some((h) => h.amount <= 0)) throw new Error('holdEach takes priced holds only');
  type Total = { balance: number; held: number; min: number; submits: number };
  const totals = { users: new Map<number, Total>(), teams: new Map<number, Total>() };
  for (const h of holds) {
    const [table, id] = h.payer.teamId === null ? ['users', h.payer.userId] as const : ['teams', h.payer.teamId] as const;
    const t = totals[table].get(id) ?? { balance: 0, held: 0, min: 0, submits: 0 };
    t.balance -= h.amount;
    t.held += h.amount;
    t.min += h.amount;
    t.submits++;
    totals[table].set(id, t);
  }
  for (const table of ['users', 'teams'] as const) {
    if (totals[table].size > 0 && !await moveRows(trx, table, totals[table])) throw new InsufficientCreditError(holds.reduce((sum, h) => sum + h.amount, 0));
  }
  const after = new Map<string, { balance: number; held: number }>();
  const balances: number[] = [];
  const values: Knex.RawBinding[][] = [];
  for (const h of holds) {
    const key = ownerKey(h.payer);
    let w = after.get(key);
    if (w === undefined) {
      const l = locked.get(key)!;
      after.set(key, w = { balance: l.balance, held: l.held });
    }
    w.balance -= h.amount;
    w.held += h.amount;
    balances.push(w.balance);
    values.push([...holdValues(h), w.balance, w.held]);
  }
  await insertLedger(trx, values);
  return balances;
}

/** A settle or release must find the wallet that holds the price: its row cannot be gone while it holds (ON DELETE rules). */
function mustHaveMoved(moved: number | undefined, payer: Owner): number {
  if (moved === undefined) throw new Error(`wallet ${payer.teamId === null ? `of user ${payer.userId}` : `of team ${payer.teamId}`} not found`);
  return moved;
}

/**
 * balance -> held, only if the balance covers it (one conditional UPDATE), with its `hold` row;
 * returns the wallet's spendable balance after the hold (undefined for a free request, which moves nothing).
 */
export async function holdFor(trx: Knex, payer: Owner, amount: number, ref: MoveRef): Promise<{ balance: number } | undefined> {
  if (amount === 0) return undefined;
  const balance = await moveWallet(trx, payer, { balance: -amount, held: amount }, {
    kind: 'hold', amount: 0, heldChange: amount, predictionId: ref.predictionId, description: ref.model, now: ref.now, listPrice: ref.listPrice ?? null, discountPercent: ref.discountPercent ?? null,
  }, { minBalance: amount, report: 'balance' });
  if (balance === undefined) throw new InsufficientCreditError(amount);
  return { balance };
}

/**
 * held -> gone: the charge, a `prediction` row of -amount, with the list price and discount its hold
 * recorded: from `billing` (the prediction row's copy) when given, else read from the hold row.
 */
export async function settleFor(
  trx: Knex, payer: Owner, amount: number, predictionId: string, model: string, now: number,
  billing?: { listPrice: number | null; discountPercent: number | null },
): Promise<void> {
  if (amount === 0) return;
  let recorded = billing && billing.listPrice !== null ? billing : undefined;
  if (!recorded) {
    // a prediction written before migration 3101 (or a caller without the row): the hold row has them
    const held = await trx('credit_transactions').where({ prediction_id: predictionId, kind: 'hold', ref: '' }).first<{ list_price: unknown; discount_percent: unknown } | undefined>('list_price', 'discount_percent');
    recorded = { listPrice: numOrNull(held?.list_price ?? null), discountPercent: numOrNull(held?.discount_percent ?? null) };
  }
  const grants = mustHaveMoved(await moveWallet(trx, payer, { balance: 0, held: -amount }, {
    kind: 'prediction', amount: -amount, heldChange: -amount, predictionId, description: model, now,
    listPrice: recorded.listPrice, discountPercent: recorded.discountPercent,
  }, { report: 'grants' }), payer);
  // the charge spends expiring grant credit first; the wallet row's marker (reported by the UPDATE) says whether it has any
  if (grants !== 0) await consumeGrants(trx, payer, amount);
}

/** One charge of a group that settleManyFor takes from one wallet. */
export interface Charge {
  amount: number;
  predictionId: string;
  model: string;
  now: number;
  /** what the prediction's hold recorded (README "Discounts") */
  listPrice: number | null;
  discountPercent: number | null;
}

/** A charge's ledger row in LEDGER_COLUMNS' order, but for the last two (balance_after, held_after). */
export function chargeValues(payer: Owner, c: Charge): Knex.RawBinding[] {
  return [payer.userId, payer.teamId, -c.amount, -c.amount, 'prediction', c.predictionId, '', c.model.slice(0, 255), c.now, c.listPrice ?? null, c.discountPercent ?? null];
}

/**
 * Several charges of one wallet in one move (a completion group of the store, db/store/index.ts):
 * one UPDATE of the wallet row for their sum and one INSERT of their `prediction` rows, in the
 * given order, each with the balance and held the wallet had after it, exactly as the same
 * charges settled one by one (settleFor) would have left them. A charge's balance is unchanged
 * (held -> gone), so every row's balance_after is the wallet's balance; held_after is the held
 * after the whole move plus what the later rows of the group took. On MariaDB the UPDATE leaves
 * both in session variables the INSERT's VALUES read (as moveWallet does); expiring grant credit
 * is spent for the sum, which takes from the grants exactly what the charges one by one would
 * (consumeGrants fills the earliest-expiring first).
 */
export async function settleManyFor(trx: Knex, payer: Owner, charges: readonly Charge[]): Promise<void> {
  const paid = charges.filter((c) => c.amount !== 0);
  if (paid.length === 0) return;
  const total = paid.reduce((sum, c) => sum + c.amount, 0);
  // what the rows after row i take from held: row i's held_after is the final held plus that
  const later: number[] = [];
  for (let i = paid.length - 1, acc = 0; i >= 0; i--) {
    later[i] = acc;
    acc += paid[i]!.amount;
  }
  let grants: number;
  if (isMysql(trx)) {
    if (!trx.isTransaction) throw new Error('a wallet move runs in its caller\'s transaction');
    const [ok] = await trx.raw(
      `update \`${walletTable(payer)}\` set balance = (@mg_balance := balance), held = (@mg_held := held - ?), grants = LAST_INSERT_ID(grants) where id = ?`,
      [total, payer.teamId === null ? payer.userId : payer.teamId],
    ) as unknown as [{ affectedRows: number; insertId: number | string }];
    mustHaveMoved(ok.affectedRows === 1 ? 0 : undefined, payer);
    const values: Knex.RawBinding[] = [];
    paid.forEach((c, i) => values.push(...chargeValues(payer, c), later[i]!));
    await trx.raw(insertChargesAfterMoveSql(paid.length), values);
    grants = num(ok.insertId);
  } else {
    const [after] = await walletRow(trx, payer).update({ held: trx.raw('held - ?', [total]) }, ['balance', 'held', 'grants']) as Array<{ balance: number | string; held: number | string; grants: number | string }>;
    mustHaveMoved(after ? 0 : undefined, payer);
    const balance = num(after!.balance);
    const held = num(after!.held);
    await insertLedger(trx, paid.map((c, i) => [...chargeValues(payer, c), balance, held + later[i]!]));
    grants = num(after!.grants);
  }
  if (grants !== 0) await consumeGrants(trx, payer, total);
}

/** The charges of one wallet in a group that settleWallets takes. */
export interface WalletCharges {
  payer: Owner;
  charges: readonly Charge[];
}

/**
 * The charges of several wallets in one move (the worker's group commit across wallets): the
 * wallets' rows locked and read in the fixed order (lockWallets, as a batch of submits takes them,
 * so the two never deadlock on each other), one UPDATE per wallet table for each wallet's sum
 * (CASE id ...), one INSERT of every `prediction` row, wallet after wallet in that order and each
 * wallet's charges in the given order, each with the balance and held its wallet had after it
 * (read under the lock, so exact: as the same charges settled one by one would have left them).
 * Expiring grant credit is spent per wallet for its sum, as settleManyFor does. One wallet alone
 * goes through settleManyFor (two statements, no read).
 */
export async function settleWallets(trx: Knex, groups: readonly WalletCharges[]): Promise<void> {
  const paying = payingInOrder(groups);
  if (paying.length === 0) return;
  if (paying.length === 1) return settleManyFor(trx, paying[0]!.payer, paying[0]!.charges);
  const keys = paying.map((g) => ownerKey(g.payer));
  const locked = await lockWallets(trx, paying.map((g) => g.payer));
  const moves = { users: new Map<number, { balance: number; held: number }>(), teams: new Map<number, { balance: number; held: number }>() };
  const values: Knex.RawBinding[][] = [];
  for (const [i, { payer, charges }] of paying.entries()) {
    const w = locked.get(keys[i]!);
    if (!w) mustHaveMoved(undefined, payer);
    let held = w!.held;
    for (const c of charges) {
      held -= c.amount;
      values.push([...chargeValues(payer, c), w!.balance, held]);
    }
    if (payer.teamId === null) moves.users.set(payer.userId, { balance: 0, held: held - w!.held });
    else moves.teams.set(payer.teamId, { balance: 0, held: held - w!.held });
  }
  for (const table of ['users', 'teams'] as const) {
    if (moves[table].size > 0 && !await moveRows(trx, table, moves[table])) throw new Error(`a wallet of the group's ${table} did not move`);
  }
  await insertLedger(trx, values);
  for (const [i, { payer, charges }] of paying.entries()) {
    if (locked.get(keys[i]!)!.grants !== 0) await consumeGrants(trx, payer, charges.reduce((sum, c) => sum + c.amount, 0));
  }
}

/** The wallets of `groups` that pay anything, with their charges that do, in the order their locks are taken (compareWallets); each wallet at most once. */
export function payingInOrder(groups: readonly WalletCharges[]): WalletCharges[] {
  const paying = groups.map((g) => ({ payer: g.payer, charges: g.charges.filter((c) => c.amount !== 0) })).filter((g) => g.charges.length > 0);
  paying.sort((a, b) => compareWallets(a.payer, b.payer));
  const keys = new Set(paying.map((g) => ownerKey(g.payer)));
  if (keys.size !== paying.length) throw new Error('a wallet named twice among the groups of charges');
  return paying;
}

/** held -> balance, with its `release` row. */
export async function releaseFor(trx: Knex, payer: Owner, amount: number, ref: MoveRef): Promise<void> {
  if (amount === 0) return;
  mustHaveMoved(await moveWallet(trx, payer, { balance: amount, held: -amount }, {
    kind: 'release', amount: 0, heldChange: -amount, predictionId: ref.predictionId, description: ref.model, now: ref.now,
  }, {}), payer);
}

export const hold = (trx: Knex, userId: number, amount: number, ref: MoveRef) => holdFor(trx, { userId, teamId: null }, amount, ref);
export const settle = (trx: Knex, userId: number, amount: number, predictionId: string, model: string, now: number) =>
  settleFor(trx, { userId, teamId: null }, amount, predictionId, model, now);
export const release = (trx: Knex, userId: number, amount: number, ref: MoveRef) => releaseFor(trx, { userId, teamId: null }, amount, ref);
export const holdTeam = (trx: Knex, teamId: number, memberUserId: number, amount: number, ref: MoveRef) => holdFor(trx, { userId: memberUserId, teamId }, amount, ref);
export const settleTeam = (trx: Knex, teamId: number, memberUserId: number, amount: number, predictionId: string, model: string, now: number) =>
  settleFor(trx, { userId: memberUserId, teamId }, amount, predictionId, model, now);
export const releaseTeam = (trx: Knex, teamId: number, memberUserId: number, amount: number, ref: MoveRef) => releaseFor(trx, { userId: memberUserId, teamId }, amount, ref);

/**
 * The wallet row, only if `amount` added to it keeps its credit (balance + held) and its balance
 * within +/- 2^53 - 1, the amounts the gateway keeps exactly (JavaScript numbers; MariaDB's BIGINT
 * and SQLite's INTEGER hold more, which would then be misreported). Both bounds are computed
 * exactly: `amount` is a safe integer and the subtraction stays within the safe range.
 */
function withinSafeRange(row: Knex.QueryBuilder, trx: Knex, amount: number): Knex.QueryBuilder {
  if (!Number.isSafeInteger(amount)) throw new BalanceLimitError(amountLimitMessage(amount));
  return amount >= 0
    ? row.andWhere(trx.raw('balance + held <= ?', [Number.MAX_SAFE_INTEGER - amount]))
    : row.andWhere('balance', '>=', -Number.MAX_SAFE_INTEGER - amount);
}

function amountLimitMessage(amount: number): string {
  return `this move of ${amount} credits would take the wallet past ${amount >= 0 ? '' : '-'}${Number.MAX_SAFE_INTEGER} credits (2^53 - 1), the most the gateway keeps exactly`;
}

/**
 * Adds credit to a wallet with its ledger row (`kind` topup, grant, signup, refund); returns the
 * balance after. The caller runs it in a transaction (the UPDATE and the row commit together).
 */
export async function creditWallet(trx: Knex, payer: Owner, amount: number, kind: LedgerKind, description: string, now: number, extra: { predictionId?: string; ref?: string } = {}): Promise<number> {
  const n = await withinSafeRange(walletRow(trx, payer), trx, amount).update({
    // Credit that brings the balance back to or above the low-balance alert's line re-arms it: the
    // alert moves on to its next epoch (db/alerts.ts), so the next fall below the line alerts again.
    // Set before `balance`: MariaDB's later assignments see the earlier ones' new values, SQLite's
    // do not, and both see the old balance here. (Moving on when the epoch had no alert is harmless.)
    ...(amount > 0 ? { low_balance_epoch: trx.raw('CASE WHEN low_balance_threshold IS NOT NULL AND balance + ? >= low_balance_threshold THEN low_balance_epoch + 1 ELSE low_balance_epoch END', [amount]) } : {}),
    balance: trx.raw('balance + ?', [amount]),
  });
  if (affected(n) !== 1) throw new BalanceLimitError(amountLimitMessage(amount));
  await appendLedger(trx, payer, { kind, amount, heldChange: 0, predictionId: extra.predictionId ?? null, ref: extra.ref ?? '', description, now });
  const row = await walletRow(trx, payer).select('balance').first<{ balance: number | string }>();
  return num(row.balance);
}

/**
 * Removes credit from a wallet with a `deduction` row (or `extra.kind`), only if the balance covers it (one
 * conditional UPDATE) unless `allowNegative`; returns the balance after, or undefined when the
 * balance was too small (nothing moved).
 */
export async function debitWallet(
  trx: Knex, payer: Owner, amount: number, description: string, now: number, allowNegative = false, extra: { kind?: 'deduction' | 'payment_refund'; ref?: string } = {},
): Promise<number | undefined> {
  const row = walletRow(trx, payer);
  // allowed below zero, never past -(2^53 - 1): only the lower bound can refuse it then
  if (allowNegative) withinSafeRange(row, trx, -amount);
  else row.andWhere('balance', '>=', amount);
  const n = await row.update({ balance: trx.raw('balance - ?', [amount]) });
  if (affected(n) !== 1) {
    if (allowNegative) throw new BalanceLimitError(amountLimitMessage(-amount));
    return undefined;
  }
  const state = await appendLedger(trx, payer, { kind: extra.kind ?? 'deduction', amount: -amount, heldChange: 0, description, ref: extra.ref ?? '', now });
  // a deduction spends expiring grant credit first, like a charge (when the wallet row says it has any); a payment refund takes back purchased credit
  if ((extra.kind ?? 'deduction') === 'deduction' && state.grants !== 0) await consumeGrants(trx, payer, amount);
  const after = await walletRow(trx, payer).select('balance').first<{ balance: number | string }>();
  return num(after.balance);
}

/** Adds credit to a team wallet with a ledger row (`kind` e.g. 'topup'); `byUserId` is who paid. */
export async function creditTeam(trx: Knex, teamId: number, byUserId: number, amount: number, kind: LedgerKind, description: string, now: number): Promise<number> {
  return creditWallet(trx, { userId: byUserId, teamId }, amount, kind, description, now);
}

/** The wallet (user or team) that earns a whitelabel studio's markup, and the studio's slug for the ledger row. */
export async function studioOwner(trx: Knex, studioId: number | string): Promise<{ owner: Owner; slug: string } | undefined> {
  const studio = await trx('studios').where('id', studioId).first<{ user_id: number | string; team_id: number | string | null; slug: string } | undefined>('user_id', 'team_id', 'slug');
  return studio ? { owner: { userId: num(studio.user_id), teamId: numOrNull(studio.team_id) }, slug: studio.slug } : undefined;
}
