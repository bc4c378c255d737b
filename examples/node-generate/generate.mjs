// Generates an image and a video on a mediagate gateway, prints their progress, and downloads the
// outputs into a folder.
//
//   MEDIAGATE_BASE_URL=http://localhost:8080 MEDIAGATE_API_KEY=mg_live_… node generate.mjs ./out
//
// MEDIAGATE_VIDEO_API_KEY (optional) is the key used for the video. Set it to a sandbox key
// (mg_test_…) on a gateway whose video models have no provider configured: a sandbox run returns a
// sample clip at once and costs nothing.
import fs from 'node:fs/promises';
import path from 'node:path';
import { Mediagate, GatewayError, PredictionFailedError } from '@mediagate/client';

const baseUrl = process.env.MEDIAGATE_BASE_URL ?? 'http://localhost:8080';
const apiKey = process.env.MEDIAGATE_API_KEY;
const videoKey = process.env.MEDIAGATE_VIDEO_API_KEY ?? apiKey;
const outDir = process.argv[2] ?? 'out';
if (!apiKey) {
  console.error('Set MEDIAGATE_API_KEY to an API key of your account.');
  process.exit(2);
}

const images = new Mediagate({ baseUrl, apiKey });
const videos = videoKey === apiKey ? images : new Mediagate({ baseUrl, apiKey: videoKey });

/** Prints each change of state (and progress, where the provider reports it) on one line per change. */
function progress(label) {
  const started = Date.now();
  return (p) => {
    const pct = typeof p.progress === 'number' ? ` ${Math.round(p.progress * 100)}%` : '';
    const queue = typeof p.queue_position === 'number' ? ` (queue position ${p.queue_position})` : '';
    console.log(`${label}: ${p.status}${pct}${queue} after ${((Date.now() - started) / 1000).toFixed(1)} s`);
  };
}

/** Saves each output URL of a prediction as <label>-<n>.<extension of the URL>. */
async function download(label, prediction) {
  const files = [];
  for (const [i, url] of prediction.outputs.entries()) {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`downloading ${url} failed: ${res.status}`);
    const file = path.join(outDir, `${label}-${i}${path.extname(new URL(url).pathname) || '.bin'}`);
    await fs.writeFile(file, new Uint8Array(await res.arrayBuffer()));
    files.push(file);
  }
  return files;
}

async function main() {
  await fs.mkdir(outDir, { recursive: true });

  const imageInput = { prompt: 'a lighthouse at dusk, oil painting', width: 768, height: 512 };
  const quote = await images.quote('canvas-v1-fast-text-to-image', imageInput);
  console.log(`image: ${quote.cost} credits (balance ${quote.balance})`);
  const image = await images.run('canvas-v1-fast-text-to-image', imageInput, { onProgress: progress('image') });

  const video = await videos.run('veloce-v2-fast-text-to-video', { prompt: 'waves rolling onto a beach at sunset' }, {
    onProgress: progress('video'),
    timeoutMs: 15 * 60_000,
  });

  for (const [label, prediction] of [['image', image], ['video', video]]) {
    for (const file of await download(label, prediction)) console.log(`${label}: saved ${file} (${prediction.price} credits)`);
  }
}

try {
  await main();
} catch (err) {
  if (err instanceof PredictionFailedError) console.error(`The prediction ${err.prediction.id} ${err.prediction.status}: ${err.prediction.error ?? 'no reason given'}`);
  else if (err instanceof GatewayError) console.error(`The gateway refused: ${err.code}: ${err.detail}`);
  else console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
}
