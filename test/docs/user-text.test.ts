// Text that users read explains itself: the spec's descriptions (served at /openapi.json and
// /docs), the dashboard, and the documentation pages for API users, partners and operators never
// send the reader to the README, a source file or an issue. Contributor pages may.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

function files(dir: string, keep: (name: string) => boolean): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...files(rel, keep));
    else if (keep(entry.name)) out.push(rel);
  }
  return out;
}

test('nothing under spec/ or dashboard/ refers to the README', (t) => {
  const offenders = [...files('spec', () => true), ...files('dashboard', () => true)]
    .filter((f) => /README/.test(fs.readFileSync(path.join(ROOT, f), 'utf8')));
  t.deepEqual(offenders, []);
});

/** What a reader sees of a page: no link targets, no HTML comments. */
function visibleText(markdown: string): string {
  return markdown.replace(/<!--[\s\S]*?-->/g, '').replace(/\]\([^)]*\)/g, ']');
}

const SOURCE_FILE = /\b(?:lib|db|handlers|plugins|workers|cli|test|dashboard|spec)\/[\w./-]*\.(?:ts|js|cjs)\b/;
const ISSUE = /\bissue \d+/i;

/** The offending lines of a page, `file:line: text`. */
function offendingLines(file: string, text: string): string[] {
  return visibleText(text).split('\n').flatMap((line, i) =>
    /README/.test(line) || SOURCE_FILE.test(line) || ISSUE.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []);
}

test("the pages for API users, partners and operators name no README, source file or issue", (t) => {
  const pages = ['docs/api', 'docs/partners', 'docs/operating'].flatMap((d) => files(d, (n) => n.endsWith('.md')));
  t.true(pages.length > 20);
  const offenders = pages.flatMap((f) => offendingLines(f, fs.readFileSync(path.join(ROOT, f), 'utf8')));
  t.deepEqual(offenders, []);
});

test('the page check sees a source file, an issue and the README, and not a link target', (t) => {
  t.deepEqual(offendingLines('x.md', 'see handlers/generate.ts\nas issue 15 said\nthe README says\n[Index](../README.md)\n<!-- from lib/errors.ts -->'), [
    'x.md:1: see handlers/generate.ts', 'x.md:2: as issue 15 said', 'x.md:3: the README says',
  ]);
});
