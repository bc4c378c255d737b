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

/**
 * Writes the file with mode 0600 from the start (never readable by others, not even for a moment),
 * through a temporary file of an unguessable name that this call creates itself ('wx': a file or
 * link already there, planted in a shared directory to receive the key, is refused, never written).
 */
export function writeConfig(file: string, config: StoredConfig): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${crypto.randomBytes(8).toString('hex')}.tmp`;
  try {
    fs.writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    fs.chmodSync(tmp, 0o600);
    fs.renameSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') fs.rmSync(tmp, { force: true });
    throw err;
  }
}

export function removeConfig(file: string): void {
  fs.rmSync(file, { force: true });
}
