// Local storage: a downloaded output (a temporary file) is moved into place, temporary
// downloads left behind by a dead worker are removed once they are older than any live one, and a
// prediction's outputs are removed by the keys a row lists (retention) or whole (one that failed).
import test from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLocalStorage, isUploadKey } from '../../lib/storage.ts';

async function storage(t: import('ava').ExecutionContext) {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'storage-test-'));
  t.teardown(() => fs.rm(root, { recursive: true, force: true }));
  return { root, store: createLocalStorage(root, 'http://gw.test') };
}

test('a temporary download is moved into place, not copied', async (t) => {
  const { root, store } = await storage(t);
  await fs.mkdir(store.tempDir, { recursive: true });
  const tmp = path.join(store.tempDir, 'p.0.abc.part');
  await fs.writeFile(tmp, 'bytes');
  const key = await store.save('p', 0, { path: tmp, contentType: 'text/plain', extension: 'txt' });
  t.is(key, 'outputs/p/0.txt');
  t.is(await fs.readFile(path.join(root, key), 'utf8'), 'bytes');
  t.deepEqual(await fs.readdir(store.tempDir), []);
});

test('an output in memory is stored whole under its key, small or large, with no temporary file left', async (t) => {
  const { root, store } = await storage(t);
  for (const [id, size] of [['small', 4600], ['large', 3 * 1024 * 1024]] as const) {
    const data = new Uint8Array(size).map((_, i) => (i * 31) & 0xff);
    const key = await store.save(id, 0, { data, contentType: 'image/png', extension: 'png' });
    t.is(key, `outputs/${id}/0.png`);
    t.deepEqual(new Uint8Array(await fs.readFile(path.join(root, key))), data, id);
    t.deepEqual(await fs.readdir(path.join(root, 'outputs', id)), ['0.png'], `${id}: only the renamed file`);
  }
});

test('an output that cannot be written rejects the save', async (t) => {
  const { root, store } = await storage(t);
  // a file where the prediction's directory must go
  await fs.mkdir(path.join(root, 'outputs'), { recursive: true });
  await fs.writeFile(path.join(root, 'outputs', 'taken'), 'x');
  for (const size of [10, 3 * 1024 * 1024]) {
    await t.throwsAsync(store.save('taken', 0, { data: new Uint8Array(size), contentType: 'image/png', extension: 'png' }), { code: 'EEXIST' });
  }
});

test('only temporary downloads older than the bound are removed', async (t) => {
  const { store } = await storage(t);
  await fs.mkdir(store.tempDir, { recursive: true });
  const old = path.join(store.tempDir, 'old.part');
  const fresh = path.join(store.tempDir, 'fresh.part');
  await fs.writeFile(old, 'x');
  await fs.writeFile(fresh, 'y');
  const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
  await fs.utimes(old, twoHoursAgo, twoHoursAgo);
  t.is(await store.removeStaleTemporary(3600_000), 1);
  t.deepEqual(await fs.readdir(store.tempDir), ['fresh.part']);
});

test('no temporary directory yet is nothing to remove', async (t) => {
  const { store } = await storage(t);
  t.is(await store.removeStaleTemporary(0), 0);
});

test('removing a prediction\'s outputs (retention) touches only keys under its own directory, then the directory', async (t) => {
  const { root, store } = await storage(t);
  const mine = await store.save('p1', 0, { data: new Uint8Array([1]), contentType: 'image/png', extension: 'png' });
  const other = await store.save('p2', 0, { data: new Uint8Array([2]), contentType: 'image/png', extension: 'png' });
  const removed = await store.removeOutputs('p1', [mine, other, 'outputs/p1/../p2/0.png', store.sandboxKey('image'), 'outputs/p1/9.png']);
  t.is(removed, 2, 'its own key, and one already gone');
  await t.throwsAsync(fs.stat(path.join(root, 'outputs', 'p1')));
  t.true((await fs.stat(path.join(root, other))).isFile(), 'another prediction\'s file stays');
});

test('removing every output of a prediction takes its whole directory, whatever the keys, and nothing beside it', async (t) => {
  const { root, store } = await storage(t);
  const file = { data: new Uint8Array([1]), contentType: 'image/png', extension: 'png' };
  await store.save('p1', 0, file);
  await store.save('p1', 1, { ...file, extension: 'jpg' });
  // a save's temporary file, as a run that failed mid-write leaves it
  await fs.writeFile(path.join(root, 'outputs', 'p1', '2.png.0a1b2c.tmp'), 'x');
  const neighbours = [await store.save('p10', 0, file), await store.save('p2', 0, file)];
  const upload = 'uploads/0123456789abcdef0123456789abcdef/p1.png';
  await fs.mkdir(path.dirname(path.join(root, upload)), { recursive: true });
  await fs.writeFile(path.join(root, upload), 'u');

  t.is(await store.removeAllOutputs('p1'), 3);
  await t.throwsAsync(fs.stat(path.join(root, 'outputs', 'p1')));
  for (const key of [...neighbours, upload]) t.true((await fs.stat(path.join(root, key))).isFile(), `${key} stays`);
  t.is(await store.removeAllOutputs('p1'), 0, 'nothing stored is nothing to remove');
  t.is(await store.removeAllOutputs('never-ran'), 0);
});

test('removing the outputs of a prediction but the kept keys leaves those and removes every other file under it', async (t) => {
  const { root, store } = await storage(t);
  const file = { data: new Uint8Array([1]), contentType: 'image/png', extension: 'png' };
  const kept = [await store.save('p1', 0, file), await store.save('p1', 1, file)];
  // an earlier attempt's files under other names, and a save's temporary file
  await store.save('p1', 0, { ...file, extension: 'webp' });
  await store.save('p1', 2, file);
  await fs.writeFile(path.join(root, 'outputs', 'p1', '3.png.0a1b2c.tmp'), 'x');
  const neighbour = await store.save('p10', 0, file);

  t.is(await store.removeAllOutputs('p1', kept), 3);
  t.deepEqual((await fs.readdir(path.join(root, 'outputs', 'p1'))).sort(), ['0.png', '1.png']);
  t.true((await fs.stat(path.join(root, neighbour))).isFile());
  t.is(await store.removeAllOutputs('p1', kept), 0, 'only the kept keys are left');
  t.is(await store.removeAllOutputs('never-ran', kept), 0);
});

test('removing every output of a prediction refuses what is not a prediction id, and removes nothing', async (t) => {
  const { root, store } = await storage(t);
  const key = await store.save('p2', 0, { data: new Uint8Array([2]), contentType: 'image/png', extension: 'png' });
  for (const id of ['', '.', '..', '../p2', 'p1/../p2', 'p2/', 'a\\b', '/tmp', 'p2\u0000']) {
    await t.throwsAsync(store.removeAllOutputs(id), { message: /not a prediction id/ }, JSON.stringify(id));
  }
  t.true((await fs.stat(path.join(root, key))).isFile());
  t.true((await fs.stat(root)).isDirectory());
});

test('an upload key is one name under one upload\'s directory: dots inside the name are fine, `.` and `..` are no name', (t) => {
  const dir = 'uploads/0123456789abcdef0123456789abcdef';
  for (const name of ['cat.png', 'my..cat.png', 'a...b.png', '.hidden.png']) t.true(isUploadKey(`${dir}/${name}`), name);
  for (const key of [`${dir}/.`, `${dir}/..`, `${dir}/../x.png`, `${dir}/a/b.png`, 'uploads/../x.png', `${dir}/a\\b.png`, 'outputs/p1/0.png']) t.false(isUploadKey(key), key);
});

test('removing an upload takes its whole directory: a temporary file a PUT cut off by a crash left there goes too, and nothing beside it', async (t) => {
  const { root, store } = await storage(t);
  const key = 'uploads/0123456789abcdef0123456789abcdef/cat.png';
  const other = 'uploads/fedcba9876543210fedcba9876543210/dog.png';
  for (const k of [key, other]) {
    await fs.mkdir(path.dirname(path.join(root, k)), { recursive: true });
    await fs.writeFile(path.join(root, k), 'png');
  }
  await fs.writeFile(path.join(root, `${key}.a1b2c3d4e5f6.tmp`), 'half a png');
  await store.removeUpload(key);
  await t.throwsAsync(fs.stat(path.dirname(path.join(root, key))), { code: 'ENOENT' }, 'the upload\'s directory is gone');
  t.is(await fs.readFile(path.join(root, other), 'utf8'), 'png', 'another upload stays');
  await store.removeUpload(key);
  t.pass('an upload already gone is fine');
});
