// One-off generator for the committed sandbox samples (sample.png, sample.wav, sample.glb), which
// sandbox predictions return instead of running a model. Re-run after changing a procedural adapter:
//   node_modules/.bin/node workers/sandbox/make-samples.ts
// sample.mp4 is not made here: it was encoded once with Debian's ffmpeg, a tool for the asset and
// not a dependency of the project (2 s, 320x180, H.264 + AAC, moov atom first for streaming):
//   ffmpeg -f lavfi -i testsrc=size=320x180:rate=24 -f lavfi -i sine=frequency=440 -t 2 \
//     -c:v libx264 -pix_fmt yuv420p -c:a aac -shortest -movflags +faststart workers/sandbox/sample.mp4

import { writeFile } from 'node:fs/promises';
import { proceduralAudio } from '../adapters/procedural-audio.ts';
import { proceduralImage } from '../adapters/procedural-image.ts';
import { proceduralMesh } from '../adapters/procedural-mesh.ts';
import type { AdapterDefinition, RunContext } from '../adapters/types.ts';

const context: RunContext = {
  signal: new AbortController().signal,
  predictionId: 'sandbox-sample',
  model: { operationId: 'sandbox', category: 'sandbox' },
};

const prompt = 'mediagate sandbox sample';
const samples: [string, AdapterDefinition, Record<string, unknown>][] = [
  ['sample.png', proceduralImage, { prompt, seed: 1, width: 512, height: 512 }],
  ['sample.wav', proceduralAudio, { prompt, seed: 1, duration: 2 }],
  ['sample.glb', proceduralMesh, { prompt, seed: 1, format: 'glb' }],
];

for (const [name, definition, input] of samples) {
  const { files } = await definition.create({ upstreams: new Map() }).run(input, context);
  const file = files[0];
  if (!file?.data) throw new Error(`${name}: the adapter returned no file in memory`);
  const target = new URL(name, import.meta.url);
  await writeFile(target, file.data);
  console.log(`${name}: ${file.data.byteLength} bytes`);
}
