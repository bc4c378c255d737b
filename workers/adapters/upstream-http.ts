// Shared HTTP plumbing of the upstream adapters: JSON calls with a timeout and the caller's abort
// signal, capped output downloads under the webhook destination policy, content type to
// extension. Plain fetch / node:http: the worker owns retries and polling, so no SDK retry loop
// fights it. Errors come from upstream-errors.ts, the one mapping every adapter shares.
import crypto from 'node:crypto';
import dns from 'node:dns';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { Transform } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import ipaddr from 'ipaddr.js';
import { addressPermitted, nameBlocked, pinnedLookup } from '../../lib/destination-policy.ts';
import { readCapped } from '../../lib/read-capped.ts';
import type { DestinationPolicy } from '../../lib/destination-policy.ts';
import { AdapterError, removeTemporary } from './types.ts';
import type { AdapterEnv, AdapterFile, AdapterResult, JobAdapter, JobContext, RunContext, UpstreamOutput } from './types.ts';
import { cancelled, errorForStatus, parseRetryAfter, transportError, upstreamError } from './upstream-errors.ts';
import type { Caller } from './upstream-errors.ts';
import { requireUpstream } from './upstream-config.ts';

export const MAX_OUTPUT_BYTES = 512 * 1024 * 1024;
/**
 * The most of a provider's API answer (a submit, poll, status, cancel or check call's body, an
 * error's included; a non-streamed chat answer) read into memory. Unlike an output, which is
 * streamed to disk under MAX_OUTPUT_BYTES, an answer is held whole and parsed, so its cap is
 * smaller; it must still fit the largest answers providers send: OpenAI's images come inline as
 * base64 (`b64_json`), four 1536x1024 images (the catalog's most per call) about 34 MB even as
 * incompressible RGBA PNGs, so 64 MiB leaves room.
 */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;
/** redirects followed per output download, each re-checked against the destination policy */
const MAX_OUTPUT_REDIRECTS = 5;
export const REQUEST_TIMEOUT_MS = 60_000;
export const DOWNLOAD_TIMEOUT_MS = 10 * 60_000;

/** How output downloads reach the network; tests replace the resolver and the size cap. */
export interface HttpNet {
  policy: DestinationPolicy;
  /** every address of a host name (dns.lookup with all: true by default) */
  resolve: (host: string) => Promise<dns.LookupAddress[]>;
  maxOutputBytes: number;
}

export interface Downloader {
  caller: Caller;
  net: HttpNet;
  downloadTimeoutMs: number;
}

/** The default network policy of an adapter built from this environment. */
export function defaultNet(env: AdapterEnv, overrides: Partial<HttpNet> = {}): HttpNet {
  return { policy: { allowInsecure: env.allowPrivateOutputs === true }, resolve: systemResolve, maxOutputBytes: MAX_OUTPUT_BYTES, ...overrides };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface JsonCall {
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  /** a multipart body instead of JSON (fetch sets its content-type with the boundary) */
  form?: FormData;
  /** what the call is, for error messages: "submission", "polling" */
  what: string;
  timeoutMs?: number;
  /**
   * the call asks about a job the provider accepted (its status or result, or its cancel): a 404
   * or 410 then means the provider no longer knows the job, its fault and not the input's
   * (errorForStatus), and a cancel has nothing left to stop
   */
  aboutJob?: boolean;
}

/**
 * One JSON call with the shared status policy applied: a 2xx answer's JSON object (and its
 * Retry-After, for pacing the next poll), or an AdapterError from upstream-errors.ts. At most
 * MAX_ANSWER_BYTES of the answer are read: a 2xx past it fails as the provider's protocol fault
 * (not retried: the provider would send it again), an error status keeps its own meaning.
 */
export async function callJson(caller: Caller, call: JsonCall): Promise<{ status: number; body: Record<string, unknown>; retryAfterMs?: number }> {
  const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
  if (call.body !== undefined && call.form === undefined) headers['content-type'] = 'application/json';
  const signal = AbortSignal.any([caller.signal, AbortSignal.timeout(call.timeoutMs ?? REQUEST_TIMEOUT_MS)]);
  let status: number;
  let text: string | undefined;
  let retryAfterMs: number | undefined;
  try {
    // No redirects on API calls: following one would send our Authorization header somewhere new.
    const response = await fetch(call.url, {
      method: call.method,
      headers,
      body: call.form ?? (call.body === undefined ? undefined : JSON.stringify(call.body)),
      redirect: 'manual',
      signal,
    });
    status = response.status;
    retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), caller.wallNow?.() ?? Date.now());
    text = await readCapped(response, MAX_ANSWER_BYTES);
  } catch (error) {
    throw transportError(caller, error, call.what);
  }
  if (text === undefined) {
    caller.warn?.({ call: call.what, status, limitBytes: MAX_ANSWER_BYTES }, `upstream "${caller.provider}" sent an answer larger than ${describeSize(MAX_ANSWER_BYTES)}: the rest was not read and the connection was closed`);
    if (status >= 200 && status < 300) {
      throw upstreamError(caller, `upstream "${caller.provider}" sent an answer larger than ${describeSize(MAX_ANSWER_BYTES)} during ${call.what}; it was not read`, false, 'upstream_protocol');
    }
    text = '';
  }
  if (status < 200 || status >= 300) throw errorForStatus(caller, status, text, call.what, retryAfterMs, call.aboutJob === true);
  let parsed: unknown;
  try {
    parsed = text === '' ? {} : JSON.parse(text);
  } catch {
    throw upstreamError(caller, `upstream "${caller.provider}" sent malformed JSON during ${call.what}`, false, 'upstream_protocol');
  }
  if (!isRecord(parsed)) throw upstreamError(caller, `upstream "${caller.provider}" sent malformed JSON during ${call.what}`, false, 'upstream_protocol');
  return { status, body: parsed, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
}

/**
 * Copies a job's outputs into temporary files (URLs, one at a time, streamed) or keeps them as
 * bytes (inline base64 or text); a failure removes what was already fetched.
 */
export async function collectOutputs(dl: Downloader, outputs: readonly UpstreamOutput[], predictionId: string, tempDir = os.tmpdir()): Promise<AdapterFile[]> {
  const stem = predictionId.replace(/[^A-Za-z0-9_-]/g, '_');
  const files: AdapterFile[] = [];
  try {
    for (const [i, out] of outputs.entries()) {
      if ('url' in out) files.push(await download(dl, out.url, i, out.nsfw === true, tempDir, stem));
      else files.push({ data: out.data, contentType: out.contentType, extension: out.extension, ...(out.nsfw ? { nsfw: true } : {}) });
    }
  } catch (error) {
    await removeTemporary(files);
    throw error;
  }
  return files;
}

/** Joins a configured base URL and a path, whatever slashes either carries. */
export function joinUrl(base: string, pathname: string): string {
  return `${base.replace(/\/+$/, '')}/${pathname.replace(/^\/+/, '')}`;
}

const EXTENSION_BY_TYPE: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'video/quicktime': 'mov',
  'audio/mpeg': 'mp3',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/ogg': 'ogg',
  'audio/flac': 'flac',
  'model/gltf-binary': 'glb',
  'model/gltf+json': 'gltf',
  'model/obj': 'obj',
  'text/plain': 'txt',
  'application/json': 'json',
};
const TYPE_BY_EXTENSION: Readonly<Record<string, string>> = {
  ...Object.fromEntries(Object.entries(EXTENSION_BY_TYPE).map(([type, ext]) => [ext, type])),
  jpeg: 'image/jpeg',
  wav: 'audio/wav',
};

function fileType(contentTypeHeader: string | null, url: URL): { contentType: string; extension: string } {
  const contentType = contentTypeHeader?.split(';')[0]?.trim().toLowerCase() ?? '';
  const fromType = EXTENSION_BY_TYPE[contentType];
  if (fromType) return { contentType, extension: fromType };
  const fromUrl = /\.([a-z0-9]{1,5})$/i.exec(url.pathname)?.[1]?.toLowerCase();
  if (fromUrl) {
    // A generic or missing Content-Type (common on object storage): trust the file name instead.
    const guessed = contentType && contentType !== 'application/octet-stream' ? contentType : TYPE_BY_EXTENSION[fromUrl];
    return { contentType: guessed ?? 'application/octet-stream', extension: fromUrl };
  }
  return { contentType: contentType || 'application/octet-stream', extension: 'bin' };
}

/** A `resolve` that asks the system resolver for every address of a name. */
async function systemResolve(host: string): Promise<dns.LookupAddress[]> {
  return dns.promises.lookup(host, { all: true });
}

/**
 * The destination policy of the webhooks, applied to one output URL before connecting: the host
 * (a literal or every address its name resolves to) must be public unicast. The connection then
 * goes through `pinnedLookup`, which resolves again and connects only to a permitted address, so
 * a name that changes its answer between the check and the connection gains nothing.
 */
async function destinationProblem(dl: Downloader, url: URL, index: number): Promise<AdapterError | null> {
  const refused = () => upstreamError(dl.caller, `upstream "${dl.caller.provider}" output ${index + 1} points at a non-public address; it was not downloaded`, false, 'output_rejected');
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return upstreamError(dl.caller, `upstream "${dl.caller.provider}" returned an output URL that is not http(s)`, false, 'output_rejected');
  }
  if (dl.net.policy.allowInsecure) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
  if (ipaddr.isValid(host)) return addressPermitted(host, dl.net.policy) ? null : refused();
  if (nameBlocked(host)) return refused();
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dl.net.resolve(host);
  } catch (error) {
    return transportError(dl.caller, withCause(error), `the download of output ${index + 1}`);
  }
  return addresses.some((a) => addressPermitted(a.address, dl.net.policy)) ? null : refused();
}

/** node:http and node:dns put the code (ECONNREFUSED, ENOTFOUND...) on the error, fetch on its cause */
function withCause(error: unknown): unknown {
  return error instanceof Error && 'code' in error ? Object.assign(new Error(error.message), { cause: error }) : error;
}

/** One GET without redirects following, through the pinned lookup; resolves with the response head. */
function get(url: URL, net: HttpNet, signal: AbortSignal): Promise<http.IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, { method: 'GET', lookup: pinnedLookup(net.policy, net.resolve), signal, headers: { 'user-agent': 'mediagate/1', accept: '*/*' } });
    req.on('response', resolve);
    req.on('error', reject);
    req.end();
  });
}

/**
 * Downloads one output into a temporary file. Every hop (the URL and each redirect) is checked
 * against the destination policy; the size cap is enforced while streaming, so the body is never
 * held in memory and an oversized one is cut off, its partial file removed.
 */
export async function download(dl: Downloader, raw: string, index: number, nsfw: boolean, tempDir: string, stem: string): Promise<AdapterFile> {
  const what = `the download of output ${index + 1}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw upstreamError(dl.caller, `upstream "${dl.caller.provider}" returned an invalid output URL`, false, 'upstream_protocol');
  }

  const timeout = AbortSignal.timeout(dl.downloadTimeoutMs);
  const signal = AbortSignal.any([dl.caller.signal, timeout]);
  const limit = dl.net.maxOutputBytes;
  const tooLarge = () => upstreamError(dl.caller, `upstream "${dl.caller.provider}" output ${index + 1} is larger than ${describeSize(limit)}`, false, 'output_rejected');
  const mapError = (error: unknown): AdapterError => {
    if (error instanceof AdapterError) return error;
    if (dl.caller.signal.aborted) return cancelled();
    if (timeout.aborted) return upstreamError(dl.caller, `upstream "${dl.caller.provider}" timed out during ${what}`, true, 'upstream_timeout');
    if (error instanceof Error && 'code' in error && error.code === 'EDESTINATION') {
      return upstreamError(dl.caller, `upstream "${dl.caller.provider}" output ${index + 1} points at a non-public address; it was not downloaded`, false, 'output_rejected');
    }
    return transportError(dl.caller, withCause(error), what);
  };

  let response: http.IncomingMessage;
  for (let hop = 0; ; hop++) {
    const problem = await destinationProblem(dl, url, index);
    if (problem) throw problem;
    try {
      response = await get(url, dl.net, signal);
    } catch (error) {
      throw mapError(error);
    }
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    // An answer other than the file itself is closed, never drained: its body could be endless.
    if (status >= 300 && status < 400 && location) {
      response.destroy();
      if (hop >= MAX_OUTPUT_REDIRECTS) throw upstreamError(dl.caller, `upstream "${dl.caller.provider}" output ${index + 1} redirected too many times`, false, 'output_rejected');
      try {
        url = new URL(location, url);
      } catch {
        throw upstreamError(dl.caller, `upstream "${dl.caller.provider}" output ${index + 1} redirected to an invalid URL`, false, 'output_rejected');
      }
      continue;
    }
    if (status === 429 || status >= 500) {
      response.destroy();
      throw upstreamError(dl.caller, `upstream "${dl.caller.provider}" is unavailable (HTTP ${status} during ${what})`, true, 'upstream_unavailable');
    }
    if (status < 200 || status >= 300) {
      response.destroy();
      throw upstreamError(dl.caller, `upstream "${dl.caller.provider}" output ${index + 1} could not be downloaded (HTTP ${status})`, false, 'output_rejected');
    }
    break;
  }
  if (Number(response.headers['content-length'] ?? 0) > limit) {
    response.destroy();
    throw tooLarge();
  }

  await fs.mkdir(tempDir, { recursive: true });
  const target = path.join(tempDir, `${stem}.${index}.${crypto.randomBytes(6).toString('hex')}.part`);
  let size = 0;
  // Counted while streaming: Content-Length may be absent or wrong.
  const cap = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.byteLength;
      // Failing the pipeline destroys the response, so the rest is never fetched.
      if (size > limit) callback(tooLarge());
      else callback(null, chunk);
    },
  });
  try {
    await pipeline(response, cap, createWriteStream(target, { flags: 'wx' }), { signal });
  } catch (error) {
    await fs.rm(target, { force: true });
    throw mapError(error);
  }
  const contentType = typeof response.headers['content-type'] === 'string' ? response.headers['content-type'] : null;
  return { path: target, ...fileType(contentType, url), ...(nsfw ? { nsfw: true } : {}) };
}

/** A size as the gateway words it: "64 MiB". */
export function describeSize(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}



/**
 * An upstream adapter's `run` for in-process use (the worker itself polls through the queue):
 * submit, poll every `pollIntervalMs` (or the provider's Retry-After), collect; an abort cancels
 * the job at the provider first.
 */
export async function runJobInProcess(job: JobAdapter, pollIntervalMs: number, input: Record<string, unknown>, ctx: RunContext): Promise<AdapterResult> {
  const started = performance.now();
  let { jobId, state } = await job.submit(input, ctx);
  while (state.kind === 'running') {
    try {
      await sleep(Math.max(pollIntervalMs, state.retryAfterMs ?? 0), undefined, { signal: ctx.signal });
    } catch {
      await job.cancel(jobId, { ...ctx, signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
      throw cancelled();
    }
    state = await job.poll(jobId, ctx);
  }
  if (state.kind === 'failed') throw state.error;
  const files = await job.collect(state.outputs, ctx);
  return { files, inferenceMs: Math.round(state.inferenceMs ?? performance.now() - started), ...(state.report ? { report: state.report } : {}) };
}

/** A call to a provider reached by base URL and key (fal, openai-compatible, replicate, wavespeed). */
export interface KeyedCall extends Caller {
  url: string;
  key: string | undefined;
}

/** The job's provider, its base URL and key; both are redacted from every error the call raises. */
export function keyedCall(env: AdapterEnv, ctx: JobContext): KeyedCall {
  const { name, upstream } = requireUpstream(env, ctx.model);
  return { provider: name, secrets: [upstream.key ?? '', upstream.url], signal: ctx.signal, url: upstream.url, key: upstream.key, warn: warnFor(env, name, ctx) };
}

/** Caller.warn for one job's calls: the environment's log, naming the prediction and the provider. */
export function warnFor(env: AdapterEnv, provider: string, ctx: JobContext): Caller['warn'] {
  const log = env.log;
  return log ? (fields, message) => log.warn({ ...fields, id: ctx.predictionId, provider }, message) : undefined;
}

/** `Authorization: Bearer <key>` when the provider has a key (replicate, wavespeed, openai-compatible). */
export function bearer(c: KeyedCall): Record<string, string> {
  return c.key ? { authorization: `Bearer ${c.key}` } : {};
}
