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
      '      x-rate-limit: generations',
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

/** A YAML-only model file; `lines` replace or add keys of the operation (indented under post). */
function modelFile(opts: { security?: string | null; xModel?: string; schema?: string } = {}): string {
  const security = opts.security === undefined ? '[{ApiKeyAuth: []}]' : opts.security;
  return [
    'paths:',
    '  /api/v1/pixel-v1-budget-text-to-image:',
    '    post:',
    '      operationId: pixel-v1-budget-text-to-image',
    '      summary: Pixel v1 text-to-image (tier budget)',
    `      x-model: ${opts.xModel ?? '{ category: text-to-image, tier: budget, family: pixel-v1, output: image, adapter: procedural-image, price: { base: 7 } }'}`,
    '      x-rate-limit: generations',
    ...(security === null ? [] : [`      security: ${security}`]),
    '      requestBody:',
    '        required: true',
    '        content:',
    '          application/json:',
    `            schema: ${opts.schema ?? '{ type: object, required: [prompt], properties: { prompt: { type: string, maxLength: 100 } } }'}`,
    '      responses:',
    "        '200': { $ref: '#/components/responses/Submitted' }",
    '',
  ].join('\n');
}

test('a model operation without security gets the credentials every model endpoint shares; `security: []` makes it public by its own choice', async (t) => {
  const dir = await specWith(() => ({ extra: modelFile({ security: null }) }));
  const shared = (await loadSpec(dir)).operations.find((o) => o.operationId === 'pixel-v1-budget-text-to-image')!;
  t.deepEqual(shared.security, [{ ApiKeyAuth: [] }, { SessionAuth: [] }, { OAuth2: ['generate:write'] }, { EmbedCodeAuth: [] }, { AgentEmbedCodeAuth: [] }]);
  const open = await specWith(() => ({ extra: modelFile({ security: '[]' }) }));
  t.deepEqual((await loadSpec(open)).operations.find((o) => o.operationId === 'pixel-v1-budget-text-to-image')!.security, []);
});

test('a non-model operation without security stops start-up too', async (t) => {
  const dir = await specWith((openapi) => ({ openapi: openapi.replace(/(operationId: getHealth\n(?:.*\n)*?)\s+security: \[\]\n/, '$1\n') }));
  const err = await t.throwsAsync(loadSpec(dir), { instanceOf: SpecError });
  t.regex(err.message, /getHealth \(GET \/health\): no security requirement/);
});

test('a dangling $ref in a model file stops start-up naming the reference and the file', async (t) => {
  const dir = await specWith(() => ({ extra: modelFile({ schema: "{ $ref: '#/components/schemas/PixelNoSuchInput' }" }) }));
  const err = await t.throwsAsync(loadSpec(dir), { instanceOf: SpecError });
  t.regex(err.message, /zz-extra\.yaml: \$ref "#\/components\/schemas\/PixelNoSuchInput" does not resolve/);
});

test('categories, tiers and output kinds come from the spec\'s x-catalog, not from code', async (t) => {
  const custom = { xModel: '{ category: upscale, tier: premium, family: pixel-v1, output: image, adapter: procedural-image, price: { base: 7 } }' };
  // not in the shipped vocabulary: refused, naming the operation and the list
  const refused = await specWith(() => ({ extra: modelFile(custom) }));
  const err = await t.throwsAsync(loadSpec(refused), { instanceOf: SpecError });
  t.regex(err.message, /pixel-v1-budget-text-to-image .*x-model\.category must be one of text-to-image, .*llm \(got "upscale"\)/);
  // added to x-catalog: accepted with no code change
  const extended = await specWith((openapi) => ({
    openapi: openapi.replace('  categories: [text-to-image,', '  categories: [upscale, text-to-image,').replace('  tiers: [best,', '  tiers: [premium, best,'),
    extra: modelFile(custom),
  }));
  const model = (await loadSpec(extended)).models.get('pixel-v1-budget-text-to-image');
  t.is(model?.category, 'upscale');
  t.is(model?.tier, 'premium');
  // an output kind the workers cannot store, or no x-catalog at all, stops start-up
  const hologram = await specWith((openapi) => ({ openapi: openapi.replace('  outputs: [image,', '  outputs: [hologram, image,') }));
  t.regex((await t.throwsAsync(loadSpec(hologram), { instanceOf: SpecError })).message, /x-catalog\.outputs: hologram not supported/);
  const none = await specWith((openapi) => ({ openapi: openapi.replace(/^x-catalog:\n(?: {2}.*\n)+/m, '') }));
  t.regex((await t.throwsAsync(loadSpec(none), { instanceOf: SpecError })).message, /x-catalog .* is required/);
});

/** An extra model file of one procedural model whose input schema's properties are `props` (YAML flow). */
function boundsModel(props: string): string {
  return `models:
  dot-v1-budget-text-to-image:
    summary: dot
    description: "Action: Draws a test pattern. Input: prompt. Output: one PNG. Use for: a test."
    x-model: { category: text-to-image, tier: budget, family: dot-v1, output: image, adapter: procedural-image, price: { base: 4 } }
    input: { type: object, additionalProperties: false, required: [prompt], properties: { prompt: { type: string, maxLength: 100 }, ${props} } }
`;
}

test('an input schema that leaves a request unbounded stops start-up, naming the file, the model and the field', async (t) => {
  for (const [props, msg] of [
    ['style: { type: string }', /input\.style: a string needs a maxLength \(or an enum\)/],
    ['refs: { type: array, items: { type: string, maxLength: 10 } }', /input\.refs: an array needs a maxItems/],
    ['refs: { type: array, maxItems: 4, items: { type: string, format: uri } }', /input\.refs\[\]: a string needs a maxLength/],
    ['opts: { type: object, properties: { n: { type: integer, minimum: 1, maximum: 10 }, tag: { type: string } } }', /input\.opts\.tag: a string needs a maxLength/],
  ] as const) {
    const dir = await specWith(() => ({ extra: boundsModel(props) }));
    const err = await t.throwsAsync(loadSpec(dir), { instanceOf: SpecError }, props);
    t.regex(err!.message, /zz-extra\.yaml: dot-v1-budget-text-to-image/, props);
    t.regex(err!.message, msg, props);
  }
});

test('a default its own schema refuses stops start-up, naming the field and why', async (t) => {
  for (const [props, msg] of [
    ["style: { type: string, enum: [ink, oil], default: chalk }", /input\.style: its default "chalk" is not one of its enum/],
    ['steps: { type: integer, minimum: 1, maximum: 50, default: 80 }', /input\.steps: its default 80 is above its maximum 50/],
    ['steps: { type: integer, minimum: 1, maximum: 50, default: 0 }', /input\.steps: its default 0 is below its minimum 1/],
    ['steps: { type: integer, minimum: 1, maximum: 50, default: 2.5 }', /input\.steps: its default 2\.5 is not an integer/],
    ["style: { type: string, maxLength: 3, default: watercolor }", /input\.style: its default "watercolor" is longer than its maxLength 3/],
    ["ratio: { type: string, maxLength: 7, pattern: '^[0-9]+:[0-9]+$', default: square }", /input\.ratio: its default "square" does not match its pattern/],
    ['refs: { type: array, maxItems: 2, items: { type: string, maxLength: 5 }, default: [a, b, c] }', /input\.refs: its default has more than its maxItems 2/],
    ['hd: { type: boolean, default: "yes" }', /input\.hd: its default "yes" is not a boolean/],
  ] as const) {
    const dir = await specWith(() => ({ extra: boundsModel(props) }));
    const err = await t.throwsAsync(loadSpec(dir), { instanceOf: SpecError }, props);
    t.regex(err!.message, /zz-extra\.yaml: dot-v1-budget-text-to-image/, props);
    t.regex(err!.message, msg, props);
  }
  const dir = await specWith(() => ({ extra: boundsModel("style: { type: string, enum: [ink, oil], default: ink }, steps: { type: integer, minimum: 1, maximum: 50, default: 20 }, hd: { type: [boolean, 'null'], default: null }") }));
  await t.notThrowsAsync(loadSpec(dir));
});
