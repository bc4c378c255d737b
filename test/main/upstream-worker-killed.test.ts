// A worker process killed (SIGKILL) while an upstream job runs at the provider: the job id is on
// the prediction, so another worker resumes polling that job and never submits a second one (no
// double charge upstream), and the user is charged once. The provider is a local stand-in
// speaking Replicate's predictions API, reached through UPSTREAM_REPLICATE_URL (nock cannot
// reach another process); it counts the submits.
import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tinyPng } from '../helpers/adapters.ts';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { spawnGateway } from '../helpers/processes.ts';

const KEY = 'r8_standin_token';
const JOB = 'standin-job-1';

async function standInReplicate() {
  const png = tinyPng(5, 5, 30);
  const state = { url: '', submits: 0, polls: 0, released: false };
  const server = http.createServer((req, res) => {
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.headers.authorization !== `Bearer ${KEY}` && req.url !== '/out/0.png') return json(401, { detail: 'Invalid token.' });
    if (req.method === 'POST' && req.url === '/v1/models/black-forest-labs/flux-1.1-pro/predictions') {
      state.submits++;
      req.resume();
      return json(201, { id: JOB, status: 'starting', output: null, error: null });
    }
    if (req.method === 'GET' && req.url === `/v1/predictions/${JOB}`) {
      state.polls++;
      return json(200, state.released
        ? { id: JOB, status: 'succeeded', output: [`${state.url}/out/0.png`], error: null, metrics: { predict_time: 2.5 } }
        : { id: JOB, status: 'processing', output: null, error: null });
    }
    if (req.method === 'GET' && req.url === '/out/0.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    return json(404, { detail: 'Not found.' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { state, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

test('a worker killed while the provider runs the job: another worker resumes polling it, one submit, charged once', async (t) => {
  const provider = await standInReplicate();
  const gw = await startGateway({
    env: {
      UPSTREAM_REPLICATE_URL: `${provider.state.url}/v1`, UPSTREAM_REPLICATE_KEY: KEY, UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true',
      UPSTREAM_POLL_DELAYS_MS: '200', PENDING_REPUBLISH_AFTER_MS: '1000',
    },
  });
  t.teardown(async () => {
    await gw.stop();
    await provider.close();
  });
  const workerEnv = { ...gw.env, ROLE: 'worker', LOG_LEVEL: 'warn' };
  const acct = await newAccount(gw, 10_000);

  const first = spawnGateway(workerEnv);
  t.teardown(() => first.kill());
  const submit = await gw.server.inject({ method: 'POST', url: '/api/v1/lumen-pro-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'killed mid-job', num_images: 1 } });
  t.is(submit.statusCode, 200, submit.payload);
  const id = (submit.result as { request_id: string }).request_id;

  // Submitted, recorded, and polled at least once by the first worker.
  await waitFor(async () => provider.state.submits === 1 && provider.state.polls >= 1, { what: 'the first worker to submit and poll', timeoutMs: 60_000 });
  const during = await gw.app.db('predictions').where({ id }).first();
  t.like(during, { status: 'processing', upstream_name: 'replicate', upstream_job_id: JOB, upstream_model: 'black-forest-labs/flux-1.1-pro' });
  await first.kill('SIGKILL');

  provider.state.released = true;
  const second = spawnGateway(workerEnv);
  t.teardown(() => second.kill('SIGTERM'));
  const done = await waitFor(async () => {
    const row = await gw.app.db('predictions').where({ id }).first();
    return row.status === 'completed' || row.status === 'failed' ? row : undefined;
  }, { what: 'the second worker to finish the job', timeoutMs: 60_000 });
  t.is(done.status, 'completed', `${done.error}\n${second.output()}`);
  t.is(provider.state.submits, 1, 'the job was submitted once');
  t.is(done.upstream_job_id, JOB);
  t.is(Number(done.inference_ms), 2500);

  const debits = await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' });
  t.is(debits.length, 1);
  const user = await gw.app.db('users').where({ id: acct.userId }).first();
  t.deepEqual([Number(user.balance), Number(user.held)], [10_000 - Number(done.price), 0]);
});
