// Ids from the command line that a URL would not keep as an id: empty, "." and "..", which the URL
// parser collapses into another route. The CLI, run as a real process, refuses them before any
// request; a local HTTP server stands in for the gateway and counts what reaches it.
import test from 'ava';
import { spawn } from 'node:child_process';
import { finished } from '../helpers/processes.ts';
import type { Finished } from '../helpers/processes.ts';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const BIN = path.join(ROOT, (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin.mediagate!);

let server: http.Server;
let baseUrl: string;
const seen: string[] = [];

test.before(async () => {
  server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'not found', code: 'not_found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.after.always(() => { server?.closeAllConnections(); server?.close(); });

function cli(args: string[]): Promise<Finished> {
  return finished(spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', MEDIAGATE_BASE_URL: baseUrl, MEDIAGATE_API_KEY: 'mg_live_k', MEDIAGATE_CONFIG: path.join(ROOT, 'no-such-config.json') },
    stdio: ['ignore', 'pipe', 'pipe'],
  }));
}

test.serial('predictions get, wait and cancel refuse an id that is empty, "." or ".." with the usage exit code, before any request', async (t) => {
  for (const sub of ['get', 'wait', 'cancel']) {
    for (const id of ['..', '.', '']) {
      const run = await cli(['predictions', sub, id]);
      t.is(run.code, 2, `${sub} "${id}": ${run.stderr}`);
      t.regex(run.stderr, /^mediagate: .*id/, `${sub} "${id}"`);
      t.is(run.stdout, '');
    }
  }
  const json = await cli(['predictions', 'get', '..', '--json']);
  t.is(json.code, 2);
  t.like(JSON.parse(json.stdout), { exit_code: 2 });
  t.regex((JSON.parse(json.stdout) as { error: string }).error, /"\.\." is not an id/);
  t.deepEqual(seen, [], 'nothing reached the gateway');
});

test.serial('an id with dots that is not a dot segment still goes to the gateway, encoded', async (t) => {
  seen.length = 0;
  const run = await cli(['predictions', 'get', '...']);
  t.is(run.code, 5, run.stderr);
  t.deepEqual(seen, ['GET /api/v1/predictions/.../result']);
});
