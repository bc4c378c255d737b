// A local audio "model": a short deterministic melody as 16-bit mono PCM WAV, so audio endpoints
// can be exercised with no upstream. The prompt picks key, scale and tempo; the seed picks the tune.

import type { AdapterDefinition, AdapterResult, RunContext } from './types.ts';
import { hash32, mulberry32, numberInput, promptInput, seedInput, throwIfCancelled } from './procedural-image.ts';

const SAMPLE_RATE = 22_050;
const DEFAULT_DURATION_S = 5;
const MIN_DURATION_S = 1;
const MAX_DURATION_S = 30;
const PEAK = 0.8; // headroom below full scale so players' resamplers do not clip

/** Semitone offsets from the root; pentatonic and modal scales never sound "wrong" when random. */
const SCALES: readonly (readonly number[])[] = [
  [0, 2, 4, 7, 9], // major pentatonic
  [0, 3, 5, 7, 10], // minor pentatonic
  [0, 2, 3, 5, 7, 9, 10], // dorian
  [0, 2, 4, 5, 7, 9, 11], // major
];

interface Note {
  start: number; // seconds
  length: number; // seconds
  frequency: number; // Hz
  gain: number;
}

function midiToHz(note: number): number {
  return 440 * 2 ** ((note - 69) / 12);
}

function at<T>(items: readonly T[], index: number): T {
  const item = items[((index % items.length) + items.length) % items.length];
  if (item === undefined) throw new Error('index into an empty list');
  return item;
}

/** The score: a stepwise-wandering lead line over one bass note per bar. */
function compose(prompt: string, seed: number, duration: number): Note[] {
  const style = mulberry32(hash32(`style:${prompt}`));
  const scale = at(SCALES, Math.floor(style() * SCALES.length));
  const root = 57 + Math.floor(style() * 12); // A3..G#4
  const beat = 60 / (84 + Math.floor(style() * 60)); // 84..143 BPM

  const rnd = mulberry32(hash32(`melody:${seed}:${prompt}`));
  const notes: Note[] = [];
  let degree = 0;
  for (let t = 0; t < duration; ) {
    // Small steps mostly, an occasional leap: what makes a random walk sound like a tune.
    degree += rnd() < 0.8 ? Math.floor(rnd() * 5) - 2 : Math.floor(rnd() * 9) - 4;
    degree = Math.max(-scale.length, Math.min(scale.length * 2, degree));
    const octave = Math.floor(degree / scale.length);
    const pitch = root + 12 * octave + at(scale, degree);
    const length = beat * at([0.5, 1, 1, 1, 2], Math.floor(rnd() * 5));
    if (rnd() > 0.1) notes.push({ start: t, length, frequency: midiToHz(pitch), gain: 0.5 + rnd() * 0.2 });
    t += length;
  }
  for (let bar = 0, t = 0; t < duration; bar++, t = bar * beat * 4) {
    const bassDegree = at([0, 3, 4, 0, 5, 3, 4, 4], Math.floor(rnd() * 8));
    notes.push({ start: t, length: beat * 4, frequency: midiToHz(root - 24 + at(scale, bassDegree)), gain: 0.35 });
  }
  return notes;
}

/** Additive synthesis with a percussive envelope: a soft plucked-string timbre, cheap to compute. */
function render(notes: Note[], duration: number): Float32Array {
  const out = new Float32Array(Math.round(duration * SAMPLE_RATE));
  for (const note of notes) {
    const first = Math.round(note.start * SAMPLE_RATE);
    const last = Math.min(out.length, first + Math.round(note.length * SAMPLE_RATE));
    const w = (2 * Math.PI * note.frequency) / SAMPLE_RATE;
    for (let i = first; i < last; i++) {
      const n = i - first;
      const attack = Math.min(1, n / (0.01 * SAMPLE_RATE));
      const release = Math.min(1, (last - i) / (0.02 * SAMPLE_RATE)); // no click at note end
      const env = attack * release * Math.exp((-3 * n) / SAMPLE_RATE);
      const tone = Math.sin(w * n) + 0.4 * Math.sin(2 * w * n) + 0.15 * Math.sin(3 * w * n);
      out[i] = out[i]! + note.gain * env * tone;
    }
  }
  let peak = 0;
  for (const s of out) peak = Math.max(peak, Math.abs(s));
  if (peak > 0) for (let i = 0; i < out.length; i++) out[i] = (out[i]! / peak) * PEAK;
  return out;
}

/** RIFF/WAVE with one `fmt ` (PCM, format 1) and one `data` chunk: the canonical 44-byte header. */
export function encodeWav(samples: Float32Array, sampleRate: number): Uint8Array {
  const bytesPerSample = 2;
  const dataSize = samples.length * bytesPerSample;
  const buf = Buffer.alloc(44 + dataSize);
  buf.write('RIFF', 0, 'ascii');
  buf.writeUInt32LE(36 + dataSize, 4);
  buf.write('WAVE', 8, 'ascii');
  buf.write('fmt ', 12, 'ascii');
  buf.writeUInt32LE(16, 16); // fmt chunk size for PCM
  buf.writeUInt16LE(1, 20); // audio format: PCM
  buf.writeUInt16LE(1, 22); // channels: mono
  buf.writeUInt32LE(sampleRate, 24);
  buf.writeUInt32LE(sampleRate * bytesPerSample, 28); // byte rate
  buf.writeUInt16LE(bytesPerSample, 32); // block align
  buf.writeUInt16LE(16, 34); // bits per sample
  buf.write('data', 36, 'ascii');
  buf.writeUInt32LE(dataSize, 40);
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i]!));
    buf.writeInt16LE(Math.round(s * 32767), 44 + i * bytesPerSample);
  }
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

async function run(input: Record<string, unknown>, ctx: RunContext): Promise<AdapterResult> {
  throwIfCancelled(ctx.signal);
  const started = performance.now();
  const prompt = promptInput(input);
  const seed = seedInput(input, prompt);
  const duration = numberInput(input, 'duration', DEFAULT_DURATION_S, MIN_DURATION_S, MAX_DURATION_S);
  const samples = render(compose(prompt, seed, duration), duration);
  // Rendering 30 s takes tens of milliseconds; one check before handing back is enough.
  throwIfCancelled(ctx.signal);
  return {
    files: [{ data: encodeWav(samples, SAMPLE_RATE), contentType: 'audio/wav', extension: 'wav' }],
    inferenceMs: Math.round(performance.now() - started),
    report: { metadata: { seed, duration: samples.length / SAMPLE_RATE } },
  };
}

export const proceduralAudio: AdapterDefinition = {
  kind: 'local',
  media: 'audio',
  description: 'Deterministic procedural melody (16-bit mono WAV, 22.05 kHz) from prompt or text and seed.',
  create: () => ({ run }),
};
