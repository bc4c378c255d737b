// Many submits of one request at once: the wallet race the small-wallet tests run, for a user's
// key or a team's. Answers the statuses and waits until every accepted prediction completed.
import type { TestGateway } from './gateway.ts';
import { waitFor } from './services.ts';

export async function raceSubmits(gw: TestGateway, opts: { url: string; key: string; payload: object; attempts: number }) {
  const responses = await Promise.all(Array.from({ length: opts.attempts }, () => gw.server.inject({
    method: 'POST', url: opts.url, headers: { 'x-api-key': opts.key }, payload: opts.payload,
  })));
  const statuses = responses.map((r) => r.statusCode);
  const ids = responses.filter((r) => r.statusCode === 200).map((r) => (r.result as { request_id: string }).request_id);
  await waitFor(async () => {
    const rows = await gw.app.db('predictions').whereIn('id', ids).andWhere('status', 'completed');
    return rows.length === ids.length;
  }, { what: 'all accepted predictions to complete', timeoutMs: 30_000 });
  return { statuses, ids };
}
