// Model files (spec/load.ts): a model holds only its x-model and input schema; the gateway applies
// what every model endpoint shares (x-model-endpoint); MODELS_DIR adds operator files on top of the
// shipped catalog, which may add models or replace one by its slug; conflicts and unknown keys
// stop loading with one line naming the file and the key.
import test from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import yaml from 'js-yaml';
import { loadSpec } from '../../app.ts';
import { loadSpecFiles, SpecError, SHARED_PARTS } from '../../spec/load.ts';

const SPEC = path.resolve(import.meta.dirname, '../../spec/v1');

/** A directory holding the given model files. */
async function dirWith(files: Record<string, string>): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-models-'));
  for (const [name, text] of Object.entries(files)) await fs.writeFile(path.join(dir, name), text);
  return dir;
}

const PIXEL = `models:
  pixel-v1-budget-text-to-image:
    summary: Pixel v1 text-to-image (tier budget)
    description: "Action: Draws a test pattern. Input: prompt (required). Output: one PNG. Use for: trying a model file."
    x-model: { category: text-to-image, tier: budget, family: pixel-v1, output: image, adapter: procedural-image, price: { base: 7 } }
    input: { type: object, additionalProperties: false, required: [prompt], properties: { prompt: { type: string, maxLength: 100 } } }
`;

type Op = Record<string, unknown> & { parameters: Array<{ $ref?: string; name?: string; in?: string; description?: string }> };

function opOf(document: { paths: Record<string, Record<string, unknown>> }, slug: string): Op {
  return document.paths[`/api/v1/${slug}`]!.post as Op;
}

test('every shipped model entry holds only its summary, description, x-model and input schema', async (t) => {
  const dir = path.join(SPEC, 'models');
  let models = 0;
  for (const name of await fs.readdir(dir)) {
    const file = yaml.load(await fs.readFile(path.join(dir, name), 'utf8'), { schema: yaml.CORE_SCHEMA }) as Record<string, unknown>;
    t.deepEqual(Object.keys(file).filter((k) => k !== 'models' && k !== 'components'), [], name);
    for (const [slug, entry] of Object.entries(file.models as Record<string, Record<string, unknown>>)) {
      t.deepEqual(Object.keys(entry).filter((k) => !['summary', 'description', 'x-model', 'input'].includes(k)), [], `${name}: ${slug}`);
      models++;
    }
  }
  t.true(models >= 31);
});

test('every model endpoint gets the shared parameters, security, responses, rate limit and team permission (interface 6.6: webhook on every generation endpoint)', async (t) => {
  const spec = await loadSpec(SPEC);
  t.true(spec.models.size >= 31);
  for (const slug of spec.models.keys()) {
    const op = spec.operations.find((o) => o.operationId === slug)! as unknown as Record<string, unknown> & { parameters: Array<{ name: string; in: string }> };
    const params = op.parameters.map((p) => `${p.in}:${p.name}`);
    for (const p of ['query:webhook', 'query:team_id', 'header:Idempotency-Key', 'header:Prefer', 'header:x-whitelabel-studio']) t.true(params.includes(p), `${slug}: ${p}`);
    t.is(op['x-rate-limit'], 'generations', slug);
    t.is(op['x-team-permission'], 'generate', slug);
    t.deepEqual(Object.keys(op.responses as object).sort(), ['200', '400', '401', '402', '403', '404', '409', '413', '415', '422', '429', '503'], slug);
    t.true((op.security as unknown[]).length === 5, slug);
    t.deepEqual(op.tags, [spec.models.get(slug)!.category]);
  }
});

test('an operator model in MODELS_DIR that declares nothing shared still takes webhook, webhook_events_filter, team_id and the rest', async (t) => {
  const dir = await dirWith({ 'pixel.yaml': PIXEL });
  const spec = await loadSpec(SPEC, { modelsDirs: [dir] });
  const model = spec.models.get('pixel-v1-budget-text-to-image');
  t.is(model?.price.base, 7);
  const op = opOf(spec.document, 'pixel-v1-budget-text-to-image');
  t.deepEqual(op.parameters.map((p) => p.$ref), ['IdempotencyKey', 'PreferWait', 'Webhook', 'WebhookEventsFilter', 'TeamId', 'WhitelabelStudio', 'MaxCost', 'MaxCostQuery'].map((n) => `#/components/parameters/${n}`));
  t.is(op['x-team-permission'], 'generate');
});

test('a model overrides a shared part explicitly: its own parameter and response win by name and status, the others are still added; its own security replaces the shared list', async (t) => {
  const dir = await dirWith({
    'pixel.yaml': PIXEL.replace('    input:', [
      '    parameters:',
      '      - { name: webhook, in: query, required: false, description: Where the finished pixel goes., schema: { type: string, format: uri } }',
      '    responses:',
      "      '200': { $ref: '#/components/responses/Submitted' }",
      "      '451': { description: Refused for legal reasons., content: { application/json: { schema: { $ref: '#/components/schemas/ErrorDetail' } } } }",
      '    security: [{ ApiKeyAuth: [] }]',
      '    input:',
    ].join('\n')),
  });
  const { document } = loadSpecFiles(SPEC, { modelsDirs: [dir] });
  const op = opOf(document, 'pixel-v1-budget-text-to-image');
  const webhook = op.parameters.filter((p) => p.name === 'webhook' || p.$ref === '#/components/parameters/Webhook');
  t.deepEqual(webhook, [{ name: 'webhook', in: 'query', required: false, description: 'Where the finished pixel goes.', schema: { type: 'string', format: 'uri' } }]);
  t.true(op.parameters.some((p) => p.$ref === '#/components/parameters/TeamId'));
  t.truthy((op.responses as Record<string, unknown>)['451']);
  t.truthy((op.responses as Record<string, unknown>)['429']);
  t.deepEqual(op.security, [{ ApiKeyAuth: [] }]);
  t.deepEqual([...SHARED_PARTS], ['parameters', 'security', 'responses', 'x-rate-limit', 'x-team-permission', 'x-impersonation']);
});

test('an operator file replaces a shipped model by its slug, in its place in the catalog', async (t) => {
  const shipped = await loadSpec(SPEC);
  const order = [...shipped.models.keys()];
  const dir = await dirWith({
    'canvas.yaml': PIXEL.replace('pixel-v1-budget-text-to-image', 'canvas-v1-fast-text-to-image').replace('base: 7', 'base: 99'),
  });
  const spec = await loadSpec(SPEC, { modelsDirs: [dir] });
  t.is(spec.models.get('canvas-v1-fast-text-to-image')?.price.base, 99);
  t.deepEqual([...spec.models.keys()], order);
});

test('MODELS_DIR may list several directories; later ones add to earlier ones', async (t) => {
  const a = await dirWith({ 'pixel.yaml': PIXEL });
  const b = await dirWith({ 'pixel2.yaml': PIXEL.replace('pixel-v1-budget-text-to-image', 'pixel-v2-budget-text-to-image') });
  const spec = await loadSpec(SPEC, { modelsDirs: [a, b] });
  t.true(spec.models.has('pixel-v1-budget-text-to-image'));
  t.true(spec.models.has('pixel-v2-budget-text-to-image'));
});

const refusals: Array<[string, Record<string, string>, RegExp]> = [
  ['two operator files defining one slug', { 'a.yaml': PIXEL, 'b.yaml': PIXEL }, /b\.yaml: models\.pixel-v1-budget-text-to-image: model pixel-v1-budget-text-to-image is already defined by .*a\.yaml$/],
  ['an unknown key in a model entry', { 'a.yaml': PIXEL.replace('    input:', '    prise: 3\n    input:') }, /a\.yaml: models\.pixel-v1-budget-text-to-image\.prise: unknown key \(known: summary, description, x-model, input/],
  ['an unknown top-level key', { 'a.yaml': `${PIXEL}extras: {}\n` }, /a\.yaml: extras: unexpected top-level key/],
  ['a model without an input schema', { 'a.yaml': PIXEL.replace(/ {4}input:.*\n/, '') }, /a\.yaml: models\.pixel-v1-budget-text-to-image\.input is required/],
  ['a slug that is not <model>-<tier>-<task>', { 'a.yaml': PIXEL.replace('pixel-v1-budget-text-to-image', 'Pixel') }, /a\.yaml: models\.Pixel: a model slug is <model>-<tier>-<task>/],
  ['a schema name the shipped catalog already uses', { 'a.yaml': `${PIXEL}components:\n  schemas:\n    LumenTextToImageInput: { type: object }\n` }, /a\.yaml: components\.schemas\.LumenTextToImageInput is already defined by .*lumen\.yaml$/],
  ['a component other than schemas', { 'a.yaml': `${PIXEL}components:\n  parameters:\n    Mine: { name: x, in: query }\n` }, /a\.yaml: components\.parameters: only components\.schemas/],
  ['a dangling reference', { 'a.yaml': PIXEL.replace(/ {4}input:.*\n/, "    input: { $ref: '#/components/schemas/PixelNope' }\n") }, /a\.yaml: \$ref "#\/components\/schemas\/PixelNope" does not resolve/],
  ['a file that is not YAML', { 'a.yaml': 'models: [unclosed\n' }, /a\.yaml: /],
];

for (const [what, files, message] of refusals) {
  test(`${what} stops loading with one line naming the file and the key`, async (t) => {
    const dir = await dirWith(files);
    const err = await t.throwsAsync(loadSpec(SPEC, { modelsDirs: [dir] }), { instanceOf: SpecError });
    const line = err.message.split('\n').find((l) => message.test(l.trim()));
    t.truthy(line, err.message);
  });
}

test('a MODELS_DIR that cannot be read stops loading naming it', (t) => {
  const err = t.throws(() => loadSpecFiles(SPEC, { modelsDirs: [path.join(os.tmpdir(), 'mg-no-such-models-dir')] }), { instanceOf: SpecError });
  t.regex(err.message, /^MODELS_DIR: .*mg-no-such-models-dir cannot be read \(ENOENT\)/);
});

test('a bad x-model in an operator file names the file and the model', async (t) => {
  const dir = await dirWith({ 'a.yaml': PIXEL.replace('adapter: procedural-image', 'adapter: nope') });
  const err = await t.throwsAsync(loadSpec(SPEC, { modelsDirs: [dir] }), { instanceOf: SpecError });
  t.regex(err.message, /a\.yaml: pixel-v1-budget-text-to-image \(POST \/api\/v1\/pixel-v1-budget-text-to-image\): x-model\.adapter "nope" is not a known adapter/);
});

test('a model whose price reads a number field without a minimum of 0 and a maximum does not start: the line names the file, the model, the field and the missing bound; every shipped model has them', async (t) => {
  const priced = (prop: string) => PIXEL
    .replace('price: { base: 7 }', 'price: { base: 7, per_output: { amount: 5, count: num_images } }')
    .replace('prompt: { type: string, maxLength: 100 } }', `prompt: { type: string, maxLength: 100 }, num_images: { type: integer, default: 1${prop} } }`);
  const cases: Array<[string, RegExp]> = [
    ['', /needs a "minimum" of 0 or more and a "maximum" in the input schema: the price is computed from its value, so without them a request could make the price negative or too large to charge$/],
    [', minimum: -3, maximum: 4', /needs a "minimum" of 0 or more \(it has -3\) in the input schema/],
    [', minimum: 1', /needs a "maximum" in the input schema/],
  ];
  for (const [prop, message] of cases) {
    const dir = await dirWith({ 'a.yaml': priced(prop) });
    const err = await t.throwsAsync(loadSpec(SPEC, { modelsDirs: [dir] }), { instanceOf: SpecError });
    const line = err.message.split('\n').map((l) => l.trim()).find((l) => l.includes('a.yaml: pixel-v1-budget-text-to-image (POST /api/v1/pixel-v1-budget-text-to-image): x-model.price.per_output.count "num_images" '));
    t.truthy(line, err.message);
    t.regex(line ?? '', message);
  }
  const dir = await dirWith({ 'a.yaml': priced(', minimum: 1, maximum: 4') });
  t.is((await loadSpec(SPEC, { modelsDirs: [dir] })).models.get('pixel-v1-budget-text-to-image')?.price.terms[0]?.kind, 'per_output');
  t.true((await loadSpec(SPEC)).models.size >= 31, 'the shipped catalog loads');
});
