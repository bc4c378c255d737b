// A provider accepted the job, and the database refused the write that records it on the
// prediction: the next attempt cannot know the job exists and submits again. The job that could
// not be recorded is cancelled at the provider first, so it does not run (and bill the operator)
// beside the one that is. Replicate is third-party HTTP: nock.
import test from 'ava';
import nock from 'nock';
import { onlyLocalNetwork, tinyPng } from '../helpers/adapters.ts';
import { finishedRow, newAccount, startGateway } from '../helpers/gateway.ts';

const REPLICATE = 'https://api.replicate-unrecorded.test';
const SUBMIT = '/v1/models/black-forest-labs/flux-1.1-pro/predictions';
const PNG = tinyPng(4, 4, 60);

onlyLocalNetwork(test);

test.serial('a job the gateway could not record is cancelled at the provider before the prediction is retried, and the retry is charged once', async (t) => {
  const gw = await startGateway({ worker: true, queue: 'memory', env: {
    UPSTREAM_REPLICATE_URL: `${REPLICATE}/v1`, UPSTREAM_REPLICATE_KEY: 'r8_unrecorded_secret',
    UPSTREAM_POLL_DELAYS_MS: '20,40', RETRY_DELAYS_MS: '50,100,150', UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true',
  } });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  // the write that records the first job fails, as a dropped connection would
  await gw.app.db.raw(`create trigger refuse_unrecorded_job before update on predictions for each row
    begin if new.upstream_job_id = 'rep-unrecorded-1' then signal sqlstate '45000' set message_text = 'Connection lost: The server closed the connection.'; end if; end`);
  const submits: string[] = [];
  nock(REPLICATE).post(SUBMIT).reply(() => { submits.push('rep-unrecorded-1'); return [201, { id: 'rep-unrecorded-1', status: 'starting', output: null, error: null }]; });
  nock(REPLICATE).post(SUBMIT).reply(() => { submits.push('rep-recorded-2'); return [201, { id: 'rep-recorded-2', status: 'starting', output: null, error: null }]; });
  const cancelled: string[] = [];
  for (const job of ['rep-unrecorded-1', 'rep-recorded-2']) {
    nock(REPLICATE).persist().post(`/v1/predictions/${job}/cancel`).reply(() => {
      cancelled.push(job);
      return [200, { id: job, status: 'canceled' }];
    });
  }
  nock(REPLICATE).persist().get('/v1/predictions/rep-recorded-2').reply(200, { id: 'rep-recorded-2', status: 'succeeded', output: [`${REPLICATE}/out/2.png`], metrics: { predict_time: 0.5 } });
  nock(REPLICATE).get('/out/2.png').reply(200, PNG, { 'content-type': 'image/png' });
  const res = await gw.server.inject({ method: 'POST', url: '/api/v1/lumen-pro-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'a lighthouse at dusk', num_images: 1 } });
  t.is(res.statusCode, 200, res.payload);
  const id = (res.result as { request_id: string }).request_id;
  const row = await finishedRow(gw, id);
  t.is(row.status, 'completed', String(row.error));
  t.is(row.upstream_job_id, 'rep-recorded-2');
  t.deepEqual(submits, ['rep-unrecorded-1', 'rep-recorded-2']);
  t.deepEqual(cancelled, ['rep-unrecorded-1'], 'the unrecorded job was cancelled at the provider');
  t.is((await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' })).length, 1, 'charged once');
});
