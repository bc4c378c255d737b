import test from 'ava';
import { proceduralAudio } from '../../../workers/adapters/procedural-audio.ts';
import { AdapterError } from '../../../workers/adapters/types.ts';
import type { RunContext } from '../../../workers/adapters/types.ts';

const adapter = proceduralAudio.create({ upstreams: new Map() });

function context(signal: AbortSignal = new AbortController().signal): RunContext {
  return { signal, predictionId: 'p-1', model: { operationId: 'procedural_audio', category: 'text-to-audio' } };
}

interface WavHeader {
  riff: string;
  riffSize: number;
  wave: string;
  fmt: string;
  fmtSize: number;
  format: number;
  channels: number;
  sampleRate: number;
  byteRate: number;
  blockAlign: number;
  bitsPerSample: number;
  data: string;
  dataSize: number;
}

function header(bytes: Uint8Array): WavHeader {
  const b = Buffer.from(bytes);
  return {
    riff: b.toString('ascii', 0, 4),
    riffSize: b.readUInt32LE(4),
    wave: b.toString('ascii', 8, 12),
    fmt: b.toString('ascii', 12, 16),
    fmtSize: b.readUInt32LE(16),
    format: b.readUInt16LE(20),
    channels: b.readUInt16LE(22),
    sampleRate: b.readUInt32LE(24),
    byteRate: b.readUInt32LE(28),
    blockAlign: b.readUInt16LE(32),
    bitsPerSample: b.readUInt16LE(34),
    data: b.toString('ascii', 36, 40),
    dataSize: b.readUInt32LE(40),
  };
}

test('the audio is a 16-bit mono PCM WAV with a consistent header', async (t) => {
  const { files } = await adapter.run({ prompt: 'a calm piano', duration: 2 }, context());
  t.is(files.length, 1);
  t.is(files[0]?.contentType, 'audio/wav');
  t.is(files[0]?.extension, 'wav');
  const data = files[0]!.data!;
  const h = header(data);
  t.is(h.riff, 'RIFF');
  t.is(h.riffSize, data.byteLength - 8);
  t.is(h.wave, 'WAVE');
  t.is(h.fmt, 'fmt ');
  t.is(h.fmtSize, 16);
  t.is(h.format, 1);
  t.is(h.channels, 1);
  t.true(h.sampleRate === 22_050 || h.sampleRate === 44_100);
  t.is(h.bitsPerSample, 16);
  t.is(h.blockAlign, 2);
  t.is(h.byteRate, h.sampleRate * 2);
  t.is(h.data, 'data');
  t.is(h.dataSize, data.byteLength - 44);
});

test('the number of samples matches the requested duration', async (t) => {
  const { files } = await adapter.run({ prompt: 'drums', duration: 3 }, context());
  const h = header(files[0]!.data!);
  t.is(h.dataSize / h.blockAlign, 3 * h.sampleRate);
});

test('without a duration the audio lasts 5 seconds, and durations are clamped to 1..30', async (t) => {
  const seconds = async (input: Record<string, unknown>) => {
    const h = header((await adapter.run(input, context())).files[0]!.data!);
    return h.dataSize / h.byteRate;
  };
  t.is(await seconds({ prompt: 'x' }), 5);
  t.is(await seconds({ prompt: 'x', duration: 0.1 }), 1);
  t.is(await seconds({ prompt: 'x', duration: 500 }), 30);
});

test('the melody is audible, deterministic, and changes with the seed', async (t) => {
  const input = { text: 'hello there', seed: 3, duration: 2 };
  const a = (await adapter.run(input, context())).files[0]!.data!;
  const b = (await adapter.run(input, context())).files[0]!.data!;
  const c = (await adapter.run({ ...input, seed: 4 }, context())).files[0]!.data!;
  t.deepEqual(a, b);
  t.notDeepEqual(a, c);
  const samples = Buffer.from(a);
  let peak = 0;
  for (let i = 44; i < samples.length; i += 2) peak = Math.max(peak, Math.abs(samples.readInt16LE(i)));
  t.true(peak > 10_000, `peak ${peak} should be well above silence`);
});

test('an aborted signal throws a non-retryable cancellation', async (t) => {
  const controller = new AbortController();
  controller.abort();
  const error = await t.throwsAsync(adapter.run({ prompt: 'x' }, context(controller.signal)), { instanceOf: AdapterError, message: 'cancelled' });
  t.false(error?.retryable);
});
