// The queries every outbox table shares (stripe_cancellations, upstream_cancellations): rows of
// work to do at a third party, each tried until done, with `attempts`, `last_error`,
// `next_attempt_at` (epoch ms) and `done_at`. An attempt is claimed with a conditional UPDATE (the
// attempts read, and being due), which also moves the row's next attempt to its backoff: of two
// runs that read the same due row, one claims it, and a process that dies mid-attempt leaves it
// due again after the backoff.
import type { Knex } from 'knex';
import { affected } from './knex.ts';

export type OutboxTable = 'stripe_cancellations' | 'upstream_cancellations';
type Row = Record<string, unknown>;

/** Up to `limit` rows not done whose next attempt is due, the longest due first. */
export async function dueOutboxRows(db: Knex, table: OutboxTable, now: number, limit: number): Promise<Row[]> {
  return db(table).whereNull('done_at').where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at').orderBy('id').limit(limit).select<Row[]>('*');
}

/**
 * Claims the next attempt of `row` (as read): true when this caller's UPDATE took it, counting the
 * attempt and moving the next one to `retryAt`; false when another run claimed it first, it is
 * done, or it is not due at `now`.
 */
export async function claimOutboxRow(db: Knex, table: OutboxTable, row: { id: number; attempts: number }, now: number, retryAt: number): Promise<boolean> {
  const n = await db(table).where({ id: row.id, attempts: row.attempts }).whereNull('done_at').where('next_attempt_at', '<=', now)
    .update({ attempts: row.attempts + 1, next_attempt_at: retryAt });
  return affected(n) === 1;
}

export async function outboxAttemptFailed(db: Knex, table: OutboxTable, id: number, error: string): Promise<void> {
  await db(table).where('id', id).update({ last_error: error.slice(0, 1000) });
}

/** Done (once): `extra` columns are written with `done_at`. */
export async function outboxRowDone(db: Knex, table: OutboxTable, id: number, now: number, extra: Row = {}): Promise<void> {
  await db(table).where('id', id).whereNull('done_at').update({ ...extra, done_at: now });
}
