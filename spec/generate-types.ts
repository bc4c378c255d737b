// Per-operation TypeScript types from the merged spec (spec/load.ts, exactly what is served), so
// handlers are typed by operationId. `npm run gen:types` rewrites the committed file;
// test/spec/generate-types.test.ts fails when it is stale. The output is type-only: Node strips it.
// Defaulted fields stay optional (defaultNonNullable: false): a client need not send a default.
import fs from 'node:fs';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import type { OpenAPI3 } from 'openapi-typescript';
import { loadSpecDocument } from './load.ts';
import type { SpecDocument } from './load.ts';
import { scopeNames } from './scopes.ts';

export const GENERATED_TYPES_FILE = path.join(import.meta.dirname, 'v1.generated.ts');
export const GEN_TYPES_COMMAND = 'npm run gen:types';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** operationIds by kind: model endpoints (x-model) and operations that declare a credential. */
function operationKinds(document: SpecDocument): { models: string[]; protectedOps: string[] } {
  const globalSecurity = Array.isArray(document.security) ? document.security : [];
  const models: string[] = [];
  const protectedOps: string[] = [];
  for (const item of Object.values(document.paths)) {
    for (const method of METHODS) {
      const op = item[method] as Record<string, unknown> | undefined;
      if (!op || typeof op.operationId !== 'string') continue;
      if ('x-model' in op) models.push(op.operationId);
      const security = Array.isArray(op.security) ? op.security : globalSecurity;
      if (security.length > 0) protectedOps.push(op.operationId);
    }
  }
  return { models: models.sort(), protectedOps: protectedOps.sort() };
}

const union = (ids: string[]) => (ids.length ? ids.map((id) => `\n    | ${JSON.stringify(id)}`).join('') : ' never');

export async function generateTypes(specDir: string): Promise<string> {
  const document = loadSpecDocument(specDir);
  const body = astToString(await openapiTS(structuredClone(document) as unknown as OpenAPI3, { defaultNonNullable: false }));
  const { models, protectedOps } = operationKinds(document);
  return [
    `// GENERATED from ${path.basename(path.dirname(specDir))}/${path.basename(specDir)} by \`${GEN_TYPES_COMMAND}\` (spec/generate-types.ts). Do not edit.`,
    body.trimEnd(),
    '',
    '/** Model endpoints (x-model): all served by handlers/generate.ts with a generic input. */',
    `export type ModelOperationId =${union(models)};`,
    '',
    '/** Operations whose security is not empty: their handlers always receive a caller. */',
    `export type ProtectedOperationId =${union(protectedOps)};`,
    '',
    '/** The scopes the OAuth2 security scheme declares: the only list of scopes (spec/scopes.ts). */',
    `export type DeclaredScope =${union(scopeNames(document))};`,
    '',
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  const specDir = path.join(import.meta.dirname, 'v1');
  fs.writeFileSync(GENERATED_TYPES_FILE, await generateTypes(specDir));
  console.log(`wrote ${path.relative(process.cwd(), GENERATED_TYPES_FILE)}`);
}
