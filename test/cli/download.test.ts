// --download against an output host that misbehaves: an endless body, one that stalls, one that
// breaks off. A local HTTP server stands for the storage an output URL points to.
import test from 'ava';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { download } from '../../cli/commands.ts';
import type { Prediction } from '../../cli/commands.ts';

let server: http.Server;
let base: string;

test.before(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/small.png') { res.writeHead(200, { 'content-type': 'image/png' }); res.end(Buffer.alloc(100, 1)); return; }
    if (req.url === '/endless.png') {
      // no content-length: the size shows only while reading
      res.writeHead(200, { 'content-type': 'image/png' });
      const chunk = Buffer.alloc(64 * 1024, 2);
      const pump = () => { while (res.write(chunk)) { /* fill */ } };
      res.on('drain', pump);
      pump();
      req.on('close', () => res.destroy());
      return;
    }
    if (req.url === '/declared.png') { res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(10 * 1024 * 1024) }); res.write(Buffer.alloc(1024)); return; }
    if (req.url === '/stalls.png') { res.writeHead(200, { 'content-type': 'image/png' }); res.write(Buffer.alloc(10, 3)); return; }
    if (req.url === '/breaks.png') { res.writeHead(200, { 'content-type': 'image/png', 'content-length': '1000' }); res.write(Buffer.alloc(10, 4)); setTimeout(() => res.destroy(), 50); return; }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.after.always(() => { server?.closeAllConnections(); server?.close(); });

function prediction(id: string, urls: string[]): Prediction {
  return { id, model: 'm', status: 'completed', outputs: urls, error: null, urls: { get: '' }, created_at: null, completed_at: null };
}

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'mg-dl-'));
}

test('an output is saved under its name in the directory', async (t) => {
  const dir = tempDir();
  const files = await download(prediction('p1', [`${base}/small.png`]), dir, { maxBytes: 1000, timeoutMs: 5000 });
  t.deepEqual(files, [path.join(dir, 'p1-0.png')]);
  t.is(fs.readFileSync(files[0]!).length, 100);
  t.deepEqual(fs.readdirSync(dir), ['p1-0.png']);
});

test('an output larger than the limit is refused, declared or not, and leaves no file behind', async (t) => {
  const dir = tempDir();
  for (const name of ['endless', 'declared']) {
    const err = await t.throwsAsync(download(prediction(`p-${name}`, [`${base}/${name}.png`]), dir, { maxBytes: 1024 * 1024, timeoutMs: 20_000 }));
    t.regex(err!.message, /larger than|limit/, name);
    t.is((err as { exitCode?: number }).exitCode, 1);
  }
  t.deepEqual(fs.readdirSync(dir), [], 'no partial or temporary file');
});

test('a download that stalls ends at the time limit; one that breaks off leaves nothing, not a truncated file', async (t) => {
  const dir = tempDir();
  const started = Date.now();
  const stalled = await t.throwsAsync(download(prediction('p-stall', [`${base}/stalls.png`]), dir, { maxBytes: 1024 * 1024, timeoutMs: 500 }));
  t.true(Date.now() - started < 5000, 'bounded in time');
  t.regex(stalled!.message, /within|time/);
  await t.throwsAsync(download(prediction('p-break', [`${base}/breaks.png`]), dir, { maxBytes: 1024 * 1024, timeoutMs: 5000 }));
  t.deepEqual(fs.readdirSync(dir), []);
});
