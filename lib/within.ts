// Waiting for something at most so long: a probe of the database, a broker's reply, the socket's
// room to publish, handlers draining at shutdown, a shutdown step. One helper, so that every such
// wait clears its timer (a timer left behind keeps a process alive or fires into nothing).

/** What within() answers when the time ran out before the work settled. */
export const TIMED_OUT: unique symbol = Symbol('timed out');

/**
 * Waits for `work` at most `ms` milliseconds: its value (or its rejection) when it settles in
 * time, else TIMED_OUT. Nothing is cancelled: the work goes on, and a rejection that comes after
 * the time ran out is ignored, never left unhandled. The timer is cleared either way.
 */
export async function within<T>(work: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, ms), TIMED_OUT);
  });
  try {
    // the race listens to `work` for good: a rejection that comes after the time ran out is handled
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
