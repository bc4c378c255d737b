// cli/config.ts: the file that holds the CLI's API key is written by its owner alone, 0600 in a
// 0700 directory, and a write tightens a directory and file that others could read.
import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configPath, readConfig, writeConfig } from '../../cli/config.ts';

test('a link planted where a temporary file could be named does not receive the key', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-cli-config-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'config.json');
  const elsewhere = path.join(dir, 'someone-elses.txt');
  fs.writeFileSync(elsewhere, 'theirs\n');
  // the name a write by this process would have used: the file name, the pid, .tmp
  fs.symlinkSync(elsewhere, `${file}.${process.pid}.tmp`);
  writeConfig(file, { base_url: 'http://gateway.test', api_key: 'mg_live_secret' }, { ownDir: false });
  t.is(fs.readFileSync(elsewhere, 'utf8'), 'theirs\n');
  t.is(readConfig(file).api_key, 'mg_live_secret');
  t.is(fs.statSync(file).mode & 0o777, 0o600);
  t.deepEqual(fs.readdirSync(dir).filter((n) => n.endsWith('.tmp') && !n.includes(String(process.pid))), [], 'no temporary file left');
});

/** A temporary HOME with XDG_CONFIG_HOME under it, removed after the test. */
function tempHome(t: { teardown(fn: () => void): void }): { home: string; env: NodeJS.ProcessEnv } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-cli-home-'));
  t.teardown(() => fs.rmSync(home, { recursive: true, force: true }));
  return { home, env: { HOME: home, XDG_CONFIG_HOME: path.join(home, 'xdg') } };
}

const posix = process.platform === 'win32' ? test.skip : test;

posix('a first write creates the directory 0700 and the file 0600, under XDG_CONFIG_HOME or else ~/.config', (t) => {
  const { home, env } = tempHome(t);
  for (const e of [env, { HOME: home }]) {
    const file = configPath(e);
    t.is(path.dirname(file), path.join(e.XDG_CONFIG_HOME ?? path.join(home, '.config'), 'mediagate'));
    writeConfig(file, { api_key: 'mg_live_secret' }, { ownDir: true });
    t.is(fs.statSync(file).mode & 0o777, 0o600);
    t.is(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
  }
});

posix('a write tightens a config directory and file that others could read', (t) => {
  const { env } = tempHome(t);
  const file = configPath(env);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.chmodSync(path.dirname(file), 0o755);
  fs.writeFileSync(file, '{"api_key":"mg_live_old"}\n');
  fs.chmodSync(file, 0o644);
  writeConfig(file, { api_key: 'mg_live_new' }, { ownDir: true });
  t.is(readConfig(file).api_key, 'mg_live_new');
  t.is(fs.statSync(file).mode & 0o777, 0o600);
  t.is(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
});

posix('a directory named by MEDIAGATE_CONFIG is created 0700 but an existing one is left as it is', (t) => {
  const { home } = tempHome(t);
  const shared = path.join(home, 'project');
  fs.mkdirSync(shared, { mode: 0o755 });
  fs.chmodSync(shared, 0o755);
  writeConfig(path.join(shared, 'mediagate.json'), { api_key: 'mg_live_secret' }, { ownDir: false });
  t.is(fs.statSync(shared).mode & 0o777, 0o755, 'the user\'s own directory keeps its mode');
  t.is(fs.statSync(path.join(shared, 'mediagate.json')).mode & 0o777, 0o600);
  const fresh = path.join(home, 'new-dir', 'mediagate.json');
  writeConfig(fresh, { api_key: 'mg_live_secret' }, { ownDir: false });
  t.is(fs.statSync(path.dirname(fresh)).mode & 0o777, 0o700);
});
