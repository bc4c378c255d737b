// What may be uploaded (README "Uploads and the media library"): the filename's extension picks
// the content type and the media type; each media type has its own size limit (configuration).
// Transport-free: the upload-address handler, the local upload route and the S3 presigner use it.
import crypto from 'node:crypto';

export const UPLOAD_MEDIA_TYPES = ['image', 'video', 'audio'] as const;
export type UploadMediaType = (typeof UPLOAD_MEDIA_TYPES)[number];

/** Byte limits per media type (UPLOAD_MAX_BYTES_IMAGE, _VIDEO, _AUDIO). */
export type UploadLimits = Readonly<Record<UploadMediaType, number>>;

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = {
  image: 20 * 1024 * 1024,
  video: 500 * 1024 * 1024,
  audio: 100 * 1024 * 1024,
};

/**
 * The slowest an upload may arrive on average (bytes a second: 100 KiB/s, about 0.8 Mbit/s, a
 * poor mobile uplink), and the least time any upload gets. Between them they bound how long one
 * whole upload may hold its connection, however it keeps arriving.
 */
export const UPLOAD_MIN_BYTES_PER_SECOND = 100 * 1024;
export const UPLOAD_MIN_DEADLINE_MS = 5 * 60_000;

/** How long a whole upload of `bytes` may take at most (ms): its size at UPLOAD_MIN_BYTES_PER_SECOND, never less than UPLOAD_MIN_DEADLINE_MS. */
export function uploadDeadlineMs(bytes: number): number {
  return Math.max(UPLOAD_MIN_DEADLINE_MS, Math.ceil((bytes * 1000) / UPLOAD_MIN_BYTES_PER_SECOND));
}

/**
 * How far an S3-compatible store's clock may run behind the gateway's: this long after its
 * `expires_at`, a presigned address takes no PUT any more.
 */
export const PRESIGNED_CLOCK_SKEW_MS = 5 * 60_000;

/**
 * How long after its `expires_at` an upload's file may still change: a PUT to the gateway's route
 * claimed just before may run its whole deadline (the largest limit's), a presigned one may reach a
 * store whose clock runs behind. Retention leaves an upload alone until then.
 */
export function uploadSettledAfterMs(limits: UploadLimits): number {
  return uploadDeadlineMs(Math.max(...Object.values(limits))) + PRESIGNED_CLOCK_SKEW_MS;
}

/**
 * The accepted extensions. Anything else (including markup such as .html or .svg, which a browser
 * could run, and executables) is refused with 422: the library holds model inputs, not arbitrary files.
 */
export const UPLOAD_TYPES: Readonly<Record<string, { contentType: string; mediaType: UploadMediaType }>> = {
  png: { contentType: 'image/png', mediaType: 'image' },
  jpg: { contentType: 'image/jpeg', mediaType: 'image' },
  jpeg: { contentType: 'image/jpeg', mediaType: 'image' },
  webp: { contentType: 'image/webp', mediaType: 'image' },
  gif: { contentType: 'image/gif', mediaType: 'image' },
  mp4: { contentType: 'video/mp4', mediaType: 'video' },
  webm: { contentType: 'video/webm', mediaType: 'video' },
  mov: { contentType: 'video/quicktime', mediaType: 'video' },
  mp3: { contentType: 'audio/mpeg', mediaType: 'audio' },
  wav: { contentType: 'audio/wav', mediaType: 'audio' },
  ogg: { contentType: 'audio/ogg', mediaType: 'audio' },
  m4a: { contentType: 'audio/mp4', mediaType: 'audio' },
  flac: { contentType: 'audio/flac', mediaType: 'audio' },
};

export interface UploadKind {
  extension: string;
  contentType: string;
  mediaType: UploadMediaType;
  /** the file name as stored: the client's, reduced to safe characters */
  safeName: string;
}

/** The kind of a filename, or undefined when its extension is missing or not accepted. */
export function uploadKind(filename: string): UploadKind | undefined {
  const base = filename.split(/[\\/]/).pop() ?? '';
  const m = /\.([A-Za-z0-9]{1,8})$/.exec(base);
  if (!m) return undefined;
  const extension = m[1]!.toLowerCase();
  const type = Object.hasOwn(UPLOAD_TYPES, extension) ? UPLOAD_TYPES[extension] : undefined;
  if (!type) return undefined;
  const stem = base.slice(0, -m[0].length).normalize('NFKD').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 80) || 'file';
  return { extension, ...type, safeName: `${stem}.${extension}` };
}

/** A fresh storage key for an upload: unguessable (the file URL is a capability URL, like outputs). */
export function newUploadKey(kind: UploadKind): string {
  return `uploads/${crypto.randomBytes(16).toString('hex')}/${kind.safeName}`;
}

/** The key of an upload under this storage's URL, or undefined when the URL is not one of its uploads. */
export function uploadKeyOfUrl(url: string, filesBase: string): string | undefined {
  if (!url.startsWith(`${filesBase}/uploads/`)) return undefined;
  const key = url.slice(filesBase.length + 1);
  return /^uploads\/[0-9a-f]{32}\/[A-Za-z0-9._-]+$/.test(key) ? key : undefined;
}
