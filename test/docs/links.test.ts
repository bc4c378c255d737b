// Every internal link and anchor of the README, docs/ and test/bench/ resolves, checked offline by
// remark-validate-links (the configuration is .remarkrc.json) through remark-cli, as
// `npm run docs:check` runs it.
import test from 'ava';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const REMARK = path.join(ROOT, 'node_modules', '.bin', 'remark');
const ARGS = ['--frail', '--quiet', '--no-stdout', '--no-color'];

test('every internal link and anchor of README.md, docs/ and test/bench/ resolves', async (t) => {
  const result = await run(REMARK, [...ARGS, 'README.md', 'docs', 'test/bench'], { cwd: ROOT }).then(
    ({ stderr }) => ({ ok: true, out: stderr }),
    (err: { stderr?: string; message: string }) => ({ ok: false, out: err.stderr ?? err.message }),
  );
  t.true(result.ok, result.out);
});

test('the check fails on a missing file, a missing heading in another file and a missing anchor', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-links-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  // the same plugin and settings as .remarkrc.json, named by path (a temp dir has no node_modules)
  const plugin = path.join(ROOT, 'node_modules', 'remark-validate-links', 'index.js');
  await fs.writeFile(path.join(dir, 'a.md'), '# A\n\n## Here\n\n[fine](#here) [fine too](b.md#there)\n');
  await fs.writeFile(path.join(dir, 'b.md'), '# B\n\n## There\n\n[gone](c.md) [wrong](a.md#elsewhere) [lost](#nowhere)\n');
  const err = await t.throwsAsync(run(REMARK, [...ARGS, '--no-config', '--use', `${plugin}=repository:false`, 'a.md', 'b.md'], { cwd: dir })) as Error & { stderr: string };
  t.regex(err.stderr, /Cannot find file `c\.md`/);
  t.regex(err.stderr, /Cannot find heading for `#elsewhere` in `a\.md`/);
  t.regex(err.stderr, /Cannot find heading for `#nowhere`/);
  t.notRegex(err.stderr, /#here|#there/);
});
