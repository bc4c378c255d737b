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
const config = require('../.dependency-cruiser.cjs') as IConfiguration;
const repo = path.resolve(import.meta.dirname, '..');

const TREE: Record<string, string> = {
  // allowed: the composition root and tests import app.ts; lib/context.ts names workers/ types
  'app.ts': "import type { App } from './lib/context.ts';\nimport { openStore } from './db/store/index.ts';\nexport type { App };\nexport const o = openStore;\n",
  'main.ts': "import type { App } from './app.ts';\nexport type M = App;\n",
  'test/t.test.ts': "import type { App } from '../app.ts';\nexport type T = App;\n",
  'lib/context.ts': "import type { Queue } from '../workers/queue/types.ts';\nimport { createQueue } from '../workers/queue/index.ts';\n"
    + "import type { Store } from '../db/store/types.ts';\n"
    + 'export interface App { queue: Queue; make: typeof createQueue; store: Store }\n',
  'lib/ok.ts': "import type { App } from './context.ts';\nimport { readFileSync } from 'node:fs';\nexport type O = [App, typeof readFileSync];\n",
  'workers/queue/types.ts': 'export interface Queue { n: number }\n',
  'workers/queue/index.ts': 'export const createQueue = () => 1;\n',
  // the store: its interface and selector, its engines; db/ may open it, tests may call it
  'db/store/types.ts': 'export interface Store { n: number }\n',
  'db/store/index.ts': "import { Portable } from './portable.ts';\nimport type { Store } from './types.ts';\nexport const openStore = (): Store => new Portable();\n",
  'db/store/portable.ts': "import type { Store } from './types.ts';\nexport class Portable implements Store { n = 1; }\n",
  'db/opens.ts': "import { openStore } from './store/index.ts';\nexport const s = openStore;\n",
  'test/store.test.ts': "import { openStore } from '../db/store/index.ts';\nimport type { Store } from '../db/store/types.ts';\nexport type T = [Store, typeof openStore];\n",
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
  'db/engine-user.ts': "import { Portable } from './store/portable.ts';\nexport const p = new Portable();\n",
  'handlers/store.ts': "import { openStore } from '../db/store/index.ts';\nimport type { Store } from '../db/store/types.ts';\nexport type H2 = [Store, typeof openStore];\n",
  'workers/engine.ts': "import { Portable } from '../db/store/portable.ts';\nexport const w = new Portable();\n",
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
    'lib-context-imports-the-parts-types-only: lib/context.ts -> workers/queue/index.ts',
    'lib-is-transport-free: lib/bad.ts -> db/q.ts',
    'lib-is-transport-free: lib/bad.ts -> handlers/h.ts',
    'lib-is-transport-free: lib/bad.ts -> node_modules/@hapi/hapi/lib/index.js',
    'no-circular: lib/a.ts <-> lib/b.ts',
    'not-to-unresolvable: handlers/u.ts -> ./missing.ts',
    'only-the-composition-root-imports-app: handlers/h.ts -> app.ts',
    'only-the-composition-root-imports-app: spec/s.ts -> app.ts',
    'spec-declares-only: spec/s.ts -> app.ts',
    'spec-declares-only: spec/s.ts -> db/q.ts',
    'store-engines-stay-inside: db/engine-user.ts -> db/store/portable.ts',
    'store-engines-stay-inside: workers/engine.ts -> db/store/portable.ts',
    'store-from-db-and-the-root-only: handlers/store.ts -> db/store/index.ts',
    'store-from-db-and-the-root-only: handlers/store.ts -> db/store/types.ts',
    'store-from-db-and-the-root-only: workers/engine.ts -> db/store/portable.ts',
    'workers-not-to-handlers: workers/w.ts -> handlers/h.ts',
    'workers-not-to-handlers: workers/w.ts -> plugins/p.ts',
  ].sort());
});
