// The HTTP side: a hapi server with the gateway's plugins: errors, one credential plugin per
// security scheme (api-key, session; oauth with the token endpoint), spec routes (scope check,
// validation, policies, handlers), files and docs. Their order is declared by each plugin's
// dependencies, not by the order of this list. Beside them: the request log (a line per request,
// request ids, HTTP metrics; its onRequest step names the request before embed's and errors')
// and the operational routes (/livez, /readyz, /metrics).
import http from 'node:http';
import Hapi from '@hapi/hapi';
import type { Server, ServerOptions } from '@hapi/hapi';
import type { App } from './app.ts';
import { agentEmbedCodePlugin, apiKeyPlugin, embedCodePlugin, embedPolicyPlugin, sessionPlugin, whitelabelPlugin } from './plugins/credentials.ts';
import { oauthPlugin } from './plugins/oauth.ts';
import { specRoutesPlugin } from './plugins/spec-routes.ts';
import { filesPlugin } from './plugins/files.ts';
import { checkServedOutput, checkServedUpload } from './handlers/media.ts';
import { longestUploadMs, uploadsPlugin } from './plugins/uploads.ts';
import { docsPlugin } from './plugins/docs.ts';
import { dashboardPlugin } from './plugins/dashboard.ts';
import { ANSWER_TIMEOUT_MS, errorsPlugin, requestLogPlugin, SOCKET_IDLE_MS, transportSecurityHeaders, transportSecurityPlugin } from './plugins/responses.ts';
import { opsPlugin } from './plugins/ops.ts';
import { corsSettings } from './plugins/cors.ts';

/**
 * The HTTP listener hapi serves on: Node's own but for its Host check. Node answers an HTTP/1.1
 * request without Host with a bare 400 (no body); the errors plugin refuses the same requests
 * with its JSON 400 instead (plugins/responses.ts MISSING_HOST_DETAIL), before any step but the
 * request log's (which only names the request) sees them. `requestTimeoutMs` replaces Node's
 * bound on receiving a whole request (300 s), which cuts a body that is still arriving: where the
 * gateway takes uploads, it must outlast the longest one (every other body has its payload
 * timeout, PAYLOAD_TIMEOUT_MS).
 */
export function httpListener(requestTimeoutMs?: number): http.Server {
  return http.createServer({ requireHostHeader: false, ...(requestTimeoutMs !== undefined ? { requestTimeout: requestTimeoutMs } : {}) });
}

/** One plugin per credential kind; spec-routes maps the spec's security schemes to their strategies. */
export const credentialPlugins = [apiKeyPlugin, sessionPlugin, oauthPlugin, embedCodePlugin, agentEmbedCodePlugin];

/** The API server's hapi options (exported for test/bench/layers.ts, which builds the stack up layer by layer). */
export function serverOptions(app: App): ServerOptions {
  return {
    port: app.config.port,
    host: app.config.host,
    // the upload route (local storage only) lets a body arrive for up to longestUploadMs
    listener: httpListener(app.storage.writeUpload ? ANSWER_TIMEOUT_MS + longestUploadMs(app.config.uploadLimits) : undefined),
    routes: {
      // A body is read only where the spec declares one; everywhere else the cap is what hapi enforces.
      payload: { maxBytes: app.config.maxBodyBytes },
      timeout: { server: ANSWER_TIMEOUT_MS, socket: SOCKET_IDLE_MS },
      response: { emptyStatusCode: 204 },
      // CORS_ORIGINS (plugins/cors.ts): hapi answers every route's preflight from these settings.
      cors: corsSettings(app.config.corsOrigins),
    },
    router: { stripTrailingSlash: true },
    load: { sampleInterval: 0 },
    // hapi would also print a crashed handler's error, stack and all, to the console, past the
    // app's logger and its serializers; plugins/responses.ts logs it once ("request failed")
    debug: false,
  };
}

export async function createServer(app: App): Promise<Server> {
  const server = Hapi.server(serverOptions(app));
  const credentials = credentialPlugins;
  await server.register([
    { plugin: requestLogPlugin, options: { app } },
    { plugin: transportSecurityPlugin, options: { publicUrl: app.config.publicUrl } },
    { plugin: opsPlugin, options: { app, openMetricsWithoutToken: false } },
    {
      plugin: errorsPlugin,
      options: { log: app.log, payloadTimeoutMs: app.config.payloadTimeoutMs, trustedProxies: app.config.trustedProxies, socketHeaders: transportSecurityHeaders(app.config.publicUrl) },
    },
    { plugin: embedPolicyPlugin, options: { app } },
    { plugin: whitelabelPlugin, options: { app } },
    ...credentials.map((plugin) => ({ plugin, options: { app } })),
    { plugin: specRoutesPlugin, options: { app, credentials } },
    { plugin: filesPlugin, options: { storageDir: app.config.storageDir, storage: app.storage, checkUpload: (key: string) => checkServedUpload(app, key), checkOutput: (key: string) => checkServedOutput(app, key), log: app.log } },
    { plugin: uploadsPlugin, options: { app } },
    { plugin: docsPlugin, options: { document: () => app.spec.document, publicUrl: app.config.publicUrl } },
    { plugin: dashboardPlugin, options: { publicUrl: app.config.publicUrl } },
  ]);
  return server;
}

/**
 * A worker's health port (WORKER_HEALTH_PORT): /livez, /readyz and /metrics only, with the same
 * request log and JSON errors. Its /metrics is open unless METRICS_TOKEN is set: bind it to a
 * private address (WORKER_HEALTH_HOST).
 */
export async function createHealthServer(app: App, port: number): Promise<Server> {
  const server = Hapi.server({ port, host: app.config.workerHealthHost, listener: httpListener(), load: { sampleInterval: 0 }, router: { stripTrailingSlash: true } });
  await server.register([
    { plugin: requestLogPlugin, options: { app } },
    { plugin: errorsPlugin, options: { log: app.log } },
    { plugin: opsPlugin, options: { app, openMetricsWithoutToken: true } },
  ]);
  return server;
}
