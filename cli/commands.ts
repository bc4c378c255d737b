// The CLI's commands over the gateway's documented routes. Each returns what it prints: `human`
// lines for a terminal and `json` for --json (scripts and agents), and throws CliError to fail.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { Client, CliError, EXIT, errorOf, refuseRedirect, retryAfterMs, sameGateway } from './client.ts';
import type { StoredConfig } from './config.ts';
import { progress } from './progress.ts';
import { partFile, waitingFor } from './interrupt.ts';

export interface Output {
  human: string[];
  json: unknown;
  /** printed on stderr (`mediagate: warning: ...`), with --json too: what is probably a mistake but does not fail */
  warnings?: string[];
}

export interface Context {
  client: Client;
  json: boolean;
  /** reads a secret without echo (the password prompt); tests pipe it on stdin */
  readSecret(prompt: string): Promise<string>;
  readLine(prompt: string): Promise<string>;
  config: StoredConfig;
  saveConfig(next: StoredConfig): void;
  forgetConfig(): void;
}

// ---------------------------------------------------------------------------------------------
// records as the routes answer them (the fields the CLI prints)

interface ModelEntry {
  slug: string;
  path: string;
  title: string;
  category: string;
  tier: string | null;
  family: string | null;
  output: string;
  price: { base: number; at_defaults: number };
  input_schema: { properties?: Record<string, InputProperty>; required?: string[] };
  available: boolean;
}

interface InputProperty {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  items?: { type?: string };
  format?: string;
}

export interface Prediction {
  id: string;
  model: string;
  status: string;
  outputs: string[];
  error: string | null;
  urls: { get: string };
  created_at: string | null;
  completed_at: string | null;
}

interface ApiKey {
  id: number;
  name: string;
  prefix: string;
  is_test: boolean;
  ip_whitelist: string[];
  created_at: string;
  last_used_at: string | null;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

function table(rows: string[][]): string[] {
  if (rows.length === 0) return [];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd());
}

// ---------------------------------------------------------------------------------------------
// auth

export async function authLogin(ctx: Context, opts: { email?: string | undefined; passwordStdin: boolean }): Promise<Output> {
  const email = opts.email ?? await ctx.readLine('Email: ');
  const password = await ctx.readSecret(opts.passwordStdin ? '' : 'Password: ');
  if (!email || !password) throw new CliError('an email and a password are needed', EXIT.usage);
  ctx.client.warnIfCleartext('your password');
  const res = await ctx.client.request<{ api_key: string; key: ApiKey }>('POST', '/auth/cli/login', { auth: false, body: { email, password } });
  const previous = ctx.config;
  ctx.saveConfig({ ...ctx.config, base_url: ctx.client.baseUrl, api_key: res.body.api_key, key_id: res.body.key.id, email });
  // The key this one replaces would stay live with nobody holding it: revoke it, when it is this
  // gateway's (another gateway's key is never sent anywhere but there).
  let previousKey: { id: number; revoked: boolean } | undefined;
  if (previous.api_key && previous.key_id !== undefined && previous.base_url !== undefined && sameGateway(previous.base_url, ctx.client.baseUrl)) {
    const id = previous.key_id;
    const failure = await revokeStoredKey(ctx.client.baseUrl, id, [res.body.api_key, previous.api_key]);
    if (failure) process.stderr.write(`mediagate: warning: the previous key (id ${id}) could not be revoked (${failure}); if it still works, revoke it in the dashboard\n`);
    previousKey = { id, revoked: failure === undefined };
  }
  return {
    human: [`Signed in as ${email}; key ${res.body.key.prefix}… stored for ${ctx.client.baseUrl}`],
    json: { email, base_url: ctx.client.baseUrl, key: res.body.key, ...(previousKey ? { previous_key: previousKey } : {}) },
  };
}

/**
 * Revokes key `id` on the gateway at `baseUrl` with each of `keys` in turn until one succeeds (the
 * new key of the same account; else the key itself, which another account's key needs). Undefined
 * when revoked, else why not: the last answer (already revoked, the gateway unreachable).
 */
async function revokeStoredKey(baseUrl: string, id: number, keys: string[]): Promise<string | undefined> {
  let why = 'no key to revoke it with';
  for (const apiKey of keys) {
    try {
      await new Client({ baseUrl, apiKey }).request('DELETE', `/app/delete_api_keys/${id}`);
      return undefined;
    } catch (err) {
      if (!(err instanceof CliError)) throw err;
      why = err.message;
      // unreachable: another key will not fare better
      if (err.status === undefined) break;
    }
  }
  return why;
}

export async function authWhoami(ctx: Context): Promise<Output> {
  const res = await ctx.client.request<{ id: number; email: string; role: string; balance: number; email_verified: boolean }>('GET', '/app/user_details');
  const u = res.body;
  return {
    human: [`${u.email} (id ${u.id}, ${u.role}${u.email_verified ? '' : ', email not verified'}), balance ${u.balance} credits, at ${ctx.client.baseUrl}`],
    json: u,
  };
}

export async function authLogout(ctx: Context): Promise<Output> {
  let revoked = false;
  if (ctx.config.api_key && ctx.config.key_id !== undefined) {
    const client = new Client({ baseUrl: ctx.config.base_url ?? ctx.client.baseUrl, apiKey: ctx.config.api_key });
    try {
      await client.request('DELETE', `/app/delete_api_keys/${ctx.config.key_id}`);
      revoked = true;
    } catch (err) {
      // Already revoked or the gateway gone: the local file is removed anyway, and the user told.
      if (!(err instanceof CliError) || (err.exitCode !== EXIT.auth && err.exitCode !== EXIT.notFound && err.exitCode !== EXIT.error)) throw err;
      process.stderr.write(`mediagate: warning: the stored key (id ${ctx.config.key_id}) could not be revoked (${err.message}); if it still works, revoke it in the dashboard\n`);
    }
  }
  ctx.forgetConfig();
  return { human: [revoked ? 'Signed out; the key was revoked.' : 'Signed out.'], json: { signed_out: true, key_revoked: revoked } };
}

// ---------------------------------------------------------------------------------------------
// models

async function models(ctx: Context, filter: { category?: string | undefined; tier?: string | undefined } = {}): Promise<ModelEntry[]> {
  const res = await ctx.client.request<{ models: ModelEntry[] }>('GET', '/api/v1/models', { auth: false, query: filter });
  return res.body.models;
}

async function model(ctx: Context, slug: string): Promise<ModelEntry> {
  const all = await models(ctx);
  const m = all.find((x) => x.slug === slug);
  if (!m) {
    const near = all.filter((x) => x.slug.includes(slug) || slug.includes(x.slug)).slice(0, 5).map((x) => x.slug);
    throw new CliError(`no model "${slug}"${near.length ? `; did you mean ${near.join(', ')}?` : '; see `mediagate models list`'}`, EXIT.notFound);
  }
  return m;
}

export async function modelsList(ctx: Context, filter: { category?: string | undefined; tier?: string | undefined }): Promise<Output> {
  const list = await models(ctx, filter);
  const rows = [['SLUG', 'CATEGORY', 'TIER', 'PRICE', 'AVAILABLE'], ...list.map((m) => [m.slug, m.category, m.tier ?? '-', `${m.price.at_defaults}`, m.available ? 'yes' : 'no'])];
  return { human: list.length ? table(rows) : ['No models match.'], json: list };
}

function typeName(p: InputProperty): string {
  const t = Array.isArray(p.type) ? p.type.filter((x) => x !== 'null').join('|') : p.type ?? 'any';
  return t === 'array' && p.items?.type ? `${p.items.type}[]` : t;
}

export async function modelsShow(ctx: Context, slug: string): Promise<Output> {
  const m = await model(ctx, slug);
  const props = m.input_schema.properties ?? {};
  const required = new Set(m.input_schema.required ?? []);
  const lines = [
    `${m.slug}: ${m.title}`,
    `  ${m.category}${m.tier ? `, tier ${m.tier}` : ''}, output ${m.output}, ${m.available ? 'available' : 'not available on this gateway (sandbox keys still work)'}`,
    `  POST ${m.path}; ${m.price.at_defaults} credits at the defaults`,
    '',
    'Inputs:',
    ...Object.entries(props).map(([name, p]) => {
      const bits = [typeName(p)];
      if (required.has(name)) bits.push('required');
      if (p.enum) bits.push(`one of ${p.enum.join(', ')}`);
      if (p.minimum !== undefined || p.maximum !== undefined) bits.push(`${p.minimum ?? ''}..${p.maximum ?? ''}`);
      if (p.default !== undefined) bits.push(`default ${JSON.stringify(p.default)}`);
      return `  ${name} (${bits.join(', ')})${p.description ? `: ${p.description}` : ''}`;
    }),
  ];
  return { human: lines, json: m };
}

// ---------------------------------------------------------------------------------------------
// inputs: k=v pairs typed by the model's input schema; k=@file uploads a local file

/** Turns one `value` into the type the schema declares for the field (numbers, booleans, arrays, objects). */
export function coerce(field: string, raw: string, p: InputProperty | undefined): unknown {
  const types = p ? (Array.isArray(p.type) ? p.type : [p.type ?? 'string']) : ['string'];
  const fail = (what: string) => new CliError(`${field}=${raw}: ${what}`, EXIT.validation);
  if (raw === 'null' && types.includes('null')) return null;
  if (types.includes('integer') || types.includes('number')) {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n)) throw fail('not a number');
    return n;
  }
  if (types.includes('boolean')) {
    if (raw === 'true' || raw === '1' || raw === 'yes') return true;
    if (raw === 'false' || raw === '0' || raw === 'no') return false;
    throw fail('not true or false');
  }
  if (types.includes('array')) {
    if (raw.trim().startsWith('[')) {
      try { return JSON.parse(raw); } catch { throw fail('not a JSON array'); }
    }
    const items = raw.split(',').map((s) => s.trim()).filter(Boolean);
    return p?.items?.type === 'integer' || p?.items?.type === 'number' ? items.map(Number) : items;
  }
  if (types.includes('object')) {
    try { return JSON.parse(raw); } catch { throw fail('not a JSON object'); }
  }
  return raw;
}

export async function buildInput(ctx: Context, m: ModelEntry, pairs: string[], prompt: string | undefined): Promise<Record<string, unknown>> {
  const props = m.input_schema.properties ?? {};
  const input: Record<string, unknown> = {};
  if (prompt !== undefined) input.prompt = prompt;
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new CliError(`"${pair}" is not field=value`, EXIT.usage);
    const field = pair.slice(0, eq);
    const raw = pair.slice(eq + 1);
    if (!(field in props)) {
      throw new CliError(`${m.slug} has no input "${field}"; its inputs: ${Object.keys(props).join(', ') || 'none'}`, EXIT.validation);
    }
    input[field] = raw.startsWith('@') ? (await uploadFile(ctx, raw.slice(1))).url : coerce(field, raw, props[field]);
  }
  return input;
}

// ---------------------------------------------------------------------------------------------
// uploads (the upload-address route, then a PUT of the bytes)

const TYPES: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif',
  mp4: 'video/mp4', webm: 'video/webm', mov: 'video/quicktime',
  mp3: 'audio/mpeg', wav: 'audio/wav', ogg: 'audio/ogg', flac: 'audio/flac',
  glb: 'model/gltf-binary', gltf: 'model/gltf+json', obj: 'model/obj',
  txt: 'text/plain', json: 'application/json', pdf: 'application/pdf',
};

interface UploadAddress {
  upload_url: string;
  file_url: string;
  method?: string;
  headers?: Record<string, string>;
}

export async function uploadFile(ctx: Context, file: string): Promise<{ url: string; name: string; bytes: number }> {
  let size: number;
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) throw new CliError(`${file} is not a file`, EXIT.usage);
    size = stat.size;
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, EXIT.usage);
  }
  return uploadBytes(ctx, path.basename(file), size, () => fs.readFileSync(file));
}

/**
 * Puts a file named `name` (its extension gives the type) of `size` bytes on the gateway's storage.
 * `read` gives its bytes; it is called only once the gateway has taken the declared size, so a file
 * over its media type's limit is refused without being read into memory.
 */
export async function uploadBytes(ctx: Context, name: string, size: number, read: () => Buffer): Promise<{ url: string; name: string; bytes: number }> {
  // the size declared: a file over its limit is refused at once, and S3 binds it into the presigned PUT
  const res = await ctx.client.request<UploadAddress>('GET', '/app/get_file_upload_url', { query: { filename: name, size_bytes: size || undefined }, team: true });
  const address = res.body;
  let data: Buffer;
  try {
    data = read();
  } catch (err) {
    throw new CliError(`cannot read ${name}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, EXIT.usage);
  }
  const headers: Record<string, string> = { ...(address.headers ?? {}) };
  if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['content-type'] = TYPES[path.extname(name).slice(1).toLowerCase()] ?? 'application/octet-stream';
  }
  let put: Response;
  try {
    put = await fetch(address.upload_url, { method: address.method ?? 'PUT', headers, body: new Uint8Array(data) });
  } catch (err) {
    throw new CliError(`the upload of ${name} failed: ${(err as Error).message}`, EXIT.error);
  }
  if (put.status >= 300) {
    const text = await put.text();
    let detail = `the upload of ${name} was refused (${put.status})`;
    try {
      const parsed = JSON.parse(text) as { detail?: unknown };
      if (typeof parsed.detail === 'string') detail = `the upload of ${name} was refused: ${parsed.detail}`;
    } catch { /* not JSON: keep the status */ }
    throw new CliError(detail, put.status === 413 || put.status === 415 ? EXIT.validation : put.status === 409 || put.status === 410 ? EXIT.conflict : EXIT.error, { status: put.status });
  }
  return { url: address.file_url, name, bytes: data.length };
}

export async function upload(ctx: Context, file: string): Promise<Output> {
  const u = await uploadFile(ctx, file);
  return { human: [u.url], json: u };
}

// ---------------------------------------------------------------------------------------------
// predictions

export async function getPrediction(ctx: Context, id: string, signal?: AbortSignal): Promise<Prediction> {
  return (await ctx.client.request<Prediction>('GET', `/api/v1/predictions/${encodeURIComponent(id)}/result`, { team: true, ...(signal ? { signal } : {}) })).body;
}

/**
 * Follows a prediction until it is terminal: the SSE stream (one event per state change), and
 * a fresh stream when one ends early (the gateway caps a stream's length). `timeoutS` bounds it all.
 * `onUpdate` sees each event's prediction (the MCP server turns them into progress notifications).
 * `signal` ends the wait at once, closing the stream (the MCP server's cancelled calls).
 */
export async function waitFor(ctx: Context, id: string, timeoutS: number, onUpdate?: (p: Prediction) => void, signal?: AbortSignal): Promise<Prediction> {
  const bar = progress(!ctx.json);
  const deadline = Date.now() + timeoutS * 1000;
  try {
    let last: Prediction | undefined;
    const cancelled = () => new CliError(`the wait for prediction ${id} was cancelled`, EXIT.error);
    // pauses between follow-ups that brought nothing new: 0.5 s, doubling up to 10 s
    let pause = 0;
    let retryAfter: number | undefined;
    while (Date.now() < deadline) {
      if (signal?.aborted) throw cancelled();
      const wait = Math.min(retryAfter ?? pause, deadline - Date.now());
      retryAfter = undefined;
      if (wait > 0) {
        await sleep(wait, signal);
        if (signal?.aborted) throw cancelled();
        if (Date.now() >= deadline) break;
      }
      pause = Math.min(Math.max(pause * 2, 500), 10_000);
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), Math.max(1, deadline - Date.now()));
      const stop = () => abort.abort();
      signal?.addEventListener('abort', stop, { once: true });
      try {
        const res = await fetch(ctx.client.url(`/api/v1/predictions/${encodeURIComponent(id)}/stream`, ctx.client.teamId !== undefined ? { team_id: ctx.client.teamId } : {}), {
          headers: ctx.client.headers({ accept: 'text/event-stream' }),
          signal: abort.signal,
          redirect: 'manual',
        });
        refuseRedirect(ctx.client.baseUrl, res);
        if (res.status >= 400) {
          const text = await res.text();
          let parsed: unknown = text;
          try { parsed = JSON.parse(text); } catch { /* not JSON: the status says it */ }
          // rate limited or a passing 5xx: follow again after Retry-After or the pause; any other 4xx ends the wait
          if (res.status === 429 || res.status >= 500) {
            retryAfter = retryAfterMs(res.headers);
            continue;
          }
          throw errorOf(res.status, res.headers, parsed);
        }
        const decoder = new TextDecoder();
        let buffer = '';
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const event = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = event.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
            if (!data) continue;
            last = JSON.parse(data) as Prediction;
            // news: a stream the gateway ends later (its length is capped) is followed again at once
            pause = 0;
            bar.update(`${last.model}: ${last.status}`);
            onUpdate?.(last);
            // leaving the loop cancels the body, which closes the stream
            if (TERMINAL.has(last.status)) return last;
          }
        }
      } catch (err) {
        if (signal?.aborted) throw cancelled();
        if (err instanceof CliError) throw err;
        if (abort.signal.aborted && Date.now() >= deadline) break;
        if (!abort.signal.aborted) {
          // the connection dropped: read once, then follow again
          last = await getPrediction(ctx, id, signal);
          if (TERMINAL.has(last.status)) return last;
        }
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', stop);
      }
    }
    throw new CliError(`prediction ${id} is still ${last?.status ?? 'running'} after ${timeoutS} s; follow it with \`mediagate predictions wait ${id}\``, EXIT.timeout, { body: last });
  } finally {
    bar.done();
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => { clearTimeout(timer); signal?.removeEventListener('abort', done); resolve(); };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

function predictionLines(p: Prediction, files: string[] = []): string[] {
  if (p.status === 'completed') return [...(files.length ? files : p.outputs)];
  return [`${p.id}: ${p.status}${p.error ? `: ${p.error}` : ''}`];
}

/** Fails with the prediction's own error when it did not complete. */
function finished(p: Prediction): void {
  if (p.status === 'failed' || p.status === 'cancelled') {
    throw new CliError(`prediction ${p.id} ${p.status}${p.error ? `: ${p.error}` : ''}`, EXIT.predictionFailed, { body: p });
  }
}

/** Bounds of one output's download (--download): its size, and the time from request to last byte. */
export const DOWNLOAD_LIMITS = { maxBytes: 5 * 1024 ** 3, timeoutMs: 10 * 60 * 1000 } as const;

/**
 * Saves each output of `p` in `dir`, named from the prediction's id and the output's index (never a
 * path the server chose). Each file is written to a temporary file in `dir` and renamed into place
 * once complete: a download refused for its size, stopped at its time limit or broken off leaves
 * nothing, neither a truncated file nor the temporary one.
 */
export async function download(p: Prediction, dir: string, limits: { maxBytes: number; timeoutMs: number } = DOWNLOAD_LIMITS): Promise<string[]> {
  fs.mkdirSync(dir, { recursive: true });
  const files: string[] = [];
  for (const [i, url] of p.outputs.entries()) {
    const ext = path.extname(new URL(url).pathname).replace(/[^.a-z0-9]/gi, '') || '.bin';
    // the id comes from the server: a name, never a path (no separators, no "..")
    const target = path.join(dir, `${p.id.replace(/[^A-Za-z0-9_-]/g, '_')}-${i}${ext}`);
    const what = `downloading output ${i} of ${p.id}`;
    const tooLarge = () => new CliError(`${what} failed: it is larger than the ${limits.maxBytes}-byte limit`, EXIT.error);
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), limits.timeoutMs);
    const tmp = `${target}.${crypto.randomUUID()}.part`;
    // removed on Ctrl-C too (interrupt.ts), as on every failure below; released once renamed or removed
    let written: (() => void) | undefined;
    try {
      let res: Response;
      try {
        res = await fetch(url, { signal: abort.signal });
      } catch (err) {
        if (abort.signal.aborted) throw new CliError(`${what} failed: not finished within ${limits.timeoutMs / 1000} s`, EXIT.error);
        throw new CliError(`${what} from ${url} failed: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`, EXIT.error);
      }
      if (!res.ok) throw new CliError(`${what} failed (${res.status})`, EXIT.error);
      const declared = Number(res.headers.get('content-length') ?? NaN);
      if (Number.isFinite(declared) && declared > limits.maxBytes) {
        abort.abort();
        throw tooLarge();
      }
      const fd = fs.openSync(tmp, 'wx', 0o644);
      written = partFile(tmp);
      try {
        let bytes = 0;
        try {
          for await (const chunk of (res.body ?? []) as AsyncIterable<Uint8Array>) {
            bytes += chunk.length;
            if (bytes > limits.maxBytes) throw tooLarge();
            fs.writeSync(fd, chunk);
          }
        } catch (err) {
          // aborted already: the timer ran out
          const late = abort.signal.aborted;
          abort.abort();
          if (err instanceof CliError) throw err;
          if (late) throw new CliError(`${what} failed: not finished within ${limits.timeoutMs / 1000} s`, EXIT.error);
          throw new CliError(`${what} failed: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`, EXIT.error);
        }
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(tmp, target);
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      throw err;
    } finally {
      written?.();
      clearTimeout(timer);
    }
    files.push(target);
  }
  return files;
}

export async function run(ctx: Context, slug: string, opts: {
  pairs: string[];
  prompt?: string | undefined;
  webhook?: string | undefined;
  wait: boolean;
  download?: string | undefined;
  timeoutS: number;
}): Promise<Output> {
  ctx.client.requireKey();
  const m = await model(ctx, slug);
  const input = await buildInput(ctx, m, opts.pairs, opts.prompt);
  const submitted = await ctx.client.request<{ request_id: string; status: string; price: number }>('POST', m.path, {
    body: input,
    team: true,
    query: { webhook: opts.webhook },
  });
  if (!opts.wait) {
    return { human: [submitted.body.request_id], json: submitted.body };
  }
  // Ctrl-C from here on tells the id and how to fetch the prediction later
  const done = waitingFor(submitted.body.request_id, fetchLater(ctx, submitted.body.request_id));
  let p: Prediction;
  let files: string[];
  try {
    p = TERMINAL.has(submitted.body.status) ? await getPrediction(ctx, submitted.body.request_id) : await waitFor(ctx, submitted.body.request_id, opts.timeoutS);
    finished(p);
    files = opts.download ? await download(p, opts.download) : [];
  } finally {
    done();
  }
  return { human: predictionLines(p, files), json: { ...p, price: submitted.body.price, ...(opts.download ? { files } : {}) } };
}

export async function predictionsGet(ctx: Context, id: string): Promise<Output> {
  const p = await getPrediction(ctx, id);
  return { human: p.status === 'completed' ? [`${p.id}: completed`, ...p.outputs] : predictionLines(p), json: p };
}

/** The command that fetches a prediction later (told on Ctrl-C): its id, and the team it was run for. */
function fetchLater(ctx: Context, id: string): string {
  return `mediagate${ctx.client.teamId !== undefined ? ` --team ${ctx.client.teamId}` : ''} predictions get ${id}`;
}

export async function predictionsWait(ctx: Context, id: string, opts: { timeoutS: number; download?: string | undefined }): Promise<Output> {
  const done = waitingFor(id, fetchLater(ctx, id));
  let p: Prediction;
  let files: string[];
  try {
    p = await waitFor(ctx, id, opts.timeoutS);
    finished(p);
    files = opts.download ? await download(p, opts.download) : [];
  } finally {
    done();
  }
  return { human: predictionLines(p, files), json: { ...p, ...(opts.download ? { files } : {}) } };
}

export async function predictionsCancel(ctx: Context, id: string): Promise<Output> {
  const res = await ctx.client.request<Prediction>('POST', `/app/cancel_prediction/${encodeURIComponent(id)}`, { team: true });
  return { human: [`${res.body.id}: ${res.body.status}`], json: res.body };
}

// ---------------------------------------------------------------------------------------------
// keys, balance

export async function keysList(ctx: Context): Promise<Output> {
  const team = ctx.client.teamId;
  const res = await ctx.client.request<ApiKey[]>('GET', team === undefined ? '/app/get_user_keys' : `/app/teams/${team}/keys`);
  const rows = [['ID', 'NAME', 'PREFIX', 'KIND', 'CREATED', 'LAST USED'], ...res.body.map((k) => [String(k.id), k.name || '-', k.prefix, k.is_test ? 'sandbox' : 'production', k.created_at, k.last_used_at ?? 'never'])];
  return { human: res.body.length ? table(rows) : ['No API keys.'], json: res.body };
}

export async function keysCreate(ctx: Context, opts: { name?: string | undefined; sandbox: boolean; ip: string[] }): Promise<Output> {
  const team = ctx.client.teamId;
  const body = { ...(opts.name ? { name: opts.name } : {}), is_test: opts.sandbox, ...(opts.ip.length ? { ip_whitelist: opts.ip } : {}) };
  const res = await ctx.client.request<{ key: string; id: number; prefix: string }>('POST', team === undefined ? '/api/v1/keys' : `/app/teams/${team}/keys`, { body });
  return {
    human: [res.body.key, `(key ${res.body.id}; shown once: store it now)`],
    json: res.body,
  };
}

export async function keysRevoke(ctx: Context, id: string): Promise<Output> {
  if (!/^\d+$/.test(id)) throw new CliError(`"${id}" is not a key id (see \`mediagate keys list\`)`, EXIT.usage);
  const team = ctx.client.teamId;
  await ctx.client.request('DELETE', team === undefined ? `/app/delete_api_keys/${id}` : `/app/teams/${team}/keys/${id}`);
  return { human: [`Key ${id} revoked.`], json: { id: Number(id), revoked: true } };
}

export async function balance(ctx: Context): Promise<Output> {
  const res = await ctx.client.request<{ balance: number; held: number; unit: string }>('GET', '/account/balance', { team: true });
  const b = res.body;
  return { human: [`${b.balance} credits available, ${b.held} held by running predictions (1000 credits = 1 USD)`], json: b };
}

// ---------------------------------------------------------------------------------------------
// quote, history, ledger

interface Quote {
  model: string;
  cost: number;
  list_price: number;
  breakdown: { base: number; per_unit: Array<{ field: string; amount: number; units: number; subtotal: number }> | { field: string; amount: number; units: number; subtotal: number } | null; multipliers: Array<{ field: string; value: unknown; percent: number }> };
  discount: unknown;
  balance: number;
  affordable: boolean;
}

export async function quote(ctx: Context, slug: string, pairs: string[], prompt: string | undefined): Promise<Output> {
  ctx.client.requireKey();
  const m = await model(ctx, slug);
  const input = await buildInput(ctx, m, pairs, prompt ?? (m.input_schema.required?.includes('prompt') ? 'quote' : undefined));
  const res = await ctx.client.request<Quote>('POST', '/app/calculate_dynamic_cost', { body: { model: slug, input }, team: true });
  const q = res.body;
  return {
    human: [`${q.cost} credits (${(q.cost / 1000).toFixed(3)} USD) for ${q.model}; your balance ${q.balance}${q.affordable ? '' : ': not enough'}`],
    json: q,
  };
}

interface UsageLog { id: string; model: string; status: string; cost: number; created_at: string; review_status: string; source: string }
interface Page<T> { items: T[]; page: number; page_size: number; total: number | null; has_more: boolean }

export async function predictionsList(ctx: Context, opts: { page: number; status?: string | undefined; model?: string | undefined }): Promise<Output> {
  const filtered = opts.status !== undefined || opts.model !== undefined;
  const res = await ctx.client.request<Page<UsageLog>>('GET', filtered ? '/app/get_run_history_data_by_search' : '/app/get_run_history_data', {
    query: { page: opts.page, include_count: false, status: opts.status, model_name: opts.model },
    team: true,
  });
  const rows = [['ID', 'MODEL', 'STATUS', 'COST', 'SOURCE', 'CREATED'], ...res.body.items.map((p) => [p.id, p.model, p.status, String(p.cost), p.source, p.created_at])];
  const more = res.body.has_more ? [`(more: --page ${opts.page + 1})`] : [];
  return { human: res.body.items.length ? [...table(rows), ...more] : ['No predictions.'], json: res.body };
}

interface LedgerRow { id: number; kind: string; amount: number; balance_after: number; description: string | null; request_id: string | null; created_at: string }

export async function transactions(ctx: Context, page: number): Promise<Output> {
  const res = await ctx.client.request<Page<LedgerRow>>('GET', '/app/credit_transactions', { query: { page }, team: true });
  const rows = [['ID', 'KIND', 'AMOUNT', 'BALANCE', 'PREDICTION', 'WHEN'], ...res.body.items.map((r) => [String(r.id), r.kind, String(r.amount), String(r.balance_after), r.request_id ?? '-', r.created_at])];
  const more = res.body.has_more ? [`(more: --page ${page + 1})`] : [];
  return { human: res.body.items.length ? [...table(rows), ...more] : ['No transactions.'], json: res.body };
}
