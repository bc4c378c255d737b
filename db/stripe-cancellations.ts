// The outbox of Stripe subscriptions the gateway decided must end (migration 20261201_0501,
// docs/operating/billing.md "Renewals"): one row per subscription, written where that is decided,
// worked by workers/stripe-cancellations.ts until Stripe has cancelled it. Claimed, failed and done
// as every outbox row (db/outbox.ts).
import type { Knex } from 'knex';
import { num, numOrNull } from './knex.ts';
import { claimOutboxRow, dueOutboxRows, outboxAttemptFailed, outboxRowDone } from './outbox.ts';
import { isDuplicateKey } from './errors.ts';
import type { Owner } from '../lib/caller.ts';
import { liveStripeSubscriptionsOf } from './subscriptions.ts';

export interface StripeCancellation {
  id: number;
  stripeSubscriptionId: string;
  payer: Owner;
  reason: string;
  createdAt: number;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: number;
  doneAt: number | null;
}

type Row = Record<string, unknown>;

const fromRow = (r: Row): StripeCancellation => ({
  id: num(r.id as number | string),
  stripeSubscriptionId: r.stripe_subscription_id as string,
  payer: { userId: num(r.user_id as number | string), teamId: numOrNull(r.team_id as number | string | null) },
  reason: r.reason as string,
  createdAt: num(r.created_at as number | string),
  attempts: num(r.attempts as number | string),
  lastError: (r.last_error as string | null) ?? null,
  nextAttemptAt: num(r.next_attempt_at as number | string),
  doneAt: numOrNull(r.done_at as number | string | null),
});

/**
 * Records that the Stripe subscription must be cancelled, due at once; a subscription already
 * recorded (pending or done) is left as it is. `db` may be a transaction.
 */
export async function recordStripeCancellation(db: Knex, stripeSubscriptionId: string, payer: Owner, reason: string, now: number): Promise<void> {
  try {
    await db('stripe_cancellations').insert({
      stripe_subscription_id: stripeSubscriptionId, user_id: payer.userId, team_id: payer.teamId, reason: reason.slice(0, 255),
      created_at: now, attempts: 0, next_attempt_at: now,
    });
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
  }
}

/** Why a wallet's Stripe subscriptions are cancelled when it goes. */
export const WALLET_GONE = 'its wallet is gone (account erased or team deleted)';

/**
 * Records every Stripe subscription the wallet's checkouts started or paid for unapplied that
 * Stripe has not reported ended (liveStripeSubscriptionsOf) for cancelling, as its wallet goes:
 * called in the erasing or deleting transaction, so a process that stops right after the commit
 * leaves them recorded for the subscription job. The ids, for an attempt after the commit.
 */
export async function recordWalletStripeCancellations(trx: Knex, payer: Owner, now: number): Promise<string[]> {
  const subs = await liveStripeSubscriptionsOf(trx, payer);
  for (const sub of subs) await recordStripeCancellation(trx, sub, payer, WALLET_GONE, now);
  return subs;
}

export async function findStripeCancellation(db: Knex, stripeSubscriptionId: string): Promise<StripeCancellation | undefined> {
  const row = await db('stripe_cancellations').where('stripe_subscription_id', stripeSubscriptionId).first<Row | undefined>();
  return row ? fromRow(row) : undefined;
}

/** Up to `limit` rows not done whose next attempt is due, the longest due first. */
export async function dueStripeCancellations(db: Knex, now: number, limit: number): Promise<StripeCancellation[]> {
  return (await dueOutboxRows(db, 'stripe_cancellations', now, limit)).map(fromRow);
}

/** Claims the next attempt of `row` (as read), as claimOutboxRow. */
export async function claimStripeCancellation(db: Knex, row: StripeCancellation, now: number, retryAt: number): Promise<boolean> {
  return claimOutboxRow(db, 'stripe_cancellations', row, now, retryAt);
}

export async function stripeCancellationFailed(db: Knex, id: number, error: string): Promise<void> {
  await outboxAttemptFailed(db, 'stripe_cancellations', id, error);
}

export async function stripeCancellationDone(db: Knex, id: number, now: number): Promise<void> {
  await outboxRowDone(db, 'stripe_cancellations', id, now);
}

/** The plan a checkout of the Stripe subscription bought (its first record), '' when none names it. */
export async function planOfStripeSubscription(db: Knex, stripeSubscriptionId: string): Promise<string> {
  const row = await db('stripe_subscription_checkouts').where('stripe_subscription_id', stripeSubscriptionId).orderBy('id').first<{ plan: string } | undefined>('plan');
  return row?.plan ?? '';
}
