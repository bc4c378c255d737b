// A local image "model": a deterministic procedural picture, so the gateway can be run end to end
// (queue, storage, webhooks, billing) with no GPU and no upstream account.
//
// Same (prompt, seed) -> same bytes. The palette comes from the prompt alone, so one prompt keeps
// its colours across seeds while the composition changes. `num_inference_steps` adds one detail
// pass per step (noise octave + blur), so CPU cost grows with it like a real diffusion model's.

import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import zlib from 'node:zlib';
import { PNG } from 'pngjs';
import { AdapterError } from './types.ts';
import type { AdapterDefinition, AdapterFile, AdapterResult, RunContext } from './types.ts';

// ---- helpers shared by the procedural adapters (audio and mesh import them from here) so that
// ---- a prompt and a seed are read, hashed and clamped the same way for every medium.

/** FNV-1a, 32 bit: a stable, dependency-free string hash to seed the PRNG from. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: tiny, fast and good enough for pictures and melodies; returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A number input, clamped. The spec validates inputs before they reach an adapter; clamping
 * again keeps a local adapter from being asked for a 100k-pixel image by a lax spec entry.
 */
export function numberInput(input: Record<string, unknown>, key: string, fallback: number, min: number, max: number): number {
  const value = input[key];
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, value));
}

export function intInput(input: Record<string, unknown>, key: string, fallback: number, min: number, max: number): number {
  return Math.round(numberInput(input, key, fallback, min, max));
}

/** The text that drives generation: `prompt`, else `text` (text-to-speech style inputs). */
export function promptInput(input: Record<string, unknown>): string {
  if (typeof input.prompt === 'string') return input.prompt;
  if (typeof input.text === 'string') return input.text;
  return '';
}

/** `seed` as an unsigned 32-bit integer; absent -> derived from the prompt so output stays deterministic. */
export function seedInput(input: Record<string, unknown>, prompt: string): number {
  const seed = input.seed;
  if (typeof seed === 'number' && Number.isFinite(seed)) return Math.trunc(seed) >>> 0;
  return hash32(`seed:${prompt}`);
}

export function throwIfCancelled(signal: AbortSignal): void {
  if (signal.aborted) throw new AdapterError('cancelled', false);
}

// ---- the image itself

const DEFAULT_SIZE = 512;
const MIN_SIZE = 64;
const MAX_SIZE = 2048;
const DEFAULT_STEPS = 4;
const MAX_STEPS = 50;
const MAX_IMAGES = 4;

type Rgb = [number, number, number];

function hslToRgb(h: number, s: number, l: number): Rgb {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
  return [f(0), f(8), f(4)];
}

/** Four colours from the prompt: a base hue with an analogous and a complementary partner. */
function paletteFor(prompt: string): Rgb[] {
  const rnd = mulberry32(hash32(`palette:${prompt}`));
  const hue = rnd() * 360;
  const sat = 0.45 + rnd() * 0.45;
  return [
    hslToRgb(hue, sat, 0.18 + rnd() * 0.15),
    hslToRgb((hue + 30 + rnd() * 30) % 360, sat, 0.45 + rnd() * 0.2),
    hslToRgb((hue + 180) % 360, sat * 0.9, 0.55 + rnd() * 0.2),
    hslToRgb((hue + 320) % 360, sat, 0.75 + rnd() * 0.15),
  ];
}

/** Planar float channels; cheaper to blur than interleaved bytes. */
interface Canvas {
  width: number;
  height: number;
  channels: [Float32Array, Float32Array, Float32Array];
}

function pick<T>(items: readonly T[], rnd: () => number): T {
  const item = items[Math.floor(rnd() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

function paintGradient(canvas: Canvas, from: Rgb, to: Rgb, rnd: () => number): void {
  const { width, height, channels } = canvas;
  const angle = rnd() * Math.PI * 2;
  const dx = Math.cos(angle) / width;
  const dy = Math.sin(angle) / height;
  const offset = Math.min(0, dx * width) + Math.min(0, dy * height);
  const span = Math.abs(dx * width) + Math.abs(dy * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const t = (x * dx + y * dy - offset) / span;
      const i = y * width + x;
      channels[0][i] = from[0] + (to[0] - from[0]) * t;
      channels[1][i] = from[1] + (to[1] - from[1]) * t;
      channels[2][i] = from[2] + (to[2] - from[2]) * t;
    }
  }
}

/** Soft-edged discs blended over the gradient: the "subject" of the picture. */
function paintDiscs(canvas: Canvas, palette: Rgb[], rnd: () => number): void {
  const { width, height, channels } = canvas;
  const count = 5 + Math.floor(rnd() * 8);
  for (let n = 0; n < count; n++) {
    const color = pick(palette, rnd);
    const cx = rnd() * width;
    const cy = rnd() * height;
    const radius = (0.05 + rnd() * 0.25) * Math.min(width, height);
    const opacity = 0.35 + rnd() * 0.5;
    const x0 = Math.max(0, Math.floor(cx - radius));
    const x1 = Math.min(width - 1, Math.ceil(cx + radius));
    const y0 = Math.max(0, Math.floor(cy - radius));
    const y1 = Math.min(height - 1, Math.ceil(cy + radius));
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const d = Math.sqrt((x - cx) * (x - cx) + (y - cy) * (y - cy)) / radius;
        if (d >= 1) continue;
        const a = opacity * (1 - d * d);
        const i = y * width + x;
        channels[0][i] = channels[0][i]! + (color[0] - channels[0][i]!) * a;
        channels[1][i] = channels[1][i]! + (color[1] - channels[1][i]!) * a;
        channels[2][i] = channels[2][i]! + (color[2] - channels[2][i]!) * a;
      }
    }
  }
}

/** Eases interpolation so the noise lattice does not show as a grid of creases. */
function smoothstep(t: number): number {
  return t * t * (3 - 2 * t);
}

/** One octave of bilinear value noise, added as a brightness ripple. */
function addNoiseOctave(canvas: Canvas, cells: number, amplitude: number, rnd: () => number): void {
  const { width, height, channels } = canvas;
  const grid = new Float32Array((cells + 1) * (cells + 1));
  for (let i = 0; i < grid.length; i++) grid[i] = rnd() * 2 - 1;
  const sx = cells / width;
  const sy = cells / height;
  // A column's lattice cell and weight are the same on every row: computed once per column.
  const cellOf = new Int32Array(width);
  const weightOf = new Float64Array(width);
  for (let x = 0; x < width; x++) {
    const gx = x * sx;
    const ix = Math.floor(gx);
    cellOf[x] = ix;
    weightOf[x] = smoothstep(gx - ix);
  }
  const [red, green, blue] = channels;
  for (let y = 0; y < height; y++) {
    const gy = y * sy;
    const iy = Math.floor(gy);
    const fy = smoothstep(gy - iy);
    const row0 = iy * (cells + 1);
    const row1 = row0 + cells + 1;
    for (let x = 0; x < width; x++) {
      const ix = cellOf[x]!;
      const fx = weightOf[x]!;
      const top = grid[row0 + ix]! + (grid[row0 + ix + 1]! - grid[row0 + ix]!) * fx;
      const bottom = grid[row1 + ix]! + (grid[row1 + ix + 1]! - grid[row1 + ix]!) * fx;
      const v = (top + (bottom - top) * fy) * amplitude;
      const i = y * width + x;
      red[i] = red[i]! + v;
      green[i] = green[i]! + v;
      blue[i] = blue[i]! + v;
    }
  }
}

/** Separable 3-tap box blur with clamped edges; `scratch` avoids an allocation per pass. */
function blur(canvas: Canvas, scratch: Float32Array): void {
  const { width, height } = canvas;
  const last = width - 1;
  for (const ch of canvas.channels) {
    for (let y = 0; y < height; y++) {
      const row = y * width;
      // the edge pixels repeat themselves as their missing neighbour
      scratch[row] = (ch[row]! + ch[row]! + ch[row + Math.min(1, last)]!) / 3;
      for (let x = 1; x < last; x++) {
        scratch[row + x] = (ch[row + x - 1]! + ch[row + x]! + ch[row + x + 1]!) / 3;
      }
      if (last > 0) scratch[row + last] = (ch[row + last - 1]! + ch[row + last]! + ch[row + last]!) / 3;
    }
    for (let y = 0; y < height; y++) {
      const up = Math.max(0, y - 1) * width;
      const row = y * width;
      const down = Math.min(height - 1, y + 1) * width;
      for (let x = 0; x < width; x++) {
        ch[row + x] = (scratch[up + x]! + scratch[row + x]! + scratch[down + x]!) / 3;
      }
    }
  }
}

/**
 * Images whose scanlines take at most this many bytes are stored uncompressed (deflate level 0,
 * filter None): the whole PNG stays under ~64 KiB, where deflating would cost more CPU than the
 * bytes it saves are worth (at 64x64: ~80 us against ~290 us, 12.4 KB against 4.6 KB). Larger
 * images are compressed.
 */
const STORED_MAX_BYTES = 64 * 1024;

function encodePng(canvas: Canvas): Uint8Array {
  const { width, height } = canvas;
  const [red, green, blue] = canvas.channels;
  // RGB bytes in the output's own layout: pngjs then packs them as they are (bitpacker's fast
  // route), where RGBA input was converted pixel by pixel through an object per pixel.
  const data = Buffer.allocUnsafe(width * height * 3);
  // A clamped view rounds and clamps on store: the same bytes as Math.round(clamp01(v) * 255),
  // because v * 255 is exact for a float32 v and its only possible tie, 127.5, rounds up both ways.
  const bytes = new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength);
  for (let i = 0, o = 0; i < width * height; i++, o += 3) {
    bytes[o] = red[i]! * 255;
    bytes[o + 1] = green[i]! * 255;
    bytes[o + 2] = blue[i]! * 255;
  }
  // The sync packer reads only width, height, data and gamma (pngjs lib/packer-sync.js): a
  // `new PNG()` (a duplex stream with its own parser and packer) cost more than the encoding.
  const image = { width, height, data, gamma: 0 } as Pick<PNG, 'width' | 'height' | 'data' | 'gamma'>;
  // RGB output (no alpha) and a single filter: adaptive filtering tries all five per row and
  // would double the encoding time for a few percent of file size. Huffman coding alone (no
  // string matching) after the Paeth filter: measured within 1 % of pngjs's default (run-length)
  // size from 64x64 to 1024x1024, and 25-35 % less deflate time.
  const stored = (width * 3 + 1) * height <= STORED_MAX_BYTES;
  const buffer = PNG.sync.write(image as PNG, {
    colorType: 2, inputColorType: 2, inputHasAlpha: false,
    ...(stored ? { filterType: 0, deflateLevel: 0 } : { filterType: 4, deflateStrategy: zlib.constants.Z_HUFFMAN_ONLY }),
  });
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

interface ImageParams {
  prompt: string;
  seed: number;
  width: number;
  height: number;
  steps: number;
}

async function renderImage(params: ImageParams, signal: AbortSignal, onStep: (done: number) => void = () => {}): Promise<AdapterFile> {
  const { width, height, steps } = params;
  const rnd = mulberry32(hash32(`image:${params.seed}:${params.prompt}`));
  const palette = paletteFor(params.prompt);
  const pixels = width * height;
  const canvas: Canvas = {
    width,
    height,
    channels: [new Float32Array(pixels), new Float32Array(pixels), new Float32Array(pixels)],
  };
  const scratch = new Float32Array(pixels);

  paintGradient(canvas, pick(palette, rnd), pick(palette, rnd), rnd);
  paintDiscs(canvas, palette, rnd);
  for (let step = 0; step < steps; step++) {
    // Yield so a cancellation delivered by the event loop (shutdown, AMQP cancel) is seen mid-run.
    await yieldToEventLoop();
    throwIfCancelled(signal);
    // Coarse to fine, then back: octaves cycle so 50 steps stay a picture rather than static.
    const cells = 2 ** (2 + (step % 5));
    addNoiseOctave(canvas, cells, 0.12 / (1 + (step % 5)), rnd);
    blur(canvas, scratch);
    onStep(step + 1);
  }
  throwIfCancelled(signal);
  return { data: encodePng(canvas), contentType: 'image/png', extension: 'png' };
}

async function run(input: Record<string, unknown>, ctx: RunContext): Promise<AdapterResult> {
  throwIfCancelled(ctx.signal);
  const started = performance.now();
  const prompt = promptInput(input);
  const seed = seedInput(input, prompt);
  const width = intInput(input, 'width', DEFAULT_SIZE, MIN_SIZE, MAX_SIZE);
  const height = intInput(input, 'height', DEFAULT_SIZE, MIN_SIZE, MAX_SIZE);
  const steps = intInput(input, 'num_inference_steps', DEFAULT_STEPS, 1, MAX_STEPS);
  const count = intInput(input, 'num_images', 1, 1, MAX_IMAGES);

  const files: AdapterFile[] = [];
  // Progress is the share of all steps of all images done; the worker throttles what it writes.
  const report = ctx.report ?? (() => {});
  for (let i = 0; i < count; i++) {
    const imageStarted = performance.now();
    report({ logs: [{ message: `image ${i + 1}/${count}: ${width}x${height}, ${steps} steps, seed ${(seed + i) >>> 0}` }] });
    // Image i uses seed + i, as diffusion APIs do, so a batch can be reproduced one image at a time.
    files.push(await renderImage({ prompt, seed: (seed + i) >>> 0, width, height, steps }, ctx.signal, (done) => report({ progress: (i * steps + done) / (count * steps) })));
    report({ logs: [{ message: `image ${i + 1}/${count} done in ${Math.round(performance.now() - imageStarted)} ms` }] });
  }
  // the seed it drew (a request without one gets one from its prompt) and the size, to reproduce the first image
  return { files, inferenceMs: Math.round(performance.now() - started), report: { metadata: { seed, width, height } } };
}

export const proceduralImage: AdapterDefinition = {
  kind: 'local',
  media: 'image',
  description: 'Deterministic procedural PNG (gradient, discs, noise) from prompt and seed; runs on the CPU with no model weights.',
  create: () => ({ run }),
};
