// MariaDB stopped under a running gateway: requests get 503 with a JSON detail (never a 500
// or a hang), /health names the database, and everything works again once it is back.
// Runs alone (see ava.config.js): it stops the machine's shared MariaDB.
import test from 'ava';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import net from 'node:net';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';

const run = promisify(execFile);

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

async function mariadbdRunning(): Promise<boolean> {
  return run('pgrep', ['-x', 'mariadbd']).then(() => true, () => false);
}

async function startMariadb() {
  await run('start-stop-daemon', ['--start', '--oknodo', '--background', '--exec', '/usr/sbin/mariadbd']);
  await waitFor(() => portOpen(3306), { what: 'MariaDB to listen again', timeoutMs: 60_000, intervalMs: 200 });
}

test('with the database down, requests answer 503 and health names the database', async (t) => {
  const gw = await startGateway({ worker: true });
  t.teardown(async () => {
    try {
      await startMariadb();
    } finally {
      await gw.stop();
    }
  });
  const acct = await newAccount(gw, 10_000);

  await run('mariadb-admin', ['-uroot', '-h127.0.0.1', 'shutdown'], { timeout: 60_000 });
  // Wait for the process itself to go: start-stop-daemon would take a dying server for a running one.
  await waitFor(async () => !(await mariadbdRunning()), { what: 'MariaDB to stop', timeoutMs: 60_000, intervalMs: 100 });

  const health = await gw.server.inject({ method: 'GET', url: '/health' });
  t.is(health.statusCode, 503);
  t.deepEqual(health.result, { status: 'unavailable', database: 'unreachable', queue: 'ok', detail: 'database unreachable' });

  const submit = await gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'x' } });
  t.is(submit.statusCode, 503, submit.payload);
  t.is(typeof (submit.result as { detail: unknown }).detail, 'string');

  await startMariadb();
  const ok = await waitFor(async () => {
    const res = await gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'y', width: 64, height: 64 } });
    return res.statusCode === 200 ? res : undefined;
  }, { what: 'submits to work again', timeoutMs: 30_000, intervalMs: 250 });
  const id = (ok.result as { request_id: string }).request_id;
  const done = await waitFor(async () => {
    const row = await gw.app.db('predictions').where({ id }).first();
    return row?.status === 'completed' ? row : undefined;
  }, { what: 'the prediction to complete', timeoutMs: 30_000 });
  t.is(done.status, 'completed');
  t.is((await gw.server.inject({ method: 'GET', url: '/health' })).statusCode, 200);
});
