// Shared by both transports: how long close() waits for handlers that are still running.
import { within } from '../../lib/within.ts';

export const CLOSE_GRACE_MS = 10_000;

/** Waits until every in-flight handler settled or the grace period ran out; returns how many are left. */
export async function drain(inFlight: ReadonlySet<Promise<unknown>>, graceMs = CLOSE_GRACE_MS): Promise<number> {
  const deadline = Date.now() + graceMs;
  while (inFlight.size > 0 && Date.now() < deadline) await within(Promise.allSettled([...inFlight]), deadline - Date.now());
  return inFlight.size;
}
