// MariaDB: a worker's group of completions as one program (README "No request lost, none charged
// twice"), so that the paying wallets' row locks are held only while MariaDB runs it, never across
// a round trip to the worker or a wait of the worker for a core. The engine sends a completion with
// nothing to group with as a group of one too.
import type { Knex } from 'knex';
import type { Db } from '../../knex.ts';
import type { Owner } from '../../../lib/caller.ts';
import { marks } from '../../sql.ts';
import { deliveriesInsertSql } from '../../webhooks.ts';
import { providerCostsInsertSql } from '../../provider-costs.ts';
import { LEDGER_HEAD } from '../../wallet/ledger.ts';
import { chargeValues, payingInOrder } from '../../wallet/moves.ts';
import type { Charge, WalletCharges } from '../../wallet/moves.ts';
import { costsOf, deliveriesOf, firstItems, manyCompletedBindings, manyCompletedSql, walletCharges } from '../portable.ts';
import type { Completion, Finished } from '../types.ts';
import { ANSWER, DECLARE_OUTCOME, runProgram } from './outcome.ts';

/**
 * settleWallets (db/wallet/moves.ts) as SQL text for the program below,
 * its bindings appended to `bindings` in the text's order: per wallet table one UPDATE taking
 * each wallet's sum from held (CASE id ... for several), in id order, only where the wallet has no
 * expiring grant with credit left (`grants = 0`: consumeGrants' read has no place in one
 * statement) and leaving each wallet's balance and held in @mg_bN and @mg_hN (N its place in
 * compareWallets' order), and `rows`, how many rows each UPDATE must change (the caller checks
 * row_count() after each, and reads the variables only when every one matched); then the ledger
 * INSERT of every charge, wallet after wallet and each wallet's in the given order, with the
 * balance and held its wallet had after it, exactly as settleWallets writes them.
 */
export function settleWalletsSql(groups: readonly WalletCharges[], bindings: Knex.RawBinding[]): { updates: Array<{ sql: string; rows: number }>; ledger: string } | null {
  const paying = payingInOrder(groups);
  if (paying.length === 0) return null;
  const updates: Array<{ sql: string; rows: number }> = [];
  for (const table of ['users', 'teams'] as const) {
    const wallets = paying.map((g, n) => ({ ...g, n })).filter((g) => (g.payer.teamId === null) === (table === 'users'));
    if (wallets.length === 0) continue;
    const idOf = (g: { payer: Owner }) => (table === 'users' ? g.payer.userId : g.payer.teamId!);
    const sumOf = (g: { charges: readonly Charge[] }) => g.charges.reduce((sum, c) => sum + c.amount, 0);
    if (wallets.length === 1) {
      const [g] = wallets;
      bindings.push(sumOf(g!), idOf(g!));
      updates.push({ sql: `update \`${table}\` set balance = (@mg_b${g!.n} := balance), held = (@mg_h${g!.n} := held - ?) where id = ? and grants = 0`, rows: 1 });
      continue;
    }
    const balances = wallets.map((g) => { bindings.push(idOf(g)); return `when ? then (@mg_b${g.n} := balance)`; });
    const helds = wallets.map((g) => { bindings.push(idOf(g), sumOf(g)); return `when ? then (@mg_h${g.n} := held - ?)`; });
    bindings.push(...wallets.map(idOf));
    updates.push({ sql: `update \`${table}\` set balance = case id ${balances.join(' ')} end, held = case id ${helds.join(' ')} end where id in (${marks(wallets.length)}) and grants = 0`, rows: wallets.length });
  }
  const rows: string[] = [];
  for (const [n, { payer, charges }] of paying.entries()) {
    // what the rows after each take from held: its held_after is the held the UPDATE left plus that
    let later = charges.reduce((sum, c) => sum + c.amount, 0);
    for (const c of charges) {
      later -= c.amount;
      rows.push(`(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, @mg_b${n}, @mg_h${n} + ?)`);
      bindings.push(...chargeValues(payer, c), later);
    }
  }
  return { updates, ledger: LEDGER_HEAD + rows.join(', ') };
}

/**
 * PROGRAM completion group
 *
 * Inputs (bindings, in the text's order): the transition's (manyCompletedSql: per column each
 *   row's id and value, then the ids, rows in id order); per wallet table the UPDATE's (each
 *   wallet's id and sum); each charge's ledger row (its values, and what the wallet's later
 *   charges take from held); the delivery rows, one nested binding (when any has a webhook); the
 *   provider-cost rows, one nested binding (when any completion carries its run's cost).
 * Variables set: `outcome`; @mg_bN, @mg_hN: wallet N's balance and held after its UPDATE (N its
 *   place in the order submits lock wallets), read by the ledger rows.
 * Answers: 'committed' (every row moved, every wallet charged, the ledger, delivery and
 *   provider-cost rows written); 'not every row processing' (the transition changed fewer rows
 *   than it named: a prediction cancelled or completed meanwhile) or 'a wallet not settled' (a
 *   wallet with expiring grants to spend, whose read and per-grant UPDATEs have no place in one
 *   statement, or no row): rolled back before anything was written.
 * Errors: raised again after the rollback (a deadlock is retried by the caller).
 */
export async function completeGroupProgram(db: Db, items: readonly Completion[]): Promise<Finished[] | 'not every row processing' | 'a wallet not settled'> {
  const first = firstItems(items);
  const moving = [...first.keys()].sort().map((id) => items[first.get(id)!]!);
  const bindings: Knex.RawBinding[] = [];
  manyCompletedBindings(moving, bindings);
  const steps = [`${manyCompletedSql(moving.length, ' force index (primary)')};`, `if row_count() <> ${moving.length} then set outcome = 'not every row processing'; end if;`];
  const settle = settleWalletsSql(walletCharges(moving), bindings);
  if (settle === null) throw new Error('a group of completions with nothing to charge');
  for (const u of settle.updates) steps.push(`if outcome = 'committed' then ${u.sql}; if row_count() <> ${u.rows} then set outcome = 'a wallet not settled'; end if; end if;`);
  const { deliveries, finished } = deliveriesOf(items, (i) => first.get(items[i]!.p.id) === i);
  const write = [`${settle.ledger};`];
  if (deliveries.length > 0) {
    const insert = deliveriesInsertSql(deliveries);
    write.push(`${insert.sql};`);
    bindings.push(insert.binding);
  }
  // every item of `moving` is recorded when the program commits
  const costs = costsOf(moving, () => true);
  if (costs.length > 0) {
    const insert = providerCostsInsertSql(costs);
    write.push(`${insert.sql};`);
    bindings.push(insert.binding);
  }
  const sql = `begin not atomic
${DECLARE_OUTCOME}
declare exit handler for sqlexception begin rollback; resignal; end;
start transaction;
${steps.join('\n')}
if outcome = 'committed' then
${write.join('\n')}
commit;
else
rollback;
end if;
${ANSWER}
end`;
  const { outcome } = await runProgram(db, sql, bindings);
  if (outcome === 'committed') return finished;
  if (outcome === 'not every row processing' || outcome === 'a wallet not settled') return outcome;
  throw new Error(`a group of completions answered ${outcome}`);
}
