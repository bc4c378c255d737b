// The document clients see (GET /openapi.json, /docs): the merged spec minus what only operators
// use to wire providers, plus the gateway version that serves it. The loader's document (and so
// the catalog, the workers and the generated types) keeps every field.
import fs from 'node:fs';
import path from 'node:path';
import type { SpecDocument } from './load.ts';

/** package.json's version: the gateway release; the spec's info.version must equal it (test/spec/public.test.ts). */
export const GATEWAY_VERSION: string = (JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;

/**
 * The x-model fields a client may see: what the model is (category, tier, family, output kind)
 * and what it costs (price). An allowlist, so a field an operator adds later (adapter, upstream,
 * upstream_model, input_map, fixed_input, ...) stays private until someone decides otherwise.
 */
export const PUBLIC_X_MODEL_FIELDS: readonly string[] = ['category', 'tier', 'family', 'output', 'price'];

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export function publicDocument(document: SpecDocument, gatewayVersion: string = GATEWAY_VERSION): SpecDocument {
  const paths: SpecDocument['paths'] = {};
  for (const [p, item] of Object.entries(document.paths)) {
    const copy: Record<string, unknown> = { ...item };
    for (const method of METHODS) {
      const op = copy[method] as Record<string, unknown> | undefined;
      const xModel = op?.['x-model'] as Record<string, unknown> | undefined;
      if (!op || !xModel) continue;
      copy[method] = { ...op, 'x-model': Object.fromEntries(Object.entries(xModel).filter(([k]) => PUBLIC_X_MODEL_FIELDS.includes(k))) };
    }
    paths[p] = copy;
  }
  const info = { ...(document.info as Record<string, unknown>), 'x-gateway-version': gatewayVersion };
  return { ...document, info, paths };
}
