// The client's types from the document the gateway serves (spec/public.ts over spec/load.ts: what
// /openapi.json answers), plus a map from each model's slug to its input schema and output kind,
// and the gateway's error codes (lib/errors.ts). `npm run gen:client-types` rewrites the committed
// file; test/clients/types.test.ts fails when it is stale. Run by the repository's Node 24.
import fs from 'node:fs';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import type { OpenAPI3 } from 'openapi-typescript';
import { loadSpecDocument } from '../../../spec/load.ts';
import { publicDocument } from '../../../spec/public.ts';
import { ERRORS } from '../../../lib/errors.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
export const CLIENT_TYPES_FILE = path.join(import.meta.dirname, '..', 'src', 'generated', 'v1.ts');
export const CLIENT_TYPES_COMMAND = 'npm run gen:client-types';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

interface ModelOp { slug: string; input: string; output: string }

function modelOperations(document: ReturnType<typeof loadSpecDocument>): ModelOp[] {
  const out: ModelOp[] = [];
  for (const item of Object.values(document.paths)) {
    for (const method of METHODS) {
      const op = item[method] as Record<string, unknown> | undefined;
      const xModel = op?.['x-model'] as { output?: unknown } | undefined;
      if (!op || !xModel || typeof op.operationId !== 'string') continue;
      const schema = (op.requestBody as { content?: Record<string, { schema?: { $ref?: string } }> } | undefined)?.content?.['application/json']?.schema;
      const ref = schema?.$ref?.startsWith('#/components/schemas/') ? schema.$ref.slice('#/components/schemas/'.length) : undefined;
      const slug = JSON.stringify(op.operationId);
      out.push({
        slug: op.operationId,
        // a schema written inline in the operation is reached through the operation's own type
        input: ref ? `components['schemas'][${JSON.stringify(ref)}]` : `NonNullable<operations[${slug}]['requestBody']>['content']['application/json']`,
        output: JSON.stringify(String(xModel.output)),
      });
    }
  }
  return out.sort((a, b) => a.slug.localeCompare(b.slug));
}

/** The codes an error body's `code` can hold: the keys of lib/errors.ts's ERRORS table. */
export function errorCodes(): string[] {
  return Object.keys(ERRORS);
}

export async function generateClientTypes(specDir: string = path.join(ROOT, 'spec', 'v1')): Promise<string> {
  const document = publicDocument(loadSpecDocument(specDir));
  // defaultNonNullable: false keeps a defaulted field optional, so callers need not send defaults
  const body = astToString(await openapiTS(structuredClone(document) as unknown as OpenAPI3, { defaultNonNullable: false }));
  const models = modelOperations(document);
  return [
    `// GENERATED from the served spec/${path.basename(specDir)} by \`${CLIENT_TYPES_COMMAND}\` (clients/typescript/scripts/generate-types.ts). Do not edit.`,
    '/* eslint-disable */',
    body.trimEnd(),
    '',
    '/** Every model endpoint of the gateway, by slug: the body it takes and the kind of file it makes. */',
    'export interface ModelMap {',
    ...models.map((m) => `    ${JSON.stringify(m.slug)}: { input: ${m.input}; output: ${m.output} };`),
    '}',
    '',
    '/** The stable `code` of an error body; branch on it, not on `detail`. */',
    `export type ErrorCode =${errorCodes().map((c) => `\n    | ${JSON.stringify(c)}`).join('')};`,
    '',
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  fs.mkdirSync(path.dirname(CLIENT_TYPES_FILE), { recursive: true });
  fs.writeFileSync(CLIENT_TYPES_FILE, await generateClientTypes());
  console.log(`wrote ${path.relative(process.cwd(), CLIENT_TYPES_FILE)}`);
}
