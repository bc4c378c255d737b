// Run history, gallery and review (README "Run history, gallery and review"): an owner's
// predictions newest first, paged by number on the outside and by keyset on the inside.
//
// Page N is found in two steps. First the keyset boundary: the (created_at, id) of the page's
// first row, read at offset (N-1)*size from an index that holds the owner, `deleted_at`,
// `created_at` and `id` (migration 1701), so the offset walks index entries only and never
// reads a row. Then the page itself: `(created_at, id) <= boundary`, newest first, LIMIT size:
// only the page's rows are read. When the total is known and the page lies in the older half,
// both steps run from the oldest end instead (ascending, then reversed), so the last page costs
// what the first does. Filters outside the index (status, review status, model, q) make the
// boundary step read rows; they narrow what is read, and a search is expected to cost more.
import type { Knex } from 'knex';
import type { Db } from './knex.ts';
import { affected, num, numOrNull } from './knex.ts';
import { ownerWhere } from './owner.ts';
import type { Owner } from './owner.ts';
import { predictionFromRow, TERMINAL } from './predictions/record.ts';
import type { Prediction, PredictionSource, PredictionStatus, ReviewStatus } from './predictions/record.ts';
import { counterForDelete, countVisible } from './history-count.ts';
import { withLockRetry } from './retry.ts';

export interface HistoryFilter {
  /** a sandbox key sees sandbox predictions only */
  sandboxOnly?: boolean;
  requestId?: string;
  model?: string;
  /** only these models (the gallery's media type); an empty list matches nothing */
  models?: readonly string[];
  status?: PredictionStatus;
  reviewStatus?: ReviewStatus;
  /** hide these review statuses (the gallery hides `rejected` unless asked for) */
  excludeReviewStatus?: ReviewStatus;
  /** [from, to) in epoch ms */
  createdFrom?: number;
  createdTo?: number;
  /** case-insensitive substring of the request id, the model or the input (the prompt) */
  q?: string;
  /** completed with its files still stored (the gallery) */
  withOutputs?: boolean;
}

export interface HistoryEntry extends Prediction {
  source: PredictionSource;
  reviewedBy: number | null;
  reviewedAt: number | null;
  apiKeyName: string | null;
}

export interface Paging {
  page: number;
  pageSize: number;
  /** count every match into `total` (false: `total` is null) */
  count: boolean;
}

export interface Page<T> {
  items: T[];
  total: number | null;
  hasMore: boolean;
}

const likePattern = (s: string) => `%${s.replace(/[!%_]/g, (c) => `!${c}`)}%`;

function applyFilter(q: Knex.QueryBuilder, owner: Owner, f: HistoryFilter): Knex.QueryBuilder {
  q.where(ownerWhere(owner, 'predictions')).whereNull('predictions.deleted_at');
  if (f.sandboxOnly) q.where('predictions.is_test', true);
  if (f.requestId !== undefined) q.where('predictions.id', f.requestId);
  if (f.model !== undefined) q.where('predictions.model', f.model);
  if (f.models !== undefined) q.whereIn('predictions.model', [...f.models]);
  if (f.status !== undefined) q.where('predictions.status', f.status);
  if (f.reviewStatus !== undefined) q.where('predictions.review_status', f.reviewStatus);
  if (f.excludeReviewStatus !== undefined) q.whereNot('predictions.review_status', f.excludeReviewStatus);
  if (f.createdFrom !== undefined) q.where('predictions.created_at', '>=', f.createdFrom);
  if (f.createdTo !== undefined) q.where('predictions.created_at', '<', f.createdTo);
  if (f.withOutputs) q.where('predictions.status', 'completed').whereNull('predictions.outputs_expired_at');
  if (f.q !== undefined && f.q !== '') {
    const pattern = likePattern(f.q);
    q.where((w) => {
      for (const col of ['predictions.id', 'predictions.model', 'predictions.input']) w.orWhereRaw(`?? like ? escape '!'`, [col, pattern]);
    });
  }
  return q;
}

type Boundary = { created_at: number | string; id: string };

/** The (created_at, id) at `offset` in the given direction, from the index alone. */
async function boundaryAt(db: Db, owner: Owner, f: HistoryFilter, offset: number, dir: 'asc' | 'desc'): Promise<Boundary | undefined> {
  const q = applyFilter(db('predictions').select('predictions.created_at', 'predictions.id'), owner, f)
    .orderBy([{ column: 'predictions.created_at', order: dir }, { column: 'predictions.id', order: dir }])
    .limit(1).offset(offset);
  return (await q)[0] as Boundary | undefined;
}

/** The page from boundary `b` on (null: from the newest row, or the oldest one ascending). */
async function pageFrom(db: Db, owner: Owner, f: HistoryFilter, b: Boundary | null, dir: 'asc' | 'desc', limit: number): Promise<Array<Record<string, unknown>>> {
  const at = b === null ? 0 : num(b.created_at);
  const q = applyFilter(db('predictions').leftJoin('api_keys', 'api_keys.id', 'predictions.api_key_id')
    .select('predictions.*', 'api_keys.name as api_key_name'), owner, f);
  // (created_at, id) <= boundary (desc) or >= (asc), written so both engines use it as an index range
  if (b !== null && dir === 'desc') q.where('predictions.created_at', '<=', at).where((w) => w.where('predictions.created_at', '<', at).orWhere('predictions.id', '<=', b.id));
  else if (b !== null) q.where('predictions.created_at', '>=', at).where((w) => w.where('predictions.created_at', '>', at).orWhere('predictions.id', '>=', b.id));
  q.orderBy([{ column: 'predictions.created_at', order: dir }, { column: 'predictions.id', order: dir }]).limit(limit);
  return await q as Array<Record<string, unknown>>;
}

function toEntry(r: Record<string, unknown>): HistoryEntry {
  return {
    ...predictionFromRow(r),
    source: (r.source ?? 'api') as PredictionSource,
    reviewedBy: numOrNull(r.reviewed_by ?? null),
    reviewedAt: numOrNull(r.reviewed_at ?? null),
    apiKeyName: (r.api_key_name ?? null) as string | null,
  };
}

/**
 * The number of matches. Unfiltered: the owner's counter plus the tail since its checkpoint
 * (db/history-count.ts), which costs the same at any history size. A filter (a sandbox key's
 * included) counts the matches: along the index for a date range, reading rows otherwise.
 */
export async function countHistory(db: Db, owner: Owner, f: HistoryFilter, now: number): Promise<number> {
  if (Object.values(f).every((v) => v === undefined || v === false)) return countVisible(db, owner, now);
  const row = await applyFilter(db('predictions'), owner, f).count<{ n: number | string }[]>({ n: '*' }).first();
  return num(row?.n ?? 0);
}

/** One page of the owner's (visible) predictions, newest first. */
export async function listHistory(db: Db, owner: Owner, f: HistoryFilter, paging: Paging, now: number): Promise<Page<HistoryEntry>> {
  const { pageSize } = paging;
  const offset = (paging.page - 1) * pageSize;
  if (offset === 0) {
    // The first page needs no boundary, and its rows do not depend on the count: both at once.
    const [rows, total] = await Promise.all([pageFrom(db, owner, f, null, 'desc', pageSize + 1), paging.count ? countHistory(db, owner, f, now) : null]);
    return { items: rows.slice(0, pageSize).map(toEntry), total, hasMore: rows.length > pageSize };
  }
  const total = paging.count ? await countHistory(db, owner, f, now) : null;
  if (total !== null && offset >= total) return { items: [], total, hasMore: false };
  if (total !== null && offset > total / 2) {
    // The older half: count from the oldest end. This page is the rows at ascending positions [start, total - offset).
    const start = Math.max(0, total - offset - pageSize);
    // the last page starts at the oldest row: no boundary to look up
    let b: Boundary | null = null;
    if (start > 0) {
      const found = await boundaryAt(db, owner, f, start, 'asc');
      if (!found) return { items: [], total, hasMore: false };
      b = found;
    }
    const rows = await pageFrom(db, owner, f, b, 'asc', total - offset - start);
    return { items: rows.reverse().map(toEntry), total, hasMore: offset + rows.length < total };
  }
  const b = await boundaryAt(db, owner, f, offset, 'desc');
  if (!b) return { items: [], total, hasMore: false };
  const rows = await pageFrom(db, owner, f, b, 'desc', pageSize + 1);
  const hasMore = rows.length > pageSize;
  return { items: rows.slice(0, pageSize).map(toEntry), total, hasMore };
}

/** The owner's visible prediction with its history fields, or undefined. */
export async function findHistoryEntry(db: Db, owner: Owner, id: string, sandboxOnly = false): Promise<HistoryEntry | undefined> {
  const rows = await applyFilter(db('predictions').leftJoin('api_keys', 'api_keys.id', 'predictions.api_key_id')
    .select('predictions.*', 'api_keys.name as api_key_name'), owner, { requestId: id, sandboxOnly }).limit(1);
  const r = (rows as Array<Record<string, unknown>>)[0];
  return r ? toEntry(r) : undefined;
}

/** Which of `ids` the owner can see (not deleted; sandbox only for a sandbox key). */
async function visibleIds(db: Knex, owner: Owner, ids: readonly string[], sandboxOnly: boolean): Promise<Set<string>> {
  const rows: Array<{ id: string }> = await applyFilter(db('predictions').select('predictions.id'), owner, { sandboxOnly }).whereIn('predictions.id', [...ids]);
  return new Set(rows.map((r) => r.id));
}

/**
 * Sets the review status of the owner's predictions among `ids`, recording who and when; ids
 * the owner cannot see (unknown, another owner's, deleted) are returned as skipped, never thrown.
 */
export async function setReviewStatus(
  db: Db, owner: Owner, ids: readonly string[], status: ReviewStatus, byUserId: number, now: number, sandboxOnly = false,
): Promise<{ updated: string[]; skipped: string[] }> {
  const visible = await visibleIds(db, owner, ids, sandboxOnly);
  const updated = ids.filter((id) => visible.has(id));
  if (updated.length) {
    await db('predictions').whereIn('id', updated).andWhere(ownerWhere(owner)).whereNull('deleted_at')
      .update({ review_status: status, reviewed_by: byUserId, reviewed_at: now });
  }
  return { updated, skipped: ids.filter((id) => !visible.has(id)) };
}

export type HideOutcome =
  | { ok: true; hidden: Prediction[]; skipped: string[] }
  /** some of the ids are still running: nothing was changed */
  | { ok: false; running: string[] };

/**
 * bulk_delete's database half: the owner's finished predictions among `ids` are hidden
 * (`deleted_at`) and their files marked gone (`outputs_expired_at`, as retention does), so every
 * view stops listing their URLs. A running one refuses the whole batch (the caller answers 409:
 * cancel it first). The rows and their ledger rows stay. Returns the hidden predictions, whose
 * files the caller then removes from storage.
 */
export async function hidePredictions(db: Db, owner: Owner, ids: readonly string[], now: number, sandboxOnly = false): Promise<HideOutcome> {
  const rows = await applyFilter(db('predictions').select('predictions.*'), owner, { sandboxOnly }).whereIn('predictions.id', [...ids]) as Array<Record<string, unknown>>;
  const found = rows.map(predictionFromRow);
  const running = found.filter((p) => !TERMINAL.includes(p.status)).map((p) => p.id);
  if (running.length) return { ok: false, running };
  // with the owner's history counter locked, so the count stays exact (db/history-count.ts)
  const hidden = await withLockRetry(() => db.transaction(async (trx) => {
    const uncount = await counterForDelete(trx, owner);
    const done: Prediction[] = [];
    for (const p of found) {
      // one row at a time, by primary key: a concurrent delete of the same id hides it once
      const n = await trx('predictions').where('id', p.id).andWhere(ownerWhere(owner)).whereIn('status', [...TERMINAL]).whereNull('deleted_at')
        .update({ deleted_at: now, outputs_expired_at: trx.raw('COALESCE(outputs_expired_at, ?)', [now]) });
      if (affected(n) === 1) done.push(p);
    }
    await uncount(done.map((p) => p.createdAt));
    return done;
  }));
  const done = new Set(hidden.map((p) => p.id));
  return { ok: true, hidden, skipped: ids.filter((id) => !done.has(id)) };
}
