// Scopes are declared once, by the spec's OAuth2 scheme; start-up refuses a spec that does not
// declare a scope the code names.
import test from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadSpec } from '../../app.ts';
import { SpecError } from '../../spec/load.ts';
import { CODE_SCOPES as ALL_SCOPES } from '../../spec/scopes.ts';
import { CODE_SCOPES, checkScopes, oauthTokenPath, scopeNames } from '../../spec/scopes.ts';

const SPEC = path.resolve(import.meta.dirname, '../../spec/v1');

test('the code\'s scopes are the spec\'s OAuth2 scopes, in the spec\'s order', async (t) => {
  const { document } = await loadSpec(SPEC);
  t.deepEqual([...CODE_SCOPES], scopeNames(document));
  t.deepEqual([...ALL_SCOPES], scopeNames(document));
  t.deepEqual([...CODE_SCOPES], ['generate:write', 'generate:read', 'files:write', 'account:read', 'keys:manage']);
});

test('start-up refuses a spec that does not declare a scope the code names, naming the scope', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-spec-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  await fs.cp(SPEC, dir, { recursive: true });
  const file = path.join(dir, 'openapi.yaml');
  const yaml = await fs.readFile(file, 'utf8');
  const edited = yaml.replace(/\n\s+'keys:manage': [^\n]*/, '').replace(/OAuth2: \['keys:manage'\]/g, 'OAuth2: []');
  t.not(edited, yaml);
  await fs.writeFile(file, edited);
  const err = await t.throwsAsync(loadSpec(dir), { instanceOf: SpecError });
  t.regex(err?.message ?? '', /"keys:manage"/);
});

test('checkScopes names every missing scope', (t) => {
  const document = { components: { securitySchemes: { OAuth2: { flows: { clientCredentials: { scopes: { 'generate:read': 'x' } } } } } } };
  t.notThrows(() => checkScopes(document, ['generate:read']));
  t.throws(() => checkScopes(document, ['generate:read', 'files:write', 'keys:manage']), { message: /"files:write", "keys:manage"/ });
});

test('the token endpoint is where the OAuth2 scheme\'s tokenUrl says, and a scheme without one is refused', async (t) => {
  const { document } = await loadSpec(SPEC);
  t.is(oauthTokenPath(document), '/oauth/token');
  t.throws(() => oauthTokenPath({ components: { securitySchemes: { OAuth2: { flows: { clientCredentials: { scopes: {} } } } } } }), { instanceOf: SpecError, message: /tokenUrl/ });
});
