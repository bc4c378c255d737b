// The administrators' money moves on a wallet (README "Roles and administration"): a top-up, a
// deduction, a refund of a prediction; each one transaction with its ledger row, retried whole on a
// lock conflict.
import type { Knex } from 'knex';
import type { Owner } from '../../lib/caller.ts';
import { num } from '../knex.ts';
import { withLockRetry } from '../retry.ts';
import { lastLedgerId, walletOf } from './ledger.ts';
import { creditWallet, debitWallet, lockLiveWallet, lockWallet, studioOwner } from './moves.ts';
import { pseudonymiseText } from '../pseudonymise.ts';

/** The outcome of an administrator's move on a wallet: the wallet after it and its ledger row. */
export interface AdminMove {
  balance: number;
  held: number;
  transactionId: number;
}

/**
 * Work that must commit with a move or not at all (e.g. the request's idempotent answer, stored
 * with it: handlers/types.ts IdempotentRun.completeWithin); it throws to roll the move back.
 */
export type WithMove<M> = (trx: Knex, move: M) => Promise<void>;

/**
 * An administrator's top-up (`topup` row), one transaction (`within` included). The description
 * is staff's text: an address in it is written as the account it names (db/pseudonymise.ts), as in
 * a deduction's and a refund's, so no wallet's ledger keeps a person's address. undefined, nothing
 * moved, when the wallet is gone (a team deleted, an account erased) by the time its row is locked.
 */
export async function adminTopUp(db: Knex, payer: Owner, amount: number, typed: string, now: number, within?: WithMove<AdminMove>): Promise<AdminMove | undefined> {
  const description = await pseudonymiseText(db, typed);
  return withLockRetry(() => db.transaction(async (trx) => {
    // the caller found it live before this transaction; a deletion may have committed since
    if (!(await lockLiveWallet(trx, payer))) return undefined;
    await creditWallet(trx, payer, amount, 'topup', description, now);
    const move = { ...await walletOf(trx, payer), transactionId: await lastLedgerId(trx, payer) };
    await within?.(trx, move);
    return move;
  }));
}

/**
 * An administrator's deduction (`deduction` row, with `within` in its transaction); undefined when
 * the balance is too small and `allowNegative` is false; `gone`, nothing moved, when the wallet is
 * gone (a team deleted, an account erased) by the time its row is locked, as adminTopUp: a
 * deletion settled its wallet at 0, and a deduction with `allowNegative` would leave it a debt
 * nobody can pay.
 */
export async function adminDeduct(
  db: Knex, payer: Owner, amount: number, typed: string, now: number, allowNegative: boolean, within?: WithMove<AdminMove>,
): Promise<AdminMove | 'gone' | undefined> {
  const description = await pseudonymiseText(db, typed);
  return withLockRetry(() => db.transaction(async (trx) => {
    if (!(await lockLiveWallet(trx, payer))) return 'gone' as const;
    if (await debitWallet(trx, payer, amount, description, now, allowNegative) === undefined) return undefined;
    const move = { ...await walletOf(trx, payer), transactionId: await lastLedgerId(trx, payer) };
    await within?.(trx, move);
    return move;
  }));
}

/** A refund made (refundPrediction). */
export type Refunded = { payer: Owner; outcome: 'refunded'; amount: number; charged: number; refundedTotal: number } & AdminMove;

export type RefundOutcome =
  | { outcome: 'not-found' }
  | Refunded
  | ({ payer: Owner } & (
    | { outcome: 'not-charged' }
    | { outcome: 'team-deleted' }
    /** more than is left to refund (`remaining`), or nothing left */
    | { outcome: 'exceeds'; charged: number; remaining: number }
    /** the refund would be larger than `maxAmount` */
    | { outcome: 'over-limit'; amount: number }));

/**
 * An end_user_pays studio run refunded (README "Whitelabel studios"): the studio owner gives back
 * its markup in the refund's proportion, as a negative `studio_revenue` row of the same prediction
 * (the owner's wallet may go below zero: the markup was paid out). In total never more than the
 * markup: what is due after this refund is floor(markup x refunded / charged), less what earlier
 * refunds took. The payer's wallet is locked first, then the owner's, as the charge does.
 */
async function reverseStudioMarkup(trx: Knex, predictionId: string, studioId: number | string | null, markup: number, charged: number, refundedTotal: number, n: number, now: number): Promise<void> {
  if (studioId === null || markup <= 0) return;
  const studio = await studioOwner(trx, studioId);
  if (!studio) return;
  const { owner } = studio;
  const back = await trx('credit_transactions').where({ prediction_id: predictionId, kind: 'studio_revenue' }).andWhere('amount', '<', 0)
    .sum({ total: 'amount' }).first<{ total: number | string | null }>();
  const due = Math.floor(markup * Math.min(refundedTotal, charged) / charged) + num(back?.total ?? 0);
  if (due <= 0) return;
  await creditWallet(trx, owner, -due, 'studio_revenue', `studio ${studio.slug}: refund of its markup`, now, { predictionId, ref: `refund-${n}` });
}

/**
 * Credits back for a prediction (`refund` row naming it), to the wallet that paid it: `amount`, or
 * what is left (charged minus earlier refunds). The wallet row is locked first, so concurrent
 * refunds of one prediction see each other and never exceed its charge together.
 */
export async function refundPrediction(
  db: Knex, predictionId: string, amount: number | undefined, maxAmount: number, typed: string, now: number, within?: WithMove<Refunded>,
): Promise<RefundOutcome> {
  // staff's text, its addresses written as accounts (adminTopUp); read before the transaction, as below
  const description = await pseudonymiseText(db, typed);
  // Who paid never changes, so it is read before the transaction: on MariaDB a transaction's
  // snapshot starts at its first plain read, and that must come after the wallet lock, or two
  // concurrent refunds would not see each other's rows.
  const p = await db('predictions').where('id', predictionId)
    .first<{ user_id: number; team_id: number | null; payer_user_id: number | null; payer_team_id: number | null; studio_id: number | string | null; studio_markup: number | string | null } | undefined>(
      'user_id', 'team_id', 'payer_user_id', 'payer_team_id', 'studio_id', 'studio_markup',
    );
  if (!p) return { outcome: 'not-found' };
  // a whitelabel studio's owner_pays prediction was paid by the studio owner (payer_*)
  const [u, t] = p.payer_user_id === null || p.payer_user_id === undefined ? [p.user_id, p.team_id] : [p.payer_user_id, p.payer_team_id];
  const payer: Owner = { userId: num(u), teamId: t === null || t === undefined ? null : num(t) };
  return withLockRetry(() => db.transaction(async (trx): Promise<RefundOutcome> => {
    await lockWallet(trx, payer);
    if (payer.teamId !== null) {
      const team = await trx('teams').where('id', payer.teamId).first<{ deleted_at: number | null }>('deleted_at');
      if (team?.deleted_at !== null && team?.deleted_at !== undefined) return { outcome: 'team-deleted', payer };
    }
    const rows = await trx('credit_transactions').where('prediction_id', predictionId).whereIn('kind', ['prediction', 'refund'])
      .select('kind', trx.raw('sum(amount) as total'), trx.raw('count(*) as n')).groupBy('kind') as Array<{ kind: string; total: number | string; n: number | string }>;
    const charged = -num(rows.find((r) => r.kind === 'prediction')?.total ?? 0);
    const refunded = num(rows.find((r) => r.kind === 'refund')?.total ?? 0);
    const refunds = num(rows.find((r) => r.kind === 'refund')?.n ?? 0);
    if (charged <= 0) return { outcome: 'not-charged', payer };
    const remaining = charged - refunded;
    const give = amount ?? remaining;
    if (remaining <= 0 || give > remaining) return { outcome: 'exceeds', payer, charged, remaining };
    if (give > maxAmount) return { outcome: 'over-limit', payer, amount: give };
    await creditWallet(trx, payer, give, 'refund', description, now, { predictionId, ref: `refund-${refunds + 1}` });
    await reverseStudioMarkup(trx, predictionId, p.studio_id, num(p.studio_markup ?? 0), charged, refunded + give, refunds + 1, now);
    const out: Refunded = {
      outcome: 'refunded', payer, amount: give, charged, refundedTotal: refunded + give,
      ...await walletOf(trx, payer), transactionId: await lastLedgerId(trx, payer),
    };
    await within?.(trx, out);
    return out;
  }));
}
