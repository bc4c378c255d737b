// Provider callback addresses and signatures (lib/upstream-callbacks.ts): the token is
// unguessable and bound to its provider and prediction; Standard Webhooks (Replicate) and
// fal's ED25519 scheme verify what was signed and nothing else. Keys are the tests' own.
import test from 'ava';
import crypto from 'node:crypto';
import nock from 'nock';
import { cutOff, hugeHost } from '../helpers/huge-host.ts';
import {
  callbackToken, callbackUrlFor, createFalKeySet, ed25519Keys, readCallbackToken, verifyFalWebhook, verifyStandardWebhook,
} from '../../lib/upstream-callbacks.ts';
import type { CallbackConfig } from '../../lib/upstream-callbacks.ts';
import { loadConfig } from '../../config.ts';

const KEY = Buffer.alloc(32, 7);
const NOW = 1_795_000_000_000;
const SECRET = `whsec_${Buffer.alloc(24, 3).toString('base64')}`;

function signStandard(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return `v1,${crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

function falSign(privateKey: crypto.KeyObject, requestId: string, userId: string, timestamp: number, body: string): string {
  const digest = crypto.createHash('sha256').update(body).digest('hex');
  return crypto.sign(null, Buffer.from(`${requestId}\n${userId}\n${timestamp}\n${digest}`), privateKey).toString('hex');
}

test('a token names its prediction only with the right key and provider; anything else reads as nothing', (t) => {
  const token = callbackToken(KEY, 'fal', 'pred-1');
  t.is(readCallbackToken(KEY, 'fal', token), 'pred-1');
  t.is(readCallbackToken(KEY, 'replicate', token), undefined, 'bound to the provider');
  t.is(readCallbackToken(Buffer.alloc(32, 8), 'fal', token), undefined, 'bound to the key');
  t.is(readCallbackToken(KEY, 'fal', token.replace('pred-1', 'pred-2')), undefined, 'bound to the prediction');
  t.is(readCallbackToken(KEY, 'fal', 'pred-1.'), undefined);
  t.is(readCallbackToken(undefined, 'fal', token), undefined, 'no key: no callback can be read');
  t.regex(token, /^pred-1\.[A-Za-z0-9_-]{43}$/);
});

test('a callback address is made only when callbacks are on and the provider can be verified', (t) => {
  const config: CallbackConfig = { enabled: true, publicUrl: 'https://gw.example', key: KEY, replicateSecret: undefined, falJwksUrl: 'https://keys.example/jwks.json' };
  t.regex(callbackUrlFor(config, 'fal', 'p1')!, /^https:\/\/gw\.example\/api\/v1\/upstream-webhooks\/fal\/p1\.[A-Za-z0-9_-]{43}$/);
  t.is(callbackUrlFor(config, 'replicate', 'p1'), undefined, 'no signing secret: Replicate is not asked to call back');
  t.truthy(callbackUrlFor({ ...config, replicateSecret: SECRET }, 'replicate', 'p1'));
  t.is(callbackUrlFor({ ...config, enabled: false }, 'fal', 'p1'), undefined);
  t.is(callbackUrlFor(config, 'http-json', 'p1'), undefined, 'a provider without a verifiable callback');
  t.is(callbackUrlFor(config, 'wavespeed', 'p1'), undefined, 'no webhook secret: WaveSpeed is not asked to call back');
  t.regex(callbackUrlFor({ ...config, wavespeedSecret: 'whsec_abcdefghijklmnopqrstuv' }, 'wavespeed', 'p1')!, /\/upstream-webhooks\/wavespeed\/p1\./);
});

test('Standard Webhooks: the signed body verifies (one of several signatures is enough); a changed body, another secret or an old timestamp do not', (t) => {
  const body = Buffer.from('{"id":"gm3q","status":"succeeded"}');
  const ts = Math.floor(NOW / 1000);
  const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(ts), 'webhook-signature': `v1,bm90IGl0 ${signStandard(SECRET, 'msg_1', ts, body.toString())}` };
  t.is(verifyStandardWebhook(SECRET, headers, body, NOW), null);
  t.is(verifyStandardWebhook(SECRET, headers, Buffer.from('{"id":"gm3q","status":"failed"}'), NOW), 'signature does not match');
  t.is(verifyStandardWebhook(`whsec_${Buffer.alloc(24, 4).toString('base64')}`, headers, body, NOW), 'signature does not match');
  t.is(verifyStandardWebhook(SECRET, headers, body, NOW + 6 * 60_000), 'timestamp outside the 5-minute tolerance');
  t.is(verifyStandardWebhook(SECRET, { ...headers, 'webhook-signature': undefined }, body, NOW), 'missing webhook-id or webhook-signature');
});

test('fal ED25519: the signed body verifies with a key of the set; a changed body or header, or a foreign key, do not', (t) => {
  const mine = crypto.generateKeyPairSync('ed25519');
  const other = crypto.generateKeyPairSync('ed25519');
  const keys = ed25519Keys({ keys: [{ kty: 'RSA', n: 'x', e: 'AQAB' }, other.publicKey.export({ format: 'jwk' }), mine.publicKey.export({ format: 'jwk' })] });
  t.is(keys.length, 2, 'non-Ed25519 keys are skipped');
  const body = Buffer.from('{"request_id":"r1","status":"OK","payload":{}}');
  const ts = Math.floor(NOW / 1000);
  const headers = {
    'x-fal-webhook-request-id': 'r1', 'x-fal-webhook-user-id': 'u1', 'x-fal-webhook-timestamp': String(ts),
    'x-fal-webhook-signature': falSign(mine.privateKey, 'r1', 'u1', ts, body.toString()),
  };
  t.is(verifyFalWebhook(keys, headers, body, NOW), null);
  t.is(verifyFalWebhook(keys, headers, Buffer.from(body.toString().replace('OK', 'ERROR')), NOW), 'signature does not match');
  t.is(verifyFalWebhook(keys, { ...headers, 'x-fal-webhook-user-id': 'u2' }, body, NOW), 'signature does not match');
  t.is(verifyFalWebhook(ed25519Keys({ keys: [other.publicKey.export({ format: 'jwk' })] }), headers, body, NOW), 'signature does not match');
  t.is(verifyFalWebhook(keys, headers, body, NOW - 10 * 60_000), 'timestamp outside the 5-minute tolerance');
  t.is(verifyFalWebhook(keys, { ...headers, 'x-fal-webhook-signature': 'zz' }, body, NOW), 'malformed signature');
});

test.serial('the fal key set is fetched once and again when a key no cached one verifies (a rotation)', async (t) => {
  nock.disableNetConnect();
  t.teardown(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });
  const first = crypto.generateKeyPairSync('ed25519');
  const rotated = crypto.generateKeyPairSync('ed25519');
  let clock = NOW;
  const fetched: number[] = [];
  nock('https://keys.example').get('/jwks.json').reply(() => {
    fetched.push(clock);
    return [200, { keys: [first.publicKey.export({ format: 'jwk' })] }];
  });
  nock('https://keys.example').get('/jwks.json').reply(() => {
    fetched.push(clock);
    return [200, { keys: [rotated.publicKey.export({ format: 'jwk' })] }];
  });
  const set = createFalKeySet('https://keys.example/jwks.json', 5000, () => clock);
  const sign = (key: crypto.KeyObject) => {
    const body = '{"request_id":"r1"}';
    const ts = Math.floor(clock / 1000);
    return { body: Buffer.from(body), headers: { 'x-fal-webhook-request-id': 'r1', 'x-fal-webhook-user-id': 'u', 'x-fal-webhook-timestamp': String(ts), 'x-fal-webhook-signature': falSign(key, 'r1', 'u', ts, body) } };
  };
  const a = sign(first.privateKey);
  t.is(await set.verify(a.headers, a.body, clock), null);
  t.is(await set.verify(a.headers, a.body, clock), null);
  t.is(fetched.length, 1, 'cached');
  clock += 120_000;
  const b = sign(rotated.privateKey);
  t.is(await set.verify(b.headers, b.body, clock), null, 'refetched on a key it did not know');
  t.is(fetched.length, 2);
});

/** A fresh, well-formed fal callback signed with a key the set will not have: verifying it needs the key set. */
function falCallback(nowMs: number): { headers: Record<string, string>; body: Buffer } {
  const body = '{"request_id":"r1"}';
  const ts = Math.floor(nowMs / 1000);
  const key = crypto.generateKeyPairSync('ed25519').privateKey;
  return { body: Buffer.from(body), headers: { 'x-fal-webhook-request-id': 'r1', 'x-fal-webhook-user-id': 'u', 'x-fal-webhook-timestamp': String(ts), 'x-fal-webhook-signature': falSign(key, 'r1', 'u', ts, body) } };
}

test.serial('a fal key set declared larger than 1 MiB is not read: the fetch fails like any other, and is remembered', async (t) => {
  nock.disableNetConnect();
  t.teardown(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });
  let fetched = 0;
  nock('https://keys.example').get('/jwks.json').times(2).reply(() => {
    fetched += 1;
    return [200, '{"keys":[]}', { 'content-type': 'application/json', 'content-length': String(1024 * 1024 + 1) }];
  });
  const set = createFalKeySet('https://keys.example/jwks.json', 5000, () => NOW);
  const cb = falCallback(NOW);
  await t.throwsAsync(set.verify(cb.headers, cb.body, NOW), { message: /^the fal key set is larger than 1 MiB; it was not read$/ });
  await t.throwsAsync(set.verify(cb.headers, cb.body, NOW), { message: /larger than 1 MiB/ });
  t.is(fetched, 1, 'the failure is remembered: no second fetch before the retry delay');
});

test.serial('an endless fal key set is cut off past 1 MiB: reading stops and the connection is closed', async (t) => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1/);
  t.teardown(() => nock.enableNetConnect());
  const { base, answers, total } = await hugeHost(t, { total: 32 * 1024 * 1024, chunkBytes: 64 * 1024, prefix: '"keys":[],' });
  const set = createFalKeySet(`${base}/jwks.json`, 5000, () => NOW);
  const cb = falCallback(NOW);
  await t.throwsAsync(set.verify(cb.headers, cb.body, NOW), { message: /larger than 1 MiB/ });
  t.true(await cutOff(answers[0], total), 'the connection is closed once the cap is passed, not read to its end');
});

test('UPSTREAM_CALLBACKS needs PUBLIC_URL and ENCRYPTION_KEY; a malformed Replicate secret is refused at start-up', (t) => {
  const key = 'cd'.repeat(32);
  t.throws(() => loadConfig({ UPSTREAM_CALLBACKS: 'true', ENCRYPTION_KEY: key }), { message: /UPSTREAM_CALLBACKS: needs PUBLIC_URL/ });
  t.throws(() => loadConfig({ UPSTREAM_CALLBACKS: 'true', PUBLIC_URL: 'https://gw.example' }), { message: /UPSTREAM_CALLBACKS/ });
  t.throws(() => loadConfig({ REPLICATE_WEBHOOK_SECRET: 'not-a-secret' }), { message: /REPLICATE_WEBHOOK_SECRET/ });
  const config = loadConfig({ UPSTREAM_CALLBACKS: '1', PUBLIC_URL: 'https://gw.example/', ENCRYPTION_KEY: key, UPSTREAM_FAL_KEY: 'k' });
  t.like(config.upstreamCallbacks, { enabled: true, publicUrl: 'https://gw.example', replicateSecret: undefined, falJwksUrl: 'https://rest.fal.ai/.well-known/jwks.json' });
  t.deepEqual(config.upstreams.get('fal'), { url: 'https://queue.fal.run', key: 'k' });
  t.false(loadConfig({}).upstreamCallbacks.enabled, 'off by default');
  t.throws(() => loadConfig({ WAVESPEED_WEBHOOK_SECRET: 'not-a-secret' }), { message: /WAVESPEED_WEBHOOK_SECRET/ });
  const ws = loadConfig({ UPSTREAM_WAVESPEED_KEY: 'wk', WAVESPEED_WEBHOOK_SECRET: 'whsec_abcdefghijklmnopqrstuv' });
  t.is(ws.upstreamCallbacks.wavespeedSecret, 'whsec_abcdefghijklmnopqrstuv');
  t.deepEqual(ws.upstreams.get('wavespeed'), { url: 'https://api.wavespeed.ai/api/v3', key: 'wk' });
});
