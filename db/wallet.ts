// Credit moves. A prediction's price is held at submit (balance -> held), then either
// settled (held -> gone, with a ledger row) on completion or released (held -> balance)
// on failure or cancellation. Each move is one conditional UPDATE, so concurrent submits
// can never take the balance below zero.
import type { Knex } from 'knex';
import { affected } from './knex.ts';
import { InsufficientCreditError } from './errors.ts';
import { num } from './rows.ts';

/**
 * Whose wallet a move touches: a user's own (`users` row) or a team's (`teams` row). Ledger rows
 * carry team_id and, in user_id, the member whose prediction it was; a user's personal ledger is
 * the rows with team_id null. A deleted team cannot take new holds.
 */
export interface Payer {
  userId: number;
  /** null: the user's own wallet */
  teamId: number | null;
}

function walletRow(trx: Knex, payer: Payer): Knex.QueryBuilder {
  return payer.teamId === null ? trx('users').where('id', payer.userId) : trx('teams').where('id', payer.teamId);
}

/**
 * Locks the payer's wallet row until the transaction ends (a write that changes nothing: it
 * locks on MariaDB and takes SQLite's write lock), so that checks made after it in the same
 * transaction, like counting the owner's unfinished predictions, see every submit that held it before.
 */
export async function lockWallet(trx: Knex, payer: Payer): Promise<void> {
  await walletRow(trx, payer).update({ held: trx.raw('held') });
}

/** balance -> held, only if the balance covers it (one conditional UPDATE). */
export async function holdFor(trx: Knex, payer: Payer, amount: number): Promise<void> {
  if (amount === 0) return;
  const row = walletRow(trx, payer);
  if (payer.teamId !== null) row.whereNull('deleted_at');
  const n = await row
    .andWhere('balance', '>=', amount)
    .update({ balance: trx.raw('balance - ?', [amount]), held: trx.raw('held + ?', [amount]) });
  if (affected(n) !== 1) throw new InsufficientCreditError(amount);
}

/** held -> gone, with a ledger row. */
export async function settleFor(trx: Knex, payer: Payer, amount: number, predictionId: string, model: string, now: number): Promise<void> {
  if (amount === 0) return;
  await walletRow(trx, payer).update({ held: trx.raw('held - ?', [amount]) });
  const row = await walletRow(trx, payer).select('balance').first<{ balance: number | string }>();
  await trx('credit_transactions').insert({
    user_id: payer.userId,
    team_id: payer.teamId,
    amount: -amount,
    kind: 'prediction',
    prediction_id: predictionId,
    description: model.slice(0, 255),
    balance_after: num(row.balance),
    created_at: now,
  });
}

/** held -> balance. */
export async function releaseFor(trx: Knex, payer: Payer, amount: number): Promise<void> {
  if (amount === 0) return;
  await walletRow(trx, payer).update({ balance: trx.raw('balance + ?', [amount]), held: trx.raw('held - ?', [amount]) });
}

export const hold = (trx: Knex, userId: number, amount: number) => holdFor(trx, { userId, teamId: null }, amount);
export const settle = (trx: Knex, userId: number, amount: number, predictionId: string, model: string, now: number) =>
  settleFor(trx, { userId, teamId: null }, amount, predictionId, model, now);
export const release = (trx: Knex, userId: number, amount: number) => releaseFor(trx, { userId, teamId: null }, amount);
/** `userId` 0: no member is named (the hold itself writes no ledger row). */
export const holdTeam = (trx: Knex, teamId: number, amount: number) => holdFor(trx, { userId: 0, teamId }, amount);
export const settleTeam = (trx: Knex, teamId: number, memberUserId: number, amount: number, predictionId: string, model: string, now: number) =>
  settleFor(trx, { userId: memberUserId, teamId }, amount, predictionId, model, now);
export const releaseTeam = (trx: Knex, teamId: number, amount: number) => releaseFor(trx, { userId: 0, teamId }, amount);

export async function getBalance(db: Knex, userId: number): Promise<{ balance: number; held: number }> {
  const row = await db('users').select('balance', 'held').where('id', userId).first<{ balance: number | string; held: number | string } | undefined>();
  return { balance: num(row?.balance ?? 0), held: num(row?.held ?? 0) };
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
