// A small 3D viewer for model3d outputs: binary glTF (GLB) or Wavefront OBJ, drawn as flat-shaded
// triangles on a 2D canvas (painter's algorithm). No WebGL library is vendored for it: the
// gateway's meshes are a few thousand triangles, which a canvas draws in a frame. Drag or use the
// arrow keys to turn the model; the download link stays under it.
import { html, useEffect, useRef, useState } from '/dashboard/vendor/preact-htm.js';

const MAX_TRIANGLES = 60_000;
const COMPONENTS = { 5120: Int8Array, 5121: Uint8Array, 5122: Int16Array, 5123: Uint16Array, 5125: Uint32Array, 5126: Float32Array };

/** Positions (xyz per vertex) and triangle indices from a GLB: every triangle primitive of every mesh (node transforms ignored). */
export function parseGlb(buffer) {
  const view = new DataView(buffer);
  if (view.getUint32(0, true) !== 0x46546c67) throw new Error('not a binary glTF file');
  let offset = 12;
  let json = null;
  let bin = null;
  while (offset + 8 <= buffer.byteLength) {
    const length = view.getUint32(offset, true);
    const type = view.getUint32(offset + 4, true);
    const start = offset + 8;
    if (type === 0x4e4f534a) json = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, start, length)));
    else if (type === 0x004e4942) bin = buffer.slice(start, start + length);
    offset = start + length;
  }
  if (!json || !bin) throw new Error('the glTF file has no mesh data');
  const accessor = (i) => {
    const a = json.accessors[i];
    const bv = json.bufferViews[a.bufferView];
    const Type = COMPONENTS[a.componentType];
    const width = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4 }[a.type] ?? 1;
    const stride = bv.byteStride ? bv.byteStride / Type.BYTES_PER_ELEMENT : width;
    const data = new Type(bin, (bv.byteOffset ?? 0) + (a.byteOffset ?? 0), (a.count - 1) * stride + width);
    const out = new Array(a.count * width);
    for (let k = 0; k < a.count; k++) for (let c = 0; c < width; c++) out[k * width + c] = data[k * stride + c];
    return out;
  };
  const positions = [];
  const indices = [];
  for (const mesh of json.meshes ?? []) {
    for (const prim of mesh.primitives ?? []) {
      if ((prim.mode ?? 4) !== 4 || prim.attributes?.POSITION === undefined) continue;
      const base = positions.length / 3;
      const pos = accessor(prim.attributes.POSITION);
      positions.push(...pos);
      const idx = prim.indices === undefined ? pos.map((_, k) => k).filter((k) => k < pos.length / 3) : accessor(prim.indices);
      for (const i of idx) indices.push(base + i);
      if (indices.length / 3 > MAX_TRIANGLES) return { positions, indices: indices.slice(0, MAX_TRIANGLES * 3) };
    }
  }
  if (indices.length === 0) throw new Error('the glTF file has no triangles');
  return { positions, indices };
}

/** Positions and triangle indices from OBJ text (`v` and `f` lines; polygons fanned into triangles). */
export function parseObj(text) {
  const positions = [];
  const indices = [];
  for (const line of text.split('\n')) {
    const parts = line.trim().split(/\s+/);
    if (parts[0] === 'v') positions.push(Number(parts[1]), Number(parts[2]), Number(parts[3]));
    else if (parts[0] === 'f') {
      const count = positions.length / 3;
      const vs = parts.slice(1).map((p) => { const n = Number(p.split('/')[0]); return n < 0 ? count + n : n - 1; });
      for (let k = 1; k + 1 < vs.length; k++) indices.push(vs[0], vs[k], vs[k + 1]);
    }
    if (indices.length / 3 > MAX_TRIANGLES) break;
  }
  if (indices.length === 0) throw new Error('the OBJ file has no faces');
  return { positions, indices };
}

/** Centres and scales the mesh into the unit sphere. */
function normalise({ positions, indices }) {
  const n = positions.length / 3;
  const c = [0, 0, 0];
  for (let i = 0; i < n; i++) for (let a = 0; a < 3; a++) c[a] += positions[i * 3 + a] / n;
  let r = 0;
  for (let i = 0; i < n; i++) r = Math.max(r, Math.hypot(positions[i * 3] - c[0], positions[i * 3 + 1] - c[1], positions[i * 3 + 2] - c[2]));
  const s = r > 0 ? 1 / r : 1;
  return { positions: positions.map((v, i) => (v - c[i % 3]) * s), indices };
}

/** Draws the mesh turned by (yaw, pitch): back faces culled, far triangles first, shaded by a light from the viewer. */
export function draw(canvas, mesh, yaw, pitch) {
  const ctx = canvas.getContext('2d');
  const { width: w, height: h } = canvas;
  ctx.clearRect(0, 0, w, h);
  const [cy, sy, cp, sp] = [Math.cos(yaw), Math.sin(yaw), Math.cos(pitch), Math.sin(pitch)];
  const p = mesh.positions;
  const n = p.length / 3;
  const t = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) {
    const x = p[i * 3] * cy + p[i * 3 + 2] * sy;
    const z0 = -p[i * 3] * sy + p[i * 3 + 2] * cy;
    const y = p[i * 3 + 1] * cp - z0 * sp;
    t[i * 3] = x; t[i * 3 + 1] = y; t[i * 3 + 2] = p[i * 3 + 1] * sp + z0 * cp;
  }
  const scale = Math.min(w, h) * 0.42;
  const tris = [];
  const idx = mesh.indices;
  for (let k = 0; k < idx.length; k += 3) {
    const [a, b, c] = [idx[k] * 3, idx[k + 1] * 3, idx[k + 2] * 3];
    const ux = t[b] - t[a], uy = t[b + 1] - t[a + 1], uz = t[b + 2] - t[a + 2];
    const vx = t[c] - t[a], vy = t[c + 1] - t[a + 1], vz = t[c + 2] - t[a + 2];
    const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    const len = Math.hypot(nx, ny, nz) || 1;
    if (nz / len <= 0) continue; // facing away (counter-clockwise front faces, viewer on +z)
    tris.push([(t[a + 2] + t[b + 2] + t[c + 2]) / 3, a, b, c, nz / len]);
  }
  tris.sort((m, q) => m[0] - q[0]);
  for (const [, a, b, c, light] of tris) {
    const shade = Math.round(60 + 170 * light);
    ctx.fillStyle = ctx.strokeStyle = `rgb(${shade},${shade},${Math.min(255, shade + 20)})`;
    ctx.beginPath();
    ctx.moveTo(w / 2 + t[a] * scale, h / 2 - t[a + 1] * scale);
    ctx.lineTo(w / 2 + t[b] * scale, h / 2 - t[b + 1] * scale);
    ctx.lineTo(w / 2 + t[c] * scale, h / 2 - t[c + 1] * scale);
    ctx.closePath();
    ctx.fill();
    ctx.stroke();
  }
  return tris.length;
}

export function Viewer3d({ url }) {
  const canvas = useRef(null);
  const [mesh, setMesh] = useState(null);
  const [problem, setProblem] = useState('');
  const [angle, setAngle] = useState({ yaw: 0.6, pitch: 0.35 });
  useEffect(() => {
    let live = true;
    fetch(url)
      .then(async (r) => {
        if (!r.ok) throw new Error(`the file answered ${r.status}`);
        const buf = await r.arrayBuffer();
        const head = new Uint8Array(buf, 0, Math.min(4, buf.byteLength));
        const glb = head.length === 4 && String.fromCharCode(...head) === 'glTF';
        return normalise(glb ? parseGlb(buf) : parseObj(new TextDecoder().decode(buf)));
      })
      .then((m) => { if (live) setMesh(m); }, (err) => { if (live) setProblem(`The 3D model could not be shown (${err.message}); download it instead.`); });
    return () => { live = false; };
  }, [url]);
  useEffect(() => {
    if (mesh && canvas.current) canvas.current.dataset.triangles = String(draw(canvas.current, mesh, angle.yaw, angle.pitch));
  }, [mesh, angle]);
  const turn = (dy, dp) => setAngle((a) => ({ yaw: a.yaw + dy, pitch: Math.max(-1.5, Math.min(1.5, a.pitch + dp)) }));
  const onKey = (e) => {
    const step = { ArrowLeft: [-0.15, 0], ArrowRight: [0.15, 0], ArrowUp: [0, -0.15], ArrowDown: [0, 0.15] }[e.key];
    if (step) { e.preventDefault(); turn(...step); }
  };
  const onPointerMove = (e) => { if (e.buttons === 1) turn(e.movementX * 0.01, e.movementY * 0.01); };
  return html`<figure class="viewer3d">
    ${problem ? html`<p>${problem}</p>` : html`<canvas ref=${canvas} width="360" height="360" tabindex="0" role="img"
      aria-label="3D model preview: drag or use the arrow keys to turn it" onKeyDown=${onKey} onPointerMove=${onPointerMove}></canvas>`}
    <figcaption>${mesh ? 'Drag or use the arrow keys to turn it. ' : problem ? '' : 'Loading the 3D model… '}<a href=${url} download>Download the 3D model</a></figcaption>
  </figure>`;
}
