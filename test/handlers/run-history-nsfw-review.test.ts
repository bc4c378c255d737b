// A prediction that completes through the real worker with an NSFW output starts `flagged`, and
// its files are listed, never blacked out; one without starts `unreviewed`. The upstream provider
// is third-party HTTP: nock.
import test from 'ava';
import nock from 'nock';
import { readFileSync } from 'node:fs';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { waitFor } from '../helpers/services.ts';

const UPSTREAM = 'https://lumen.upstream.test';
const CDN = 'https://cdn.lumen.test';
const PNG = readFileSync(new URL('../../workers/sandbox/sample.png', import.meta.url));

let gw: TestGateway;
let acct: Account;

test.before(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  // UPSTREAM_ALLOW_PRIVATE_OUTPUTS: nock's made-up CDN name needs no DNS
  gw = await startGateway({ worker: true, env: { UPSTREAM_LUMEN_URL: UPSTREAM, UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true' } });
  acct = await newAccount(gw, 100_000);
});
test.after.always(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  await gw?.stop();
});

async function generate(nsfw: boolean[]): Promise<string> {
  nock(UPSTREAM).post(/\/v1\/models\/.*\/predictions/).reply(200, { status: 'completed', outputs: nsfw.map((_, i) => `${CDN}/out-${i}.png`), has_nsfw_contents: nsfw });
  nsfw.forEach((_, i) => nock(CDN).get(`/out-${i}.png`).reply(200, PNG, { 'content-type': 'image/png' }));
  const res = await gw.server.inject({ method: 'POST', url: '/api/v1/lumen-dev-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'x' } });
  if (res.statusCode !== 200) throw new Error(res.payload);
  const id = (res.result as { request_id: string }).request_id;
  await waitFor(async () => (await gw.app.db('predictions').where({ id, status: 'completed' }).first()) ?? false, { what: 'the prediction to complete', timeoutMs: 30_000 });
  return id;
}

test.serial('an NSFW output flags the prediction; its files stay listed with their URLs', async (t) => {
  const flagged = await generate([false, true]);
  const clean = await generate([false]);
  const history = await callOperation<{ items: Array<{ id: string; review_status: string; has_nsfw_contents: boolean[]; outputs: string[] }> }>(gw, 'getRunHistory', { as: acct.session });
  const byId = new Map(history.body.items.map((i) => [i.id, i]));
  t.is(byId.get(flagged)!.review_status, 'flagged');
  t.deepEqual(byId.get(flagged)!.has_nsfw_contents, [false, true]);
  t.is(byId.get(flagged)!.outputs.length, 2);
  t.is(byId.get(clean)!.review_status, 'unreviewed');
  const gallery = await callOperation<{ items: Array<{ request_id: string; has_nsfw_content: boolean; url: string }> }>(gw, 'getGallery', { as: acct.session, query: { review_status: 'flagged' } });
  t.deepEqual(gallery.body.items.map((i) => [i.request_id, i.has_nsfw_content]), [[flagged, false], [flagged, true]]);
  for (const item of gallery.body.items) {
    const file = await gw.server.inject({ method: 'GET', url: new URL(item.url).pathname });
    t.is(file.statusCode, 200, 'the NSFW file is served as it is');
  }
});
