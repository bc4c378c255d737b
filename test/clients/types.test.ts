// The TypeScript client's generated types (clients/typescript/src/generated/v1.ts) are what the
// served document generates today, so a spec edit without `npm run gen:client-types` fails here.
import test from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CLIENT_TYPES_COMMAND, CLIENT_TYPES_FILE, errorCodes, generateClientTypes } from '../../clients/typescript/scripts/generate-types.ts';
import { loadSpecDocument } from '../../spec/load.ts';

const SPEC = path.resolve(import.meta.dirname, '../../spec/v1');

test('the committed client types match the served spec', async (t) => {
  const committed = await fs.readFile(CLIENT_TYPES_FILE, 'utf8');
  t.true(committed === await generateClientTypes(SPEC), `clients/typescript/src/generated/v1.ts is stale: run \`${CLIENT_TYPES_COMMAND}\` and commit the result`);
});

test('a spec edit changes the client types (the check above can fail)', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-client-spec-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  await fs.cp(SPEC, dir, { recursive: true });
  const file = path.join(dir, 'models', 'local.yaml');
  await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('\n  canvas-v1-fast-text-to-image:', '\n  canvas-v1-faster-text-to-image:'));
  const fresh = await generateClientTypes(dir);
  t.true(fresh.includes('"canvas-v1-faster-text-to-image": { input:'));
  t.not(fresh, await fs.readFile(CLIENT_TYPES_FILE, 'utf8'));
});

test('every model of the spec is in the slug map, with its output kind', async (t) => {
  const committed = await fs.readFile(CLIENT_TYPES_FILE, 'utf8');
  const document = loadSpecDocument(SPEC);
  let models = 0;
  for (const item of Object.values(document.paths)) {
    const op = item.post as { operationId?: string; 'x-model'?: { output: string } } | undefined;
    if (!op?.['x-model']) continue;
    models++;
    t.true(committed.includes(`${JSON.stringify(op.operationId)}: { input: `) && committed.includes(`output: ${JSON.stringify(op['x-model'].output)} };`), op.operationId);
  }
  t.true(models > 10);
});

test('the error codes are the gateway\'s own list (lib/errors.ts)', (t) => {
  const codes = errorCodes();
  for (const c of ['unauthorized', 'insufficient_credit', 'rate_limited', 'embed_code_invalid', 'studio_forbidden']) t.true(codes.includes(c), c);
  t.true(codes.includes('balance_limit'));
});

test('the generated file is type-only, so the published build is types and client code only', async (t) => {
  const committed = await fs.readFile(CLIENT_TYPES_FILE, 'utf8');
  const exports = committed.split('\n').filter((l) => l.startsWith('export '));
  t.deepEqual(exports.filter((l) => !/^export (interface|type) /.test(l)), []);
});
