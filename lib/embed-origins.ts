// Allowed origins of an embed code (README "Embeds"): entries are `host[:port]` or
// `*.domain[:port]`, optionally with a scheme (`https://shop.example.com`). An entry without a
// port matches the scheme's default port only; one without a scheme matches http and https.
// `*.example.com` matches every subdomain of example.com, not example.com itself.
import crypto from 'node:crypto';

const PATTERN = /^(?:(https?):\/\/)?(\*\.)?([a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*)(?::(\d{1,5}))?$/;

/** DNS's limits on a name (RFC 1035): at most 253 characters written out, at most 63 per label. */
export const MAX_HOST_LENGTH = 253;
export const MAX_LABEL_LENGTH = 63;

/** The entry in canonical form (lower case, no trailing slash), or null when it is not one. */
export function normaliseOriginPattern(entry: string): string | null {
  const e = entry.trim().toLowerCase().replace(/\/$/, '');
  const m = PATTERN.exec(e);
  if (!m) return null;
  if (m[4] !== undefined && (Number(m[4]) < 1 || Number(m[4]) > 65535)) return null;
  return e;
}

/**
 * Why a canonical entry's host (the domain of a `*.` entry) can be no host name, or null when it
 * can: longer than DNS allows. Its index key (db/embed-codes.ts) then fits in 255 characters too.
 */
export function originHostProblem(pattern: string): string | null {
  const host = PATTERN.exec(pattern)?.[3];
  if (host === undefined) return null;
  if (host.length > MAX_HOST_LENGTH) return `its host has ${host.length} characters; a host name has at most ${MAX_HOST_LENGTH}`;
  const label = host.split('.').find((l) => l.length > MAX_LABEL_LENGTH);
  if (label !== undefined) return `its host has a label of ${label.length} characters; a host name's labels have at most ${MAX_LABEL_LENGTH}`;
  return null;
}

/** The request's origin: the Origin header, else the origin of the Referer; null when neither gives one. */
export function requestOrigin(origin: unknown, referer: unknown): string | null {
  for (const v of [origin, referer]) {
    if (typeof v !== 'string' || v === '' || v === 'null') continue;
    try {
      const url = new URL(v);
      if (url.protocol === 'http:' || url.protocol === 'https:') return url.origin;
    } catch { /* not a URL: try the next header */ }
  }
  return null;
}

/** Whether an origin (`scheme://host[:port]`) matches one of the canonical entries. */
export function originAllowed(origin: string, patterns: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  const scheme = url.protocol.slice(0, -1);
  return patterns.some((p) => {
    const m = PATTERN.exec(p);
    if (!m) return false;
    const [, pScheme, wildcard, host, port] = m;
    if (pScheme !== undefined && pScheme !== scheme) return false;
    if ((port ?? '') !== url.port) return false;
    return wildcard ? url.hostname.endsWith(`.${host}`) : url.hostname === host;
  });
}

/**
 * The key a canonical entry is indexed by (db/embed-codes.ts): its host, or `*.` + the domain for a
 * wildcard entry. An origin can only match entries under originKeys(origin).
 */
export function originHostKey(pattern: string): string {
  const m = PATTERN.exec(pattern);
  return m ? `${m[2] ?? ''}${m[3]}` : pattern;
}

/** The keys of every entry that could match this origin: its host, and `*.` + each parent domain. */
export function originKeys(origin: string): string[] {
  let host: string;
  try {
    host = new URL(origin).hostname;
  } catch {
    return [];
  }
  const keys = [host];
  const labels = host.split('.');
  for (let i = 1; i < labels.length; i++) keys.push(`*.${labels.slice(i).join('.')}`);
  return keys;
}

/**
 * Every canonical entry that matches this origin, as stored: each of its keys (originKeys), without
 * a scheme and with the origin's, with the origin's port when it names one. originAllowed agrees:
 * an entry matches an origin exactly when it is one of these.
 */
export function originCandidates(origin: string): string[] {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return [];
  }
  const port = url.port === '' ? '' : `:${url.port}`;
  return originKeys(origin).flatMap((k) => [`${k}${port}`, `${url.protocol}//${k}${port}`]);
}

/** Visitor ids (X-Embed-Visitor): `vis_` plus 128 random bits; only their SHA-256 is stored. */
export const VISITOR_PATTERN = /^vis_[A-Za-z0-9_-]{22}$/;

export function newVisitorId(): string {
  return `vis_${crypto.randomBytes(16).toString('base64url')}`;
}
