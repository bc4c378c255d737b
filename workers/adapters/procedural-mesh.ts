// A local 3D "model": a seeded, displaced icosphere as binary glTF 2.0 (GLB) or Wavefront OBJ, so
// model3d endpoints can be exercised with no upstream. The prompt picks the colour and the overall
// character of the bumps; the seed picks their directions.
//
// GLB layout follows glTF 2.0 §4.4 (binary glTF): 12-byte header, a JSON chunk padded with spaces
// and a BIN chunk padded with zeros, both to 4-byte boundaries.

import { AdapterError } from './types.ts';
import type { AdapterDefinition, AdapterFile, AdapterResult, RunContext } from './types.ts';
import { hash32, mulberry32, promptInput, seedInput, throwIfCancelled } from './procedural-image.ts';

const SUBDIVISIONS = 3; // 642 vertices, 1280 triangles: detailed enough to look like a rock

export interface Mesh {
  positions: Float32Array; // xyz per vertex
  normals: Float32Array; // xyz per vertex, unit length
  indices: Uint32Array; // three per triangle, counter-clockwise seen from outside
}

/** Unit icosphere: the icosahedron with each triangle split in four, `levels` times. */
function icosphere(levels: number): { points: number[][]; faces: number[][] } {
  const t = (1 + Math.sqrt(5)) / 2;
  const points: number[][] = [
    [-1, t, 0], [1, t, 0], [-1, -t, 0], [1, -t, 0],
    [0, -1, t], [0, 1, t], [0, -1, -t], [0, 1, -t],
    [t, 0, -1], [t, 0, 1], [-t, 0, -1], [-t, 0, 1],
  ].map(normalize);
  let faces: number[][] = [
    [0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11],
    [1, 5, 9], [5, 11, 4], [11, 10, 2], [10, 7, 6], [7, 1, 8],
    [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8], [3, 8, 9],
    [4, 9, 5], [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1],
  ];
  for (let level = 0; level < levels; level++) {
    // Shared edges must share their midpoint, or the sphere would tear into separate triangles.
    const midpoints = new Map<string, number>();
    const midpoint = (a: number, b: number): number => {
      const key = a < b ? `${a}:${b}` : `${b}:${a}`;
      let index = midpoints.get(key);
      if (index === undefined) {
        const pa = points[a]!;
        const pb = points[b]!;
        index = points.push(normalize([pa[0]! + pb[0]!, pa[1]! + pb[1]!, pa[2]! + pb[2]!])) - 1;
        midpoints.set(key, index);
      }
      return index;
    };
    faces = faces.flatMap(([a, b, c]) => {
      const ab = midpoint(a!, b!);
      const bc = midpoint(b!, c!);
      const ca = midpoint(c!, a!);
      return [[a!, ab, ca], [b!, bc, ab], [c!, ca, bc], [ab, bc, ca]];
    });
  }
  return { points, faces };
}

function normalize(v: number[]): number[] {
  const length = Math.hypot(v[0]!, v[1]!, v[2]!) || 1;
  return [v[0]! / length, v[1]! / length, v[2]! / length];
}

/** Area-weighted vertex normals: the cross product's length is twice the triangle's area. */
function vertexNormals(positions: Float32Array, indices: Uint32Array): Float32Array {
  const normals = new Float32Array(positions.length);
  const p = (i: number, axis: number) => positions[i * 3 + axis]!;
  for (let f = 0; f < indices.length; f += 3) {
    const a = indices[f]!;
    const b = indices[f + 1]!;
    const c = indices[f + 2]!;
    const u = [p(b, 0) - p(a, 0), p(b, 1) - p(a, 1), p(b, 2) - p(a, 2)];
    const v = [p(c, 0) - p(a, 0), p(c, 1) - p(a, 1), p(c, 2) - p(a, 2)];
    const n = [u[1]! * v[2]! - u[2]! * v[1]!, u[2]! * v[0]! - u[0]! * v[2]!, u[0]! * v[1]! - u[1]! * v[0]!];
    for (const vertex of [a, b, c]) {
      for (let axis = 0; axis < 3; axis++) normals[vertex * 3 + axis] = normals[vertex * 3 + axis]! + n[axis]!;
    }
  }
  for (let i = 0; i < normals.length; i += 3) {
    const n = normalize([normals[i]!, normals[i + 1]!, normals[i + 2]!]);
    normals.set(n, i);
  }
  return normals;
}

/** An icosphere pushed in and out by a few seeded sine waves along random directions. */
export function buildMesh(prompt: string, seed: number): Mesh {
  const style = mulberry32(hash32(`shape:${prompt}`));
  const roughness = 0.04 + style() * 0.1;
  const rnd = mulberry32(hash32(`mesh:${seed}:${prompt}`));
  const waves = Array.from({ length: 6 }, () => ({
    direction: normalize([rnd() * 2 - 1, rnd() * 2 - 1, rnd() * 2 - 1]),
    frequency: 1 + rnd() * 5,
    phase: rnd() * Math.PI * 2,
    amplitude: roughness * (0.4 + rnd()),
  }));

  const { points, faces } = icosphere(SUBDIVISIONS);
  const positions = new Float32Array(points.length * 3);
  points.forEach((point, i) => {
    let radius = 1;
    for (const w of waves) {
      const d = point[0]! * w.direction[0]! + point[1]! * w.direction[1]! + point[2]! * w.direction[2]!;
      radius += w.amplitude * Math.sin(w.frequency * d * Math.PI + w.phase);
    }
    positions.set([point[0]! * radius, point[1]! * radius, point[2]! * radius], i * 3);
  });
  const indices = Uint32Array.from(faces.flat());
  return { positions, normals: vertexNormals(positions, indices), indices };
}

function baseColor(prompt: string): [number, number, number, number] {
  const rnd = mulberry32(hash32(`color:${prompt}`));
  return [0.2 + rnd() * 0.7, 0.2 + rnd() * 0.7, 0.2 + rnd() * 0.7, 1];
}

function padTo4(length: number): number {
  return (length + 3) & ~3;
}

function bytesOf(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

export function encodeGlb(mesh: Mesh, color: readonly number[]): Uint8Array {
  const vertexCount = mesh.positions.length / 3;
  // 16-bit indices when they fit: smaller, and the only kind some older WebGL 1 viewers accept.
  const indices = vertexCount <= 0xffff ? Uint16Array.from(mesh.indices) : mesh.indices;
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < mesh.positions.length; i++) {
    const axis = i % 3;
    min[axis] = Math.min(min[axis]!, mesh.positions[i]!);
    max[axis] = Math.max(max[axis]!, mesh.positions[i]!);
  }

  // Float attributes first so every view starts on a 4-byte boundary (glTF §3.6.2.4).
  const parts = [bytesOf(mesh.positions), bytesOf(mesh.normals), bytesOf(indices)];
  const offsets: number[] = [];
  let binLength = 0;
  for (const part of parts) {
    offsets.push(binLength);
    binLength += padTo4(part.byteLength);
  }

  const gltf = {
    asset: { version: '2.0', generator: 'mediagate procedural-mesh' },
    scene: 0,
    scenes: [{ nodes: [0] }],
    nodes: [{ mesh: 0 }],
    meshes: [{ primitives: [{ attributes: { POSITION: 0, NORMAL: 1 }, indices: 2, material: 0, mode: 4 }] }],
    materials: [{ pbrMetallicRoughness: { baseColorFactor: color, metallicFactor: 0.1, roughnessFactor: 0.8 } }],
    buffers: [{ byteLength: binLength }],
    bufferViews: parts.map((part, i) => ({
      buffer: 0,
      byteOffset: offsets[i],
      byteLength: part.byteLength,
      target: i < 2 ? 34962 /* ARRAY_BUFFER */ : 34963 /* ELEMENT_ARRAY_BUFFER */,
    })),
    accessors: [
      // min/max come from the float32 values themselves, so they match what a validator reads back.
      { bufferView: 0, componentType: 5126, count: vertexCount, type: 'VEC3', min, max },
      { bufferView: 1, componentType: 5126, count: vertexCount, type: 'VEC3' },
      { bufferView: 2, componentType: indices instanceof Uint16Array ? 5123 : 5125, count: indices.length, type: 'SCALAR' },
    ],
  };
  const json = Buffer.from(JSON.stringify(gltf), 'utf8');
  const jsonLength = padTo4(json.byteLength);
  const total = 12 + 8 + jsonLength + 8 + binLength;

  const out = Buffer.alloc(total); // zero-filled: BIN padding is already correct
  out.writeUInt32LE(0x46546c67, 0); // "glTF"
  out.writeUInt32LE(2, 4);
  out.writeUInt32LE(total, 8);
  out.writeUInt32LE(jsonLength, 12);
  out.writeUInt32LE(0x4e4f534a, 16); // "JSON"
  json.copy(out, 20);
  out.fill(0x20, 20 + json.byteLength, 20 + jsonLength); // JSON padding must be spaces
  const binStart = 20 + jsonLength;
  out.writeUInt32LE(binLength, binStart);
  out.writeUInt32LE(0x004e4942, binStart + 4); // "BIN\0"
  parts.forEach((part, i) => out.set(part, binStart + 8 + offsets[i]!));
  return bytesOf(out);
}

export function encodeObj(mesh: Mesh): Uint8Array {
  const lines = ['# mediagate procedural-mesh', 'o mesh'];
  const { positions, normals, indices } = mesh;
  for (let i = 0; i < positions.length; i += 3) {
    lines.push(`v ${positions[i]!.toFixed(6)} ${positions[i + 1]!.toFixed(6)} ${positions[i + 2]!.toFixed(6)}`);
  }
  for (let i = 0; i < normals.length; i += 3) {
    lines.push(`vn ${normals[i]!.toFixed(6)} ${normals[i + 1]!.toFixed(6)} ${normals[i + 2]!.toFixed(6)}`);
  }
  // OBJ indices are 1-based; vertex i uses normal i.
  for (let f = 0; f < indices.length; f += 3) {
    const [a, b, c] = [indices[f]! + 1, indices[f + 1]! + 1, indices[f + 2]! + 1];
    lines.push(`f ${a}//${a} ${b}//${b} ${c}//${c}`);
  }
  return bytesOf(Buffer.from(`${lines.join('\n')}\n`, 'utf8'));
}

async function run(input: Record<string, unknown>, ctx: RunContext): Promise<AdapterResult> {
  throwIfCancelled(ctx.signal);
  const started = performance.now();
  const format = input.format ?? 'glb';
  if (format !== 'glb' && format !== 'obj') {
    throw new AdapterError(`format must be "glb" or "obj"`, false);
  }
  const prompt = promptInput(input);
  const mesh = buildMesh(prompt, seedInput(input, prompt));
  const file: AdapterFile =
    format === 'glb'
      ? { data: encodeGlb(mesh, baseColor(prompt)), contentType: 'model/gltf-binary', extension: 'glb' }
      : { data: encodeObj(mesh), contentType: 'model/obj', extension: 'obj' };
  throwIfCancelled(ctx.signal);
  return { files: [file], inferenceMs: Math.round(performance.now() - started) };
}

export const proceduralMesh: AdapterDefinition = {
  kind: 'local',
  media: 'model3d',
  description: 'Deterministic displaced icosphere from prompt and seed, as binary glTF 2.0 (glb) or Wavefront OBJ.',
  create: () => ({ run }),
};
