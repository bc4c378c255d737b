// One delivery attempt: POST the exact body bytes with their signature headers, no redirects,
// a hard timeout, and at most a small piece of the receiver's answer read; its first bytes are
// kept as the attempt's excerpt in the delivery log.
import http from 'node:http';
import https from 'node:https';
import ipaddr from 'ipaddr.js';
import { addressPermitted, pinnedLookup } from '../../lib/destination-policy.ts';
import type { DestinationPolicy } from '../../lib/destination-policy.ts';

const MAX_RESPONSE_BYTES = 4096;

export interface AttemptResult {
  /** HTTP status, when the receiver answered */
  statusCode?: number;
  retryAfter?: string;
  /** network error, timeout or refused destination */
  error?: string;
  /** the first bytes of the receiver's answer as text (responseExcerpt), when it answered with a body */
  excerpt?: string;
  durationMs: number;
}

/** How much of a receiver's answer the delivery log keeps. */
export const RESPONSE_EXCERPT_BYTES = 512;

/**
 * The first RESPONSE_EXCERPT_BYTES of an answer as UTF-8 text, safe to show in a log or a page:
 * a character cut in half at the end, or bytes that are not UTF-8, become U+FFFD; line breaks and
 * tabs become spaces and every other control character U+FFFD. Undefined for an empty body.
 */
export function responseExcerpt(body: Buffer): string | undefined {
  if (body.length === 0) return undefined;
  const text = body.subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8');
  return text.replace(/[\t\n\r]/g, ' ').replace(/[\u0000-\u001f\u007f-\u009f]/g, '\ufffd');
}

const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 64 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

export function sendWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: { timeoutMs: number; policy: DestinationPolicy },
): Promise<AttemptResult> {
  const started = performance.now();
  const done = (r: Omit<AttemptResult, 'durationMs'>): AttemptResult => ({ ...r, durationMs: Math.round(performance.now() - started) });
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(done({ error: 'invalid URL' }));
  }
  const host = target.hostname.replace(/^\[|\]$/g, '');
  // A literal address never goes through `lookup`, so it is checked here.
  if (ipaddr.isValid(host) && !addressPermitted(host, opts.policy)) return Promise.resolve(done({ error: 'destination not permitted' }));
  if (target.protocol !== 'https:' && !(opts.policy.allowInsecure && target.protocol === 'http:')) return Promise.resolve(done({ error: 'destination not permitted' }));

  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (r: Omit<AttemptResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(r));
    };
    const req = client.request(target, {
      method: 'POST',
      agent: target.protocol === 'https:' ? agents.https : agents.http,
      lookup: pinnedLookup(opts.policy),
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'mediagate-webhooks/1',
      },
    });
    // One deadline for connect, headers and body alike.
    const timer = setTimeout(() => {
      req.destroy();
      finish({ error: `timed out after ${opts.timeoutMs} ms` });
    }, opts.timeoutMs);
    req.on('response', (res) => {
      let read = 0;
      const head: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        if (read < RESPONSE_EXCERPT_BYTES) head.push(chunk.subarray(0, RESPONSE_EXCERPT_BYTES - read));
        read += chunk.length;
        if (read > MAX_RESPONSE_BYTES) res.destroy();
      });
      const retryAfter = res.headers['retry-after'];
      const result = () => {
        const excerpt = responseExcerpt(Buffer.concat(head));
        return { statusCode: res.statusCode ?? 0, ...(typeof retryAfter === 'string' ? { retryAfter } : {}), ...(excerpt !== undefined ? { excerpt } : {}) };
      };
      res.on('end', () => finish(result()));
      res.on('close', () => finish(result()));
      res.on('error', () => finish(result()));
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      finish({ error: err.code === 'EDESTINATION' ? 'destination not permitted' : `${err.code ?? 'network error'}: ${err.message}`.slice(0, 300) });
    });
    req.end(body);
  });
}
