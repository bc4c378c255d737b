// The gateway's own upload route (local storage; README "Uploads and the media library"):
// PUT /uploads/{token}, the `upload_url` getFileUploadUrl hands out. The token is the only
// credential (single-use, expiring, stored as its SHA-256): unknown 404, expired 410, already
// used (or a PUT in progress) 409, another content type 415, over the upload's limit 413. The
// body streams to storage and is renamed into place whole, so a refused body leaves nothing.
// On S3-compatible storage the client PUTs to the store's presigned address instead, and this
// route is not registered.
import type { Plugin, Request, ResponseToolkit } from '@hapi/hapi';
import { PassThrough } from 'node:stream';
import type { Readable } from 'node:stream';
import type { App } from '../lib/context.ts';
import { ConflictError, GoneError, InvalidInputError, NotFoundError, PayloadTooLargeError, UnavailableError, UnsupportedMediaTypeError } from '../lib/errors.ts';
import { sha256Hex } from '../lib/secrets.ts';
import { claimUpload, completeUpload, findUploadByTokenHash, releaseUpload } from '../db/uploads.ts';
import { uploadDeadlineMs } from '../lib/uploads.ts';
import type { UploadLimits } from '../lib/uploads.ts';
import { ANSWER_TIMEOUT_MS, SOCKET_IDLE_MS } from './responses.ts';

const TOKEN = /^mgu_[A-Za-z0-9_-]{43}$/;

async function put(app: App, request: Request, h: ResponseToolkit) {
  const token = String(request.params.token ?? '');
  const upload = TOKEN.test(token) ? await findUploadByTokenHash(app.db, sha256Hex(token)) : undefined;
  if (!upload) throw new NotFoundError('upload address not found');
  if (upload.expiresAt <= app.clock()) throw new GoneError('this upload address has expired; ask for a new one (getFileUploadUrl)');
  if (upload.state !== 'pending') throw new ConflictError('this upload address has already been used');
  const type = String(request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== upload.contentType) {
    throw new UnsupportedMediaTypeError(`this upload address takes ${upload.contentType}, not ${type || 'a body without content-type'}`);
  }
  const length = request.headers['content-length'] === undefined ? null : Number(request.headers['content-length']);
  if (length !== null && length > upload.maxBytes) {
    throw new PayloadTooLargeError(`${upload.mediaType} uploads may be at most ${upload.maxBytes} bytes; this body has ${length}`);
  }
  if (upload.sizeBytes !== null && length !== null && length !== upload.sizeBytes) {
    throw new InvalidInputError(`this upload address was issued for ${upload.sizeBytes} bytes; this body has ${length}`);
  }
  if (!(await claimUpload(app.db, upload.id, app.clock()))) {
    // lost the race to another PUT, or the address expired in between
    if (upload.expiresAt <= app.clock()) throw new GoneError('this upload address has expired; ask for a new one (getFileUploadUrl)');
    throw new ConflictError('this upload address has already been used');
  }
  let bytes: number;
  try {
    bytes = await app.storage.writeUpload!(upload.storageKey, bodyOf(request.payload as Readable), upload.sizeBytes ?? upload.maxBytes);
    if (upload.sizeBytes !== null && bytes !== upload.sizeBytes) {
      await app.storage.removeUpload(upload.storageKey);
      throw new InvalidInputError(`this upload address was issued for ${upload.sizeBytes} bytes; this body had ${bytes}`);
    }
  } catch (err) {
    // the address stays usable until it expires: a broken or refused body is not its one use
    await releaseUpload(app.db, upload.id);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') {
      app.log.warn({ err: (err as Error).message, key: upload.storageKey }, 'storage: no space left for an upload');
      throw new UnavailableError('the file storage is full; retry later');
    }
    throw err;
  }
  await completeUpload(app.db, upload.id, bytes, app.clock());
  return h.response({ file_url: app.storage.url(upload.storageKey), content_type: upload.contentType, size_bytes: bytes }).code(200);
}

/**
 * The body as a stream of its own for storage. The request's failure (its body cut by the payload
 * timeout, plugins/responses.ts) fails the write; a failed write (a body over the limit) ends
 * that stream, not the request, whose socket still carries the answer.
 */
function bodyOf(req: Readable): Readable {
  const body = new PassThrough();
  const fail = (err: Error) => body.destroy(err);
  req.once('error', fail);
  body.once('close', () => {
    req.removeListener('error', fail);
    req.unpipe(body);
  });
  return req.pipe(body);
}

/** The longest a whole upload may take (ms): the largest limit of any media type at the slowest rate allowed. */
export function longestUploadMs(limits: UploadLimits): number {
  return uploadDeadlineMs(Math.max(...Object.values(limits)));
}

/** The body's size as its Content-Length announces it (within the route's limit by then), or null without one. */
function announcedBytes(request: Request): number | null {
  const length = request.headers['content-length'];
  return length === undefined ? null : Number(length);
}

export const uploadsPlugin: Plugin<{ app: App }> = {
  name: 'mediagate-uploads',
  dependencies: ['mediagate-errors'],
  register(server, { app }) {
    if (!app.storage.writeUpload) return;
    const largest = Math.max(...Object.values(app.config.uploadLimits));
    const longestMs = longestUploadMs(app.config.uploadLimits);
    server.route({
      method: 'PUT',
      path: '/uploads/{token}',
      options: {
        auth: false,
        // the body streams to storage; its own limit (per upload) is checked while it arrives, and
        // a large video may take longer than PAYLOAD_TIMEOUT_MS: 408 only when it stops arriving.
        // A Content-Length over every upload's limit is 413 on the header (plugins/responses.ts,
        // as on every route), before anything reads the body.
        payload: { output: 'stream', parse: false, maxBytes: largest, timeout: false },
        // The whole body may take as long as its announced size (without one: the largest limit)
        // takes at the slowest rate allowed (uploadDeadlineMs), then 408; the server's answer and
        // socket deadlines get that on top, as a route that waits by design does, so they never
        // cut an upload that is still within it.
        app: { payloadTimeout: 'idle', payloadDeadlineMs: (request) => uploadDeadlineMs(announcedBytes(request) ?? largest) },
        timeout: { server: ANSWER_TIMEOUT_MS + longestMs, socket: SOCKET_IDLE_MS + longestMs },
        handler: (request, h) => put(app, request, h),
      },
    });
  },
};
