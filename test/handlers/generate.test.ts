// Generation through the HTTP surface on MariaDB and RabbitMQ, with a worker in-process.
import test from 'ava';
import { PNG } from 'pngjs';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { callOperation } from '../helpers/operation.ts';

let gw: TestGateway;
test.before(async () => {
  gw = await startGateway({ worker: true });
});
test.after.always(async () => {
  await gw?.stop();
});

const LOCAL_MODEL = 'canvas-v1-fast-text-to-image';

interface Result { status: string; outputs: string[]; error: string | null; has_nsfw_contents: boolean[]; urls: { get: string }; timings: { inference: number | null } }

async function result(key: string, id: string): Promise<Result> {
  return (await callOperation<Result>(gw, 'getPredictionResult', { as: key, params: { request_id: id } })).body;
}

async function balance(key: string) {
  return (await callOperation<{ balance: number; held: number }>(gw, 'getBalance', { as: key })).body;
}

test('a production key generates a real image end to end and is charged once', async (t) => {
  const acct = await newAccount(gw, 1000);
  const submit = await callOperation<{ request_id: string }>(gw, LOCAL_MODEL, { as: acct.liveKey, body: { prompt: 'a lighthouse at dusk', width: 128, height: 96, num_images: 2 } });
  t.is(submit.status, 200, submit.raw.payload);
  const id = submit.body.request_id;
  t.regex(id, /^[0-9a-f]{32}$/);

  const { balance: during, held: heldDuring } = await balance(acct.liveKey);
  t.true(heldDuring > 0 || during < 1000);

  const done = await waitFor(async () => {
    const r = await result(acct.liveKey, id);
    return r.status === 'completed' || r.status === 'failed' ? r : undefined;
  }, { what: 'prediction to finish' });
  t.is(done.status, 'completed', done.error ?? '');
  t.is(done.outputs.length, 2);
  t.deepEqual(done.has_nsfw_contents, [false, false]);
  t.is(done.urls.get, `http://gateway.test/api/v1/predictions/${id}/result`);
  t.true(typeof done.timings.inference === 'number');

  const file = await gw.server.inject({ method: 'GET', url: done.outputs[0]!.replace('http://gateway.test', '') });
  t.is(file.statusCode, 200);
  t.is(file.headers['content-type'], 'image/png');
  const png = PNG.sync.read(file.rawPayload);
  t.is(png.width, 128);
  t.is(png.height, 96);

  const bal = await balance(acct.liveKey);
  t.is(bal.held, 0);
  const debits = await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' });
  t.is(debits.length, 1);
  t.is(bal.balance, 1000 + Number(debits[0].amount));
  t.true(Number(debits[0].amount) < 0);
});

test('a sandbox key completes at once with mock outputs that resolve, free of charge', async (t) => {
  const acct = await newAccount(gw, 0);
  for (const [model, type] of [['aurora-v3-pro-text-to-video', 'video/mp4'], [LOCAL_MODEL, 'image/png'], ['chime-v1-fast-text-to-audio', 'audio/']] as const) {
    const submit = await callOperation<{ request_id: string }>(gw, model, { as: acct.testKey, body: { prompt: 'sandbox check' } });
    t.is(submit.status, 200, submit.raw.payload);
    const r = await result(acct.testKey, submit.body.request_id);
    t.is(r.status, 'completed');
    t.is(r.outputs.length, 1);
    const file = await gw.server.inject({ method: 'GET', url: r.outputs[0]!.replace('http://gateway.test', '') });
    t.is(file.statusCode, 200);
    t.true(String(file.headers['content-type']).startsWith(type), `${model}: ${file.headers['content-type']}`);
  }
  t.is((await balance(acct.testKey)).balance, 0);
});

test('a model whose upstream is not configured answers 503 for production keys', async (t) => {
  const acct = await newAccount(gw, 100_000);
  const res = await callOperation<{ detail: string }>(gw, 'aurora-v3-pro-text-to-video', { as: acct.liveKey, body: { prompt: 'x' } });
  t.is(res.status, 503);
  t.regex(res.body.detail, /UPSTREAM_AURORA_URL/);
  const bal = await balance(acct.liveKey);
  t.deepEqual([bal.balance, bal.held], [100_000, 0]);
});

test('insufficient credit is 402 and nothing is recorded', async (t) => {
  const acct = await newAccount(gw, 1);
  const res = await callOperation<{ detail: string }>(gw, LOCAL_MODEL, { as: acct.liveKey, body: { prompt: 'x' } });
  t.is(res.status, 402);
  t.regex(res.body.detail, /insufficient credit/);
  t.is((await gw.app.db('predictions').where({ user_id: acct.userId })).length, 0);
});

test('a prediction of another account is 404, like an unknown id', async (t) => {
  const a = await newAccount(gw, 1000);
  const b = await newAccount(gw, 0);
  const submit = await callOperation<{ request_id: string }>(gw, LOCAL_MODEL, { as: a.testKey, body: { prompt: 'mine' } });
  const theirs = await callOperation(gw, 'getPredictionResult', { as: b.liveKey, params: { request_id: submit.body.request_id } });
  t.is(theirs.status, 404);
  t.deepEqual(theirs.body, { detail: 'prediction not found', code: 'not_found' });
  const unknown = await callOperation(gw, 'getPredictionResult', { as: b.liveKey, params: { request_id: '0123456789abcdef0123456789abcdef' } });
  t.deepEqual(unknown.body, theirs.body);
});

test('cancelling a queued prediction releases its hold; a finished one cannot be cancelled', async (t) => {
  const acct = await newAccount(gw, 1000);
  // Insert a request straight into the database so no worker races the cancel.
  const { newPredictionId } = await import('../../db/predictions/record.ts');
  const id = newPredictionId(Date.now());
  await gw.app.store.submit({ p: { id, userId: acct.userId, apiKeyId: null, model: 'canvas-v1-fast-text-to-image', input: { prompt: 'x' }, price: 300, webhookUrl: null }, now: Date.now() });
  const before = await balance(acct.liveKey);
  t.deepEqual([before.balance, before.held], [700, 300]);
  const res = await callOperation<{ status: string }>(gw, 'cancelPrediction', { as: acct.liveKey, params: { request_id: id } });
  t.is(res.status, 200, res.raw.payload);
  t.is(res.body.status, 'cancelled');
  const after = await balance(acct.liveKey);
  t.deepEqual([after.balance, after.held], [1000, 0]);
  const again = await callOperation(gw, 'cancelPrediction', { as: acct.liveKey, params: { request_id: id } });
  t.is(again.status, 409);
});
