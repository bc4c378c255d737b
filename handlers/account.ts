// The caller's wallet and account.
import type { Handler } from './types.ts';
import { getBalance as readBalance, getTeamBalance } from '../db/wallet.ts';
import { findUserById } from '../db/users.ts';
import { UnauthorizedError } from '../lib/errors.ts';

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

export const getUserDetails: Handler<'getUserDetails'> = async ({ app, caller }) => {
  const user = await findUserById(app.db, caller.userId);
  if (!user) throw new UnauthorizedError('account no longer exists');
  return {
    id: user.id, email: user.email, email_verified: user.emailVerified, role: user.role, created_at: user.createdAt, balance: user.balance,
  };
};
