// Provider configuration: public providers are configured by their key alone, and a spec whose
// input_map names a field the input does not have stops start-up naming the operation.
import test from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../config.ts';
import { loadSpec } from '../../../app.ts';
import { SpecError } from '../../../spec/load.ts';

const SPEC = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../../spec/v1');

test('UPSTREAM_OPENAI_KEY or UPSTREAM_REPLICATE_KEY alone configures that provider at its public URL', (t) => {
  const c = loadConfig({ UPSTREAM_OPENAI_KEY: 'sk-1', UPSTREAM_REPLICATE_KEY: 'r8-1' });
  t.deepEqual(c.upstreams.get('openai'), { url: 'https://api.openai.com/v1', key: 'sk-1' });
  t.deepEqual(c.upstreams.get('replicate'), { url: 'https://api.replicate.com/v1', key: 'r8-1' });
  t.false(loadConfig({}).upstreams.has('openai'));
});

test('a URL points a provider elsewhere (a self-hosted OpenAI-compatible server needs no key)', (t) => {
  const c = loadConfig({ UPSTREAM_OPENAI_URL: 'http://vllm.internal:8000/v1/' });
  t.deepEqual(c.upstreams.get('openai'), { url: 'http://vllm.internal:8000/v1' });
});

test('poll delays and the longest wait are configurable', (t) => {
  const c = loadConfig({ UPSTREAM_POLL_DELAYS_MS: '500,1500', UPSTREAM_MAX_WAIT_MS: '600000' });
  t.deepEqual(c.upstreamPollDelaysMs, [500, 1500]);
  t.is(c.upstreamMaxWaitMs, 600_000);
  t.deepEqual(loadConfig({}).upstreamPollDelaysMs, [1000, 2000, 4000, 8000, 15000, 30000]);
});

test('the shipped provider models carry their mapping', async (t) => {
  const spec = await loadSpec(SPEC);
  t.like(spec.models.get('lumen-pro-text-to-image'), { adapter: 'replicate', upstream: 'replicate', upstreamModel: 'black-forest-labs/flux-1.1-pro', inputMap: { num_images: '' } });
  t.like(spec.models.get('lumen-max-text-to-image'), { adapter: 'openai-compatible', upstream: 'openai', fixedInput: { quality: 'high' } });
  t.like(spec.models.get('lexi-v1-balanced-chat'), { adapter: 'openai-compatible', category: 'llm' });
});

test('an input_map naming a field the input does not have stops start-up naming the operation', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-spec-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  await fs.cp(SPEC, dir, { recursive: true });
  const file = path.join(dir, 'models', 'lumen.yaml');
  const yaml = await fs.readFile(file, 'utf8');
  await fs.writeFile(file, yaml.replace('num_images: num_outputs', 'num_imgs: num_outputs'));
  const err = await t.throwsAsync(loadSpec(dir), { instanceOf: SpecError });
  // the first such mapping is in a failover list now (x-model.providers[n].input_map)
  t.regex(err.message, /lumen-[a-z-]+ .*x-model\.(providers\[\d+\]\.)?input_map\.num_imgs: the input has no field "num_imgs"/);
});
