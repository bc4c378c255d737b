// examples/webhook-receiver run as its own process (`node server.mjs`, the built client imported
// by its package name), receiving real deliveries from a listening gateway, and duplicates and
// forgeries sent by the test (signed with the reference Standard Webhooks implementation).
import test from 'ava';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { Mediagate } from '../../clients/typescript/src/index.ts';
import { ensureClientBuilt } from '../helpers/client-build.ts';
import { accountWithEmail, startListeningGateway } from '../helpers/listening.ts';
import type { ListeningGateway } from '../helpers/listening.ts';
import { waitFor } from '../helpers/services.ts';

const EXAMPLE = path.resolve(import.meta.dirname, '..', '..', 'examples', 'webhook-receiver');
const MODEL = 'canvas-v1-fast-text-to-image';

let gw: ListeningGateway;
test.before(async () => {
  [gw] = await Promise.all([startListeningGateway(), ensureClientBuilt()]);
});
test.after.always(async () => {
  await gw?.stop();
});

interface Receiver { url: string; dir: string; output(): string; child: ChildProcess }

async function startExample(t: import('ava').ExecutionContext, secret: string): Promise<Receiver> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-receiver-'));
  const child = spawn(process.execPath, ['server.mjs'], {
    cwd: EXAMPLE,
    env: { PATH: process.env.PATH ?? '', WEBHOOK_SECRET: secret, PORT: '0', RESULTS_DIR: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  t.teardown(() => {
    child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const url = await waitFor(() => {
    if (child.exitCode !== null) throw new Error(`the receiver exited: ${out}`);
    return /listening on (\S+)/.exec(out)?.[1];
  }, { what: 'the receiver to listen' });
  return { url, dir, output: () => out, child };
}

function stored(dir: string): string[] {
  return fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
}

test('a real delivery is verified and stored; a duplicate is acknowledged and stored once; a forgery is refused', async (t) => {
  const account = await accountWithEmail(gw, 1000);
  const client = new Mediagate({ baseUrl: gw.baseUrl, apiKey: account.liveKey });
  const secret = (await client.webhooks.secret()).secret;
  const receiver = await startExample(t, secret);

  const run = await client.run(MODEL, { prompt: 'delivered', width: 64, height: 64 }, { webhook: receiver.url });
  const file = path.join(receiver.dir, `${run.id}.json`);
  await waitFor(() => fs.existsSync(file), { what: 'the stored result' });
  const record = JSON.parse(fs.readFileSync(file, 'utf8')) as { webhook_id: string; received_at: string; payload: { id: string; status: string; outputs: string[] } };
  t.like(record.payload, { id: run.id, status: 'completed' });
  t.deepEqual(record.payload.outputs, run.outputs);
  t.truthy(record.webhook_id);

  // the same delivery again (a retry after a lost answer): 200, stored once
  const body = JSON.stringify(record.payload);
  const send = (b: string, key = secret, id = record.webhook_id) => {
    const at = new Date();
    const headers = { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(key).sign(id, at, b) };
    return fetch(receiver.url, { method: 'POST', headers, body: b });
  };
  const again = await send(body);
  t.is(again.status, 200);
  t.deepEqual(await again.json(), { duplicate: run.id });
  t.deepEqual(stored(receiver.dir), [`${run.id}.json`]);
  t.is((JSON.parse(fs.readFileSync(file, 'utf8')) as { received_at: string }).received_at, record.received_at, 'the first copy is kept');

  // signed with another secret, or changed after signing: 401, nothing stored
  const forged = await send(body.replace(run.id, 'x'.repeat(run.id.length)), `whsec_${Buffer.alloc(32, 9).toString('base64')}`);
  t.is(forged.status, 401);
  const tampered = await fetch(receiver.url, { method: 'POST', headers: { 'webhook-id': 'w', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' }, body });
  t.is(tampered.status, 401);
  t.deepEqual(stored(receiver.dir), [`${run.id}.json`]);
  await waitFor(() => /refused: no webhook-signature matches/.test(receiver.output()), { what: 'the refusal in the log' });
  t.pass();
});

test('a receiver that knows only the old secret keeps accepting deliveries after a rotation', async (t) => {
  const account = await accountWithEmail(gw, 1000);
  const client = new Mediagate({ baseUrl: gw.baseUrl, apiKey: account.liveKey });
  const oldSecret = (await client.webhooks.secret()).secret;
  const receiver = await startExample(t, oldSecret);
  await client.webhooks.rotateSecret();
  const run = await client.run(MODEL, { prompt: 'rotated', width: 64, height: 64 }, { webhook: receiver.url });
  // the receiver logs after storing: wait for the line, then look at the file
  await waitFor(() => receiver.output().includes(`stored ${run.id} (completed)`), { what: 'the receiver to store it' });
  t.true(fs.existsSync(path.join(receiver.dir, `${run.id}.json`)));
});
