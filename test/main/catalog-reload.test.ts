// A catalog reload reaches every process of a deployment (MariaDB and RabbitMQ): an API process
// (in this test) and a worker process (`node main.ts`, ROLE=worker) sharing MODELS_DIR. A reload
// asked of the API (POST /auth/admin_reload_catalog) reaches the worker through the catalog
// broadcast, which then runs the new model; SIGHUP to the worker reaches the API, which then
// serves the model it added; a file that does not load, on SIGHUP, is logged with its reason and
// changes nothing anywhere.
import test from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { spawnGateway } from '../helpers/processes.ts';

function modelFile(slug: string, price: number): string {
  return `models:
  ${slug}:
    summary: ${slug} (tier budget)
    description: "Action: Draws a test pattern. Input: prompt (required). Output: one PNG. Use for: trying a reload."
    x-model: { category: text-to-image, tier: budget, family: ${slug.split('-').slice(0, 2).join('-')}, output: image, adapter: procedural-image, price: { base: ${price} } }
    input: { type: object, additionalProperties: false, required: [prompt], properties: { prompt: { type: string, maxLength: 100 } } }
`;
}

async function completed(gw: TestGateway, id: string) {
  return waitFor(async () => {
    const row = await gw.app.db('predictions').where({ id }).first();
    return row.status === 'completed' || row.status === 'failed' ? row : undefined;
  }, { what: 'the worker process to finish the prediction', timeoutMs: 30_000 });
}

test('a reload asked of one process reaches the others: the API\'s reaches the worker, the worker\'s SIGHUP reaches the API', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-reload-int-'));
  await fs.writeFile(path.join(dir, 'dot.yaml'), modelFile('dot-v1-budget-text-to-image', 4));
  const gw = await startGateway({ env: { MODELS_DIR: dir } });
  t.teardown(async () => {
    await gw.stop();
    await fs.rm(dir, { recursive: true, force: true });
  });
  const acct = await newAccount(gw, 1000);
  const admin = await newAccount(gw, 0);
  await gw.app.db('users').where({ id: admin.userId }).update({ role: 'admin' });
  const worker = spawnGateway({ ...gw.env, ROLE: 'worker', MODELS_DIR: dir, LOG_LEVEL: 'info' });
  t.teardown(() => worker.kill('SIGTERM'));
  await waitFor(() => worker.output().includes('mediagate worker consuming'), { what: 'the worker process to start', timeoutMs: 30_000 });
  const submit = async (slug: string) => {
    const res = await gw.server.inject({ method: 'POST', url: `/api/v1/${slug}`, headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'a test' } });
    return res;
  };

  // 1. the admin route on the API process; the worker hears it and runs the new model
  await fs.writeFile(path.join(dir, 'ring.yaml'), modelFile('ring-v1-budget-text-to-image', 6));
  const reloaded = await gw.server.inject({ method: 'POST', url: '/auth/admin_reload_catalog', headers: { authorization: `Bearer ${admin.session}` } });
  t.is(reloaded.statusCode, 200, reloaded.payload);
  t.like(reloaded.result, { added: ['ring-v1-budget-text-to-image'] });
  await waitFor(() => worker.output().includes('"msg":"catalog reloaded"'), { what: 'the worker to reload', timeoutMs: 30_000 });
  const ring = await submit('ring-v1-budget-text-to-image');
  t.is(ring.statusCode, 200, ring.payload);
  const ringRow = await completed(gw, (ring.result as { request_id: string }).request_id);
  t.is(ringRow.status, 'completed', `${ringRow.error}\n${worker.output().slice(-2000)}`);

  // 2. SIGHUP to the worker process; the API hears it and serves the model
  await fs.writeFile(path.join(dir, 'star.yaml'), modelFile('star-v1-budget-text-to-image', 8));
  t.is((await submit('star-v1-budget-text-to-image')).statusCode, 404);
  worker.child.kill('SIGHUP');
  await waitFor(() => gw.app.spec.models.has('star-v1-budget-text-to-image'), { what: 'the API process to reload', timeoutMs: 30_000 });
  const star = await submit('star-v1-budget-text-to-image');
  t.is(star.statusCode, 200, star.payload);
  t.is((star.result as { price: number }).price, 8);
  t.is((await completed(gw, (star.result as { request_id: string }).request_id)).status, 'completed');

  // 3. a file that does not load: the worker says why, and no process changes its catalog
  const before = gw.app.spec;
  await fs.writeFile(path.join(dir, 'broken.yaml'), modelFile('kite-v1-budget-text-to-image', 5).replace('adapter: procedural-image', 'adapter: procedural-image, upstrem: x'));
  worker.child.kill('SIGHUP');
  await waitFor(() => worker.output().includes('catalog reload refused'), { what: 'the worker to refuse the reload', timeoutMs: 30_000 });
  const refused = worker.output().split('\n').find((l) => l.includes('catalog reload refused'))!;
  t.regex(refused, /broken\.yaml/);
  t.regex(refused, /upstrem/);
  t.true(worker.child.exitCode === null, 'the worker keeps running');
  t.is(gw.app.spec, before, 'the API process kept its catalog');
  t.is((await submit('kite-v1-budget-text-to-image')).statusCode, 404);
});
