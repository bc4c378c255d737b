// Outputs a run stored for a prediction that then did not complete are removed at once: retention
// removes only the files a completed row lists, so nothing else ever would. A local run or a
// provider's job whose first output is stored and second is not (the storage fails) is retried
// and finally fails: nothing is left under its outputs; a run that finds its prediction cancelled
// meanwhile leaves nothing, nor does a cancel between an attempt that stored some and its retry;
// a prediction another run completed meanwhile keeps its files (the same keys), and one completed
// on a retry keeps only the files it lists; a cancel removes at once what an attempt stored; a
// removal that fails is a warning, never the outcome. On SQLite with the in-process
// queue and on MariaDB with RabbitMQ. The provider is third-party HTTP: nock; the storage is the
// real local one, made to fail or to race.
import test from 'ava';
import nock from 'nock';
import fs from 'node:fs/promises';
import path from 'node:path';
import { onlyLocalNetwork, replicatePrediction, tinyPng } from '../helpers/adapters.ts';
import { finishedRow, startGateway, newAccount, submitModel } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { assertLedger } from '../helpers/ledger.ts';
import { captureLog } from '../helpers/logs.ts';
import { waitFor } from '../helpers/services.ts';
import { findPredictionById } from '../../db/predictions/record.ts';
import { MAX_RETRIES } from '../../workers/run-model.ts';
import { MAX_POLL_FAILURES } from '../../workers/upstream-jobs.ts';

const REPLICATE = 'https://api.replicate.test';
const CDN = 'https://replicate.delivery.test';
const PRO = '/api/v1/lumen-pro-text-to-image';
const LOCAL = '/api/v1/canvas-v1-fast-text-to-image';
const LOCAL_INPUT = { prompt: 'two lighthouses', width: 64, height: 64, num_images: 2 };
const SUBMIT = '/v1/models/black-forest-labs/flux-1.1-pro/predictions';
const PNG_BYTES = tinyPng(3, 2, 90);
const CREDIT = 10_000;

const ENV = {
  UPSTREAM_REPLICATE_URL: `${REPLICATE}/v1`,
  UPSTREAM_REPLICATE_KEY: 'r8_provider_secret_token',
  UPSTREAM_POLL_DELAYS_MS: '20,40',
  RETRY_DELAYS_MS: '20,40,60',
  // the nocked CDN host has no public address to check
  UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true',
};

onlyLocalNetwork(test);

const prediction = (id: string, status: string, extra?: Record<string, unknown>) => replicatePrediction(REPLICATE, id, status, extra);

/**
 * A Replicate job that has succeeded with two outputs by its first poll; with `thenFails`, every
 * later poll answers that the job failed (as a provider whose outputs expired might).
 */
function finishedJob(id: string, thenFails = false) {
  const seen = { submits: 0, polls: 0 };
  nock(REPLICATE).persist()
    .post(SUBMIT).reply(() => {
      seen.submits++;
      return [201, prediction(id, 'starting')];
    })
    .get(`/v1/predictions/${id}`).reply(() => {
      seen.polls++;
      if (thenFails && seen.polls > 1) return [200, prediction(id, 'failed', { error: 'the outputs are gone' })];
      return [200, prediction(id, 'succeeded', { output: [`${CDN}/${id}/out-0.png`, `${CDN}/${id}/out-1.png`], metrics: { predict_time: 1.25 } })];
    });
  nock(CDN).persist().get(new RegExp(`^/${id}/out-[01]\\.png$`)).reply(200, PNG_BYTES, { 'content-type': 'image/png' });
  return seen;
}

type Save = TestGateway['app']['storage']['save'];

/**
 * Wraps the gateway's storage: `before` runs ahead of each save (it may throw, as a store that
 * stopped answering does); the keys stored are counted.
 */
function watchSaves(gw: TestGateway, before: (id: string, index: number) => Promise<void> | void) {
  const storage = gw.app.storage;
  const real: Save = storage.save.bind(storage);
  const seen = { stored: [] as string[], failed: 0 };
  storage.save = async (id, index, file) => {
    try {
      await before(id, index);
    } catch (err) {
      seen.failed++;
      throw err;
    }
    const key = await real(id, index, file);
    seen.stored.push(key);
    return key;
  };
  return seen;
}

/** the second output's save fails, every time */
const secondFails = (_id: string, index: number) => {
  if (index === 1) throw Object.assign(new Error('Connection timed out after 5000 ms'), { name: 'TimeoutError' });
};

/** what is stored under the prediction's outputs: its directory's entries, [] when it is gone */
async function stored(gw: TestGateway, id: string): Promise<string[]> {
  return fs.readdir(path.join(gw.app.config.storageDir, 'outputs', id)).catch(() => []);
}

async function wallet(gw: TestGateway, userId: number): Promise<[number, number]> {
  const user = await gw.app.db('users').where({ id: userId }).first();
  return [Number(user.balance), Number(user.held)];
}

for (const [db, queue] of [['sqlite', 'memory'], ['mysql', 'amqp']] as const) {
  test.serial(`${db}/${queue}: a local run whose second output is never stored fails after its retries with nothing left in storage`, async (t) => {
    const gw = await startGateway({ db, queue, worker: true, env: ENV });
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, CREDIT);
    const saves = watchSaves(gw, secondFails);
    const id = await submitModel(gw, acct.liveKey, LOCAL, LOCAL_INPUT);

    const done = await finishedRow(gw, id);
    t.is(done.status, 'failed');
    t.is(done.error_code, 'output_not_stored');
    t.is(saves.failed, MAX_RETRIES + 1, 'each attempt stored the first output, then failed on the second');
    t.is(saves.stored.length, MAX_RETRIES + 1);
    t.true(saves.stored.every((k) => k.startsWith(`outputs/${id}/0.`)));
    t.deepEqual(await storedOnceIdle(gw, id), [], 'the first output, stored by every attempt, is gone');
    t.deepEqual(await wallet(gw, acct.userId), [CREDIT, 0]);
    await assertLedger(t, gw.app.db);
  });

  test.serial(`${db}/${queue}: a provider's job whose second output is never stored fails after ${MAX_POLL_FAILURES} collections with nothing left in storage`, async (t) => {
    const gw = await startGateway({ db, queue, worker: true, env: ENV });
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, CREDIT);
    const seen = finishedJob(`rep-orphan-${db}-1`);
    const saves = watchSaves(gw, secondFails);
    const id = await submitModel(gw, acct.liveKey, PRO, { prompt: 'a fox in the snow', num_images: 1 });

    const done = await finishedRow(gw, id);
    t.is(done.status, 'failed');
    t.is(done.error_code, 'output_not_stored');
    t.is(seen.submits, 1);
    t.is(saves.failed, MAX_POLL_FAILURES);
    t.is(saves.stored.length, MAX_POLL_FAILURES, 'each collection stored the first output');
    t.deepEqual(await storedOnceIdle(gw, id), []);
    t.deepEqual(await fs.readdir(gw.app.storage.tempDir), [], 'no download is left behind');
    t.deepEqual(await wallet(gw, acct.userId), [CREDIT, 0]);
    await assertLedger(t, gw.app.db);
  });
}

test.serial('a job whose outputs could not all be stored, and that then fails at the provider, leaves nothing in storage', async (t) => {
  const gw = await startGateway({ db: 'sqlite', queue: 'memory', worker: true, env: ENV });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, CREDIT);
  const seen = finishedJob('rep-orphan-then-failed', true);
  const saves = watchSaves(gw, secondFails);
  const id = await submitModel(gw, acct.liveKey, PRO, { prompt: 'a fox in the snow', num_images: 1 });

  const done = await finishedRow(gw, id);
  t.is(done.status, 'failed');
  t.is(done.error_code, 'upstream_failed', 'the last failure is not the storage\'s');
  t.is(seen.polls, 2);
  t.is(saves.stored.length, 1, 'the first collection stored the first output');
  t.deepEqual(await storedOnceIdle(gw, id), []);
  await assertLedger(t, gw.app.db);
});

for (const [db, queue] of [['sqlite', 'memory'], ['mysql', 'amqp']] as const) {
  test.serial(`${db}/${queue}: a run that finds its prediction cancelled while it stored the outputs leaves nothing in storage`, async (t) => {
    const gw = await startGateway({ db, queue, worker: true, env: ENV });
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, CREDIT);
    let cancel: string | undefined;
    // the owner cancels as the first output is being stored: the completion is then not recorded
    const saves = watchSaves(gw, async (id, index) => {
      if (index === 0) cancel = await gw.app.store.cancel({ userId: acct.userId, teamId: null }, id, Date.now());
    });
    const id = await submitModel(gw, acct.liveKey, LOCAL, LOCAL_INPUT);

    const done = await finishedRow(gw, id);
    t.is(done.status, 'cancelled');
    // the run goes on after the cancel: both outputs stored, the completion not recorded, then the removal
    await waitFor(async () => saves.stored.length === 2 && await idle(gw), { what: 'the run to end', timeoutMs: 5_000 });
    t.is(cancel, 'cancelled');
    t.deepEqual(await stored(gw, id), []);
    t.deepEqual(await wallet(gw, acct.userId), [CREDIT, 0]);
    await assertLedger(t, gw.app.db);
  });

  test.serial(`${db}/${queue}: a prediction another run completed meanwhile keeps its files`, async (t) => {
    const gw = await startGateway({ db, queue, worker: true, env: ENV });
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, CREDIT);
    let outputs: string[] = [];
    // another run (a takeover) completes the prediction with the same keys as this one stores the first output
    const saves = watchSaves(gw, async (id, index) => {
      if (index !== 0) return;
      const p = (await findPredictionById(gw.app.db, id))!;
      outputs = [0, 1].map((i) => `outputs/${id}/${i}.png`);
      const other = await gw.app.store.complete({ p, result: { outputs, nsfw: [false, false], inferenceMs: 5 }, now: Date.now() });
      if (!other.recorded) throw new Error('the other run could not complete the prediction');
    });
    const id = await submitModel(gw, acct.liveKey, LOCAL, LOCAL_INPUT);

    const done = await finishedRow(gw, id);
    t.is(done.status, 'completed');
    t.deepEqual(JSON.parse(done.outputs), outputs);
    // this run's completion, not recorded, and whatever follows it
    await waitFor(async () => saves.stored.length === 2 && await idle(gw), { what: 'the run to end', timeoutMs: 5_000 });
    t.deepEqual(saves.stored, outputs, 'this run stored the same keys');
    t.deepEqual((await stored(gw, id)).sort(), ['0.png', '1.png']);
    const view = await gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${id}/result`, headers: { 'x-api-key': acct.liveKey } });
    for (const url of (view.result as { outputs: string[] }).outputs) {
      t.is((await gw.server.inject({ method: 'GET', url: url.replace('http://gateway.test', '') })).statusCode, 200, url);
    }
    await assertLedger(t, gw.app.db);
  });
}

for (const [db, queue] of [['sqlite', 'memory'], ['mysql', 'amqp']] as const) {
  test.serial(`${db}/${queue}: a local run cancelled after an attempt stored its first output leaves nothing once its retry comes`, async (t) => {
    const gw = await startGateway({ db, queue, worker: true, env: ENV });
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, CREDIT);
    // the owner cancels as the second output fails to store: the retry's claim then finds it cancelled
    const saves = watchSaves(gw, async (id, index) => {
      if (index !== 1) return;
      await gw.app.store.cancel({ userId: acct.userId, teamId: null }, id, Date.now());
      secondFails(id, index);
    });
    const id = await submitModel(gw, acct.liveKey, LOCAL, LOCAL_INPUT);

    t.is((await finishedRow(gw, id)).status, 'cancelled');
    await waitFor(() => saves.failed === 1, { what: 'the second output to fail' });
    // the retry, 20 ms later
    await waitFor(async () => (await stored(gw, id)).length === 0, { what: 'the stored output to be removed', timeoutMs: 5_000 });
    t.deepEqual(saves.stored, [`outputs/${id}/0.png`], 'one attempt only');
    t.deepEqual(await wallet(gw, acct.userId), [CREDIT, 0]);
    await assertLedger(t, gw.app.db);
  });
}

for (const [db, queue] of [['sqlite', 'memory'], ['mysql', 'amqp']] as const) {
  test.serial(`${db}/${queue}: a run completed on its retry keeps only the outputs it lists, not what an earlier attempt stored under other names`, async (t) => {
    const gw = await startGateway({ db, queue, worker: true, env: ENV });
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, CREDIT);
    // the first attempt stores its first output as another type, then fails to store the second
    const storage = gw.app.storage;
    const real: Save = storage.save.bind(storage);
    let attempt = 0;
    storage.save = async (id, index, file) => {
      if (index === 0) attempt++;
      if (attempt > 1) return real(id, index, file);
      if (index === 1) secondFails(id, index);
      return real(id, index, { ...file, extension: 'webp' });
    };
    const id = await submitModel(gw, acct.liveKey, LOCAL, LOCAL_INPUT);

    const done = await finishedRow(gw, id);
    t.is(done.status, 'completed');
    t.is(Number(done.attempts), 2);
    t.deepEqual(JSON.parse(done.outputs), [`outputs/${id}/0.png`, `outputs/${id}/1.png`]);
    t.deepEqual((await storedOnceIdle(gw, id)).sort(), ['0.png', '1.png'], "the first attempt's 0.webp is gone");
    await assertLedger(t, gw.app.db);
  });

  test.serial(`${db}/${queue}: cancelling a prediction whose retry is still to come removes what its attempt stored at once`, async (t) => {
    // the retry would come a minute later (or never: an in-process timer is lost at a restart)
    const gw = await startGateway({ db, queue, worker: true, env: { ...ENV, RETRY_DELAYS_MS: '60000' } });
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, CREDIT);
    const saves = watchSaves(gw, secondFails);
    const id = await submitModel(gw, acct.liveKey, LOCAL, LOCAL_INPUT);
    await waitFor(async () => saves.failed === 1 && (await findPredictionById(gw.app.db, id))?.status === 'pending', { what: 'the attempt to fail and wait for its retry' });
    t.deepEqual(await stored(gw, id), ['0.png']);

    const res = await gw.server.inject({ method: 'POST', url: `/app/cancel_prediction/${id}`, headers: { 'x-api-key': acct.liveKey } });
    t.is(res.statusCode, 200);
    t.is((res.result as { status: string }).status, 'cancelled');
    await waitFor(async () => (await stored(gw, id)).length === 0, { what: 'the stored output to be removed', timeoutMs: 5_000 });
    t.deepEqual(await wallet(gw, acct.userId), [CREDIT, 0]);
    await assertLedger(t, gw.app.db);
  });
}

test.serial('a job cancelled while its outputs were being stored (one failed) leaves nothing: no next poll comes', async (t) => {
  const gw = await startGateway({ db: 'sqlite', queue: 'memory', worker: true, env: ENV });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, CREDIT);
  const seen = finishedJob('rep-orphan-cancel-collect');
  const saves = watchSaves(gw, async (id, index) => {
    if (index !== 1) return;
    await gw.app.store.cancel({ userId: acct.userId, teamId: null }, id, Date.now());
    secondFails(id, index);
  });
  const id = await submitModel(gw, acct.liveKey, PRO, { prompt: 'a fox in the snow', num_images: 1 });

  t.is((await finishedRow(gw, id)).status, 'cancelled');
  await waitFor(async () => saves.failed === 1 && await idle(gw), { what: 'the collection to end' });
  t.deepEqual(saves.stored, [`outputs/${id}/0.png`]);
  t.deepEqual(await stored(gw, id), []);
  t.is(seen.polls, 1);
  await assertLedger(t, gw.app.db);
});

test.serial('a job cancelled while it waits for its next collection (the storage failed) leaves nothing once that poll comes', async (t) => {
  // the second poll comes 1 s after the first collection failed: the cancel lands in between
  const gw = await startGateway({ db: 'sqlite', queue: 'memory', worker: true, env: { ...ENV, UPSTREAM_POLL_DELAYS_MS: '20,1000' } });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, CREDIT);
  const seen = finishedJob('rep-orphan-cancel-wait');
  const saves = watchSaves(gw, secondFails);
  const id = await submitModel(gw, acct.liveKey, PRO, { prompt: 'a fox in the snow', num_images: 1 });

  await waitFor(async () => saves.failed === 1 && Number((await gw.app.db('predictions').where({ id }).first()).upstream_polls) === 2, { what: 'the next collection to be scheduled' });
  t.deepEqual(await stored(gw, id), ['0.png']);
  t.is(await gw.app.store.cancel({ userId: acct.userId, teamId: null }, id, Date.now()), 'cancelled');
  await waitFor(async () => (await stored(gw, id)).length === 0, { what: 'the stored output to be removed', timeoutMs: 5_000 });
  t.is(seen.polls, 1, 'the cancelled job is not asked again (and, done at the provider, not cancelled there)');
  t.deepEqual(await wallet(gw, acct.userId), [CREDIT, 0]);
  await assertLedger(t, gw.app.db);
});

test.serial('a removal the storage refuses is a warning naming the prediction; the prediction fails as it would have', async (t) => {
  const logs = captureLog('info');
  const gw = await startGateway({ db: 'sqlite', queue: 'memory', worker: true, env: ENV, log: logs.log });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, CREDIT);
  watchSaves(gw, secondFails);
  gw.app.storage.removeAllOutputs = async () => {
    throw Object.assign(new Error('Connection timed out after 5000 ms'), { name: 'TimeoutError' });
  };
  const id = await submitModel(gw, acct.liveKey, LOCAL, LOCAL_INPUT);

  const done = await finishedRow(gw, id);
  t.is(done.status, 'failed');
  t.is(done.error_code, 'output_not_stored');
  const lines = () => logs.parsed<{ level: number; msg: string; id?: string }>();
  const warned = await waitFor(() => lines().find((l) => l.id === id && /could not remove the stored outputs/.test(l.msg)), { what: 'the warning', timeoutMs: 5_000 });
  t.is(warned.level, 40, 'a warning');
  t.false(lines().some((l) => l.level >= 50), 'no error-level line');
  t.deepEqual(await storedOnceIdle(gw, id), ['0.png'], 'what the failed removal left stays');
  await assertLedger(t, gw.app.db);
});

/** what is stored under the prediction's outputs once the worker has let go of its last message (the failure is recorded first) */
async function storedOnceIdle(gw: TestGateway, id: string): Promise<string[]> {
  await waitFor(() => idle(gw), { what: 'the worker to be idle', timeoutMs: 5_000 });
  return stored(gw, id);
}

/** no prediction message in hand in the gateway's worker */
async function idle(gw: TestGateway): Promise<boolean> {
  const { values } = await gw.app.metrics.workerInFlight.get();
  return (values.find((v) => v.labels.topic === 'predictions')?.value ?? 0) === 0;
}
