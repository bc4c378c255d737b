// adminDeleteUser (admin only, README "Impersonation and support links" and "Deleting an account"):
// erases an account at once with the eraser the retention job runs after a requested deletion's
// grace period (workers/retention.ts eraseAccountAndFiles). The route bridge audits the call.
import type { Handler } from './types.ts';
import { ConflictError, NotFoundError } from '../lib/errors.ts';
import { countUsersWithRole, findUserByEmail } from '../db/users.ts';
import { soleOwnedTeams } from '../db/account-deletion.ts';
import { eraseAccountAndFiles } from '../workers/retention.ts';

function soleOwnerConflict(teams: ReadonlyArray<{ id: number; name: string }>): ConflictError {
  return new ConflictError(`this user is the only owner of ${teams.map((t) => `team ${t.id} (${t.name})`).join(', ')}: make another member owner, or delete the team, first`);
}

function lastAdmin(): ConflictError {
  return new ConflictError('this is the last administrator: grant another account the admin role first (npm run admin -- grant <email> admin)');
}

/** POST /auth/admin_delete_user */
export const adminDeleteUser: Handler<'adminDeleteUser'> = async ({ app, body, audit }) => {
  const user = await findUserByEmail(app.db, body.email);
  if (!user) throw new NotFoundError('no account with this email');
  audit.target_user_id = user.id;
  // checked before any file is removed; eraseAccount checks both again under its locks
  if (user.role === 'admin' && await countUsersWithRole(app.db, 'admin') <= 1) throw lastAdmin();
  const teams = await soleOwnedTeams(app.db, user.id);
  if (teams.length) throw soleOwnerConflict(teams);
  const result = await eraseAccountAndFiles(app, user.id, app.clock(), { immediate: true });
  switch (result.kind) {
    case 'erased': return { id: user.id, deleted: true };
    case 'last-admin': throw lastAdmin();
    case 'sole-owner': throw soleOwnerConflict(result.teams);
    case 'not-due': throw new NotFoundError('no account with this email');
  }
};
