// The TypeScript client built as it is published (clients/typescript/dist: `tsc -p
// clients/typescript`), for tests that run the built package: on the machine's Node 20, in a
// browser, from the examples. Built once per source change, under a lock, since test files run in
// parallel.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
export const CLIENT_DIR = path.join(ROOT, 'clients', 'typescript');
export const CLIENT_DIST = path.join(CLIENT_DIR, 'dist');
const STAMP = path.join(CLIENT_DIST, '.source-hash');
const LOCK = path.join(CLIENT_DIR, '.build-lock');

function sourceHash(): string {
  const hash = createHash('sha256');
  const files = [path.join(CLIENT_DIR, 'tsconfig.json'), path.join(CLIENT_DIR, 'package.json')];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else files.push(p);
    }
  };
  walk(path.join(CLIENT_DIR, 'src'));
  for (const f of files) hash.update(f).update(fs.readFileSync(f));
  return hash.digest('hex');
}

async function lock(): Promise<() => void> {
  for (let i = 0; ; i++) {
    try {
      fs.mkdirSync(LOCK);
      return () => fs.rmSync(LOCK, { recursive: true, force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // a build left behind by a killed run is older than any real build takes
      const since = fs.statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs;
      if (since !== undefined && Date.now() - since > 120_000) fs.rmSync(LOCK, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** Builds clients/typescript/dist unless it is already built from the current sources. */
export async function ensureClientBuilt(): Promise<string> {
  const release = await lock();
  try {
    const hash = sourceHash();
    if (fs.existsSync(STAMP) && fs.readFileSync(STAMP, 'utf8') === hash) return CLIENT_DIST;
    fs.rmSync(CLIENT_DIST, { recursive: true, force: true });
    await promisify(execFile)(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', CLIENT_DIR], { cwd: ROOT });
    fs.writeFileSync(STAMP, hash);
    return CLIENT_DIST;
  } finally {
    release();
  }
}
