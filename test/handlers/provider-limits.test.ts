// Provider limits and transforms at the HTTP edge and in the worker (docs/operating/model-files.md):
// a request no configured provider of the model can take is a 422 naming the field and the limit,
// before any hold; failover skips a provider whose limits the request breaks; the provider gets
// the value its mapping makes (an integer duration as "8s"). The two providers speak the http-json
// protocol on nocked hosts (third-party HTTP).
import test from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { tinyMp4 } from '../helpers/adapters.ts';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { waitFor } from '../helpers/services.ts';

const ALPHA = 'https://alpha.provider.test';
const BETA = 'https://beta.provider.test';
const MODEL = 'clip-v1-fast-text-to-video';

// alpha: 3-15 s at 16:9 or 1:1; beta: 5 or 10 s sent as "5s"/"10s", its ratios by a value map
const MODEL_FILE = `models:
  ${MODEL}:
    summary: Clip v1 text-to-video (tier fast)
    description: "Action: Generates a short clip. Input: prompt (required), duration (1-15 s), aspect_ratio. Output: one MP4 URL. Use for: tests of provider limits."
    x-model:
      category: text-to-video
      tier: fast
      family: clip-v1
      output: video
      providers:
        - adapter: http-json
          upstream: alpha
          upstream_model: clip-alpha
          limits:
            duration: { minimum: 3, maximum: 15 }
            aspect_ratio: { enum: ['16:9', '1:1'] }
        - adapter: http-json
          upstream: beta
          upstream_model: clip-beta
          input_map:
            duration: { type: string, suffix: s }
            aspect_ratio: { to: frame, values: { '16:9': landscape, '9:16': portrait } }
          limits:
            duration: { enum: [5, 10] }
      price:
        base: 10
        per_unit: { field: duration, amount: 10 }
    input:
      type: object
      additionalProperties: false
      required: [prompt]
      properties:
        prompt: { type: string, minLength: 1, maxLength: 500 }
        duration: { type: integer, minimum: 1, maximum: 15, default: 5 }
        aspect_ratio: { type: string, maxLength: 7, pattern: '^[1-9][0-9]{0,2}:[1-9][0-9]{0,2}$', default: '16:9' }
`;

let dir = '';
test.before(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-limits-'));
  await fs.writeFile(path.join(dir, 'clip.yaml'), MODEL_FILE);
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
});
test.afterEach.always(() => {
  nock.cleanAll();
});
test.after.always(async () => {
  nock.enableNetConnect();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

const BOTH = { UPSTREAM_ALPHA_URL: ALPHA, UPSTREAM_BETA_URL: BETA, UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true', UPSTREAM_POLL_DELAYS_MS: '20' };

async function gateway(env: Record<string, string>, worker = false): Promise<TestGateway> {
  return startGateway({ queue: 'memory', worker, env: { MODELS_DIR: dir, ...env } });
}

/** A provider that finishes every submit at once with one MP4, recording the inputs it got. */
function provider(base: string, model: string) {
  const seen: Array<Record<string, unknown>> = [];
  // nock 15 hands the reply function the fetch Request
  nock(base).persist().post(`/v1/models/${model}/predictions`).reply(async (req: Request) => {
    seen.push((await req.json() as { input: Record<string, unknown> }).input);
    return [200, { status: 'completed', outputs: [`${base}/out.mp4`] }];
  });
  nock(base).persist().get('/out.mp4').reply(200, tinyMp4(), { 'content-type': 'video/mp4' });
  return seen;
}

async function wallet(gw: TestGateway, userId: number) {
  return gw.app.db('users').where({ id: userId }).first('balance', 'held');
}

test.serial('a duration no configured provider takes is a 422 naming the field and each limit, before any hold', async (t) => {
  const gw = await gateway(BOTH);
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const before = await wallet(gw, acct.userId);
  const res = await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'a kite', duration: 2 } });
  t.is(res.statusCode, 422, res.payload);
  const detail = (JSON.parse(res.payload) as { detail: Array<{ loc: unknown[]; msg: string; type: string }> }).detail;
  t.deepEqual(detail.map((d) => [d.loc, d.type]), [[['body', 'duration'], 'provider_limit'], [['body', 'duration'], 'provider_limit']]);
  t.regex(detail[0]!.msg, /greater than or equal to 3/);
  t.regex(detail[1]!.msg, /one of 5, 10/);
  t.deepEqual(await wallet(gw, acct.userId), before);
  t.is((await gw.app.db('predictions').where({ user_id: acct.userId }).count({ n: '*' }))[0]!.n, 0);
  // a sandbox key is refused alike, and so is the quote
  const sandbox = await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': acct.testKey }, payload: { prompt: 'a kite', duration: 2 } });
  t.is(sandbox.statusCode, 422);
  const quote = await callOperation(gw, 'calculateDynamicCost', { as: acct.liveKey, body: { model: MODEL, input: { prompt: 'a kite', duration: 2 } } });
  t.is(quote.status, 422);
  t.deepEqual((quote.body as unknown as { detail: Array<{ loc: unknown[] }> }).detail[0]!.loc, ['body', 'input', 'duration']);
});

test.serial('only the configured providers count: with beta alone, a 7 s clip alpha could make is refused', async (t) => {
  const gw = await gateway({ UPSTREAM_BETA_URL: BETA });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const res = await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'a kite', duration: 7 } });
  t.is(res.statusCode, 422, res.payload);
  t.regex(res.payload, /one of 5, 10/);
  // a ratio beta's value map lacks is the caller's 422 too, naming the field, never a failed run
  const ratio = await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'a kite', duration: 5, aspect_ratio: '1:1' } });
  t.is(ratio.statusCode, 422, ratio.payload);
  t.deepEqual((JSON.parse(ratio.payload) as { detail: Array<{ loc: unknown[] }> }).detail[0]!.loc, ['body', 'aspect_ratio']);
  t.regex(ratio.payload, /one of \\"16:9\\", \\"9:16\\"/);
});

test.serial('failover skips a provider whose limits the request breaks: a 9:16 clip passes alpha by for beta; one both take goes to alpha, the first', async (t) => {
  const gw = await gateway(BOTH, true);
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const alpha = provider(ALPHA, 'clip-alpha');
  const beta = provider(BETA, 'clip-beta');
  const submit = async (payload: Record<string, unknown>) => {
    const res = await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': acct.liveKey }, payload });
    t.is(res.statusCode, 200, res.payload);
    const id = (res.result as { request_id: string }).request_id;
    return waitFor(async () => {
      const row = await gw.app.db('predictions').where({ id }).first('status', 'upstream_name', 'error');
      return row?.status === 'completed' || row?.status === 'failed' ? row : undefined;
    }, { what: 'the prediction to finish', timeoutMs: 20_000 });
  };
  t.like(await submit({ prompt: 'a kite', duration: 5, aspect_ratio: '9:16' }), { status: 'completed', upstream_name: 'beta' });
  t.is(alpha.length, 0);
  t.like(await submit({ prompt: 'a kite', duration: 4, aspect_ratio: '16:9' }), { status: 'completed', upstream_name: 'alpha' });
  t.like(await submit({ prompt: 'a kite', duration: 10, aspect_ratio: '16:9' }), { status: 'completed', upstream_name: 'alpha' });
  t.deepEqual(beta, [{ prompt: 'a kite', duration: '5s', frame: 'portrait' }]);
  t.deepEqual(alpha, [{ prompt: 'a kite', duration: 4, aspect_ratio: '16:9' }, { prompt: 'a kite', duration: 10, aspect_ratio: '16:9' }]);
});

test.serial('the provider receives what its mapping makes: beta gets duration "10s" and frame "portrait" when alpha is not configured', async (t) => {
  const gw = await gateway({ UPSTREAM_BETA_URL: BETA, UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true', UPSTREAM_POLL_DELAYS_MS: '20' }, true);
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const beta = provider(BETA, 'clip-beta');
  const res = await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'a kite', duration: 10, aspect_ratio: '9:16' } });
  t.is(res.statusCode, 200, res.payload);
  t.is((res.result as { price: number }).price, 110);
  const id = (res.result as { request_id: string }).request_id;
  await waitFor(async () => (await gw.app.db('predictions').where({ id }).first('status'))?.status === 'completed', { what: 'completion', timeoutMs: 20_000 });
  t.deepEqual(beta, [{ prompt: 'a kite', duration: '10s', frame: 'portrait' }]);
});
