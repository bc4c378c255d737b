// Expiring grants (README "Subscriptions"): part of a wallet's credit labelled as a subscription
// period's grant. Spending takes the grant that expires first, then purchased credit: every move
// that removes credit (a charge, a deduction) calls consumeGrants in its transaction, after its
// UPDATE of the wallet row (which holds the row's lock, so grants of one wallet change one move at
// a time). Kept free of db/wallet/moves.ts (which calls it) so the two do not import each other.
import type { Knex } from 'knex';
import { affected, num } from '../knex.ts';
import { ownerKey } from '../../lib/caller.ts';
import type { Owner } from '../../lib/caller.ts';

const walletRow = (trx: Knex, w: Owner) => (w.teamId === null ? trx('users').where('id', w.userId) : trx('teams').where('id', w.teamId));

/**
 * The wallet row's `grants` marker (migration 3101): how many of its grants have credit left, so
 * that a charge of a wallet with none skips the SELECT below (README "Subscriptions"). Changed only
 * under the wallet row's lock: +1 by `grantAdded` when a grant is inserted, and a locking recount
 * (`recountGrants`: the latest committed rows) when a move used one up or expired it.
 */
export async function grantAdded(trx: Knex, w: Owner): Promise<void> {
  await walletRow(trx, w).update({ grants: trx.raw('grants + 1') });
}

export async function recountGrants(trx: Knex, w: Owner): Promise<void> {
  const row = await trx('credit_grants').where('wallet', ownerKey(w)).andWhere('remaining', '>', 0).forUpdate().count({ n: '*' }).first<{ n: number | string }>();
  await walletRow(trx, w).update({ grants: num(row?.n ?? 0) });
}

/**
 * Takes `amount` of spent credit off the wallet's grants with credit left, soonest expiry first
 * (an expired grant the job has not swept yet goes first, so the sweep never expires purchased
 * credit in its place). Callers skip it when the wallet row's `grants` marker is 0.
 */
export async function consumeGrants(trx: Knex, w: Owner, amount: number): Promise<void> {
  if (amount <= 0) return;
  const grants = await trx('credit_grants').where('wallet', ownerKey(w)).andWhere('remaining', '>', 0)
    .orderBy('expires_at').orderBy('id').select('id', 'remaining') as Array<{ id: number | string; remaining: number | string }>;
  let left = amount;
  let usedUp = false;
  for (const g of grants) {
    if (left === 0) break;
    const take = Math.min(left, num(g.remaining));
    const n = await trx('credit_grants').where('id', g.id).andWhere('remaining', '>=', take).update({ remaining: trx.raw('remaining - ?', [take]) });
    if (affected(n) === 1) left -= take;
    if (take === num(g.remaining)) usedUp = true;
  }
  // a grant may have reached 0 (or the marker was high with none left): the marker follows
  if (usedUp || grants.length === 0) await recountGrants(trx, w);
}
