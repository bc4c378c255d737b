import test from 'ava';
import { publicResolve, bytes, failure } from '../../helpers/adapters.ts';
import type { ExecutionContext } from 'ava';
import nock from 'nock';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { createHttpJson, httpJson, parseRetryAfter } from '../../../workers/adapters/http-json.ts';
import type { HttpJsonTiming } from '../../../workers/adapters/http-json.ts';
import { waitFor } from '../../helpers/services.ts';
import type { AdapterEnv, RunContext, UpstreamConfig } from '../../../workers/adapters/types.ts';

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

let tempDir = '';
test.before(async () => {
  tempDir = await fs.mkdtemp(path.join(os.tmpdir(), 'http-json-test-'));
});
test.after.always(async () => {
  await fs.rm(tempDir, { recursive: true, force: true });
});

function context(signal: AbortSignal = new AbortController().signal, upstream = 'acme'): RunContext {
  return {
    signal,
    predictionId: 'p-1',
    tempDir,
    model: { operationId: 'acme_flux_dev', category: 'text-to-image', upstream, upstreamModel: 'acme/flux-dev' },
  };
}


/** Polls every millisecond: the protocol's 500 ms would only slow the suite down. */
function adapter(e: AdapterEnv = env()) {
  return createHttpJson(e, { pollIntervalMs: 1 }, { resolve: publicResolve });
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
  t.deepEqual(await bytes(result.files[0]!), PNG_BYTES);
  t.deepEqual(await bytes(result.files[1]!), PNG_BYTES);
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

  const clock = fakeClock();
  const result = await createHttpJson(env(), clock.timing, { resolve: publicResolve }).run({ prompt: 'a cat' }, context());
  t.true(api.isDone());
  t.is(result.files.length, 1);
  // Without a time from the upstream, inference is the time the adapter waited, on its own clock.
  t.deepEqual(clock.sleeps, [500, 1000, 2000]);
  t.is(result.inferenceMs, 3500);
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
  t.deepEqual(await bytes(files[0]!), PNG_BYTES);
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
  // Cancel while the adapter waits between polls (its sleep only ends by the abort). Aborting inside
  // nock's reply callback would abort a request mid-interception, which crashes the interceptor
  // itself (an uncaught exception in nock/msw, not in the adapter).
  let sleeps = 0;
  const timing: Partial<HttpJsonTiming> = {
    sleep: async (_ms, signal) => {
      sleeps++;
      // The wait before the first poll ends at once; the one after it only by the abort.
      if (sleeps === 1) return;
      await new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
    },
  };
  const run = createHttpJson(env(), timing, { resolve: publicResolve }).run({}, context(controller.signal));
  const cancelled = (async () => {
    // Waiting for the second sleep: the first poll has been answered.
    await waitFor(() => sleeps === 2, { what: 'the adapter to wait after its first poll' });
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
  const error = await failure(t, createHttpJson(env(), { pollIntervalMs: 1, maxWaitMs: 30 }, { resolve: publicResolve }).run({}, context()));
  t.false(error.retryable);
  t.regex(error.message, /did not finish/);
});

/** A real server on 127.0.0.1 standing for an internal service; counts what reaches it. */
async function internalService(t: ExecutionContext): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server = http.createServer((_req, res) => {
    hits++;
    res.writeHead(200, { 'content-type': 'image/png' }).end(PNG_BYTES);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // Let the adapter really connect to loopback if it tried: nock must not be what stops it.
  nock.enableNetConnect('127.0.0.1');
  t.teardown(async () => {
    nock.disableNetConnect();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits };
}

async function tempFiles(): Promise<string[]> {
  return fs.readdir(tempDir);
}

/** Earlier tests leave the outputs they did not read; start these checks from an empty directory. */
async function emptyTempDir(): Promise<void> {
  for (const name of await tempFiles()) await fs.rm(path.join(tempDir, name), { force: true });
}

test.serial('an output URL on a loopback address is refused and never fetched', async (t) => {
  const internal = await internalService(t);
  for (const output of [`${internal.url}/secret.png`, `http://[::ffff:127.0.0.1]:1/x.png`, `http://[::127.0.0.1]:1/x.png`, 'http://169.254.169.254/latest/meta-data/', 'http://localhost./x.png']) {
    nock(API).post(SUBMIT).reply(200, { status: 'completed', outputs: [output] });
    const error = await failure(t, adapter().run({}, context()));
    t.false(error.retryable, output);
    t.regex(error.message, /output 1 points at a non-public address/, output);
  }
  t.is(internal.hits(), 0);
});

test.serial('a public output URL that redirects to a loopback address is refused at the redirect', async (t) => {
  const internal = await internalService(t);
  await emptyTempDir();
  nock(API).post(SUBMIT).reply(200, { status: 'completed', outputs: [`${CDN}/a.png`] });
  const cdn = nock(CDN).get('/a.png').reply(302, '', { location: `${internal.url}/secret.png` });
  const error = await failure(t, adapter().run({}, context()));
  t.true(cdn.isDone());
  t.false(error.retryable);
  t.regex(error.message, /non-public address/);
  t.is(internal.hits(), 0);
  t.deepEqual(await tempFiles(), []);
});

test.serial('an output host whose name resolves to a private address is refused before connecting', async (t) => {
  nock(API).post(SUBMIT).reply(200, { status: 'completed', outputs: [`${CDN}/a.png`] });
  const cdn = nock(CDN).get('/a.png').reply(200, PNG_BYTES);
  const resolve = async (): Promise<LookupAddress[]> => [{ address: '10.0.0.7', family: 4 }];
  const error = await failure(t, createHttpJson(env(), { pollIntervalMs: 1 }, { resolve }).run({}, context()));
  t.regex(error.message, /non-public address/);
  t.false(cdn.isDone());
});

test.serial('the size cap is enforced while streaming: the download is cut off and its partial file removed', async (t) => {
  await emptyTempDir();
  nock(API).post(SUBMIT).reply(200, { status: 'completed', outputs: [`${CDN}/small.png`, `${CDN}/big.png`] });
  nock(CDN)
    .get('/small.png').reply(200, PNG_BYTES, { 'content-type': 'image/png' })
    // No Content-Length: only counting the bytes as they arrive can notice.
    .get('/big.png').reply(200, () => Readable.from((function* () {
      for (let i = 0; i < 64; i++) yield Buffer.alloc(1024, i);
    })()));
  const run = createHttpJson(env(), { pollIntervalMs: 1 }, { resolve: publicResolve, maxOutputBytes: 4096 }).run({}, context());
  const error = await failure(t, run);
  t.false(error.retryable);
  t.is(error.message, 'upstream "acme" output 2 is larger than 4096 bytes');
  // Neither the partial file nor the first, complete output is left behind.
  t.deepEqual(await tempFiles(), []);
});

test.serial('UPSTREAM_ALLOW_PRIVATE_OUTPUTS (development only) permits outputs on loopback', async (t) => {
  const internal = await internalService(t);
  nock(API).post(SUBMIT).reply(200, { status: 'completed', outputs: [`${internal.url}/out.png`] });
  const { files } = await createHttpJson({ ...env(), allowPrivateOutputs: true }, { pollIntervalMs: 1 }).run({}, context());
  t.deepEqual(await bytes(files[0]!), PNG_BYTES);
  t.is(internal.hits(), 1);
});

/** Where the fake wall clock starts (a whole second, as HTTP dates are). */
const WALL_START = Date.parse('2026-11-23T12:00:00Z');

/** A clock that only moves when the adapter sleeps: a 30-minute job runs in milliseconds. */
function fakeClock(random = 0.5): { timing: Partial<HttpJsonTiming>; sleeps: number[] } {
  let now = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    timing: {
      now: () => now,
      wallNow: () => WALL_START + now,
      random: () => random,
      sleep: async (ms, signal) => {
        signal.throwIfAborted();
        sleeps.push(ms);
        now += ms;
      },
    },
  };
}

test.serial('polling backs off from 500 ms to 30 s, so a job stuck for 30 minutes is polled a bounded number of times', async (t) => {
  let polls = 0;
  nock(API)
    .post(SUBMIT).reply(200, { id: 'stuck', status: 'queued' })
    .get('/v1/predictions/stuck').times(4000).reply(200, () => {
      polls++;
      return { status: 'processing' };
    });
  const clock = fakeClock();
  const error = await failure(t, createHttpJson(env(), clock.timing, { resolve: publicResolve }).run({}, context()));
  t.regex(error.message, /did not finish within 30 minutes/);
  // 500, 1000, ... 16000, then 30 s each: about 65 polls where a fixed 500 ms made 3,600.
  t.true(polls <= 70, `${polls} polls`);
  t.true(polls >= 55, `${polls} polls`);
  t.deepEqual(clock.sleeps.slice(0, 7), [500, 1000, 2000, 4000, 8000, 16000, 30000]);
  t.true(Math.max(...clock.sleeps) <= 30_000);
});

test.serial('the poll waits are jittered by up to 20% either way', async (t) => {
  nock(API)
    .post(SUBMIT).reply(200, { id: 'j', status: 'queued' })
    .get('/v1/predictions/j').reply(200, { status: 'processing' })
    .get('/v1/predictions/j').reply(200, { status: 'completed', outputs: [`${CDN}/a.png`] });
  nock(CDN).get('/a.png').reply(200, PNG_BYTES);
  const low = fakeClock(0);
  await createHttpJson(env(), low.timing, { resolve: publicResolve }).run({}, context());
  t.deepEqual(low.sleeps, [400, 800]);
});

test.serial('a Retry-After on a poll answer is honoured, in seconds or as an HTTP date, and bounded', async (t) => {
  const inAMinute = new Date(WALL_START + 60_000).toUTCString();
  nock(API)
    .post(SUBMIT).reply(200, { id: 'j', status: 'queued' })
    .get('/v1/predictions/j').reply(200, { status: 'processing' }, { 'retry-after': '7' })
    .get('/v1/predictions/j').reply(503, 'busy', { 'retry-after': inAMinute })
    .get('/v1/predictions/j').reply(429, 'slow down', { 'retry-after': '86400' })
    .get('/v1/predictions/j').reply(200, { status: 'completed', outputs: [`${CDN}/a.png`] });
  nock(CDN).get('/a.png').reply(200, PNG_BYTES);
  const clock = fakeClock();
  await createHttpJson(env(), { ...clock.timing, maxRetryAfterMs: 120_000 }, { resolve: publicResolve }).run({}, context());
  t.is(clock.sleeps.length, 4);
  t.is(clock.sleeps[0], 500);
  t.is(clock.sleeps[1], 7000);
  // An HTTP date a minute after the wall clock's start, of which 7.5 s have been waited already.
  t.is(clock.sleeps[2], 52_500);
  // A day is bounded by maxRetryAfterMs.
  t.is(clock.sleeps[3], 120_000);
});

test('Retry-After is read as delay-seconds or an HTTP date', (t) => {
  const now = Date.parse('2026-11-23T12:00:00Z');
  t.is(parseRetryAfter('120', now), 120_000);
  t.is(parseRetryAfter('Mon, 23 Nov 2026 12:00:30 GMT', now), 30_000);
  t.is(parseRetryAfter('Mon, 23 Nov 2026 11:00:00 GMT', now), 0);
  t.is(parseRetryAfter('soon', now), undefined);
  t.is(parseRetryAfter(null, now), undefined);
});

test.serial('a name that answers public at the check and loopback at the connection (DNS rebinding) is not connected to', async (t) => {
  const internal = await internalService(t);
  const port = new URL(internal.url).port;
  // Not intercepted by nock: the real http client runs, with the adapter's pinned lookup.
  nock.enableNetConnect(/127\.0\.0\.1|rebind\.test/);
  let lookups = 0;
  const resolve = async (): Promise<LookupAddress[]> => (++lookups === 1 ? [{ address: '93.184.215.14', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]);
  nock(API).post(SUBMIT).reply(200, { status: 'completed', outputs: [`http://rebind.test:${port}/secret.png`] });
  const error = await failure(t, createHttpJson(env(), { pollIntervalMs: 1 }, { resolve }).run({}, context()));
  t.is(lookups, 2);
  t.false(error.retryable);
  t.regex(error.message, /non-public address/);
  t.is(internal.hits(), 0);
});

test.serial('an output host that does not resolve is a retryable network error', async (t) => {
  nock(API).post(SUBMIT).reply(200, { status: 'completed', outputs: [`${CDN}/a.png`] });
  const resolve = async (): Promise<LookupAddress[]> => {
    throw Object.assign(new Error('getaddrinfo ENOTFOUND cdn.acme.test'), { code: 'ENOTFOUND' });
  };
  const error = await failure(t, createHttpJson(env(), { pollIntervalMs: 1 }, { resolve }).run({}, context()));
  t.true(error.retryable);
  t.is(error.message, 'could not reach upstream "acme" during the download of output 1 (ENOTFOUND)');
});

test.serial('a job finished at once has no id to poll: a poll of it fails without calling the upstream, and it is marked as answered once', async (t) => {
  nock(API).post(SUBMIT).reply(200, { status: 'completed', outputs: [`${CDN}/out/1.png`] });
  const job = adapter().job!;
  const ctx = context();
  const submitted = await job.submit({ prompt: 'a cat' }, ctx);
  t.is(submitted.jobId, ctx.predictionId);
  t.like(submitted.state, { kind: 'succeeded', answeredOnce: true });
  const polled = nock(API).get(/\/v1\/predictions\//).reply(404, { error: 'no such prediction' });
  const error = await failure(t, job.poll(submitted.jobId, ctx));
  t.false(polled.isDone());
  t.false(error.retryable);
  t.is(error.code, 'upstream_failed');
  t.regex(error.message, /^upstream "acme" answered/);
});
