// CORS (README "CORS"): hapi's built-in route `cors` settings, filled from CORS_ORIGINS. hapi
// answers the preflight (OPTIONS) of every route that has them, checks Origin and the requested
// headers, and adds the response headers; a disallowed origin gets no CORS headers at all (its
// preflight is a plain 200 the browser refuses), never an error.
import type { Request, RouteOptionsCors } from '@hapi/hapi';

/** What a browser client may send: credentials, idempotency, price cap, tracing and the partner headers. */
export const CORS_ALLOWED_HEADERS: readonly string[] = [
  'Accept', 'Authorization', 'Content-Type', 'If-None-Match', 'Prefer',
  'X-Api-Key', 'Idempotency-Key', 'Max-Cost', 'X-Request-Id',
  'X-Embed-Code', 'X-Agent-Embed-Code', 'X-Whitelabel-Studio', 'X-Embed-Visitor',
];

/** What a browser client may read: the challenge, tracing, back-off, cost, replay and Prefer headers. */
export const CORS_EXPOSED_HEADERS: readonly string[] = [
  'WWW-Authenticate', 'X-Request-Id', 'Retry-After', 'RateLimit', 'RateLimit-Policy',
  'X-Cost', 'X-Balance-Remaining', 'Idempotent-Replayed', 'Preference-Applied', 'X-Embed-Visitor',
];

/** Preflight answers are cached by the browser this long (seconds; browsers cap it lower). */
const MAX_AGE = 600;

/**
 * The server-wide CORS settings for CORS_ORIGINS: false (no CORS headers anywhere but the public
 * documents: same-origin only) when none is configured. No cookies are used, so credentials are
 * never allowed.
 */
export function corsSettings(origins: readonly string[]): RouteOptionsCors | false {
  if (origins.length === 0) return false;
  return {
    origin: [...origins],
    headers: [...CORS_ALLOWED_HEADERS],
    exposedHeaders: [...CORS_EXPOSED_HEADERS],
    maxAge: MAX_AGE,
    credentials: false,
  };
}

/** The public documents (/openapi.json, /docs): readable from any origin, whatever CORS_ORIGINS says. */
export const PUBLIC_CORS: RouteOptionsCors = { origin: ['*'], headers: ['Accept', 'If-None-Match'], maxAge: MAX_AGE, credentials: false };

/**
 * Whether a CORS preflight (OPTIONS with Access-Control-Request-Method) names a path the router
 * refuses for the method it asks about: a malformed %-escape where a path parameter goes, which
 * that method itself gets as 400. hapi's preflight, and the embed preflight, look the path up with
 * `server.match`, which asserts on such a path (a 500 with an error line) instead of returning it:
 * the errors plugin refuses it first, as the method itself would be. Only a path with an escape
 * can fail to decode, so any other is not looked up twice.
 */
export function preflightPathRefused(request: Request): boolean {
  const method = request.headers['access-control-request-method'];
  if (typeof method !== 'string' || method === '' || !request.path.includes('%')) return false;
  try {
    request.server.match(method.toLowerCase() as 'get', request.path, request.info.hostname);
    return false;
  } catch {
    return true;
  }
}
