// GET /app/usage (the caller's or a team's) and GET /auth/admin_usage (every account): runs and
// spend in a range of UTC days, grouped, computed by the database (db/usage.ts).
import type { Handler } from './types.ts';
import { ValidationFailedError } from '../lib/errors.ts';
import { keyNames, usage } from '../db/usage.ts';
import type { AdminUsageDimension, UsageDimension, UsageRow } from '../db/usage.ts';
import { DAY_MS } from '../db/provider-costs.ts';

/** the longest range one call reads */
const MAX_DAYS = 366;
/** the default range: this many days up to `to` */
const DEFAULT_DAYS = 30;

const dayNumber = (date: string) => Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
const dayString = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10);

/** The range as day numbers; 422 when `to` is before `from` or the range is too long. */
export function dayRange(from: string | undefined, to: string | undefined, now: number): { fromDay: number; toDay: number } {
  const toDay = to === undefined ? Math.floor(now / DAY_MS) : dayNumber(to);
  const fromDay = from === undefined ? toDay - (DEFAULT_DAYS - 1) : dayNumber(from);
  if (toDay < fromDay) {
    // without `to` the range ends today: the caller sent only `from`, so that is what is wrong
    if (to === undefined) throw new ValidationFailedError([{ loc: ['query', 'from'], msg: 'from must not be after today (to, when left out, is today, UTC)', type: 'value_error' }]);
    throw new ValidationFailedError([{ loc: ['query', 'to'], msg: 'to must not be before from', type: 'value_error' }]);
  }
  if (toDay - fromDay + 1 > MAX_DAYS) throw new ValidationFailedError([{ loc: ['query', 'to'], msg: `at most ${MAX_DAYS} days at once`, type: 'value_error' }]);
  return { fromDay, toDay };
}

/** `group_by` (the spec's pattern allows one or two known names): the same name twice is 422. */
function dimensions<D extends string>(groupBy: string | undefined): D[] {
  const dims = (groupBy ?? 'day').split(',') as D[];
  if (dims.length === 2 && dims[0] === dims[1]) throw new ValidationFailedError([{ loc: ['query', 'group_by'], msg: 'name two different groups', type: 'value_error' }]);
  return dims;
}

export const getUsage: Handler<'getUsage'> = async ({ app, caller, query }) => {
  const { fromDay, toDay } = dayRange(query.from, query.to, app.clock());
  const dims = dimensions<UsageDimension>(query.group_by);
  const { rows, totals } = await usage(app.db, { fromDay, toDay, dims, owner: caller.owner, sandboxOnly: caller.isTest === true });
  let shown: UsageRow[] = rows;
  if (dims.includes('api_key')) {
    // the owner's own runs' keys only: others' runs it paid for (a studio's users) are one `other_callers` row with no key
    const names = await keyNames(app.db, caller.owner, [...new Set(rows.map((r) => r.api_key_id).filter((id): id is number => typeof id === 'number'))]);
    shown = rows.map((r) => ({ ...r, api_key_name: r.api_key_id == null ? null : names.get(r.api_key_id) ?? null }));
  }
  return { from: dayString(fromDay), to: dayString(toDay), group_by: dims, unit: 'credit' as const, rows: shown, totals };
};

export const adminUsage: Handler<'adminUsage'> = async ({ app, query }) => {
  const { fromDay, toDay } = dayRange(query.from, query.to, app.clock());
  const dims = dimensions<AdminUsageDimension>(query.group_by);
  const { rows, totals } = await usage(app.db, { fromDay, toDay, dims, owner: null, sandboxOnly: false });
  return { from: dayString(fromDay), to: dayString(toDay), group_by: dims, unit: 'credit' as const, rows, totals };
};
