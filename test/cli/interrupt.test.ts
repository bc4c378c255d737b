// Ctrl-C (SIGINT) sent to the CLI, run as a real process, while it follows a prediction or saves
// its outputs: it exits 130, removes the download's temporary file, and names the prediction with
// the command that fetches it later. A local HTTP server stands in for the gateway (its catalog, a
// submit, event streams that stay open) and for the storage of an output that stalls halfway.
import test from 'ava';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { waitFor } from '../helpers/services.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const BIN = path.join(ROOT, (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin.mediagate!);

let server: http.Server;
let baseUrl: string;
/** The streams opened so far, by prediction id: the CLI is then waiting for it. */
const streams = new Set<string>();
let dir: string;

const prediction = (id: string, status: string, outputs: string[] = []) => JSON.stringify({ id, model: 'm', status, outputs, error: null, urls: { get: '' }, created_at: null, completed_at: null });

test.before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-sigint-'));
  server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    if (url.pathname === '/api/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ models: [{
        slug: 'm', path: '/api/v1/m', title: 'M', category: 'image', tier: null, family: null, output: 'image', available: true,
        price: { base: 1, at_defaults: 1 }, input_schema: { properties: { prompt: { type: 'string' } }, required: ['prompt'] },
      }] }));
      return;
    }
    if (url.pathname === '/api/v1/m' && req.method === 'POST') {
      res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ request_id: 'p-run', status: 'queued', price: 1 }));
      return;
    }
    const stream = /^\/api\/v1\/predictions\/([^/]+)\/stream$/.exec(url.pathname);
    if (stream) {
      const id = stream[1]!;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // p-dl is finished, with an output that never arrives whole; the others run on and on
      res.write(`data: ${id === 'p-dl' ? prediction(id, 'completed', [`${baseUrl}/files/stalls.png`]) : prediction(id, 'processing')}\n\n`);
      streams.add(id);
      return;
    }
    if (url.pathname === '/files/stalls.png') {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': '100000' });
      res.write(Buffer.alloc(1000, 7));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'not found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.after.always(() => {
  server?.closeAllConnections();
  server?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

interface Running { child: ChildProcess; ended: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> }

function start(args: string[]): Running {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', MEDIAGATE_BASE_URL: baseUrl, MEDIAGATE_API_KEY: 'mg_live_k', MEDIAGATE_CONFIG: path.join(dir, 'none.json') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => { stdout += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, ended };
}

test('Ctrl-C while run follows its prediction exits 130 and names it with the command that fetches it later', async (t) => {
  const run = start(['--team', '7', 'run', 'm', '-p', 'a fox']);
  t.teardown(() => { run.child.kill('SIGKILL'); });
  await waitFor(() => streams.has('p-run'), { what: 'the CLI following p-run' });
  run.child.kill('SIGINT');
  const { code, signal, stdout, stderr } = await run.ended;
  t.is(signal, null, 'the CLI ended itself, not the signal');
  t.is(code, 130);
  t.is(stdout, '');
  t.regex(stderr, /prediction p-run goes on/);
  t.true(stderr.includes('`mediagate --team 7 predictions get p-run`'), stderr);
});

test('Ctrl-C while predictions wait follows with --json: the error document on stdout carries the id', async (t) => {
  const run = start(['predictions', 'wait', 'p-wait', '--json']);
  t.teardown(() => { run.child.kill('SIGKILL'); });
  await waitFor(() => streams.has('p-wait'), { what: 'the CLI following p-wait' });
  run.child.kill('SIGINT');
  const { code, stdout, stderr } = await run.ended;
  t.is(code, 130);
  t.like(JSON.parse(stdout), { exit_code: 130, request_id: 'p-wait' });
  t.true(stderr.includes('`mediagate predictions get p-wait`'), stderr);
});

test('Ctrl-C during --download removes the .part file; a second Ctrl-C right after changes nothing', async (t) => {
  const out = fs.mkdtempSync(path.join(dir, 'out-'));
  const run = start(['predictions', 'wait', 'p-dl', '--download', out]);
  t.teardown(() => { run.child.kill('SIGKILL'); });
  const part = await waitFor(() => fs.readdirSync(out).find((f) => f.endsWith('.part')), { what: 'the .part file' });
  t.regex(part, /^p-dl-0\.png\..+\.part$/);
  run.child.kill('SIGINT');
  run.child.kill('SIGINT');
  const { code, signal, stderr } = await run.ended;
  t.is(signal, null);
  t.is(code, 130);
  t.deepEqual(fs.readdirSync(out), [], 'no .part and no truncated file');
  t.regex(stderr, /prediction p-dl goes on/);
});
