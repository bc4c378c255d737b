// One delivery attempt: POST the exact body bytes with their signature headers, no redirects,
// a hard timeout, and at most a small piece of the receiver's answer read (never shown to users).
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
  durationMs: number;
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
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_RESPONSE_BYTES) res.destroy();
      });
      const retryAfter = res.headers['retry-after'];
      const result = { statusCode: res.statusCode ?? 0, ...(typeof retryAfter === 'string' ? { retryAfter } : {}) };
      res.on('end', () => finish(result));
      res.on('close', () => finish(result));
      res.on('error', () => finish(result));
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      finish({ error: err.code === 'EDESTINATION' ? 'destination not permitted' : `${err.code ?? 'network error'}: ${err.message}`.slice(0, 300) });
    });
    req.end(body);
  });
}
