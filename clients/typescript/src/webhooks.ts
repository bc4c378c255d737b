// Verifying the gateway's webhook deliveries (Standard Webhooks v1, as the gateway signs them):
// `webhook-signature` is one or more space-separated `v1,<base64 HMAC-SHA256>` of
// "<webhook-id>.<webhook-timestamp>.<raw body>", keyed with the bytes of the secret (the base64
// after `whsec_`). After a secret rotation the gateway sends two signatures for a while, one per
// secret; a delivery is genuine when any signature matches any of the receiver's secrets. HMAC
// through crypto.subtle, so it runs in Node 20+, browsers and edge runtimes alike.
import { WebhookVerificationError } from './errors.ts';
import type { WebhookPayload } from './types.ts';

export interface VerifyOptions {
  /** how old (or how far in the future) `webhook-timestamp` may be, in seconds (default 300) */
  toleranceSeconds?: number;
  /** the current time in ms (default Date.now()), for tests */
  now?: number;
}

export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(' ') : value;
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function secretBytes(secret: string): Uint8Array<ArrayBuffer> {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  try {
    return fromBase64(encoded);
  } catch {
    throw new WebhookVerificationError('the webhook secret is not base64 (it looks like whsec_ followed by base64)');
  }
}

/** Constant time in the length of the expected value. */
function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

async function sign(secret: Uint8Array<ArrayBuffer>, content: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, content));
}

/**
 * Checks a delivery and returns its parsed body. `body` must be the raw bytes (or text) as
 * received, before any JSON parsing; `secret` the account's (or team's) `whsec_…` secret, or
 * several while a receiver moves from one to the next. Throws WebhookVerificationError when the
 * headers are missing, the timestamp is outside the tolerance, or no signature matches.
 */
export async function verifyWebhook(
  body: string | Uint8Array | ArrayBuffer,
  headers: HeaderSource,
  secret: string | readonly string[],
  options: VerifyOptions = {},
): Promise<WebhookPayload> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a number of seconds');
  const tolerance = options.toleranceSeconds ?? 300;
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  const sent = Number(timestamp);
  if (sent < now - tolerance) throw new WebhookVerificationError('webhook-timestamp is too old: a replayed or long-delayed delivery');
  if (sent > now + tolerance) throw new WebhookVerificationError('webhook-timestamp is in the future');

  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body instanceof Uint8Array ? body : new Uint8Array(body);
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const content = new Uint8Array(prefix.length + bytes.length);
  content.set(prefix, 0);
  content.set(bytes, prefix.length);

  const offered: Uint8Array[] = [];
  for (const part of signatures.split(' ')) {
    const [version, value] = part.split(',', 2);
    if (version !== 'v1' || !value) continue;
    try {
      offered.push(fromBase64(value));
    } catch {
      // a malformed entry cannot match; the others may
    }
  }
  for (const s of typeof secret === 'string' ? [secret] : secret) {
    const expected = await sign(secretBytes(s), content);
    if (offered.some((o) => equal(o, expected))) {
      const text = typeof body === 'string' ? body : new TextDecoder().decode(bytes);
      try {
        return JSON.parse(text) as WebhookPayload;
      } catch {
        throw new WebhookVerificationError('the signed body is not JSON');
      }
    }
  }
  throw new WebhookVerificationError('no webhook-signature matches the secret');
}
