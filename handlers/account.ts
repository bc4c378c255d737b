// The caller's wallet and account.
import type { Handler } from './types.ts';
import { getBalance as readBalance } from '../db/wallet.ts';
import { findUserById } from '../db/users.ts';
import { UnauthorizedError } from '../lib/errors.ts';

export const CREDIT_UNIT = 'credit (1000 credits = 1 USD)';

/** GET /account/balance: `balance` is spendable now; `held` is reserved by unfinished predictions. */
export const getBalance: Handler<'getBalance'> = async ({ app, caller }) => {
  const { balance, held } = await readBalance(app.db, caller.owner.userId);
  return { balance, held, unit: CREDIT_UNIT };
};

export const getUserDetails: Handler<'getUserDetails'> = async ({ app, caller }) => {
  const user = await findUserById(app.db, caller.userId);
  if (!user) throw new UnauthorizedError('account no longer exists');
  return {
    id: user.id, email: user.email, email_verified: user.emailVerified, role: user.role, created_at: user.createdAt, balance: user.balance,
  };
};
