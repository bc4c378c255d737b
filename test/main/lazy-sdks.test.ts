// The SDKs that few processes use are loaded on first use, not at start-up: importing the gateway
// and building it on the embedded default (app and server) loads none of oidc-provider (the OAuth2
// token endpoint, plugins/oauth.ts), stripe (lib/stripe.ts), the AWS SDK (STORAGE_URL only,
// lib/storage-s3.ts) and nodemailer (SMTP_URL only, lib/mail.ts). Each costs 0.1-0.3 s of CPU to
// import, in every process: every test file among them. Their first use is tested where they are
// used (test/plugins/oauth.test.ts, test/handlers/stripe.test.ts, test/lib/storage-s3.test.ts,
// the SMTP tests).
// One process of its own, whose module loads a hook records from the start.
import test from 'ava';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const LAZY = /^(oidc-provider|stripe|nodemailer|@aws-sdk\/.*)$/;

const SCRIPT = `
import { registerHooks } from 'node:module';
const loaded = new Set();
registerHooks({
  load(url, context, next) {
    const m = /\\/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(url);
    if (m) loaded.add(m[1]);
    return next(url, context);
  },
});
const root = process.env.MG_ROOT;
const { loadConfig } = await import(root + '/config.ts');
const { createApp } = await import(root + '/app.ts');
const { createServer } = await import(root + '/server.ts');
const app = await createApp(loadConfig({ DATA_DIR: process.env.MG_DATA_DIR, LOG_LEVEL: 'silent', PUBLIC_URL: 'http://gateway.test' }));
const server = await createServer(app);
await server.initialize();
console.log(JSON.stringify([...loaded].sort()));
await server.stop();
await app.close();
`;

test('the gateway starts without loading the SDKs it uses on demand', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-lazy-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', SCRIPT], {
    cwd: ROOT, env: { ...process.env, MG_ROOT: ROOT, MG_DATA_DIR: dir }, timeout: 60_000,
  });
  const loaded = JSON.parse(stdout.trim().split('\n').at(-1)!) as string[];
  // the hook saw the packages the gateway does load
  t.true(loaded.includes('@hapi/hapi') && loaded.includes('knex'), loaded.join(' '));
  t.deepEqual(loaded.filter((p) => LAZY.test(p)), []);
});
