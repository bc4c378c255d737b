import type { Handler } from './types.ts';
import { readiness } from '../lib/readiness.ts';

/** GET /health: 200 when the database and the queue answer, 503 naming the one that does not. */
export const getHealth: Handler<'getHealth'> = async ({ app, h }) => {
  const r = await readiness(app);
  const body = { status: r.ready ? 'ok' : 'unavailable', database: r.database, queue: r.queue };
  if (r.ready) return body;
  return h.response({ ...body, detail: r.detail }).code(503);
};
