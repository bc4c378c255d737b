// Local file storage for outputs. Files are written to a temporary name and renamed, so a
// reader never sees half a file; URLs are rendered from keys at read time, so changing
// PUBLIC_URL never breaks stored predictions.
import fs from 'node:fs/promises';
import path from 'node:path';
import crypto from 'node:crypto';
import type { MediaKind } from './media.ts';

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
  url(key: string): string;
  /** the sandbox's mock output for a kind of media */
  sandboxKey(kind: MediaKind): string;
}

export function createLocalStorage(root: string, publicUrl: string): Storage {
  return {
    async save(predictionId, index, file) {
      const ext = /^[a-z0-9]{1,8}$/.test(file.extension) ? file.extension : 'bin';
      const key = `outputs/${predictionId}/${index}.${ext}`;
      const target = path.join(root, key);
      await fs.mkdir(path.dirname(target), { recursive: true });
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
      await fs.writeFile(tmp, file.data);
      await fs.rename(tmp, target);
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
    url(key) {
      return `${publicUrl}/files/${key}`;
    },
    sandboxKey(kind) {
      return SANDBOX_SAMPLE[kind];
    },
  };
}
