// listStaffAccess (README "Impersonation and support links"): the caller's own view of what staff
// did on or for their account. The route bridge refuses an impersonated session
// (`x-impersonation: forbidden`) and a team API key (no `x-team-permission`); the rows come from
// the audit log, which nobody can edit (db/staff-access.ts).
import type { Handler } from './types.ts';
import { ValidationFailedError } from '../lib/errors.ts';
import { listStaffAccess as listRows } from '../db/staff-access.ts';
import { IMPERSONATION_DEFAULT_MINUTES, LINK_TTL_MINUTES } from './impersonation.ts';

/** GET /app/account/staff-access */
export const listStaffAccess: Handler<'listStaffAccess'> = async ({ app, caller, query, request }) => {
  // personal only: a team has no staff access of its own to list, and a silently ignored team_id would mislead
  if ((request.query as Record<string, unknown>).team_id !== undefined) {
    throw new ValidationFailedError([{ loc: ['query', 'team_id'], msg: 'staff access is listed for your personal account only; leave out team_id', type: 'value_error' }]);
  }
  const page = query.page ?? 1;
  const pageSize = query.page_size ?? 20;
  const { items, total } = await listRows(app.db, caller.userId, { page, pageSize, linkTtlMinutes: LINK_TTL_MINUTES, defaultSessionMinutes: IMPERSONATION_DEFAULT_MINUTES });
  return { items, page, page_size: pageSize, total, has_more: page * pageSize < total };
};
