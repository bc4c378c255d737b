// cli/config.ts: the file that holds the CLI's API key is written by its owner alone.
import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readConfig, writeConfig } from '../../cli/config.ts';

test('a link planted where a temporary file could be named does not receive the key', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-cli-config-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'config.json');
  const elsewhere = path.join(dir, 'someone-elses.txt');
  fs.writeFileSync(elsewhere, 'theirs\n');
  // the name a write by this process would have used: the file name, the pid, .tmp
  fs.symlinkSync(elsewhere, `${file}.${process.pid}.tmp`);
  writeConfig(file, { base_url: 'http://gateway.test', api_key: 'mg_live_secret' });
  t.is(fs.readFileSync(elsewhere, 'utf8'), 'theirs\n');
  t.is(readConfig(file).api_key, 'mg_live_secret');
  t.is(fs.statSync(file).mode & 0o777, 0o600);
  t.deepEqual(fs.readdirSync(dir).filter((n) => n.endsWith('.tmp') && !n.includes(String(process.pid))), [], 'no temporary file left');
});
