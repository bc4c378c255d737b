// Builds a spec directory with exactly N model endpoints for the routing benchmark: the shipped
// openapi.yaml plus one model file holding N copies of canvas-v1-fast-text-to-image, each under
// its own slug and with its own copy of the input schema (as N real models would have).
import fs from 'node:fs/promises';
import path from 'node:path';
import yaml from 'js-yaml';
import { ROOT } from './lib.ts';

const SHIPPED = path.join(ROOT, 'spec', 'v1');
const TEMPLATE_ID = 'canvas-v1-fast-text-to-image';
const TEMPLATE_SCHEMA = 'CanvasV1FastTextToImageInput';

export function benchSlug(i: number): string {
  return `bench-v1-fast-text-to-image-${String(i).padStart(5, '0')}`;
}

/** The endpoint in the middle of the list, the one the benchmark sends requests to. */
export function middleSlug(n: number): string {
  return benchSlug(Math.max(1, Math.ceil(n / 2)));
}

function asRecord(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`spec-gen: ${what} is not a mapping`);
  return v as Record<string, unknown>;
}

export async function writeSpecDir(dir: string, n: number): Promise<void> {
  const local = asRecord(yaml.load(await fs.readFile(path.join(SHIPPED, 'models', 'local.yaml'), 'utf8')), 'local.yaml');
  const entry = asRecord(asRecord(local.models, 'models')[TEMPLATE_ID], TEMPLATE_ID);
  const schema = asRecord(asRecord(asRecord(local.components, 'components').schemas, 'schemas')[TEMPLATE_SCHEMA], TEMPLATE_SCHEMA);
  const template = JSON.stringify(entry);

  const models: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (let i = 1; i <= n; i++) {
    const slug = benchSlug(i);
    const schemaName = `BenchInput${String(i).padStart(5, '0')}`;
    const item = JSON.parse(template.replaceAll(`#/components/schemas/${TEMPLATE_SCHEMA}`, `#/components/schemas/${schemaName}`)) as Record<string, unknown>;
    item.summary = `Bench endpoint ${i} (tier fast)`;
    models[slug] = item;
    schemas[schemaName] = structuredClone(schema);
  }

  await fs.mkdir(path.join(dir, 'models'), { recursive: true });
  await fs.copyFile(path.join(SHIPPED, 'openapi.yaml'), path.join(dir, 'openapi.yaml'));
  // Block-style YAML, like the shipped model files, so parsing costs what it would in production.
  await fs.writeFile(path.join(dir, 'models', 'bench.yaml'), yaml.dump({ models, components: { schemas } }, { noRefs: true, lineWidth: -1 }));
}
