import test from 'ava';
import { adapterRegistry, isAdapterConfigured } from '../../../workers/adapters/index.ts';
import type { ModelRef } from '../../../workers/adapters/types.ts';

const model: ModelRef = { operationId: 'acme_flux_dev', category: 'text-to-image', upstream: 'acme', upstreamModel: 'acme/flux-dev' };

test('the registry names every adapter by the key the spec uses', (t) => {
  t.deepEqual(Object.keys(adapterRegistry).sort(), ['fal', 'http-json', 'openai-compatible', 'procedural-audio', 'procedural-image', 'procedural-mesh', 'replicate', 'wavespeed']);
  t.like(adapterRegistry.wavespeed, { kind: 'upstream' });
  t.like(adapterRegistry['procedural-image'], { kind: 'local', media: 'image' });
  t.like(adapterRegistry['procedural-audio'], { kind: 'local', media: 'audio' });
  t.like(adapterRegistry['procedural-mesh'], { kind: 'local', media: 'model3d' });
  t.like(adapterRegistry['http-json'], { kind: 'upstream' });
  t.like(adapterRegistry['openai-compatible'], { kind: 'upstream' });
  t.like(adapterRegistry.replicate, { kind: 'upstream' });
});

test('a local adapter is configured with no upstreams at all', (t) => {
  t.true(isAdapterConfigured(adapterRegistry['procedural-image']!, { operationId: 'x', category: 'y' }, { upstreams: new Map() }));
});

test('an upstream adapter is configured only when its upstream is', (t) => {
  const http = adapterRegistry['http-json']!;
  t.true(isAdapterConfigured(http, model, { upstreams: new Map([['acme', { url: 'https://api.acme.test' }]]) }));
  t.false(isAdapterConfigured(http, model, { upstreams: new Map([['other', { url: 'https://other.test' }]]) }));
  t.false(isAdapterConfigured(http, { operationId: 'x', category: 'y' }, { upstreams: new Map([['acme', { url: 'https://api.acme.test' }]]) }));
});
