// Serves stored outputs and the sandbox's sample files at stable URLs under /files/.
// Output URLs are capability URLs: unguessable (they carry the prediction id), but anyone holding
// one can fetch the file, so they are not marked publicly cacheable: a shared cache (a CDN, a
// corporate proxy) must not keep and hand them out. Every file is served with `nosniff` and a
// sandboxing CSP, so even a file a browser might take for markup never runs as the API's origin.
import path from 'node:path';
import type { Plugin, RouteOptions } from '@hapi/hapi';
import inert from '@hapi/inert';
import { SANDBOX_DIR } from '../lib/storage.ts';
import type { Storage } from '../lib/storage.ts';
import { NotFoundError } from '../lib/errors.ts';

/**
 * S3-compatible storage: /files/<key> redirects to a presigned GET of this lifetime. The redirect
 * itself is not cached (a cached redirect would outlive its signature).
 */
export const PRESIGNED_GET_SECONDS = 3600;

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

export const filesPlugin: Plugin<{ storageDir: string; storage?: Pick<Storage, 'presignDownload'> }> = {
  name: 'mediagate-files',
  dependencies: ['mediagate-errors'],
  async register(server, { storageDir, storage }) {
    await server.register(inert);
    for (const dir of ['outputs', 'uploads']) {
      const presign = storage?.presignDownload;
      if (presign) {
        // every API process serves every file: the bucket holds them, the redirect is signed here
        server.route({
          method: 'GET',
          path: `/files/${dir}/{path*}`,
          options: {
            ...safety,
            cache: { otherwise: 'no-store' },
            handler: async (request, h) => {
              const rest = String(request.params.path ?? '');
              if (!/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(rest) || rest.split('/').includes('..')) throw new NotFoundError('file not found');
              return h.redirect(await presign(`${dir}/${rest}`, PRESIGNED_GET_SECONDS)).code(302);
            },
          },
        });
        continue;
      }
      server.route({
        method: 'GET',
        path: `/files/${dir}/{path*}`,
        options: { ...safety, handler: { directory: { path: path.join(storageDir, dir), listing: false, index: false, redirectToSlash: false } } },
      });
    }
    server.route({
      method: 'GET',
      path: '/files/sandbox/{path*}',
      options: { ...safety, handler: { directory: { path: SANDBOX_DIR, listing: false, index: false, redirectToSlash: false } } },
    });
  },
};
