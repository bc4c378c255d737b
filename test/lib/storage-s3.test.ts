// Outputs and uploads on S3-compatible storage (STORAGE_URL), against a real S3-compatible server
// started here (s3rver, test/helpers/s3.ts), not a mock: the presigned upload flow, the gateway's
// own size and type checks at registration and when an upload's file URL is fetched, deleting an asset removes the object, a prediction
// whose output lands in the bucket is served from its URL (a redirect to a presigned GET), and
// removing every output of a prediction deletes its keys and nothing beside them. A store
// that accepts connections and never answers is a plain TCP server: its calls fail in bounded time.
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { newPredictionId } from '../../db/predictions/record.ts';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { createS3Storage } from '../../lib/storage-s3.ts';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { waitFor } from '../helpers/services.ts';
import { startS3 } from '../helpers/s3.ts';
import { createRetention } from '../../workers/retention.ts';
import type { TestS3 } from '../helpers/s3.ts';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
let s3: TestS3;
let gw: TestGateway;
let a: Account;
let b: Account;

test.before(async () => {
  s3 = await startS3();
  gw = await startGateway({ worker: true, env: { ...s3.env, UPLOAD_MAX_BYTES_IMAGE: '1000' } });
  a = await newAccount(gw, 100_000);
  b = await newAccount(gw);
});
test.after.always(async () => {
  await gw?.stop();
  await s3?.stop();
});

interface Address { upload_url: string; file_url: string; headers: Record<string, string>; expires_at: string; max_bytes: number }
interface Asset { id: number; url: string; size_bytes: number | null; content_type: string | null }

async function address(as: string, filename: string, query: Record<string, string | number> = {}) {
  const res = await callOperation<Address>(gw, 'getFileUploadUrl', { as, query: { filename, ...query } });
  if (res.status !== 200) throw new Error(`getFileUploadUrl: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
const keyOf = (fileUrl: string) => new URL(fileUrl).pathname.replace(/^\/files\//, '');

/** GET through the gateway: a redirect to a presigned GET on the store, then the object itself. */
async function fetchThroughGateway(fileUrl: string) {
  const res = await gw.server.inject({ method: 'GET', url: new URL(fileUrl).pathname });
  if (res.statusCode !== 302) return { status: res.statusCode, body: Buffer.alloc(0), redirect: res };
  const location = String(res.headers.location);
  const obj = await fetch(location);
  return { status: obj.status, body: Buffer.from(await obj.arrayBuffer()), redirect: res, location };
}

test('a presigned upload: PUT to the store, register, serve through the gateway, delete removes the object', async (t) => {
  const addr = await address(a.liveKey, 'photo.png', { size_bytes: PNG.length });
  const upload = new URL(addr.upload_url);
  t.is(upload.origin, s3.endpoint, 'the client PUTs to the store, not to the gateway');
  const signed = upload.searchParams.get('X-Amz-SignedHeaders')!.split(';');
  t.true(signed.includes('content-type'), 'the content type is bound into the signature');
  t.true(signed.includes('content-length'), 'the declared size is bound into the signature');
  t.is(upload.searchParams.get('X-Amz-Expires'), '900');
  t.false(upload.searchParams.has('x-amz-checksum-crc32'), 'no checksum of an empty body is signed');
  t.deepEqual(addr.headers, { 'content-type': 'image/png' });
  t.regex(addr.file_url, /^http:\/\/gateway\.test\/files\/uploads\/[0-9a-f]{32}\/photo\.png$/);

  const notYet = await callOperation(gw, 'createMediaAsset', { as: a.liveKey, body: { url: addr.file_url, media_type: 'image' } });
  t.is(notYet.status, 404, 'nothing uploaded yet');
  const put = await fetch(addr.upload_url, { method: 'PUT', headers: addr.headers, body: PNG });
  t.is(put.status, 200);
  t.is(await s3.head(keyOf(addr.file_url)), PNG.length);

  t.is((await callOperation(gw, 'createMediaAsset', { as: b.liveKey, body: { url: addr.file_url, media_type: 'image' } })).status, 404, 'another tenant cannot claim it');
  const asset = await callOperation<Asset>(gw, 'createMediaAsset', { as: a.liveKey, body: { url: addr.file_url, media_type: 'image' } });
  t.is(asset.status, 200);
  t.like(asset.body, { url: addr.file_url, size_bytes: PNG.length, content_type: 'image/png' });

  const served = await fetchThroughGateway(addr.file_url);
  t.is(served.status, 200);
  t.deepEqual(served.body, PNG);
  t.true(served.location!.startsWith(`${s3.endpoint}/${s3.bucket}/uploads/`));
  t.is(served.redirect.headers['cache-control'], 'no-store', 'a redirect is never cached past its signature');

  t.is((await callOperation(gw, 'deleteMediaAsset', { as: b.liveKey, params: { asset_id: asset.body.id } })).status, 404);
  t.is(await s3.head(keyOf(addr.file_url)), PNG.length);
  t.is((await callOperation(gw, 'deleteMediaAsset', { as: a.liveKey, params: { asset_id: asset.body.id } })).status, 200);
  t.is(await s3.head(keyOf(addr.file_url)), null, 'deleting the asset removed the object');
});

test('a file name with dots inside ("my..cat.png"): deleting its asset removes the object', async (t) => {
  const addr = await address(a.liveKey, 'my..cat.png', { size_bytes: PNG.length });
  t.is((await fetch(addr.upload_url, { method: 'PUT', headers: addr.headers, body: PNG })).status, 200);
  const asset = await callOperation<Asset>(gw, 'createMediaAsset', { as: a.liveKey, body: { url: addr.file_url, media_type: 'image' } });
  t.is(asset.status, 200);
  t.is((await callOperation(gw, 'deleteMediaAsset', { as: a.liveKey, params: { asset_id: asset.body.id } })).status, 200);
  t.is(await s3.head(keyOf(addr.file_url)), null, 'deleting the asset removed the object');
});

test('an object over the limit (no size declared) or of another type is removed at registration: 413, 415', async (t) => {
  const big = await address(a.liveKey, 'big.png');
  t.is((await fetch(big.upload_url, { method: 'PUT', headers: big.headers, body: Buffer.alloc(1001) })).status, 200);
  const refused = await callOperation<{ code: string }>(gw, 'createMediaAsset', { as: a.liveKey, body: { url: big.file_url, media_type: 'image' } });
  t.is(refused.status, 413);
  t.is(refused.body.code, 'payload_too_large');
  t.is(await s3.head(keyOf(big.file_url)), null);

  // s3rver does not verify signatures; a real store refuses this PUT itself (403 SignatureDoesNotMatch)
  const typed = await address(a.liveKey, 'typed.png');
  t.is((await fetch(typed.upload_url, { method: 'PUT', headers: { 'content-type': 'text/html' }, body: '<script>' })).status, 200);
  const wrongType = await callOperation(gw, 'createMediaAsset', { as: a.liveKey, body: { url: typed.file_url, media_type: 'image' } });
  t.is(wrongType.status, 415);
  t.is(await s3.head(keyOf(typed.file_url)), null);
});

test('a presigned upload without a declared size is read at the store when fetched: over the limit, of another type, or replaced so, it is removed (404); its size is recorded', async (t) => {
  const rowOf = async (fileUrl: string) => gw.app.db('uploads').where({ storage_key: keyOf(fileUrl) }).first() as Promise<{ size_bytes: number | string | null; state: string }>;
  const big = await address(a.liveKey, 'fetched-big.png');
  t.is((await fetch(big.upload_url, { method: 'PUT', headers: big.headers, body: Buffer.alloc(1001) })).status, 200);
  const refused = await gw.server.inject({ method: 'GET', url: new URL(big.file_url).pathname });
  t.is(refused.statusCode, 404, 'no redirect to an object over the limit (a model fetching its input gets nothing)');
  t.is(JSON.parse(refused.payload).code, 'not_found');
  t.regex(JSON.parse(refused.payload).detail as string, /1001 bytes.*at most 1000/);
  t.is(await s3.head(keyOf(big.file_url)), null, 'the object was removed');

  const typed = await address(a.liveKey, 'fetched-typed.png');
  t.is((await fetch(typed.upload_url, { method: 'PUT', headers: { 'content-type': 'text/html' }, body: '<script>' })).status, 200);
  t.is((await gw.server.inject({ method: 'GET', url: new URL(typed.file_url).pathname })).statusCode, 404);
  t.is(await s3.head(keyOf(typed.file_url)), null);

  t.is((await gw.server.inject({ method: 'GET', url: `/files/uploads/${'0'.repeat(32)}/none.png` })).statusCode, 404, 'a key no upload has: no redirect');

  const fine = await address(a.liveKey, 'fetched.png');
  t.is((await fetch(fine.upload_url, { method: 'PUT', headers: fine.headers, body: PNG })).status, 200);
  t.is((await fetchThroughGateway(fine.file_url)).status, 200);
  t.like(await rowOf(fine.file_url), { state: 'done' });
  t.is(Number((await rowOf(fine.file_url)).size_bytes), PNG.length, 'the size the store answered is recorded');

  // registered, then replaced through the same address (still valid) by a file over the limit
  const asset = await callOperation<Asset>(gw, 'createMediaAsset', { as: a.liveKey, body: { url: fine.file_url, media_type: 'image' } });
  t.is(asset.status, 200);
  t.is((await fetch(fine.upload_url, { method: 'PUT', headers: fine.headers, body: Buffer.alloc(1001) })).status, 200);
  t.is((await gw.server.inject({ method: 'GET', url: new URL(fine.file_url).pathname })).statusCode, 404);
  t.is(await s3.head(keyOf(fine.file_url)), null, 'the replacing object was removed');
});

test('registering a presigned upload records the size the store answered on the upload', async (t) => {
  const addr = await address(a.liveKey, 'registered-size.png');
  t.is((await fetch(addr.upload_url, { method: 'PUT', headers: addr.headers, body: PNG })).status, 200);
  t.is((await callOperation(gw, 'createMediaAsset', { as: a.liveKey, body: { url: addr.file_url, media_type: 'image' } })).status, 200);
  const row = await gw.app.db('uploads').where({ storage_key: keyOf(addr.file_url) }).first() as { size_bytes: number | string | null; state: string };
  t.is(Number(row.size_bytes), PNG.length);
  t.is(row.state, 'done');
});

test('retention removes an upload no media library took from the bucket, and keeps a registered one', async (t) => {
  let at = Date.now();
  const gw3 = await startGateway({ queue: 'memory', clock: () => at, env: s3.env });
  try {
    const c = await newAccount(gw3);
    const issue = async (filename: string) => (await callOperation<Address>(gw3, 'getFileUploadUrl', { as: c.liveKey, query: { filename } })).body;
    const input = await issue('input.png');
    const kept = await issue('kept.png');
    for (const addr of [input, kept]) t.is((await fetch(addr.upload_url, { method: 'PUT', headers: addr.headers, body: PNG })).status, 200);
    t.is((await callOperation(gw3, 'createMediaAsset', { as: c.liveKey, body: { url: kept.file_url, media_type: 'image' } })).status, 200);
    at += 31 * 86_400_000;
    const retention = createRetention(gw3.app);
    t.is((await retention.runOnce())?.uploads, 1);
    await retention.stop();
    t.is(await s3.head(keyOf(input.file_url)), null, 'the unregistered upload\'s object is gone');
    t.is(await s3.head(keyOf(kept.file_url)), PNG.length, 'the asset keeps its object');
  } finally {
    await gw3.stop();
  }
});

test('a prediction\'s output lands in the bucket and is served from its URL; retention removes it there', async (t) => {
  const res = await gw.server.inject({
    method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { 'x-api-key': a.liveKey }, payload: { prompt: 'a lighthouse', width: 64, height: 64 },
  });
  t.is(res.statusCode, 200, res.payload);
  const id = (res.result as { request_id: string }).request_id;
  const result = await waitFor(async () => {
    const r = await gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${id}/result`, headers: { 'x-api-key': a.liveKey } });
    const body = JSON.parse(r.payload) as { status: string; outputs: string[] };
    return body.status === 'completed' || body.status === 'failed' ? body : undefined;
  }, { what: 'the prediction to finish', timeoutMs: 30_000 });
  t.is(result.status, 'completed');
  const url = result.outputs[0]!;
  t.regex(url, new RegExp(`^http://gateway\\.test/files/outputs/${id}/0\\.png$`));
  const key = keyOf(url);
  t.truthy(await s3.head(key), 'the output is in the bucket');
  const served = await fetchThroughGateway(url);
  t.is(served.status, 200);
  t.deepEqual([...served.body.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'a PNG');

  t.is(await gw.app.storage.removeOutputs(id, [key]), 1);
  t.is(await s3.head(key), null);
  // retention marks them expired: the gateway answers its own 404 saying why, not a redirect to the bucket's
  await gw.app.db('predictions').where({ id }).update({ outputs_expired_at: Date.now() });
  const expired = await gw.server.inject({ method: 'GET', url: new URL(url).pathname });
  t.is(expired.statusCode, 404);
  t.regex(JSON.parse(expired.payload).detail, /output files were removed, as every prediction's are 30 days after it completed/);
  const unknown = await gw.server.inject({ method: 'GET', url: `/files/outputs/${id.replace(/.$/, (c) => (c === '0' ? '1' : '0'))}/0.png` });
  t.is(unknown.statusCode, 404, 'no redirect for a prediction that does not exist');
  t.is(JSON.parse(unknown.payload).detail, 'file not found');
});

/** every key of the bucket under `prefix` (a page's worth) */
async function listed(prefix: string): Promise<string[]> {
  const page = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
  return (page.Contents ?? []).map((o) => o.Key!).sort();
}

async function put(keys: readonly string[]): Promise<void> {
  await Promise.all(keys.map((Key) => s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key, Body: PNG, ContentType: 'image/png' }))));
}

/** the gateway's storage on the test bucket, under a key prefix of this test's own */
async function prefixed(t: import('ava').ExecutionContext, prefix: string) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-s3-local-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  return createS3Storage({
    bucket: s3.bucket, prefix, endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER',
  }, dir, 'http://gateway.test');
}

// (more than a listing page of them: storage-s3-pages.test.ts, s3rver cannot list a second page on Node 24)
test('removing every output of a prediction deletes each key under its outputs, whatever the key, and nothing else', async (t) => {
  const storage = await prefixed(t, 'all-outputs');
  const mine = ['all-outputs/outputs/p1/0.png', 'all-outputs/outputs/p1/1.jpg', 'all-outputs/outputs/p1/7.bin'];
  const others = [
    'all-outputs/outputs/p10/0.png', 'all-outputs/outputs/p2/0.png', 'all-outputs/outputs/p1', 'all-outputs/uploads/0123456789abcdef0123456789abcdef/p1.png',
    // outside the gateway's key prefix
    'outputs/p1/0.png', 'other/all-outputs/outputs/p1/0.png',
  ];
  await put([...mine, ...others]);
  t.is(await storage.removeAllOutputs('p1'), mine.length);
  t.deepEqual(await listed('all-outputs/outputs/p1/'), []);
  for (const key of others) t.truthy(await s3.head(key), `${key} stays`);
  t.is(await storage.removeAllOutputs('p1'), 0, 'nothing stored is nothing to remove');
  for (const id of ['..', '../p2', 'p1/0.png', '']) await t.throwsAsync(storage.removeAllOutputs(id), { message: /not a prediction id/ });
  for (const key of others) t.truthy(await s3.head(key), `${key} still stays`);
});

test('removing the outputs of a prediction but the kept keys deletes every other key under its outputs', async (t) => {
  const storage = await prefixed(t, 'but-kept');
  const kept = ['outputs/p1/0.png', 'outputs/p1/1.png'];
  const earlier = ['but-kept/outputs/p1/0.webp', 'but-kept/outputs/p1/2.png'];
  await put([...kept.map((k) => `but-kept/${k}`), ...earlier, 'but-kept/outputs/p10/0.png']);
  t.is(await storage.removeAllOutputs('p1', kept), earlier.length);
  t.deepEqual((await listed('but-kept/outputs/p1/')).sort(), kept.map((k) => `but-kept/${k}`));
  t.truthy(await s3.head('but-kept/outputs/p10/0.png'));
  t.is(await storage.removeAllOutputs('p1', kept), 0, 'only the kept keys are left');
});

test('a path outside the stored keys is 404, never a presigned address', async (t) => {
  for (const p of ['/files/outputs/..%2Fsecret', '/files/uploads/a%20b/c.png', '/files/outputs/']) {
    const res = await gw.server.inject({ method: 'GET', url: p });
    t.is(res.statusCode, 404, p);
  }
});

test('a store that does not answer is 503 to retry, never a 500; the asset stays until its file is gone', async (t) => {
  const other = await startS3();
  const gw2 = await startGateway({ queue: 'memory', env: other.env });
  try {
    const c = await newAccount(gw2);
    const addr = (await callOperation<Address>(gw2, 'getFileUploadUrl', { as: c.liveKey, query: { filename: 'x.png' } })).body;
    t.is((await fetch(addr.upload_url, { method: 'PUT', headers: addr.headers, body: PNG })).status, 200);
    const asset = await callOperation<Asset>(gw2, 'createMediaAsset', { as: c.liveKey, body: { url: addr.file_url, media_type: 'image' } });
    t.is(asset.status, 200);
    await other.stop();
    const del = await callOperation<{ code: string }>(gw2, 'deleteMediaAsset', { as: c.liveKey, params: { asset_id: asset.body.id } });
    t.is(del.status, 503);
    t.is(del.body.code, 'unavailable');
    t.is((await callOperation<{ total: number }>(gw2, 'listMediaAssets', { as: c.liveKey })).body.total, 1);
  } finally {
    await gw2.stop();
    await other.stop().catch(() => undefined);
  }
});

test('a store whose credentials cannot be had (no keys set, none in the environment) is 503 to retry on the upload address and a file\'s redirect, never a 500', async (t) => {
  // the SDK's default chain then finds nothing: no keys in the environment or files, no instance metadata
  for (const [k, v] of Object.entries({ AWS_EC2_METADATA_DISABLED: 'true', AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials', AWS_CONFIG_FILE: '/nonexistent/config' })) process.env[k] = v;
  for (const k of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE', 'AWS_CONTAINER_CREDENTIALS_FULL_URI', 'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI', 'AWS_WEB_IDENTITY_TOKEN_FILE']) delete process.env[k];
  const gw2 = await startGateway({ queue: 'memory', env: { STORAGE_URL: s3.env.STORAGE_URL! } });
  try {
    const c = await newAccount(gw2);
    const addr = await callOperation<{ code: string; detail: string }>(gw2, 'getFileUploadUrl', { as: c.liveKey, query: { filename: 'x.png' } });
    t.is(addr.status, 503);
    t.is(addr.body.code, 'unavailable');
    // a prediction's output: its row is read first (it is kept), then its address cannot be signed
    const id = newPredictionId(Date.now());
    await gw2.app.store.submit({ p: { id, userId: c.userId, teamId: null, apiKeyId: null, model: 'canvas-v1-fast-text-to-image', input: { prompt: 'x' }, price: 0, webhookUrl: null }, now: Date.now() });
    const file = await gw2.server.inject({ method: 'GET', url: `/files/outputs/${id}/0.png` });
    t.is(file.statusCode, 503);
    t.is(JSON.parse(file.payload).code, 'unavailable');
  } finally {
    await gw2.stop();
  }
});

/** What `p` came to within `ms`: its value, its error, or still pending. */
async function within<T>(p: Promise<T>, ms: number): Promise<{ value: T } | { err: unknown } | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'pending'>((resolve) => { timer = setTimeout(() => resolve('pending'), ms); });
  try {
    return await Promise.race([p.then((value) => ({ value }), (err: unknown) => ({ err })), late]);
  } finally {
    clearTimeout(timer);
  }
}

test('a store that accepts the connection and never answers: save() and stat() fail in bounded time and let go of it', async (t) => {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  // reads whatever it is sent, answers nothing
  const silent = net.createServer((s) => {
    accepted += 1;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.resume();
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-s3-silent-'));
  const timeouts = { connectionMs: 250, idleMs: 500, maxAttempts: 2 };
  const storage = createS3Storage({
    bucket: 'mediagate-test', prefix: '', endpoint: `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`,
    region: 'us-east-1', forcePathStyle: true, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER',
  }, dir, 'http://gateway.test', timeouts);
  // each attempt waits at most to connect, then idleMs of silence: a margin of three times that
  const bound = 3 * timeouts.maxAttempts * (timeouts.connectionMs + timeouts.idleMs);
  const calls: Array<[string, () => Promise<unknown>]> = [
    ['save', () => storage.save('silent', 0, { data: new Uint8Array(PNG), contentType: 'image/png', extension: 'png' })],
    ['stat', () => storage.stat('uploads/0123456789abcdef0123456789abcdef/x.png')],
  ];
  try {
    for (const [what, call] of calls) {
      accepted = 0;
      const outcome = await within(call(), bound);
      if (outcome === 'pending' || !('err' in outcome)) {
        t.fail(`${what}: ${outcome === 'pending' ? `still pending after ${bound} ms` : 'answered'}`);
        continue;
      }
      // an error like any other store failure's, which the callers handle (the API answers 503)
      t.is((outcome.err as Error).name, 'TimeoutError', what);
      t.is(accepted, timeouts.maxAttempts, `${what}: the SDK retried, up to maxAttempts`);
      await waitFor(() => sockets.size === 0, { what: `${what}'s connections to be closed`, timeoutMs: bound });
    }
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => silent.close(resolve));
    await fs.rm(dir, { recursive: true, force: true });
  }
});
