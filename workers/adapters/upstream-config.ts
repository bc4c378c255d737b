// What every upstream adapter reads from the spec and the environment: which provider's
// credentials to use (x-model.upstream -> UPSTREAM_<NAME>_URL / _KEY) and how our input fields
// become the provider's (x-model.input_map and x-model.fixed_input), so that adding a provider
// model is a YAML change only.
import { PROVIDER_DEFAULT_URLS } from '../../config.ts';
import { AdapterError } from './types.ts';
import type { AdapterEnv, ModelRef, UpstreamConfig } from './types.ts';
import { applyMapping, parseInputMapping } from '../../spec/mapping.ts';

/** The environment variable that configures a provider, for messages. */
export function upstreamVariable(name: string, suffix: 'URL' | 'KEY'): string {
  return `UPSTREAM_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_${suffix}`;
}

/** What an operator sets to configure a provider: its key for a public provider, else its URL. */
export function configureHint(name: string): string {
  return Object.hasOwn(PROVIDER_DEFAULT_URLS, name) ? upstreamVariable(name, 'KEY') : upstreamVariable(name, 'URL');
}

/** The model's provider and its configuration; a non-retryable error when it is not configured. */
export function requireUpstream(env: AdapterEnv, model: ModelRef): { name: string; upstream: UpstreamConfig } {
  const { upstream: name, upstreamModel } = model;
  // Both are checked at boot against the spec; this guards a worker started with a stale spec.
  if (!name || !upstreamModel) {
    throw new AdapterError(`model ${model.operationId} has no x-model.upstream / upstream_model`, false, { code: 'not_configured' });
  }
  const upstream = env.upstreams.get(name);
  if (!upstream) {
    throw new AdapterError(`upstream "${name}" is not configured (set ${configureHint(name)})`, false, { code: 'not_configured' });
  }
  return { name, upstream };
}

/**
 * Our validated input as the provider's (spec/mapping.ts): each field renamed or transformed by
 * `input_map` (a field mapped to "" is dropped: the provider has no such field), then
 * `fixed_input` added, winning over mapped ones. The submit already refused (422) an input this
 * provider cannot take; one that still fails here (a catalog reloaded in between) fails the
 * prediction as the input's fault, never retried.
 */
export function mapInput(input: Readonly<Record<string, unknown>>, model: ModelRef): Record<string, unknown> {
  const mapping = model.mapping ?? parseInputMapping({ input_map: model.inputMap, fixed_input: model.fixedInput }, undefined, 'x-model');
  const mapped = applyMapping(mapping, input);
  if (!mapped.ok) {
    const detail = mapped.problems.map((p) => `${p.field}: ${p.msg}`).join('; ');
    throw new AdapterError(`the input cannot be sent to upstream "${model.upstream ?? model.operationId}": ${detail}`, false, { code: 'upstream_rejected_input' });
  }
  return mapped.value;
}
