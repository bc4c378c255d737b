// The static adapter registry: the spec's x-model.adapter value is the key. Adding a model of an
// existing kind is a spec change only; a new key here is needed only for a new kind of upstream.

import { fal } from './fal.ts';
import { httpJson } from './http-json.ts';
import { openAiCompatible } from './openai-compatible.ts';
import { proceduralAudio } from './procedural-audio.ts';
import { proceduralImage } from './procedural-image.ts';
import { proceduralMesh } from './procedural-mesh.ts';
import { replicate } from './replicate.ts';
import { wavespeed } from './wavespeed.ts';
import type { AdapterDefinition, AdapterEnv, ModelRef } from './types.ts';

export const adapterRegistry: Readonly<Record<string, AdapterDefinition>> = {
  'procedural-image': proceduralImage,
  'procedural-audio': proceduralAudio,
  'procedural-mesh': proceduralMesh,
  'http-json': httpJson,
  'openai-compatible': openAiCompatible,
  replicate,
  fal,
  wavespeed,
};

/**
 * Whether a model can run with this environment: local adapters always can; upstream adapters need
 * the model's x-model.upstream to name a provider whose UPSTREAM_<NAME>_URL is set.
 */
export function isAdapterConfigured(def: AdapterDefinition, model: ModelRef, env: AdapterEnv): boolean {
  if (def.kind === 'local') return true;
  return model.upstream !== undefined && env.upstreams.has(model.upstream);
}

/** What a model says about its providers, as the catalog read it (spec/catalog.ts ProviderInfo). */
export interface ProviderRef {
  adapter: string;
  upstream?: string;
}

/**
 * The model's providers that can run here, in failover order (README "Providers"): those whose
 * adapter is local or whose provider is configured. Empty: the model answers 503.
 */
export function configuredProviders<P extends ProviderRef>(model: { operationId: string; category: string; providers: readonly P[] }, env: AdapterEnv): P[] {
  return model.providers.filter((p) => {
    const def = adapterRegistry[p.adapter];
    return def !== undefined && isAdapterConfigured(def, { operationId: model.operationId, category: model.category, ...(p.upstream ? { upstream: p.upstream } : {}) }, env);
  });
}
