// The HTTP side: a hapi server with the gateway's plugins in their declared order:
// errors -> credentials (api-key, session; oauth with the token endpoint) -> spec routes
// (scope check, validation, handlers) -> files and docs.
import Hapi from '@hapi/hapi';
import type { Server } from '@hapi/hapi';
import type { App } from './app.ts';
import { errorsPlugin } from './plugins/errors.ts';
import { authPlugin } from './plugins/auth.ts';
import { oauthPlugin } from './plugins/oauth.ts';
import { specRoutesPlugin } from './plugins/spec-routes.ts';
import { filesPlugin } from './plugins/files.ts';
import { docsPlugin } from './plugins/docs.ts';
import { corsSettings } from './plugins/cors.ts';

export async function createServer(app: App): Promise<Server> {
  const server = Hapi.server({
    port: app.config.port,
    host: app.config.host,
    routes: {
      // A body is read only where the spec declares one; everywhere else the cap is what hapi enforces.
      payload: { maxBytes: app.config.maxBodyBytes },
      timeout: { server: 30_000, socket: 60_000 },
      response: { emptyStatusCode: 204 },
      // CORS_ORIGINS (plugins/cors.ts): hapi answers every route's preflight from these settings.
      cors: corsSettings(app.config.corsOrigins),
    },
    router: { stripTrailingSlash: true },
    load: { sampleInterval: 0 },
  });
  await server.register([
    { plugin: errorsPlugin, options: { log: app.log, payloadTimeoutMs: app.config.payloadTimeoutMs, trustedProxies: app.config.trustedProxies } },
    { plugin: authPlugin, options: { app } },
    // before spec-routes: its routes name the 'oauth' strategy
    { plugin: oauthPlugin, options: { app } },
    { plugin: filesPlugin, options: { storageDir: app.config.storageDir } },
    { plugin: docsPlugin, options: { document: app.spec.document, publicUrl: app.config.publicUrl } },
    { plugin: specRoutesPlugin, options: { app, strategies: new Set(['api-key', 'session', 'oauth']) } },
  ]);
  return server;
}
