// Provider callbacks (README "Providers", "Callbacks"): the address a provider is asked to call
// back, and the checks of what arrives there. Transport-free: the ingress handler and the
// adapters' callers share it.
//
// Address: {PUBLIC_URL}/api/v1/upstream-webhooks/{provider}/{token}, token = "<prediction id>.<mac>",
// mac = base64url(HMAC-SHA256(k, "<provider>:<prediction id>")) with k derived from ENCRYPTION_KEY.
// The mac makes the address unguessable per prediction (256 bits); the provider's own signature
// (below) proves who sent the body. Both must pass.
//
// Signatures:
//   replicate  Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature "v1,<base64
//              HMAC-SHA256 of id.timestamp.body>" (space-separated list); the secret is the account's
//              "whsec_<base64>" signing secret (REPLICATE_WEBHOOK_SECRET).
//   fal        ED25519 over "<request id>\n<user id>\n<timestamp>\n<hex SHA-256 of the body>", hex
//              signature in X-Fal-Webhook-Signature, with the other three in X-Fal-Webhook-Request-Id,
//              -User-Id and -Timestamp; the public keys are a JWKS (OKP / Ed25519) fal publishes
//              (FAL_WEBHOOK_JWKS_URL).
//   wavespeed  webhook-id, webhook-timestamp, webhook-signature "v3,<hex HMAC-SHA256 of
//              id.timestamp.body>"; the key is the account's webhook secret with its "whsec_" prefix
//              cut off, used as it is (not base64-decoded: WaveSpeed's "Verifying Webhook" page)
//              (WAVESPEED_WEBHOOK_SECRET, from GET /api/v3/webhook/secret).
// All refuse a timestamp more than 5 minutes from our clock (a replayed callback).
import crypto from 'node:crypto';
import { readCapped } from './read-capped.ts';

/** Providers whose callbacks the gateway can verify: the {provider} path segment (the adapter's name). */
export const CALLBACK_PROVIDERS = ['replicate', 'fal', 'wavespeed'] as const;
export type CallbackProvider = (typeof CALLBACK_PROVIDERS)[number];

export const CALLBACK_TOLERANCE_S = 5 * 60;
const CALLBACK_PATH = '/api/v1/upstream-webhooks';

export function isCallbackProvider(name: string): name is CallbackProvider {
  return (CALLBACK_PROVIDERS as readonly string[]).includes(name);
}

export interface CallbackConfig {
  /** UPSTREAM_CALLBACKS: ask providers to call back (needs PUBLIC_URL and ENCRYPTION_KEY) */
  enabled: boolean;
  publicUrl: string;
  /** the key the address tokens are derived from; undefined: no address can be made or checked */
  key: Buffer | undefined;
  /** REPLICATE_WEBHOOK_SECRET ("whsec_..."); undefined: Replicate callbacks cannot be verified, so none are asked for */
  replicateSecret: string | undefined;
  /** FAL_WEBHOOK_JWKS_URL */
  falJwksUrl: string;
  /** WAVESPEED_WEBHOOK_SECRET ("whsec_..."); unset: WaveSpeed callbacks cannot be verified, so none are asked for */
  wavespeedSecret?: string;
}

/** The token key: a sub-key of ENCRYPTION_KEY, so one secret never serves two purposes. */
function tokenKey(key: Buffer): Buffer {
  return Buffer.from(crypto.hkdfSync('sha256', key, Buffer.alloc(0), 'mediagate upstream callback tokens v1', 32));
}

function mac(key: Buffer, provider: string, predictionId: string): string {
  return crypto.createHmac('sha256', tokenKey(key)).update(`${provider}:${predictionId}`).digest('base64url');
}

/** The path token of one prediction's callbacks from one provider. */
export function callbackToken(key: Buffer, provider: CallbackProvider, predictionId: string): string {
  return `${predictionId}.${mac(key, provider, predictionId)}`;
}

/** The prediction id a token names, when its mac is right (constant-time); undefined otherwise. */
export function readCallbackToken(key: Buffer | undefined, provider: CallbackProvider, token: string): string | undefined {
  if (!key) return undefined;
  const dot = token.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const id = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1), 'utf8');
  const expected = Buffer.from(mac(key, provider, id), 'utf8');
  return given.length === expected.length && crypto.timingSafeEqual(given, expected) ? id : undefined;
}

/** Whether the gateway can check this provider's signature with the configuration it has. */
export function canVerify(config: CallbackConfig, provider: CallbackProvider): boolean {
  if (provider === 'replicate') return config.replicateSecret !== undefined;
  if (provider === 'wavespeed') return config.wavespeedSecret !== undefined;
  return config.falJwksUrl !== '';
}

/**
 * The callback address for one prediction's job at `provider` (the adapter name), or undefined
 * when callbacks are off, no key is configured or the provider's signature could not be checked.
 */
export function callbackUrlFor(config: CallbackConfig, provider: string, predictionId: string): string | undefined {
  if (!config.enabled || !config.key || !isCallbackProvider(provider) || !canVerify(config, provider)) return undefined;
  return `${config.publicUrl}${CALLBACK_PATH}/${provider}/${callbackToken(config.key, provider, predictionId)}`;
}

type Headers = Record<string, string | string[] | undefined>;
const header = (headers: Headers, name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** Why a callback was refused (the ingress answers 401 with it); null when it verified. */
export type SignatureProblem = string | null;

function timestampProblem(raw: string | undefined, nowMs: number): SignatureProblem {
  if (!raw || !/^\d{1,12}$/.test(raw)) return 'missing or malformed timestamp';
  return Math.abs(nowMs / 1000 - Number(raw)) > CALLBACK_TOLERANCE_S ? 'timestamp outside the 5-minute tolerance' : null;
}

/** Standard Webhooks (Replicate): any listed v1 signature matching is enough (secret rotation). */
export function verifyStandardWebhook(secret: string, headers: Headers, body: Buffer, nowMs: number): SignatureProblem {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !signatures) return 'missing webhook-id or webhook-signature';
  const stale = timestampProblem(timestamp, nowMs);
  if (stale) return stale;
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const expected = crypto.createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
  for (const entry of signatures.split(' ')) {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) continue;
    const given = Buffer.from(value, 'base64');
    if (given.length === expected.length && crypto.timingSafeEqual(given, expected)) return null;
  }
  return 'signature does not match';
}

/** WaveSpeed's webhook signature: any listed v3 signature matching is enough. */
export function verifyWaveSpeedWebhook(secret: string, headers: Headers, body: Buffer, nowMs: number): SignatureProblem {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !signatures) return 'missing webhook-id or webhook-signature';
  const stale = timestampProblem(timestamp, nowMs);
  if (stale) return stale;
  const key = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  const expected = crypto.createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
  for (const entry of signatures.split(' ')) {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v3' || !value || !/^[0-9a-f]{64}$/i.test(value)) continue;
    const given = Buffer.from(value, 'hex');
    if (crypto.timingSafeEqual(given, expected)) return null;
  }
  return 'signature does not match';
}

/** The Ed25519 public keys of a JWKS document (other keys are ignored). */
export function ed25519Keys(jwks: unknown): crypto.KeyObject[] {
  const keys = (jwks as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) return [];
  const out: crypto.KeyObject[] = [];
  for (const k of keys as Array<Record<string, unknown>>) {
    if (k?.kty !== 'OKP' || k.crv !== 'Ed25519' || typeof k.x !== 'string') continue;
    try {
      out.push(crypto.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: k.x }, format: 'jwk' }));
    } catch {
      // a malformed key is skipped; the others may still verify
    }
  }
  return out;
}

/** fal's ED25519 callback signature, checked against each key. */
export function verifyFalWebhook(keys: readonly crypto.KeyObject[], headers: Headers, body: Buffer, nowMs: number): SignatureProblem {
  const requestId = header(headers, 'x-fal-webhook-request-id');
  const userId = header(headers, 'x-fal-webhook-user-id');
  const timestamp = header(headers, 'x-fal-webhook-timestamp');
  const signature = header(headers, 'x-fal-webhook-signature');
  if (!requestId || !userId || !signature) return 'missing X-Fal-Webhook-Request-Id, -User-Id or -Signature';
  const stale = timestampProblem(timestamp, nowMs);
  if (stale) return stale;
  if (!/^[0-9a-f]{128}$/i.test(signature)) return 'malformed signature';
  const digest = crypto.createHash('sha256').update(body).digest('hex');
  const message = Buffer.from(`${requestId}\n${userId}\n${timestamp}\n${digest}`, 'utf8');
  const sig = Buffer.from(signature, 'hex');
  return keys.some((key) => crypto.verify(null, message, key, sig)) ? null : 'signature does not match';
}

/** How long a failed load of fal's key set is remembered: no callback fetches it again before then. */
export const FAL_KEYS_RETRY_MS = 60_000;

/** The most of fal's key set read into memory: a JWKS of a few keys is a few KB. */
export const FAL_KEYS_MAX_BYTES = 1024 * 1024;

/**
 * fal's key set, fetched from FAL_WEBHOOK_JWKS_URL and kept for a day; fetched again (at most
 * once a minute) when no cached key verifies, so a key rotation is picked up at once. Nothing is
 * fetched for a callback that carries no well-formed, fresh signature; concurrent callbacks share
 * one fetch; and a failed fetch is remembered for FAL_KEYS_RETRY_MS, so callbacks arriving while
 * fal's keys cannot be loaded are refused without a request each. At most FAL_KEYS_MAX_BYTES of
 * the answer are read: a larger one is a failed fetch.
 */
export function createFalKeySet(url: string, fetchTimeoutMs = 10_000, now: () => number = Date.now) {
  let cached: { keys: crypto.KeyObject[]; at: number } | undefined;
  let failed: { error: Error; at: number } | undefined;
  let loading: Promise<crypto.KeyObject[]> | undefined;
  async function fetchKeys(): Promise<crypto.KeyObject[]> {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(fetchTimeoutMs), redirect: 'error', headers: { accept: 'application/json' } });
      if (!res.ok) throw new Error(`the fal key set answered HTTP ${res.status}`);
      // a larger answer is refused (declared) or cut off (counted), and fails like any other
      const text = await readCapped(res, FAL_KEYS_MAX_BYTES);
      if (text === undefined) throw new Error('the fal key set is larger than 1 MiB; it was not read');
      const keys = ed25519Keys(JSON.parse(text));
      cached = { keys, at: now() };
      failed = undefined;
      return keys;
    } catch (err) {
      failed = { error: err instanceof Error ? err : new Error(String(err)), at: now() };
      throw failed.error;
    }
  }
  function load(): Promise<crypto.KeyObject[]> {
    if (failed && now() - failed.at < FAL_KEYS_RETRY_MS) return Promise.reject(failed.error);
    loading ??= fetchKeys().finally(() => { loading = undefined; });
    return loading;
  }
  return {
    async verify(headers: Headers, body: Buffer, nowMs: number): Promise<SignatureProblem> {
      // headers, timestamp and the signature's form first: an unsigned or stale callback costs no fetch
      const shape = verifyFalWebhook([], headers, body, nowMs);
      if (shape !== 'signature does not match') return shape;
      const keys = cached && now() - cached.at < 24 * 3600_000 ? cached.keys : await load();
      const problem = verifyFalWebhook(keys, headers, body, nowMs);
      if (problem !== 'signature does not match' || !cached || now() - cached.at < 60_000) return problem;
      return verifyFalWebhook(await load(), headers, body, nowMs);
    },
  };
}
