// openai-compatible image edits (POST {base}/images/edits, multipart/form-data), for the
// image-to-image category: the image at the user's URL is fetched under the output destination
// policy and uploaded as the `image` file with the mapped fields. Fixtures shaped as OpenAI's API
// reference documents them. Third-party HTTP: nock.
import test from 'ava';
import nock from 'nock';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { tinyPng, publicResolve, bytes, failure } from '../../helpers/adapters.ts';
import { createOpenAiCompatible } from '../../../workers/adapters/openai-compatible.ts';
import type { AdapterEnv, RunContext } from '../../../workers/adapters/types.ts';

const API = 'https://api.openai.test';
const USER_CDN = 'https://uploads.example.test';
const KEY = 'sk-edits-secret-key';
const SOURCE = tinyPng(6, 4, 200);
const EDITED = tinyPng(6, 4, 20);

nock.disableNetConnect();
test.afterEach.always(() => nock.cleanAll());

let tempDir = '';
test.before(async () => {
  tempDir = await fs.mkdtemp(path.join(os.tmpdir(), 'openai-edits-'));
});
test.after.always(async () => {
  await fs.rm(tempDir, { recursive: true, force: true });
});

const env: AdapterEnv = { upstreams: new Map([['openai', { url: `${API}/v1`, key: KEY }]]) };
const adapter = () => createOpenAiCompatible(env, { resolve: publicResolve });

function ctx(): RunContext {
  return {
    signal: new AbortController().signal, predictionId: 'p-edit', tempDir,
    model: {
      operationId: 'lumen-max-i2i', category: 'image-to-image', upstream: 'openai', upstreamModel: 'gpt-image-1',
      inputMap: { image_url: 'image', num_images: 'n', strength: '', seed: '' },
    },
  };
}

/** The multipart body's parts: name -> text, or {filename, type, bytes} for a file. */
async function parts(body: string, contentType: string) {
  // nock hands over a body that is not UTF-8 (the PNG part) as hex
  const isHex = /^[0-9a-f]*$/i.test(body) && body.length % 2 === 0;
  const form = await new Response(Buffer.from(body, isHex ? 'hex' : 'utf8'), { headers: { 'content-type': contentType } }).formData();
  const out: Record<string, unknown> = {};
  for (const [name, value] of form.entries()) {
    out[name] = typeof value === 'string' ? value : { filename: value.name, type: value.type, bytes: Buffer.from(await value.arrayBuffer()) };
  }
  return out;
}

test.serial('the image is fetched from its URL and uploaded with the mapped fields; the edited image comes back as bytes', async (t) => {
  nock(USER_CDN).get('/me/cat.png').reply(200, SOURCE, { 'content-type': 'image/png' });
  let raw = '';
  let contentType = '';
  const api = nock(API)
    .post('/v1/images/edits', (body: string) => {
      raw = body;
      return true;
    })
    .matchHeader('authorization', `Bearer ${KEY}`)
    .matchHeader('content-type', (value: string | null) => {
      contentType = value ?? '';
      return contentType.startsWith('multipart/form-data; boundary=');
    })
    .reply(200, { created: 1_713_833_628, data: [{ b64_json: EDITED.toString('base64') }] });
  const result = await adapter().run({ image_url: `${USER_CDN}/me/cat.png`, prompt: 'give the cat a hat', num_images: 1, strength: 0.7, seed: 4, output_format: 'png' }, ctx());
  t.true(api.isDone());
  const sent = await parts(raw, contentType);
  t.like(sent, { model: 'gpt-image-1', prompt: 'give the cat a hat', n: '1', output_format: 'png' });
  t.false('strength' in sent || 'seed' in sent || 'image_url' in sent, 'dropped and renamed fields are not sent');
  const image = sent.image as { filename: string; type: string; bytes: Buffer };
  t.is(image.filename, 'image.png');
  t.is(image.type, 'image/png');
  t.deepEqual(image.bytes, SOURCE);
  t.is(result.files.length, 1);
  t.deepEqual(await bytes(result.files[0]!), EDITED);
  t.deepEqual((await fs.readdir(tempDir)).filter((f) => f.includes('edit-input')), [], 'the downloaded input is removed');
});

test.serial('an image at a private address is refused without calling the provider, as the input\'s fault', async (t) => {
  const api = nock(API).post('/v1/images/edits').reply(200, {});
  const err = await failure(t, adapter().run({ image_url: 'http://127.0.0.1:9/secret.png', prompt: 'x' }, ctx()));
  t.false(err.retryable);
  t.is(err.code, 'upstream_rejected_input');
  t.regex(err.message, /the image to edit could not be used: .*non-public address/);
  t.false(api.isDone());
});

test.serial('a file that is not a PNG, JPEG or WebP image is refused', async (t) => {
  nock(USER_CDN).get('/me/notes.txt').reply(200, 'hello', { 'content-type': 'image/png' });
  const err = await failure(t, adapter().run({ image_url: `${USER_CDN}/me/notes.txt`, prompt: 'x' }, ctx()));
  t.is(err.code, 'upstream_rejected_input');
  t.regex(err.message, /not a PNG, JPEG or WebP image/);
});

test.serial('a moderation refusal of the edit is content_moderated; a 503 is retryable', async (t) => {
  nock(USER_CDN).get('/me/cat.png').twice().reply(200, SOURCE, { 'content-type': 'image/png' });
  nock(API).post('/v1/images/edits').reply(400, { error: { message: 'Your request was rejected by the safety system.', type: 'image_generation_user_error', param: null, code: 'moderation_blocked' } });
  const refused = await failure(t, adapter().run({ image_url: `${USER_CDN}/me/cat.png`, prompt: 'x' }, ctx()));
  t.is(refused.code, 'content_moderated');
  t.false(refused.retryable);
  nock(API).post('/v1/images/edits').reply(503, { error: { message: 'overloaded', type: 'server_error' } });
  const down = await failure(t, adapter().run({ image_url: `${USER_CDN}/me/cat.png`, prompt: 'x' }, ctx()));
  t.true(down.retryable);
  t.false(down.message.includes(KEY));
});
