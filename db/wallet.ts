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

// Team wallets (issue 8): the same moves on the `teams` row. Ledger rows carry team_id and,
// in user_id, the member whose prediction it was; a user's personal ledger is the rows with
// team_id null. A deleted team cannot take new holds.

export async function holdTeam(trx: Knex, teamId: number, amount: number): Promise<void> {
  if (amount === 0) return;
  const n = await trx('teams')
    .where('id', teamId)
    .whereNull('deleted_at')
    .andWhere('balance', '>=', amount)
    .update({ balance: trx.raw('balance - ?', [amount]), held: trx.raw('held + ?', [amount]) });
  if (affected(n) !== 1) throw new InsufficientCreditError(amount);
}

export async function settleTeam(
  trx: Knex, teamId: number, memberUserId: number, amount: number, predictionId: string, model: string, now: number,
): Promise<void> {
  if (amount === 0) return;
  await trx('teams').where('id', teamId).update({ held: trx.raw('held - ?', [amount]) });
  const row = await trx('teams').select('balance').where('id', teamId).first<{ balance: number | string }>();
  await trx('credit_transactions').insert({
    user_id: memberUserId,
    team_id: teamId,
    amount: -amount,
    kind: 'prediction',
    prediction_id: predictionId,
    description: model.slice(0, 255),
    balance_after: num(row.balance),
    created_at: now,
  });
}

export async function releaseTeam(trx: Knex, teamId: number, amount: number): Promise<void> {
  if (amount === 0) return;
  await trx('teams').where('id', teamId).update({ balance: trx.raw('balance + ?', [amount]), held: trx.raw('held - ?', [amount]) });
}

/** Adds credit to a team wallet with a ledger row (`kind` e.g. 'topup'); `byUserId` is who paid. */
export async function creditTeam(trx: Knex, teamId: number, byUserId: number, amount: number, kind: string, description: string, now: number): Promise<number> {
  await trx('teams').where('id', teamId).update({ balance: trx.raw('balance + ?', [amount]) });
  const row = await trx('teams').select('balance').where('id', teamId).first<{ balance: number | string }>();
  await trx('credit_transactions').insert({
    user_id: byUserId, team_id: teamId, amount, kind, prediction_id: null, description: description.slice(0, 255), balance_after: num(row.balance), created_at: now,
  });
  return num(row.balance);
}

export async function getTeamBalance(db: Knex, teamId: number): Promise<{ balance: number; held: number }> {
  const row = await db('teams').select('balance', 'held').where('id', teamId).first<{ balance: number | string; held: number | string } | undefined>();
  return { balance: num(row?.balance ?? 0), held: num(row?.held ?? 0) };
}
