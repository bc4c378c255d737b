// GET /auth/admin_model_margins (docs/operating/model-files.md, "Provider cost and margin"):
// revenue, provider cost and margin by model and UTC day, from db/model-margins.ts.
import type { Handler } from './types.ts';
import { ValidationFailedError } from '../lib/errors.ts';
import { modelMargins } from '../db/model-margins.ts';
import { DAY_MS } from '../db/provider-costs.ts';

/** the longest range one call reads */
const MAX_DAYS = 366;

export const adminModelMargins: Handler<'adminModelMargins'> = async ({ app, query }) => {
  const from = Math.floor(Date.parse(`${query.from}T00:00:00Z`) / DAY_MS);
  const to = Math.floor(Date.parse(`${query.to}T00:00:00Z`) / DAY_MS);
  if (to < from) throw new ValidationFailedError([{ loc: ['query', 'to'], msg: 'to must not be before from', type: 'value_error' }]);
  if (to - from + 1 > MAX_DAYS) throw new ValidationFailedError([{ loc: ['query', 'to'], msg: `at most ${MAX_DAYS} days at once`, type: 'value_error' }]);
  const { rows, totals } = await modelMargins(app.db, from, to, query.model);
  return { from: query.from, to: query.to, unit: 'credit', rows, totals };
};
