// Upload addresses and the media library (issue 10; README "Uploads and the media library").
// An upload address is the gateway's own single-use PUT route on local storage (plugins/uploads.ts)
// or a presigned PUT on S3-compatible storage; either way the file's key is recorded with its
// owner, so only that owner can register it as an asset, and deleting the asset removes the file.
import type { Handler } from './types.ts';
import type { MediaAsset } from '../db/media-assets.ts';
import { deleteMediaAsset as deleteAssetRow, findMediaAsset, insertMediaAsset, listMediaAssets as listAssetRows } from '../db/media-assets.ts';
import { findUploadByKey, findUploadByStorageKey, insertUpload, recordStoredSize } from '../db/uploads.ts';
import type { UploadRecord } from '../db/uploads.ts';
import { findPrediction, outputsState } from '../db/predictions/record.ts';
import { DomainError, NotFoundError, PayloadTooLargeError, UnavailableError, UnsupportedMediaTypeError, ValidationFailedError } from '../lib/errors.ts';
import type { App } from '../lib/context.ts';
import { newSecret, sha256Hex } from '../lib/secrets.ts';
import { newUploadKey, PRESIGNED_CLOCK_SKEW_MS, uploadKeyOfUrl, uploadKind, UPLOAD_TYPES } from '../lib/uploads.ts';
import { canSee } from './guards.ts';

/** prefix of the gateway's upload tokens (they travel in the upload URL) */
export const UPLOAD_TOKEN_PREFIX = 'mgu_';

/** A call to the storage (a bucket over the network, possibly): its failure is a 503 to retry, never a 500. */
async function storageCall<T>(app: App, what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof DomainError) throw err;
    app.log.warn({ err: (err as Error).message }, `storage: could not ${what}`);
    throw new UnavailableError(`the file storage is unavailable (could not ${what}); retry later`);
  }
}

// An upload's URL is rendered from its key at read time, like outputs, so PUBLIC_URL may change.
const assetView = (app: App, a: MediaAsset) => ({
  id: a.id,
  name: a.name,
  url: a.storageKey ? app.storage.url(a.storageKey) : a.url,
  media_type: a.mediaType,
  content_type: a.contentType,
  size_bytes: a.sizeBytes,
  request_id: a.requestId,
  team_id: a.teamId,
  created_at: new Date(a.createdAt).toISOString(),
});

/** GET /app/get_file_upload_url */
export const getFileUploadUrl: Handler<'getFileUploadUrl'> = async ({ app, caller, query }) => {
  const kind = uploadKind(query.filename);
  if (!kind) {
    throw new ValidationFailedError([{
      loc: ['query', 'filename'],
      msg: `the file name needs one of the accepted extensions: ${Object.keys(UPLOAD_TYPES).join(', ')}`,
      type: 'value_error',
    }]);
  }
  const maxBytes = app.config.uploadLimits[kind.mediaType];
  const sizeBytes = query.size_bytes ?? null;
  if (sizeBytes !== null && sizeBytes > maxBytes) {
    throw new PayloadTooLargeError(`${kind.mediaType} uploads may be at most ${maxBytes} bytes; this file has ${sizeBytes}`);
  }
  const now = app.clock();
  const ttl = app.config.uploadUrlTtlSeconds;
  const expiresAt = now + ttl * 1000;
  const key = newUploadKey(kind);
  let target: { url: string; headers: Record<string, string> };
  let tokenHash: string | null = null;
  if (app.storage.presignUpload) {
    const presign = app.storage.presignUpload;
    // signing needs the store's credentials, which the SDK may have to fetch (an instance role)
    target = await storageCall(app, 'sign the upload address', () => presign(key, kind.contentType, sizeBytes, ttl));
  } else {
    // the token is the upload route's only credential: stored hashed, shown once, in the URL
    const token = newSecret(UPLOAD_TOKEN_PREFIX);
    tokenHash = sha256Hex(token);
    target = { url: `${app.config.publicUrl}/uploads/${token}`, headers: { 'content-type': kind.contentType } };
  }
  await insertUpload(app.db, caller.owner, {
    tokenHash, storageKey: key, filename: query.filename, mediaType: kind.mediaType, contentType: kind.contentType, maxBytes, sizeBytes, expiresAt,
  }, now);
  return {
    upload_url: target.url,
    method: 'PUT' as const,
    headers: target.headers,
    file_url: app.storage.url(key),
    expires_at: new Date(expiresAt).toISOString(),
    content_type: kind.contentType,
    media_type: kind.mediaType,
    max_bytes: maxBytes,
  };
};

function nameOf(url: string): string {
  try {
    const last = new URL(url).pathname.split('/').filter(Boolean).pop();
    return last ? decodeURIComponent(last).slice(0, 255) : 'file';
  } catch {
    return 'file';
  }
}

/**
 * The upload's file as the storage holds it (null: nothing uploaded), held to its address. The
 * gateway's own route (local storage) enforced the limit and the type while the body arrived. A
 * presigned PUT (S3) without a declared size is bounded by nothing, and the address may be used
 * again, with another file, until it expires: so the object is read (a HEAD) each time the upload is
 * used, registered or fetched through its file URL, and its size recorded. An object over the
 * limit (413) or of another content type (415) is removed.
 */
async function storedUpload(app: App, upload: UploadRecord): Promise<{ sizeBytes: number } | null> {
  const key = upload.storageKey;
  const stored = await storageCall(app, 'read the uploaded file', () => app.storage.stat(key));
  if (!stored) return null;
  if (stored.sizeBytes > upload.maxBytes) {
    await storageCall(app, 'remove the uploaded file', () => app.storage.removeUpload(key));
    throw new PayloadTooLargeError(`the uploaded file has ${stored.sizeBytes} bytes; ${upload.mediaType} uploads may be at most ${upload.maxBytes}; it was removed`);
  }
  if (stored.contentType !== null && stored.contentType !== upload.contentType) {
    await storageCall(app, 'remove the uploaded file', () => app.storage.removeUpload(key));
    throw new UnsupportedMediaTypeError(`the uploaded file was sent as ${stored.contentType}, not ${upload.contentType}; it was removed`);
  }
  if (app.storage.presignUpload) await recordStoredSize(app.db, upload.id, stored.sizeBytes, app.clock());
  return { sizeBytes: stored.sizeBytes };
}

/**
 * Before /files/uploads/<key> redirects to the store (S3): the key must be an upload's, and its
 * object one its address allows (storedUpload), else 404 (a file over the limit or of another type
 * is removed first, and the answer says so). Not read again once it was read after the address expired.
 */
export async function checkServedUpload(app: App, key: string): Promise<void> {
  const upload = await findUploadByStorageKey(app.db, key);
  if (!upload) throw new NotFoundError('file not found');
  if (upload.completedAt !== null && upload.completedAt >= upload.expiresAt + PRESIGNED_CLOCK_SKEW_MS) return;
  let stored: { sizeBytes: number } | null;
  try {
    stored = await storedUpload(app, upload);
  } catch (err) {
    if (err instanceof PayloadTooLargeError || err instanceof UnsupportedMediaTypeError) throw new NotFoundError(`file not found: ${err.message}`);
    throw err;
  }
  if (!stored) throw new NotFoundError('file not found');
}

/**
 * Before /files/outputs/<prediction id>/<file> redirects to the store (S3): the prediction's
 * outputs must still be kept, else the gateway's own 404 saying why, not the store's XML one
 * behind a redirect.
 */
export async function checkServedOutput(app: App, key: string): Promise<void> {
  const id = key.split('/')[1] ?? '';
  const state = await outputsState(app.db, id);
  if (state === 'gone') throw new NotFoundError('file not found');
  if (state === 'expired') {
    const days = app.config.retention.outputDays;
    throw new NotFoundError(`file not found: this prediction's output files were removed${days === null ? '' : `, as every prediction's are ${days} days after it completed`}`);
  }
}

/** POST /app/media-library */
export const createMediaAsset: Handler<'createMediaAsset'> = async ({ app, caller, body }) => {
  const { owner } = caller;
  // the prediction must be one the caller sees: to a sandbox key a production prediction does not exist
  if (body.request_id !== undefined && !canSee(caller, await findPrediction(app.db, owner, body.request_id))) {
    throw new NotFoundError('prediction not found');
  }
  const filesBase = `${app.config.publicUrl}/files`;
  const name = body.name ?? nameOf(body.url);
  if (!body.url.startsWith(`${filesBase}/uploads/`)) {
    // a reference: a prediction output or a file elsewhere; the gateway stores nothing
    const a = await insertMediaAsset(app.db, owner, {
      name, url: body.url, mediaType: body.media_type, contentType: body.content_type ?? null, sizeBytes: body.size_bytes ?? null,
      requestId: body.request_id ?? null, storageKey: null, uploadId: null,
    }, app.clock());
    return assetView(app, a);
  }
  const key = uploadKeyOfUrl(body.url, filesBase);
  const upload = key ? await findUploadByKey(app.db, owner, key) : undefined;
  if (!key || !upload) throw new NotFoundError('upload not found');
  const stored = await storedUpload(app, upload);
  if (!stored) throw new NotFoundError('upload not found: nothing has been uploaded to this address yet');
  const a = await insertMediaAsset(app.db, owner, {
    name: body.name ?? upload.filename.split(/[\\/]/).pop()!.slice(0, 255), url: app.storage.url(key), mediaType: upload.mediaType,
    contentType: upload.contentType, sizeBytes: stored.sizeBytes, requestId: body.request_id ?? null, storageKey: key, uploadId: upload.id,
  }, app.clock());
  return assetView(app, a);
};

/** GET /app/media-library */
export const listMediaAssets: Handler<'listMediaAssets'> = async ({ app, caller, query }) => {
  const page = query.page ?? 1;
  const pageSize = query.page_size ?? 24;
  const mediaType = query.media_type === 'all' || query.media_type === null || query.media_type === undefined ? null : query.media_type;
  const search = query.search ? query.search : null;
  const { items, total } = await listAssetRows(app.db, caller.owner, { mediaType, search, page, pageSize });
  return { items: items.map((a) => assetView(app, a)), page, page_size: pageSize, total, has_more: page * pageSize < total };
};

/** DELETE /app/media-library/{asset_id} */
export const deleteMediaAsset: Handler<'deleteMediaAsset'> = async ({ app, caller, params }) => {
  const id = Number(params.asset_id);
  if (!Number.isSafeInteger(id)) throw new NotFoundError('media asset not found');
  const asset = await findMediaAsset(app.db, caller.owner, id);
  if (!asset) throw new NotFoundError('media asset not found');
  // The file first: if the storage fails, the asset stays and the delete can be retried.
  const key = asset.storageKey;
  if (key) await storageCall(app, 'remove the file', () => app.storage.removeUpload(key));
  if (!(await deleteAssetRow(app.db, caller.owner, id))) throw new NotFoundError('media asset not found');
  return { id, deleted: true };
};
