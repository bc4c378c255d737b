// Natural batching (group commit) of one kind of statement within one process: the first arrival
// runs at once (at the end of the current job, so arrivals of the same job join it; with
// `gather: 'turn'`, at the end of the event loop's current turn); while a batch is in flight,
// arrivals queue, and all of them (up to `max`, and those `compatible` with the first) go in the
// next batch when it ends. No timer delays an item: an idle process adds no delay, a busy one
// shares each round trip among everything that arrived during the previous one (the one timer,
// for `stuckAfterMs` and `maxWaitMs`, only moves on from a stuck batch and fails items that
// waited too long). Transport-free: it knows nothing of what a batch runs (the store's group
// commit, db/store/index.ts; the rate-limit counters).

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
  /**
   * The sizes a batch may take, ascending from 1 (default: any size up to `max`): a batch takes
   * the largest of them that the items waiting fill, and the rest go in the next one. A batch's
   * statement text depends on its size; with few sizes, each text stays prepared on each pool
   * connection (db/prepared.ts) instead of pushing the others out of its statements (BATCH_SIZES).
   */
  sizes?: readonly number[];
  /**
   * After how long a batch in flight counts as stuck (ms; default: never). It is then left to run
   * on (it still answers its own items) and the items waiting go in the next batch at once, as a
   * pool's other connections would serve them: one batch stuck on the database (a row lock held
   * elsewhere, a connection that no longer answers) holds up only its own items.
   */
  stuckAfterMs?: number;
  /** told of each batch left running as stuck: how long it had been in flight, and how many items it holds */
  onStuck?: (ageMs: number, size: number) => void;
  /**
   * The longest an item waits behind batches in flight (ms; default: no limit). One still waiting
   * then (behind batches that were not stuck: more arriving than batches take) fails with
   * BatchWaitTimeoutError and never runs.
   */
  maxWaitMs?: number;
}

/** An item that waited `maxWaitMs` behind batches in flight: it was not run. */
export class BatchWaitTimeoutError extends Error {
  constructor(waitedMs: number) {
    super(`waited ${waitedMs} ms behind a batch in flight; not run`);
    this.name = 'BatchWaitTimeoutError';
  }
}

/**
 * The batch sizes of the statements that are prepared (db/prepared.ts): every size up to 16, then
 * each at most a quarter more than the one before, up to 384. A kind of batch statement then has
 * at most 34 texts (26 up to 100), where every size up to its `max` had one before: a MariaDB
 * connection keeps 64 prepared statements (DB_PREPARED_PER_CONNECTION), and the sandbox insert
 * and the rate-limit counters, with a text per size, made about a hundred between them under
 * load, so that a fifth of their executions prepared their statement again (2026-11-29, the
 * benchmark's sandbox phase).
 */
export const BATCH_SIZES: readonly number[] = [
  1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
  20, 24, 28, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384,
];

/** The largest of `sizes` (ascending, from 1) that is at most `n` (n >= 1). */
export function sizeAtMost(sizes: readonly number[], n: number): number {
  let fit = sizes[0]!;
  for (const s of sizes) {
    if (s > n) break;
    fit = s;
  }
  return fit;
}

/** The smallest of `sizes` (ascending) that is at least `n`, or `n` itself past the largest. */
export function sizeAtLeast(sizes: readonly number[], n: number): number {
  for (const s of sizes) if (s >= n) return s;
  return n;
}

interface Entry<I, O> {
  item: I;
  /** when it was submitted (Date.now()), with `maxWaitMs`; 0 otherwise */
  at: number;
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

/** A natural batcher and what it holds: `waiting` items queued for a batch, `idle` when none is waiting or in flight (a batch left running as stuck is not counted). */
export interface NaturalQueue<I, O> {
  submit: (item: I) => Promise<O>;
  readonly waiting: number;
  readonly idle: boolean;
}

/** naturalBatcher, with what it holds in view (tests, metrics). */
export function naturalQueue<I, O>(run: (items: I[]) => Promise<Array<ItemOutcome<O>>>, opts: NaturalBatchOptions<I>): NaturalQueue<I, O> {
  let queue: Array<Entry<I, O>> = [];
  /** the batch in flight (its start, with `stuckAfterMs`), undefined when none is */
  let flight: { startedAt: number; size: number } | undefined;
  const schedule = opts.gather === 'turn' ? (fn: () => void) => { setImmediate(fn); } : queueMicrotask;
  const { stuckAfterMs, maxWaitMs } = opts;
  // the watchdog (one timer, unref'd): armed while items wait behind a batch, for the first of the
  // batch's being stuck and their own deadlines
  let watchdog: NodeJS.Timeout | undefined;
  const expire = () => {
    watchdog = undefined;
    const now = Date.now();
    if (stuckAfterMs !== undefined && flight !== undefined && now - flight.startedAt >= stuckAfterMs) {
      // stuck: it runs on and answers its own items; the waiting ones go in the next batch, now
      opts.onStuck?.(now - flight.startedAt, flight.size);
      flight = undefined;
      pump();
      return;
    }
    if (maxWaitMs !== undefined) {
      const kept: Array<Entry<I, O>> = [];
      for (const e of queue) {
        if (now - e.at >= maxWaitMs) e.reject(new BatchWaitTimeoutError(now - e.at));
        else kept.push(e);
      }
      queue = kept;
    }
    watch();
  };
  const watch = () => {
    if ((stuckAfterMs === undefined && maxWaitMs === undefined) || watchdog !== undefined || flight === undefined || queue.length === 0) return;
    let due = stuckAfterMs === undefined ? Infinity : flight.startedAt + stuckAfterMs;
    if (maxWaitMs !== undefined) for (const e of queue) if (e.at + maxWaitMs < due) due = e.at + maxWaitMs;
    watchdog = setTimeout(expire, Math.max(0, due - Date.now()));
    watchdog.unref();
  };
  const pump = () => {
    if (flight !== undefined || queue.length === 0) return;
    const mine = { startedAt: stuckAfterMs === undefined ? 0 : Date.now(), size: 0 };
    flight = mine;
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
    if (opts.sizes !== undefined) {
      // the items past the largest size that fits wait at the head of the queue for the next batch
      const fit = sizeAtMost(opts.sizes, batch.length);
      if (fit < batch.length) {
        rest.unshift(...batch.splice(fit));
        items.length = fit;
      }
    }
    queue = rest;
    mine.size = items.length;
    // the items left waiting behind this batch
    watch();
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
      // a batch left running as stuck (expire) ends here: the batcher has moved on without it
      if (flight !== mine) return;
      flight = undefined;
      pump();
    });
  };
  return {
    submit: (item) => new Promise<O>((resolve, reject) => {
      queue.push({ item, at: maxWaitMs === undefined ? 0 : Date.now(), resolve, reject });
      // the first of an idle batcher: run when the current job (or turn) ends, with whatever else arrived by then
      if (flight === undefined) {
        if (queue.length === 1) schedule(pump);
      } else {
        watch();
      }
    }),
    get waiting() {
      return queue.length;
    },
    get idle() {
      return flight === undefined && queue.length === 0;
    },
  };
}

/** Runs `fn` on each item alone, each answering its own outcome (a batch statement's fallback). */
export async function eachAlone<I, O>(items: readonly I[], fn: (item: I) => Promise<O>): Promise<Array<ItemOutcome<O>>> {
  return Promise.all(items.map((item) => fn(item).then((value): ItemOutcome<O> => ({ ok: true, value }), (error: unknown): ItemOutcome<O> => ({ ok: false, error }))));
}

/** One value per key object (a batcher per database instance, per store), made on first use. */
export function perInstance<K extends object, F>(make: (key: K) => F): (key: K) => F {
  const made = new WeakMap<K, F>();
  return (key) => {
    let f = made.get(key);
    if (f === undefined) made.set(key, f = make(key));
    return f;
  };
}
