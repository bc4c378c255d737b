// Natural batching (group commit) of one kind of statement within one process: the first arrival
// runs at once (at the end of the current job, so arrivals of the same job join it); while the
// batches in flight fill every slot (one by default, `inFlight` a few), arrivals queue, and all of
// them (up to `max`, and those `compatible` with the first) go in the next batch when one ends. No timer: an idle process adds no delay, a busy
// one shares each round trip among everything that arrived during the previous one. keyedBatcher
// keeps one such batcher per key (a wallet): a group commit per wallet, keys independent.

/**
 * Batches in flight at once for the sandbox path's batchers (rate-limit upserts, sandbox INSERTs,
 * result reads): while one statement commits, the next batch's is already on its way, so the pace
 * is not one commit at a time.
 */
export const BATCHES_IN_FLIGHT = 2;

/** What `run` answers for each item of a batch, in the items' order. */
export type ItemOutcome<O> = { ok: true; value: O } | { ok: false; error: unknown };

export interface NaturalBatchOptions<I> {
  /** the most items one batch takes (the rest wait for the next one) */
  max: number;
  /** whether `item` may join the items already taken into a batch (default: always); if not, it waits for the next */
  compatible?: (batch: readonly I[], item: I) => boolean;
  /** how many batches may be in flight at once (default 1); a free slot starts the next batch at once */
  inFlight?: number;
  /**
   * What an item touches (rows, counters): with `inFlight` above 1, an item waits while a batch in
   * flight touches one of its keys, and so does every later item sharing a key with one that
   * waits, so the items of one key run in their arrival order, one batch at a time, while batches
   * of disjoint keys run side by side. Without it, items have no order between batches.
   */
  keysOf?: (item: I) => readonly string[];
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
  return batchQueue(run, opts).submit;
}

/** A natural batcher and what it holds: `waiting` items queued for a batch, `idle` when none is waiting or in flight. */
interface BatchQueue<I, O> {
  submit: (item: I) => Promise<O>;
  readonly waiting: number;
  readonly idle: boolean;
}

function batchQueue<I, O>(run: (items: I[]) => Promise<Array<ItemOutcome<O>>>, opts: NaturalBatchOptions<I>, onIdle?: () => void): BatchQueue<I, O> {
  const slots = Math.max(1, opts.inFlight ?? 1);
  const keysOf = slots > 1 ? opts.keysOf : undefined;
  let queue: Array<Entry<I, O>> = [];
  let running = 0;
  let scheduled = false;
  // the keys touched by the batches in flight (a key once per batch touching it)
  const held = new Map<string, number>();
  const take = (): Array<Entry<I, O>> => {
    const batch: Array<Entry<I, O>> = [];
    const items: I[] = [];
    const rest: Array<Entry<I, O>> = [];
    // keys of items left waiting: a later item touching one waits behind it
    const blocked = new Set<string>();
    for (const e of queue) {
      const keys = keysOf?.(e.item);
      const free = keys === undefined || keys.every((k) => !held.has(k) && !blocked.has(k));
      if (free && batch.length < opts.max && (items.length === 0 || opts.compatible === undefined || opts.compatible(items, e.item))) {
        batch.push(e);
        items.push(e.item);
      } else {
        rest.push(e);
        if (keys !== undefined) for (const k of keys) blocked.add(k);
      }
    }
    queue = rest;
    return batch;
  };
  const start = (batch: Array<Entry<I, O>>) => {
    running++;
    const items = batch.map((e) => e.item);
    const keys = keysOf === undefined ? [] : [...new Set(items.flatMap(keysOf))];
    for (const k of keys) held.set(k, (held.get(k) ?? 0) + 1);
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
      for (const k of keys) {
        const n = held.get(k)! - 1;
        if (n === 0) held.delete(k);
        else held.set(k, n);
      }
      running--;
      pump();
      if (running === 0 && queue.length === 0) onIdle?.();
    });
  };
  const pump = () => {
    scheduled = false;
    while (running < slots && queue.length > 0) {
      const batch = take();
      if (batch.length === 0) return;
      start(batch);
    }
  };
  return {
    submit: (item) => new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      // a free slot: run when the current job ends, with whatever else it submitted
      if (running < slots && !scheduled) {
        scheduled = true;
        queueMicrotask(pump);
      }
    }),
    get waiting() {
      return queue.length;
    },
    get idle() {
      return running === 0 && queue.length === 0;
    },
  };
}

/** A natural batcher per key; `waiting` counts the items queued under every key. */
export interface KeyedBatcher<I, O> {
  submit: (item: I) => Promise<O>;
  readonly waiting: number;
}

/**
 * A natural batcher per key (a wallet, say): items of one key go together, one batch of a key in
 * flight at a time, keys independent of each other. A key's batcher lives while it has an item
 * waiting or in flight.
 */
export function keyedBatcher<I, O>(keyOf: (item: I) => string, run: (items: I[]) => Promise<Array<ItemOutcome<O>>>, opts: NaturalBatchOptions<I>): KeyedBatcher<I, O> {
  const byKey = new Map<string, BatchQueue<I, O>>();
  return {
    submit(item) {
      const key = keyOf(item);
      let q = byKey.get(key);
      if (q === undefined) {
        const made: BatchQueue<I, O> = batchQueue(run, opts, () => {
          if (byKey.get(key) === made && made.idle) byKey.delete(key);
        });
        byKey.set(key, q = made);
      }
      return q.submit(item);
    },
    get waiting() {
      let n = 0;
      for (const q of byKey.values()) n += q.waiting;
      return n;
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
