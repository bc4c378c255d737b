// The stored type of an output comes from its bytes and must match the model's declared kind.
import test from 'ava';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { identifyOutput } from '../../workers/run-model.ts';
import { AdapterError } from '../../workers/adapters/types.ts';
import type { AdapterFile, MediaKind } from '../../workers/adapters/types.ts';

const sample = (name: string) => readFileSync(new URL(`../../workers/sandbox/${name}`, import.meta.url));
const file = (data: Uint8Array | string, contentType = 'application/octet-stream', extension = 'bin'): AdapterFile => ({
  data: typeof data === 'string' ? Buffer.from(data) : data,
  contentType,
  extension,
});

test('binary outputs are typed by their magic numbers, whatever the adapter claims', async (t) => {
  const cases: [string, MediaKind, string, string][] = [
    ['sample.png', 'image', 'image/png', 'png'],
    ['sample.mp4', 'video', 'video/mp4', 'mp4'],
    ['sample.wav', 'audio', 'audio/wav', 'wav'],
    ['sample.glb', 'model3d', 'model/gltf-binary', 'glb'],
  ];
  for (const [name, kind, contentType, extension] of cases) {
    t.deepEqual(await identifyOutput(file(sample(name), 'text/html', 'html'), kind, 0), { contentType, extension }, name);
  }
});

test('a file of another kind than the model declares is refused, naming the output', async (t) => {
  const refused: [AdapterFile, MediaKind][] = [
    [file(sample('sample.png')), 'video'],
    [file(sample('sample.wav')), 'image'],
    [file(sample('sample.mp4')), 'audio'],
    [file(sample('sample.png')), 'text'],
    [file(sample('sample.png')), 'model3d'],
    [file('<html><script>alert(1)</script></html>', 'image/png', 'png'), 'image'],
    [file('<svg xmlns="http://www.w3.org/2000/svg"/>', 'image/png', 'png'), 'image'],
    [file('<html><body>not a mesh</body></html>'), 'model3d'],
    [file('{"not": "gltf"}'), 'model3d'],
    [file('plain words'), 'audio'],
    [file(Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x02])), 'text'],
  ];
  for (const [f, kind] of refused) {
    const error = await t.throwsAsync(identifyOutput(f, kind, 2), { instanceOf: AdapterError });
    t.false(error?.retryable);
    t.is(error?.code, 'output_rejected');
    t.regex(error?.message ?? '', /^output 3 is not /);
  }
});

test('text kinds have explicit rules: UTF-8 text or JSON for text, OBJ or glTF JSON for 3D', async (t) => {
  t.deepEqual(await identifyOutput(file('Once upon a time.'), 'text', 0), { contentType: 'text/plain', extension: 'txt' });
  t.deepEqual(await identifyOutput(file('<b>markup is only text here</b>'), 'text', 0), { contentType: 'text/plain', extension: 'txt' });
  t.deepEqual(await identifyOutput(file('{"answer": 42}'), 'text', 0), { contentType: 'application/json', extension: 'json' });
  t.deepEqual(await identifyOutput(file('# a triangle\no tri\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n'), 'model3d', 0), { contentType: 'model/obj', extension: 'obj' });
  t.deepEqual(await identifyOutput(file('{"asset": {"version": "2.0"}, "meshes": []}'), 'model3d', 0), { contentType: 'model/gltf+json', extension: 'gltf' });
});

test('a downloaded (on-disk) file is typed from its bytes too', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'output-type-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  const png = path.join(dir, 'a.part');
  await fs.writeFile(png, sample('sample.png'));
  t.deepEqual(await identifyOutput({ path: png, contentType: 'text/html', extension: 'html' }, 'image', 0), { contentType: 'image/png', extension: 'png' });
  const html = path.join(dir, 'b.part');
  await fs.writeFile(html, '<!doctype html><p>hi</p>');
  await t.throwsAsync(identifyOutput({ path: html, contentType: 'image/png', extension: 'png' }, 'image', 0), { message: /markup/ });
});

test('an empty output is no output, whatever the declared kind: refused as an empty result', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'output-type-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  const empty = path.join(dir, 'empty.part');
  await fs.writeFile(empty, '');
  for (const kind of ['image', 'video', 'audio', 'model3d', 'text'] as const) {
    for (const f of [file(''), { path: empty, contentType: 'text/plain', extension: 'txt' }] as AdapterFile[]) {
      const error = await t.throwsAsync(identifyOutput(f, kind, 0), { instanceOf: AdapterError }, kind);
      t.false(error?.retryable);
      t.is(error?.code, 'empty_result');
      t.is(error?.message, 'output 1 is empty; it was not stored');
    }
  }
});
