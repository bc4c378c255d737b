// Operational routes, for orchestrators and scrapers rather than API clients, so they are plain
// hapi routes outside the spec (README "Operations"): served on the API port and on a worker's
// health port (WORKER_HEALTH_PORT), where there is no spec, no credential plugin and no docs.
//   GET /livez    the process is alive (answers without touching any dependency)
//   GET /readyz   the database and the queue answer; 503 naming the one that does not
//   GET /metrics  Prometheus text format; Authorization: Bearer $METRICS_TOKEN
import crypto from 'node:crypto';
import type { Plugin, Request, ResponseToolkit } from '@hapi/hapi';
import type { App } from '../lib/context.ts';
import { readiness } from '../lib/readiness.ts';
import { codeForStatus } from '../lib/errors.ts';

export interface OpsOptions {
  app: App;
  /**
   * Without a METRICS_TOKEN: true serves /metrics to anyone (the worker's health port, which the
   * operator binds to a private address), false refuses everyone (the public API port).
   */
  openMetricsWithoutToken: boolean;
}

function tokenMatches(header: unknown, token: string): boolean {
  const m = typeof header === 'string' ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  if (!m) return false;
  // Compared as digests: equal lengths for timingSafeEqual, and no early exit on a prefix.
  const given = crypto.createHash('sha256').update(m[1]!).digest();
  const wanted = crypto.createHash('sha256').update(token).digest();
  return crypto.timingSafeEqual(given, wanted);
}

function refused(h: ResponseToolkit, detail: string) {
  return h.response({ detail, code: codeForStatus(401) }).code(401).header('WWW-Authenticate', 'Bearer realm="metrics"');
}

export const opsPlugin: Plugin<OpsOptions> = {
  name: 'mediagate-ops',
  register(server, { app, openMetricsWithoutToken }) {
    const token = app.config.metricsToken;
    server.route({
      method: 'GET',
      path: '/livez',
      options: { auth: false },
      handler: () => ({ status: 'ok' }),
    });
    server.route({
      method: 'GET',
      path: '/readyz',
      options: { auth: false },
      handler: async (_request: Request, h: ResponseToolkit) => {
        const r = await readiness(app);
        const body = { status: r.ready ? 'ok' : 'unavailable', database: r.database, queue: r.queue };
        if (r.ready) return body;
        return h.response({ ...body, detail: r.detail, code: codeForStatus(503) }).code(503);
      },
    });
    server.route({
      method: 'GET',
      path: '/metrics',
      options: { auth: false },
      handler: async (request: Request, h: ResponseToolkit) => {
        if (token !== undefined) {
          if (!tokenMatches(request.headers.authorization, token)) return refused(h, 'metrics need Authorization: Bearer <METRICS_TOKEN>');
        } else if (!openMetricsWithoutToken) {
          return refused(h, 'metrics are not served on this port without METRICS_TOKEN (set it, or scrape a worker health port)');
        }
        const text = await app.metrics.registry.metrics();
        return h.response(text).type(app.metrics.registry.contentType).header('Cache-Control', 'no-store');
      },
    });
  },
};
