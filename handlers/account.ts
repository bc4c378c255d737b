import type { Handler } from './types.ts';
import { getBalance as readBalance } from '../db/wallet.ts';
import { findUserById } from '../db/users.ts';
import { httpError } from '../plugins/errors.ts';
import { requireCaller } from './guards.ts';

export const CREDIT_UNIT = 'credit (1000 credits = 1 USD)';

/** GET /account/balance: `balance` is spendable now; `held` is reserved by unfinished predictions. */
export const getBalance: Handler = async (ctx) => {
  const caller = requireCaller(ctx);
  const { balance, held } = await readBalance(ctx.app.db, caller.userId);
  return { balance, held, unit: CREDIT_UNIT };
};

export const getUserDetails: Handler = async (ctx) => {
  const caller = requireCaller(ctx);
  const user = await findUserById(ctx.app.db, caller.userId);
  if (!user) throw httpError(401, 'account no longer exists');
  return {
    id: user.id, email: user.email, email_verified: user.emailVerified, role: user.role, created_at: user.createdAt, balance: user.balance,
  };
};
