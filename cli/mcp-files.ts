// Which local files the MCP server's upload_file may read. An agent's tool call names the path,
// and an agent can be steered by text it reads (a web page, a model's answer), so the server reads
// only media files under directories the user allowed: MEDIAGATE_MCP_UPLOAD_DIRS, and the roots
// the host shares (MCP "roots", the folders the user opened in it). Links are followed before the
// check, so a link inside an allowed directory reaches nothing outside it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError, EXIT } from './client.ts';

/** The kinds of file a model takes as an input (the gateway's upload route takes the same). */
export const MEDIA_EXTENSIONS: ReadonlySet<string> = new Set([
  'png', 'jpg', 'jpeg', 'webp', 'gif', 'mp4', 'webm', 'mov', 'mp3', 'wav', 'ogg', 'm4a', 'flac',
]);

export const UPLOAD_DIRS_ENV = 'MEDIAGATE_MCP_UPLOAD_DIRS';

/** The directories of MEDIAGATE_MCP_UPLOAD_DIRS (separated as PATH is), absolute. */
export function uploadDirsOf(value: string | undefined): string[] {
  return (value ?? '').split(path.delimiter).map((d) => d.trim()).filter(Boolean).map((d) => path.resolve(d));
}

/** The local directories of a host's roots (file:// URIs only). */
export function rootDirs(roots: ReadonlyArray<{ uri: string }>): string[] {
  const dirs: string[] = [];
  for (const r of roots) {
    try {
      if (r.uri.startsWith('file:')) dirs.push(fileURLToPath(r.uri));
    } catch { /* not a local path */ }
  }
  return dirs;
}

function inside(dir: string, file: string): boolean {
  const rel = path.relative(dir, file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

function realDir(dir: string): string | undefined {
  try {
    return fs.realpathSync(dir);
  } catch {
    return undefined;
  }
}

/**
 * `file` when it is a media file under one of `dirs` (after following links): its name, its size
 * and how to read its bytes (read only once the gateway has taken the size), open until `close`;
 * else a CliError saying why, and how to allow a directory.
 */
export function readAllowedFile(file: string, dirs: readonly string[]): { name: string; size: number; read: () => Buffer; close: () => void } {
  const allow = `upload_file reads only image, video and audio files under the directories the user allowed: set ${UPLOAD_DIRS_ENV} in the server's environment (directories separated by "${path.delimiter}"), or share the folder as a root of the host`;
  if (dirs.length === 0) throw new CliError(`${allow}; none is allowed now`, EXIT.usage);
  let real: string;
  try {
    real = fs.realpathSync(path.resolve(file));
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, EXIT.usage);
  }
  const roots = dirs.map(realDir).filter((d): d is string => d !== undefined);
  if (!roots.some((d) => inside(d, real))) throw new CliError(`${file} is not under an allowed directory (${dirs.join(', ')}): ${allow}`, EXIT.usage);
  const ext = path.extname(real).slice(1).toLowerCase();
  if (!MEDIA_EXTENSIONS.has(ext)) throw new CliError(`${file} is not an image, video or audio file (${[...MEDIA_EXTENSIONS].join(', ')}): ${allow}`, EXIT.usage);
  // opened now: the bytes read later are this file's, whatever is renamed or linked meanwhile
  let fd: number;
  let size: number;
  try {
    fd = fs.openSync(real, 'r');
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, EXIT.usage);
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new CliError(`${file} is not a file`, EXIT.usage);
    size = stat.size;
  } catch (err) {
    fs.closeSync(fd);
    if (err instanceof CliError) throw err;
    throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, EXIT.usage);
  }
  let open = true;
  const close = () => { if (open) { open = false; fs.closeSync(fd); } };
  return { name: path.basename(real), size, read: () => fs.readFileSync(fd), close };
}
