// The role table of docs/operating/administration.md is the spec's `x-required-role`: every role
// operation is in it, each with exactly the roles the route bridge lets in (admin always).
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ROLES = ['user', 'support', 'billing', 'admin'] as const;

/** operationId -> roles, from the spec's root document (model files declare no roles). */
function specRoles(): Map<string, string[]> {
  const doc = yaml.load(fs.readFileSync(path.join(ROOT, 'spec/v1/openapi.yaml'), 'utf8')) as { paths: Record<string, Record<string, Record<string, unknown>>> };
  const out = new Map<string, string[]>();
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) {
      const declared = op?.['x-required-role'];
      if (declared === undefined) continue;
      out.set(String(op.operationId), (Array.isArray(declared) ? declared : [declared]).map(String));
    }
  }
  return out;
}

/** operationId -> roles marked in the table (any cell but `-`). */
function tableRoles(): Map<string, string[]> {
  const page = fs.readFileSync(path.join(ROOT, 'docs/operating/administration.md'), 'utf8');
  const start = page.indexOf('| Operation | user | support | billing | admin |');
  const rows = page.slice(start).split('\n').slice(2);
  const out = new Map<string, string[]>();
  for (const row of rows) {
    if (!row.startsWith('|')) break;
    const cells = row.split('|').slice(1, -1).map((c) => c.trim());
    const roles = ROLES.filter((_, i) => cells[i + 1] !== '-');
    for (const id of cells[0]!.replace(/\(.*?\)/g, '').matchAll(/\b[a-z][A-Za-z]+\b/g)) out.set(id[0], roles);
  }
  return out;
}

test('every role operation is in the documented role table with the roles the spec lets in', (t) => {
  const spec = specRoles();
  const table = tableRoles();
  t.true(spec.size > 0);
  for (const [id, roles] of spec) {
    t.deepEqual(table.get(id), ROLES.filter((r) => roles.includes(r)), `${id} in the table of docs/operating/administration.md`);
  }
});
