// AbortSignal helpers that work on every runtime the client supports (AbortSignal.any and
// AbortSignal.timeout are recent in some of them).
import { AbortError } from './errors.ts';

export interface Linked {
  signal: AbortSignal;
  /** true when the time limit fired (not the caller's signal) */
  timedOut(): boolean;
  /** stops the timer and the listener; call when the operation is over */
  done(): void;
}

/** A signal that aborts when `parent` does or after `timeoutMs` (none when 0 or undefined). */
export function linkSignal(parent: AbortSignal | undefined, timeoutMs: number | undefined): Linked {
  const controller = new AbortController();
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) controller.abort(parent.reason);
  else parent?.addEventListener('abort', onAbort, { once: true });
  if (timeoutMs !== undefined && timeoutMs > 0 && !controller.signal.aborted) {
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new DOMException('the time limit passed', 'TimeoutError'));
    }, timeoutMs);
  }
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done() {
      if (timer !== undefined) clearTimeout(timer);
      parent?.removeEventListener('abort', onAbort);
    },
  };
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortError('the operation was aborted', { cause: signal.reason });
}

/** Waits `ms`, or rejects with AbortError as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new AbortError('the operation was aborted', { cause: signal.reason }));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortError('the operation was aborted', { cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
