// What an output (or image-to-edit) download reads of a host that answers something other than
// the file: a redirect or an error status ends that answer at once. A host that sends an endless
// body with its 302, 404 or 500 must not keep the worker reading it in the background until the
// download deadline. Real local servers, under the development switch that permits loopback
// (UPSTREAM_ALLOW_PRIVATE_OUTPUTS).
import test from 'ava';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { download } from '../../../workers/adapters/upstream-http.ts';
import type { Downloader } from '../../../workers/adapters/upstream-http.ts';

let tempDir = '';
test.before(async () => {
  tempDir = await fs.mkdtemp(path.join(os.tmpdir(), 'download-bounds-'));
});
test.after.always(async () => {
  await fs.rm(tempDir, { recursive: true, force: true });
});

/** A host whose /file answers a few bytes, and whose every other path answers `status` with an endless body. */
async function endlessHost(t: import('ava').ExecutionContext, status: number, headers: Record<string, string> = {}) {
  const endless: { closed: Promise<void> }[] = [];
  const server = http.createServer((req, res) => {
    if (req.url === '/file') {
      res.writeHead(200, { 'content-type': 'image/png' }).end('png');
      return;
    }
    const closed = new Promise<void>((resolve) => res.on('close', () => resolve()));
    endless.push({ closed });
    res.writeHead(status, headers);
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const write = () => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once('drain', write);
    };
    write();
  });
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (s) => sockets.add(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, endless };
}

function downloader(): Downloader {
  return {
    caller: { provider: 'acme', secrets: [], signal: new AbortController().signal },
    net: { policy: { allowInsecure: true }, resolve: async () => [], maxOutputBytes: 1024 * 1024 },
    // far longer than the test: only the download's own handling may end the endless answer
    downloadTimeoutMs: 60_000,
  };
}

/** Resolves true when the endless answer was cut off within a second. */
async function cutOff(endless: { closed: Promise<void> }[]): Promise<boolean> {
  if (endless.length !== 1) return false;
  return Promise.race([endless[0]!.closed.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1000))]);
}

test('a redirect\'s endless body is not read on after the redirect is followed', async (t) => {
  const host = await endlessHost(t, 302, { location: '/file' });
  const file = await download(downloader(), `${host.base}/start`, 0, false, tempDir, 'redirect');
  t.is(await fs.readFile(file.path!, 'utf8'), 'png');
  t.true(await cutOff(host.endless), 'the redirect\'s connection is closed, not drained for the whole download deadline');
});

for (const status of [404, 500]) {
  test(`an endless body with a ${status} is not read on after the download failed`, async (t) => {
    const host = await endlessHost(t, status);
    await t.throwsAsync(download(downloader(), `${host.base}/broken`, 0, false, tempDir, `status-${status}`));
    t.true(await cutOff(host.endless), 'the failed answer\'s connection is closed, not drained for the whole download deadline');
  });
}
