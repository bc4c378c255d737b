import test from 'ava';
import type { ExecutionContext } from 'ava';
import nock from 'nock';
import { createHttpJson, httpJson } from '../../workers/adapters/http-json.ts';
import { AdapterError } from '../../workers/adapters/types.ts';
import type { AdapterEnv, RunContext, UpstreamConfig } from '../../workers/adapters/types.ts';

const API = 'https://api.acme.test';
const CDN = 'https://cdn.acme.test';
const KEY = 'sk-live-very-secret-key';
const PNG_BYTES = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const SUBMIT = '/v1/models/acme/flux-dev/predictions';

nock.disableNetConnect();
// nock's interceptors are process-wide, so these tests run one at a time.
test.afterEach.always(() => {
  nock.cleanAll();
});

function env(upstream: UpstreamConfig = { url: API, key: KEY }): AdapterEnv {
  return { upstreams: new Map([['acme', upstream]]) };
}

function context(signal: AbortSignal = new AbortController().signal, upstream = 'acme'): RunContext {
  return {
    signal,
    predictionId: 'p-1',
    model: { operationId: 'acme_flux_dev', category: 'text-to-image', upstream, upstreamModel: 'acme/flux-dev' },
  };
}

/** Polls every millisecond: the protocol's 500 ms would only slow the suite down. */
function adapter(e: AdapterEnv = env()) {
  return createHttpJson(e, { pollIntervalMs: 1 });
}

async function failure(t: ExecutionContext, run: Promise<unknown>): Promise<AdapterError> {
  const error = await t.throwsAsync(run, { instanceOf: AdapterError });
  if (!error) throw new Error('expected an AdapterError');
  return error;
}

test.serial('a prediction completed at once is downloaded with its type, NSFW flag and inference time', async (t) => {
  const api = nock(API)
    .post(SUBMIT, { input: { prompt: 'a cat' } })
    .matchHeader('authorization', `Bearer ${KEY}`)
    .reply(200, {
      status: 'completed',
      outputs: [`${CDN}/out/1.png`, `${CDN}/out/2.png`],
      has_nsfw_contents: [false, true],
      inference_ms: 1234,
    });
  const cdn = nock(CDN)
    .get('/out/1.png').reply(200, PNG_BYTES, { 'content-type': 'image/png' })
    .get('/out/2.png').reply(200, PNG_BYTES, { 'content-type': 'image/png; charset=binary' });

  const result = await adapter().run({ prompt: 'a cat' }, context());
  t.true(api.isDone());
  t.true(cdn.isDone());
  t.is(result.inferenceMs, 1234);
  t.is(result.files.length, 2);
  t.deepEqual(Buffer.from(result.files[0]!.data), PNG_BYTES);
  t.like(result.files[0], { contentType: 'image/png', extension: 'png' });
  t.falsy(result.files[0]!.nsfw);
  t.like(result.files[1], { contentType: 'image/png', extension: 'png', nsfw: true });
});

test.serial('a queued prediction is polled through processing until it completes', async (t) => {
  const api = nock(API)
    .post(SUBMIT).reply(201, { id: 'job/42', status: 'queued' })
    .get('/v1/predictions/job%2F42').matchHeader('authorization', `Bearer ${KEY}`).reply(200, { id: 'job/42', status: 'queued' })
    .get('/v1/predictions/job%2F42').reply(200, { id: 'job/42', status: 'processing' })
    .get('/v1/predictions/job%2F42').reply(200, { id: 'job/42', status: 'completed', outputs: [`${CDN}/a.png`] });
  nock(CDN).get('/a.png').reply(200, PNG_BYTES, { 'content-type': 'image/png' });

  const result = await adapter().run({ prompt: 'a cat' }, context());
  t.true(api.isDone());
  t.is(result.files.length, 1);
  t.true(result.inferenceMs >= 0);
});

test.serial('one failed poll does not lose a prediction that is still running upstream', async (t) => {
  nock(API)
    .post(SUBMIT).reply(200, { id: 'j1', status: 'queued' })
    .get('/v1/predictions/j1').reply(503, 'busy')
    .get('/v1/predictions/j1').reply(200, { status: 'completed', outputs: [`${CDN}/a.png`] });
  nock(CDN).get('/a.png').reply(200, PNG_BYTES, { 'content-type': 'image/png' });
  const result = await adapter().run({}, context());
  t.is(result.files.length, 1);
});

test.serial('a failed prediction fails without retry and carries the upstream message, truncated', async (t) => {
  nock(API)
    .post(SUBMIT).reply(200, { id: 'j1', status: 'queued' })
    .get('/v1/predictions/j1').reply(200, { status: 'processing' })
    .get('/v1/predictions/j1').reply(200, { status: 'failed', error: 'prompt was flagged by the safety checker' });
  const error = await failure(t, adapter().run({}, context()));
  t.is(error.message, 'prompt was flagged by the safety checker');
  t.false(error.retryable);

  nock(API).post(SUBMIT).reply(200, { status: 'failed', error: 'x'.repeat(2000) });
  const long = await failure(t, adapter().run({}, context()));
  t.true(long.message.length <= 503);
  t.false(long.retryable);
});

test.serial('HTTP 503 and 429 from the upstream are retryable', async (t) => {
  nock(API).post(SUBMIT).reply(503, 'overloaded');
  t.true((await failure(t, adapter().run({}, context()))).retryable);
  nock(API).post(SUBMIT).reply(429, { error: 'slow down' });
  t.true((await failure(t, adapter().run({}, context()))).retryable);
});

test.serial('HTTP 400 is not retryable and says what the upstream rejected', async (t) => {
  nock(API).post(SUBMIT).reply(400, { error: 'width must be a multiple of 8' });
  const error = await failure(t, adapter().run({ width: 513 }, context()));
  t.is(error.message, 'upstream rejected the input: width must be a multiple of 8');
  t.false(error.retryable);
});

test.serial('a network error is retryable', async (t) => {
  nock(API).post(SUBMIT).replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
  const error = await failure(t, adapter().run({}, context()));
  t.true(error.retryable);
  t.is(error.message, 'could not reach upstream "acme" during submission (ECONNRESET)');
});

test.serial('malformed JSON and unknown statuses are not retryable', async (t) => {
  nock(API).post(SUBMIT).reply(200, '{"status": "compl', { 'content-type': 'application/json' });
  t.false((await failure(t, adapter().run({}, context()))).retryable);
  nock(API).post(SUBMIT).reply(200, { status: 'dreaming' });
  t.false((await failure(t, adapter().run({}, context()))).retryable);
  nock(API).post(SUBMIT).reply(200, { status: 'completed', outputs: [] });
  t.false((await failure(t, adapter().run({}, context()))).retryable);
});

test.serial('an output URL that is not http(s) is refused without being fetched', async (t) => {
  nock(API).post(SUBMIT).reply(200, { status: 'completed', outputs: ['file:///etc/passwd'] });
  const error = await failure(t, adapter().run({}, context()));
  t.false(error.retryable);
  t.regex(error.message, /not http\(s\)/);
});

test.serial('a generic content type falls back to the extension in the output URL', async (t) => {
  nock(API).post(SUBMIT).reply(200, { status: 'completed', outputs: [`${CDN}/clip.mp4?sig=abc`] });
  nock(CDN).get('/clip.mp4').query(true).reply(200, PNG_BYTES, { 'content-type': 'application/octet-stream' });
  const { files } = await adapter().run({}, context());
  t.like(files[0], { contentType: 'video/mp4', extension: 'mp4' });
});

test.serial('output downloads follow redirects', async (t) => {
  nock(API).post(SUBMIT).reply(200, { status: 'completed', outputs: [`${CDN}/r/1`] });
  nock(CDN)
    .get('/r/1').reply(302, '', { location: `${CDN}/real.png` })
    .get('/real.png').reply(200, PNG_BYTES, { 'content-type': 'image/png' });
  const { files } = await adapter().run({}, context());
  t.deepEqual(Buffer.from(files[0]!.data), PNG_BYTES);
});

test.serial('an unconfigured upstream fails without retry and names the variable to set', async (t) => {
  const run = httpJson.create({ upstreams: new Map() }).run({}, context(undefined, 'black-forest'));
  const error = await failure(t, run);
  t.false(error.retryable);
  t.is(error.message, 'upstream "black-forest" is not configured (set UPSTREAM_BLACK_FOREST_URL)');
});

test.serial('no Authorization header is sent when the upstream has no key', async (t) => {
  const api = nock(API, { badheaders: ['authorization'] }).post(SUBMIT).reply(200, { status: 'completed', outputs: [`${CDN}/a.png`] });
  nock(CDN).get('/a.png').reply(200, PNG_BYTES, { 'content-type': 'image/png' });
  await adapter(env({ url: API })).run({}, context());
  t.true(api.isDone());
});

test.serial('outputs are downloaded without the upstream key', async (t) => {
  nock(API).post(SUBMIT).reply(200, { status: 'completed', outputs: [`${CDN}/a.png`] });
  const cdn = nock(CDN, { badheaders: ['authorization'] }).get('/a.png').reply(200, PNG_BYTES, { 'content-type': 'image/png' });
  await adapter().run({}, context());
  t.true(cdn.isDone());
});

test.serial('the key never appears in an error message, even when the upstream echoes it', async (t) => {
  const scenarios: (() => void)[] = [
    () => nock(API).post(SUBMIT).reply(400, { error: `invalid key ${KEY}` }),
    () => nock(API).post(SUBMIT).reply(200, { status: 'failed', error: `quota exceeded for ${KEY}` }),
    () => nock(API).post(SUBMIT).reply(503, KEY),
    () => nock(API).post(SUBMIT).reply(401, KEY),
    () => nock(API).post(SUBMIT).replyWithError(`connect failed with ${KEY}`),
    () => nock(API).post(SUBMIT).reply(200, `not json ${KEY}`),
    () => nock(API).post(SUBMIT).reply(200, { status: KEY }),
  ];
  for (const arrange of scenarios) {
    arrange();
    const error = await failure(t, adapter().run({}, context()));
    t.false(error.message.includes(KEY), error.message);
    nock.cleanAll();
  }
});

test.serial('cancelling while the upstream works stops polling with a non-retryable cancellation', async (t) => {
  const controller = new AbortController();
  let polls = 0;
  nock(API)
    .post(SUBMIT).reply(200, { id: 'j1', status: 'queued' })
    .get('/v1/predictions/j1').times(1000).reply(200, () => {
      polls++;
      return { status: 'processing' };
    });
  // Cancel while the adapter waits between polls. Aborting inside nock's reply callback would
  // abort a request mid-interception, which crashes the interceptor itself (an uncaught
  // exception in nock/msw, not in the adapter).
  const run = createHttpJson(env(), { pollIntervalMs: 200 }).run({}, context(controller.signal));
  const cancelled = (async () => {
    while (polls < 1) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 50));
    controller.abort();
  })();
  const error = await failure(t, run);
  await cancelled;
  t.is(error.message, 'cancelled');
  t.false(error.retryable);
  t.is(polls, 1);
});

test.serial('a prediction that never finishes gives up after the maximum wait', async (t) => {
  nock(API)
    .post(SUBMIT).reply(200, { id: 'j1', status: 'queued' })
    .get('/v1/predictions/j1').times(1000).reply(200, { status: 'processing' });
  const error = await failure(t, createHttpJson(env(), { pollIntervalMs: 1, maxWaitMs: 30 }).run({}, context()));
  t.false(error.retryable);
  t.regex(error.message, /did not finish/);
});
