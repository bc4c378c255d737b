// The built TypeScript client (clients/typescript/dist, as published) in a real headless chromium
// (Debian's, through playwright-core): a page on its own origin imports it with an import map, no
// bundler, and runs a model with an embed code against a gateway listening on a port; the same page
// on an origin the code does not allow is refused by CORS.
import test from 'ava';
import http from 'node:http';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { launchBrowser, pageProblems } from '../helpers/browser.ts';
import { CLIENT_DIST, ensureClientBuilt } from '../helpers/client-build.ts';
import { accountWithEmail, startListeningGateway } from '../helpers/listening.ts';
import type { ListeningGateway } from '../helpers/listening.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const PARSER = path.join(ROOT, 'node_modules', 'eventsource-parser', 'dist', 'index.js');
const MODEL = 'canvas-v1-fast-text-to-image';

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>client in a page</title>
<script type="importmap">
  { "imports": { "@mediagate/client": "/vendor/mediagate-client/index.js", "eventsource-parser": "/vendor/eventsource-parser/index.js" } }
</script></head>
<body><pre id="out"></pre>
<script type="module">
  import { Mediagate, verifyWebhook, GatewayError } from '@mediagate/client';
  const params = JSON.parse(decodeURIComponent(location.hash.slice(1)));
  const out = document.getElementById('out');
  const report = {};
  try {
    const client = new Mediagate({ baseUrl: params.gateway, embedCode: params.code });
    const states = [];
    const p = await client.run('${MODEL}', { prompt: 'a kite over a beach' }, { pollIntervalMs: 100, onProgress: (x) => states.push(x.status) });
    Object.assign(report, { status: p.status, outputs: p.outputs, states, visitor: client.embedVisitor });
    const again = await new Mediagate({ baseUrl: params.gateway, embedCode: params.code, embedVisitor: client.embedVisitor }).get(p.id);
    report.readBack = again.status;
    report.verified = (await verifyWebhook(params.hook.body, params.hook.headers, params.hook.secret)).id;
  } catch (err) {
    Object.assign(report, { error: err.name, code: err instanceof GatewayError ? err.code : undefined, message: err.message });
  }
  out.textContent = JSON.stringify(report);
  out.dataset.done = 'yes';
</script></body></html>`;

function serveFile(res: http.ServerResponse, file: string): void {
  try {
    const body = fs.readFileSync(file);
    res.writeHead(200, { 'content-type': file.endsWith('.js') ? 'text/javascript' : 'application/octet-stream' }).end(body);
  } catch {
    res.writeHead(404).end();
  }
}

/** The page and the client's files on 127.0.0.1 (a port of its own: an origin of its own). */
async function pageServer(): Promise<{ origin: string; close(): Promise<void> }> {
  const srv = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    if (url.pathname === '/favicon.ico') return void res.writeHead(204).end();
    if (url.pathname === '/vendor/eventsource-parser/index.js') return serveFile(res, PARSER);
    const rel = url.pathname.startsWith('/vendor/mediagate-client/') ? path.normalize(url.pathname.slice('/vendor/mediagate-client/'.length)) : undefined;
    if (rel && !rel.startsWith('..')) return serveFile(res, path.join(CLIENT_DIST, rel));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, close: () => new Promise((resolve) => srv.close(() => resolve())) };
}

let gw: ListeningGateway;
let browser: Browser;
let allowed: Awaited<ReturnType<typeof pageServer>>;
let refused: Awaited<ReturnType<typeof pageServer>>;
let code: string;
const secret = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;

test.before(async () => {
  [gw] = await Promise.all([startListeningGateway(), ensureClientBuilt()]);
  [allowed, refused, browser] = await Promise.all([pageServer(), pageServer(), launchBrowser()]);
  const owner = await accountWithEmail(gw, 1000);
  const res = await gw.server.inject({
    method: 'POST', url: '/app/embed-codes', headers: { authorization: `Bearer ${owner.session}` },
    payload: { kind: 'embed', name: 'page', models: [MODEL], allowed_origins: [allowed.origin] },
  });
  code = (JSON.parse(res.payload) as { code: string }).code;
});
test.after.always(async () => {
  await browser?.close();
  await allowed?.close();
  await refused?.close();
  await gw?.stop();
});

async function open(origin: string): Promise<{ report: Record<string, unknown>; problems: string[] }> {
  const page = await browser.newPage();
  try {
    const problems = pageProblems(page);
    const at = new Date();
    const body = '{"id":"p","status":"completed"}';
    const hook = { body, secret, headers: { 'webhook-id': 'msg_page', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign('msg_page', at, body) } };
    await page.goto(`${origin}/#${encodeURIComponent(JSON.stringify({ gateway: gw.baseUrl, code, hook }))}`);
    await page.waitForSelector('#out[data-done="yes"]', { timeout: 60_000 });
    return { report: JSON.parse(await page.locator('#out').innerText()) as Record<string, unknown>, problems };
  } finally {
    await page.close();
  }
}

test('in a browser, from an origin the embed code allows, the client runs the model, keeps the visitor and verifies a webhook', async (t) => {
  const { report, problems } = await open(allowed.origin);
  t.is(report.status, 'completed', JSON.stringify(report));
  t.is((report.outputs as string[]).length, 1);
  t.is((report.states as string[]).at(-1), 'completed');
  t.regex(String(report.visitor), /^vis_/);
  t.is(report.readBack, 'completed');
  t.is(report.verified, 'p');
  // nothing failed: an embed code polls, it does not try the event stream the gateway would refuse it
  t.deepEqual(problems, []);
});

test('in a browser, from an origin the embed code does not allow, the gateway\'s CORS refusal is a ConnectionError', async (t) => {
  const { report } = await open(refused.origin);
  t.is(report.error, 'ConnectionError', JSON.stringify(report));
  t.falsy(report.status);
});
