// Provider metadata beside a result's interface fields (`provider_metadata`: seed, output size and
// length, a rewritten prompt, the provider's timings), in the result and the webhook payload, when
// the provider said it: fal's seed, first image size and timings; the procedural model's seed,
// which reproduces the image; nothing at all for a provider that says nothing, a sandbox key or a
// failed prediction. fal is third-party HTTP: nock, shaped as fal's Queue API documentation shows.
import test from 'ava';
import nock from 'nock';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { onlyLocalNetwork, tinyPng } from '../helpers/adapters.ts';
import { cleanMetadata } from '../../lib/prediction-view.ts';

const FAL = 'https://queue.fal.test';
const CDN = 'https://v3.fal.media.test';
const PNG = tinyPng(4, 3, 120);

onlyLocalNetwork(test);

/** The finished result; a completed one with its metadata when `metadata` (written just after the completion, before the webhook). */
async function result(gw: TestGateway, key: string, id: string, metadata = true): Promise<Record<string, unknown>> {
  return waitFor(async () => {
    const res = await gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${id}/result`, headers: { 'x-api-key': key } });
    const body = res.result as Record<string, unknown>;
    if (body.status === 'failed') return body;
    return body.status === 'completed' && (!metadata || 'provider_metadata' in body) ? body : undefined;
  }, { what: 'the prediction to finish', timeoutMs: 30_000 });
}

/** The served document's schema of a result (PredictionResult) and of a webhook body (WebhookPayload). */
async function schemas(gw: TestGateway) {
  const doc = JSON.parse((await gw.server.inject({ method: 'GET', url: '/openapi.json' })).payload) as { components: { schemas: Record<string, unknown> } };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'https://gateway.test/openapi.json', components: doc.components });
  return { result: ajv.compile({ $ref: 'https://gateway.test/openapi.json#/components/schemas/PredictionResult' }), webhook: ajv.compile({ $ref: 'https://gateway.test/openapi.json#/components/schemas/WebhookPayload' }) };
}

test.serial('fal\'s seed, first image size and timings come back in the result and the webhook, which still match their schemas', async (t) => {
  const gw = await startGateway({
    worker: true, queue: 'memory',
    env: { UPSTREAM_FAL_URL: FAL, UPSTREAM_FAL_KEY: 'fal-id:secret', UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true', UPSTREAM_POLL_DELAYS_MS: '20', WEBHOOK_ALLOW_INSECURE: 'true' },
  });
  const receiver = await startReceiver();
  t.teardown(async () => {
    await receiver.close();
    await gw.stop();
  });
  const acct = await newAccount(gw, 10_000);
  // lumen-dev-text-to-image lists a self-hosted server (not configured here), then fal's FLUX.1 [dev]
  nock(FAL).post('/fal-ai/flux/dev').reply(200, { request_id: 'req-meta' });
  nock(FAL).get('/fal-ai/flux/requests/req-meta/status?logs=1').reply(200, { status: 'COMPLETED', response_url: `${FAL}/fal-ai/flux/requests/req-meta` });
  nock(FAL).get('/fal-ai/flux/requests/req-meta').reply(200, {
    images: [{ url: `${CDN}/a.png`, content_type: 'image/png', width: 1024, height: 768 }],
    seed: 1234567, timings: { inference: 1.25 }, has_nsfw_concepts: [false], prompt: 'a fox',
  });
  nock(CDN).get('/a.png').reply(200, PNG, { 'content-type': 'image/png' });
  const res = await gw.server.inject({ method: 'POST', url: `/api/v1/lumen-dev-text-to-image?webhook=${encodeURIComponent(receiver.url)}`, headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'a fox', aspect_ratio: '4:3' } });
  t.is(res.statusCode, 200, res.payload);
  const id = (res.result as { request_id: string }).request_id;
  const body = await result(gw, acct.liveKey, id);
  t.is(body.status, 'completed', String(body.error));
  const expected = { seed: 1234567, width: 1024, height: 768, provider_timings: { inference: 1250 } };
  t.deepEqual(body.provider_metadata, expected);
  const check = await schemas(gw);
  t.true(check.result(body), JSON.stringify(check.result.errors));
  await waitFor(() => receiver.received.length === 1, { what: 'the webhook' });
  const payload = JSON.parse(receiver.received[0]!.body) as Record<string, unknown>;
  t.deepEqual(payload.provider_metadata, expected);
  t.true(check.webhook(payload), JSON.stringify(check.webhook.errors));
});

test.serial('the procedural model reports the seed it drew: sent back, it makes the same image; a sandbox key\'s mock result has none', async (t) => {
  const gw = await startGateway({ worker: true, queue: 'memory' });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 1000);
  const run = async (payload: Record<string, unknown>, key = acct.liveKey) => {
    const res = await gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { 'x-api-key': key }, payload });
    t.is(res.statusCode, 200, res.payload);
    return result(gw, key, (res.result as { request_id: string }).request_id, key === acct.liveKey);
  };
  const first = await run({ prompt: 'a lighthouse at dusk', width: 96, height: 64 });
  const meta = first.provider_metadata as { seed: number; width: number; height: number };
  t.like(meta, { width: 96, height: 64 });
  t.true(Number.isSafeInteger(meta.seed));
  const again = await run({ prompt: 'a lighthouse at dusk', width: 96, height: 64, seed: meta.seed });
  const bytes = async (r: Record<string, unknown>) => (await gw.server.inject({ method: 'GET', url: (r.outputs as string[])[0]!.replace('http://gateway.test', '') })).rawPayload;
  t.deepEqual(await bytes(again), await bytes(first), 'the same seed makes the same image');
  t.is((again.provider_metadata as { seed: number }).seed, meta.seed);
  const sandbox = await run({ prompt: 'a lighthouse at dusk' }, acct.testKey);
  t.false('provider_metadata' in sandbox, 'a mock result says nothing of a provider');
});

test('only well-formed metadata is kept: a third party\'s wrong types and ranges are dropped', (t) => {
  t.deepEqual(cleanMetadata({ seed: -1, width: 0, height: 2.5, duration: 'long', revised_prompt: '', provider_timings: { inference: -3, 'queue time': 5, predict: 12.4 } }), { provider_timings: { predict: 12 } });
  t.deepEqual(cleanMetadata({ seed: 7, width: 512, height: 512, duration: 4.0004, revised_prompt: 'a red fox' }), { seed: 7, width: 512, height: 512, duration: 4, revised_prompt: 'a red fox' });
  t.is(cleanMetadata({}), undefined);
  t.is(cleanMetadata('seed 7'), undefined);
});
