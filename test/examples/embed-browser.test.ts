// The example page (examples/embed/index.html) in a real headless chromium (playwright-core,
// Debian's /usr/bin/chromium), served from an allowed origin and from a refused one, against a
// gateway listening on a real port: CORS, the visitor id and the code's restrictions as a browser
// meets them.
import test from 'ava';
import http from 'node:http';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';

const PAGE = path.resolve(import.meta.dirname, '../../examples/embed/index.html');
const MODEL = 'canvas-v1-fast-text-to-image';

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

/** A static server for the example page on 127.0.0.1 (its own port: its own origin). */
async function pageServer(): Promise<{ origin: string; close(): Promise<void> }> {
  const html = await fs.readFile(PAGE);
  const srv = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as net.AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => srv.close(() => resolve())) };
}

let gw: TestGateway;
let owner: Account;
let gatewayUrl: string;
let browser: Browser;
let allowed: Awaited<ReturnType<typeof pageServer>>;
let refused: Awaited<ReturnType<typeof pageServer>>;
let code: string;

test.before(async () => {
  const port = await freePort();
  gatewayUrl = `http://127.0.0.1:${port}`;
  gw = await startGateway({ worker: true, env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: gatewayUrl } });
  await gw.server.start();
  owner = await newAccount(gw, 10_000);
  allowed = await pageServer();
  refused = await pageServer();
  const res = await gw.server.inject({
    method: 'POST', url: '/app/embed-codes', headers: { authorization: `Bearer ${owner.session}` },
    payload: { kind: 'embed', name: 'example', models: [MODEL], allowed_origins: [allowed.origin], allowed_fields: ['prompt'] },
  });
  code = (JSON.parse(res.payload) as { code: string }).code;
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});
test.after.always(async () => {
  await browser?.close();
  await allowed?.close();
  await refused?.close();
  await gw?.server.stop();
  await gw?.stop();
});

// Serial: the refused origin's test counts every prediction before and after, and the allowed
// origin's test creates one; run side by side, that one could land in between.
const pageUrl = (origin: string) => `${origin}/?gateway=${encodeURIComponent(gatewayUrl)}&code=${encodeURIComponent(code)}`;

test.serial('from an allowed origin the page draws the form, generates, polls with its visitor id and shows the image', async (t) => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(pageUrl(allowed.origin));
    await page.waitForSelector('#status:has-text("ready")');
    // only the visitor-editable field is drawn
    t.deepEqual(await page.locator('#fields input').evaluateAll((els) => els.map((e) => (e as unknown as { name: string }).name)), ['prompt']);
    await page.fill('input[name=prompt]', 'a lighthouse at dusk');
    await page.click('button[type=submit]');
    await page.waitForSelector('#status:has-text("completed")');
    await page.waitForSelector('#result img');
    const src = await page.locator('#result img').getAttribute('src');
    t.true(src!.startsWith(`${gatewayUrl}/files/`));
    const visitor = await page.evaluate((c) => localStorage.getItem(`mediagate-visitor:${c}`), code);
    t.regex(visitor ?? '', /^vis_/);
    const rows = await gw.app.db('predictions').whereNotNull('embed_code_id');
    t.is(rows.length, 1);
    t.like(JSON.parse(rows[0].input), { prompt: 'a lighthouse at dusk' });
  } finally {
    await context.close();
  }
});

test.serial('from a refused origin the page reads only why it is refused, and nothing runs', async (t) => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const before = await gw.app.db('predictions').count({ n: '*' }).first();
    await page.goto(pageUrl(refused.origin));
    await page.waitForSelector('#status:has-text("error")');
    // resolving the code (a plain GET) is refused in a body the page may read: it shows why
    t.regex(await page.locator('#status').innerText(), new RegExp(`403 embed_origin_not_allowed: this embed code may not be used from ${refused.origin}`));
    t.true(await page.locator('#form').isHidden());
    // a submit attempted by the page's own script: its preflight names no origin (no code allows this one), so the browser sends nothing
    const outcome = await page.evaluate(async ({ gatewayUrl, code, model }) => {
      try {
        await fetch(`${gatewayUrl}/api/v1/${model}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-embed-code': code }, body: '{"prompt":"x"}' });
        return 'read';
      } catch {
        return 'blocked';
      }
    }, { gatewayUrl, code, model: MODEL });
    t.is(outcome, 'blocked');
    const after = await gw.app.db('predictions').count({ n: '*' }).first();
    t.is(Number(after!.n), Number(before!.n));
  } finally {
    await context.close();
  }
});
