// POST /v1/images/generations waits for its prediction only up to IMAGES_WAIT_MS: past the bound
// the answer is a 504 that names the prediction, which keeps running (held, not charged, not
// failed) and can be polled. A gateway with no worker, so that the prediction stays queued.
import test from 'ava';
import OpenAI from 'openai';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { freePort } from '../helpers/processes.ts';
import { checkLedger } from '../../db/wallet/ledger.ts';

let gw: TestGateway;
let base = '';

test.before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  gw = await startGateway({ db: 'sqlite', queue: 'memory', env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, IMAGES_WAIT_MS: '200' } });
  await gw.server.start();
});
test.after.always(async () => {
  await gw?.stop();
});

test('past the wait bound, a 504 names the prediction, which stays queued with its hold, ready to be polled', async (t) => {
  const acct = await newAccount(gw, 1000);
  const client = new OpenAI({ apiKey: acct.liveKey, baseURL: `${base}/v1`, maxRetries: 0 });
  const err = await t.throwsAsync(client.images.generate({ model: 'canvas-v1-fast-text-to-image', prompt: 'a slow lighthouse' }), { instanceOf: OpenAI.APIError });
  t.is(err!.status, 504);
  const id = /the prediction (\S+) keeps running/.exec(err!.message)?.[1];
  t.truthy(id, err!.message);
  t.regex(err!.message, new RegExp(`GET /api/v1/predictions/${id}/result`));
  const poll = await gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${id}/result`, headers: { 'x-api-key': acct.liveKey } });
  t.is(poll.statusCode, 200);
  t.is(JSON.parse(poll.payload).status, 'queued');
  const wallet = await gw.app.db('users').where({ id: acct.userId }).first<{ balance: unknown; held: unknown }>('balance', 'held');
  t.true(Number(wallet!.held) > 0, 'the hold stays with the running prediction');
  t.is(Number(wallet!.balance) + Number(wallet!.held), 1000, 'held, not charged');
  t.deepEqual((await checkLedger(gw.app.db)).mismatches, []);
});

test('the 504 of a prediction that keeps running tells the OpenAI clients not to retry: their automatic retries would submit (and charge) it again', async (t) => {
  const acct = await newAccount(gw, 1000);
  // the SDK's default: up to two retries of a 5xx, unless the answer says x-should-retry: false
  const client = new OpenAI({ apiKey: acct.liveKey, baseURL: `${base}/v1` });
  const err = await t.throwsAsync(client.images.generate({ model: 'canvas-v1-fast-text-to-image', prompt: 'a lighthouse, once' }), { instanceOf: OpenAI.APIError });
  t.is(err!.status, 504);
  t.is(err!.headers?.get('x-should-retry'), 'false');
  const rows = await gw.app.db('predictions').where({ user_id: acct.userId }).count({ n: '*' });
  t.is(Number(rows[0]!.n), 1, 'one prediction, not one per retry');
  t.deepEqual((await checkLedger(gw.app.db)).mismatches, []);
});
