// The dashboard's only way to the gateway: its documented routes. A signed-in browser holds the
// session as an HttpOnly cookie that this code never sees; state-changing calls add the session's
// CSRF token (from GET /auth/session) as X-CSRF-Token. A tab opened by staff to act as a user (or
// by a support link) keeps that short session as a bearer token in sessionStorage instead, so it
// never replaces the browser's own session. On a studio's storefront under /s/<slug> every call
// names the studio. Errors become sentences.

const TAB_TOKEN_KEY = 'mediagate.session';
const TEAM_KEY = 'mediagate.team';

/** /s/<slug>/…: a studio's storefront served under the gateway's own address. */
const STUDIO_PATH = /^\/s\/([a-z0-9-]{1,40})(\/|$)/.exec(location.pathname);
export const studioSlug = STUDIO_PATH ? STUDIO_PATH[1] : null;
/** Where this app lives: /dashboard, or the storefront's /s/<slug>. */
export const appBase = studioSlug ? `/s/${studioSlug}` : '/dashboard';

let csrfToken = null;
/** The studio whose cookies this page reads: its slug from /s/<slug>, or on its own domain from getSiteInfo. */
let cookieStudio = studioSlug;
export function setSiteStudio(slug) { cookieStudio = slug || null; }

export const session = {
  /** a tab-scoped bearer session (impersonation, support links); null for the browser's own cookie session */
  get token() { return sessionStorage.getItem(TAB_TOKEN_KEY); },
  set token(value) { value ? sessionStorage.setItem(TAB_TOKEN_KEY, value) : sessionStorage.removeItem(TAB_TOKEN_KEY); },
  /** the cookie session's CSRF token (in memory only: GET /auth/session answers it again after a reload) */
  get csrf() { return csrfToken; },
  set csrf(value) { csrfToken = value || null; },
  // the team being acted for survives reloads and new tabs, like the session; cleared at sign-out
  get teamId() { const v = localStorage.getItem(TEAM_KEY); return v ? Number(v) : null; },
  set teamId(value) { value ? localStorage.setItem(TEAM_KEY, String(value)) : localStorage.removeItem(TEAM_KEY); },
};

export class ApiError extends Error {
  constructor(message, status, code, fields = []) {
    super(message);
    this.status = status;
    this.code = code;
    /** a 422's problems, each { field, message }: the body field it names (its first path step) and what is wrong */
    this.fields = fields;
  }
}

/** The fields a 422 names ({loc: ["body", field, ...], msg}), for messages beside them. */
function fieldsOf(body) {
  if (!body || !Array.isArray(body.detail)) return [];
  return body.detail.filter((d) => Array.isArray(d.loc) && d.loc[0] === 'body' && d.loc.length > 1)
    .map((d) => ({ field: String(d.loc[1]), message: String(d.msg || 'is not valid') }));
}

/** One sentence from the gateway's error body ({detail, code}, or a 422's list of fields). */
function sentence(status, body) {
  if (body && typeof body.detail === 'string') return body.detail.charAt(0).toUpperCase() + body.detail.slice(1);
  if (body && Array.isArray(body.detail)) {
    return body.detail.map((d) => `${(d.loc || []).slice(1).join('.') || 'Input'}: ${d.msg}`).join('. ');
  }
  if (status === 0) return 'The gateway cannot be reached. Check your connection and try again.';
  return `The gateway answered with an error (${status}).`;
}

let onSignedOut = () => {};
export function whenSignedOut(fn) { onSignedOut = fn; }

/** The headers every call carries: the tab's bearer session or the cookie's CSRF token, and the studio. */
function credentialHeaders(method) {
  const h = {};
  if (session.token) h.authorization = `Bearer ${session.token}`;
  else if (session.csrf && !['GET', 'HEAD'].includes(method)) h['x-csrf-token'] = session.csrf;
  if (studioSlug) h['x-whitelabel-studio'] = studioSlug;
  return h;
}

/**
 * A JSON request. `team: true` adds the selected team (team_id) to the query. A 401 on an
 * authenticated call means the session ended: the app returns to the sign-in page.
 */
export async function api(method, path, { body, query, team = false, auth = true, headers = {} } = {}) {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query || {})) if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, String(v));
  if (team && session.teamId) url.searchParams.set('team_id', String(session.teamId));
  const h = { accept: 'application/json', ...credentialHeaders(method), ...headers };
  if (body !== undefined) h['content-type'] = 'application/json';
  let res;
  try {
    res = await fetch(url, { method, headers: h, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(sentence(0), 0);
  }
  const text = await res.text();
  let parsed = null;
  try { parsed = text ? JSON.parse(text) : null; } catch { parsed = text; }
  if (!res.ok) {
    if (res.status === 401 && auth) {
      session.token = null;
      session.csrf = null;
      onSignedOut();
    }
    throw new ApiError(sentence(res.status, parsed), res.status, parsed && parsed.code, fieldsOf(parsed));
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** The readable companion of the session cookie (set and cleared with it): without it, this browser holds no session. */
function mayHoldSession() {
  const name = `mg_signed_in${cookieStudio ? `_${cookieStudio}` : ''}`;
  return document.cookie.split(';').some((c) => { const k = c.trim().split('=')[0]; return k === name || k === `__Host-${name}`; });
}

/** The session this browser (or tab) holds: its account, or null when signed out. Keeps the CSRF token. */
export async function currentSession() {
  if (!session.token && !mayHoldSession()) return null;
  try {
    const r = await api('GET', '/auth/session', { auth: false });
    session.csrf = r.body.csrf_token;
    return r.body;
  } catch (err) {
    if (err.status === 401) { session.token = null; return null; }
    throw err;
  }
}

/**
 * Ends the session server-side (the gateway clears the cookie) and forgets the tab's token and team.
 * Throws when the gateway did not confirm it: the session may still be live, so the page stays signed in.
 */
export async function signOut() {
  try {
    await api('POST', '/auth/logout', { auth: false });
  } catch (err) {
    // 401: the session was already over
    if (err.status !== 401) throw new ApiError(`You are not signed out: ${err.message}`, err.status, err.code);
  }
  session.token = null;
  session.csrf = null;
  session.teamId = null;
}

/**
 * Follows a prediction over its event stream until it is terminal; calls onState with each state,
 * and onLogs (when given: the stream then asks for them) with each batch of new log lines.
 */
export async function follow(id, onState, signal, onLogs) {
  const url = new URL(`/api/v1/predictions/${encodeURIComponent(id)}/stream`, location.origin);
  if (session.teamId) url.searchParams.set('team_id', String(session.teamId));
  if (onLogs) url.searchParams.set('logs', 'true');
  for (;;) {
    const res = await fetch(url, { headers: { accept: 'text/event-stream', ...credentialHeaders('GET') }, credentials: 'same-origin', signal });
    if (!res.ok) throw new ApiError(sentence(res.status, await res.json().catch(() => null)), res.status);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
        if (!data) continue;
        const name = event.split('\n').find((l) => l.startsWith('event:'))?.slice(6).trim();
        if (name === 'logs') {
          onLogs?.(JSON.parse(data).lines);
          continue;
        }
        const p = JSON.parse(data);
        onState(p);
        if (['completed', 'failed', 'cancelled'].includes(p.status)) {
          reader.cancel().catch(() => {});
          return p;
        }
      }
    }
    // the stream ended early (the gateway caps its length): follow again
  }
}

/**
 * Uploads a file through the upload-address route (see "Storage and uploads" in the API docs):
 * asks for an address, then sends one PUT with the headers it names. Returns the address answer
 * (file_url, media_type, ...). Registering it in the media library is the caller's choice.
 */
export async function uploadFile(file) {
  const { body: up } = await api('GET', '/app/get_file_upload_url', { team: true, query: { filename: file.name, size_bytes: file.size || undefined } });
  let res;
  try {
    // the address is the credential (single-use or presigned): no session goes with it
    res = await fetch(up.upload_url, { method: up.method, headers: up.headers, body: file, credentials: 'omit' });
  } catch {
    throw new ApiError(sentence(0), 0);
  }
  if (!res.ok) {
    const text = await res.text();
    let parsed = null;
    try { parsed = JSON.parse(text); } catch { /* a store's XML error */ }
    throw new ApiError(parsed ? sentence(res.status, parsed) : `The upload was refused (${res.status}).`, res.status, parsed && parsed.code);
  }
  return up;
}
