// Output downloads and serving through the real worker: an output URL on an internal address is
// never fetched, an output whose bytes are not the model's kind is never stored, and /files/
// answers with nosniff and without public caching. The upstream provider is third-party HTTP: nock.
import test from 'ava';
import nock from 'nock';
import fs from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';

const UPSTREAM = 'https://lumen.upstream.test';
const CDN = 'https://cdn.lumen.test';
const MODEL = '/api/v1/lumen-dev-text-to-image';
const PNG = readFileSync(new URL('../../workers/sandbox/sample.png', import.meta.url));

// strict: the production policy. dev: UPSTREAM_ALLOW_PRIVATE_OUTPUTS, so nock's made-up CDN name
// needs no DNS (the type checks do not depend on the address policy).
let strict: TestGateway;
let dev: TestGateway;
let strictAcct: Account;
let devAcct: Account;
let internalHits = 0;
let internal: http.Server;
let internalUrl = '';

test.before(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  internal = http.createServer((_req, res) => {
    internalHits++;
    res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
  });
  await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve));
  internalUrl = `http://127.0.0.1:${(internal.address() as AddressInfo).port}`;
  strict = await startGateway({ worker: true, env: { UPSTREAM_LUMEN_URL: UPSTREAM, RETRY_DELAYS_MS: '100,200,300' } });
  dev = await startGateway({ worker: true, env: { UPSTREAM_LUMEN_URL: UPSTREAM, RETRY_DELAYS_MS: '100,200,300', UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true' } });
  strictAcct = await newAccount(strict, 100_000);
  devAcct = await newAccount(dev, 100_000);
});
test.after.always(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  await strict?.stop();
  await dev?.stop();
  await new Promise<void>((resolve) => internal?.close(() => resolve()));
});

async function run(gw: TestGateway, acct: Account) {
  const res = await gw.server.inject({ method: 'POST', url: MODEL, headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'x' } });
  if (res.statusCode !== 200) throw new Error(res.payload);
  const id = (res.result as { request_id: string }).request_id;
  const row = await waitFor(async () => {
    const r = await gw.app.db('predictions').where({ id }).first();
    return r.status === 'completed' || r.status === 'failed' ? r : undefined;
  }, { what: 'the prediction to finish', timeoutMs: 30_000 });
  return { id, row };
}

async function leftovers(gw: TestGateway, id: string): Promise<string[]> {
  const dir = gw.app.config.storageDir;
  const stored = await fs.readdir(path.join(dir, 'outputs', id)).catch(() => []);
  const temporary = await fs.readdir(path.join(dir, 'tmp')).catch(() => []);
  return [...stored, ...temporary];
}

test.serial('an output URL on 127.0.0.1 fails the prediction, uncharged, and nothing is fetched from it', async (t) => {
  nock(UPSTREAM).post(/\/v1\/models\/.*\/predictions/).reply(200, { status: 'completed', outputs: [`${internalUrl}/admin/secret.png`] });
  const { id, row } = await run(strict, strictAcct);
  t.is(row.status, 'failed');
  t.regex(String(row.error), /output 1 points at a non-public address; it was not downloaded/);
  t.is(internalHits, 0);
  t.deepEqual(await leftovers(strict, id), []);
  const debits = await strict.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' });
  t.is(debits.length, 0);
});

test.serial('a CDN URL redirecting to 127.0.0.1 fails the prediction at the redirect', async (t) => {
  // The first hop is public: the test's resolver is the system's, so name it by a public literal.
  const cdn = nock('http://93.184.215.14').get('/out.png').reply(302, '', { location: `${internalUrl}/admin/secret.png` });
  nock(UPSTREAM).post(/\/v1\/models\/.*\/predictions/).reply(200, { status: 'completed', outputs: ['http://93.184.215.14/out.png'] });
  const { id, row } = await run(strict, strictAcct);
  t.true(cdn.isDone());
  t.is(row.status, 'failed');
  t.regex(String(row.error), /non-public address/);
  t.is(internalHits, 0);
  t.deepEqual(await leftovers(strict, id), []);
});

for (const [what, body, type] of [
  ['HTML', '<!doctype html><html><body><script>alert(document.cookie)</script></body></html>', 'text/html'],
  ['SVG', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="8" height="8"/></svg>', 'image/svg+xml'],
  ['SVG with an XML declaration', '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', 'image/svg+xml'],
] as const) {
  test.serial(`${what} returned for an image model fails the prediction instead of being stored`, async (t) => {
    nock(UPSTREAM).post(/\/v1\/models\/.*\/predictions/).reply(200, { status: 'completed', outputs: [`${CDN}/out.png`] });
    nock(CDN).get('/out.png').reply(200, body, { 'content-type': type });
    const { id, row } = await run(dev, devAcct);
    t.is(row.status, 'failed');
    t.regex(String(row.error), /output 1 is not an image/);
    // a stable reason beside the message, as for every other refused output
    t.is(row.error_code, 'output_rejected');
    t.deepEqual(await leftovers(dev, id), []);
  });
}

test.serial('the stored type comes from the bytes, and /files/ serves it with nosniff and private caching', async (t) => {
  nock(UPSTREAM).post(/\/v1\/models\/.*\/predictions/).reply(200, { status: 'completed', outputs: [`${CDN}/out.html`] });
  // Claimed to be HTML, named .html: the bytes are a PNG, so it is stored and served as one.
  nock(CDN).get('/out.html').reply(200, PNG, { 'content-type': 'text/html' });
  const { id, row } = await run(dev, devAcct);
  t.is(row.status, 'completed', String(row.error));
  const result = (await dev.server.inject({ method: 'GET', url: `/api/v1/predictions/${id}/result`, headers: { 'x-api-key': devAcct.liveKey } })).result as { outputs: string[] };
  t.regex(result.outputs[0]!, /\/0\.png$/);
  const file = await dev.server.inject({ method: 'GET', url: new URL(result.outputs[0]!).pathname });
  t.is(file.statusCode, 200);
  t.is(file.headers['content-type'], 'image/png');
  t.is(file.headers['x-content-type-options'], 'nosniff');
  t.regex(String(file.headers['cache-control']), /(^|, )private(,|$)/);
  t.notRegex(String(file.headers['cache-control']), /public/);
  t.regex(String(file.headers['content-security-policy']), /sandbox/);
  t.deepEqual(file.rawPayload, PNG);
  t.deepEqual(await fs.readdir(path.join(dev.app.config.storageDir, 'tmp')), []);
});

test.serial('sandbox samples and missing files under /files/ carry nosniff too', async (t) => {
  const sample = await dev.server.inject({ method: 'GET', url: '/files/sandbox/sample.png' });
  t.is(sample.statusCode, 200);
  t.is(sample.headers['x-content-type-options'], 'nosniff');
  t.regex(String(sample.headers['cache-control']), /(^|, )private(,|$)/);
  const missing = await dev.server.inject({ method: 'GET', url: '/files/outputs/nope/0.png' });
  t.is(missing.statusCode, 404);
  t.is(missing.headers['x-content-type-options'], 'nosniff');
});
