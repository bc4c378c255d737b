// The embedded default: `node main.ts` with no servers at all (SQLite file, in-process
// queue, local files), driven over real HTTP as a newcomer would with curl.
import test from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { spawnGateway, freePort, mailedCode } from '../helpers/processes.ts';
import type { GatewayProcess } from '../helpers/processes.ts';
import { waitFor } from '../helpers/services.ts';

async function boot(dataDir: string, port: number): Promise<{ proc: GatewayProcess; base: string }> {
  const base = `http://127.0.0.1:${port}`;
  const proc = spawnGateway({ DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, SIGNUP_CREDIT: '5000', LOG_LEVEL: 'info' });
  await waitFor(async () => {
    if (proc.child.exitCode !== null) throw new Error(`gateway exited: ${proc.output()}`);
    const res = await fetch(`${base}/health`).catch(() => undefined);
    return res?.status === 200;
  }, { what: 'the embedded gateway to answer /health', timeoutMs: 60_000, intervalMs: 100 });
  return { proc, base };
}

async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

test('a fresh embedded gateway registers, issues a key and generates a real image', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-embedded-'));
  const { proc, base } = await boot(dir, await freePort());
  t.teardown(async () => {
    await proc.kill();
    await fs.rm(dir, { recursive: true, force: true });
  });
  const health = await json(await fetch(`${base}/health`));
  t.deepEqual(health, { status: 'ok', database: 'ok', queue: 'ok' });

  const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${url}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  t.is((await post('/auth/register', { email: 'new@example.com', password: 'a long password' })).status, 201);
  // The sign-up credit comes with the verified address; the code is in the log.
  const verified = await post('/auth/verify-otp', { email: 'new@example.com', otp: await mailedCode(proc, 'new@example.com') });
  t.is(verified.status, 200);
  t.true((await json(verified)).email_verified as boolean);
  const { api_key: key } = await json(await post('/auth/cli/login', { email: 'new@example.com', password: 'a long password' })) as { api_key: string };
  const { request_id: id } = await json(await post('/api/v1/canvas-v1-fast-text-to-image', { prompt: 'first light', width: 256, height: 256 }, { 'x-api-key': key })) as { request_id: string };
  t.truthy(id);
  const result = await waitFor(async () => {
    const r = await json(await fetch(`${base}/api/v1/predictions/${id}/result`, { headers: { 'x-api-key': key } }));
    return r.status === 'completed' || r.status === 'failed' ? r : undefined;
  }, { what: 'the prediction to complete' });
  t.is(result.status, 'completed');
  const output = (result.outputs as string[])[0]!;
  t.true(output.startsWith(`${base}/files/outputs/${id}/`));
  const file = await fetch(output);
  t.is(file.status, 200);
  const png = PNG.sync.read(Buffer.from(await file.arrayBuffer()));
  t.is(png.width, 256);
  const balance = await json(await fetch(`${base}/account/balance`, { headers: { 'x-api-key': key } }));
  t.true((balance.balance as number) < 5000);
  t.is(balance.held, 0);
  await fs.access(path.join(dir, 'mediagate.sqlite'));

  t.is(await proc.kill('SIGTERM'), 0, proc.output());
});

test('an embedded gateway stopped with work in its in-process queue finishes it after a restart', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-embedded-'));
  const port = await freePort();
  let { proc, base } = await boot(dir, port);
  t.teardown(async () => {
    await proc.kill();
    await fs.rm(dir, { recursive: true, force: true });
  });
  const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${url}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  await post('/auth/register', { email: 'restart@example.com', password: 'a long password' });
  t.is((await post('/auth/verify-otp', { email: 'restart@example.com', otp: await mailedCode(proc, 'restart@example.com') })).status, 200);
  const { api_key: key } = await json(await post('/auth/cli/login', { email: 'restart@example.com', password: 'a long password' })) as { api_key: string };
  // Images of a second or so each keep the single process busy long enough to kill it with work
  // pending (the last one is checked unfinished just before the kill). 2048x2048 at 50 steps took
  // some 45 s to render again after the restart, the longest file of the suite.
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const r = await json(await post('/api/v1/canvas-v1-fast-text-to-image', { prompt: `slow ${i}`, width: 1024, height: 1024, num_inference_steps: 25 }, { 'x-api-key': key }));
    ids.push(r.request_id as string);
  }
  const last = await json(await fetch(`${base}/api/v1/predictions/${ids.at(-1)}/result`, { headers: { 'x-api-key': key } }));
  await proc.kill('SIGKILL');
  t.not(last.status, 'completed', 'work was pending when the process was killed');

  ({ proc, base } = await boot(dir, port));
  for (const id of ids) {
    const r = await waitFor(async () => {
      const res = await json(await fetch(`${base}/api/v1/predictions/${id}/result`, { headers: { 'x-api-key': key } }));
      return res.status === 'completed' || res.status === 'failed' ? res : undefined;
    }, { what: `prediction ${id} after the restart`, timeoutMs: 90_000, intervalMs: 200 });
    t.is(r.status, 'completed');
  }
  const balance = await json(await fetch(`${base}/account/balance`, { headers: { 'x-api-key': key } }));
  t.is(balance.held, 0);
});
