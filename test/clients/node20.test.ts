// The built client (clients/typescript/dist, as published) runs on the oldest Node it supports:
// the machine's own Node 20 runs an application script that imports it by its package name and
// drives a listening gateway.
import test from 'ava';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { ensureClientBuilt, CLIENT_DIR } from '../helpers/client-build.ts';
import { accountWithEmail, startListeningGateway } from '../helpers/listening.ts';
import type { ListeningGateway } from '../helpers/listening.ts';

const OLD_NODE = process.env.MG_TEST_NODE20 ?? '/usr/bin/node';
const engines = (JSON.parse(fs.readFileSync(path.join(CLIENT_DIR, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
const run = promisify(execFile);

let gw: ListeningGateway;
test.before(async () => {
  [gw] = await Promise.all([startListeningGateway(), ensureClientBuilt()]);
});
test.after.always(async () => {
  await gw?.stop();
});

test('the built package runs a model, uploads, verifies a webhook and types its errors on Node 20', async (t) => {
  const { stdout: version } = await run(OLD_NODE, ['--version']);
  t.is(version.trim().split('.')[0], `v${/\d+/.exec(engines)![0]}`, `${OLD_NODE} must be the oldest Node the client supports (${engines}); set MG_TEST_NODE20 to one`);
  const account = await accountWithEmail(gw, 1000);
  const broke = await accountWithEmail(gw, 0);
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const body = '{"id":"p","status":"completed"}';
  const at = new Date();
  const headers = { 'webhook-id': 'msg_node20', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign('msg_node20', at, body) };
  const { stdout } = await run(OLD_NODE, [path.join(import.meta.dirname, 'fixtures', 'node20-smoke.mjs')], {
    env: { PATH: process.env.PATH ?? '', BASE_URL: gw.baseUrl, API_KEY: account.liveKey, BROKE_KEY: broke.liveKey, HOOK: JSON.stringify({ body, headers, secret }) },
  });
  const seen = JSON.parse(stdout) as { node: string; status: string; outputs: number; states: string[]; uploaded: number[]; webhookId: string; forged: string; broke: string };
  t.is(seen.node, version.trim());
  t.is(seen.status, 'completed');
  t.is(seen.outputs, 1);
  t.is(seen.states.at(-1), 'completed');
  t.deepEqual(seen.uploaded, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  t.is(seen.webhookId, 'p');
  t.is(seen.forged, 'WebhookVerificationError');
  t.is(seen.broke, 'insufficient_credit');
});

test('the built package imports nothing but its own modules and eventsource-parser: no Node-only module in the core', async (t) => {
  const dist = await ensureClientBuilt();
  const imports = new Set<string>();
  for (const file of fs.readdirSync(dist, { recursive: true }) as string[]) {
    if (!file.endsWith('.js')) continue;
    const text = fs.readFileSync(path.join(dist, file), 'utf8');
    for (const m of text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/gm)) imports.add(m[1]!);
    for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) imports.add(m[1]!);
    t.false(/\b(process\.|Buffer\.|require\()/.test(text), `${file} uses a Node global`);
  }
  t.deepEqual([...imports].filter((s) => !s.startsWith('./')), ['eventsource-parser']);
});
