// Scrape-time figures for /metrics (lib/telemetry.ts): one aggregate query each.
import type { Db } from './knex.ts';
import { num, numOrNull } from './knex.ts';

/**
 * Sum of every wallet's balance and held credits, users and teams. A full scan of both tables:
 * cheap at the sizes a gateway has (a scrape every 15-60 s), and exact.
 */
export async function ledgerTotals(db: Db): Promise<{ balance: number; held: number }> {
  const [users, teams] = await Promise.all([
    db('users').sum({ balance: 'balance', held: 'held' }).first(),
    db('teams').sum({ balance: 'balance', held: 'held' }).first(),
  ]);
  const sum = (r: Record<string, unknown> | undefined, k: string) => num((r?.[k] ?? 0) as number | string);
  return { balance: sum(users, 'balance') + sum(teams, 'balance'), held: sum(users, 'held') + sum(teams, 'held') };
}

/** Age of the oldest prediction accepted but not yet claimed (queued or pending); the (status, created_at) index answers it. */
export async function oldestWaitingMs(db: Db, now: number): Promise<number | null> {
  const rows = await Promise.all(['queued', 'pending'].map((status) => db('predictions').where({ status }).min({ at: 'created_at' }).first()));
  const ats = rows.map((r) => numOrNull(((r as Record<string, unknown> | undefined)?.at ?? null) as number | null)).filter((a): a is number => a !== null);
  return ats.length ? Math.max(0, now - Math.min(...ats)) : null;
}
