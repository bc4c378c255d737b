// x-model.providers (README "Providers", failover): the catalog reads the list in order, keeps the
// single-provider form, and refuses a list it could not run, naming the operation and the entry.
import test from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadSpec } from '../../app.ts';
import { SpecError } from '../../spec/load.ts';
import { publicDocument } from '../../spec/public.ts';

const SPEC = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../spec/v1');
const DEV = `        providers:
          - adapter: http-json
            upstream: lumen
            upstream_model: lumen-dev
`;

/** YAML written at an operation's x-model indent (8), moved to a model entry's (6). */
const entryIndent = (yaml: string) => yaml.replace(/^ {2}/gm, '');

/** The shipped spec with lumen-dev-text-to-image's providers list replaced by `providers` (YAML at x-model's indent). */
async function specWithDev(providers: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-spec-'));
  await fs.cp(SPEC, dir, { recursive: true });
  const file = path.join(dir, 'models', 'lumen.yaml');
  const yaml = await fs.readFile(file, 'utf8');
  const start = yaml.indexOf(entryIndent(DEV));
  if (start < 0) throw new Error('lumen-dev-text-to-image no longer starts its providers list with the http-json shim');
  const end = yaml.indexOf('      price:', start);
  await fs.writeFile(file, yaml.slice(0, start) + entryIndent(providers) + yaml.slice(end));
  return dir;
}

test('the shipped lists load in order; the first provider also fills the model\'s own fields; the single-provider form is a list of one', async (t) => {
  const spec = await loadSpec(SPEC);
  const pro = spec.models.get('lumen-pro-text-to-image')!;
  t.deepEqual(pro.providers.map((p) => [p.adapter, p.upstream, p.upstreamModel]), [
    ['replicate', 'replicate', 'black-forest-labs/flux-1.1-pro'],
    ['openai-compatible', 'openai', 'gpt-image-1-mini'],
  ]);
  t.like(pro, { adapter: 'replicate', upstream: 'replicate', upstreamModel: 'black-forest-labs/flux-1.1-pro' });
  t.is(pro.providers[1]!.inputMap!.num_images, 'n');
  t.is(pro.providers[0]!.inputMap!.num_images, '');
  const veo = spec.models.get('veloce-v2-fast-image-to-video')!;
  t.deepEqual(veo.providers.map((p) => p.upstreamModel), ['veloce-v2-fast', 'fal-ai/veo3.1/fast/image-to-video']);
  t.deepEqual(veo.providers[1]!.inputMap, { duration: { type: 'string', suffix: 's' } });
  const chat = spec.models.get('lexi-v1-balanced-chat')!;
  t.deepEqual(chat.providers.map((p) => p.upstream), ['openai']);
  const local = spec.models.get('canvas-v1-fast-text-to-image')!;
  t.deepEqual(local.providers.map((p) => p.adapter), ['procedural-image']);
  // served to clients without the wiring
  const served = JSON.stringify(publicDocument(spec.document));
  t.false(served.includes('"providers"'));
  t.false(served.includes('google/veo-3-fast'));
});

const refusals: Array<[string, string, RegExp]> = [
  ['an empty list', '        providers: []\n', /x-model\.providers must be a non-empty list/],
  ['an unknown adapter in an entry', `${DEV}          - adapter: nope\n            upstream: x\n            upstream_model: y\n`, /x-model\.providers\[1\]\.adapter "nope" is not a known adapter/],
  ['an entry without its model', `${DEV}          - adapter: replicate\n            upstream: replicate\n`, /x-model\.providers\[1\]\.upstream_model is required/],
  ['the same provider twice', `${DEV}          - adapter: http-json\n            upstream: lumen\n            upstream_model: other\n`, /names provider "lumen" twice/],
  ['a local adapter in the list', `${DEV}          - adapter: procedural-image\n`, /x-model\.providers\[1\]: failover lists upstream providers only/],
  ['a mapped field the input does not have', `${DEV}          - adapter: replicate\n            upstream: replicate\n            upstream_model: a/b\n            input_map: { frames: num_frames }\n`, /x-model\.providers\[1\]\.input_map\.frames: the input has no field "frames"/],
  ['an unknown field in an entry', `${DEV}          - adapter: replicate\n            upstream: replicate\n            upstream_model: a/b\n            weight: 2\n`, /x-model\.providers\[1\]: unknown field weight/],
  ['provider fields beside the list', `        adapter: http-json\n${DEV}`, /x-model\.adapter belong in its entries/],
];

for (const [what, yaml, message] of refusals) {
  test(`${what} stops start-up naming the operation`, async (t) => {
    const err = await t.throwsAsync(loadSpec(await specWithDev(yaml)), { instanceOf: SpecError });
    t.regex(err.message, /lumen-dev-text-to-image /);
    t.regex(err.message, message);
  });
}
