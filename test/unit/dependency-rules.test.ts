// The rooms' dependency rules (.dependency-cruiser.cjs, run over the real tree by `npm test`) can
// fail: a throw-away tree with one import of each kind, allowed and forbidden, is cruised with the
// real configuration, and exactly the forbidden ones are reported, each under its rule.
import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { cruise } from 'dependency-cruiser';
import type { ICruiseResult, IConfiguration } from 'dependency-cruiser';

const require = createRequire(import.meta.url);
const config = require('../../.dependency-cruiser.cjs') as IConfiguration;
const repo = path.resolve(import.meta.dirname, '..', '..');

const TREE: Record<string, string> = {
  // allowed: the composition root and tests import app.ts; lib/context.ts names workers/ types
  'app.ts': "import type { App } from './lib/context.ts';\nexport type { App };\n",
  'main.ts': "import type { App } from './app.ts';\nexport type M = App;\n",
  'test/t.test.ts': "import type { App } from '../app.ts';\nexport type T = App;\n",
  'lib/context.ts': "import type { Queue } from '../workers/queue/types.ts';\nimport { createQueue } from '../workers/queue/index.ts';\n"
    + 'export interface App { queue: Queue; make: typeof createQueue }\n',
  'lib/ok.ts': "import type { App } from './context.ts';\nimport { readFileSync } from 'node:fs';\nexport type O = [App, typeof readFileSync];\n",
  'workers/queue/types.ts': 'export interface Queue { n: number }\n',
  'workers/queue/index.ts': 'export const createQueue = () => 1;\n',
  // forbidden
  'lib/bad.ts': "import type { Request } from '@hapi/hapi';\nimport type { H } from '../handlers/h.ts';\nimport { q } from '../db/q.ts';\n"
    + 'export type B = [Request, H, typeof q];\n',
  'lib/a.ts': "import type { B } from './b.ts';\nexport type A = B | 1;\n",
  'lib/b.ts': "import type { A } from './a.ts';\nexport type B = { a: A };\n",
  'handlers/h.ts': "import type { App } from '../app.ts';\nimport { p } from '../plugins/p.ts';\nexport type H = [App, typeof p];\n",
  'handlers/u.ts': "import { gone } from './missing.ts';\nexport const u = gone;\n",
  'plugins/p.ts': 'export const p = 1;\n',
  'workers/w.ts': "import type { H } from '../handlers/h.ts';\nimport { p } from '../plugins/p.ts';\nexport type W = [H, typeof p];\n",
  'db/q.ts': "import { p } from '../plugins/p.ts';\nexport const q = p;\n",
  'spec/s.ts': "import { q } from '../db/q.ts';\nimport type { App } from '../app.ts';\nexport type S = [typeof q, App];\n",
};

test('each dependency rule reports its forbidden import, and only those', async (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-rooms-'));
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
  for (const [file, text] of Object.entries(TREE)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  // the packages (for @hapi/hapi), through a symlink as in a worktree
  fs.symlinkSync(path.join(repo, 'node_modules'), path.join(root, 'node_modules'));

  const { output } = await cruise(['.'], {
    ...config.options,
    baseDir: root,
    validate: true,
    ruleSet: { forbidden: config.forbidden ?? [] },
  });
  const result = output as ICruiseResult;
  const found = result.summary.violations
    // a cycle is reported once, from whichever of its modules comes first
    .map((v) => (v.rule.name === 'no-circular'
      ? `no-circular: ${[v.from, v.to].sort().join(' <-> ')}`
      : `${v.rule.name}: ${v.from} -> ${v.to.replace(/^.*node_modules\//, 'node_modules/')}`))
    .sort();
  t.deepEqual(found, [
    'db-not-to-the-rooms-above: db/q.ts -> plugins/p.ts',
    'handlers-not-to-plugins: handlers/h.ts -> plugins/p.ts',
    'lib-context-imports-workers-types-only: lib/context.ts -> workers/queue/index.ts',
    'lib-is-transport-free: lib/bad.ts -> db/q.ts',
    'lib-is-transport-free: lib/bad.ts -> handlers/h.ts',
    'lib-is-transport-free: lib/bad.ts -> node_modules/@hapi/hapi/lib/index.js',
    'no-circular: lib/a.ts <-> lib/b.ts',
    'not-to-unresolvable: handlers/u.ts -> ./missing.ts',
    'only-the-composition-root-imports-app: handlers/h.ts -> app.ts',
    'only-the-composition-root-imports-app: spec/s.ts -> app.ts',
    'spec-declares-only: spec/s.ts -> app.ts',
    'spec-declares-only: spec/s.ts -> db/q.ts',
    'workers-not-to-handlers: workers/w.ts -> handlers/h.ts',
    'workers-not-to-handlers: workers/w.ts -> plugins/p.ts',
  ].sort());
});
