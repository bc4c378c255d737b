// The shipped catalog (spec/v1/models) against the providers it maps to: every endpoint of the
// documented families and every other model that is not one of the gateway's own procedural
// models runs on a real provider (fal, Replicate, WaveSpeed, OpenAI); within a family each
// upstream model serves one tier; every real mapping declares the provider's cost and no price
// is below it; and what each mapping sends is what the provider documents (fakes that check the
// body against the provider's schema, test/helpers/provider-schemas.ts), for random inputs and
// through the real adapters end to end. Third-party HTTP: nock.
import test from 'ava';
import nock from 'nock';
import fc from 'fast-check';
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadSpec } from '../../../app.ts';
import type { LoadedSpec } from '../../../app.ts';
import { acceptingProviders, applyMapping } from '../../../spec/mapping.ts';
import { computePrice } from '../../../spec/pricing.ts';
import type { ModelInfo, ProviderInfo } from '../../../spec/catalog.ts';
import { createFal } from '../../../workers/adapters/fal.ts';
import { createReplicate } from '../../../workers/adapters/replicate.ts';
import { createWaveSpeed } from '../../../workers/adapters/wavespeed.ts';
import { createOpenAiCompatible } from '../../../workers/adapters/openai-compatible.ts';
import type { Adapter, AdapterEnv, JobContext, RunContext } from '../../../workers/adapters/types.ts';
import { providerSchema } from '../../helpers/provider-schemas.ts';
import { bytes, publicResolve, tinyMp4, tinyPng } from '../../helpers/adapters.ts';

const SPEC = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../../spec/v1');
const FAL = 'https://queue.fal.test';
const REPLICATE = 'https://api.replicate.test';
const WAVESPEED = 'https://api.wavespeed.test';
const OPENAI = 'https://api.openai.test';
const CDN = 'https://cdn.provider.test';
const REAL = new Set(['fal', 'replicate', 'wavespeed', 'openai-compatible']);
/** interface 1.7's families: the video family (9 endpoints), the 8-second family (4), the image family (8) */
const FAMILIES = ['aurora-v3', 'veloce-v2', 'lumen'];

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
let spec: LoadedSpec;
let tempDir = '';
const ours = new Map<string, ValidateFunction>();

test.before(async () => {
  spec = await loadSpec(SPEC);
  tempDir = await fs.mkdtemp(path.join(os.tmpdir(), 'shipped-'));
  nock.disableNetConnect();
});
test.afterEach.always(() => {
  nock.cleanAll();
});
test.after.always(async () => {
  await fs.rm(tempDir, { recursive: true, force: true });
});

const models = (): ModelInfo[] => [...spec.models.values()];
const real = (m: ModelInfo): ProviderInfo[] => m.providers.filter((p) => REAL.has(p.adapter));

/** The model's input schema as the submit validates it (dereferenced). */
function inputSchema(m: ModelInfo): Record<string, unknown> {
  const op = spec.operations.find((o) => o.operationId === m.operationId) as { requestBody: { content: Record<string, { schema: Record<string, unknown> }> } };
  return op.requestBody.content['application/json']!.schema;
}

/** Our input as the submit sees it: valid, defaults filled in; undefined when not valid. */
function validated(m: ModelInfo, raw: Record<string, unknown>): Record<string, unknown> | undefined {
  let check = ours.get(m.operationId);
  if (!check) {
    check = new Ajv({ strict: false, useDefaults: true, validateFormats: false }).compile(inputSchema(m));
    ours.set(m.operationId, check);
  }
  const input = structuredClone(raw);
  return check(input) ? input : undefined;
}

const providerCheck = new Map<string, ValidateFunction>();
function documented(p: ProviderInfo, category: string): ValidateFunction {
  const key = `${p.adapter} ${p.upstreamModel} ${category}`;
  let check = providerCheck.get(key);
  if (!check) {
    const known = providerSchema(p.adapter, p.upstreamModel!, category);
    if (!known) throw new Error(`no documented schema for ${key}`);
    check = ajv.compile(known.schema);
    providerCheck.set(key, check);
  }
  return check;
}

/** What the adapter sends as JSON for a mapped input (chat and multipart edits are checked end to end). */
function sentBody(p: ProviderInfo, category: string, mapped: Record<string, unknown>): Record<string, unknown> | undefined {
  if (p.adapter === 'openai-compatible') return category === 'text-to-image' ? { ...mapped, model: p.upstreamModel } : undefined;
  return mapped;
}

const RATIOS = ['1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3', '21:9', '5:4', '4:5', '7:3'];
const URL_IN = 'https://inputs.example.test/in/portrait.png';

/** Random values of one of our input properties (a valid value, or a long text to test length limits). */
function arbitraryOf(name: string, prop: Record<string, unknown>): fc.Arbitrary<unknown> {
  if (Array.isArray(prop.enum)) return fc.constantFrom(...(prop.enum as unknown[]));
  switch (prop.type) {
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: (prop.minimum as number | undefined) ?? 0, max: Math.min((prop.maximum as number | undefined) ?? 1000, 2 ** 31) });
    case 'number':
      return fc.double({ min: (prop.minimum as number | undefined) ?? 0, max: (prop.maximum as number | undefined) ?? 100, noNaN: true });
    case 'array': {
      const items = (prop.items ?? {}) as Record<string, unknown>;
      const item: fc.Arbitrary<unknown> = items.type === 'object' ? fc.constant({ name: 'ink-noir', scale: 1, weights_url: URL_IN }) : fc.constant(URL_IN);
      return fc.array(item, { minLength: (prop.minItems as number | undefined) ?? 0, maxLength: (prop.maxItems as number | undefined) ?? 4 });
    }
    case 'string':
      if (prop.format === 'uri') return fc.constant(URL_IN);
      if (name === 'aspect_ratio') return fc.constantFrom(...RATIOS);
      return fc.string({ unit: 'grapheme-ascii', minLength: (prop.minLength as number | undefined) ?? 0, maxLength: Math.min((prop.maxLength as number | undefined) ?? 100, 5000) });
    default:
      return fc.constant(undefined);
  }
}

/** Random valid inputs of a model (each optional field present or not). */
function inputsOf(m: ModelInfo): fc.Arbitrary<Record<string, unknown>> {
  const schema = inputSchema(m) as { properties: Record<string, Record<string, unknown>>; required?: string[] };
  const required = new Set(schema.required ?? []);
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, prop] of Object.entries(schema.properties)) fields[name] = arbitraryOf(name, prop);
  return fc.record(fields, { requiredKeys: [...required] }).map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)));
}

test('every endpoint of the documented families, and every shipped model but the procedural ones, runs on a real provider', (t) => {
  const family = models().filter((m) => FAMILIES.includes(m.family));
  t.is(family.length, 21);
  for (const m of models()) {
    if (m.providers.every((p) => p.adapterKind === 'local')) {
      t.false(FAMILIES.includes(m.family), `${m.operationId} is procedural`);
      continue;
    }
    t.true(real(m).length > 0, `${m.operationId} has a real provider`);
  }
});

test('within a family, an upstream model serves one tier only (Dev, Pro, Max and Effects never run the same model)', (t) => {
  for (const family of new Set(models().map((m) => m.family))) {
    const tiersOf = new Map<string, Set<string>>();
    for (const m of models().filter((x) => x.family === family)) {
      // the product tier is the slug's first word after the family: lumen-pro-i2i -> pro
      const tier = m.operationId.slice(family.length + 1).split('-')[0]!;
      for (const p of real(m)) {
        const key = `${p.adapter} ${p.upstreamModel}`;
        tiersOf.set(key, (tiersOf.get(key) ?? new Set()).add(tier));
      }
    }
    for (const [model, tiers] of tiersOf) t.is(tiers.size, 1, `${family}: ${model} serves ${[...tiers].join(', ')}`);
  }
});

test('every real mapping declares the provider\'s cost, and the fakes know what the provider accepts', (t) => {
  for (const m of models()) {
    for (const p of real(m)) {
      t.truthy(p.cost, `${m.operationId} on ${p.adapter} ${p.upstreamModel} declares a cost`);
      t.truthy(providerSchema(p.adapter, p.upstreamModel!, m.category), `${p.adapter} ${p.upstreamModel} is documented for the fakes`);
    }
  }
});

test('for random valid inputs, each provider that accepts one receives only what it documents, and the price is never below its cost', (t) => {
  const checked = new Map<string, number>();
  for (const m of models()) {
    const providers = real(m);
    if (providers.length === 0) continue;
    fc.assert(fc.property(inputsOf(m), (raw) => {
      const input = validated(m, raw);
      fc.pre(input !== undefined);
      for (const p of providers) {
        const mapped = applyMapping(p.mapping, input!);
        const accepted = acceptingProviders([p], input!).accepting.length === 1;
        if (!mapped.ok || !accepted) {
          t.false(accepted, `${m.operationId}: a refused input is refused before any hold`);
          continue;
        }
        const body = sentBody(p, m.category, mapped.value);
        const key = `${m.operationId} -> ${p.upstreamModel}`;
        checked.set(key, (checked.get(key) ?? 0) + 1);
        if (body) {
          const check = documented(p, m.category);
          if (!check(body)) throw new Error(`${m.operationId} -> ${p.upstreamModel}: ${JSON.stringify(check.errors)} for ${JSON.stringify(body).slice(0, 400)}`);
        }
        const price = computePrice(m.price, input!);
        const cost = computePrice(p.cost!, input!);
        if (price < cost) throw new Error(`${m.operationId} on ${p.upstreamModel}: price ${price} below cost ${cost} for ${JSON.stringify(input).slice(0, 300)}`);
      }
    }), { numRuns: 60, seed: 20261129 });
  }
  // each mapping took a good share of the random inputs (the rest broke one of its limits)
  for (const m of models()) for (const p of real(m)) t.true((checked.get(`${m.operationId} -> ${p.upstreamModel}`) ?? 0) >= 5, `${m.operationId} -> ${p.upstreamModel}: ${checked.get(`${m.operationId} -> ${p.upstreamModel}`) ?? 0} inputs`);
});

// ---- end to end: the real adapters against fakes of each provider's documented API ----

const PNG = tinyPng(4, 4, 90);
const MP4 = tinyMp4();
const MP3 = Buffer.concat([Buffer.from('ID3', 'latin1'), Buffer.from([3, 0, 0, 0, 0, 0, 0]), Buffer.alloc(32)]);
const GLB = Buffer.concat([Buffer.from('glTF', 'latin1'), Buffer.from([2, 0, 0, 0, 20, 0, 0, 0]), Buffer.alloc(8)]);

function serveOutputs(): void {
  nock(CDN).persist()
    .get(/\.mp4$/).reply(200, MP4, { 'content-type': 'video/mp4' })
    .get(/\.png$/).reply(200, PNG, { 'content-type': 'image/png' })
    .get(/\.mp3$/).reply(200, MP3, { 'content-type': 'audio/mpeg' })
    .get(/\.glb$/).reply(200, GLB, { 'content-type': 'model/gltf-binary' });
  nock('https://inputs.example.test').persist().get(/.*/).reply(200, PNG, { 'content-type': 'image/png' });
  nock('https://example.com').persist().get(/.*/).reply(200, PNG, { 'content-type': 'image/png' });
}

/** fal's answer body for an output kind (the result of a COMPLETED request). */
function falResult(output: string, count: number): Record<string, unknown> {
  switch (output) {
    case 'video': return { video: { url: `${CDN}/out.mp4`, content_type: 'video/mp4' } };
    case 'audio': return { audio: { url: `${CDN}/out.mp3`, content_type: 'audio/mpeg' }, duration_ms: 1200 };
    default: return { images: Array.from({ length: count }, (_, i) => ({ url: `${CDN}/out-${i}.png`, content_type: 'image/png' })), seed: 7 };
  }
}

interface Received { body?: unknown; errors?: unknown }

/** A fake of the provider: checks the request body against the provider's schema and answers as its docs show. */
function fake(m: ModelInfo, p: ProviderInfo, received: Received): void {
  const check = documented(p, m.category);
  const model = p.upstreamModel!;
  const count = (body: Record<string, unknown>) => (typeof body.num_images === 'number' ? body.num_images : typeof body.num_outputs === 'number' ? body.num_outputs : typeof body.n === 'number' ? body.n : 1);
  const accept = (body: unknown) => {
    received.body = body;
    if (!check(body)) received.errors = check.errors;
    return true;
  };
  switch (p.adapter) {
    case 'fal': {
      const app = model.split('/').slice(0, 2).join('/');
      let n = 1;
      nock(FAL).post(`/${model}`, (b: Record<string, unknown>) => { n = count(b); return accept(b); })
        .reply(() => (received.errors ? [422, { detail: [{ msg: 'invalid input', type: 'value_error' }] }] : [200, { request_id: 'req-1', status_url: `${FAL}/${app}/requests/req-1/status` }]));
      nock(FAL).persist().get(`/${app}/requests/req-1/status?logs=1`).reply(200, { status: 'COMPLETED', response_url: `${FAL}/${app}/requests/req-1` });
      nock(FAL).persist().get(`/${app}/requests/req-1`).reply(() => [200, falResult(m.output, n)]);
      return;
    }
    case 'replicate': {
      let n = 1;
      nock(REPLICATE).post(`/v1/models/${model}/predictions`, (b: { input: Record<string, unknown> }) => { n = count(b.input); return accept(b.input); })
        .reply(() => (received.errors ? [422, { title: 'Input validation failed', detail: 'invalid input', status: 422 }] : [201, { id: 'rep-1', status: 'starting', output: null, error: null }]));
      nock(REPLICATE).persist().get('/v1/predictions/rep-1').reply(() => [200, { id: 'rep-1', status: 'succeeded', output: Array.from({ length: n }, (_, i) => `${CDN}/rep-${i}.png`), error: null }]);
      return;
    }
    case 'wavespeed':
      nock(WAVESPEED).post(`/api/v3/${model}`, accept)
        .reply(() => (received.errors ? [400, { code: 1400, message: 'invalid input' }] : [200, { code: 200, message: 'success', data: { id: 'ws-1', model, status: 'created', outputs: [] } }]));
      nock(WAVESPEED).persist().get('/api/v3/predictions/ws-1/result').reply(200, { code: 200, message: 'success', data: { id: 'ws-1', model, status: 'completed', outputs: [`${CDN}/mesh.glb`], has_nsfw_contents: [false] } });
      return;
    case 'openai-compatible': {
      const ok = (n: number) => [200, { created: 1764400000, data: Array.from({ length: n }, () => ({ b64_json: PNG.toString('base64') })), usage: { input_tokens: 20, output_tokens: 4160 } }];
      if (m.category === 'llm') {
        nock(OPENAI).post('/v1/chat/completions', accept).reply(() => (received.errors ? [400, { error: { message: 'invalid', type: 'invalid_request_error' } }] : [200, { id: 'chat-1', choices: [{ message: { role: 'assistant', content: 'A glazed teapot.' }, finish_reason: 'stop' }], usage: { prompt_tokens: 30, completion_tokens: 6 } }]));
      } else if (m.category === 'image-to-image') {
        let raw = '';
        let type = '';
        nock(OPENAI).post('/v1/images/edits', (b: string) => { raw = b; return true; })
          .matchHeader('content-type', (v: string | null) => { type = v ?? ''; return true; })
          .reply(async () => {
            const isHex = /^[0-9a-f]*$/i.test(raw) && raw.length % 2 === 0;
            const form = await new Response(Buffer.from(raw, isHex ? 'hex' : 'utf8'), { headers: { 'content-type': type } }).formData();
            const fields: Record<string, unknown> = {};
            for (const [name, value] of form.entries()) fields[name] = typeof value === 'string' ? value : {};
            accept(fields);
            return received.errors ? [400, { error: { message: 'invalid', type: 'invalid_request_error' } }] : ok(Number(fields.n ?? 1));
          });
      } else {
        let n = 1;
        nock(OPENAI).post('/v1/images/generations', (b: Record<string, unknown>) => { n = count(b); return accept(b); })
          .reply(() => (received.errors ? [400, { error: { message: 'invalid', type: 'invalid_request_error' } }] : ok(n)));
      }
      return;
    }
  }
}

const env: AdapterEnv = {
  upstreams: new Map([
    ['fal', { url: FAL, key: 'fal-key' }],
    ['replicate', { url: `${REPLICATE}/v1`, key: 'r8-key' }],
    ['wavespeed', { url: `${WAVESPEED}/api/v3`, key: 'ws-key' }],
    ['openai', { url: `${OPENAI}/v1`, key: 'sk-key' }],
  ]),
};

function adapterFor(p: ProviderInfo): Adapter {
  const net = { resolve: publicResolve };
  switch (p.adapter) {
    case 'fal': return createFal(env, net, 1);
    case 'replicate': return createReplicate(env, net, 1);
    case 'wavespeed': return createWaveSpeed(env, net, 1);
    default: return createOpenAiCompatible(env, net);
  }
}

/** The schema's example as the submit sees it, or (where this provider cannot take it) the first random input it takes. */
function inputFor(m: ModelInfo, p: ProviderInfo): Record<string, unknown> {
  const example = (inputSchema(m).examples as Array<Record<string, unknown>> | undefined)?.[0] ?? {};
  const candidates = [example, ...fc.sample(inputsOf(m), { numRuns: 300, seed: 42 })];
  for (const raw of candidates) {
    const input = validated(m, raw);
    if (input && acceptingProviders([p], input).accepting.length === 1) return input;
  }
  throw new Error(`${m.operationId}: no input the provider ${p.upstreamModel} takes`);
}

test.serial('every shipped mapping runs end to end through its adapter against a fake of the provider, which receives only documented fields', async (t) => {
  let runs = 0;
  for (const m of models()) {
    for (const p of real(m)) {
      nock.cleanAll();
      serveOutputs();
      const received: Received = {};
      fake(m, p, received);
      const input = inputFor(m, p);
      const ctx: RunContext & JobContext = {
        signal: new AbortController().signal, predictionId: `p-${runs}`, tempDir,
        model: { operationId: m.operationId, category: m.category, upstream: p.upstream!, upstreamModel: p.upstreamModel!, ...(p.inputMap ? { inputMap: p.inputMap } : {}), ...(p.fixedInput ? { fixedInput: p.fixedInput } : {}), ...(p.mapping ? { mapping: p.mapping } : {}) },
      };
      const where = `${m.operationId} -> ${p.adapter} ${p.upstreamModel}`;
      try {
        const result = await adapterFor(p).run(input, ctx);
        t.true(result.files.length >= 1, `${where}: an output`);
        for (const file of result.files) await bytes(file);
      } catch (err) {
        t.fail(`${where}: ${(err as Error).message}; sent ${JSON.stringify(received.body)?.slice(0, 400)}; ${JSON.stringify(received.errors)}`);
      }
      t.is(received.errors, undefined, `${where}: the provider's schema accepts what was sent`);
      runs++;
    }
  }
  t.true(runs >= 30, `${runs} mappings ran`);
});
