import test from 'ava';
import { proceduralMesh } from '../../../workers/adapters/procedural-mesh.ts';
import { AdapterError } from '../../../workers/adapters/types.ts';
import type { RunContext } from '../../../workers/adapters/types.ts';

const adapter = proceduralMesh.create({ upstreams: new Map() });

function context(signal: AbortSignal = new AbortController().signal): RunContext {
  return { signal, predictionId: 'p-1', model: { operationId: 'procedural_mesh', category: 'text-to-3d' } };
}

interface Gltf {
  asset: { version: string };
  buffers: { byteLength: number }[];
  bufferViews: { buffer: number; byteOffset?: number; byteLength: number }[];
  accessors: { bufferView: number; componentType: number; count: number; type: string; min?: number[]; max?: number[] }[];
  meshes: { primitives: { attributes: Record<string, number>; indices: number }[] }[];
}

function parseGlb(bytes: Uint8Array): { gltf: Gltf; bin: Buffer } {
  const b = Buffer.from(bytes);
  const jsonLength = b.readUInt32LE(12);
  const binStart = 20 + jsonLength;
  const binLength = b.readUInt32LE(binStart);
  return {
    gltf: JSON.parse(b.toString('utf8', 20, 20 + jsonLength)) as Gltf,
    bin: b.subarray(binStart + 8, binStart + 8 + binLength),
  };
}

test('a GLB has the glTF magic, version 2 and its own length in the header', async (t) => {
  const { files } = await adapter.run({ prompt: 'a mossy rock' }, context());
  t.is(files[0]?.contentType, 'model/gltf-binary');
  t.is(files[0]?.extension, 'glb');
  const b = Buffer.from(files[0]!.data!);
  t.is(b.toString('ascii', 0, 4), 'glTF');
  t.is(b.readUInt32LE(4), 2);
  t.is(b.readUInt32LE(8), b.byteLength);
  t.is(b.byteLength % 4, 0);
});

test('the GLB chunks are typed, 4-byte aligned, and fill the file exactly', async (t) => {
  const b = Buffer.from((await adapter.run({ prompt: 'a mossy rock' }, context())).files[0]!.data!);
  const jsonLength = b.readUInt32LE(12);
  t.is(b.toString('ascii', 16, 20), 'JSON');
  t.is(jsonLength % 4, 0);
  const binStart = 20 + jsonLength;
  t.is(b.toString('ascii', binStart + 4, binStart + 8), 'BIN\0');
  const binLength = b.readUInt32LE(binStart);
  t.is(binLength % 4, 0);
  t.is(binStart + 8 + binLength, b.byteLength);
});

test('the GLB JSON is glTF 2.0 with POSITION bounds that match the data', async (t) => {
  const { gltf, bin } = parseGlb((await adapter.run({ prompt: 'a mossy rock', seed: 5 }, context())).files[0]!.data!);
  t.is(gltf.asset.version, '2.0');
  t.true(gltf.buffers[0]!.byteLength <= bin.byteLength);
  for (const view of gltf.bufferViews) t.true((view.byteOffset ?? 0) + view.byteLength <= gltf.buffers[0]!.byteLength);

  const primitive = gltf.meshes[0]!.primitives[0]!;
  const position = gltf.accessors[primitive.attributes.POSITION!]!;
  t.is(position.type, 'VEC3');
  t.is(position.componentType, 5126);
  const view = gltf.bufferViews[position.bufferView]!;
  t.is(view.byteLength, position.count * 12);
  const floats = new Float32Array(bin.buffer.slice(bin.byteOffset + (view.byteOffset ?? 0), bin.byteOffset + (view.byteOffset ?? 0) + view.byteLength));
  for (let axis = 0; axis < 3; axis++) {
    const values = Array.from({ length: position.count }, (_, i) => floats[i * 3 + axis]!);
    t.is(position.min?.[axis], Math.min(...values));
    t.is(position.max?.[axis], Math.max(...values));
  }

  const indices = gltf.accessors[primitive.indices]!;
  t.is(indices.type, 'SCALAR');
  t.is(indices.count % 3, 0);
});

test('the same prompt and seed give the same mesh, another seed another one', async (t) => {
  const a = await adapter.run({ prompt: 'a rock', seed: 1 }, context());
  const b = await adapter.run({ prompt: 'a rock', seed: 1 }, context());
  const c = await adapter.run({ prompt: 'a rock', seed: 2 }, context());
  t.deepEqual(a.files[0]!.data!, b.files[0]!.data!);
  t.notDeepEqual(a.files[0]!.data!, c.files[0]!.data!);
});

test('an OBJ has vertex and face lines whose indices point at existing vertices', async (t) => {
  const { files } = await adapter.run({ prompt: 'a mossy rock', format: 'obj' }, context());
  t.is(files[0]?.contentType, 'model/obj');
  t.is(files[0]?.extension, 'obj');
  const lines = Buffer.from(files[0]!.data!).toString('utf8').split('\n');
  const vertices = lines.filter((l) => /^v -?\d/.test(l));
  const faces = lines.filter((l) => l.startsWith('f '));
  t.true(vertices.length > 100);
  t.true(faces.length > 100);
  for (const face of faces) {
    const refs = face.slice(2).split(' ').map((ref) => Number(ref.split('/')[0]));
    t.is(refs.length, 3);
    t.true(refs.every((ref) => Number.isInteger(ref) && ref >= 1 && ref <= vertices.length));
  }
});

test('an unknown format is refused without retry', async (t) => {
  const error = await t.throwsAsync(adapter.run({ prompt: 'x', format: 'fbx' }, context()), { instanceOf: AdapterError });
  t.false(error?.retryable);
});

test('an aborted signal throws a non-retryable cancellation', async (t) => {
  const controller = new AbortController();
  controller.abort();
  const error = await t.throwsAsync(adapter.run({ prompt: 'x' }, context(controller.signal)), { instanceOf: AdapterError, message: 'cancelled' });
  t.false(error?.retryable);
});
