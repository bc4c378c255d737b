// GET /api/v1/models: the catalog, its filters, price summaries, input schemas and availability
// on this gateway (only lumen's upstream is configured here). SQLite, in-process queue.
import test from 'ava';
import { startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';

let gw: TestGateway;
test.before(async () => {
  gw = await startGateway({ db: 'sqlite', queue: 'memory', env: { UPSTREAM_LUMEN_URL: 'https://lumen.example' } });
});
test.after.always(async () => {
  await gw?.stop();
});

interface Entry {
  slug: string; path: string; title: string; category: string; tier: string; family: string; output: string;
  price: { unit: string; base: number; per_unit: { field: string; amount: number } | null; multipliers: Array<{ field: string; percent_by_value: Record<string, number> }>; at_defaults: number };
  input_schema: { type?: string; properties?: Record<string, unknown>; required?: string[] };
  available: boolean;
}

async function list(query = '') {
  const res = await gw.server.inject({ method: 'GET', url: `/api/v1/models${query}` });
  return { status: res.statusCode, models: (res.result as { models: Entry[] }).models, body: res.result };
}

test('without a credential it lists every model endpoint of the spec, with what a client needs to call it', async (t) => {
  const { status, models } = await list();
  t.is(status, 200);
  t.is(models.length, gw.app.spec.models.size);
  t.deepEqual(models.map((m) => m.slug).sort(), [...gw.app.spec.models.keys()].sort());
  const canvas = models.find((m) => m.slug === 'canvas-v1-fast-text-to-image')!;
  t.like(canvas, { path: '/api/v1/canvas-v1-fast-text-to-image', title: 'Canvas v1 Fast text-to-image (tier fast)', category: 'text-to-image', tier: 'fast', family: 'canvas-v1', output: 'image', available: true });
  t.deepEqual(canvas.price, {
    unit: 'credit', base: 2, per_unit: { field: 'num_images', amount: 3 },
    terms: [{ kind: 'per_unit', field: 'num_images', amount: 3, summary: '3 credits per unit of num_images' }],
    multipliers: [], minimum: 0, at_defaults: 5,
  });
  t.is(canvas.input_schema.type, 'object');
  t.deepEqual(canvas.input_schema.required, ['prompt']);
  t.truthy(canvas.input_schema.properties?.num_images);
});

test('a multiplier and a per-unit field are summarised, and at_defaults prices the defaults', async (t) => {
  const { models } = await list();
  const pro = models.find((m) => m.slug === 'aurora-v3-pro-text-to-video')!;
  t.deepEqual(pro.price.per_unit, { field: 'duration', amount: 215 });
  t.deepEqual(pro.price.multipliers, [{ field: 'generate_audio', percent_by_value: { false: 67 } }]);
  // 215 x 5 s; the default generate_audio: true matches no multiplier
  t.is(pro.price.at_defaults, 1075);
});

test('available says whether production keys can run it here: local models and configured upstreams only', async (t) => {
  const { models } = await list();
  // Only lumen's upstream is configured here: lumen models that moved to Replicate or OpenAI are not.
  const onOtherProviders = new Set(['lumen-pro-text-to-image', 'lumen-max-text-to-image']);
  for (const m of models) {
    const expected = m.family === 'canvas-v1' || m.family === 'chime-v1' || m.family === 'forma-v1'
      || (m.family.startsWith('lumen') && !onOtherProviders.has(m.slug));
    t.is(m.available, expected, m.slug);
  }
  t.true(models.some((m) => m.family.startsWith('aurora') && !m.available));
  t.false(models.find((m) => m.slug === 'lumen-pro-text-to-image')!.available, 'Replicate is not configured');
});

test('category and tier filter the list, together or alone', async (t) => {
  const images = await list('?category=text-to-image');
  t.true(images.models.length > 1);
  t.true(images.models.every((m) => m.category === 'text-to-image'));
  const fast = await list('?tier=fast');
  t.true(fast.models.length > 1 && fast.models.every((m) => m.tier === 'fast'));
  const both = await list('?category=text-to-image&tier=budget');
  t.true(both.models.length >= 1);
  t.true(both.models.every((m) => m.category === 'text-to-image' && m.tier === 'budget'));
  t.true(both.models.some((m) => m.slug === 'canvas-v1-budget-text-to-image'));
  t.deepEqual((await list('?category=3d&tier=budget')).models.filter((m) => m.category !== '3d' || m.tier !== 'budget'), []);
});

test('an unknown category or tier is 422 naming the known values', async (t) => {
  const res = await gw.server.inject({ method: 'GET', url: '/api/v1/models?category=sculpture&tier=premium' });
  t.is(res.statusCode, 422);
  const detail = (res.result as { detail: Array<{ loc: string[]; msg: string }> }).detail;
  t.deepEqual(detail.map((d) => d.loc), [['query', 'category'], ['query', 'tier']]);
  t.regex(detail[0]!.msg, /text-to-image/);
  t.regex(detail[1]!.msg, /budget/);
  const unknownParam = await gw.server.inject({ method: 'GET', url: '/api/v1/models?sort=price' });
  t.is(unknownParam.statusCode, 422);
});

test('its answers match the spec, errors included', async (t) => {
  t.is((await callOperation(gw, 'listModels')).status, 200);
  t.is((await callOperation(gw, 'listModels', { query: { tier: 'fast' } })).status, 200);
  t.is((await callOperation(gw, 'listModels', { query: { tier: 'none' } })).status, 422);
});
