// The caller's wallet and account.
import type { Handler, ReplyOf } from './types.ts';
import type { App } from '../lib/context.ts';
import { getBalance as readBalance, getTeamBalance } from '../db/wallet/ledger.ts';
import { findUserById } from '../db/users.ts';
import { ConflictError, UnauthorizedError } from '../lib/errors.ts';
import { cancelDeletion, deletionState, scheduleDeletion } from '../db/account-deletion.ts';

export const CREDIT_UNIT = 'credit (1000 credits = 1 USD)';

/**
 * GET /account/balance: `balance` is spendable now; `held` is reserved by unfinished predictions.
 * The owner's wallet: a team's with team_id (read_balance) or a team's key, else the caller's own.
 */
export const getBalance: Handler<'getBalance'> = async ({ app, caller }) => {
  const { owner } = caller;
  const { balance, held } = owner.teamId === null ? await readBalance(app.db, owner.userId) : await getTeamBalance(app.db, owner.teamId);
  return { balance, held, unit: CREDIT_UNIT };
};

export const getUserDetails: Handler<'getUserDetails'> = async ({ app, caller }) => userDetails(app, caller.userId);

/** The UserDetails of an account (getUserDetails, the account export); 401 when it no longer exists. */
export async function userDetails(app: App, userId: number): Promise<ReplyOf<'getUserDetails'>> {
  const user = await findUserById(app.db, userId);
  if (!user) throw new UnauthorizedError('account no longer exists');
  const { dueAt } = await deletionState(app.db, user.id);
  return {
    id: user.id, email: user.email, email_verified: user.emailVerified, role: user.role, created_at: user.createdAt, balance: user.balance,
    scheduled_deletion_at: dueAt === null ? null : new Date(dueAt).toISOString(),
  };
}

/**
 * POST /app/account/request-deletion (session only): schedules the deletion after
 * ACCOUNT_DELETION_GRACE_DAYS. From now on the account's API keys and OAuth clients are refused;
 * it can still sign in and cancel. 409 when one is scheduled, or while the caller is the only owner
 * of a team (naming the teams: ownership must move first).
 */
export const requestAccountDeletion: Handler<'requestAccountDeletion'> = async ({ app, caller }) => {
  const result = await scheduleDeletion(app.db, caller.userId, app.clock(), app.config.accountDeletionGraceMs);
  if (result.kind === 'already') throw new ConflictError(`a deletion is already scheduled for ${new Date(result.dueAt).toISOString()}`);
  if (result.kind === 'sole-owner') {
    throw new ConflictError(`you are the only owner of ${result.teams.map((t) => `"${t.name}" (team ${t.id})`).join(', ')}: make another member owner, or delete the team, first`);
  }
  await app.credentials.invalidate({ userIds: [caller.userId] });
  return { deletion_requested: true, scheduled_deletion_at: new Date(result.dueAt).toISOString() };
};

/** POST /app/account/cancel-deletion (session only): the keys and clients work again at once. */
export const cancelAccountDeletion: Handler<'cancelAccountDeletion'> = async ({ app, caller }) => {
  if (!(await cancelDeletion(app.db, caller.userId))) throw new ConflictError('no deletion is scheduled');
  await app.credentials.invalidate({ userIds: [caller.userId] });
  return { deletion_requested: false, scheduled_deletion_at: null };
};

