// The committed per-operation types are what the merged spec generates today, so a spec edit
// without `npm run gen:types` fails here (and handler types never describe an older spec).
import test from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GENERATED_TYPES_FILE, GEN_TYPES_COMMAND, generateTypes } from '../../spec/generate-types.ts';

const SPEC = path.resolve(import.meta.dirname, '../../spec/v1');

test('the committed spec/v1.generated.ts matches the spec', async (t) => {
  const committed = await fs.readFile(GENERATED_TYPES_FILE, 'utf8');
  const fresh = await generateTypes(SPEC);
  t.true(committed === fresh, `spec/v1.generated.ts is stale: run \`${GEN_TYPES_COMMAND}\` and commit the result`);
});

test('a spec edit changes the generated types (the check above can fail)', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-spec-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  await fs.cp(SPEC, dir, { recursive: true });
  const file = path.join(dir, 'openapi.yaml');
  const yaml = await fs.readFile(file, 'utf8');
  await fs.writeFile(file, yaml.replace('operationId: getBalance', 'operationId: getWalletBalance'));
  const fresh = await generateTypes(dir);
  t.true(fresh.includes('getWalletBalance: {'));
  t.not(fresh, await fs.readFile(GENERATED_TYPES_FILE, 'utf8'));
});

test('the generated file is type-only, so Node can strip it', async (t) => {
  const committed = await fs.readFile(GENERATED_TYPES_FILE, 'utf8');
  const exports = committed.split('\n').filter((l) => l.startsWith('export '));
  t.true(exports.length > 0);
  t.deepEqual(exports.filter((l) => !/^export (interface|type) /.test(l)), []);
});

test('a field the spec gives a default is optional in the generated types, a required one is not', async (t) => {
  // openapi-typescript makes defaulted properties of component schemas required unless told
  // otherwise (defaultNonNullable), which would force clients to send every default
  const committed = await fs.readFile(GENERATED_TYPES_FILE, 'utf8');
  const start = committed.indexOf('CanvasV1FastTextToImageInput: {');
  const block = committed.slice(start, committed.indexOf('\n        };', start));
  t.regex(block, /\n\s+width\?: number;/);
  t.regex(block, /\n\s+num_images\?: number;/);
  t.regex(block, /\n\s+prompt: string;/);
});
