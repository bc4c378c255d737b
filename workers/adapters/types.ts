// The contract between the run-model worker and a model adapter.
// An adapter turns a validated model input into files; the worker stores them and
// records the prediction. Adapters never touch the database, the queue or credits.

import type { MediaKind } from '../../lib/media.ts';
export type { MediaKind };

/**
 * One file an adapter produced. The worker stores it and hands out a stable URL. Small files
 * come as bytes; downloads come as a temporary file (`path`) that storage moves into place, so
 * an output of hundreds of MiB is never held in memory.
 */
export type AdapterFile = AdapterFileInfo & ({ data: Uint8Array; path?: undefined } | { path: string; data?: undefined });

export interface AdapterFileInfo {
  /** e.g. 'image/png' (a hint: the worker decides the stored type from the bytes) */
  contentType: string;
  /** file extension without the dot, e.g. 'png' (a hint, like contentType) */
  extension: string;
  /** true when the adapter (or upstream) flagged the file as NSFW */
  nsfw?: boolean;
}

export interface AdapterResult {
  files: AdapterFile[];
  /** time spent on inference, as measured by the adapter (or reported by the upstream) */
  inferenceMs: number;
}

/** What the spec's x-model extension says about the model being run. */
export interface ModelRef {
  operationId: string;
  category: string;
  /** x-model.upstream: provider name whose credentials an upstream adapter uses */
  upstream?: string;
  /** x-model.upstream_model: the provider's own model id */
  upstreamModel?: string;
}

export interface RunContext {
  /** aborted when the worker shuts down or the prediction is cancelled */
  signal: AbortSignal;
  predictionId: string;
  model: ModelRef;
  /** where an adapter may write temporary files (on the storage's file system); os.tmpdir() if unset */
  tempDir?: string;
}

export interface Adapter {
  run(input: Record<string, unknown>, ctx: RunContext): Promise<AdapterResult>;
}

/** Credentials and base URL of one upstream provider, from UPSTREAM_<NAME>_URL / _KEY. */
export interface UpstreamConfig {
  url: string;
  key?: string;
}

export interface AdapterEnv {
  upstreams: ReadonlyMap<string, UpstreamConfig>;
  /** UPSTREAM_ALLOW_PRIVATE_OUTPUTS (development and tests only): output URLs may point at loopback/private addresses */
  allowPrivateOutputs?: boolean;
}

export interface AdapterDefinition {
  /** local adapters need no configuration; upstream adapters need x-model.upstream configured */
  kind: 'local' | 'upstream';
  /** what the adapter produces; drives sandbox mock outputs */
  media: MediaKind;
  description: string;
  create(env: AdapterEnv): Adapter;
}

/**
 * Thrown by adapters. `retryable` failures (network errors, upstream 5xx, 429) are
 * retried by the worker with backoff; others fail the prediction at once.
 * `message` is shown to the API user, so it must not contain secrets.
 */
export class AdapterError extends Error {
  readonly retryable: boolean;
  constructor(message: string, retryable: boolean) {
    super(message);
    this.name = 'AdapterError';
    this.retryable = retryable;
  }
}
