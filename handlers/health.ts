import type { Handler } from './types.ts';

async function probe(check: () => Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([check(), new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('timeout')), timeoutMs); })]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** GET /health: 200 when the database and the queue answer, 503 naming the one that does not. */
export const getHealth: Handler<'getHealth'> = async ({ app, h }) => {
  const [dbOk, queueOk] = await Promise.all([probe(() => app.db.raw('select 1'), 2000), probe(() => app.queue.ping(), 2000)]);
  const body = { status: dbOk && queueOk ? 'ok' : 'unavailable', database: dbOk ? 'ok' : 'unreachable', queue: queueOk ? 'ok' : 'unreachable' };
  if (dbOk && queueOk) return body;
  const down = [dbOk ? null : 'database', queueOk ? null : 'queue'].filter(Boolean).join(' and ');
  return h.response({ ...body, detail: `${down} unreachable` }).code(503);
};
