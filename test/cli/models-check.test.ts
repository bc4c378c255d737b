// `mediagate models check [DIR]` run as a real process, with no gateway, database or queue: it
// loads the catalog as start-up does and answers with start-up's own messages, for CI.
import test from 'ava';
import { spawn } from 'node:child_process';
import { finished } from '../helpers/processes.ts';
import type { Finished } from '../helpers/processes.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const BIN = path.join(ROOT, (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin.mediagate!);

const PIXEL = `models:
  pixel-v1-budget-text-to-image:
    summary: Pixel v1 text-to-image (tier budget)
    description: "Action: Draws a test pattern. Input: prompt (required). Output: one PNG. Use for: trying a model file."
    x-model: { category: text-to-image, tier: budget, family: pixel-v1, output: image, adapter: procedural-image, price: { base: 7 } }
    input: { type: object, additionalProperties: false, required: [prompt], properties: { prompt: { type: string, maxLength: 100 } } }
`;

function run(args: string[], env: Record<string, string> = {}): Promise<Finished> {
  // an empty environment but PATH: no DATABASE_URL, no AMQP_URL, nothing to reach
  return finished(spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));
}

function dirWith(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-check-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

test('a good directory: exit 0, each file with its models, and the catalog size', async (t) => {
  const dir = dirWith({ 'pixel.yaml': PIXEL });
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const r = await run(['models', 'check', dir]);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /pixel\.yaml: 1 model \(pixel-v1-budget-text-to-image\)/);
  t.regex(r.stdout, /The catalog loads: \d+ models\./);
  const json = await run(['--json', 'models', 'check', dir]);
  t.is(json.code, 0);
  t.true((JSON.parse(json.stdout) as { models: string[] }).models.includes('pixel-v1-budget-text-to-image'));
});

test('a bad file: exit 8 with the line start-up would print, naming the file and the key', async (t) => {
  const dir = dirWith({ 'pixel.yaml': PIXEL.replace('    input:', '    prise: 3\n    input:') });
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const r = await run(['models', 'check', dir]);
  t.is(r.code, 8);
  t.regex(r.stderr, /pixel\.yaml: models\.pixel-v1-budget-text-to-image\.prise: unknown key/);
  const adapter = dirWith({ 'pixel.yaml': PIXEL.replace('procedural-image', 'nope') });
  t.teardown(() => fs.rmSync(adapter, { recursive: true, force: true }));
  const bad = await run(['models', 'check', adapter]);
  t.is(bad.code, 8);
  t.regex(bad.stderr, /pixel\.yaml: pixel-v1-budget-text-to-image \(POST \/api\/v1\/pixel-v1-budget-text-to-image\): x-model\.adapter "nope" is not a known adapter/);
});

test('without DIR it checks MODELS_DIR, and with neither the shipped catalog alone', async (t) => {
  const dir = dirWith({ 'pixel.yaml': PIXEL });
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const fromEnv = await run(['models', 'check'], { MODELS_DIR: dir });
  t.is(fromEnv.code, 0, fromEnv.stderr);
  t.regex(fromEnv.stdout, /pixel-v1-budget-text-to-image/);
  const shipped = await run(['models', 'check']);
  t.is(shipped.code, 0, shipped.stderr);
  t.notRegex(shipped.stdout, /pixel/);
  const missing = await run(['models', 'check', path.join(dir, 'nope')]);
  t.is(missing.code, 8);
  t.regex(missing.stderr, /invalid configuration: MODELS_DIR: \S*nope is not a directory\n$/);
});

test('an input schema that is not JSON Schema: the message names the field and what is wrong with it', async (t) => {
  const dir = dirWith({
    'pixel.yaml': PIXEL.replace('prompt: { type: string, maxLength: 100 }', 'prompt: { type: strng, maxLength: 100 }, steps: { type: integer, minimum: ten, maximum: 50 }'),
  });
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const r = await run(['models', 'check', dir]);
  t.is(r.code, 8);
  t.regex(r.stderr, /pixel\.yaml: pixel-v1-budget-text-to-image \(POST \/api\/v1\/pixel-v1-budget-text-to-image\): the input schema is not valid JSON Schema: /);
  t.regex(r.stderr, /input\.prompt\.type: "strng" is not a JSON Schema type \(known: string, number, integer, boolean, array, object, null\)/);
  t.regex(r.stderr, /input\.steps\.minimum: must be number \(got "ten"\)/);
  // ajv's wording for the alternatives of `type` (a name or a list of names) is not shown
  t.notRegex(r.stderr, /must be array|must match a schema in anyOf|\/properties\//);
});

test('a model file in a folder of DIR, or a DIR with no model file, is named: the gateway would not read it', async (t) => {
  const dir = dirWith({});
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const empty = await run(['models', 'check', dir]);
  t.is(empty.code, 0, empty.stderr);
  t.regex(empty.stderr, new RegExp(`warning: ${dir}: no model file \\(\\*\\.yaml or \\*\\.yml\\) in it`));
  fs.mkdirSync(path.join(dir, 'pixel'));
  fs.writeFileSync(path.join(dir, 'pixel', 'pixel.yaml'), PIXEL);
  const nested = await run(['models', 'check', dir]);
  t.is(nested.code, 0, nested.stderr);
  t.notRegex(nested.stdout, /pixel-v1-budget-text-to-image/);
  t.regex(nested.stderr, new RegExp(`warning: ${path.join(dir, 'pixel')}: a folder; the model files in it \\(pixel\\.yaml\\) are not read: only ${dir}'s own \\*\\.yaml and \\*\\.yml files are`));
  const json = await run(['--json', 'models', 'check', dir]);
  t.is((JSON.parse(json.stdout) as { warnings: string[] }).warnings.length, 2);
  fs.writeFileSync(path.join(dir, 'pixel.yml'), PIXEL);
  const fine = await run(['models', 'check', dir]);
  t.regex(fine.stdout, /pixel\.yml: 1 model/);
  t.notRegex(fine.stderr, /no model file/);
});

test('a YAML syntax error or an empty file: the message names the file, the line and the column in words', async (t) => {
  const dir = dirWith({ 'pixel.yaml': PIXEL.replace('    x-model:', '   x-model:') });
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const r = await run(['models', 'check', dir]);
  t.is(r.code, 8);
  t.regex(r.stderr, /pixel\.yaml: line 5, column 4: bad indentation of a mapping entry\n$/);
  t.notRegex(r.stderr, /\(\d+:\d+\)/);
  const empty = dirWith({ 'pixel.yaml': '# nothing yet\n' });
  t.teardown(() => fs.rmSync(empty, { recursive: true, force: true }));
  const e = await run(['models', 'check', empty]);
  t.is(e.code, 8);
  t.regex(e.stderr, /pixel\.yaml: the file is empty; a model file holds `models` \(and `components\.schemas`\)/);
  // one model pasted twice in one file
  const twice = dirWith({ 'pixel.yaml': PIXEL + PIXEL.replace('models:\n', '') });
  t.teardown(() => fs.rmSync(twice, { recursive: true, force: true }));
  const d = await run(['models', 'check', twice]);
  t.is(d.code, 8);
  t.regex(d.stderr, /pixel\.yaml: line 7, column 3: duplicated mapping key "pixel-v1-budget-text-to-image" \(it is written twice\)/);
});
