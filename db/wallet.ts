// Credit moves. A prediction's price is held at submit (balance -> held), then either
// settled (held -> gone, with a ledger row) on completion or released (held -> balance)
// on failure or cancellation. Each move is one conditional UPDATE, so concurrent submits
// can never take the balance below zero.
import type { Knex } from 'knex';
import { affected } from './knex.ts';
import { InsufficientCreditError } from './errors.ts';
import { num } from './rows.ts';

export async function hold(trx: Knex, userId: number, amount: number): Promise<void> {
  if (amount === 0) return;
  const n = await trx('users')
    .where('id', userId)
    .andWhere('balance', '>=', amount)
    .update({ balance: trx.raw('balance - ?', [amount]), held: trx.raw('held + ?', [amount]) });
  if (affected(n) !== 1) throw new InsufficientCreditError(amount);
}

export async function settle(trx: Knex, userId: number, amount: number, predictionId: string, model: string, now: number): Promise<void> {
  if (amount === 0) return;
  await trx('users').where('id', userId).update({ held: trx.raw('held - ?', [amount]) });
  const row = await trx('users').select('balance').where('id', userId).first<{ balance: number | string }>();
  await trx('credit_transactions').insert({
    user_id: userId,
    amount: -amount,
    kind: 'prediction',
    prediction_id: predictionId,
    description: model.slice(0, 255),
    balance_after: num(row.balance),
    created_at: now,
  });
}

export async function release(trx: Knex, userId: number, amount: number): Promise<void> {
  if (amount === 0) return;
  await trx('users').where('id', userId).update({ balance: trx.raw('balance + ?', [amount]), held: trx.raw('held - ?', [amount]) });
}

export async function getBalance(db: Knex, userId: number): Promise<{ balance: number; held: number }> {
  const row = await db('users').select('balance', 'held').where('id', userId).first<{ balance: number | string; held: number | string } | undefined>();
  return { balance: num(row?.balance ?? 0), held: num(row?.held ?? 0) };
}
