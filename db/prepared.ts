// Server-side prepared statements for the hot fixed statements on MariaDB/MySQL (README "Prepared
// statements"). `db.raw` sends each statement as text with its values written into it, and
// MariaDB parses every one anew: a batch's compound statement is several kilobytes, and the
// parser took about 16 % of mariadbd's CPU per production prediction (perf, 2026-11-25). Run
// through mysql2's `execute`, a text is prepared once per pool connection (mysql2 keeps the
// statement, by its text, in the connection's LRU: db/knex.ts PREPARED_PER_CONNECTION) and each call
// sends only the statement id and the values in the binary protocol.
//
// A text is prepared from its second run in the process on: one that comes once (the shape of a
// batch over many wallets, which may never recur) goes as text and takes no place among a
// connection's prepared statements.
//
// What a caller may pass: the SQL texts of a few shapes (their variety is the number of shapes a
// batch can take, not its values: every value must be a binding, never written into the text),
// and bindings as db.raw takes them, an array binding written out as mysql2 writes it in a text:
// a list of values as `?, ?`, a list of rows as `(?, ?), (?, ?)`. The statements' answers must not
// hold FLOAT or DECIMAL columns (the binary protocol answers a FLOAT as its float32 value,
// 0.10000000149011612, where the text answers 0.1): the callers read outcomes, ids and integers.
// Numbers go as mysql2 sends them, DOUBLE: MariaDB then computes with them as doubles (a balance
// minus a price, a timestamp stored in a BIGINT column), which is exact for every integer of at
// most 2^53 - 1, the only integers a JavaScript number holds exactly; a larger one is refused,
// as is NaN or an infinity. (Typed as BIGINT, mysql2 spent about 1.2 us per integer on BigInt
// range checks, 35 ns as DOUBLE; a production submit binds 15-20 integers.) A number
// the statement uses as a string (a VARCHAR column, CONCAT, a user variable read as text) would
// be a double's text, 1e15 and above in exponent form: bind strings as strings.
import type { Knex } from 'knex';
import { isMysql, preparesStatements, rawRows } from './knex.ts';
import type { Db } from './knex.ts';

/** 1461 ER_MAX_PREPARED_STMT_COUNT_REACHED, 1295 ER_UNSUPPORTED_PS: the statement runs as text instead. */
const AS_TEXT_INSTEAD = new Set([1461, 1295]);

interface PoolConnection {
  __knexUid?: string;
  __knexTxId?: string;
  execute(sql: string, values: unknown[], cb: (err: Error | null, rows: unknown, fields: unknown) => void): void;
}

/**
 * `db.raw(sql, bindings)` as a prepared statement on MariaDB/MySQL, answering what db.raw answers
 * there (`[rows, fields]`; a compound statement's rows are its result sets); db.raw itself on
 * SQLite, and with DB_PREPARED_PER_CONNECTION=0. In a transaction it runs on the transaction's connection. It emits knex's `query`,
 * `query-response` and `query-error` events as db.raw does (the benchmarks and tests watch them).
 */
export async function executeRaw(db: Db, sql: string, bindings: readonly Knex.RawBinding[]): Promise<unknown> {
  if (!isMysql(db) || !preparesStatements(db)) return db.raw(sql, bindings);
  const { text, values } = expand(sql, bindings);
  for (const v of values) checked(v);
  // a text not seen before goes as text: a shape that never recurs (a batch over many wallets) is
  // not worth a prepare, and would push the recurring ones out of the connection's statements
  if (!recurs(text)) return db.raw(sql, bindings);
  const client = db.client as { acquireConnection(): Promise<PoolConnection>; releaseConnection(c: PoolConnection): Promise<unknown>; emit(event: string, ...args: unknown[]): void };
  const conn = await client.acquireConnection();
  const query = { __knexUid: conn.__knexUid, __knexTxId: conn.__knexTxId, method: 'raw', sql: text, bindings: values };
  try {
    client.emit('query', query);
    const response = await new Promise((resolve, reject) => {
      conn.execute(text, values, (err, rows, fields) => (err ? reject(err) : resolve([rows, fields])));
    });
    client.emit('query-response', response, query);
    return response;
  } catch (err) {
    if (!AS_TEXT_INSTEAD.has((err as { errno?: number }).errno ?? 0)) {
      client.emit('query-error', err, query);
      throw err;
    }
  } finally {
    await client.releaseConnection(conn);
  }
  // the server holds no more prepared statements (or refuses this one): the same statement as text
  // (knex's `query` event then sees it twice)
  return db.raw(sql, bindings);
}

/** The expanded texts run lately in this process (cleared when it holds SEEN_MAX). */
const seen = new Set<string>();
const SEEN_MAX = 4_096;

/** Whether this text was run before in this process: only then is it prepared. */
function recurs(text: string): boolean {
  if (seen.has(text)) return true;
  if (seen.size >= SEEN_MAX) seen.clear();
  seen.add(text);
  return false;
}

/** rawRows (db/knex.ts) through executeRaw: the rows of a statement (on MariaDB/MySQL a statement that answers none gives its result header). */
export async function preparedRows<T>(db: Db, sql: string, bindings: readonly Knex.RawBinding[]): Promise<T[]> {
  if (!isMysql(db)) return rawRows<T>(db, sql, bindings);
  return ((await executeRaw(db, sql, bindings)) as [T[]])[0];
}

/** Where each `?` of a text is (outside quotes), per text. */
const placesOf = new Map<string, number[]>();
const PLACES_MAX = 2_000;

function places(sql: string): number[] {
  let found = placesOf.get(sql);
  if (found !== undefined) return found;
  found = [];
  let quote = '';
  for (let i = 0; i < sql.length; i++) {
    const ch = sql[i]!;
    if (quote !== '') {
      if (ch === '\\') i++;
      else if (ch === quote) quote = '';
    } else if (ch === '\'' || ch === '"' || ch === '`') {
      quote = ch;
    } else if (ch === '?') {
      if (sql[i + 1] === '?') throw new Error('executeRaw takes values only (`?`), no identifiers (`??`)');
      found.push(i);
    }
  }
  if (placesOf.size >= PLACES_MAX) placesOf.clear();
  placesOf.set(sql, found);
  return found;
}

/** Throws unless mysql2's execute may send the value as it is: never undefined, a number only finite and, if an integer, exact as a DOUBLE. */
function checked(v: unknown): void {
  if (v === undefined) throw new TypeError('Undefined binding in executeRaw');
  // NaN as a text would be a syntax error; as a DOUBLE the server would take it
  if (typeof v === 'number' && (!Number.isFinite(v) || (Number.isInteger(v) && !Number.isSafeInteger(v)))) {
    throw new TypeError(`executeRaw: ${v} is no value to bind exactly`);
  }
}

/** The text with every array binding written out as placeholders, and the values in order, flat. */
export function expand(sql: string, bindings: readonly unknown[]): { text: string; values: unknown[] } {
  const at = places(sql);
  if (at.length !== bindings.length) throw new Error(`executeRaw: ${at.length} placeholders, ${bindings.length} bindings`);
  const values: unknown[] = [];
  let text = '';
  let from = 0;
  let arrays = false;
  for (const [k, b] of bindings.entries()) {
    if (!Array.isArray(b)) {
      values.push(b);
      continue;
    }
    if (b.length === 0) throw new Error('executeRaw: an empty list binding');
    arrays = true;
    let marks: string;
    if (Array.isArray(b[0])) {
      const rows = b as unknown[][];
      marks = rows.map((row) => {
        values.push(...row);
        return `(${row.map(() => '?').join(', ')})`;
      }).join(', ');
    } else {
      values.push(...b);
      marks = b.map(() => '?').join(', ');
    }
    text += sql.slice(from, at[k]) + marks;
    from = at[k]! + 1;
  }
  return { text: arrays ? text + sql.slice(from) : sql, values };
}
