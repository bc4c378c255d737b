// Erasing an account (README "Deleting an account") while its personal predictions have jobs
// running at a provider: the rows go, so no poll is left to tell the provider, and the eraser
// cancels each job at the provider itself (fal, Replicate, WaveSpeed), once the hold is released in
// the erasing transaction; nothing is charged. A provider that refuses the cancel does not stop
// the erasure. The providers are third-party HTTP: nock.
import test from 'ava';
import nock from 'nock';
import { onlyLocalNetwork } from '../helpers/adapters.ts';
import { newAccount, startGateway, submitModel } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { waitFor } from '../helpers/services.ts';
import { assertLedger } from '../helpers/ledger.ts';
import { newPredictionId } from '../../db/predictions/record.ts';
import { eraseAccountAndFiles } from '../../workers/retention.ts';

const REPLICATE = 'https://api.replicate-erase.test';
const FAL = 'https://queue.fal-erase.test';
const WS = 'https://api.wavespeed-erase.test';
const ENV = {
  UPSTREAM_REPLICATE_URL: `${REPLICATE}/v1`, UPSTREAM_REPLICATE_KEY: 'r8_erase_secret',
  UPSTREAM_FAL_URL: FAL, UPSTREAM_FAL_KEY: 'fal-erase-secret',
  UPSTREAM_WAVESPEED_URL: `${WS}/api/v3`, UPSTREAM_WAVESPEED_KEY: 'ws-erase-secret',
  UPSTREAM_POLL_DELAYS_MS: '30,60', RETRY_DELAYS_MS: '50,100,150',
};

onlyLocalNetwork(test);

async function wallet(gw: TestGateway, userId: number) {
  const row = await gw.app.db('users').where('id', userId).first<{ balance: number | string; held: number | string }>('balance', 'held');
  return { balance: Number(row.balance), held: Number(row.held) };
}

test.serial('an administrator erasing an account cancels its running Replicate job at the provider, releases the hold once and charges nothing', async (t) => {
  const gw = await startGateway({ worker: true, queue: 'memory', env: ENV });
  t.teardown(() => gw.stop());
  const admin = await newAccount(gw);
  await gw.app.db('users').where({ id: admin.userId }).update({ role: 'admin' });
  const acct = await newAccount(gw, 10_000);
  const email = String((await gw.app.db('users').where({ id: acct.userId }).first('email')).email);
  nock(REPLICATE).post('/v1/models/black-forest-labs/flux-1.1-pro/predictions').reply(201, { id: 'rep-erase-1', status: 'starting', output: null, error: null });
  // the job runs for as long as nobody stops it
  let polls = 0;
  nock(REPLICATE).persist().get('/v1/predictions/rep-erase-1').reply(() => { polls += 1; return [200, { id: 'rep-erase-1', status: 'processing', output: null, error: null }]; });
  const cancelled: string[] = [];
  nock(REPLICATE).persist().post('/v1/predictions/rep-erase-1/cancel').reply(() => { cancelled.push('rep-erase-1'); return [200, { id: 'rep-erase-1', status: 'canceled' }]; });

  const id = await submitModel(gw, acct.liveKey, '/api/v1/lumen-pro-text-to-image', { prompt: 'a lighthouse at dusk', num_images: 1 });
  await waitFor(async () => polls >= 1 && (await gw.app.db('predictions').where({ id }).first())?.upstream_job_id === 'rep-erase-1', { what: 'the job to run at the provider', timeoutMs: 30_000 });
  const held = await wallet(gw, acct.userId);
  t.true(held.held > 0);

  const res = await callOperation(gw, 'adminDeleteUser', { as: admin.session, body: { email, reason: 'GDPR request 12' } });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.deepEqual(cancelled, ['rep-erase-1'], 'the provider was told to stop the job');
  t.is(await gw.app.db('predictions').where({ id }).first(), undefined);
  t.deepEqual(await wallet(gw, acct.userId), { balance: 10_000, held: 0 });
  // the poll chain ends on the missing row; nothing is charged, the hold released once
  await new Promise((r) => setTimeout(r, 300));
  t.deepEqual(await gw.app.db('credit_transactions').where({ prediction_id: id }).orderBy('id').pluck('kind'), ['hold', 'release']);
  t.deepEqual(cancelled, ['rep-erase-1']);
  await assertLedger(t, gw.app.db);
});

test.serial('the eraser cancels fal and WaveSpeed jobs and one its owner cancelled before the next poll; a finished job and a refused cancel are left, and the account is erased', async (t) => {
  const gw = await startGateway({ queue: 'memory', env: ENV });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const now = gw.app.clock();
  const rows: Array<{ model: string; price: number; status: string; upstream: { name: string; job: string; status: string; model: string } }> = [
    { model: 'aurora-v3-standard-text-to-video', price: 500, status: 'processing', upstream: { name: 'fal', job: 'fal-req-1', status: 'IN_PROGRESS', model: 'fal-ai/kling-video/v3/standard/text-to-video' } },
    { model: 'forma-v2-best-image-to-3d', price: 300, status: 'processing', upstream: { name: 'wavespeed', job: 'ws-task-1', status: 'processing', model: 'wavespeed-ai/hunyuan3d-v3/image-to-3d' } },
    // cancelled by its owner (hold already released); the poll that tells the provider has not come yet
    { model: 'lumen-pro-text-to-image', price: 0, status: 'cancelled', upstream: { name: 'replicate', job: 'rep-owner-cancelled', status: 'processing', model: 'black-forest-labs/flux-1.1-pro' } },
    // the provider refuses the cancel: logged, the erasure goes on
    { model: 'lumen-pro-text-to-image', price: 100, status: 'processing', upstream: { name: 'replicate', job: 'rep-refused', status: 'starting', model: 'black-forest-labs/flux-1.1-pro' } },
    // finished at the provider, its result not collected yet: nothing to cancel
    { model: 'lumen-pro-text-to-image', price: 100, status: 'processing', upstream: { name: 'replicate', job: 'rep-done', status: 'succeeded', model: 'black-forest-labs/flux-1.1-pro' } },
  ];
  for (const [i, r] of rows.entries()) {
    const id = newPredictionId(now + i);
    await gw.app.store.submit({ p: { id, userId: acct.userId, apiKeyId: null, model: r.model, input: { prompt: 'x' }, price: r.price, webhookUrl: null, source: 'api' }, now });
    await gw.app.db('predictions').where({ id }).update({
      status: r.status, upstream_name: r.upstream.name, upstream_job_id: r.upstream.job, upstream_status: r.upstream.status, upstream_model: r.upstream.model, upstream_polls: 1, upstream_submitted_at: now,
    });
  }
  t.deepEqual(await wallet(gw, acct.userId), { balance: 9_000, held: 1_000 });
  const calls: string[] = [];
  nock(FAL).put('/fal-ai/kling-video/requests/fal-req-1/cancel').reply(() => { calls.push('fal-req-1'); return [202, { status: 'CANCELLATION_REQUESTED' }]; });
  nock(WS).post('/api/v3/predictions/delete', { ids: ['ws-task-1'] }).reply(() => { calls.push('ws-task-1'); return [200, { code: 200, message: 'success', data: {} }]; });
  nock(REPLICATE).post('/v1/predictions/rep-owner-cancelled/cancel').reply(() => { calls.push('rep-owner-cancelled'); return [200, { id: 'rep-owner-cancelled', status: 'canceled' }]; });
  nock(REPLICATE).post('/v1/predictions/rep-refused/cancel').reply(() => { calls.push('rep-refused'); return [422, { detail: 'cannot cancel' }]; });
  nock(REPLICATE).post('/v1/predictions/rep-done/cancel').reply(() => { calls.push('rep-done'); return [200, {}]; });

  const result = await eraseAccountAndFiles(gw.app, acct.userId, gw.app.clock(), { immediate: true });
  t.is(result.kind, 'erased');
  t.deepEqual(calls.sort(), ['fal-req-1', 'rep-owner-cancelled', 'rep-refused', 'ws-task-1']);
  t.is((await gw.app.db('predictions').where({ user_id: acct.userId })).length, 0);
  t.deepEqual(await wallet(gw, acct.userId), { balance: 10_000, held: 0 });
  t.is((await gw.app.db('credit_transactions').whereIn('kind', ['prediction']).andWhere({ user_id: acct.userId })).length, 0);
  await assertLedger(t, gw.app.db);
});
