// Watching a prediction from the API process: the SSE stream and `Prefer: wait` (README
// "Following a prediction"). The state changes happen in a worker, often another process on
// another machine, so the API learns them by reading the row again, with backoff: correct across
// processes and brokers, no fan-out to keep coherent, and no database connection held between
// reads (each read borrows one from the pool and gives it back).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Request } from '@hapi/hapi';
import type { App } from '../lib/context.ts';
import type { Owner } from '../lib/caller.ts';
import { TERMINAL, findPrediction } from '../db/predictions/record.ts';
import type { Prediction } from '../db/predictions/record.ts';
import { parseRunLogs } from '../lib/run-logs.ts';

/** The first re-read comes this soon after a change; the gap doubles up to POLL_MAX_MS. */
export const POLL_MIN_MS = 100;
export const POLL_MAX_MS = 2_000;

let watching = 0;
/** Watches (streams and `Prefer: wait`) still reading in this process: a gone client must bring it down. */
export const activeWatches = () => watching;

export const isTerminal = (p: Pick<Prediction, 'status'>) => TERMINAL.includes(p.status);

/**
 * An AbortSignal that fires when the client of `request` goes away (hapi's `disconnect`) or
 * `abort()` is called. `dispose` removes the listener.
 */
export function disconnectSignal(request: Request): { signal: AbortSignal; abort(): void; dispose(): void } {
  const controller = new AbortController();
  const onDisconnect = () => controller.abort();
  // hapi's `disconnect` fires only for a request whose body was still arriving ('aborted');
  // a client gone after sending its whole body shows as the response closing unfinished
  const onClose = () => {
    if (!request.raw.res.writableEnded) controller.abort();
  };
  request.events.once('disconnect', onDisconnect);
  request.raw.res.once('close', onClose);
  // a socket already gone before the listeners were added
  if (request.raw.res.destroyed || request.raw.req.socket?.destroyed) controller.abort();
  return {
    signal: controller.signal,
    abort: () => controller.abort(),
    dispose: () => {
      request.events.removeListener('disconnect', onDisconnect);
      request.raw.res.removeListener('close', onClose);
    },
  };
}

/** What a status event reports: the status, and a running job's queue position and progress. */
export function statusKey(p: Prediction): string {
  const position = p.queuePosition;
  const progress = p.progress;
  return position === null && progress === null ? p.status : `${p.status}|${position ?? ''}|${progress ?? ''}`;
}

/** How many log lines the run has written so far (lib/run-logs.ts `seen`). */
export function logsSeen(p: Prediction): number {
  return parseRunLogs(p.logsText)?.seen ?? 0;
}

/** What a watcher reports a change of: the status event's key, and new log lines. */
function stateKey(p: Prediction): string {
  return `${statusKey(p)}#${logsSeen(p)}`;
}

/**
 * Yields the prediction (scoped to `owner`) each time its status (or, while it runs, its queue
 * position, progress or log) changes, the first read included, and returns after a terminal state, when `until` passes (epoch ms, real time) or
 * when `signal` fires. Yields nothing for a prediction the owner cannot see (`visible`), and
 * nothing more once `stillAllowed` (asked before every event after the first) says no.
 */
export async function* watchPrediction(
  app: App, owner: Owner, id: string,
  opts: { signal: AbortSignal; until: number; visible?: (p: Prediction) => boolean; stillAllowed?: () => Promise<boolean> },
): AsyncGenerator<Prediction, void, void> {
  let last: string | undefined;
  let gap = POLL_MIN_MS;
  watching++;
  try {
    while (!opts.signal.aborted) {
      const p = await findPrediction(app.db, owner, id);
      if (!p || (opts.visible && !opts.visible(p))) return;
      const key = stateKey(p);
      if (key !== last) {
        // asked before each event, not each poll: access lost (a member removed from the team) ends the watch at its next event
        if (last !== undefined && opts.stillAllowed && !await opts.stillAllowed()) return;
        last = key;
        gap = POLL_MIN_MS;
        yield p;
        if (isTerminal(p)) return;
      } else {
        gap = Math.min(gap * 2, POLL_MAX_MS);
      }
      const left = opts.until - Date.now();
      if (left <= 0) return;
      try {
        await sleep(Math.min(gap, left), undefined, { signal: opts.signal });
      } catch {
        return; // aborted
      }
    }
  } finally {
    watching--;
  }
}

/** The prediction once terminal, or undefined when `ms` pass or the signal fires first. */
export async function waitForTerminal(app: App, owner: Owner, id: string, ms: number, signal: AbortSignal): Promise<Prediction | undefined> {
  for await (const p of watchPrediction(app, owner, id, { signal, until: Date.now() + ms })) {
    if (isTerminal(p)) return p;
  }
  return undefined;
}