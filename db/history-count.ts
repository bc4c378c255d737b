// The run history's unfiltered count, exact and cheap at any size (README "Run history, gallery
// and review"; migration 2801). COUNT(*) over the owner's index entries grows with the history
// (100,000 rows: 5 ms idle, 80-100 ms under load). Instead, per owner, `visible` holds how many
// visible predictions were created before `checkpoint`, and the rows after it (the tail) are
// counted live along the history index (owner, deleted_at, created_at): a short range.
//
// - The submit path never touches this table (issue 15: no hot row per tenant): new rows are in
//   the tail until a read moves the checkpoint past them.
// - A read moves the checkpoint when the tail holds more than ADVANCE_AFTER rows and the
//   checkpoint is older than now - 2 x SETTLE_MS, to now - SETTLE_MS: a prediction is created (`created_at`) and committed in one short
//   transaction, so every row older than SETTLE_MS is committed and the count of
//   [checkpoint, cut) never changes afterwards except by a bulk delete.
// - A bulk delete (db/run-history.ts hidePredictions) decrements `visible` for the rows it hides
//   that lie before the checkpoint, in the same transaction.
// Both lock the owner's counter row first (created beforehand with INSERT IGNORE, so there is
// always a row to lock): the checkpoint's recount and a delete never interleave.
import type { Knex } from 'knex';
import type { Db } from './knex.ts';
import { ownerWhere } from './owner.ts';
import type { Owner } from './owner.ts';
import { ownerKey } from '../lib/caller.ts';
import { num } from './knex.ts';
import { withLockRetry } from './retry.ts';

const TABLE = 'prediction_history_counts';
/** a row older than this is committed (a submit's transaction takes milliseconds) */
export const SETTLE_MS = 5 * 60_000;
/** the tail is recounted on every read; past this many rows, the checkpoint moves */
export const ADVANCE_AFTER = 2_000;
/** the checkpoint of a new counter: nothing counted yet, every row is in the tail */
const START = 0;


/** Visible predictions of the owner with created_at in [from, to), from the history index alone. */
async function countRange(db: Knex | Knex.Transaction, owner: Owner, from: number, to: number | null): Promise<number> {
  const q = db('predictions').where(ownerWhere(owner)).whereNull('deleted_at').where('created_at', '>=', from);
  if (to !== null) q.where('created_at', '<', to);
  const row = await q.count<{ n: number | string }[]>({ n: '*' }).first();
  return num(row?.n ?? 0);
}

/** The owner's counter row, created (empty) if missing, locked for this transaction. */
async function lockCounter(trx: Knex.Transaction, owner: Owner): Promise<{ visible: number; checkpoint: number }> {
  const key = ownerKey(owner);
  // select first: INSERT IGNORE on an existing row would take a shared lock, and two of those
  // upgrading to the exclusive one deadlock
  let row = await trx(TABLE).where({ owner_key: key }).forUpdate().first();
  if (!row) {
    await trx(TABLE).insert({ owner_key: key, visible: 0, checkpoint: START }).onConflict('owner_key').ignore();
    row = await trx(TABLE).where({ owner_key: key }).forUpdate().first();
  }
  return { visible: num(row.visible), checkpoint: num(row.checkpoint) };
}

/** Moves the owner's checkpoint to `cut`, adding the visible rows in between. */
async function advance(db: Db, owner: Owner, cut: number): Promise<void> {
  await withLockRetry(() => db.transaction(async (trx) => {
    const c = await lockCounter(trx, owner);
    if (cut <= c.checkpoint) return;
    const n = await countRange(trx, owner, c.checkpoint, cut);
    await trx(TABLE).where({ owner_key: ownerKey(owner) }).update({ visible: c.visible + n, checkpoint: cut });
  }));
}

/** The number of the owner's visible predictions (the unfiltered history's `total`). */
export async function countVisible(db: Db, owner: Owner, now: number): Promise<number> {
  // one round trip: the counter and the tail since its checkpoint (the subquery is a constant, so the tail is an index range)
  const counter = () => db(TABLE).where({ owner_key: ownerKey(owner) });
  const checkpoint = db.raw('COALESCE((?), ?)', [counter().select('checkpoint'), START]);
  const tail = db('predictions').where(ownerWhere(owner)).whereNull('deleted_at').where('created_at', '>=', checkpoint).count({ n: '*' });
  const rows = await db.select(db.raw('(?) as visible', [counter().select('visible')]), db.raw('(?) as checkpoint', [checkpoint]), db.raw('(?) as tail', [tail])) as Array<Record<string, unknown>>;
  const row = rows[0]!;
  const visible = row.visible === null || row.visible === undefined ? 0 : num(row.visible);
  const n = num(row.tail);
  // not on every read of a busy owner: only when the checkpoint is a whole SETTLE_MS behind the cut
  if (n > ADVANCE_AFTER && num(row.checkpoint) < now - 2 * SETTLE_MS) await advance(db, owner, now - SETTLE_MS);
  return visible + n;
}

/**
 * Called by a bulk delete inside its transaction, before it hides anything: locks the owner's
 * counter and returns a function that takes the created_at of each row hidden and decrements
 * the rows before the checkpoint.
 */
export async function counterForDelete(trx: Knex.Transaction, owner: Owner): Promise<(hiddenCreatedAt: number[]) => Promise<void>> {
  const c = await lockCounter(trx, owner);
  return async (createdAt) => {
    const before = createdAt.filter((at) => at < c.checkpoint).length;
    if (before) await trx(TABLE).where({ owner_key: ownerKey(owner) }).decrement('visible', before);
  };
}

/** Drops the counter of an erased account (its personal predictions are deleted). */
export async function dropCounter(trx: Knex.Transaction, owner: Owner): Promise<void> {
  await trx(TABLE).where({ owner_key: ownerKey(owner) }).delete();
}
