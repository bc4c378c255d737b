// A wallet's row and its append-only ledger (credit_transactions). Every move of a wallet
// (db/wallet/moves.ts) is one conditional UPDATE of the wallet row, which guards against
// overdraft and locks the row, and one INSERT of its ledger row, which records the wallet's new
// balance and held as that UPDATE left them. Rows are never updated or deleted; a correction is a
// new row. For every wallet:
//   sum(amount) = balance + held,  sum(held_change) = held   (checkLedger verifies it)
// `amount` is the signed change of the wallet's credit (a charge is negative, a hold or release
// 0), `balance_after`/`held_after` the wallet after the row. README "The ledger". The ledger as
// its owner lists it is db/ledger.ts.
import type { Knex } from 'knex';
import type { Owner } from '../../lib/caller.ts';
import { num } from '../knex.ts';
import { insertHead, rowsInsert } from '../sql.ts';

/**
 * The kinds of ledger rows. `prediction` is the charge (capture of a hold); the others:
 * `hold`, `release`, `topup` (admin top-up, team top-up), `deduction` (admin), `refund` (credits
 * back for a prediction), `grant` (credit given: operator grants, tests), `signup` (the sign-up
 * credit), `opening` (what a wallet held when the ledger started, migration 1601), `subscription`
 * (a subscription period's expiring grant), `expiry` (grant credit that expired unspent),
 * `studio_revenue` (a whitelabel studio owner's markup on a charged prediction, end_user_pays),
 * `purchase` (credit bought through Stripe Checkout), `payment_refund` (the credits a Stripe refund takes back).
 */
export const LEDGER_KINDS = ['hold', 'prediction', 'release', 'topup', 'deduction', 'refund', 'grant', 'signup', 'opening', 'subscription', 'expiry', 'studio_revenue', 'purchase', 'payment_refund'] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

/** A wallet's table: a user's own (`users` row) or a team's (`teams` row). */
export function walletTable(payer: Owner): 'users' | 'teams' {
  return payer.teamId === null ? 'users' : 'teams';
}

/** The wallet's row, as a query to add to. */
export function walletRow(trx: Knex, payer: Owner): Knex.QueryBuilder {
  return payer.teamId === null ? trx('users').where('id', payer.userId) : trx('teams').where('id', payer.teamId);
}

/**
 * A ledger row's columns in the order the fixed INSERTs of the hot moves (holds, charges,
 * releases) write them (db/sql.ts rowsInsert); on MariaDB/MySQL a move's INSERT after its UPDATE
 * takes the last two from the session variables that UPDATE set.
 */
export const LEDGER_COLUMNS = ['user_id', 'team_id', 'amount', 'held_change', 'kind', 'prediction_id', 'ref', 'description', 'created_at', 'list_price', 'discount_percent', 'balance_after', 'held_after'] as const;
export const insertLedger = rowsInsert('credit_transactions', LEDGER_COLUMNS);
/** `insert into credit_transactions (LEDGER_COLUMNS) values `: the head of a ledger INSERT whose rows take some values from SQL */
export const LEDGER_HEAD = insertHead('credit_transactions', LEDGER_COLUMNS);

/** A wallet as a move left it (read under the wallet row's lock). */
export interface WalletState {
  balance: number;
  held: number;
  /** the `grants` marker (db/wallet/grants.ts): grants with credit left; 0 lets a charge skip consumeGrants */
  grants?: number;
}

export interface LedgerEntry {
  kind: LedgerKind;
  /** signed change of the wallet's credit (balance + held) */
  amount: number;
  /** signed change of held */
  heldChange: number;
  predictionId?: string | null;
  description: string;
  /** tells apart several rows of one kind for one prediction (partial refunds); '' otherwise */
  ref?: string;
  /** a hold or charge: the price before the discount and the percent off (README "Discounts") */
  listPrice?: number | null;
  discountPercent?: number | null;
  now: number;
}

/**
 * Appends the ledger row of a move the caller just made on the payer's wallet row, in the same
 * transaction (the row is locked by that UPDATE, so balance_after/held_after are exactly this
 * move's). A read of the locked row, then a plain INSERT: an INSERT ... SELECT would take InnoDB's
 * table-level AUTO-INC lock for the whole statement, which serialises every wallet's ledger writes
 * and, under concurrent submits, deadlocks against the row locks (MariaDB then reports error 1467,
 * "Failed to read auto-increment value", which no retry recognises).
 */
export async function appendLedger(trx: Knex, payer: Owner, e: LedgerEntry): Promise<WalletState> {
  const w = await walletRow(trx, payer).first<{ balance: number | string; held: number | string; grants: number | string }>('balance', 'held', 'grants');
  const after = { balance: num(w!.balance), held: num(w!.held) };
  const grants = num(w!.grants);
  await trx('credit_transactions').insert({
    user_id: payer.userId, team_id: payer.teamId, amount: e.amount, held_change: e.heldChange, kind: e.kind, prediction_id: e.predictionId ?? null,
    ref: e.ref ?? '', description: e.description.slice(0, 255), balance_after: after.balance, held_after: after.held, created_at: e.now,
    list_price: e.listPrice ?? null, discount_percent: e.discountPercent ?? null,
  });
  return { ...after, grants };
}

/** The id of the payer's newest ledger row (the caller's own, while it holds the wallet row's lock). */
export async function lastLedgerId(trx: Knex, payer: Owner): Promise<number> {
  const q = trx('credit_transactions').max({ id: 'id' });
  if (payer.teamId === null) q.where('user_id', payer.userId).whereNull('team_id');
  else q.where('team_id', payer.teamId);
  const row = await q.first<{ id: number | string }>();
  return num(row.id);
}

/** The wallet's balance and held, read in the caller's transaction. */
export async function walletOf(trx: Knex, payer: Owner): Promise<{ balance: number; held: number }> {
  const row = await walletRow(trx, payer).select('balance', 'held').first<{ balance: number | string; held: number | string }>();
  return { balance: num(row.balance), held: num(row.held) };
}

export async function getBalance(db: Knex, userId: number): Promise<{ balance: number; held: number }> {
  const row = await db('users').select('balance', 'held').where('id', userId).first<{ balance: number | string; held: number | string } | undefined>();
  return { balance: num(row?.balance ?? 0), held: num(row?.held ?? 0) };
}

export async function getTeamBalance(db: Knex, teamId: number): Promise<{ balance: number; held: number }> {
  const row = await db('teams').select('balance', 'held').where('id', teamId).first<{ balance: number | string; held: number | string } | undefined>();
  return { balance: num(row?.balance ?? 0), held: num(row?.held ?? 0) };
}

/** A wallet whose ledger does not add up (checkLedger). */
export interface LedgerMismatch {
  wallet: 'user' | 'team';
  id: number;
  balance: number;
  held: number;
  /** what the rows sum to */
  ledgerBalance: number;
  ledgerHeld: number;
}

/**
 * Verifies every wallet (users and teams) against its ledger: balance = sum(amount) -
 * sum(held_change) and held = sum(held_change). Returns the wallets that differ ([]: all agree)
 * and how many were checked. One aggregate query over the ledger and one read of the wallets per
 * table (a full scan: a check for operators and tests, not for the request path).
 */
export async function checkLedger(db: Knex): Promise<{ checked: number; mismatches: LedgerMismatch[] }> {
  // One transaction: on MariaDB (REPEATABLE READ) every query reads the same snapshot, so moves
  // committing meanwhile cannot show up as a mismatch.
  return db.transaction((trx) => checkLedgerIn(trx));
}

async function checkLedgerIn(db: Knex): Promise<{ checked: number; mismatches: LedgerMismatch[] }> {
  const mismatches: LedgerMismatch[] = [];
  let checked = 0;
  for (const wallet of ['user', 'team'] as const) {
    const key = wallet === 'user' ? 'user_id' : 'team_id';
    const q = db('credit_transactions').select(key, db.raw('sum(amount) as amount'), db.raw('sum(held_change) as held')).groupBy(key);
    if (wallet === 'user') q.whereNull('team_id'); else q.whereNotNull('team_id');
    const sums = new Map<number, { amount: number; held: number }>();
    for (const r of await q as Array<Record<string, unknown>>) sums.set(num(r[key]), { amount: num(r.amount), held: num(r.held) });
    const rows = await db(wallet === 'user' ? 'users' : 'teams').select('id', 'balance', 'held') as Array<{ id: number; balance: number | string; held: number | string }>;
    for (const r of rows) {
      checked++;
      const s = sums.get(num(r.id)) ?? { amount: 0, held: 0 };
      const balance = num(r.balance);
      const held = num(r.held);
      if (balance !== s.amount - s.held || held !== s.held) {
        mismatches.push({ wallet, id: num(r.id), balance, held, ledgerBalance: s.amount - s.held, ledgerHeld: s.held });
      }
      sums.delete(num(r.id));
    }
    // rows for a wallet that no longer exists (deleted users' rows go with them: ON DELETE CASCADE)
    for (const [id, s] of sums) if (s.amount !== 0 || s.held !== 0) mismatches.push({ wallet, id, balance: 0, held: 0, ledgerBalance: s.amount - s.held, ledgerHeld: s.held });
  }
  return { checked, mismatches };
}
