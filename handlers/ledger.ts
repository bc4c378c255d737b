// GET /app/credit_transactions: the owner's ledger (the caller's wallet, or a team's through
// `team_id`), newest first. Kinds are passed through as recorded (db/ledger.ts).
import type { Handler } from './types.ts';
import { listLedger } from '../db/ledger.ts';

export const listCreditTransactions: Handler<'listCreditTransactions'> = async ({ app, caller, query }) => {
  const paging = { page: query.page ?? 1, pageSize: query.page_size ?? 20, count: true };
  const page = await listLedger(app.db, caller.owner, paging);
  return {
    items: page.items.map((e) => ({
      id: e.id,
      kind: e.kind,
      amount: e.amount,
      balance_after: e.balanceAfter,
      description: e.description,
      request_id: e.predictionId,
      user_id: e.userId,
      created_at: new Date(e.createdAt).toISOString(),
      list_price: e.listPrice,
      discount_percent: e.discountPercent,
      charged: e.charged,
    })),
    page: paging.page,
    page_size: paging.pageSize,
    total: page.total,
    has_more: page.hasMore,
  };
};
