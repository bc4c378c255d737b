// Staff's free text written before the gateway stopped keeping addresses in it: audit rows
// (parameters and reason; addresses inside strings were kept until 2026-11-30, fields named
// `email` until 2026-11-24), ledger descriptions of administrators' top-ups, deductions and
// refunds, and discount reasons (both until 2026-12-01). These rows are never updated and outlive
// an erasure, so each address in them is rewritten now as new rows are written
// (db/pseudonymise.ts): `user:<id>` of the account that has it, else `[address]` (a field named
// `email`: `[no account]`). An erased account's address is no account's any more, so it becomes
// `[address]`. Only rows holding an `@` are read, a batch at a time along the primary key, so
// the migration reads each table once and holds no long transaction. Nothing to undo: `down`
// cannot bring the addresses back.
import type { Knex } from 'knex';
import { accountIdsByEmail, addressesInValue, pseudonymiseValue, replaceAddresses } from '../pseudonymise.ts';

const BATCH = 500;

type Row = Record<string, unknown> & { id: number | string };

/** Each row of `table` with an `@` in one of `columns`, a batch at a time, rewritten by `rewrite` where it changes. */
async function rewriteRows(
  knex: Knex, table: string, columns: readonly string[],
  rewrite: (row: Row, ids: ReadonlyMap<string, number>) => Record<string, unknown>,
  addresses: (row: Row) => Set<string>,
): Promise<void> {
  let after = 0;
  for (;;) {
    const rows = await knex(table).where('id', '>', after)
      .andWhere((q) => { for (const c of columns) q.orWhere(c, 'like', '%@%'); })
      .orderBy('id').limit(BATCH).select<Row[]>('id', ...columns);
    if (rows.length === 0) return;
    after = Number(rows[rows.length - 1]!.id);
    const ids = await accountIdsByEmail(knex, [...new Set(rows.flatMap((r) => [...addresses(r)]))]);
    for (const row of rows) {
      const changed = Object.fromEntries(Object.entries(rewrite(row, ids)).filter(([c, v]) => v !== row[c]));
      if (Object.keys(changed).length > 0) await knex(table).where({ id: row.id }).update(changed);
    }
  }
}

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** An audit row's parameters: JSON as written, else (never expected) the text itself. */
function parsedParams(raw: unknown): unknown {
  try {
    return JSON.parse(String(raw));
  } catch {
    return String(raw);
  }
}

export async function up(knex: Knex): Promise<void> {
  await rewriteRows(knex, 'admin_audit', ['params', 'reason'], (row, ids) => {
    const params = parsedParams(row.params);
    const reason = text(row.reason);
    const rewritten = pseudonymiseValue(params, ids);
    return {
      params: typeof rewritten === 'string' ? rewritten : JSON.stringify(rewritten),
      // the column's 500 characters: `user:<id>` can be longer than the address it replaces
      reason: reason === null ? null : replaceAddresses(reason, ids).slice(0, 500),
    };
  }, (row) => addressesInValue([parsedParams(row.params), text(row.reason)]));
  await rewriteRows(knex, 'credit_transactions', ['description'], (row, ids) => ({
    description: replaceAddresses(String(row.description), ids).slice(0, 255),
  }), (row) => addressesInValue(String(row.description)));
  await rewriteRows(knex, 'model_discounts', ['reason'], (row, ids) => ({
    reason: text(row.reason) === null ? null : replaceAddresses(String(row.reason), ids).slice(0, 255),
  }), (row) => addressesInValue(text(row.reason)));
}

export async function down(): Promise<void> {
  // the addresses are gone; the rewritten rows stay as they are
}
