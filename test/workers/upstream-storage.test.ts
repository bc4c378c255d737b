// A provider's finished job whose outputs the gateway's own storage fails to keep (an S3 timeout,
// a full disk): the gateway's fault, not the model's, so the next poll downloads and stores the
// outputs again, without a new submit, up to MAX_POLL_FAILURES in a row; only then does the
// prediction fail, uncharged, with the provider's cost recorded once. On SQLite with the
// in-process queue and on MariaDB with RabbitMQ. The provider is third-party HTTP: nock; the
// storage is the real local one, made to fail its first saves.
import test from 'ava';
import nock from 'nock';
import fs from 'node:fs/promises';
import path from 'node:path';
import { onlyLocalNetwork, replicatePrediction, tinyPng } from '../helpers/adapters.ts';
import { finishedRow, startGateway, newAccount, submitModel } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { assertLedger } from '../helpers/ledger.ts';
import { waitFor } from '../helpers/services.ts';
import { MAX_POLL_FAILURES } from '../../workers/upstream-jobs.ts';

const REPLICATE = 'https://api.replicate.test';
const OPENAI = 'https://api.openai.test';
const CDN = 'https://replicate.delivery.test';
const PRO = '/api/v1/lumen-pro-text-to-image';
const CHAT = '/api/v1/lexi-v1-balanced-chat';
const SUBMIT = '/v1/models/black-forest-labs/flux-1.1-pro/predictions';
const PNG_BYTES = tinyPng(3, 2, 90);
const CREDIT = 10_000;

const ENV = {
  UPSTREAM_REPLICATE_URL: `${REPLICATE}/v1`,
  UPSTREAM_REPLICATE_KEY: 'r8_provider_secret_token',
  UPSTREAM_OPENAI_URL: `${OPENAI}/v1`,
  UPSTREAM_OPENAI_KEY: 'sk-provider-secret-key',
  UPSTREAM_POLL_DELAYS_MS: '20,40',
  RETRY_DELAYS_MS: '50,100,150',
  // the nocked CDN host has no public address to check
  UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true',
};

onlyLocalNetwork(test);

const prediction = (id: string, status: string, extra?: Record<string, unknown>) => replicatePrediction(REPLICATE, id, status, extra);

/** A Replicate job that has succeeded by its first poll, counting submits, polls and output downloads. */
function finishedJob(id: string) {
  const seen = { submits: 0, polls: 0, downloads: 0 };
  nock(REPLICATE).persist()
    .post(SUBMIT).reply(() => {
      seen.submits++;
      return [201, prediction(id, 'starting')];
    })
    .get(`/v1/predictions/${id}`).reply(() => {
      seen.polls++;
      return [200, prediction(id, 'succeeded', { output: [`${CDN}/${id}/out-0.png`], metrics: { predict_time: 1.25 } })];
    });
  nock(CDN).persist().get(`/${id}/out-0.png`).reply(() => {
    seen.downloads++;
    return [200, PNG_BYTES, { 'content-type': 'image/png' }];
  });
  return seen;
}

/** The gateway's storage fails its first `failing` saves (all of them: Infinity) as an S3 store that stopped answering does. */
function failingSaves(gw: TestGateway, failing: number) {
  const storage = gw.app.storage;
  const real = storage.save.bind(storage);
  const seen = { attempts: 0, failed: 0 };
  storage.save = async (...args) => {
    seen.attempts++;
    if (seen.failed < failing) {
      seen.failed++;
      throw Object.assign(new Error('Connection timed out after 5000 ms'), { name: 'TimeoutError' });
    }
    return real(...args);
  };
  return seen;
}

const finished = finishedRow;

async function wallet(gw: TestGateway, userId: number): Promise<[number, number]> {
  const user = await gw.app.db('users').where({ id: userId }).first();
  return [Number(user.balance), Number(user.held)];
}

for (const [db, queue] of [['sqlite', 'memory'], ['mysql', 'amqp']] as const) {
  test.serial(`${db}/${queue}: outputs the storage failed to keep twice are downloaded and stored again by the next polls; completed, charged once, submitted once`, async (t) => {
    const gw = await startGateway({ db, queue, worker: true, env: ENV });
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, CREDIT);
    const seen = finishedJob(`rep-store-${db}-1`);
    const saves = failingSaves(gw, 2);
    const id = await submitModel(gw, acct.liveKey, PRO, { prompt: 'a fox in the snow', num_images: 1 });

    const done = await finished(gw, id);
    t.is(done.status, 'completed', String(done.error));
    t.is(seen.submits, 1);
    t.deepEqual([saves.failed, saves.attempts], [2, 3]);
    t.is(seen.downloads, 3, 'each retry downloads the output again');
    t.is(seen.polls, 3);
    const debits = await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' });
    t.is(debits.length, 1);
    t.is(Number(debits[0].amount), -Number(done.price));
    t.deepEqual(await wallet(gw, acct.userId), [CREDIT - Number(done.price), 0]);
    t.is((await gw.app.db('prediction_costs').where({ prediction_id: id })).length, 1);
    const view = await gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${id}/result`, headers: { 'x-api-key': acct.liveKey } });
    const outputs = (view.result as { outputs: string[] }).outputs;
    t.is(outputs.length, 1);
    const file = await gw.server.inject({ method: 'GET', url: outputs[0]!.replace('http://gateway.test', '') });
    t.deepEqual(file.rawPayload, PNG_BYTES);
    t.deepEqual(await fs.readdir(gw.app.storage.tempDir), [], 'no download is left behind');
    await assertLedger(t, gw.app.db);
  });

  test.serial(`${db}/${queue}: a storage that keeps failing fails the prediction after ${MAX_POLL_FAILURES} tries, uncharged, its provider cost recorded once`, async (t) => {
    const gw = await startGateway({ db, queue, worker: true, env: ENV });
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, CREDIT);
    const seen = finishedJob(`rep-store-${db}-2`);
    const saves = failingSaves(gw, Infinity);
    const id = await submitModel(gw, acct.liveKey, PRO, { prompt: 'a fox in the snow', num_images: 1 });

    const done = await finished(gw, id);
    t.is(done.status, 'failed');
    t.is(done.error_code, 'output_not_stored');
    t.regex(String(done.error), /could not store/);
    t.false(String(done.error).includes('TimeoutError'), 'the storage\'s own error stays in the logs');
    t.is(done.upstream_status, 'succeeded');
    t.is(seen.submits, 1);
    t.is(saves.attempts, MAX_POLL_FAILURES);
    t.is(seen.downloads, MAX_POLL_FAILURES);
    t.deepEqual(await wallet(gw, acct.userId), [CREDIT, 0]);
    t.is((await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' })).length, 0);
    const costs = await gw.app.db('prediction_costs').where({ prediction_id: id });
    t.is(costs.length, 1, 'what the provider ran is on the operator\'s books, once');
    t.is(Number(costs[0].charged), 0);
    const view = await gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${id}/result`, headers: { 'x-api-key': acct.liveKey } });
    t.like(view.result, { status: 'failed', error_code: 'output_not_stored' });
    t.deepEqual(await fs.readdir(gw.app.storage.tempDir), [], 'no download is left behind');
    t.deepEqual(await fs.readdir(path.join(gw.app.config.storageDir, 'outputs', id)).catch(() => []), []);
    await assertLedger(t, gw.app.db);
  });
}

test.serial('a provider that answers in one call (openai-compatible) fails at once when its answer cannot be stored: nothing to poll again', async (t) => {
  const gw = await startGateway({ db: 'sqlite', queue: 'memory', worker: true, env: ENV });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, CREDIT);
  let calls = 0;
  nock(OPENAI).persist().post('/v1/chat/completions').reply(() => {
    calls++;
    return [200, { id: 'chatcmpl-store-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'A fox.' }, finish_reason: 'stop' }] }];
  });
  const saves = failingSaves(gw, Infinity);
  const id = await submitModel(gw, acct.liveKey, CHAT, { prompt: 'Caption: fox in snow' });
  const done = await finished(gw, id);
  t.is(done.status, 'failed');
  t.is(done.error_code, 'output_not_stored');
  t.is(calls, 1);
  t.is(saves.attempts, 1);
  t.deepEqual(await wallet(gw, acct.userId), [CREDIT, 0]);
  t.is((await gw.app.db('prediction_costs').where({ prediction_id: id })).length, 1);
  await assertLedger(t, gw.app.db);
});
