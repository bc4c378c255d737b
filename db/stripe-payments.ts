// Credit bought and refunded through Stripe (README "Payments (Stripe)"). A purchase is one
// `stripe_payments` row (unique Checkout Session) and one `purchase` ledger row, committed
// together; a refund is one `stripe_refunds` row (unique Stripe refund id) and one
// `payment_refund` ledger row. A dispute whose funds Stripe withdrew is taken back the same way,
// its row keyed by the dispute id (`source = 'dispute'`), and given back as a failed refund is
// when the funds are reinstated. The unique keys are what make a webhook delivered twice, or a
// refund made here and reported again by Stripe, move credit once.
import type { Knex } from 'knex';
import { creditWallet, debitWallet, lockLiveWallet, lockWallet } from './wallet/moves.ts';
import { lastLedgerId, walletOf } from './wallet/ledger.ts';
import type { Owner } from '../lib/caller.ts';
import { isDuplicateKey } from './errors.ts';
import { affected, num } from './knex.ts';
import { withLockRetry } from './retry.ts';
import { creditsForRefund } from '../lib/stripe.ts';

export interface StripePayment {
  id: number;
  /** the buyer; the wallet credited is theirs, or the team's when teamId is set */
  userId: number;
  teamId: number | null;
  checkoutSessionId: string;
  paymentIntentId: string | null;
  customerId: string | null;
  /** minor units */
  amount: number;
  currency: string;
  credits: number;
  /** what earlier refunds of it took (not counting one that failed or was cancelled): minor units and credits */
  refundedAmount: number;
  refundedCredits: number;
}

interface PaymentRow {
  id: number | string;
  user_id: number | string;
  team_id?: number | string | null;
  checkout_session_id: string;
  created_at?: number | string;
  payment_intent_id: string | null;
  customer_id: string | null;
  amount: number | string;
  currency: string;
  credits: number | string;
}

async function withRefunds(db: Knex, rows: PaymentRow[]): Promise<StripePayment[]> {
  if (rows.length === 0) return [];
  // a refund that failed or was cancelled (reversed) refunded nothing and took nothing
  const sums = await db('stripe_refunds').whereIn('payment_id', rows.map((r) => num(r.id))).whereNull('reversed_at').groupBy('payment_id')
    .select('payment_id', db.raw('sum(amount) as amount'), db.raw('sum(credits) as credits')) as Array<{ payment_id: number | string; amount: number | string; credits: number | string }>;
  const byId = new Map(sums.map((s) => [num(s.payment_id), s]));
  return rows.map((r) => ({
    id: num(r.id), userId: num(r.user_id), teamId: r.team_id === null || r.team_id === undefined ? null : num(r.team_id), checkoutSessionId: r.checkout_session_id, paymentIntentId: r.payment_intent_id, customerId: r.customer_id,
    amount: num(r.amount), currency: r.currency, credits: num(r.credits),
    refundedAmount: num(byId.get(num(r.id))?.amount ?? 0), refundedCredits: num(byId.get(num(r.id))?.credits ?? 0),
  }));
}

/** The purchase a Stripe PaymentIntent paid for (unscoped: Stripe names it, the caller is an operator). */
export async function findPaymentByIntent(db: Knex, paymentIntentId: string): Promise<StripePayment | undefined> {
  const row = await db('stripe_payments').where('payment_intent_id', paymentIntentId).orderBy('id').first<PaymentRow | undefined>();
  return row ? (await withRefunds(db, [row]))[0] : undefined;
}

/** A user's purchases, newest first (at most `limit`). */
export async function paymentsOf(db: Knex, userId: number, limit = 500): Promise<StripePayment[]> {
  return withRefunds(db, await db('stripe_payments').where('user_id', userId).orderBy('id', 'desc').limit(limit) as PaymentRow[]);
}

export interface WalletPurchase extends StripePayment {
  createdAt: number;
}

/** The purchases that credited one wallet (a user's own, or a team's), newest first, a page of `limit` after `beforeId`. */
export async function walletPurchases(db: Knex, payer: Owner, limit: number, beforeId?: number): Promise<WalletPurchase[]> {
  const q = db('stripe_payments').orderBy('id', 'desc').limit(limit);
  if (payer.teamId === null) q.where({ user_id: payer.userId }).whereNull('team_id');
  else q.where({ team_id: payer.teamId });
  if (beforeId !== undefined) q.andWhere('id', '<', beforeId);
  const rows = await q as PaymentRow[];
  const payments = await withRefunds(db, rows);
  return payments.map((p, i) => ({ ...p, createdAt: num(rows[i]!.created_at ?? 0) }));
}

/** The Stripe customer recorded for a user (a completed checkout's customer), or null. */
export async function stripeCustomerOf(db: Knex, userId: number): Promise<string | null> {
  const row = await db('users').where('id', userId).first<{ stripe_customer_id: string | null } | undefined>('stripe_customer_id');
  return row?.stripe_customer_id ?? null;
}

/** The Stripe customer recorded for a wallet: the user's own, or the team's; null: none yet. */
export async function walletCustomerOf(db: Knex, payer: Owner): Promise<string | null> {
  const row = await db(payer.teamId === null ? 'users' : 'teams').where('id', payer.teamId ?? payer.userId).first<{ stripe_customer_id: string | null } | undefined>('stripe_customer_id');
  return row?.stripe_customer_id ?? null;
}

/** Records the wallet's Stripe customer (a completed checkout's) unless it already has one. */
export async function recordCustomer(db: Knex, payer: Owner, customerId: string): Promise<void> {
  await db(payer.teamId === null ? 'users' : 'teams').where('id', payer.teamId ?? payer.userId).whereNull('stripe_customer_id').update({ stripe_customer_id: customerId });
}

/** The user whose recorded Stripe customer this is. */
export async function userIdForCustomer(db: Knex, customerId: string): Promise<number | undefined> {
  const row = await db('users').where('stripe_customer_id', customerId).orderBy('id').first<{ id: number | string } | undefined>('id');
  return row ? num(row.id) : undefined;
}

export interface Purchase {
  userId: number;
  /** the team whose wallet the purchase credits; null: the buyer's own */
  teamId: number | null;
  checkoutSessionId: string;
  paymentIntentId: string | null;
  customerId: string | null;
  /** whether the customer becomes the wallet's (when it has none): not a stranger's who named the account */
  recordCustomer: boolean;
  amount: number;
  currency: string;
  credits: number;
  now: number;
}

export type PurchaseOutcome =
  /** `forDeletedTeam`: bought for this team, deleted before the payment arrived, so the buyer's own wallet was credited */
  | { outcome: 'credited'; paymentId: number; balance: number; transactionId: number; forDeletedTeam?: number }
  /** this Checkout Session was credited before: nothing moved */
  | { outcome: 'duplicate' }
  /**
   * the account is missing or erased (`account`), or the team was deleted and its buyer's account
   * is erased too (`team`): nothing is credited (an erased account's tombstone is never credited)
   */
  | { outcome: 'no-account'; gone: 'account' | 'team' };

/**
 * Credits a completed checkout once: its `stripe_payments` row and its `purchase` ledger row, one
 * transaction. A team's purchase credits the team even if its buyer was erased since; one paid
 * after the team was deleted credits the buyer's own wallet instead (`forDeletedTeam`; the ledger
 * row says so, and the purchase is recorded as the buyer's, so a refund of it takes from there).
 */
export async function recordPurchase(db: Knex, p: Purchase): Promise<PurchaseOutcome> {
  return withLockRetry(() => db.transaction(async (trx): Promise<PurchaseOutcome> => {
    // a redelivery of a session credited before the wallet went is still a duplicate
    if (await trx('stripe_payments').where('checkout_session_id', p.checkoutSessionId).first('id')) return { outcome: 'duplicate' };
    // the user's row before the team's, the order every move locks wallets in (compareWallets)
    const buyerLive = await lockLiveWallet(trx, { userId: p.userId, teamId: null });
    let payer: Owner = { userId: p.userId, teamId: p.teamId };
    let forDeletedTeam: number | undefined;
    if (p.teamId === null) {
      if (!buyerLive) return { outcome: 'no-account', gone: 'account' };
    } else if (!(await lockLiveWallet(trx, payer))) {
      if (!buyerLive) return { outcome: 'no-account', gone: 'team' };
      forDeletedTeam = p.teamId;
      payer = { userId: p.userId, teamId: null };
    }
    let paymentId: number;
    try {
      const [id] = await trx('stripe_payments').insert({
        user_id: p.userId, team_id: payer.teamId, checkout_session_id: p.checkoutSessionId, payment_intent_id: p.paymentIntentId, customer_id: p.customerId,
        amount: p.amount, currency: p.currency, credits: p.credits, created_at: p.now,
      });
      paymentId = num(id);
    } catch (err) {
      if (isDuplicateKey(err)) return { outcome: 'duplicate' };
      throw err;
    }
    const what = `Stripe payment ${p.paymentIntentId ?? p.checkoutSessionId}`;
    const description = forDeletedTeam === undefined ? what : `${what}, bought for team ${forDeletedTeam}, which was deleted before the payment arrived: credited to your own wallet`;
    const balance = await creditWallet(trx, payer, p.credits, 'purchase', description, p.now, { ref: `stripe-payment-${paymentId}` });
    // the customer of a deleted team's checkout is the team's, not the buyer's
    if (p.customerId && p.recordCustomer && forDeletedTeam === undefined) await recordCustomer(trx, payer, p.customerId);
    return { outcome: 'credited', paymentId, balance, transactionId: await lastLedgerId(trx, payer), ...(forDeletedTeam === undefined ? {} : { forDeletedTeam }) };
  }));
}

export interface RefundFacts {
  refundId: string;
  chargeId: string;
  /** minor units */
  amount: number;
  currency: string;
  /** `dispute`: a dispute's withdrawn funds (refundId is the dispute id) */
  source: 'admin' | 'webhook' | 'dispute';
  description: string;
  now: number;
}

export type RefundApplied =
  | { outcome: 'applied' | 'duplicate'; userId: number; credits: number; balance: number };

export type RefundReversed =
  /**
   * `teamDeleted`: the team the purchase credited was deleted since, so the credits went to the
   * buyer's own wallet, or `nowhere` (`credits` 0) when the buyer's account was erased too
   */
  | { outcome: 'reversed'; userId: number; credits: number; teamDeleted?: { team: number; to: 'buyer' | 'nowhere' } }
  /** no such refund recorded, or already given back */
  | { outcome: 'none' };

/**
 * A refund that Stripe reports `failed` or `canceled`: the money never left, so the credits it took
 * are given back (a positive `payment_refund` row), once: `reversed_at` is set by a conditional
 * UPDATE in the same transaction, under the wallet's lock. A reversed refund counts no more toward
 * what the payment's later refunds may take (creditsForRefund reads the rest). A refund of
 * `unseen.payment` not recorded yet (Stripe does not keep the order of events: its `refund.created`
 * may come after its `refund.failed`) is recorded as reversed, taking nothing, so that a `pending`
 * report of it delivered later takes nothing either.
 */
export async function reverseStripeRefund(
  db: Knex, refundId: string, description: string, now: number,
  unseen?: { payment: StripePayment; chargeId: string; amount: number; currency: string; source?: RefundFacts['source'] },
): Promise<RefundReversed> {
  const row = await db('stripe_refunds').where('refund_id', refundId).first<{ user_id: number | string; team_id: number | string | null } | undefined>('user_id', 'team_id');
  const payer: Owner | undefined = row ? { userId: num(row.user_id), teamId: row.team_id === null ? null : num(row.team_id) }
    : unseen ? { userId: unseen.payment.userId, teamId: unseen.payment.teamId } : undefined;
  if (!payer) return { outcome: 'none' };
  return withLockRetry(() => db.transaction(async (trx): Promise<RefundReversed> => {
    // a team's purchase: the buyer's row first (users before teams, compareWallets), in case the team is gone
    const buyerLive = payer.teamId === null ? true : await lockLiveWallet(trx, { userId: payer.userId, teamId: null });
    await lockWallet(trx, payer);
    if (!row && unseen && !(await trx('stripe_refunds').where('refund_id', refundId).first('id'))) {
      await trx('stripe_refunds').insert({
        refund_id: refundId, payment_id: unseen.payment.id, charge_id: unseen.chargeId, user_id: payer.userId, team_id: payer.teamId, amount: unseen.amount,
        currency: unseen.currency, credits: 0, source: unseen.source ?? 'webhook', created_at: now, reversed_at: now,
      });
      return { outcome: 'none' };
    }
    const n = await trx('stripe_refunds').where('refund_id', refundId).whereNull('reversed_at').update({ reversed_at: now });
    if (affected(n) !== 1) return { outcome: 'none' };
    const { credits } = await trx('stripe_refunds').where('refund_id', refundId).first<{ credits: number | string }>('credits');
    const ref = `${refundId.slice(0, 55)}-reversed`;
    if (payer.teamId !== null && !(await lockLiveWallet(trx, payer))) {
      // a deleted team is credited nothing: its buyer's own wallet is, as a purchase paid after the deletion would be
      if (!buyerLive) return { outcome: 'reversed', userId: payer.userId, credits: 0, teamDeleted: { team: payer.teamId, to: 'nowhere' } };
      const own: Owner = { userId: payer.userId, teamId: null };
      if (num(credits) > 0) {
        await creditWallet(trx, own, num(credits), 'payment_refund', `${description}, taken from team ${payer.teamId}, which was deleted since: given back to your own wallet`, now, { ref });
      }
      return { outcome: 'reversed', userId: payer.userId, credits: num(credits), teamDeleted: { team: payer.teamId, to: 'buyer' } };
    }
    const exists = await walletRowExists(trx, payer);
    if (num(credits) > 0 && exists) await creditWallet(trx, payer, num(credits), 'payment_refund', description, now, { ref });
    return { outcome: 'reversed', userId: payer.userId, credits: exists ? num(credits) : 0 };
  }));
}

/**
 * Takes back the credits a Stripe refund of `payment` stands for, once per refund id: the
 * `stripe_refunds` row and the `payment_refund` ledger row commit together. The money has left
 * through Stripe already, so the credits go even when the wallet cannot cover them (the balance
 * goes below zero: a debt later credit pays first); adminStripeRefund checks the balance before
 * it asks Stripe. The wallet row is locked first, so concurrent refunds of one payment see each
 * other's rows and together take back at most what it bought.
 */
export async function applyStripeRefund(db: Knex, payment: StripePayment, r: RefundFacts): Promise<RefundApplied> {
  const payer: Owner = { userId: payment.userId, teamId: payment.teamId };
  return withLockRetry(() => db.transaction(async (trx): Promise<RefundApplied> => {
    await lockWallet(trx, payer);
    const seen = await trx('stripe_refunds').where('refund_id', r.refundId).first<{ credits: number | string } | undefined>('credits');
    const balanceNow = async () => (await trx(payer.teamId === null ? 'users' : 'teams').where('id', payer.teamId ?? payer.userId).first<{ balance: number | string } | undefined>('balance'))?.balance;
    if (seen) return { outcome: 'duplicate', userId: payer.userId, credits: num(seen.credits), balance: num(await balanceNow() ?? 0) };
    const sums = await trx('stripe_refunds').where('payment_id', payment.id).whereNull('reversed_at')
      .first<{ amount: number | string | null; credits: number | string | null }>(trx.raw('sum(amount) as amount'), trx.raw('sum(credits) as credits'));
    const exists = (await balanceNow()) !== undefined;
    // an erased account: the refund is recorded (so it is not applied later), nothing to take from
    const credits = exists ? creditsForRefund(payment.amount, payment.credits, num(sums?.amount ?? 0), num(sums?.credits ?? 0), r.amount) : 0;
    try {
      await trx('stripe_refunds').insert({
        refund_id: r.refundId, payment_id: payment.id, charge_id: r.chargeId, user_id: payer.userId, team_id: payer.teamId, amount: r.amount, currency: r.currency,
        credits, source: r.source, created_at: r.now,
      });
    } catch (err) {
      // recorded meanwhile by a caller that did not lock the same wallet (the account was erased)
      if (isDuplicateKey(err)) return { outcome: 'duplicate', userId: payer.userId, credits: 0, balance: num(await balanceNow() ?? 0) };
      throw err;
    }
    if (credits > 0) await debitWallet(trx, payer, credits, r.description, r.now, true, { kind: 'payment_refund', ref: r.refundId.slice(0, 64) });
    return { outcome: 'applied', userId: payer.userId, credits, balance: exists ? (await walletOf(trx, payer)).balance : 0 };
  }));
}

/** Whether the wallet still exists (an erased account keeps its row as a tombstone; a team row stays after deletion). */
async function walletRowExists(trx: Knex, payer: Owner): Promise<boolean> {
  return Boolean(await trx(payer.teamId === null ? 'users' : 'teams').where('id', payer.teamId ?? payer.userId).first('id'));
}
