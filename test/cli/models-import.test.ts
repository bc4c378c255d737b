// `mediagate models import FILE` on real published documents kept as fixtures
// (test/fixtures/providers, see its README): fal's OpenAPI documents of Veo 3.1 (video), Kling 2.6
// Pro (video) and FLUX.1 [dev] (image), and the version JSON of Replicate's
// stability-ai/stable-diffusion holding its openapi_schema. The draft keeps the interface's types
// (an integer duration, an aspect ratio), maps them to the provider's, writes the provider's
// limits, and leaves the price to fill in: start-up (`models check`) refuses it until it is, and
// loads it once it is. The command runs as a real process.
import test from 'ava';
import { spawn } from 'node:child_process';
import { finished } from '../helpers/processes.ts';
import type { Finished } from '../helpers/processes.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import yaml from 'js-yaml';
import { applyMapping, parseInputMapping } from '../../spec/mapping.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const BIN = path.join(ROOT, (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin.mediagate!);
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'providers');

function run(args: string[]): Promise<Finished> {
  return finished(spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] }));
}

interface Drafted {
  'x-model': { category: string; tier: string; output: string; providers: Array<{ adapter: string; upstream_model: string; input_map?: Record<string, unknown>; limits?: Record<string, unknown> }>; price: { base: unknown } };
  input: { examples: Array<Record<string, unknown>>; required?: string[]; properties: Record<string, Record<string, unknown>> };
}

async function draft(file: string, args: string[]): Promise<{ text: string; model: Drafted }> {
  const r = await run(['models', 'import', file, ...args]);
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stderr}`);
  const doc = yaml.load(r.stdout) as { models: Record<string, Drafted> };
  return { text: r.stdout, model: Object.values(doc.models)[0]! };
}

/** `models check` on a directory holding the drafted file. */
async function check(text: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-import-'));
  try {
    fs.writeFileSync(path.join(dir, 'imported.yaml'), text);
    return await run(['models', 'check', dir]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('fal Veo 3.1 (video): an integer duration sent as "4s"/"6s"/"8s", limited to those, the rest as fal has it; loads once priced', async (t) => {
  const { text, model } = await draft(path.join(FIXTURES, 'fal', 'fal-ai__veo3.1.openapi.json'), ['--provider', 'fal', '--model', 'fal-ai/veo3.1', '--slug', 'clip-v1-best-text-to-video']);
  t.like(model['x-model'], { category: 'text-to-video', tier: 'best', output: 'video', price: { base: null } });
  const [provider] = model['x-model'].providers;
  t.like(provider, { adapter: 'fal', upstream_model: 'fal-ai/veo3.1', input_map: { duration: { type: 'string', suffix: 's' } }, limits: { duration: { enum: [4, 6, 8] } } });
  t.like(model.input.properties.duration, { type: 'integer', minimum: 4, maximum: 8, default: 8 });
  t.like(model.input.properties.aspect_ratio, { type: 'string', enum: ['16:9', '9:16'] });
  t.like(model.input.properties.resolution, { enum: ['720p', '1080p', '4k'] });
  t.deepEqual(model.input.required, ['prompt']);
  t.regex(text, /# fill in: the price of one request/);
  // as written, start-up refuses it, naming the file and the key
  const refused = await check(text);
  t.is(refused.code, 8);
  t.regex(refused.stderr, /imported\.yaml: clip-v1-best-text-to-video .*x-model\.price\.base must be a non-negative integer/);
  // priced, it loads, and its mapping sends what fal documents
  const priced = text.replace('base: null', 'base: 0\n        per_unit: { field: duration, amount: 500 }');
  const loaded = await check(priced);
  t.is(loaded.code, 0, loaded.stderr);
  t.regex(loaded.stdout, /imported\.yaml: 1 model \(clip-v1-best-text-to-video\)/);
  const mapping = parseInputMapping({ input_map: provider!.input_map, limits: provider!.limits }, model.input, 'x-model');
  t.deepEqual(applyMapping(mapping, { prompt: 'x', duration: 6 }), { ok: true, value: { prompt: 'x', duration: '6s' } });
  t.false(applyMapping(mapping, { prompt: 'x', duration: 5 }).ok, '5 s is in our range but not one fal takes');
});

test('fal Kling 2.6 Pro (video): "5"/"10" become an integer duration without a suffix', async (t) => {
  const { model } = await draft(path.join(FIXTURES, 'fal', 'fal-ai__kling-video__v2.6__pro__text-to-video.openapi.json'), ['--provider', 'fal', '--model', 'fal-ai/kling-video/v2.6/pro/text-to-video', '--slug', 'kite-v1-best-text-to-video']);
  const [provider] = model['x-model'].providers;
  t.deepEqual(provider!.input_map!.duration, { type: 'string' });
  t.deepEqual(provider!.limits!.duration, { enum: [5, 10] });
  t.like(model.input.properties.duration, { type: 'integer', minimum: 5, maximum: 10, default: 5 });
  // Kling reads at most 2500 characters: the interface's prompt is longer, the limit says so
  t.deepEqual(provider!.limits!.prompt, { maximum: 2500 });
  t.like(model.input.properties.cfg_scale, { type: 'number', minimum: 0, maximum: 1, default: 0.5 });
});

test('fal FLUX.1 [dev] (image): image_size presets offered as aspect ratios, sync_mode left out and named', async (t) => {
  const { text, model } = await draft(path.join(FIXTURES, 'fal', 'fal-ai__flux__dev.openapi.json'), ['--provider', 'fal', '--model', 'fal-ai/flux/dev', '--slug', 'flux-v1-balanced-text-to-image']);
  t.like(model['x-model'], { category: 'text-to-image', tier: 'balanced', output: 'image' });
  const [provider] = model['x-model'].providers;
  t.deepEqual(provider!.input_map!.aspect_ratio, { to: 'image_size', values: { '1:1': 'square_hd', '4:3': 'landscape_4_3', '16:9': 'landscape_16_9', '3:4': 'portrait_4_3', '9:16': 'portrait_16_9' } });
  t.like(model.input.properties.aspect_ratio, { type: 'string', default: '4:3' });
  t.false('sync_mode' in model.input.properties);
  t.regex(text, /#\s+sync_mode: /);
  t.like(model.input.properties.num_inference_steps, { type: 'integer', minimum: 1, maximum: 50, default: 28 });
  const loaded = await check(text.replace('base: null', 'base: 0\n        per_unit: { field: num_images, amount: 64 }'));
  t.is(loaded.code, 0, loaded.stderr);
});

test('Replicate stability-ai/stable-diffusion (its version JSON): the category is asked for; num_outputs is num_images; the enums stay', async (t) => {
  const file = path.join(FIXTURES, 'replicate', 'stability-ai__stable-diffusion.version.json');
  const args = ['--provider', 'replicate', '--model', 'stability-ai/stable-diffusion', '--slug', 'sd-v2-budget-text-to-image'];
  const asked = await run(['models', 'import', file, ...args]);
  t.is(asked.code, 8);
  t.regex(asked.stderr, /--category is required: a Replicate schema does not say what its output URLs hold/);
  const { text, model } = await draft(file, [...args, '--category', 'text-to-image']);
  t.like(model['x-model'], { category: 'text-to-image', tier: 'budget', output: 'image' });
  t.deepEqual(model['x-model'].providers[0]!.input_map, { num_images: 'num_outputs' });
  t.like(model.input.properties.width, { type: 'integer', default: 768 });
  t.is((model.input.properties.width!.enum as number[]).length, 16);
  t.like(model.input.properties.scheduler, { type: 'string', default: 'DPMSolverMultistep' });
  t.like(model.input.properties.num_inference_steps, { maximum: 500 });
  // the provider's form order (x-order): prompt first
  t.is(Object.keys(model.input.properties)[0], 'prompt');
  t.is(model.input.examples[0]!.prompt, 'a vision of paradise. unreal engine');
  const loaded = await check(text.replace('base: null', 'base: 0\n        per_unit: { field: num_images, amount: 10 }'));
  t.is(loaded.code, 0, loaded.stderr);
});

test('what cannot be imported is a clear refusal: a document of another endpoint, a bad slug, a missing option', async (t) => {
  const veo = path.join(FIXTURES, 'fal', 'fal-ai__veo3.1.openapi.json');
  const other = await run(['models', 'import', veo, '--provider', 'fal', '--model', 'fal-ai/flux/dev', '--slug', 'clip-v1-best-text-to-video']);
  t.is(other.code, 8);
  t.regex(other.stderr, /no POST \/fal-ai\/flux\/dev: it is not fal's OpenAPI document of fal-ai\/flux\/dev \(it describes fal-ai\/veo3\.1\)/);
  const slug = await run(['models', 'import', veo, '--provider', 'fal', '--model', 'fal-ai/veo3.1', '--slug', 'Clip']);
  t.is(slug.code, 8);
  t.regex(slug.stderr, /--slug Clip: a slug is <model>-<tier>-<task>/);
  const provider = await run(['models', 'import', veo, '--provider', 'runway', '--model', 'x', '--slug', 'clip-v1-best-text-to-video']);
  t.is(provider.code, 2);
  t.regex(provider.stderr, /--provider must be fal or replicate/);
  const missing = await run(['models', 'import', '/nonexistent/doc.json', '--provider', 'fal', '--model', 'fal-ai/veo3.1', '--slug', 'clip-v1-best-text-to-video']);
  t.is(missing.code, 8);
  t.regex(missing.stderr, /no such file/);
});
