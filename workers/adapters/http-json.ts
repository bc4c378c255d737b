// Generic upstream adapter: runs a model on a provider that speaks our small JSON protocol.
// A provider that does not speak it natively is fronted by a thin shim; the gateway stays generic.
//
// Protocol (ours; version 1)
//   Submit  POST {url}/v1/models/{upstream_model}/predictions
//           Authorization: Bearer {key}            (only when UPSTREAM_<NAME>_KEY is set)
//           Content-Type: application/json
//           {"input": {...}}                       (the validated model input, as received)
//     {upstream_model} keeps its slashes ("acme/flux-dev"); each segment is percent-encoded.
//   Answer, either finished at once:
//           {"status": "completed", "outputs": ["https://...", ...],
//            "has_nsfw_contents"?: [false, ...], "inference_ms"?: 1234}
//     or accepted for later:
//           {"id": "abc", "status": "queued" | "processing"}
//   Poll    GET {url}/v1/predictions/{id}  (same Authorization), for up to 30 minutes, until the
//           answer is "completed" (as above) or {"status": "failed", "error": "..."}. Waits back
//           off: 500 ms doubling to 30 s, ±20% jitter; a Retry-After (seconds or HTTP date) on a
//           poll answer is honoured, up to 5 minutes.
//   Outputs are plain http(s) URLs fetched without credentials (they are usually on a CDN), only
//   from public unicast addresses (the webhook destination policy, each redirect re-checked),
//   each at most 512 MiB, streamed to a temporary file. The worker types them from their bytes.
//
// Failure mapping (see AdapterError): network errors, timeouts, HTTP 429 and 5xx are retryable;
// other 4xx, "failed" predictions and malformed answers are not. Messages reach the API user, so
// they never carry the key or the upstream's URL, and upstream text is truncated.

import crypto from 'node:crypto';
import dns from 'node:dns';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import ipaddr from 'ipaddr.js';
import { addressPermitted, nameBlocked, pinnedLookup } from '../../lib/destination-policy.ts';
import type { DestinationPolicy } from '../../lib/destination-policy.ts';
import { AdapterError } from './types.ts';
import type { Adapter, AdapterDefinition, AdapterEnv, AdapterFile, AdapterResult, RunContext, UpstreamConfig } from './types.ts';

export interface HttpJsonTiming {
  /** first wait between polls; it doubles after each poll, up to pollMaxIntervalMs */
  pollIntervalMs: number;
  pollMaxIntervalMs: number;
  /** longest Retry-After honoured while polling */
  maxRetryAfterMs: number;
  /** give up on a prediction the upstream has not finished after this long */
  maxWaitMs: number;
  /** per submit / poll request */
  requestTimeoutMs: number;
  /** per output download, which may be hundreds of MiB */
  downloadTimeoutMs: number;
  /** the clock the poll loop reads (milliseconds, monotonic); tests advance a fake one */
  now: () => number;
  /** the wall clock (epoch milliseconds) a Retry-After HTTP date is measured from */
  wallNow: () => number;
  /** waits between polls; rejects when the signal aborts */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** jitter source in [0, 1) */
  random: () => number;
}

const DEFAULT_TIMING: HttpJsonTiming = {
  pollIntervalMs: 500,
  pollMaxIntervalMs: 30_000,
  maxRetryAfterMs: 5 * 60_000,
  now: () => performance.now(),
  wallNow: () => Date.now(),
  sleep: (ms, signal) => sleep(ms, undefined, { signal }),
  random: Math.random,
  maxWaitMs: 30 * 60_000,
  requestTimeoutMs: 60_000,
  downloadTimeoutMs: 10 * 60_000,
};
const MAX_OUTPUT_BYTES = 512 * 1024 * 1024;
/** redirects followed per output download, each re-checked against the destination policy */
const MAX_OUTPUT_REDIRECTS = 5;

/** How output downloads reach the network; tests replace the resolver and the size cap. */
export interface HttpJsonNet {
  policy: DestinationPolicy;
  /** every address of a host name (dns.lookup with all: true by default) */
  resolve: (host: string) => Promise<dns.LookupAddress[]>;
  maxOutputBytes: number;
}
const MAX_UPSTREAM_TEXT = 500;
/** a poll that hits a blip should not throw away (and re-bill) a prediction already running upstream */
const MAX_CONSECUTIVE_POLL_FAILURES = 3;

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

/** Everything one run needs to talk to its upstream, and to word its errors safely. */
interface Session {
  name: string;
  upstream: UpstreamConfig;
  signal: AbortSignal;
  timing: HttpJsonTiming;
  net: HttpJsonNet;
}

function truncate(text: string): string {
  return text.length > MAX_UPSTREAM_TEXT ? `${text.slice(0, MAX_UPSTREAM_TEXT)}...` : text;
}

/** Defence in depth: an upstream that echoes our key back must not get it shown to the user. */
function fail(session: Session, message: string, retryable: boolean): AdapterError {
  const key = session.upstream.key;
  const safe = key ? message.split(key).join('[redacted]') : message;
  return new AdapterError(safe, retryable);
}

/** Maps a rejected fetch (or body read) to cancellation, timeout or network failure. */
function transportError(session: Session, error: unknown, what: string): AdapterError {
  if (session.signal.aborted) return new AdapterError('cancelled', false);
  if (error instanceof Error && error.name === 'TimeoutError') {
    return fail(session, `upstream "${session.name}" timed out during ${what}`, true);
  }
  // undici puts the useful part (ECONNREFUSED, ENOTFOUND...) in `cause`; the URL is left out on purpose.
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
  const code = cause && 'code' in cause && typeof cause.code === 'string' ? ` (${cause.code})` : '';
  return fail(session, `could not reach upstream "${session.name}" during ${what}${code}`, true);
}

function upstreamDetail(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    if (isRecord(parsed)) {
      for (const field of ['error', 'detail', 'message']) {
        const value = parsed[field];
        if (typeof value === 'string') return value;
      }
    }
  } catch {
    // not JSON: fall back to the raw text
  }
  return body.trim() || 'no details given';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function describeDuration(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} minutes` : `${Math.round(ms / 1000)} seconds`;
}

/**
 * A Retry-After value (delay-seconds or an HTTP date) in milliseconds from now, or undefined when
 * absent or unreadable. Bounding it is the caller's job.
 */
export function parseRetryAfter(value: string | null, wallNow = Date.now()): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - wallNow);
}

/** One submit or poll call: JSON in, JSON out, with our status-code policy applied. */
async function callJson(
  session: Session,
  path: string,
  body: unknown,
  what: string,
  onHeaders?: (headers: Headers) => void,
): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (session.upstream.key) headers.authorization = `Bearer ${session.upstream.key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const signal = AbortSignal.any([session.signal, AbortSignal.timeout(session.timing.requestTimeoutMs)]);

  let status: number;
  let text: string;
  try {
    // No redirects on API calls: following one would send our Authorization header somewhere new.
    const response = await fetch(`${session.upstream.url.replace(/\/+$/, '')}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
      signal,
    });
    status = response.status;
    onHeaders?.(response.headers);
    text = await response.text();
  } catch (error) {
    throw transportError(session, error, what);
  }

  if (status === 429 || status >= 500) {
    throw fail(session, `upstream "${session.name}" is unavailable (HTTP ${status} during ${what})`, true);
  }
  if (status === 401 || status === 403) {
    // Our credentials, not the user's input: say so, or the user would keep editing a valid request.
    throw fail(session, `upstream "${session.name}" refused the gateway's credentials (HTTP ${status})`, false);
  }
  if (status >= 400) {
    throw fail(session, `upstream rejected the input: ${truncate(upstreamDetail(text))}`, false);
  }
  if (status < 200 || status >= 300) {
    throw fail(session, `upstream "${session.name}" answered ${what} with unexpected HTTP ${status}`, false);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw fail(session, `upstream "${session.name}" sent malformed JSON during ${what}`, false);
  }
  if (!isRecord(parsed)) throw fail(session, `upstream "${session.name}" sent malformed JSON during ${what}`, false);
  return parsed;
}

interface Completed {
  outputs: string[];
  nsfw: boolean[];
  inferenceMs?: number;
}

type Answer = { kind: 'completed'; result: Completed } | { kind: 'pending'; id: string } | { kind: 'failed'; error: string };

/** Validates one protocol answer; anything unexpected is a non-retryable protocol error. */
function readAnswer(session: Session, answer: Record<string, unknown>, pendingId?: string): Answer {
  const malformed = (why: string) => fail(session, `upstream "${session.name}" sent a malformed answer: ${why}`, false);
  switch (answer.status) {
    case 'completed': {
      const { outputs, has_nsfw_contents: nsfw, inference_ms: ms } = answer;
      if (!isStringList(outputs) || outputs.length === 0) throw malformed('"outputs" must be a non-empty list of URLs');
      const flags = Array.isArray(nsfw) ? nsfw.map((flag) => flag === true) : [];
      const inferenceMs = typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms : undefined;
      return { kind: 'completed', result: { outputs, nsfw: flags, inferenceMs } };
    }
    case 'queued':
    case 'processing': {
      const id = pendingId ?? answer.id;
      if (typeof id !== 'string' || id === '') throw malformed('a pending prediction needs an "id"');
      return { kind: 'pending', id };
    }
    case 'failed':
      return { kind: 'failed', error: typeof answer.error === 'string' ? answer.error : 'no details given' };
    default:
      throw malformed(`unknown status ${truncate(JSON.stringify(answer.status) ?? 'undefined')}`);
  }
}

/**
 * Polls until the upstream finishes. The wait starts at pollIntervalMs and doubles after every
 * poll up to pollMaxIntervalMs, each wait jittered by ±20% so that many workers do not poll in
 * step; a Retry-After on a poll answer (any status) is honoured up to maxRetryAfterMs. With the
 * defaults a job stuck for the whole 30 minutes costs about 65 polls, not 3,600.
 */
async function waitFor(session: Session, id: string): Promise<Completed> {
  const { timing } = session;
  const deadline = timing.now() + timing.maxWaitMs;
  let interval = timing.pollIntervalMs;
  let retryAfterMs: number | undefined;
  let failures = 0;
  for (;;) {
    const now = timing.now();
    if (now >= deadline) {
      // Not retryable: a second attempt would most likely sit in the same stuck queue for as long.
      throw fail(session, `upstream "${session.name}" did not finish within ${describeDuration(timing.maxWaitMs)}`, false);
    }
    const backoff = interval * (0.8 + 0.4 * timing.random());
    const wait = Math.max(backoff, Math.min(retryAfterMs ?? 0, timing.maxRetryAfterMs));
    interval = Math.min(interval * 2, timing.pollMaxIntervalMs);
    retryAfterMs = undefined;
    try {
      await timing.sleep(Math.round(Math.min(wait, deadline - now)), session.signal);
    } catch {
      throw new AdapterError('cancelled', false);
    }
    let answer: Answer;
    try {
      const body = await callJson(session, `/v1/predictions/${encodeURIComponent(id)}`, undefined, 'polling', (headers) => {
        retryAfterMs = parseRetryAfter(headers.get('retry-after'), timing.wallNow());
      });
      answer = readAnswer(session, body, id);
      failures = 0;
    } catch (error) {
      if (error instanceof AdapterError && error.retryable && ++failures < MAX_CONSECUTIVE_POLL_FAILURES) continue;
      throw error;
    }
    if (answer.kind === 'completed') return answer.result;
    if (answer.kind === 'failed') throw fail(session, truncate(answer.error), false);
  }
}

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
async function destinationProblem(session: Session, url: URL, index: number): Promise<AdapterError | null> {
  const refused = () => fail(session, `upstream "${session.name}" output ${index + 1} points at a non-public address; it was not downloaded`, false);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return fail(session, `upstream "${session.name}" returned an output URL that is not http(s)`, false);
  }
  if (session.net.policy.allowInsecure) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
  if (ipaddr.isValid(host)) return addressPermitted(host, session.net.policy) ? null : refused();
  if (nameBlocked(host)) return refused();
  let addresses: dns.LookupAddress[];
  try {
    addresses = await session.net.resolve(host);
  } catch (error) {
    return transportError(session, withCause(error), `the download of output ${index + 1}`);
  }
  return addresses.some((a) => addressPermitted(a.address, session.net.policy)) ? null : refused();
}

/** node:http and node:dns put the code (ECONNREFUSED, ENOTFOUND...) on the error, fetch on its cause */
function withCause(error: unknown): unknown {
  return error instanceof Error && 'code' in error ? Object.assign(new Error(error.message), { cause: error }) : error;
}

/** One GET without redirects following, through the pinned lookup; resolves with the response head. */
function get(url: URL, net: HttpJsonNet, signal: AbortSignal): Promise<http.IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, { method: 'GET', lookup: pinnedLookup(net.policy, net.resolve), signal, headers: { 'user-agent': 'mediagate/1', accept: '*/*' } });
    req.on('response', resolve);
    req.on('error', reject);
    req.end();
  });
}

/** Removes temporary downloads (a failed run's, or one cut off half-way); never throws. */
export async function removeTemporary(files: readonly { path?: string | undefined }[]): Promise<void> {
  await Promise.all(files.map((f) => (f.path ? fs.rm(f.path, { force: true }) : undefined)));
}

/**
 * Downloads one output into a temporary file. Every hop (the URL and each redirect) is checked
 * against the destination policy; the size cap is enforced while streaming, so the body is never
 * held in memory and an oversized one is cut off, its partial file removed.
 */
async function download(session: Session, raw: string, index: number, nsfw: boolean, tempDir: string, stem: string): Promise<AdapterFile> {
  const what = `the download of output ${index + 1}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw fail(session, `upstream "${session.name}" returned an invalid output URL`, false);
  }

  const timeout = AbortSignal.timeout(session.timing.downloadTimeoutMs);
  const signal = AbortSignal.any([session.signal, timeout]);
  const limit = session.net.maxOutputBytes;
  const tooLarge = () => fail(session, `upstream "${session.name}" output ${index + 1} is larger than ${describeSize(limit)}`, false);
  const mapError = (error: unknown): AdapterError => {
    if (error instanceof AdapterError) return error;
    if (session.signal.aborted) return new AdapterError('cancelled', false);
    if (timeout.aborted) return fail(session, `upstream "${session.name}" timed out during ${what}`, true);
    if (error instanceof Error && 'code' in error && error.code === 'EDESTINATION') {
      return fail(session, `upstream "${session.name}" output ${index + 1} points at a non-public address; it was not downloaded`, false);
    }
    return transportError(session, withCause(error), what);
  };

  let response: http.IncomingMessage;
  for (let hop = 0; ; hop++) {
    const problem = await destinationProblem(session, url, index);
    if (problem) throw problem;
    try {
      response = await get(url, session.net, signal);
    } catch (error) {
      throw mapError(error);
    }
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (status >= 300 && status < 400 && location) {
      response.resume();
      if (hop >= MAX_OUTPUT_REDIRECTS) throw fail(session, `upstream "${session.name}" output ${index + 1} redirected too many times`, false);
      try {
        url = new URL(location, url);
      } catch {
        throw fail(session, `upstream "${session.name}" output ${index + 1} redirected to an invalid URL`, false);
      }
      continue;
    }
    if (status === 429 || status >= 500) {
      response.resume();
      throw fail(session, `upstream "${session.name}" is unavailable (HTTP ${status} during ${what})`, true);
    }
    if (status < 200 || status >= 300) {
      response.resume();
      throw fail(session, `upstream "${session.name}" output ${index + 1} could not be downloaded (HTTP ${status})`, false);
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

function describeSize(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

/** `create` with the clock knobs exposed, so tests can poll every few milliseconds instead of 500. */
export function createHttpJson(env: AdapterEnv, overrides: Partial<HttpJsonTiming> = {}, netOverrides: Partial<HttpJsonNet> = {}): Adapter {
  const timing: HttpJsonTiming = { ...DEFAULT_TIMING, ...overrides };
  const net: HttpJsonNet = {
    policy: { allowInsecure: env.allowPrivateOutputs === true },
    resolve: systemResolve,
    maxOutputBytes: MAX_OUTPUT_BYTES,
    ...netOverrides,
  };
  return {
    async run(input: Record<string, unknown>, ctx: RunContext): Promise<AdapterResult> {
      if (ctx.signal.aborted) throw new AdapterError('cancelled', false);
      const { upstream: name, upstreamModel } = ctx.model;
      // Both are checked at boot against the spec; this guards a worker started with a stale spec.
      if (!name || !upstreamModel) {
        throw new AdapterError(`model ${ctx.model.operationId} has no x-model.upstream / upstream_model`, false);
      }
      const upstream = env.upstreams.get(name);
      if (!upstream) {
        const variable = `UPSTREAM_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_URL`;
        throw new AdapterError(`upstream "${name}" is not configured (set ${variable})`, false);
      }
      const session: Session = { name, upstream, signal: ctx.signal, timing, net };

      const started = timing.now();
      const modelPath = upstreamModel.split('/').map(encodeURIComponent).join('/');
      const first = readAnswer(session, await callJson(session, `/v1/models/${modelPath}/predictions`, { input }, 'submission'));
      if (first.kind === 'failed') throw fail(session, truncate(first.error), false);
      const result = first.kind === 'completed' ? first.result : await waitFor(session, first.id);
      const inferenceMs = Math.round(result.inferenceMs ?? timing.now() - started);

      // One at a time, each streamed to a temporary file; a failure removes the ones already fetched.
      const tempDir = ctx.tempDir ?? os.tmpdir();
      const stem = ctx.predictionId.replace(/[^A-Za-z0-9_-]/g, '_');
      const files: AdapterFile[] = [];
      try {
        for (const [i, url] of result.outputs.entries()) {
          files.push(await download(session, url, i, result.nsfw[i] === true, tempDir, stem));
        }
      } catch (error) {
        await removeTemporary(files);
        throw error;
      }
      return { files, inferenceMs };
    },
  };
}

export const httpJson: AdapterDefinition = {
  kind: 'upstream',
  // Placeholder: for upstream models the gateway takes the media kind from the spec's x-model.output.
  media: 'image',
  description: 'Generic upstream provider speaking the mediagate JSON prediction protocol (submit, poll, download outputs).',
  create: (env) => createHttpJson(env),
};
