// A failed prediction is delivered too: `error` present, `outputs` absent.
import test from 'ava';
import nock from 'nock';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { startReceiver } from '../helpers/receiver.ts';

test('a failed prediction is delivered with its error and without outputs', async (t) => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  const upstream = 'https://lumen.upstream.test';
  nock(upstream).post(/\/v1\/models\/.*\/predictions/).reply(400, { error: 'prompt rejected' });
  const gw = await startGateway({ worker: true, env: { WEBHOOK_ALLOW_INSECURE: 'true', UPSTREAM_LUMEN_URL: upstream } });
  const receiver = await startReceiver();
  t.teardown(async () => {
    nock.cleanAll();
    nock.enableNetConnect();
    await receiver.close();
    await gw.stop();
  });
  const acct = await newAccount(gw, 10_000);
  const res = await gw.server.inject({ method: 'POST', url: `/api/v1/lumen-dev-text-to-image?webhook=${encodeURIComponent(receiver.url)}`, headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'x' } });
  t.is(res.statusCode, 200, res.payload);
  await waitFor(() => receiver.received.length === 1, { what: 'the delivery' });
  const payload = JSON.parse(receiver.received[0]!.body) as Record<string, unknown>;
  t.is(payload.status, 'failed');
  t.regex(String(payload.error), /prompt rejected/);
  t.false('outputs' in payload);
  t.deepEqual(payload.has_nsfw_contents, []);
});
