// Natural batching (group commit) of one kind of statement within one process: the first arrival
// runs at once (at the end of the current job, so arrivals of the same job join it; with
// `gather: 'turn'`, at the end of the event loop's current turn); while a batch is in flight,
// arrivals queue, and all of them (up to `max`, and those `compatible` with the first) go in the
// next batch when it ends. No timer: an idle process adds no delay, a busy one shares each round
// trip among everything that arrived during the previous one.
import type { Knex } from 'knex';
import { isMysql } from './knex.ts';

/** What `run` answers for each item of a batch, in the items' order. */
export type ItemOutcome<O> = { ok: true; value: O } | { ok: false; error: unknown };

export interface NaturalBatchOptions<I> {
  /** the most items one batch takes (the rest wait for the next one) */
  max: number;
  /** whether `item` may join the items already taken into a batch (default: always); if not, it waits for the next */
  compatible?: (batch: readonly I[], item: I) => boolean;
  /**
   * When the first arrival at an idle batcher runs: `job` (default), once the current job's
   * microtasks have run; `turn`, once the event loop's current turn has run its I/O callbacks
   * (setImmediate), so that the requests read from several sockets in one turn, and the
   * requests one batch's answer released, share a batch even when each reaches the batcher
   * through several awaits of its own: with `job`, the first of them ran alone and the rest
   * formed the next batch. It waits for no timer and no I/O: an idle process runs a lone item
   * in the same turn.
   */
  gather?: 'job' | 'turn';
}

interface Entry<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

/**
 * Returns a function that submits one item and resolves with its own outcome once its batch has
 * run. `run` gets the items of one batch and answers one outcome per item; if it throws, every
 * item of that batch fails with its error.
 */
export function naturalBatcher<I, O>(run: (items: I[]) => Promise<Array<ItemOutcome<O>>>, opts: NaturalBatchOptions<I>): (item: I) => Promise<O> {
  return naturalQueue(run, opts).submit;
}

/** A natural batcher and what it holds: `waiting` items queued for a batch, `idle` when none is waiting or in flight. */
export interface NaturalQueue<I, O> {
  submit: (item: I) => Promise<O>;
  readonly waiting: number;
  readonly idle: boolean;
}

/** naturalBatcher, with what it holds in view (tests, metrics). */
export function naturalQueue<I, O>(run: (items: I[]) => Promise<Array<ItemOutcome<O>>>, opts: NaturalBatchOptions<I>): NaturalQueue<I, O> {
  let queue: Array<Entry<I, O>> = [];
  let busy = false;
  const schedule = opts.gather === 'turn' ? (fn: () => void) => { setImmediate(fn); } : queueMicrotask;
  const pump = () => {
    if (busy || queue.length === 0) return;
    busy = true;
    const batch: Array<Entry<I, O>> = [];
    const items: I[] = [];
    const rest: Array<Entry<I, O>> = [];
    for (const e of queue) {
      if (batch.length < opts.max && (items.length === 0 || opts.compatible === undefined || opts.compatible(items, e.item))) {
        batch.push(e);
        items.push(e.item);
      } else {
        rest.push(e);
      }
    }
    queue = rest;
    run(items).then((outcomes) => {
      batch.forEach((e, i) => {
        const o = outcomes[i];
        if (o === undefined) e.reject(new Error('a batch answered fewer outcomes than it had items'));
        else if (o.ok) e.resolve(o.value);
        else e.reject(o.error);
      });
    }, (err: unknown) => {
      for (const e of batch) e.reject(err);
    }).finally(() => {
      busy = false;
      pump();
    });
  };
  return {
    submit: (item) => new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      // the first of an idle batcher: run when the current job (or turn) ends, with whatever else arrived by then
      if (!busy && queue.length === 1) schedule(pump);
    }),
    get waiting() {
      return queue.length;
    },
    get idle() {
      return !busy && queue.length === 0;
    },
  };
}

/** Runs `fn` on each item alone, each answering its own outcome (a batch statement's fallback). */
export async function eachAlone<I, O>(items: readonly I[], fn: (item: I) => Promise<O>): Promise<Array<ItemOutcome<O>>> {
  return Promise.all(items.map((item) => fn(item).then((value): ItemOutcome<O> => ({ ok: true, value }), (error: unknown): ItemOutcome<O> => ({ ok: false, error }))));
}

/** One batcher per knex instance (one per process and database), made on first use. */
export function perInstance<K extends object, F>(make: (key: K) => F): (key: K) => F {
  const made = new WeakMap<K, F>();
  return (key) => {
    let f = made.get(key);
    if (f === undefined) made.set(key, f = make(key));
    return f;
  };
}

/**
 * A multi-row INSERT into `table` of `columns` (the hot batch statements: db/submit-batch.ts,
 * db/wallet.ts), run with `db.raw` on each row's values in `columns`' order: no query builder per
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
