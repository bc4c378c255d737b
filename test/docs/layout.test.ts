// The Layout section of docs/contributing/architecture.md stays true: every path it names at the
// start of a line exists, every top-level folder of the repository is named there, and its test/
// line names exactly the folders test/ has.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const page = fs.readFileSync(path.join(ROOT, 'docs', 'contributing', 'architecture.md'), 'utf8');
const layout = /## Layout\n\n```\n([\s\S]*?)\n```/.exec(page)?.[1] ?? '';

/** The paths a line of the layout starts with: `a.ts, b.ts   what they are` -> [a.ts, b.ts]. */
function namedPaths(block: string): string[] {
  return block.split('\n').filter((l) => /^\S/.test(l)).flatMap((l) => l.split(/\s{2,}/)[0]!.split(/,\s*/));
}

test('the layout names paths that exist', (t) => {
  const named = namedPaths(layout);
  t.true(named.length > 15);
  t.deepEqual(named.filter((p) => !fs.existsSync(path.join(ROOT, p))), []);
});

test('every top-level folder of the repository is in the layout', (t) => {
  const named = new Set(namedPaths(layout));
  // made by running things, never committed: dependencies, the embedded database, test screenshots
  const ignored = new Set(['node_modules', 'data', 'test-results']);
  const folders = fs.readdirSync(ROOT, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !ignored.has(e.name)).map((e) => `${e.name}/`);
  t.deepEqual(folders.filter((f) => !named.has(f)), []);
});

test("the layout's test/ line names exactly test/'s folders", (t) => {
  const line = layout.split('\n').find((l) => l.startsWith('test/'))!;
  const listed = [...line.slice('test/'.length).matchAll(/([a-z-]+)\//g)].map((m) => m[1]!).sort();
  const actual = fs.readdirSync(path.join(ROOT, 'test'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  t.deepEqual(listed, actual);
});

test('a path that does not exist is caught', (t) => {
  t.deepEqual(namedPaths('nope/        a room that is gone\nmain.ts, gone.ts   the root'), ['nope/', 'main.ts', 'gone.ts']);
});
