// The dashboard's cookie session (docs/api/dashboard.md "Sessions in the browser"). A login route
// asked for `session=cookie` sets the opaque session token as an HttpOnly cookie instead of
// answering it, so no script on the page can read it; the session scheme (plugins/credentials.ts) reads
// it back. Because a browser sends cookies by itself, every state-changing request made with the
// cookie must also carry the session's CSRF token in a header. That token is derived from the
// session token by HMAC under a key derived from ENCRYPTION_KEY: nothing more is stored, a forger
// who cannot read the cookie cannot compute it, and it dies with the session. Pure: no hapi.
import crypto from 'node:crypto';

/** The header a cookie session's state-changing requests carry the CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';

/** Methods that change nothing, so need no CSRF token (RFC 9110 section 9.2.1, safe methods). */
const SAFE_METHODS = new Set(['get', 'head', 'options']);

export function isSafeMethod(method: string): boolean {
  return SAFE_METHODS.has(method.toLowerCase());
}

/** Whether cookies are marked Secure: whenever the gateway's public address is https. */
export function cookieSecure(publicUrl: string): boolean {
  return publicUrl.toLowerCase().startsWith('https:');
}

/**
 * The session cookie's name. A studio's storefront served under the gateway's own host (/s/<slug>)
 * shares that host with the gateway's dashboard, so each studio has its own cookie and signing in
 * to one never signs the browser out of the other. Over https the `__Host-` prefix makes the
 * browser refuse the cookie unless it is Secure, host-only and for path / (RFC 6265bis 4.1.3.2).
 */
export function sessionCookieName(secure: boolean, studioSlug?: string): string {
  const base = studioSlug === undefined ? 'mg_session' : `mg_session_${studioSlug}`;
  return secure ? `__Host-${base}` : base;
}

/**
 * A companion cookie the page may read, holding only "1": it tells the page a session cookie was
 * set, so a signed-out browser shows the sign-in without first asking the gateway (and logging a
 * 401). It proves nothing: the session cookie alone authenticates.
 */
export function signedInHintName(secure: boolean, studioSlug?: string): string {
  const base = studioSlug === undefined ? 'mg_signed_in' : `mg_signed_in_${studioSlug}`;
  return secure ? `__Host-${base}` : base;
}

/** The cookie's attributes in hapi's terms: HttpOnly, SameSite=Strict, path /, Secure over https, for the session's lifetime. */
export function sessionCookieOptions(secure: boolean, ttlSeconds: number) {
  return {
    ttl: ttlSeconds * 1000,
    isSecure: secure,
    isHttpOnly: true,
    isSameSite: 'Strict' as const,
    path: '/',
    encoding: 'none' as const,
    strictHeader: true,
    ignoreErrors: true,
  };
}

/**
 * The cookie that ties a Google sign-in asked for as a cookie session to the browser that started
 * it (handlers/google.ts): it holds the sign-in's `state`, and the callback (or, on a studio's own
 * domain, the hand-off) sets a session only for a browser presenting it. Without it, whoever
 * started a sign-in with their own Google account could send the callback's address to someone
 * else and sign that browser in to their account.
 */
export function signInStateCookieName(secure: boolean): string {
  return secure ? '__Host-mg_google_state' : 'mg_google_state';
}

/** HttpOnly, for the sign-in's lifetime; SameSite=Lax, since Google's redirect back is a navigation from another site. */
export function signInStateCookieOptions(secure: boolean, ttlMs: number) {
  return { ...sessionCookieOptions(secure, ttlMs / 1000), isSameSite: 'Lax' as const };
}

const keys = new WeakMap<Buffer, Buffer>();

/** A key for CSRF tokens only, derived once from ENCRYPTION_KEY (HKDF, RFC 5869), so the sealing key is never used for anything else. */
function csrfKey(encryptionKey: Buffer): Buffer {
  let key = keys.get(encryptionKey);
  if (!key) {
    key = Buffer.from(crypto.hkdfSync('sha256', encryptionKey, Buffer.alloc(0), 'mediagate dashboard csrf v1', 32));
    keys.set(encryptionKey, key);
  }
  return key;
}

/** The CSRF token of a session: HMAC-SHA256 of its token, base64url. */
export function csrfTokenFor(encryptionKey: Buffer, sessionToken: string): string {
  return crypto.createHmac('sha256', csrfKey(encryptionKey)).update(sessionToken).digest('base64url');
}

/** Whether `sent` is the session's CSRF token, compared in constant time. */
export function csrfTokenMatches(encryptionKey: Buffer, sessionToken: string, sent: unknown): boolean {
  if (typeof sent !== 'string' || sent.length === 0 || sent.length > 128) return false;
  const expected = Buffer.from(csrfTokenFor(encryptionKey, sessionToken));
  const given = Buffer.from(sent);
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

/**
 * Set-Cookie values that remove a site's session cookie and its hint: sent with the 401 of a
 * cookie whose session has ended (expired, signed out elsewhere, a password reset), so the page
 * stops presenting it.
 */
export function clearingCookies(secure: boolean, studioSlug?: string): string[] {
  const attrs = `Max-Age=0; Path=/; SameSite=Strict${secure ? '; Secure' : ''}`;
  return [`${sessionCookieName(secure, studioSlug)}=; ${attrs}; HttpOnly`, `${signedInHintName(secure, studioSlug)}=; ${attrs}`];
}
