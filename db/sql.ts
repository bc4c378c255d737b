// Fixed SQL texts the hot statements share: multi-row INSERTs written once per row count, and IN
// lists. Identifiers are quoted with backticks, which SQLite, MariaDB and MySQL all accept.
import type { Knex } from 'knex';
import { isMysql } from './knex.ts';

/**
 * A multi-row INSERT into `table` of `columns` (the hot batch statements: the store's engines,
 * db/wallet/moves.ts), run with `db.raw` on each row's values in `columns`' order: no query builder per
 * statement, which collects and sorts the columns of every row object and wraps every identifier
 * again each time. On MariaDB/MySQL the statement is `VALUES ?` with the rows as one binding (an
 * array of arrays), which mysql2 writes out as `(a, b), (c, d)` exactly as it writes one `?` per
 * value; knex then scans one placeholder, not one per value (measured: a 20-row INSERT of
 * predictions built and formatted in about half the CPU of the builder's, whereas a flat `?` per
 * value cost as much as the builder). SQLite binds each value: one `?` per value, the text written
 * once per row count. Identifiers are quoted with backticks, which all three accept.
 */
export function rowsInsert(table: string, columns: readonly string[]): (db: Knex, rows: Knex.RawBinding[][]) => Promise<unknown> {
  const head = insertHead(table, columns);
  const nested = `${head}?`;
  const flat = multiRowInsert(head, `(${columns.map(() => '?').join(', ')})`);
  return async (db, rows) => {
    if (rows.length === 0) throw new Error(`an INSERT into ${table} of no rows`);
    // knex types no array of arrays as a binding; it hands it to mysql2 as it is
    if (isMysql(db)) return db.raw(nested, [rows as unknown as Knex.RawBinding]);
    return db.raw(flat(rows.length), rows.flat());
  };
}

/** `insert into `table` (`a`, `b`, ...) values `: the head of a multi-row INSERT of `columns`. */
export function insertHead(table: string, columns: readonly string[]): string {
  return `insert into \`${table}\` (${columns.map((c) => `\`${c}\``).join(', ')}) values `;
}

/**
 * `head` followed by `n` copies of `row`, comma-separated, each text written once per `n`: a
 * multi-row INSERT whose rows take some values from SQL (`@mg_held + ?`) and bind the rest flat.
 */
export function multiRowInsert(head: string, row: string): (n: number) => string {
  const made = new Map<number, string>();
  return (n) => {
    let sql = made.get(n);
    if (sql === undefined) {
      sql = head + Array.from({ length: n }, () => row).join(', ');
      made.set(n, sql);
    }
    return sql;
  };
}

/** `?, ?, ...`: `n` placeholders (an IN list), written once per `n`. */
const marksOf = new Map<number, string>();
export function marks(n: number): string {
  let m = marksOf.get(n);
  if (m === undefined) marksOf.set(n, m = Array.from({ length: n }, () => '?').join(', '));
  return m;
}
