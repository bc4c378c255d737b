// A prediction accepted for a model that a catalog reload then removed: when the worker picks it
// up it fails with the reason (nothing charged, the hold released), the message is acknowledged,
// and the worker goes on (docs/operating/model-files.md "Reloading the catalog").
import test from 'ava';
import nock from 'nock';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { createRunModel } from '../../workers/run-model.ts';
import { waitFor } from '../helpers/services.ts';

test('a pending prediction of a removed model fails cleanly on pickup, its hold released', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-removed-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  await fs.writeFile(path.join(dir, 'gone.yaml'), `models:
  gone-v1-budget-text-to-image:
    summary: gone (tier budget)
    description: "Action: Draws a test pattern. Input: prompt (required). Output: one PNG. Use for: a removed model."
    x-model: { category: text-to-image, tier: budget, family: gone-v1, output: image, adapter: procedural-image, price: { base: 7 } }
    input: { type: object, additionalProperties: false, required: [prompt], properties: { prompt: { type: string, maxLength: 100 } } }
`);
  // no worker: the prediction waits, as one queued behind others would
  const gw = await startGateway({ queue: 'memory', env: { MODELS_DIR: dir } });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 100);
  const res = await gw.server.inject({ method: 'POST', url: '/api/v1/gone-v1-budget-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'a test' } });
  t.is(res.statusCode, 200, res.payload);
  const id = (res.result as { request_id: string }).request_id;
  const balance = async () => Number((await gw.app.db('users').where({ id: acct.userId }).first('balance')).balance);
  t.is(await balance(), 93, 'held at its price');
  await fs.rm(path.join(dir, 'gone.yaml'));
  t.like(await gw.app.catalog.reload({ broadcast: false }), { removed: ['gone-v1-budget-text-to-image'] });
  t.deepEqual(await createRunModel(gw.app).handle({ body: { id }, attempt: 0, redelivered: false }), { kind: 'ack' });
  const row = await gw.app.db('predictions').where({ id }).first();
  t.is(row.status, 'failed');
  t.regex(String(row.error), /model gone-v1-budget-text-to-image is no longer offered by this gateway/);
  t.is(await balance(), 100, 'the hold is released: nothing charged');
});

test('a prediction a provider is running when a reload removes its model fails at its next poll, nothing charged', async (t) => {
  const UPSTREAM = 'https://kite.upstream.test';
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  t.teardown(() => { nock.cleanAll(); nock.enableNetConnect(); });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-removed-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  await fs.writeFile(path.join(dir, 'kite.yaml'), `models:
  kite-v1-budget-text-to-image:
    summary: Kite (tier budget)
    description: "Action: Draws an image upstream. Input: prompt (required). Output: one PNG. Use for: a removed model."
    x-model: { category: text-to-image, tier: budget, family: kite-v1, output: image, adapter: http-json, upstream: kite, upstream_model: kite-1, price: { base: 7 } }
    input: { type: object, additionalProperties: false, required: [prompt], properties: { prompt: { type: string, maxLength: 100 } } }
`);
  nock(UPSTREAM).post('/v1/models/kite-1/predictions').reply(200, { id: 'kite-job-1', status: 'processing' });
  const polls = nock(UPSTREAM).get('/v1/predictions/kite-job-1').times(50).reply(200, { id: 'kite-job-1', status: 'processing' });
  const gw = await startGateway({ worker: true, env: { MODELS_DIR: dir, UPSTREAM_KITE_URL: UPSTREAM, UPSTREAM_POLL_DELAYS_MS: '200' } });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 100);
  const res = await gw.server.inject({ method: 'POST', url: '/api/v1/kite-v1-budget-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'a test' } });
  t.is(res.statusCode, 200, res.payload);
  const id = (res.result as { request_id: string }).request_id;
  const balance = async () => Number((await gw.app.db('users').where({ id: acct.userId }).first('balance')).balance);
  // the provider has the job: it is being polled
  await waitFor(async () => (await gw.app.db('predictions').where({ id }).first()).upstream_job_id === 'kite-job-1' || undefined, { what: 'the job recorded' });
  t.is(await balance(), 93, 'held at its price');
  await fs.rm(path.join(dir, 'kite.yaml'));
  t.like(await gw.app.catalog.reload({ broadcast: false }), { removed: ['kite-v1-budget-text-to-image'] });
  const row = await waitFor(async () => {
    const r = await gw.app.db('predictions').where({ id }).first();
    return r.status === 'processing' ? undefined : r;
  }, { what: 'the prediction to end', timeoutMs: 15_000 });
  t.is(row.status, 'failed');
  t.regex(String(row.error), /kite-v1-budget-text-to-image is no longer served/);
  t.is(await balance(), 100, 'the hold is released: nothing charged');
  t.true(polls.isDone() === false, 'polling stopped: the remaining polls were never asked');
});
