// How much of a provider's API answer (a submit, poll, status or chat call's body; output files
// have their own cap) is read into memory: at most MAX_ANSWER_BYTES (64 MiB, room for OpenAI's
// base64 images). Past it reading stops, the connection is closed, and the call fails as the
// provider's fault, with a warning for the operator. An endless body needs a real socket (nock
// buffers a whole reply before fetch sees it), so those tests run a local server; the rest nock.
import test from 'ava';
import nock from 'nock';
import { publicResolve, failure } from '../../helpers/adapters.ts';
import { cutOff, hugeHost } from '../../helpers/huge-host.ts';
import { callJson } from '../../../workers/adapters/upstream-http.ts';
import { completeChat, streamChat, MAX_EVENT_CHARS } from '../../../workers/adapters/openai-chat.ts';
import { createOpenAiCompatible } from '../../../workers/adapters/openai-compatible.ts';
import { createReplicate } from '../../../workers/adapters/replicate.ts';
import type { Caller } from '../../../workers/adapters/upstream-errors.ts';

test.before(() => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1/);
});
test.afterEach.always(() => {
  nock.cleanAll();
});
test.after.always(() => {
  nock.enableNetConnect();
});

const MiB = 1024 * 1024;
/** upstream-http.ts MAX_ANSWER_BYTES */
const MAX_ANSWER_BYTES = 64 * MiB;

function caller(warnings: Array<{ fields: Record<string, unknown>; message: string }>): Caller {
  return { provider: 'acme', secrets: [], signal: new AbortController().signal, warn: (fields, message) => warnings.push({ fields, message }) };
}

test('a 2xx answer larger than the cap is cut off there: the call fails as the provider\'s protocol fault, not retried, with a warning', async (t) => {
  const host = await hugeHost(t, { status: 200, total: 96 * MiB });
  const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
  const err = await failure(t, callJson(caller(warnings), { method: 'GET', url: `${host.base}/v1/predictions/x`, headers: {}, what: 'polling' }));
  t.is(err.code, 'upstream_protocol');
  t.false(err.retryable, 'the same provider would send the same answer again');
  t.regex(err.message, /^upstream "acme" sent an answer larger than 64 MiB during polling; it was not read/);
  t.true(await cutOff(host.answers[0], host.total), 'the connection is closed once the cap is passed, not read to its end');
  t.is(warnings.length, 1);
  t.like(warnings[0]!.fields, { call: 'polling', status: 200, limitBytes: MAX_ANSWER_BYTES });
});

test('an error answer larger than the cap keeps its status\'s meaning (a 503 is retried), its body cut off', async (t) => {
  const host = await hugeHost(t, { status: 503, total: 96 * MiB });
  const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
  const err = await failure(t, callJson(caller(warnings), { method: 'POST', url: `${host.base}/v1/models/m/predictions`, headers: {}, body: {}, what: 'submission' }));
  t.is(err.code, 'upstream_unavailable');
  t.true(err.retryable);
  t.true(await cutOff(host.answers[0], host.total));
  t.is(warnings.length, 1);
});

test('a declared Content-Length past the cap is refused before any of the body is read', async (t) => {
  nock('https://api.acme.test').get('/v1/predictions/x').reply(200, '{}', { 'content-length': String(MAX_ANSWER_BYTES + 1) });
  const err = await failure(t, callJson(caller([]), { method: 'GET', url: 'https://api.acme.test/v1/predictions/x', headers: {}, what: 'polling' }));
  t.is(err.code, 'upstream_protocol');
  t.regex(err.message, /larger than 64 MiB/);
});

test.serial('a poll answer past the cap fails the poll (Replicate, nock)', async (t) => {
  const replicate = createReplicate({ upstreams: new Map([['replicate', { url: 'https://api.replicate.test/v1', key: 'r8_k' }]]) }, { resolve: publicResolve }).job!;
  nock('https://api.replicate.test').get('/v1/predictions/p1').reply(200, `{"id":"p1","status":"processing","logs":"${'a'.repeat(MAX_ANSWER_BYTES)}"}`);
  const err = await failure(t, replicate.poll('p1', { signal: new AbortController().signal, predictionId: 'p-big', model: { operationId: 'x', category: 'text-to-image', upstream: 'replicate', upstreamModel: 'a/b' } }));
  t.is(err.code, 'upstream_protocol');
  t.regex(err.message, /larger than 64 MiB during polling/);
});

test.serial('OpenAI\'s largest image answers fit: four 1536x1024 images as base64 of incompressible PNGs (about 34 MB)', async (t) => {
  // 1536 x 1024 RGBA is 6.3 MB raw: a PNG no compression helps is about that, 8.4 MB as base64
  const image = Buffer.alloc(1536 * 1024 * 4 + 64, 7);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(image);
  const b64 = image.toString('base64');
  const answer = JSON.stringify({ created: 1, data: [1, 2, 3, 4].map(() => ({ b64_json: b64 })), usage: { input_tokens: 10, output_tokens: 24960 } });
  t.true(answer.length > 33_000_000 && answer.length < MAX_ANSWER_BYTES);
  nock('https://api.openai.test').post('/v1/images/generations').reply(200, answer, { 'content-type': 'application/json' });
  const adapter = createOpenAiCompatible({ upstreams: new Map([['openai', { url: 'https://api.openai.test/v1', key: 'sk-k' }]]) }, { resolve: publicResolve });
  const { state } = await adapter.job!.submit({ prompt: 'a fox', num_images: 4 }, { signal: new AbortController().signal, predictionId: 'p-b64', model: { operationId: 'lumen-max-text-to-image', category: 'text-to-image', upstream: 'openai', upstreamModel: 'gpt-image-1' } });
  t.is(state.kind, 'succeeded');
  t.is(state.kind === 'succeeded' ? state.outputs.length : 0, 4);
});

test('a non-streamed chat answer past the cap is cut off: the call fails as the provider\'s fault, with a warning', async (t) => {
  const host = await hugeHost(t, { status: 200, total: 96 * MiB });
  const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
  const err = await t.throwsAsync(completeChat([{ name: 'self-hosted', url: `${host.base}/v1`, key: undefined, upstreamModel: 'm' }], { messages: [{ role: 'user', content: 'hi' }] }, {
    signal: new AbortController().signal, timeoutMs: 120_000, warn: (fields, message) => warnings.push({ fields, message }),
  }));
  t.like(err, { code: 'upstream_failed' });
  t.regex(err!.message, /^the provider "self-hosted" sent an answer larger than 64 MiB; it was not read/);
  t.true(await cutOff(host.answers[0], host.total));
  t.is(warnings.length, 1);
  t.like(warnings[0]!.fields, { provider: 'self-hosted', limitBytes: MAX_ANSWER_BYTES });
});

test('a chat provider\'s error answer past the cap is cut off too, and keeps its status\'s meaning', async (t) => {
  const host = await hugeHost(t, { status: 500, total: 96 * MiB });
  const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
  const err = await t.throwsAsync(completeChat([{ name: 'self-hosted', url: `${host.base}/v1`, key: undefined, upstreamModel: 'm' }], { messages: [{ role: 'user', content: 'hi' }] }, {
    signal: new AbortController().signal, timeoutMs: 120_000, warn: (fields, message) => warnings.push({ fields, message }),
  }));
  t.like(err, { code: 'upstream_failed', status: 500 });
  t.true(await cutOff(host.answers[0], host.total));
  t.is(warnings.length, 1);
});

test('a streamed chat answer whose event never ends is cut off at the event cap: the call fails as the provider\'s fault, with a warning', async (t) => {
  const host = await hugeHost(t, { status: 200, total: 32 * MiB });
  const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
  const err = await t.throwsAsync(streamChat([{ name: 'self-hosted', url: `${host.base}/v1`, key: undefined, upstreamModel: 'm' }], { messages: [{ role: 'user', content: 'hi' }] }, {
    signal: new AbortController().signal, timeoutMs: 120_000, warn: (fields, message) => warnings.push({ fields, message }),
  }));
  t.like(err, { code: 'upstream_failed' });
  t.regex(err!.message, /^the provider "self-hosted" streamed an event longer than 8388608 characters; it was not read/);
  t.true(await cutOff(host.answers[0], host.total), 'the connection is closed at the cap, not read to its end');
  t.is(warnings.length, 1);
  t.like(warnings[0]!.fields, { provider: 'self-hosted', limitChars: MAX_EVENT_CHARS });
});
