// The contract between the run-model worker and a model adapter.
// An adapter turns a validated model input into files; the worker stores them and
// records the prediction. Adapters never touch the database, the queue or credits.

import fs from 'node:fs/promises';
import type { MediaKind } from '../../lib/media.ts';
import type { InputMapping } from '../../spec/mapping.ts';
import type { RawLogLine } from '../../lib/run-logs.ts';
export type { RawLogLine };
export type { MediaKind };

/**
 * One file an adapter produced. The worker stores it and hands out a stable URL. Small files
 * come as bytes; downloads come as a temporary file (`path`) that storage moves into place, so
 * an output of hundreds of MiB is never held in memory.
 */
export type AdapterFile = AdapterFileInfo & ({ data: Uint8Array; path?: undefined } | { path: string; data?: undefined });

/**
 * Removes temporary downloads (a failed run's, or one cut off half-way); never throws. Beside
 * AdapterFile: adapters and the worker alike remove the temporary files they do not store.
 */
export async function removeTemporary(files: readonly { path?: string | undefined }[]): Promise<void> {
  await Promise.all(files.map((f) => (f.path ? fs.rm(f.path, { force: true }) : undefined)));
}

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
  /** what the provider's answer said besides the outputs */
  report?: ProviderReport;
}

/**
 * What a provider's answer says besides its outputs, when it says it: what the job cost, the
 * tokens it used, and metadata a user needs to reproduce or place the result (the seed the
 * provider chose, the output's size and length, a rewritten prompt, the provider's timings).
 */
export interface ProviderReport {
  /** the cost the provider reports for the job, in US dollars */
  costUsd?: number;
  /** tokens used (language models) */
  usage?: { inputTokens: number; outputTokens: number };
  metadata?: ProviderMetadata;
}

/** Provider metadata shown beside a result's interface fields (each optional). */
export interface ProviderMetadata {
  seed?: number;
  width?: number;
  height?: number;
  /** seconds of video or audio */
  duration?: number;
  /** the prompt the provider actually used, when it rewrote the one sent */
  revised_prompt?: string;
  /** the provider's own timings, in milliseconds, by name (queue, inference, ...) */
  provider_timings?: Record<string, number>;
}

/** What the spec's x-model extension says about the model being run. */
export interface ModelRef {
  operationId: string;
  category: string;
  /** x-model.upstream: provider name whose credentials an upstream adapter uses */
  upstream?: string;
  /** x-model.upstream_model: the provider's own model id */
  upstreamModel?: string;
  /** x-model.input_map as written: our input field -> the provider's field name or a transform (fields not listed keep their name) */
  inputMap?: Readonly<Record<string, unknown>>;
  /** x-model.fixed_input: provider-only values sent with every request (they win over mapped fields) */
  fixedInput?: Readonly<Record<string, unknown>>;
  /** the catalog's compiled input_map, fixed_input and limits (spec/mapping.ts); else compiled from the two above */
  mapping?: InputMapping;
}

export interface RunContext {
  /** aborted when the worker shuts down or the prediction is cancelled */
  signal: AbortSignal;
  predictionId: string;
  model: ModelRef;
  /** where an adapter may write temporary files (on the storage's file system); os.tmpdir() if unset */
  tempDir?: string;
  /**
   * Tells the worker how far the run is (`progress` 0..1) and new log lines, as often as the
   * adapter likes: the worker throttles what it writes. Absent when nobody listens.
   */
  report?: (update: RunUpdate) => void;
}

/** What a run in this process reports as it goes (RunContext.report). */
export interface RunUpdate {
  progress?: number;
  /** new lines only */
  logs?: readonly RawLogLine[];
}

export interface Adapter {
  run(input: Record<string, unknown>, ctx: RunContext): Promise<AdapterResult>;
  /**
   * Upstream adapters: the provider runs the job. The worker submits it once, records the job id
   * on the prediction, and advances it by polling through delayed queue messages, so no worker
   * holds a message for the length of a job (README "Providers"). `run` stays as an in-process
   * loop over the same calls for direct use.
   */
  job?: JobAdapter;
}

/** An output the provider made: a URL to copy into the gateway's storage, or bytes it sent inline. */
export type UpstreamOutput =
  | { url: string; nsfw?: boolean }
  | { data: Uint8Array; contentType: string; extension: string; nsfw?: boolean };

/** What the provider says about a job. `status` is the provider's own word, recorded on the prediction. */
export type JobState =
  | {
    kind: 'running'; status: string; retryAfterMs?: number; queuePosition?: number;
    /** 0..1 */
    progress?: number;
    /** the provider's whole log so far, oldest first (the worker keeps only what is new) */
    logs?: readonly RawLogLine[];
  }
  | {
    kind: 'succeeded'; status: string; outputs: UpstreamOutput[]; inferenceMs?: number; report?: ProviderReport; logs?: readonly RawLogLine[];
    /**
     * true when this answer is the only one there is: the job finished in its submit's answer
     * without an id to ask about again, so outputs that could not be downloaded or stored fail
     * the prediction at once (as JobAdapter.answersOnce)
     */
    answeredOnce?: boolean;
  }
  | { kind: 'failed'; status: string; error: AdapterError; logs?: readonly RawLogLine[] };

export interface JobContext {
  signal: AbortSignal;
  predictionId: string;
  model: ModelRef;
  /**
   * Where the provider may call back when the job changes (README "Providers", callbacks); set
   * only when callbacks are enabled and the provider's signature can be verified. Polling goes on
   * either way.
   */
  callbackUrl?: string;
}

export interface JobAdapter {
  /** starts the job; the provider's id for it and its first state (some providers finish at once) */
  submit(input: Record<string, unknown>, ctx: JobContext): Promise<{ jobId: string; state: JobState }>;
  poll(jobId: string, ctx: JobContext): Promise<JobState>;
  /** asks the provider to stop the job; a provider without cancel resolves without doing anything */
  cancel(jobId: string, ctx: JobContext): Promise<void>;
  /** copies the outputs into temporary files / bytes for the worker to type-check and store */
  collect(outputs: readonly UpstreamOutput[], ctx: JobContext & { tempDir?: string }): Promise<AdapterFile[]>;
  /**
   * true when the provider answers in one call and keeps no job to ask about again (poll cannot
   * fetch its answer twice): outputs that could not be downloaded or stored fail the prediction at
   * once instead of waiting for a poll that cannot bring them back
   */
  answersOnce?: boolean;
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
  /** where adapters warn the operator of a provider's misbehaviour (Caller.warn); silent when absent */
  log?: { warn(fields: Record<string, unknown>, message: string): void };
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
 * Stable reasons a prediction failed, recorded next to its message (predictions.error_code).
 * Built by workers/adapters/upstream-errors.ts for every upstream adapter.
 */
export type AdapterErrorCode =
  | 'upstream_unavailable'
  | 'upstream_timeout'
  | 'upstream_rejected_input'
  | 'upstream_credentials'
  | 'upstream_failed'
  | 'upstream_cancelled'
  | 'upstream_protocol'
  | 'content_moderated'
  | 'empty_result'
  | 'output_rejected'
  /** the gateway's own storage failed (retried first: not the provider's fault) */
  | 'output_not_stored'
  | 'not_configured';

/**
 * Thrown by adapters. `retryable` failures (network errors, upstream 5xx, 429) are
 * retried by the worker with backoff; others fail the prediction at once.
 * `message` is shown to the API user, so it must not contain secrets.
 */
export class AdapterError extends Error {
  readonly retryable: boolean;
  readonly code: AdapterErrorCode | undefined;
  /** the provider asked us to wait this long (Retry-After) before the next call */
  readonly retryAfterMs: number | undefined;
  constructor(message: string, retryable: boolean, opts: { code?: AdapterErrorCode; retryAfterMs?: number } = {}) {
    super(message);
    this.name = 'AdapterError';
    this.retryable = retryable;
    this.code = opts.code;
    this.retryAfterMs = opts.retryAfterMs;
  }
}
