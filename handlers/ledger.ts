// GET /app/credit_transactions: the owner's ledger (the caller's wallet, or a team's through
// `team_id`), newest first. Kinds are passed through as recorded (db/ledger.ts). A team member
// whose role lacks `read_balance` (viewer) reads the team's rows through `read_history`, without
// what that permission hides elsewhere (getTeam, getBalance, listPurchases, getMySubscription,
// myModelDiscounts): the balance after each row, the list price and discount of a run, and the
// amount and description of a move that is no run's (a top-up, a purchase, a plan's grant...).
import type { Handler } from './types.ts';
import { readsBalance } from './guards.ts';
import { listLedger } from '../db/ledger.ts';
import type { LedgerEntry } from '../db/ledger.ts';

function entryView(e: LedgerEntry, whole: boolean) {
  // a run's rows are its history, which read_history shows anyway; any other move tells what went into the wallet
  const funding = !whole && e.predictionId === null;
  return {
    id: e.id,
    kind: e.kind,
    amount: funding ? null : e.amount,
    balance_after: whole ? e.balanceAfter : null,
    description: funding ? null : e.description,
    request_id: e.predictionId,
    user_id: e.userId,
    created_at: new Date(e.createdAt).toISOString(),
    list_price: whole ? e.listPrice : null,
    discount_percent: whole ? e.discountPercent : null,
    charged: e.charged,
  };
}

export const listCreditTransactions: Handler<'listCreditTransactions'> = async ({ app, caller, query }) => {
  const paging = { page: query.page ?? 1, pageSize: query.page_size ?? 20, count: true };
  const page = await listLedger(app.db, caller.owner, paging);
  const whole = readsBalance(caller);
  return {
    items: page.items.map((e) => entryView(e, whole)),
    page: paging.page,
    page_size: paging.pageSize,
    total: page.total,
    has_more: page.hasMore,
  };
};
