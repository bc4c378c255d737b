// examples/node-generate run as a user would run it (`node generate.mjs <dir>` in its folder, the
// built client imported by its package name) against a listening gateway: the image on the local
// model with a production key, the video with a sandbox key (no video provider is configured here).
import test from 'ava';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PNG } from 'pngjs';
import { ensureClientBuilt } from '../helpers/client-build.ts';
import { accountWithEmail, startListeningGateway } from '../helpers/listening.ts';
import type { ListeningGateway } from '../helpers/listening.ts';

const EXAMPLE = path.resolve(import.meta.dirname, '..', '..', 'examples', 'node-generate');

let gw: ListeningGateway;
test.before(async () => {
  [gw] = await Promise.all([startListeningGateway(), ensureClientBuilt()]);
});
test.after.always(async () => {
  await gw?.stop();
});

test('the example generates an image and a video, prints their progress and downloads both', async (t) => {
  const account = await accountWithEmail(gw, 1000);
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-example-'));
  t.teardown(() => fs.rmSync(out, { recursive: true, force: true }));
  const { stdout } = await promisify(execFile)(process.execPath, ['generate.mjs', out], {
    cwd: EXAMPLE,
    env: { PATH: process.env.PATH ?? '', MEDIAGATE_BASE_URL: gw.baseUrl, MEDIAGATE_API_KEY: account.liveKey, MEDIAGATE_VIDEO_API_KEY: account.testKey },
  });
  t.regex(stdout, /^image: \d+ credits \(balance 1000\)$/m);
  t.regex(stdout, /^image: completed after/m);
  t.regex(stdout, /^video: completed after/m);
  const image = path.join(out, 'image-0.png');
  const png = PNG.sync.read(fs.readFileSync(image));
  t.deepEqual([png.width, png.height], [768, 512]);
  const video = fs.readFileSync(path.join(out, 'video-0.mp4'));
  t.is(video.subarray(4, 8).toString('latin1'), 'ftyp', 'an MP4 file');
  t.regex(stdout, new RegExp(`^image: saved ${image.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'));
  // the image was paid for, the sandbox video was not
  const balance = await (await fetch(`${gw.baseUrl}/account/balance`, { headers: { 'x-api-key': account.liveKey } })).json() as { balance: number };
  const quoted = Number(/^image: (\d+) credits/m.exec(stdout)![1]);
  t.is(balance.balance, 1000 - quoted);
});

test('the README\'s command sets every variable the run above needs', (t) => {
  // The run above passes a sandbox key for the video: without one, npm start's gateway answers
  // the video 503 and the example stops. A reader copies the README's command, so it must too.
  const readme = fs.readFileSync(path.join(EXAMPLE, 'README.md'), 'utf8');
  const command = /^([A-Z_]+=\S+ .*(?:\\\n.*)*node generate\.mjs.*)$/m.exec(readme)?.[1];
  if (!command) return t.fail('no `node generate.mjs` command in the README');
  const set = [...command.matchAll(/(?:^|\s)([A-Z_]+)=/g)].map((m) => m[1]).sort();
  t.deepEqual(set, ['MEDIAGATE_API_KEY', 'MEDIAGATE_BASE_URL', 'MEDIAGATE_VIDEO_API_KEY']);
});

test('without a key the example says what to set and exits 2; a refused run exits 1 with the gateway\'s code', async (t) => {
  const run = (env: Record<string, string>) => promisify(execFile)(process.execPath, ['generate.mjs', os.tmpdir()], { cwd: EXAMPLE, env: { PATH: process.env.PATH ?? '', MEDIAGATE_BASE_URL: gw.baseUrl, ...env } });
  const none = await t.throwsAsync(run({})) as Error & { code: number; stderr: string };
  t.is(none.code, 2);
  t.regex(none.stderr, /MEDIAGATE_API_KEY/);
  const broke = await accountWithEmail(gw, 0);
  const refused = await t.throwsAsync(run({ MEDIAGATE_API_KEY: broke.liveKey })) as Error & { code: number; stderr: string };
  t.is(refused.code, 1);
  t.regex(refused.stderr, /insufficient_credit/);
});
