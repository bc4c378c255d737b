// The directory routes (/files/outputs, /files/uploads and /files/sandbox, plugins/files.ts, and
// /dashboard, plugins/dashboard.ts): a path no file can have (a name over 255 bytes, a path over
// 1024) is a missing file, 404 in JSON like any other, with no error logged; inert would answer
// the file system's ENAMETOOLONG as a 500. Files that exist are still served. SQLite, in-process queue.
import test from 'ava';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { captureLog } from '../helpers/logs.ts';

const log = captureLog('error');
let gw: TestGateway;
test.before(async () => {
  gw = await startGateway({ db: 'sqlite', queue: 'memory', log: log.log });
  // the directories exist once a worker stored an output or an upload arrived: the names are then looked up in them
  for (const dir of ['outputs', 'uploads']) await fs.mkdir(path.join(gw.app.config.storageDir, dir, 'p1'), { recursive: true });
  await fs.writeFile(path.join(gw.app.config.storageDir, 'outputs', 'p1', '0.txt'), 'stored');
});
test.after.always(async () => {
  await gw?.stop();
});

const ROUTES = ['/files/outputs/', '/files/uploads/', '/files/sandbox/', '/dashboard/'];

const IMPOSSIBLE: Record<string, string> = {
  'a name of 256 bytes': 'a'.repeat(256),
  'a name of 128 characters, 256 bytes in UTF-8': '%C3%A9'.repeat(128),
  'a long name in a directory': `p1/${'a'.repeat(300)}.png`,
  'a path of 4,200 bytes in short names': 'a/'.repeat(2100) + 'x.png',
};

test('a path no file can have is 404 in JSON, as a missing file is, on GET and HEAD, with no error logged', async (t) => {
  for (const route of ROUTES) {
    const missing = await gw.server.inject({ method: 'GET', url: `${route}nope.png` });
    t.is(missing.statusCode, 404, `${route}: a missing file`);
    for (const [what, rest] of Object.entries(IMPOSSIBLE)) {
      for (const method of ['GET', 'HEAD']) {
        const res = await gw.server.inject({ method, url: route + rest });
        t.is(res.statusCode, 404, `${method} ${route}: ${what}`);
        t.regex(String(res.headers['content-type']), /^application\/json/, `${method} ${route}: ${what}`);
        if (method === 'GET') t.deepEqual(JSON.parse(res.payload), JSON.parse(missing.payload), `${route}: ${what}: the body of a missing file`);
      }
    }
  }
  t.deepEqual(log.parsed<{ level: number }>().filter((l) => l.level >= 50), [], 'no error-level line');
});

test('names up to the limit are looked up as usual, and files that exist are served', async (t) => {
  t.is((await gw.server.inject({ method: 'GET', url: `/files/sandbox/${'a'.repeat(255)}` })).statusCode, 404);
  const stored = await gw.server.inject({ method: 'GET', url: '/files/outputs/p1/0.txt' });
  t.is(stored.statusCode, 200);
  t.is(stored.payload, 'stored');
  t.is((await gw.server.inject({ method: 'GET', url: '/files/sandbox/sample.png' })).statusCode, 200);
  t.is((await gw.server.inject({ method: 'HEAD', url: '/files/sandbox/sample.png' })).statusCode, 200);
  t.is((await gw.server.inject({ method: 'GET', url: '/dashboard/app.js' })).statusCode, 200);
});

test('the sandbox route serves its sample files only, not the script beside them', async (t) => {
  for (const sample of ['sample.png', 'sample.mp4', 'sample.wav', 'sample.glb', 'sample.txt']) {
    t.is((await gw.server.inject({ method: 'GET', url: `/files/sandbox/${sample}` })).statusCode, 200, sample);
  }
  const script = await gw.server.inject({ method: 'GET', url: '/files/sandbox/make-samples.ts' });
  t.is(script.statusCode, 404);
  t.deepEqual(JSON.parse(script.payload), JSON.parse((await gw.server.inject({ method: 'GET', url: '/files/sandbox/nope.png' })).payload));
});

test('a directory, or a path leaving one, is 404 as a missing file: its existence is not told apart', async (t) => {
  const missing = JSON.parse((await gw.server.inject({ method: 'GET', url: '/files/outputs/nope/0.png' })).payload);
  for (const url of ['/files/outputs/', '/files/outputs/p1', '/files/outputs/p1/', '/files/uploads/', '/files/uploads/p1', '/files/uploads/p1/',
    '/files/outputs/p1/..%2f..%2fuploads%2fp1', '/files/uploads/..%2f..%2fetc%2fpasswd', '/files/outputs/p1/.%2f0.txt']) {
    const res = await gw.server.inject({ method: 'GET', url });
    t.is(res.statusCode, 404, url);
    t.deepEqual(JSON.parse(res.payload), missing, url);
  }
  t.is((await gw.server.inject({ method: 'GET', url: '/files/outputs/p1/0.txt' })).statusCode, 200);
});
