// The embedded default (ROLE=all, SQLite, in-process queue) sent SIGTERM mid-task: past
// SHUTDOWN_GRACE_MS the prediction is handed back (`pending`, not `failed`), and the next start
// of the gateway runs it to completion, charged once.
import test from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import knex from 'knex';
import { spawnGateway, freePort } from '../helpers/processes.ts';
import type { GatewayProcess } from '../helpers/processes.ts';
import { waitFor } from '../helpers/services.ts';
import { startUpstream } from '../helpers/upstream.ts';

async function boot(env: Record<string, string>, base: string): Promise<GatewayProcess> {
  const proc = spawnGateway(env);
  await waitFor(async () => {
    if (proc.child.exitCode !== null) throw new Error(`gateway exited: ${proc.output()}`);
    const res = await fetch(`${base}/health`).catch(() => undefined);
    return res?.status === 200;
  }, { what: 'the embedded gateway to answer /health', timeoutMs: 60_000, intervalMs: 100 });
  return proc;
}

test('SIGTERM mid-task on the embedded gateway leaves the prediction pending, and the next start completes it once', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-embedded-'));
  const upstream = await startUpstream();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    DATA_DIR: dir, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, SIGNUP_CREDIT: '5000', LOG_LEVEL: 'info',
    UPSTREAM_LUMEN_URL: upstream.url, UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true', SHUTDOWN_GRACE_MS: '200',
  };
  const procs: GatewayProcess[] = [];
  t.teardown(async () => {
    for (const p of procs) await p.kill();
    await upstream.close();
    await fs.rm(dir, { recursive: true, force: true });
  });
  upstream.hold = true;
  const first = await boot(env, base);
  procs.push(first);
  const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${url}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  t.is((await post('/auth/register', { email: 'deploy@example.com', password: 'a long password' })).status, 201);
  // Sign-up credit comes with a verified address (test/main/embedded-smoke.test.ts walks that path); here the wallet is filled directly.
  const fill = knex({ client: 'sqlite3', connection: { filename: path.join(dir, 'mediagate.sqlite') }, useNullAsDefault: true });
  await fill('users').where({ email: 'deploy@example.com' }).update({ balance: 5000 });
  await fill.destroy();
  const { api_key: key } = await (await post('/auth/cli/login', { email: 'deploy@example.com', password: 'a long password' })).json() as { api_key: string };
  const submit = await post('/api/v1/lumen-dev-text-to-image', { prompt: 'restart me' }, { 'x-api-key': key });
  t.is(submit.status, 200);
  const { request_id: id } = await submit.json() as { request_id: string };
  await waitFor(() => upstream.calls === 1, { what: 'the worker to call the upstream', timeoutMs: 30_000 });

  t.is(await first.kill('SIGTERM'), 0, first.output());
  const db = knex({ client: 'sqlite3', connection: { filename: path.join(dir, 'mediagate.sqlite') }, useNullAsDefault: true });
  const row = await db('predictions').where({ id }).first();
  await db.destroy();
  t.is(row.status, 'pending', `handed back, not failed: ${row.error}`);

  upstream.release();
  const second = await boot(env, base);
  procs.push(second);
  const result = await waitFor(async () => {
    const res = await fetch(`${base}/api/v1/predictions/${id}/result`, { headers: { 'x-api-key': key } });
    const body = await res.json() as { status: string; error: string | null };
    return body.status === 'completed' || body.status === 'failed' ? body : undefined;
  }, { what: 'the restarted gateway to finish the prediction', timeoutMs: 30_000, intervalMs: 200 });
  t.is(result.status, 'completed', `${result.error}\n${second.output()}`);
  t.is(upstream.calls, 2);
  const balance = await (await fetch(`${base}/account/balance`, { headers: { 'x-api-key': key } })).json() as { balance: number; held: number };
  t.is(balance.held, 0);
  t.true(balance.balance < 5000, 'charged');
  const check = knex({ client: 'sqlite3', connection: { filename: path.join(dir, 'mediagate.sqlite') }, useNullAsDefault: true });
  t.teardown(() => check.destroy());
  t.is((await check('credit_transactions').where({ prediction_id: id, kind: 'prediction' })).length, 1);
});
