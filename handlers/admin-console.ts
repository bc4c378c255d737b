// The operator console's reads (roles support, billing, admin; the route bridge checks them and
// writes the audit row): the user list with search, filters, sorting and paging; one user's
// recent runs; the gateway's totals per UTC day with failures by model and provider; and the
// failed runs with the provider's error.
import type { Handler } from './types.ts';
import { NotFoundError } from '../lib/errors.ts';
import { findUserByEmail } from '../db/users.ts';
import { failedRuns, gatewayStats, listUsers, userRuns } from '../db/admin-console.ts';
import type { RunSummary } from '../db/admin-console.ts';

const DAY_MS = 86_400_000;

/** The start of the UTC day `days - 1` days before today: a window of `days` whole days, today included. */
function windowStart(now: number, days: number): number {
  return now - (now % DAY_MS) - (days - 1) * DAY_MS;
}

function runView(r: RunSummary) {
  return {
    request_id: r.id, model: r.model, status: r.status, price: r.price, is_test: r.isTest, team_id: r.teamId, provider: r.provider,
    error: r.error, error_code: r.errorCode, created_at: r.createdAt, completed_at: r.completedAt,
  };
}

/** GET /auth/admin_users */
export const adminListUsers: Handler<'adminListUsers'> = async ({ app, query }) => {
  const page = query.page ?? 1;
  const pageSize = query.page_size ?? 25;
  const { items, total } = await listUsers(app.db, {
    ...(query.q ? { q: query.q } : {}), ...(query.role ? { role: query.role } : {}), ...(query.studio_id !== undefined ? { studioId: query.studio_id } : {}),
    ...(query.in_team !== undefined ? { teamId: query.in_team } : {}), ...(query.verified !== undefined ? { verified: query.verified } : {}),
    ...(query.deleted !== undefined ? { deleted: query.deleted } : {}),
  }, query.sort ?? 'created_at', query.order ?? 'desc', page, pageSize);
  return {
    items: items.map((u) => ({
      id: u.id, email: u.email, role: u.role as 'user' | 'support' | 'billing' | 'admin', email_verified: u.emailVerified, studio_id: u.studioId, balance: u.balance, held: u.held,
      created_at: u.createdAt, deleted_at: u.deletedAt, scheduled_deletion_at: u.deletionDueAt,
    })),
    page, page_size: pageSize, total, has_more: page * pageSize < total,
  };
};

/** GET /auth/admin_user_runs?email= */
export const adminUserRuns: Handler<'adminUserRuns'> = async ({ app, query, audit }) => {
  const user = await findUserByEmail(app.db, query.email);
  if (!user) throw new NotFoundError('no account with this email');
  audit.target_user_id = user.id;
  return { user_id: user.id, runs: (await userRuns(app.db, user.id, 20)).map(runView) };
};

/** GET /auth/admin_stats?days= */
export const adminStats: Handler<'adminStats'> = async ({ app, query }) => {
  const days = query.days ?? 14;
  const now = app.clock();
  const since = windowStart(now, days);
  const stats = await gatewayStats(app.db, since, now);
  return { since: new Date(since).toISOString(), users: stats.users, days: stats.days, failures: stats.failures };
};

/** GET /auth/admin_failures */
export const adminFailures: Handler<'adminFailures'> = async ({ app, query }) => {
  const page = query.page ?? 1;
  const now = app.clock();
  const rows = await failedRuns(app.db, { since: windowStart(now, query.days ?? 7), ...(query.model ? { model: query.model } : {}), ...(query.provider ? { provider: query.provider } : {}) }, page, 51);
  return {
    items: rows.slice(0, 50).map((r) => ({ ...runView(r), user_id: r.userId, email: r.email, provider_model: r.upstreamModel })),
    page, has_more: rows.length > 50,
  };
};
