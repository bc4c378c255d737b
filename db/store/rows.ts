// The `predictions` rows a submit writes, as every engine writes them: a production request's
// (status `queued`, its price held) and a sandbox request's (born `completed`), with their fixed
// INSERT texts (test/bench/floor.ts writes the same columns).
import type { Knex } from 'knex';
import { insertHead, rowsInsert } from '../sql.ts';
import { SANDBOX_COLUMNS } from '../predictions/record.ts';
import type { NewPrediction } from '../predictions/record.ts';
import type { ConcurrencyLimits, SandboxRequest } from './types.ts';

/** The `predictions` row a production submit inserts (status `queued`). */
export function submittedRow(p: NewPrediction, now: number): Record<string, unknown> {
  const row: Record<string, unknown> = {
    id: p.id, user_id: p.userId, team_id: p.teamId ?? null, api_key_id: p.apiKeyId, model: p.model, status: 'queued', is_test: false,
    input: JSON.stringify(p.input), price: p.price, webhook_url: p.webhookUrl, http_request_id: p.httpRequestId ?? null, created_at: now, updated_at: now,
    source: p.source ?? 'api',
    ...(p.embedCodeId ? { embed_code_id: p.embedCodeId, embed_visitor: p.embedVisitor ?? null } : {}),
    ...studioColumns(p),
    ...(p.priceRule ? { price_rule: p.priceRule } : {}),
  };
  // what the hold's ledger row records, kept on the prediction too so the charge need not read the hold row
  if (p.price > 0) Object.assign(row, { list_price: p.listPrice ?? p.price, discount_percent: p.discountPercent ?? null });
  return row;
}

/** The `predictions` row an inline call inserts: a submit's row, born `processing` (the API process runs it: attempts 1, started now). */
export function inlineRow(p: NewPrediction, now: number): Record<string, unknown> {
  return { ...submittedRow(p, now), status: 'processing', attempts: 1, started_at: now };
}

function studioColumns(p: Pick<NewPrediction, 'studioId' | 'studioMarkup' | 'payer'>): Record<string, unknown> {
  if (!p.studioId) return {};
  return { studio_id: p.studioId, studio_markup: p.studioMarkup ?? 0, ...(p.payer ? { payer_user_id: p.payer.userId, payer_team_id: p.payer.teamId } : {}) };
}

/**
 * The columns of submittedRow for a request with no embed code and no studio (every submit that
 * may join a batch, and most single ones), in the order insertSubmitted writes them; a free
 * request's row leaves list_price and discount_percent null, their default.
 */
const SUBMITTED_COLUMNS = ['id', 'user_id', 'team_id', 'api_key_id', 'model', 'status', 'is_test', 'input', 'price', 'webhook_url', 'http_request_id', 'created_at', 'updated_at', 'source', 'list_price', 'discount_percent'] as const;
const SUBMITTED = new Set<string>(SUBMITTED_COLUMNS);
const insertSubmittedRows = rowsInsert('predictions', SUBMITTED_COLUMNS);
const SUBMITTED_HEAD = insertHead('predictions', SUBMITTED_COLUMNS);

/**
 * MariaDB/MySQL: submittedRow rows as one fixed INSERT (`values ?`, the rows one nested binding
 * that mysql2 writes out), to run inside a statement of the caller's; null when a row has a
 * column besides SUBMITTED_COLUMNS' (embed, studio).
 */
export function submittedInsertSql(rows: ReadonlyArray<Record<string, unknown>>): { sql: string; binding: Knex.RawBinding } | null {
  const values: Knex.RawBinding[][] = [];
  for (const row of rows) {
    for (const column in row) if (!SUBMITTED.has(column)) return null;
    values.push(SUBMITTED_COLUMNS.map((column) => (row[column] ?? null) as Knex.RawBinding));
  }
  // knex types no array of arrays as a binding; it hands it to mysql2 as it is (rowsInsert)
  return { sql: `${SUBMITTED_HEAD}?`, binding: values as unknown as Knex.RawBinding };
}

/**
 * Inserts submittedRow rows in one statement: fixed SQL (rowsInsert) when every row's columns are
 * SUBMITTED_COLUMNS' (the knex builder otherwise, for a row with embed or studio columns).
 */
export async function insertSubmitted(trx: Knex, rows: ReadonlyArray<Record<string, unknown>>): Promise<void> {
  const values: Knex.RawBinding[][] = [];
  for (const row of rows) {
    for (const column in row) {
      if (!SUBMITTED.has(column)) {
        await trx('predictions').insert(rows as Array<Record<string, unknown>>);
        return;
      }
    }
    values.push(SUBMITTED_COLUMNS.map((column) => (row[column] ?? null) as Knex.RawBinding));
  }
  await insertSubmittedRows(trx, values);
}

/** Whether `limits` asks a submit to count anything for this request. */
export function limitsApply(p: Pick<NewPrediction, 'apiKeyId'>, limits: ConcurrencyLimits | undefined): boolean {
  return limits !== undefined && (limits.perAccount > 0 || (limits.perKey > 0 && p.apiKeyId !== null));
}

/** A sandbox request's row as SANDBOX_COLUMNS' values (the id first). */
export function sandboxValues({ p, outputs, now }: SandboxRequest): Knex.RawBinding[] {
  return [
    p.id, p.userId, p.teamId ?? null, p.apiKeyId, p.model, 'completed', true,
    JSON.stringify(p.input), JSON.stringify(outputs), JSON.stringify(outputs.map(() => false)),
    0, p.webhookUrl, p.httpRequestId ?? null, 0, now, now, now, now, p.source ?? 'api', p.studioId ?? null,
  ];
}

export const INSERT_SANDBOX_SQL = `INSERT INTO predictions (${SANDBOX_COLUMNS.join(', ')}) VALUES (${SANDBOX_COLUMNS.map(() => '?').join(', ')})`;
/** INSERT_SANDBOX_SQL reading a user's balance in the same statement (INSERT ... RETURNING a scalar subquery: MariaDB 10.5+, SQLite 3.35+). */
export const INSERT_SANDBOX_RETURNING_BALANCE_SQL = `${INSERT_SANDBOX_SQL} RETURNING (SELECT balance FROM users WHERE id = ?) AS balance`;

const ROW_MARKS = `(${SANDBOX_COLUMNS.map(() => '?').join(', ')})`;
const sandboxBatchSql = new Map<string, string>();

/** The INSERT of `n` sandbox rows, written once per `n`; `returning`: each row's user's balance, read by the insert itself. */
export function sandboxInsertSql(n: number, returning: boolean): string {
  const key = `${n}:${returning}`;
  let sql = sandboxBatchSql.get(key);
  if (sql === undefined) {
    sql = `INSERT INTO predictions (${SANDBOX_COLUMNS.join(', ')}) VALUES ${Array.from({ length: n }, () => ROW_MARKS).join(', ')}`;
    // balanceOf is always the row's user (a personal prediction)
    if (returning) sql += ' RETURNING id, (SELECT balance FROM users WHERE users.id = predictions.user_id) AS balance';
    sandboxBatchSql.set(key, sql);
  }
  return sql;
}
