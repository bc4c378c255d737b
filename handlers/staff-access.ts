// listStaffAccess (README "Impersonation and support links"): the caller's own view of what staff
// did on or for their account. The route bridge refuses an impersonated session
// (`x-impersonation: forbidden`) and a team API key (no `x-team-permission`); the rows come from
// the audit log, which nobody can edit (db/staff-access.ts). Personal only: the operation declares
// no team_id, so the request validator refuses one (422).
import type { Handler } from './types.ts';
import { listStaffAccess as listRows } from '../db/staff-access.ts';
import { IMPERSONATION_DEFAULT_MINUTES, LINK_TTL_MINUTES } from './impersonation.ts';

/** GET /app/account/staff-access */
export const listStaffAccess: Handler<'listStaffAccess'> = async ({ app, caller, query }) => {
  const page = query.page ?? 1;
  const pageSize = query.page_size ?? 20;
  const { items, total } = await listRows(app.db, caller.userId, { page, pageSize, linkTtlMinutes: LINK_TTL_MINUTES, defaultSessionMinutes: IMPERSONATION_DEFAULT_MINUTES });
  return { items, page, page_size: pageSize, total, has_more: page * pageSize < total };
};
