// The credential cache's leases (README "Credential cache"): which API processes may be serving
// API keys from their caches, until when, in the database's clock.
import type { Knex } from 'knex';
import type { Db } from './knex.ts';
import { affected, isMysql, num } from './knex.ts';

/** The database's clock in epoch ms, as an SQL expression (the same clock for every process). */
function dbNow(db: Db | Knex.Transaction): Knex.Raw {
  return isMysql(db as Db)
    ? db.raw('CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)')
    : db.raw("CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)");
}

/** Takes a new lease (or takes it again after losing it): `expires_at` = now + leaseMs. */
export async function acquireLease(db: Db, id: string, leaseMs: number): Promise<void> {
  await db('credential_cache_leases').where({ id }).delete();
  await db('credential_cache_leases').insert({ id, expires_at: db.raw('(?) + ?', [dbNow(db), leaseMs]) });
}

/**
 * Extends a lease that has not expired: false when it has expired or was taken away (an invalidator
 * that got no answer deletes it), and then the holder must empty its cache before taking a new one,
 * since an invalidation may have skipped it.
 */
export async function renewLease(db: Db, id: string, leaseMs: number): Promise<boolean> {
  const now = dbNow(db);
  return affected(await db('credential_cache_leases').where({ id }).where('expires_at', '>', now).update({ expires_at: db.raw('(?) + ?', [now, leaseMs]) })) === 1;
}

export async function releaseLease(db: Db, id: string): Promise<void> {
  await db('credential_cache_leases').where({ id }).delete();
}

/** The unexpired leases other than `except`, with how long each has left (ms). */
export async function liveLeases(db: Db, except: string): Promise<Array<{ id: string; remainingMs: number }>> {
  const now = dbNow(db);
  const rows = await db('credential_cache_leases').where('expires_at', '>', now).whereNot({ id: except })
    .select<Array<{ id: string; remaining: number | string }>>('id', db.raw('expires_at - (?) as remaining', [now]));
  return rows.map((r) => ({ id: r.id, remainingMs: Math.max(0, num(r.remaining)) }));
}

/**
 * Takes the leases of processes that did not answer an invalidation: deleted (their next renewal
 * fails, so they empty their caches), and answers the longest time one of them may still serve
 * from its cache (ms), read under the row locks so that no renewal slips in between.
 */
export async function revokeLeases(db: Db, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  return db.transaction(async (trx) => {
    const now = dbNow(trx);
    const rows = await trx('credential_cache_leases').whereIn('id', ids).forUpdate()
      .select<Array<{ remaining: number | string }>>(trx.raw('expires_at - (?) as remaining', [now]));
    await trx('credential_cache_leases').whereIn('id', ids).delete();
    return rows.reduce((m, r) => Math.max(m, num(r.remaining)), 0);
  });
}
