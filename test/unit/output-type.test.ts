// The stored type of an output comes from its bytes and must match the model's declared kind.
import test from 'ava';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { identifyOutput } from '../../workers/output-type.ts';
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

// isPlainPng answers for file-type on the local image adapter's outputs; it must never say PNG where
// file-type says anything else (an upgrade of file-type that changes its PNG answers fails here).
function chunk(type: string, data: Uint8Array | number): Uint8Array {
  const body = typeof data === 'number' ? new Uint8Array(data) : data;
  const out = new Uint8Array(12 + body.byteLength);
  new DataView(out.buffer).setUint32(0, body.byteLength);
  out.set(Buffer.from(type, 'latin1'), 4);
  out.set(body, 8);
  return out;
}
const SIGNATURE = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const png = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat([SIGNATURE, ...parts]));
const withLength = (c: Uint8Array, length: number) => {
  const copy = c.slice();
  new DataView(copy.buffer).setInt32(0, length);
  return copy;
};

test('a plain PNG is recognised without file-type, and only where file-type says image/png too', async (t) => {
  const { fileTypeFromBuffer } = await import('file-type');
  const { isPlainPng } = await import('../../workers/output-type.ts');
  const { adapterRegistry } = await import('../../workers/adapters/index.ts');
  const adapter = adapterRegistry['procedural-image']!.create({} as never);
  const made = await adapter.run({ prompt: 'a lighthouse at dusk', width: 64, height: 64, num_inference_steps: 1 }, { signal: new AbortController().signal, predictionId: 'p', tempDir: os.tmpdir(), model: {} as never });
  const ihdr = chunk('IHDR', 13);
  const cases: Array<[string, Uint8Array, boolean]> = [
    ['the image adapter\'s output', made.files[0]!.data!, true],
    ['the sandbox sample', new Uint8Array(sample('sample.png')), true],
    ['IHDR, text, IDAT', png(ihdr, chunk('tEXt', 20), chunk('IDAT', 5), chunk('IEND', 0)), true],
    ['CgBI before IHDR', png(chunk('CgBI', 4), ihdr, chunk('IDAT', 5)), true],
    ['an APNG (acTL before IDAT)', png(ihdr, chunk('acTL', 8), chunk('IDAT', 5)), false],
    ['an IHDR of the wrong length', png(chunk('IHDR', 12), chunk('IDAT', 5)), false],
    ['a chunk before IHDR', png(chunk('tEXt', 3), ihdr, chunk('IDAT', 5)), false],
    ['a negative chunk length', png(ihdr, withLength(chunk('tEXt', 3), -5), chunk('IDAT', 5)), false],
    ['a chunk longer than the file', png(ihdr, withLength(chunk('tEXt', 3), 1000), chunk('IDAT', 5)), false],
    ['no IDAT', png(ihdr, chunk('IEND', 0)), false],
    ['the signature alone', png(), false],
    ['a cut header', png(ihdr, chunk('IDAT', 5)).subarray(0, 8 + 25 + 6), false],
    ['not a PNG', new Uint8Array(sample('sample.wav')), false],
  ];
  for (const [name, bytes, plain] of cases) {
    t.is(isPlainPng(bytes), plain, name);
    const detected = await fileTypeFromBuffer(bytes);
    if (plain) t.deepEqual(detected, { ext: 'png', mime: 'image/png' }, `${name}: file-type agrees`);
    t.deepEqual(await identifyOutput(file(bytes), 'image', 0).catch(() => null), detected?.mime.startsWith('image/') ? { contentType: detected.mime, extension: detected.ext } : null, `${name}: the stored type is file-type's`);
  }
});
