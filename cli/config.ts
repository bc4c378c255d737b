// The CLI's user configuration: the gateway's address and the API key `auth login` obtained, in
// one JSON file readable by its owner only (mode 0600, in a 0700 directory).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface StoredConfig {
  base_url?: string;
  api_key?: string;
  /** the id of the key `auth login` created, so `auth logout` can revoke it */
  key_id?: number;
  email?: string;
}

/** $MEDIAGATE_CONFIG, else $XDG_CONFIG_HOME/mediagate/config.json, else ~/.config/mediagate/config.json */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MEDIAGATE_CONFIG) return env.MEDIAGATE_CONFIG;
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return path.join(base, 'mediagate', 'config.json');
}

export function readConfig(file: string): StoredConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === 'object' ? parsed as StoredConfig : {};
  } catch {
    throw new Error(`${file} is not valid JSON; remove it or run \`mediagate auth logout\``);
  }
}

/** Whether the file's directory is the CLI's own (the default `mediagate` one), not one MEDIAGATE_CONFIG names. */
export function ownsConfigDir(env: NodeJS.ProcessEnv = process.env): boolean {
  return !env.MEDIAGATE_CONFIG;
}

/** POSIX modes; on Windows a mode sets only the read-only flag, so none is applied there. */
const POSIX = process.platform !== 'win32';

/**
 * Writes the file with mode 0600 from the start (never readable by others, not even for a moment),
 * through a temporary file of an unguessable name that this call creates itself ('wx': a file or
 * link already there, planted in a shared directory to receive the key, is refused, never written).
 * The rename replaces a file made readable by others with the 0600 one. A directory it creates is
 * 0700; with `ownDir` (the CLI's own `mediagate` directory), an existing one is tightened to 0700
 * too. A directory MEDIAGATE_CONFIG names is the user's and keeps its mode.
 */
export function writeConfig(file: string, config: StoredConfig, { ownDir }: { ownDir: boolean }): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (POSIX && ownDir && (fs.statSync(dir).mode & 0o777) !== 0o700) fs.chmodSync(dir, 0o700);
  const tmp = `${file}.${crypto.randomBytes(8).toString('hex')}.tmp`;
  try {
    fs.writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    if (POSIX) fs.chmodSync(tmp, 0o600);
    fs.renameSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') fs.rmSync(tmp, { force: true });
    throw err;
  }
}

export function removeConfig(file: string): void {
  fs.rmSync(file, { force: true });
}
