// Getting accepted requests onto the queue, and keeping them there.
// A request is persisted as `queued` before it is published. Once the broker confirms the
// publish it becomes `pending` (batched: one UPDATE for many confirms). Anything still
// `queued` after a while (broker down at submit, API process died before the confirm) is
// published again by the sweeper; duplicates are harmless because workers claim rows with a
// conditional UPDATE. With the in-process queue, messages die with the process, so on start
// every unfinished request is published again.
import type { Db } from '../db/knex.ts';
import { findUnfinished, findUnpublished, markPending } from '../db/predictions.ts';
import type { Queue } from './queue/types.ts';
import type { Logger } from 'pino';

export interface PredictionMessage {
  id: string;
}

export interface Dispatcher {
  /** publishes; resolves true once confirmed, false if the queue could not take it now (the sweeper will) */
  dispatch(id: string): Promise<boolean>;
  /** publishes every request left `queued` for longer than the grace period; returns how many */
  sweep(): Promise<number>;
  /** in-process queue only: publishes every unfinished request after a restart */
  recover(): Promise<number>;
  start(sweepEveryMs: number): void;
  stop(): Promise<void>;
}

export function createDispatcher(deps: { db: Db; queue: Queue; log: Logger; clock: () => number; graceMs?: number }): Dispatcher {
  const { db, queue, log, clock } = deps;
  const graceMs = deps.graceMs ?? 15_000;
  let confirmed: string[] = [];
  let flushing: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let sweeping = false;

  async function flush(): Promise<void> {
    while (confirmed.length) {
      const batch = confirmed.splice(0, 500);
      try {
        await markPending(db, batch, clock());
      } catch (err) {
        // Losing this marker only means the sweeper may publish a duplicate later.
        log.warn({ err, count: batch.length }, 'could not mark predictions pending');
      }
    }
    flushing = null;
  }

  function scheduleFlush() {
    if (!flushing) flushing = new Promise<void>((resolve) => setImmediate(resolve)).then(flush);
  }

  async function publish(id: string): Promise<boolean> {
    try {
      await queue.publish('predictions', { id } satisfies PredictionMessage);
    } catch (err) {
      log.warn({ err: (err as Error).message, id }, 'publish not confirmed; the sweeper will retry');
      return false;
    }
    confirmed.push(id);
    scheduleFlush();
    return true;
  }

  return {
    dispatch: publish,
    async sweep() {
      if (sweeping) return 0;
      sweeping = true;
      let n = 0;
      try {
        const stale = await findUnpublished(db, clock() - graceMs, 500);
        for (const p of stale) if (await publish(p.id)) n++;
      } finally {
        sweeping = false;
      }
      if (n) log.info({ count: n }, 'published requests whose first publish was not confirmed');
      return n;
    },
    async recover() {
      let n = 0;
      let after = '';
      for (;;) {
        const batch = await findUnfinished(db, 500, after);
        if (batch.length === 0) break;
        for (const p of batch) if (await publish(p.id)) n++;
        after = batch[batch.length - 1]!.id;
      }
      if (n) log.info({ count: n }, 'requeued unfinished requests after restart');
      return n;
    },
    start(sweepEveryMs) {
      timer = setInterval(() => {
        this.sweep().catch((err: unknown) => log.warn({ err }, 'sweep failed'));
      }, sweepEveryMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await flushing;
    },
  };
}
