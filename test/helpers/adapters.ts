// What the adapter tests share: a real (tiny) PNG to serve from a nocked CDN, a resolver that
// puts the test hosts on a public address (nock answers before any connection is made), and the
// readers of an adapter's outcome.
import type { ExecutionContext, TestFn } from 'ava';
import nock from 'nock';
import fs from 'node:fs/promises';
import type { LookupAddress } from 'node:dns';
import { PNG } from 'pngjs';
import { AdapterError } from '../../workers/adapters/types.ts';
import type { AdapterFile } from '../../workers/adapters/types.ts';

/** A valid PNG of the given size, filled with one grey. */
export function tinyPng(width = 2, height = 2, grey = 128): Buffer {
  const png = new PNG({ width, height });
  png.data.fill(grey);
  return PNG.sync.write(png);
}

/** The start of an MP4 file (an `ftyp` box of brand isom and an empty `free` box): file-type reads it as video/mp4. */
export function tinyMp4(): Buffer {
  return Buffer.from('000000186674797069736f6d0000020069736f6d69736f320000000866726565', 'hex');
}

/** Every test host resolves to a public address, so the destination policy lets it through. */
export async function publicResolve(): Promise<LookupAddress[]> {
  return [{ address: '93.184.215.14', family: 4 }];
}

/** The bytes of a downloaded output (kept in memory or a temporary file, which this removes). */
export async function bytes(file: AdapterFile): Promise<Buffer> {
  if (file.data) return Buffer.from(file.data);
  const data = await fs.readFile(file.path);
  await fs.rm(file.path, { force: true });
  return data;
}

/** The AdapterError a run must reject with. */
export async function failure(t: ExecutionContext, run: Promise<unknown>): Promise<AdapterError> {
  const error = await t.throwsAsync(run, { instanceOf: AdapterError });
  if (!error) throw new Error('expected an AdapterError');
  return error;
}

/**
 * The file's hooks for tests that nock the providers: no connection leaves the machine but to the
 * local services, each test's interceptors are cleared after it, and the network is open again
 * after the file.
 */
export function onlyLocalNetwork(test: TestFn): void {
  test.before(() => {
    nock.disableNetConnect();
    nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  });
  test.afterEach.always(() => {
    nock.cleanAll();
  });
  test.after.always(() => {
    nock.enableNetConnect();
  });
}

/** A Replicate prediction as its API answers one (FLUX 1.1 [pro]), at `base` (the nocked host), in `status`. */
export function replicatePrediction(base: string, id: string, status: string, extra: Record<string, unknown> = {}) {
  return { id, model: 'black-forest-labs/flux-1.1-pro', input: {}, logs: '', output: null, error: null, status, created_at: '2026-11-23T16:19:34.765994Z', urls: { get: `${base}/v1/predictions/${id}`, cancel: `${base}/v1/predictions/${id}/cancel` }, ...extra };
}
