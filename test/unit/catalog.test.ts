// Start-up refuses a spec whose operationIds, adapter names or price rules do not resolve,
// naming the offending operation.
import test from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadSpec } from '../../app.ts';
import { SpecError } from '../../spec/load.ts';

const SPEC = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../spec/v1');

async function specWith(edit: (openapi: string, local: string) => { openapi?: string; local?: string; extra?: string }): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-spec-'));
  await fs.cp(SPEC, dir, { recursive: true });
  const openapi = await fs.readFile(path.join(dir, 'openapi.yaml'), 'utf8');
  const local = await fs.readFile(path.join(dir, 'models', 'local.yaml'), 'utf8');
  const out = edit(openapi, local);
  if (out.openapi) await fs.writeFile(path.join(dir, 'openapi.yaml'), out.openapi);
  if (out.local) await fs.writeFile(path.join(dir, 'models', 'local.yaml'), out.local);
  if (out.extra) await fs.writeFile(path.join(dir, 'models', 'zz-extra.yaml'), out.extra);
  return dir;
}

test('the shipped spec resolves: every model has an adapter and a price rule', async (t) => {
  const spec = await loadSpec(SPEC);
  t.true(spec.models.size >= 20);
  const categories = new Set([...spec.models.values()].map((m) => m.category));
  for (const c of ['text-to-image', 'image-to-image', 'text-to-video', 'image-to-video', 'video-edit', 'lipsync', 'audio', '3d', 'llm']) t.true(categories.has(c as never), c);
  t.true([...spec.models.values()].some((m) => m.adapterKind === 'local'));
});

test('an unknown adapter stops start-up naming the operation', async (t) => {
  const dir = await specWith((_, local) => ({ local: local.replace('adapter: procedural-image', 'adapter: nope-adapter') }));
  const err = await t.throwsAsync(loadSpec(dir), { instanceOf: SpecError });
  t.regex(err.message, /canvas-v1-\w+-text-to-image .*x-model\.adapter "nope-adapter" is not a known adapter/);
});

test('a price rule that does not resolve stops start-up naming the operation', async (t) => {
  const dir = await specWith((_, local) => ({ local: local.replace(/per_unit:\s*\{?\s*\n?\s*field: num_images/, (m) => m.replace('num_images', 'frames')) }));
  const err = await t.throwsAsync(loadSpec(dir), { instanceOf: SpecError });
  t.regex(err.message, /canvas-v1-\w+-text-to-image .*"frames" is not an input property/);
});

test('an operationId with neither a handler nor x-model stops start-up', async (t) => {
  const dir = await specWith(() => ({
    extra: [
      'paths:',
      '  /api/v1/extra/thing:',
      '    get:',
      '      operationId: getExtraThing',
      '      security: []',
      '      responses:',
      "        '200': { description: ok }",
      '',
    ].join('\n'),
  }));
  const err = await t.throwsAsync(loadSpec(dir), { instanceOf: SpecError });
  t.regex(err.message, /getExtraThing \(GET \/api\/v1\/extra\/thing\): no handler/);
});

test('a model added as YAML only is served with its own validation and price', async (t) => {
  const dir = await specWith(() => ({
    extra: [
      'paths:',
      '  /api/v1/pixel-v1-budget-text-to-image:',
      '    post:',
      '      operationId: pixel-v1-budget-text-to-image',
      '      tags: [text-to-image]',
      '      summary: Pixel v1 text-to-image (tier budget)',
      '      description: "Action: draws. Input: prompt. Output: PNG. Use for: tests."',
      '      x-model: { category: text-to-image, tier: budget, family: pixel-v1, output: image, adapter: procedural-image, price: { base: 7 } }',
      '      security: [{ApiKeyAuth: []}]',
      '      requestBody:',
      '        required: true',
      '        content:',
      '          application/json:',
      '            schema: { type: object, additionalProperties: false, required: [prompt], properties: { prompt: { type: string, maxLength: 10 } } }',
      '      responses:',
      "        '200': { $ref: '#/components/responses/Submitted' }",
      '',
    ].join('\n'),
  }));
  const spec = await loadSpec(dir);
  const model = spec.models.get('pixel-v1-budget-text-to-image');
  t.is(model?.price.base, 7);
  t.is(model?.adapter, 'procedural-image');
});
