// Whether this process's dependencies answer: the database and the queue. Shared by GET /health
// (the spec's, kept for compatibility) and GET /readyz (plugins/ops.ts).
import type { App } from './context.ts';
import { TIMED_OUT, within } from './within.ts';

async function probe(check: () => Promise<unknown>, timeoutMs: number): Promise<boolean> {
  try {
    return (await within(check(), timeoutMs)) !== TIMED_OUT;
  } catch {
    return false;
  }
}

export interface Readiness {
  ready: boolean;
  database: 'ok' | 'unreachable';
  queue: 'ok' | 'unreachable';
  /** e.g. "queue unreachable", "database and queue unreachable"; absent when ready */
  detail?: string;
}

/** Asks both at once, each bounded by timeoutMs. */
export async function readiness(app: Pick<App, 'db' | 'queue'>, timeoutMs = 2000): Promise<Readiness> {
  const [dbOk, queueOk] = await Promise.all([probe(() => app.db.raw('select 1'), timeoutMs), probe(() => app.queue.ping(), timeoutMs)]);
  const r: Readiness = { ready: dbOk && queueOk, database: dbOk ? 'ok' : 'unreachable', queue: queueOk ? 'ok' : 'unreachable' };
  if (!r.ready) r.detail = `${[dbOk ? null : 'database', queueOk ? null : 'queue'].filter(Boolean).join(' and ')} unreachable`;
  return r;
}
