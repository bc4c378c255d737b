// `npm run docs:build` builds the documentation into a static site with a local search index,
// offline: the index page is the home page, pages link to each other and to the home page, and
// nothing is loaded from another host.
import test from 'ava';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..', '..');

test('the docs build into a static site with search, offline', async (t) => {
  const out = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-site-'));
  t.teardown(() => fs.rm(out, { recursive: true, force: true }));
  await run(path.join(ROOT, 'node_modules', '.bin', 'vitepress'), ['build', 'docs', '--outDir', out], { cwd: ROOT, timeout: 110_000 });
  const home = await fs.readFile(path.join(out, 'index.html'), 'utf8');
  t.regex(home, /mediagate documentation/);
  const teams = await fs.readFile(path.join(out, 'api', 'teams.html'), 'utf8');
  // the navigation line's index link leads to the home page, a neighbour's to its page
  t.regex(teams, /<a href="\/">Index<\/a>/);
  t.regex(teams, /href="\.\/history\.html">Run history, gallery and review<\/a>/);
  // GitHub's anchors, so a link works on GitHub and on the site alike
  const predictions = await fs.readFile(path.join(out, 'api', 'predictions.html'), 'utf8');
  t.regex(predictions, /id="no-request-lost-none-charged-twice"/);
  t.regex(predictions, /id="decided-where-the-interface-is-silent"/);
  const chunks = await fs.readdir(path.join(out, 'assets', 'chunks'));
  const index = chunks.find((f) => f.startsWith('@localSearchIndex'));
  t.truthy(index, 'a local search index');
  t.regex(await fs.readFile(path.join(out, 'assets', 'chunks', index!), 'utf8'), /Idempotent requests/);
  for (const page of ['index.html', 'api/teams.html', 'operating/configuration.html']) {
    const html = await fs.readFile(path.join(out, page), 'utf8');
    t.notRegex(html, /(?:src|href)="https?:\/\/(?!localhost)[^"]*\.(?:js|css|woff2?)"/, page);
  }
});
