// `npm run providers:check` (README "Providers"): one cheap authenticated call per configured
// provider, a table of the answers, and a non-zero exit when any configured provider fails.
//
//   openai-compatible   GET {url}/models      (OpenAI: lists the models the key may use)
//   replicate           GET {url}/account     (Replicate: the account the token belongs to)
//   fal                 GET https://api.fal.ai/v1/models?limit=1 with "Key" auth (fal's Platform
//                       API, whatever UPSTREAM_FAL_URL says: the queue has no account call; an
//                       API-scope key may call it, fal's docs use it as their key example)
//   wavespeed           GET {url}/balance     (WaveSpeed: the account's balance)
//   http-json, ...      no check call is known: listed as "configured", not called
//
// Which adapter speaks to a provider comes from the spec (x-model.adapter, or each entry of
// x-model.providers); public providers (PROVIDER_DEFAULT_URLS) are listed even when unused, so an
// operator sees the key that is missing. Nothing here prints a key or a provider's URL.
import { loadConfig, ConfigError, PROVIDER_DEFAULT_URLS } from '../config.ts';
import { loadSpecDocument } from '../spec/load.ts';
import { callJson, joinUrl } from './adapters/upstream-http.ts';
import { configureHint } from './adapters/upstream-config.ts';
import { unwrap } from './adapters/wavespeed.ts';
import type { UpstreamConfig } from './adapters/types.ts';
import path from 'node:path';

/** How long one check may take before it counts as failed. */
const CHECK_TIMEOUT_MS = 15_000;

export interface ProviderCheck {
  provider: string;
  adapter: string;
  configured: boolean;
  /** 'ok', 'error', 'not checked' (configured, but no check call is known), '-' (not configured) */
  result: 'ok' | 'error' | 'not checked' | '-';
  /** why it failed, or what to set; never a key or a URL */
  detail: string;
  latencyMs?: number;
}

/** fal's Platform API, where account-level calls live (the queue at UPSTREAM_FAL_URL has none). */
export const FAL_PLATFORM_URL = 'https://api.fal.ai/v1';

/** The check call of an adapter, or undefined when none is known. */
const CHECKS: Readonly<Record<string, (upstream: UpstreamConfig) => { url: string; headers: Record<string, string> }>> = {
  'openai-compatible': (u) => ({ url: joinUrl(u.url, '/models'), headers: bearer(u) }),
  replicate: (u) => ({ url: joinUrl(u.url, '/account'), headers: bearer(u) }),
  fal: (u) => ({ url: joinUrl(FAL_PLATFORM_URL, '/models?limit=1'), headers: u.key ? { authorization: `Key ${u.key}` } : ({} as Record<string, string>) }),
  wavespeed: (u) => ({ url: joinUrl(u.url, '/balance'), headers: bearer(u) }),
};

function bearer(u: UpstreamConfig): Record<string, string> {
  return u.key ? { authorization: `Bearer ${u.key}` } : {};
}

/** The adapter of a public provider the spec does not use (its name is its adapter's, but OpenAI's). */
function defaultAdapter(provider: string): string {
  if (provider === 'openai') return 'openai-compatible';
  return Object.hasOwn(CHECKS, provider) ? provider : 'unknown';
}

/** provider name -> the adapter that speaks to it, from the spec's x-model (both forms). */
export function providersOfSpec(document: { paths: Record<string, Record<string, unknown>> }): Map<string, string> {
  const found = new Map<string, string>();
  const note = (entry: unknown) => {
    const { adapter, upstream } = (entry ?? {}) as { adapter?: unknown; upstream?: unknown };
    if (typeof adapter === 'string' && typeof upstream === 'string' && !found.has(upstream)) found.set(upstream, adapter);
  };
  for (const item of Object.values(document.paths)) {
    for (const op of Object.values(item)) {
      const x = (op as { 'x-model'?: { providers?: unknown } } | null)?.['x-model'];
      if (!x) continue;
      if (Array.isArray(x.providers)) x.providers.forEach(note);
      else note(x);
    }
  }
  return found;
}

/**
 * Checks every provider the spec names (and every public one): configured or not, and for a
 * configured one with a known check call, whether the call succeeds with its key.
 */
export async function checkProviders(upstreams: ReadonlyMap<string, UpstreamConfig>, adapters: ReadonlyMap<string, string>, timeoutMs = CHECK_TIMEOUT_MS): Promise<ProviderCheck[]> {
  const names = [...new Set([...Object.keys(PROVIDER_DEFAULT_URLS), ...adapters.keys(), ...upstreams.keys()])].sort();
  return Promise.all(names.map(async (provider): Promise<ProviderCheck> => {
    const adapter = adapters.get(provider) ?? defaultAdapter(provider);
    const upstream = upstreams.get(provider);
    if (!upstream) return { provider, adapter, configured: false, result: '-', detail: `set ${configureHint(provider)}` };
    const check = CHECKS[adapter];
    if (!check) return { provider, adapter, configured: true, result: 'not checked', detail: `no check call known for ${adapter}` };
    const started = performance.now();
    const caller = { provider, secrets: [upstream.key ?? '', upstream.url], signal: AbortSignal.timeout(timeoutMs) };
    try {
      const { url, headers } = check(upstream);
      const { body } = await callJson(caller, { method: 'GET', url, headers, what: 'the check', timeoutMs });
      // WaveSpeed answers HTTP 200 with the real status in its envelope's `code`.
      if (adapter === 'wavespeed') unwrap(caller, body, 'the check');
      return { provider, adapter, configured: true, result: 'ok', detail: '', latencyMs: Math.round(performance.now() - started) };
    } catch (err) {
      // AdapterError messages are redacted (no key, no URL) by upstream-errors.ts.
      return { provider, adapter, configured: true, result: 'error', detail: (err as Error).message, latencyMs: Math.round(performance.now() - started) };
    }
  }));
}

/** The rows as a plain-text table. */
export function formatChecks(rows: readonly ProviderCheck[]): string {
  const table = [['provider', 'adapter', 'configured', 'result', 'latency', 'detail'],
    ...rows.map((r) => [r.provider, r.adapter, r.configured ? 'yes' : 'no', r.result, r.latencyMs === undefined ? '-' : `${r.latencyMs} ms`, r.detail])];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  return table.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd()).join('\n');
}

/** 1 when any configured provider failed its check, else 0. */
export function exitCodeOf(rows: readonly ProviderCheck[]): number {
  return rows.some((r) => r.result === 'error') ? 1 : 0;
}

const isMain = process.argv[1] && new URL(import.meta.url).pathname === path.resolve(process.argv[1]);
if (isMain) {
  try {
    const config = loadConfig();
    const document = loadSpecDocument(path.join(import.meta.dirname, '..', 'spec', 'v1')) as unknown as { paths: Record<string, Record<string, unknown>> };
    const rows = await checkProviders(config.upstreams, providersOfSpec(document));
    process.stdout.write(`${formatChecks(rows)}\n`);
    process.exitCode = exitCodeOf(rows);
  } catch (err) {
    process.stderr.write(`providers:check: ${err instanceof ConfigError ? err.message : (err as Error).message}\n`);
    process.exitCode = 2;
  }
}
