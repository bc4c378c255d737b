// The operator console's reads (adminListUsers, adminUserRuns, adminStats, adminFailures): users
// found by search and filters, one user's recent runs, the gateway's totals per UTC day, and
// failed runs with the provider's error. Read-only, for staff; the route bridge checks the role
// and writes the audit row. Days are grouped as `created_at - created_at % 86400000` (the UTC day
// start in ms), which both engines compute the same way with integers.
import type { Knex } from 'knex';
import type { Db } from './knex.ts';
import { bool, iso, isoOrNull, num, numOrNull } from './knex.ts';
import { normaliseEmail } from './users.ts';
import { usageRowOf } from './predictions/record.ts';
import type { PredictionStatus } from './predictions/record.ts';

const DAY_MS = 86_400_000;

export interface UserFilters {
  /** part of the email, or an account id */
  q?: string;
  role?: string;
  studioId?: number;
  teamId?: number;
  verified?: boolean;
  /** true: only erased accounts; false: only live ones; absent: both */
  deleted?: boolean;
}

export type UserSort = 'created_at' | 'email' | 'balance';

function filtered(db: Db, f: UserFilters): Knex.QueryBuilder {
  const q = db('users');
  if (f.q) {
    const text = normaliseEmail(f.q);
    // `%` and `_` typed by the operator are matched as themselves ('!' escapes them: a backslash
    // would need escaping again in MariaDB's string literals, not in SQLite's)
    const like = `%${text.replace(/[!%_]/g, (c) => `!${c}`)}%`;
    q.where((w) => {
      w.whereRaw("LOWER(users.email) LIKE ? ESCAPE '!'", [like]);
      if (/^[1-9][0-9]{0,9}$/.test(text)) w.orWhere('users.id', Number(text));
    });
  }
  if (f.role) q.where('users.role', f.role);
  if (f.studioId !== undefined) q.where('users.studio_id', f.studioId);
  if (f.teamId !== undefined) q.whereIn('users.id', db('team_members').select('user_id').where('team_id', f.teamId));
  if (f.verified !== undefined) q.where('users.email_verified', f.verified);
  if (f.deleted === true) q.whereNotNull('users.deleted_at');
  if (f.deleted === false) q.whereNull('users.deleted_at');
  return q;
}

export interface ListedUser {
  id: number;
  email: string;
  role: string;
  emailVerified: boolean;
  studioId: number | null;
  balance: number;
  held: number;
  createdAt: string;
  deletedAt: string | null;
  deletionDueAt: string | null;
}

/** A page of users matching the filters, sorted, with the total count of matches. */
export async function listUsers(db: Db, f: UserFilters, sort: UserSort, order: 'asc' | 'desc', page: number, pageSize: number): Promise<{ items: ListedUser[]; total: number }> {
  const [rows, count] = await Promise.all([
    filtered(db, f).select('id', 'email', 'role', 'email_verified', 'studio_id', 'balance', 'held', 'created_at', 'deleted_at', 'deletion_due_at')
      // ties (same balance, same instant) keep a stable order across pages
      .orderBy([{ column: sort, order }, { column: 'id', order }]).limit(pageSize).offset((page - 1) * pageSize) as Promise<Array<Record<string, unknown>>>,
    filtered(db, f).count({ n: '*' }).first() as Promise<{ n: number | string } | undefined>,
  ]);
  return {
    total: num(count?.n ?? 0),
    items: rows.map((r) => ({
      id: num(r.id), email: String(r.email), role: String(r.role), emailVerified: bool(r.email_verified), studioId: numOrNull(r.studio_id ?? null),
      balance: num(r.balance), held: num(r.held), createdAt: iso(r.created_at), deletedAt: isoOrNull(r.deleted_at ?? null), deletionDueAt: isoOrNull(r.deletion_due_at ?? null),
    })),
  };
}

export interface RunSummary {
  id: string;
  model: string;
  status: PredictionStatus;
  price: number;
  isTest: boolean;
  teamId: number | null;
  provider: string | null;
  error: string | null;
  errorCode: string | null;
  createdAt: string;
  completedAt: string | null;
}

function runOf(r: Record<string, unknown>): RunSummary {
  return {
    id: String(r.id), model: String(r.model), status: String(r.status) as PredictionStatus, price: num(r.price), isTest: bool(r.is_test), teamId: numOrNull(r.team_id ?? null),
    provider: r.upstream_name === null || r.upstream_name === undefined ? null : String(r.upstream_name),
    error: r.error === null || r.error === undefined ? null : String(r.error), errorCode: r.error_code === null || r.error_code === undefined ? null : String(r.error_code),
    createdAt: iso(r.created_at), completedAt: isoOrNull(r.completed_at ?? null),
  };
}

const RUN_COLUMNS = ['id', 'model', 'status', 'price', 'is_test', 'team_id', 'upstream_name', 'error', 'error_code', 'created_at', 'completed_at'];

/** A user's newest runs, whichever wallet paid (their own or a team's). */
export async function userRuns(db: Db, userId: number, limit: number): Promise<RunSummary[]> {
  const rows = await db('predictions').where('user_id', userId).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(limit).select(RUN_COLUMNS);
  return (rows as Array<Record<string, unknown>>).map(runOf);
}

export interface DayTotals {
  day: string;
  runs: number;
  completed: number;
  failed: number;
  cancelled: number;
  /** credits charged for completed production runs */
  spend: number;
}

export interface FailureGroup {
  day: string;
  model: string;
  provider: string | null;
  failures: number;
}

export interface GatewayStats {
  users: { total: number; verified: number; deleted: number; new: number };
  days: DayTotals[];
  failures: FailureGroup[];
}

const dayExpr = (db: Db) => db.raw('created_at - (created_at % ?)', [DAY_MS]);
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Totals since `since` (the start of a UTC day), every day listed even when nothing happened. */
export async function gatewayStats(db: Db, since: number, now: number): Promise<GatewayStats> {
  // every status on its own: each one is a range of the (status, created_at) index
  const statuses = ['queued', 'pending', 'processing', 'completed', 'failed', 'cancelled'];
  const [userRow, perStatus, spend, failures] = await Promise.all([
    db('users').first(
      db.raw('COUNT(*) AS total'),
      db.raw('SUM(CASE WHEN email_verified THEN 1 ELSE 0 END) AS verified'),
      db.raw('SUM(CASE WHEN deleted_at IS NOT NULL THEN 1 ELSE 0 END) AS deleted'),
      db.raw('SUM(CASE WHEN created_at >= ? THEN 1 ELSE 0 END) AS fresh', [since]),
    ) as Promise<Record<string, unknown> | undefined>,
    db('predictions').whereIn('status', statuses).andWhere('created_at', '>=', since)
      .select('status', { day: dayExpr(db) }).count({ n: '*' }).groupBy('status', 'day') as Promise<Array<Record<string, unknown>>>,
    // completed runs, and chat calls cancelled mid-answer, which were charged what they relayed (their price)
    db('predictions').where((q) => q.where('status', 'completed').orWhere((c) => c.where('status', 'cancelled').whereExists(usageRowOf())))
      .andWhere('created_at', '>=', since).andWhere('is_test', false)
      .select({ day: dayExpr(db) }).sum({ spend: 'price' }).groupBy('day') as Promise<Array<Record<string, unknown>>>,
    db('predictions').where('status', 'failed').andWhere('created_at', '>=', since)
      .select('model', 'upstream_name', { day: dayExpr(db) }).count({ n: '*' }).groupBy('day', 'model', 'upstream_name') as Promise<Array<Record<string, unknown>>>,
  ]);
  const days = new Map<number, DayTotals>();
  for (let d = since; d <= now; d += DAY_MS) days.set(d, { day: dayOf(d), runs: 0, completed: 0, failed: 0, cancelled: 0, spend: 0 });
  for (const r of perStatus) {
    const t = days.get(num(r.day as number | string));
    if (!t) continue;
    const n = num(r.n as number | string);
    t.runs += n;
    if (r.status === 'completed' || r.status === 'failed' || r.status === 'cancelled') t[r.status] += n;
  }
  for (const r of spend) {
    const t = days.get(num(r.day as number | string));
    if (t) t.spend = num((r.spend ?? 0) as number | string);
  }
  return {
    users: { total: num((userRow?.total ?? 0) as number), verified: num((userRow?.verified ?? 0) as number), deleted: num((userRow?.deleted ?? 0) as number), new: num((userRow?.fresh ?? 0) as number) },
    days: [...days.values()],
    failures: failures.map((r) => ({ day: dayOf(num(r.day as number | string)), model: String(r.model), provider: r.upstream_name === null || r.upstream_name === undefined ? null : String(r.upstream_name), failures: num(r.n as number | string) }))
      .sort((a, b) => b.day.localeCompare(a.day) || b.failures - a.failures),
  };
}

export interface FailureFilters {
  since: number;
  model?: string;
  provider?: string;
}

/** Failed runs, newest first, a page at a time, with the account that ran them. */
export async function failedRuns(db: Db, f: FailureFilters, page: number, pageSize: number): Promise<Array<RunSummary & { userId: number; email: string; upstreamModel: string | null }>> {
  const q = db('predictions').join('users', 'users.id', 'predictions.user_id').where('predictions.status', 'failed').andWhere('predictions.created_at', '>=', f.since);
  if (f.model) q.where('predictions.model', f.model);
  if (f.provider) q.where('predictions.upstream_name', f.provider);
  const rows = await q.orderBy([{ column: 'predictions.created_at', order: 'desc' }, { column: 'predictions.id', order: 'desc' }]).limit(pageSize).offset((page - 1) * pageSize)
    .select(...RUN_COLUMNS.map((c) => `predictions.${c}`), 'predictions.user_id', 'predictions.upstream_model', 'users.email') as Array<Record<string, unknown>>;
  return rows.map((r) => ({ ...runOf(r), userId: num(r.user_id as number), email: String(r.email), upstreamModel: r.upstream_model === null || r.upstream_model === undefined ? null : String(r.upstream_model) }));
}
