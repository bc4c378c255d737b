// The bare hapi routes the benchmark compares the gateway with (test/bench/bare-hapi.ts, and the
// bottom layer of test/bench/layers.ts): no authentication, no database, no queue.
//   POST <postPath>   parses the JSON body, answers {"request_id": <uuid>, ...}
//   GET  <readPath>   answers a small JSON object with the id from path parameter `idParam`
import crypto from 'node:crypto';
import type { ServerRoute } from '@hapi/hapi';

export function bareRoutes(postPath: string, readPath: string, idParam: string): ServerRoute[] {
  return [
    {
      method: 'POST',
      path: postPath,
      options: {
        auth: false,
        payload: { parse: true, allow: 'application/json' },
        handler: (request) => {
          const body = request.payload as { prompt?: unknown } | null;
          return { request_id: crypto.randomUUID(), status: 'queued', prompt: typeof body?.prompt === 'string' ? body.prompt.length : 0 };
        },
      },
    },
    { method: 'GET', path: readPath, options: { auth: false, handler: (request) => ({ id: request.params[idParam], status: 'completed', outputs: ['https://example.com/a.png'] }) } },
  ];
}
