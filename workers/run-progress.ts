// What a run in this process (a local adapter) reports as it goes, written to its prediction at
// most once per RUN_PROGRESS_WRITE_MS (default 1 s): an adapter may report every step, and the hot
// path must not get a write per step. A run shorter than that writes nothing at all (nobody could
// have watched it); a longer one gets its last update written by `flush` before it ends, so its
// final lines are kept whatever the throttle held back. When the submit asked its webhook for
// events (`events`), the start and then an event after each write go out one after another, in a
// chain of their own (a slow receiver never holds the writes back; updates that come while one
// waits make one event), and `flush` waits for them too (workers/webhooks/events.ts).
import type { App } from '../lib/context.ts';
import { recordRunProgress } from '../db/predictions/upstream.ts';
import { appendLines, serializeRunLogs } from '../lib/run-logs.ts';
import type { RunLogs } from '../lib/run-logs.ts';
import type { RunUpdate } from './adapters/types.ts';
import type { EventFilter } from '../db/webhooks.ts';
import { sendRunningEvent } from './webhooks/events.ts';


export interface ProgressReporter {
  report(update: RunUpdate): void;
  /** writes what is still held back (the run ended); resolves when written */
  flush(): Promise<void>;
  /** how many writes were made (tests and metrics) */
  readonly writes: number;
}

export function progressReporter(app: App, predictionId: string, opts: { intervalMs?: number; now?: () => number; events?: EventFilter | null } = {}): ProgressReporter {
  const events = opts.events ?? null;
  const interval = opts.intervalMs ?? app.config.runProgressWriteMs;
  const now = opts.now ?? (() => performance.now());
  const started = now();
  let logs: RunLogs | null = null;
  let progress: number | undefined;
  let dirty = false;
  let logsDirty = false;
  // the first write waits one interval from the start too
  let lastWrite = started;
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  let writes = 0;
  let sending: Promise<unknown> = events ? sendRunningEvent(app, predictionId, { kind: 'start' }, events) : Promise.resolve();
  // the update waiting for its turn in `sending`, if any: later writes join it
  let queued: { logs: boolean } | null = null;
  function queueEvent(logs: boolean): void {
    if (!events) return;
    if (queued) {
      queued.logs ||= logs;
      return;
    }
    const next = queued = { logs };
    sending = sending.then(() => {
      queued = null;
      return sendRunningEvent(app, predictionId, { kind: 'update', logs: next.logs }, events);
    });
  }

  function write(): Promise<void> {
    if (!dirty) return writing;
    dirty = false;
    const update = { ...(progress !== undefined ? { progress } : {}), ...(logsDirty && logs ? { logs: serializeRunLogs(logs) } : {}) };
    logsDirty = false;
    lastWrite = now();
    writes++;
    writing = writing.then(() => recordRunProgress(app.db, predictionId, update, app.clock())).catch((err: unknown) => {
      // progress is a courtesy: a failed write never fails the run
      app.log.warn({ id: predictionId, err: (err as Error).message }, 'could not record run progress');
    }).then(() => queueEvent(update.logs !== undefined));
    return writing;
  }

  return {
    report(update) {
      if (update.progress !== undefined && Number.isFinite(update.progress)) progress = Math.min(1, Math.max(0, update.progress));
      if (update.logs && update.logs.length > 0) {
        logs = appendLines(logs, update.logs, app.clock());
        logsDirty = true;
      }
      dirty = true;
      const wait = lastWrite + interval - now();
      if (wait <= 0) {
        clearTimeout(timer);
        timer = undefined;
        void write();
      } else if (timer === undefined) {
        timer = setTimeout(() => {
          timer = undefined;
          void write();
        }, wait);
        timer.unref();
      }
    },
    flush() {
      clearTimeout(timer);
      timer = undefined;
      // a run too short to have written anything leaves its row alone
      if (writes === 0 && now() - started < interval) return writing.then(() => sending).then(() => undefined);
      return write().then(() => sending).then(() => undefined);
    },
    get writes() {
      return writes;
    },
  };
}
