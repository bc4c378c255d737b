// A key's spend limit per period (README "Key restrictions"), checked in the submit's
// transaction next to the hold. The spend of a key in a period is not a second counter: it is
// the sum of the prices of the key's predictions created in the period that were not released
// (failed and cancelled asynchronous ones gave their hold back, so they do not count), read under a lock on
// the key's row. Every submit with that key queues on the same row, whichever wallet it pays
// from (its owner's, or a team's through team_id), so N parallel submits admit exactly what fits.
import type { Knex } from 'knex';
import { KeySpendLimitError } from './errors.ts';
import { num } from './knex.ts';
import { spentOrHeld } from './predictions/record.ts';

export type SpendPeriod = 'day' | 'month';
export const SPEND_PERIODS: readonly SpendPeriod[] = ['day', 'month'];

export interface KeySpendLimit {
  keyId: number;
  /** credits per period */
  amount: number;
  period: SpendPeriod;
}

/** The start (epoch ms, UTC) of the period that contains `now`. */
export function periodStart(period: SpendPeriod, now: number): number {
  const d = new Date(now);
  return period === 'day' ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) : Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** Credits the key has committed in the period containing `now` (held or settled). */
export async function keySpend(db: Knex, keyId: number, period: SpendPeriod, now: number): Promise<number> {
  const row = await spentOrHeld(db('predictions')
    .where('api_key_id', keyId)
    .andWhere('created_at', '>=', periodStart(period, now)))
    .sum<{ spent: number | string | null }[]>({ spent: 'price' })
    .first();
  return num(row?.spent ?? 0);
}

/** A write that changes nothing: the key's row lock on MariaDB, SQLite's write lock. */
export async function lockKey(trx: Knex, keyId: number): Promise<void> {
  await trx('api_keys').where('id', keyId).update({ spend_limit: trx.raw('spend_limit') });
}

/**
 * Locks the key's row and refuses (KeySpendLimitError, 402 key_spend_limit_exceeded) a price
 * that would take the key's spend in this period past its limit. Must be the transaction's
 * first statement: on MariaDB the snapshot of later reads is taken after the lock is held. The
 * limit is read again under the lock, so a limit lowered a moment ago applies.
 */
export async function checkKeySpend(trx: Knex, keyId: number, price: number, now: number): Promise<void> {
  await lockKey(trx, keyId);
  const key = await trx('api_keys').select('spend_limit', 'spend_limit_period').where('id', keyId)
    .first<{ spend_limit: number | string | null; spend_limit_period: string | null } | undefined>();
  if (!key || key.spend_limit === null || !SPEND_PERIODS.includes(key.spend_limit_period as SpendPeriod)) return;
  const limit = num(key.spend_limit);
  const period = key.spend_limit_period as SpendPeriod;
  const spent = await keySpend(trx, keyId, period, now);
  if (spent + price > limit) {
    throw new KeySpendLimitError(`this API key's spend limit is ${limit} credits per ${period} (UTC); it has ${limit - spent} left and this request costs ${price}`);
  }
}
