import test from 'ava';
import { PNG } from 'pngjs';
import { proceduralImage } from '../../../workers/adapters/procedural-image.ts';
import { AdapterError } from '../../../workers/adapters/types.ts';
import type { RunContext } from '../../../workers/adapters/types.ts';

const adapter = proceduralImage.create({ upstreams: new Map() });

function context(signal: AbortSignal = new AbortController().signal): RunContext {
  return { signal, predictionId: 'p-1', model: { operationId: 'procedural_image', category: 'text-to-image' } };
}

function decode(data: Uint8Array): PNG {
  return PNG.sync.read(Buffer.from(data));
}

test('the image is a PNG of the requested size', async (t) => {
  const { files, inferenceMs } = await adapter.run({ prompt: 'a lighthouse at dusk', width: 320, height: 200 }, context());
  t.is(files.length, 1);
  t.is(files[0]?.contentType, 'image/png');
  t.is(files[0]?.extension, 'png');
  const png = decode(files[0]!.data!);
  t.is(png.width, 320);
  t.is(png.height, 200);
  // A duration measured on the real clock has no value a test could pin; it is reported in whole ms.
  t.true(Number.isSafeInteger(inferenceMs), String(inferenceMs));
});

test('without width and height the image is 512 by 512', async (t) => {
  const png = decode((await adapter.run({ prompt: 'x' }, context())).files[0]!.data!);
  t.deepEqual([png.width, png.height], [512, 512]);
});

test('sizes outside 64..2048 are clamped', async (t) => {
  const png = decode((await adapter.run({ prompt: 'x', width: 10, height: 9000, num_inference_steps: 1 }, context())).files[0]!.data!);
  t.deepEqual([png.width, png.height], [64, 2048]);
});

test('the same prompt and seed give the same bytes', async (t) => {
  const input = { prompt: 'a red fox in snow', seed: 42, width: 128, height: 128 };
  const a = await adapter.run(input, context());
  const b = await adapter.run(input, context());
  t.deepEqual(a.files[0]!.data!, b.files[0]!.data!);
});

test('without a seed the image is still deterministic for a prompt', async (t) => {
  const input = { prompt: 'a red fox in snow', width: 128, height: 128 };
  const a = await adapter.run(input, context());
  const b = await adapter.run(input, context());
  t.deepEqual(a.files[0]!.data!, b.files[0]!.data!);
});

test('another seed or another prompt gives another image', async (t) => {
  const base = { prompt: 'a red fox in snow', seed: 42, width: 128, height: 128 };
  const a = await adapter.run(base, context());
  const otherSeed = await adapter.run({ ...base, seed: 43 }, context());
  const otherPrompt = await adapter.run({ ...base, prompt: 'a blue whale' }, context());
  t.notDeepEqual(a.files[0]!.data!, otherSeed.files[0]!.data!);
  t.notDeepEqual(a.files[0]!.data!, otherPrompt.files[0]!.data!);
});

test('num_images yields that many files and image i uses seed + i', async (t) => {
  const input = { prompt: 'tiles', seed: 7, width: 96, height: 96, num_images: 3 };
  const batch = await adapter.run(input, context());
  t.is(batch.files.length, 3);
  const third = await adapter.run({ ...input, seed: 9, num_images: 1 }, context());
  t.deepEqual(batch.files[2]!.data!, third.files[0]!.data!);
  t.notDeepEqual(batch.files[0]!.data!, batch.files[1]!.data!);
});

test('more inference steps change the picture', async (t) => {
  const input = { prompt: 'clouds', seed: 1, width: 128, height: 128 };
  const few = await adapter.run({ ...input, num_inference_steps: 2 }, context());
  const many = await adapter.run({ ...input, num_inference_steps: 12 }, context());
  t.notDeepEqual(few.files[0]!.data!, many.files[0]!.data!);
});

test('an already aborted signal throws a non-retryable cancellation', async (t) => {
  const controller = new AbortController();
  controller.abort();
  const error = await t.throwsAsync(adapter.run({ prompt: 'x' }, context(controller.signal)), { instanceOf: AdapterError });
  t.is(error?.message, 'cancelled');
  t.false(error?.retryable);
});

test('aborting while the passes run stops the image before it finishes', async (t) => {
  const controller = new AbortController();
  const running = adapter.run({ prompt: 'x', width: 1024, height: 1024, num_inference_steps: 50 }, context(controller.signal));
  setImmediate(() => controller.abort());
  const error = await t.throwsAsync(running, { instanceOf: AdapterError, message: 'cancelled' });
  t.false(error?.retryable);
});

test('a small image is stored uncompressed and a large one compressed, both valid PNGs', async (t) => {
  const small = (await adapter.run({ prompt: 'x', width: 64, height: 64, num_inference_steps: 1 }, context())).files[0]!.data!;
  const large = (await adapter.run({ prompt: 'x', width: 256, height: 256, num_inference_steps: 1 }, context())).files[0]!.data!;
  // stored: every scanline (a filter byte and 3 bytes a pixel) is in the file as it is
  t.true(small.byteLength > 64 * (64 * 3 + 1), String(small.byteLength));
  t.true(large.byteLength < 256 * (256 * 3 + 1) / 2, String(large.byteLength));
  t.deepEqual([decode(small).width, decode(small).height], [64, 64]);
  t.deepEqual([decode(large).width, decode(large).height], [256, 256]);
});
