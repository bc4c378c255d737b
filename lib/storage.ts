// Local file storage for outputs. Files are written to a temporary name and renamed, so a
// reader never sees half a file; URLs are rendered from keys at read time, so changing
// PUBLIC_URL never breaks stored predictions.
import fs from 'node:fs/promises';
import path from 'node:path';
import crypto from 'node:crypto';
import { createWriteStream, mkdir, rename, writeFile } from 'node:fs';
import { promisify } from 'node:util';
import { Transform } from 'node:stream';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { MediaKind } from './media.ts';
import { PayloadTooLargeError } from './errors.ts';
import { UPLOAD_TYPES } from './uploads.ts';

/**
 * One output file to store, the shape of an adapter's `AdapterFile` (workers/adapters/types.ts):
 * bytes, or a temporary file that save() moves into place. Only `extension` decides the key.
 */
export type StoredFile = { contentType: string; extension: string; nsfw?: boolean }
  & ({ data: Uint8Array; path?: undefined } | { path: string; data?: undefined });

/** the sandbox's sample outputs (workers/sandbox/, next to the script that makes them) */
export const SANDBOX_DIR = path.join(import.meta.dirname, '..', 'workers', 'sandbox');

const SANDBOX_SAMPLE: Readonly<Record<MediaKind, string>> = {
  image: 'sandbox/sample.png',
  video: 'sandbox/sample.mp4',
  audio: 'sandbox/sample.wav',
  model3d: 'sandbox/sample.glb',
  text: 'sandbox/sample.txt',
};

/** the file names /files/sandbox/ serves: the samples, never anything else in their directory */
export const SANDBOX_FILE_NAMES: ReadonlySet<string> = new Set(Object.values(SANDBOX_SAMPLE).map((key) => key.slice('sandbox/'.length)));

export interface Storage {
  /** writes one output file and returns its key */
  save(predictionId: string, index: number, file: StoredFile): Promise<string>;
  /** where adapters write downloads before save() moves them into place (same file system) */
  tempDir: string;
  /** removes temporary downloads older than `olderThanMs` (left by a worker that died); returns how many */
  removeStaleTemporary(olderThanMs: number, now?: number): Promise<number>;
  /**
   * removes a prediction's stored outputs (retention); only keys under its own `outputs/<id>/`
   * are touched (never a sandbox sample); a file already gone counts as removed. Returns how many keys it removed.
   */
  removeOutputs(predictionId: string, keys: readonly string[]): Promise<number>;
  /**
   * removes everything stored under `outputs/<predictionId>/`, whatever the keys (files a run
   * stored before its prediction failed or was cancelled, which no row lists), and nothing outside
   * it; throws on an id that is not one (`..`, a slash). Only for a prediction that cannot complete
   * any more, or with `keep`, the keys its completed row lists: every other file goes (what an
   * earlier attempt stored under other names). Returns how many files it removed (0: nothing was
   * stored, or only what is kept).
   */
  removeAllOutputs(predictionId: string, keep?: readonly string[]): Promise<number>;
  url(key: string): string;
  /** the sandbox's mock output for a kind of media */
  sandboxKey(kind: MediaKind): string;
  /** `local`: files on this machine's disk, served by plugins/files.ts; `s3`: an S3-compatible bucket (lib/storage-s3.ts) */
  kind: 'local' | 's3';
  /** size and content type of a stored file (an upload), or null when nothing is stored under the key */
  stat(key: string): Promise<{ sizeBytes: number; contentType: string | null } | null>;
  /** removes one uploaded file (keys under `uploads/` only; anything else is ignored); a file already gone is fine */
  removeUpload(key: string): Promise<void>;
  /**
   * Local only: writes an upload arriving as a stream (the gateway's upload route), refusing
   * (PayloadTooLargeError, nothing kept) a body longer than maxBytes. Returns the bytes written.
   */
  writeUpload?(key: string, body: Readable, maxBytes: number): Promise<number>;
  /**
   * S3 only: a presigned PUT address for `key`, content type (and size, when known) bound into the
   * signature, valid for `expiresInSeconds`; `headers` are the ones the client must send.
   */
  presignUpload?(key: string, contentType: string, sizeBytes: number | null, expiresInSeconds: number): Promise<{ url: string; headers: Record<string, string> }>;
  /** S3 only: a short-lived GET address of a stored file (the /files/ route redirects to it) */
  presignDownload?(key: string, expiresInSeconds: number): Promise<string>;
}

/** a prediction id that names one directory under `outputs/`: no slash, no `..` (removeAllOutputs) */
export function assertPredictionId(id: string): void {
  if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/.test(id) || id.includes('..')) throw new Error(`not a prediction id: ${JSON.stringify(id)}`);
}

/**
 * keys of uploads: `uploads/<32 hex>/<safe name>` (lib/uploads.ts newUploadKey). The name has no
 * slash, so only a name of `.` or `..` could leave the upload's directory; dots inside a name
 * (`my..cat.png`, which a client's file name may give) are an ordinary file name.
 */
export const isUploadKey = (key: string): boolean => /^uploads\/[0-9a-f]{32}\/(?!\.\.?$)[A-Za-z0-9._-]+$/.test(key);

/** Counts bytes through a pipeline and fails it past `maxBytes`. */
export function byteLimit(maxBytes: number): Transform & { bytes: number } {
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      t.bytes += chunk.length;
      if (t.bytes > maxBytes) done(new PayloadTooLargeError(`the file is larger than the ${maxBytes} bytes this upload allows`));
      else done(null, chunk);
    },
  }) as Transform & { bytes: number };
  t.bytes = 0;
  return t;
}

// An output's write, one per prediction, through fs's callback API: it moves a small file with
// less CPU than fs/promises, whose writeFile opens, writes and closes through a FileHandle.
const mkdirOut = promisify(mkdir);
const writeOut = promisify(writeFile);
const renameOut = promisify(rename);

/**
 * Removes a prediction's stored outputs (all of them, or all but `keep`: Storage.removeAllOutputs)
 * as a best effort: an info line when it removed some, a warning when the storage failed, and
 * never a rejection, so the outcome it follows stays what it is. `what` names the files in both lines.
 */
export async function removeOutputsLogged(
  storage: Pick<Storage, 'removeAllOutputs' | 'kind'>, log: { info(o: object, msg: string): void; warn(o: object, msg: string): void },
  id: string, what: string, opts: { keep?: readonly string[]; fields?: Record<string, unknown> } = {},
): Promise<void> {
  try {
    const removed = await storage.removeAllOutputs(id, opts.keep);
    if (removed > 0) log.info({ id, removed, ...opts.fields }, `removed ${what}`);
  } catch (err) {
    log.warn({ id, storage: storage.kind, err: (err as Error).message, ...opts.fields }, `could not remove ${what}`);
  }
}

export function createLocalStorage(root: string, publicUrl: string): Storage {
  return {
    async save(predictionId, index, file) {
      const ext = /^[a-z0-9]{1,8}$/.test(file.extension) ? file.extension : 'bin';
      const key = `outputs/${predictionId}/${index}.${ext}`;
      const target = path.join(root, key);
      await mkdirOut(path.dirname(target), { recursive: true });
      if (file.path !== undefined) {
        // A download already on disk: move it (a copy only when it sits on another file system).
        try {
          await fs.rename(file.path, target);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
          const tmp = `${target}.${crypto.randomBytes(6).toString('hex')}.tmp`;
          await fs.copyFile(file.path, tmp);
          await fs.rename(tmp, target);
          await fs.rm(file.path, { force: true });
        }
        return key;
      }
      const tmp = `${target}.${crypto.randomBytes(6).toString('hex')}.tmp`;
      await writeOut(tmp, file.data);
      await renameOut(tmp, target);
      return key;
    },
    tempDir: path.join(root, 'tmp'),
    async removeStaleTemporary(olderThanMs, now = Date.now()) {
      const dir = path.join(root, 'tmp');
      const names = await fs.readdir(dir).catch(() => [] as string[]);
      let removed = 0;
      for (const name of names) {
        const file = path.join(dir, name);
        const stat = await fs.stat(file).catch(() => null);
        if (stat?.isFile() && now - stat.mtimeMs > olderThanMs) {
          await fs.rm(file, { force: true });
          removed++;
        }
      }
      return removed;
    },
    async removeOutputs(predictionId, keys) {
      const prefix = `outputs/${predictionId}/`;
      let removed = 0;
      for (const key of keys) {
        if (!key.startsWith(prefix) || key.includes('..') || key.includes('\\')) continue;
        await fs.rm(path.join(root, key), { force: true });
        removed++;
      }
      // the prediction's directory, once empty (a leftover temporary file keeps it)
      await fs.rmdir(path.join(root, 'outputs', predictionId)).catch(() => undefined);
      return removed;
    },
    async removeAllOutputs(predictionId, keep = []) {
      assertPredictionId(predictionId);
      const dir = path.join(root, 'outputs', predictionId);
      const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return null;
        throw err;
      });
      if (entries === null) return 0;
      const files = entries.filter((e) => e.isFile());
      if (keep.length === 0) {
        // a save still under way may have its temporary file here: it goes too (its rename then fails)
        await fs.rm(dir, { recursive: true, force: true });
        return files.length;
      }
      const kept = new Set(keep.map((k) => path.join(root, k)));
      let removed = 0;
      for (const e of files) {
        const file = path.join(e.parentPath, e.name);
        if (kept.has(file)) continue;
        await fs.rm(file, { force: true });
        removed++;
      }
      return removed;
    },
    url(key) {
      return `${publicUrl}/files/${key}`;
    },
    sandboxKey(kind) {
      return SANDBOX_SAMPLE[kind];
    },
    kind: 'local',
    async stat(key) {
      if (!isUploadKey(key)) return null;
      const st = await fs.stat(path.join(root, key)).catch(() => null);
      if (!st?.isFile()) return null;
      const ext = /\.([a-z0-9]+)$/.exec(key)?.[1] ?? '';
      return { sizeBytes: st.size, contentType: Object.hasOwn(UPLOAD_TYPES, ext) ? UPLOAD_TYPES[ext]!.contentType : null };
    },
    async removeUpload(key) {
      if (!isUploadKey(key)) return;
      // the directory is this upload's alone (newUploadKey): with it goes a temporary file that a
      // PUT cut off by a crash left beside the file, which nothing else would ever remove
      await fs.rm(path.dirname(path.join(root, key)), { recursive: true, force: true });
    },
    async writeUpload(key, body, maxBytes) {
      if (!isUploadKey(key)) throw new Error(`not an upload key: ${key}`);
      const target = path.join(root, key);
      await fs.mkdir(path.dirname(target), { recursive: true });
      const tmp = `${target}.${crypto.randomBytes(6).toString('hex')}.tmp`;
      const limit = byteLimit(maxBytes);
      try {
        await pipeline(body, limit, createWriteStream(tmp, { flags: 'wx' }));
        await fs.rename(tmp, target);
      } catch (err) {
        await fs.rm(tmp, { force: true });
        throw err;
      }
      return limit.bytes;
    },
  };
}
