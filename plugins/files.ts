// Serves stored outputs and the sandbox's sample files at stable URLs under /files/.
// Output URLs are capability URLs: unguessable (they carry the prediction id), but anyone holding
// one can fetch the file, so they are not marked publicly cacheable: a shared cache (a CDN, a
// corporate proxy) must not keep and hand them out. Every file is served with `nosniff` and a
// sandboxing CSP, so even a file a browser might take for markup never runs as the API's origin.
import path from 'node:path';
import type { Plugin, RouteOptions } from '@hapi/hapi';
import inert from '@hapi/inert';
import { SANDBOX_DIR } from '../lib/storage.ts';

/** browsers may keep a file a day; shared caches may not keep it at all (Cache-Control: private) */
export const FILE_MAX_AGE_MS = 24 * 3600 * 1000;

const safety: Pick<RouteOptions, 'auth' | 'cache' | 'security' | 'ext'> = {
  auth: false,
  cache: { expiresIn: FILE_MAX_AGE_MS, privacy: 'private' },
  security: { noSniff: true, hsts: false, xframe: 'deny', xss: 'disabled', noOpen: true, referrer: 'no-referrer' },
  ext: {
    onPreResponse: {
      method(request, h) {
        const response = request.response;
        const csp = "default-src 'none'; sandbox";
        if ('isBoom' in response && response.isBoom) response.output.headers['content-security-policy'] = csp;
        else if ('header' in response) response.header('content-security-policy', csp);
        return h.continue;
      },
    },
  },
};

export const filesPlugin: Plugin<{ storageDir: string }> = {
  name: 'mediagate-files',
  dependencies: ['mediagate-errors'],
  async register(server, { storageDir }) {
    await server.register(inert);
    server.route({
      method: 'GET',
      path: '/files/outputs/{path*}',
      options: { ...safety, handler: { directory: { path: path.join(storageDir, 'outputs'), listing: false, index: false, redirectToSlash: false } } },
    });
    server.route({
      method: 'GET',
      path: '/files/sandbox/{path*}',
      options: { ...safety, handler: { directory: { path: SANDBOX_DIR, listing: false, index: false, redirectToSlash: false } } },
    });
  },
};
