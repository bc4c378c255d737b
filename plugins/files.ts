// Serves stored outputs and the sandbox's sample files at stable URLs under /files/.
// Output URLs are capability URLs: unguessable (they carry the prediction id), but anyone holding
// one can fetch the file, so they are not marked publicly cacheable: a shared cache (a CDN, a
// corporate proxy) must not keep and hand them out. Every file is served with `nosniff` and a
// sandboxing CSP, so even a file a browser might take for markup never runs as the API's origin.
// On S3-compatible storage an upload's object is checked against its address before the redirect
// (handlers/media.ts checkServedUpload): a presigned PUT without a declared size bounds nothing.
import path from 'node:path';
import Boom from '@hapi/boom';
import type { Plugin, RouteExtObject, RouteOptions } from '@hapi/hapi';
import inert from '@hapi/inert';
import { SANDBOX_DIR, SANDBOX_FILE_NAMES } from '../lib/storage.ts';
import type { Storage } from '../lib/storage.ts';
import { NotFoundError, UnavailableError } from '../lib/errors.ts';

/**
 * S3-compatible storage: /files/<key> redirects to a presigned GET of this lifetime. The redirect
 * itself is not cached (a cached redirect would outlive its signature).
 */
export const PRESIGNED_GET_SECONDS = 3600;

/** browsers may keep a file a day; shared caches may not keep it at all (Cache-Control: private) */
export const FILE_MAX_AGE_MS = 24 * 3600 * 1000;

/** The most a file system takes: a name (between slashes) of 255 bytes, a path of 1024 (macOS; Linux takes 4096). */
const NAME_MAX_BYTES = 255;
const PATH_MAX_BYTES = 1024;

/** Whether a path under a served directory is one no file can have: opening it would fail with ENAMETOOLONG. */
export function impossibleFilePath(rest: string): boolean {
  return Buffer.byteLength(rest) > PATH_MAX_BYTES || rest.split('/').some((name) => Buffer.byteLength(name) > NAME_MAX_BYTES);
}

/**
 * For a route serving a directory (`{path*}`): a path no file can have is a missing file, 404 as
 * any other. inert would try to open it and answer the file system's ENAMETOOLONG as a 500.
 */
export const missingIfImpossible: RouteExtObject = {
  method(request, h) {
    if (impossibleFilePath(String(request.params.path ?? ''))) throw Boom.notFound();
    return h.continue;
  },
};

/**
 * /files/outputs/ and /files/uploads/ on local storage: a path that names no stored file (a
 * directory: fewer than the two names `<id>/<file>`, or an empty, `.` or `..` name) is the 404 of a
 * missing file, as one no file can have is (impossibleFilePath). inert would answer an existing
 * directory, or a path leaving its root, 403, which tells an existing prediction or upload id from an unknown one.
 */
const storedFilesOnly: RouteExtObject = {
  method(request, h) {
    const rest = String(request.params.path ?? '');
    const names = rest.split('/');
    if (impossibleFilePath(rest) || names.length < 2 || names.some((n) => n === '' || n === '.' || n === '..')) throw Boom.notFound();
    return h.continue;
  },
};

/** /files/sandbox/ serves the sandbox's samples only: the script that makes them sits beside them. */
const samplesOnly: RouteExtObject = {
  method(request, h) {
    if (!SANDBOX_FILE_NAMES.has(String(request.params.path ?? ''))) throw Boom.notFound();
    return h.continue;
  },
};

const safety: Pick<RouteOptions, 'auth' | 'cache' | 'security' | 'ext'> = {
  auth: false,
  cache: { expiresIn: FILE_MAX_AGE_MS, privacy: 'private' },
  security: { noSniff: true, hsts: false, xframe: 'deny', xss: 'disabled', noOpen: true, referrer: 'no-referrer' },
  ext: {
    onPreHandler: missingIfImpossible,
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

/**
 * `checkUpload`: on S3-compatible storage, what an upload's key must pass before its redirect (the
 * upload exists and its object is one its address allows: handlers/media.ts checkServedUpload);
 * `checkOutput`, an output's (its prediction's files are still kept: checkServedOutput).
 */
export const filesPlugin: Plugin<{
  storageDir: string; storage?: Pick<Storage, 'presignDownload'>; checkUpload?: (key: string) => Promise<void>; checkOutput?: (key: string) => Promise<void>; log?: { warn(o: object, msg: string): void };
}> = {
  name: 'mediagate-files',
  dependencies: ['mediagate-errors'],
  async register(server, { storageDir, storage, checkUpload, checkOutput, log }) {
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
              if (dir === 'uploads' && checkUpload) await checkUpload(`${dir}/${rest}`);
              if (dir === 'outputs' && checkOutput) await checkOutput(`${dir}/${rest}`);
              let location: string;
              try {
                location = await presign(`${dir}/${rest}`, PRESIGNED_GET_SECONDS);
              } catch (err) {
                // signing needs the store's credentials, which the SDK may have to fetch (an instance role)
                log?.warn({ err: (err as Error).message }, 'storage: could not sign a file\'s address');
                throw new UnavailableError('the file storage is unavailable (could not sign the file\'s address); retry later');
              }
              return h.redirect(location).code(302);
            },
          },
        });
        continue;
      }
      server.route({
        method: 'GET',
        path: `/files/${dir}/{path*}`,
        options: {
          ...safety,
          ext: { ...safety.ext, onPreHandler: storedFilesOnly },
          handler: { directory: { path: path.join(storageDir, dir), listing: false, index: false, redirectToSlash: false } },
        },
      });
    }
    server.route({
      method: 'GET',
      path: '/files/sandbox/{path*}',
      options: { ...safety, ext: { ...safety.ext, onPreHandler: samplesOnly }, handler: { directory: { path: SANDBOX_DIR, listing: false, index: false, redirectToSlash: false } } },
    });
  },
};
