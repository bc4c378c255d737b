// The verification code the webhooks page shows, run as written (JavaScript in Node, Python in
// python3), on real deliveries from the gateway: a delivery verifies, with either secret after a
// rotation; a changed body, a wrong secret and a stale timestamp are refused.
import test from 'ava';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { startReceiver } from '../helpers/receiver.ts';
import type { Received } from '../helpers/receiver.ts';
import crypto from 'node:crypto';

const run = promisify(execFile);
const PAGE = path.resolve(import.meta.dirname, '../../docs/api/webhooks.md');

/** The first fenced block of `lang` after the heading that starts with `heading`. */
async function codeBlock(heading: string, lang: string): Promise<string> {
  const page = await fs.readFile(PAGE, 'utf8');
  const from = page.indexOf(`\n### ${heading}`);
  if (from < 0) throw new Error(`no heading "${heading}" on the webhooks page`);
  const m = new RegExp('```' + lang + '\\n([\\s\\S]*?)\\n```').exec(page.slice(from));
  if (!m) throw new Error(`no ${lang} block under "${heading}"`);
  return m[1]!;
}

interface Case { secret: string; headers: Record<string, string>; body: string; now?: number }

let gw: TestGateway;
let acct: Account;
let dir: string;
let verifyJs: (c: Case[]) => Promise<string[]>;
let verifyPy: (c: Case[]) => Promise<string[]>;

test.before(async () => {
  gw = await startGateway({ worker: true, env: { WEBHOOK_ALLOW_INSECURE: 'true' } });
  acct = await newAccount(gw);
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-verify-'));
  // each harness reads cases as JSON on stdin and prints "ok <payload id>" or "refused <reason>" per case
  await fs.writeFile(path.join(dir, 'verify.mjs'), `${await codeBlock('JavaScript', 'js')}
const cases = JSON.parse(await new Promise((resolve) => { let s = ''; process.stdin.on('data', (d) => { s += d; }).on('end', () => resolve(s)); }));
for (const c of cases) {
  try { console.log('ok ' + verifyWebhook(c.secret, c.headers, Buffer.from(c.body, 'utf8'), c.now).id); }
  catch (e) { console.log('refused ' + e.message); }
}
`);
  await fs.writeFile(path.join(dir, 'verify.py'), `${await codeBlock('Python', 'python')}

import sys
for c in json.load(sys.stdin):
    try:
        print("ok " + verify_webhook(c["secret"], c["headers"], c["body"].encode("utf-8"), c.get("now") and c["now"] / 1000)["id"])
    except ValueError as e:
        print("refused " + str(e))
`);
  const harness = (cmd: string, file: string) => async (cases: Case[]) => {
    const child = run(cmd, [path.join(dir, file)], { timeout: 30_000 });
    child.child.stdin!.end(JSON.stringify(cases));
    return (await child).stdout.trim().split('\n');
  };
  verifyJs = harness(process.execPath, 'verify.mjs');
  verifyPy = harness('python3', 'verify.py');
});
test.after.always(async () => {
  await gw?.stop();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

/** The sandbox secret (a sandbox key reads it): delivery() submits with the sandbox key. */
async function secret(): Promise<string> {
  const res = await gw.server.inject({ method: 'GET', url: '/app/webhook_secret', headers: { 'x-api-key': acct.testKey } });
  return (res.result as { secret: string }).secret;
}

async function delivery(): Promise<{ id: string; r: Received }> {
  const receiver = await startReceiver();
  try {
    const res = await gw.server.inject({ method: 'POST', url: `/api/v1/canvas-v1-fast-text-to-image?webhook=${encodeURIComponent(receiver.url)}`, headers: { 'x-api-key': acct.testKey }, payload: { prompt: 'verify me', width: 64, height: 64 } });
    const id = (res.result as { request_id: string }).request_id;
    const r = await waitFor(() => receiver.received[0], { what: 'the delivery' });
    return { id, r };
  } finally {
    await receiver.close();
  }
}

const headersOf = (r: Received): Record<string, string> => Object.fromEntries(
  ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(r.headers[h])]));

test.serial('the page\'s JavaScript and Python accept a real delivery and refuse a forged, foreign or stale one', async (t) => {
  const { id, r } = await delivery();
  const s = await secret();
  const headers = headersOf(r);
  const cases: Case[] = [
    { secret: s, headers, body: r.body },
    { secret: s, headers, body: r.body.replace('"completed"', '"failed"') },
    { secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`, headers, body: r.body },
    { secret: s, headers, body: r.body, now: (Number(headers['webhook-timestamp']) + 600) * 1000 },
    { secret: s, headers: { 'webhook-id': headers['webhook-id']! }, body: r.body },
  ];
  const expected = [`ok ${id}`, 'refused no valid signature', 'refused no valid signature', 'refused timestamp too old or too new', 'refused not a signed delivery'];
  t.deepEqual(await verifyJs(cases), expected);
  t.deepEqual(await verifyPy(cases), expected);
});

test.serial('after a rotation both snippets verify a delivery with the old secret and with the new one', async (t) => {
  const before = await secret();
  const rotated = await gw.server.inject({ method: 'POST', url: '/app/webhook_secret/rotate', headers: { 'x-api-key': acct.testKey } });
  const after = (rotated.result as { secret: string }).secret;
  const { id, r } = await delivery();
  t.is(String(r.headers['webhook-signature']).split(' ').length, 2);
  const cases = [before, after].map((secretValue) => ({ secret: secretValue, headers: headersOf(r), body: r.body }));
  t.deepEqual(await verifyJs(cases), [`ok ${id}`, `ok ${id}`]);
  t.deepEqual(await verifyPy(cases), [`ok ${id}`, `ok ${id}`]);
});

test.serial('both snippets refuse a timestamp that is not a whole number of seconds, though signed with the secret', async (t) => {
  const { r } = await delivery();
  const s = await secret();
  const id = String(r.headers['webhook-id']);
  const ts = String(r.headers['webhook-timestamp']);
  // signed as the gateway signs, over whatever the header says
  const sign = (timestamp: string) => `v1,${crypto.createHmac('sha256', Buffer.from(s.slice('whsec_'.length), 'base64')).update(`${id}.${timestamp}.${r.body}`).digest('base64')}`;
  const cases = ['soon', `${ts}.5`, `+${ts}`].map((timestamp) => ({
    secret: s, body: r.body, headers: { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': sign(timestamp) },
  }));
  const expected = cases.map(() => 'refused timestamp is not a number of seconds');
  t.deepEqual(await verifyJs(cases), expected);
  t.deepEqual(await verifyPy(cases), expected);
});
