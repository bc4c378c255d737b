// The ledger as the owner reads it (GET /app/credit_transactions): credit_transactions rows,
// newest first. Read generically: `kind` is whatever string the writer recorded (db/wallet/moves.ts
// and the admin routes add kinds), so a new kind needs no change here. Paged like the run
// history (db/run-history.ts): the boundary id at the page's offset from the (owner, id) index,
// then the page by `id <=` it; the older half is counted from the oldest end.
import type { Knex } from 'knex';
import type { Db } from './knex.ts';
import { ownerWhere } from './owner.ts';
import type { Owner } from './owner.ts';
import { num, numOrNull } from './knex.ts';
import type { Page, Paging } from './run-history.ts';

export interface LedgerEntry {
  id: number;
  kind: string;
  amount: number;
  balanceAfter: number;
  description: string;
  /** the prediction the move belongs to, if any */
  predictionId: string | null;
  /** who caused it (the member, for a team's rows) */
  userId: number;
  createdAt: number;
  /** a hold or charge (README "Discounts"): the price before any discount, the percent off, what was held or charged */
  listPrice: number | null;
  discountPercent: number | null;
  charged: number | null;
}

const scoped = (db: Knex, owner: Owner) => db('credit_transactions').where(ownerWhere(owner));

function toEntry(r: Record<string, unknown>): LedgerEntry {
  return {
    id: num(r.id),
    kind: String(r.kind),
    amount: num(r.amount),
    balanceAfter: num(r.balance_after),
    description: String(r.description ?? ''),
    predictionId: (r.prediction_id ?? null) as string | null,
    userId: num(r.user_id),
    createdAt: num(r.created_at),
    listPrice: numOrNull(r.list_price ?? null),
    discountPercent: numOrNull(r.discount_percent ?? null),
    charged: r.kind === 'hold' ? num(r.held_change) : r.kind === 'prediction' ? -num(r.amount) : null,
  };
}

export async function listLedger(db: Db, owner: Owner, paging: Paging): Promise<Page<LedgerEntry>> {
  const { pageSize } = paging;
  const offset = (paging.page - 1) * pageSize;
  let total: number | null = null;
  if (paging.count) {
    const row = await scoped(db, owner).count<{ n: number | string }[]>({ n: '*' }).first();
    total = num(row?.n ?? 0);
    if (offset >= total) return { items: [], total, hasMore: false };
  }
  if (total !== null && offset > total / 2) {
    const start = Math.max(0, total - offset - pageSize);
    const b = await scoped(db, owner).select('id').orderBy('id', 'asc').limit(1).offset(start).first();
    if (!b) return { items: [], total, hasMore: false };
    const rows = await scoped(db, owner).where('id', '>=', b.id).orderBy('id', 'asc').limit(total - offset - start) as Array<Record<string, unknown>>;
    return { items: rows.reverse().map(toEntry), total, hasMore: offset + rows.length < total };
  }
  const b = await scoped(db, owner).select('id').orderBy('id', 'desc').limit(1).offset(offset).first();
  if (!b) return { items: [], total, hasMore: false };
  const rows = await scoped(db, owner).where('id', '<=', b.id).orderBy('id', 'desc').limit(pageSize + 1) as Array<Record<string, unknown>>;
  return { items: rows.slice(0, pageSize).map(toEntry), total, hasMore: rows.length > pageSize };
}


/** The owner's ledger rows with id > `afterId`, oldest first, `limit` of them (a keyset page: the account export). */
export async function listLedgerEntries(db: Db, owner: Owner, afterId: number, limit: number): Promise<LedgerEntry[]> {
  const rows = await scoped(db, owner).where('id', '>', afterId).orderBy('id', 'asc').limit(limit) as Array<Record<string, unknown>>;
  return rows.map(toEntry);
}
