// Usage (GET /app/usage, GET /auth/admin_usage): runs and spend in a range of UTC days, grouped,
// computed by the database. Runs are counted from `predictions` (by the day they were submitted);
// spend is read from the ledger, the charges (`prediction` rows) less the refunds (`refund` rows)
// of the wallet, by the day of the ledger row, so the spend shown is the ledger's to the credit at
// any volume. Model, API key and source of a ledger row are its prediction's (a join on the
// primary key), except the key of a prediction that is not the owner's: a wallet pays for others'
// runs (the users of its `owner_pays` studios), whose keys it must not learn; those rows are one
// group, `other_callers`, with no key. Indexes: the ledger by (owner, created_at), migration 20261129_7101; predictions
// by the history indexes (owner, deleted_at, created_at).
import type { Knex } from 'knex';
import type { Db } from './knex.ts';
import { ownerWhere } from './owner.ts';
import type { Owner } from './owner.ts';
import { DAY_MS } from './provider-costs.ts';
import { num } from './knex.ts';

export const USAGE_DIMENSIONS = ['day', 'model', 'api_key', 'source'] as const;
export type UsageDimension = (typeof USAGE_DIMENSIONS)[number];
export const ADMIN_USAGE_DIMENSIONS = ['day', 'model', 'provider'] as const;
export type AdminUsageDimension = (typeof ADMIN_USAGE_DIMENSIONS)[number];

export interface UsageCounts {
  /** predictions submitted (production; with a sandbox key, sandbox ones) */
  runs: number;
  /** of which failed */
  failed_runs: number;
  /** sandbox predictions submitted (free) */
  sandbox_runs: number;
  /** credits charged less credits refunded */
  spend: number;
}

export interface UsageRow extends UsageCounts {
  day?: string;
  model?: string;
  api_key_id?: number | null;
  /** grouped by api_key: the row of runs the owner paid for that others made (their keys unnamed) */
  other_callers?: boolean;
  source?: string;
  provider?: string | null;
}

/** The ledger kinds that make up spend: the charge and a refund of it. */
const SPEND_KINDS = ['prediction', 'refund'];

const dayString = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10);

type Dimension = UsageDimension | AdminUsageDimension;

/**
 * The api_key group of a prediction the owner paid for but does not own (no key id is below 1):
 * the row shows no key, and `other_callers`.
 */
const OTHER_CALLERS = -1;

/**
 * The SQL of a dimension (fixed texts and the owner's id: the prediction is `p`; the day is
 * `dayColumn`'s UTC day number, integer division on both engines). With `keysOf`, the key of a
 * prediction that is not that owner's is OTHER_CALLERS (a ledger row without its prediction keeps
 * null, as before).
 */
function dimSql(db: Knex, dim: Dimension, dayColumn: string, keysOf: Owner | null): { sql: string; bindings: number[] } {
  const fixed = (sql: string) => ({ sql, bindings: [] });
  switch (dim) {
    case 'day': return fixed(db.client.config.client === 'mysql2' ? `${dayColumn} div ${DAY_MS}` : `${dayColumn} / ${DAY_MS}`);
    case 'model': return fixed('p.model');
    case 'api_key':
      if (keysOf === null) return fixed('p.api_key_id');
      return keysOf.teamId === null
        ? { sql: `case when p.id is null then null when p.user_id = ? and p.team_id is null then p.api_key_id else ${OTHER_CALLERS} end`, bindings: [keysOf.userId] }
        : { sql: `case when p.id is null then null when p.team_id = ? then p.api_key_id else ${OTHER_CALLERS} end`, bindings: [keysOf.teamId] };
    case 'source': return fixed('p.source');
    case 'provider': return fixed('p.upstream_name');
  }
}

const ALIAS: Record<Dimension, string> = { day: 'g_day', model: 'g_model', api_key: 'g_key', source: 'g_source', provider: 'g_provider' };

function grouped(db: Knex, q: Knex.QueryBuilder, dims: readonly Dimension[], dayColumn: string, keysOf: Owner | null = null): Knex.QueryBuilder {
  for (const d of dims) {
    const { sql, bindings } = dimSql(db, d, dayColumn, keysOf);
    q.select(db.raw(`${sql} as ${ALIAS[d]}`, bindings));
  }
  if (dims.length) q.groupByRaw(dims.map((d) => ALIAS[d]).join(', '));
  return q;
}

/** A row's group, the same whichever query read it (an id may come back as a number or a string). */
function keyOf(r: Record<string, unknown>, dims: readonly Dimension[]): string {
  return JSON.stringify(dims.map((d) => {
    const v = r[ALIAS[d]] ?? null;
    return (d === 'api_key' || d === 'day') && v !== null ? num(v) : v;
  }));
}

function rowOf(r: Record<string, unknown>, dims: readonly Dimension[]): UsageRow {
  const row: UsageRow = { runs: 0, failed_runs: 0, sandbox_runs: 0, spend: 0 };
  for (const d of dims) {
    const v = r[ALIAS[d]] ?? null;
    if (d === 'day') row.day = dayString(num(v));
    else if (d === 'model') row.model = String(v);
    else if (d === 'api_key') {
      const others = v !== null && num(v) === OTHER_CALLERS;
      row.api_key_id = v === null || others ? null : num(v);
      row.other_callers = others;
    }
    else if (d === 'source') row.source = String(v);
    else row.provider = v === null ? null : String(v);
  }
  return row;
}

export interface UsageQuery {
  /** first and last UTC day numbers, both included */
  fromDay: number;
  toDay: number;
  dims: readonly Dimension[];
  /** null: every account (the admin view) */
  owner: Owner | null;
  /** a sandbox caller: sandbox runs only, no spend */
  sandboxOnly: boolean;
}

/** The rows, sorted by their dimensions, and their totals. */
export async function usage(db: Db, q: UsageQuery): Promise<{ rows: UsageRow[]; totals: UsageCounts }> {
  const from = q.fromDay * DAY_MS;
  const to = (q.toDay + 1) * DAY_MS;
  const runsQ = grouped(db, db({ p: 'predictions' }), q.dims, 'p.created_at')
    .where('p.created_at', '>=', from).andWhere('p.created_at', '<', to)
    .select(db.raw('sum(case when p.is_test then 0 else 1 end) as runs'))
    .select(db.raw("sum(case when p.status = 'failed' and not p.is_test then 1 else 0 end) as failed_runs"))
    .select(db.raw('sum(case when p.is_test then 1 else 0 end) as sandbox_runs'));
  if (q.owner) runsQ.where(ownerWhere(q.owner, 'p'));
  const byKey = new Map<string, UsageRow>();
  for (const r of await runsQ as Array<Record<string, unknown>>) {
    const row = rowOf(r, q.dims);
    if (q.sandboxOnly) {
      row.runs = num(r.sandbox_runs ?? 0);
      row.sandbox_runs = row.runs;
    } else {
      row.runs = num(r.runs ?? 0);
      row.failed_runs = num(r.failed_runs ?? 0);
      row.sandbox_runs = num(r.sandbox_runs ?? 0);
    }
    if (row.runs > 0 || row.sandbox_runs > 0) byKey.set(keyOf(r, q.dims), row);
  }
  if (!q.sandboxOnly) {
    // the wallet's ledger: its rows may be of others' predictions (it paid for them), whose keys are masked
    const spendQ = grouped(db, db({ c: 'credit_transactions' }).leftJoin({ p: 'predictions' }, 'p.id', 'c.prediction_id'), q.dims, 'c.created_at', q.owner)
      .whereIn('c.kind', SPEND_KINDS)
      .where('c.created_at', '>=', from).andWhere('c.created_at', '<', to)
      .select(db.raw('sum(0 - c.amount) as spend'));
    if (q.owner) spendQ.where(ownerWhere(q.owner, 'c'));
    for (const r of await spendQ as Array<Record<string, unknown>>) {
      const k = keyOf(r, q.dims);
      const row = byKey.get(k) ?? rowOf(r, q.dims);
      row.spend = num(r.spend ?? 0);
      byKey.set(k, row);
    }
  }
  const rows = [...byKey.values()].sort((a, b) => compareRows(a, b, q.dims));
  const totals = rows.reduce((t, r) => ({
    runs: t.runs + r.runs, failed_runs: t.failed_runs + r.failed_runs, sandbox_runs: t.sandbox_runs + r.sandbox_runs, spend: t.spend + r.spend,
  }), { runs: 0, failed_runs: 0, sandbox_runs: 0, spend: 0 });
  return { rows, totals };
}

function compareRows(a: UsageRow, b: UsageRow, dims: readonly Dimension[]): number {
  for (const d of dims) {
    // others' runs after the owner's own keys
    if (d === 'api_key' && a.other_callers !== b.other_callers) return a.other_callers ? 1 : -1;
    const field = d === 'api_key' ? 'api_key_id' : d;
    const x = a[field as keyof UsageRow] ?? null;
    const y = b[field as keyof UsageRow] ?? null;
    if (x === y) continue;
    if (x === null) return -1;
    if (y === null) return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * The names of the given API keys that the owner may name: its own keys, and for a team the
 * members' own keys that submitted the team's runs (with team_id, as run history names them). The
 * ids come from the owner's own runs (usage masks the others'); this is the second guard.
 */
export async function keyNames(db: Db, owner: Owner, ids: readonly number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const q = db('api_keys').whereIn('id', [...ids]).select('id', 'name');
  if (owner.teamId === null) q.where(ownerWhere(owner));
  else {
    const teamId = owner.teamId;
    q.where((w) => {
      w.where('team_id', teamId).orWhere((m) => {
        m.whereNull('team_id').whereExists(db('predictions').select(db.raw('1')).whereRaw('predictions.api_key_id = api_keys.id').where('predictions.team_id', teamId));
      });
    });
  }
  const rows = await q as Array<{ id: number | string; name: string }>;
  return new Map(rows.map((r) => [num(r.id), String(r.name)]));
}
