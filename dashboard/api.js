// The dashboard's only way to the gateway: its documented routes, with the session token as a
// bearer credential (kept in sessionStorage: it ends with the tab). Errors become sentences.

const SESSION_KEY = 'mediagate.session';
const TEAM_KEY = 'mediagate.team';

export const session = {
  get token() { return sessionStorage.getItem(SESSION_KEY); },
  set token(value) { value ? sessionStorage.setItem(SESSION_KEY, value) : sessionStorage.removeItem(SESSION_KEY); },
  get teamId() { const v = sessionStorage.getItem(TEAM_KEY); return v ? Number(v) : null; },
  set teamId(value) { value ? sessionStorage.setItem(TEAM_KEY, String(value)) : sessionStorage.removeItem(TEAM_KEY); },
};

export class ApiError extends Error {
  constructor(message, status, code) {
    super(message);
    this.status = status;
    this.code = code;
  }
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

/**
 * A JSON request. `team: true` adds the selected team (team_id) to the query. A 401 on an
 * authenticated call means the session ended: the app returns to the sign-in page.
 */
export async function api(method, path, { body, query, team = false, auth = true, headers = {} } = {}) {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query || {})) if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, String(v));
  if (team && session.teamId) url.searchParams.set('team_id', String(session.teamId));
  const h = { accept: 'application/json', ...headers };
  if (auth && session.token) h.authorization = `Bearer ${session.token}`;
  if (body !== undefined) h['content-type'] = 'application/json';
  let res;
  try {
    res = await fetch(url, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(sentence(0), 0);
  }
  const text = await res.text();
  let parsed = null;
  try { parsed = text ? JSON.parse(text) : null; } catch { parsed = text; }
  if (!res.ok) {
    if (res.status === 401 && auth && session.token) {
      session.token = null;
      onSignedOut();
    }
    throw new ApiError(sentence(res.status, parsed), res.status, parsed && parsed.code);
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** Follows a prediction over its event stream until it is terminal; calls onState with each state. */
export async function follow(id, onState, signal) {
  const url = new URL(`/api/v1/predictions/${encodeURIComponent(id)}/stream`, location.origin);
  if (session.teamId) url.searchParams.set('team_id', String(session.teamId));
  for (;;) {
    const res = await fetch(url, { headers: { accept: 'text/event-stream', authorization: `Bearer ${session.token}` }, signal });
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
 * Uploads a file through the upload-address route (docs/api/uploads.md "Storage and uploads"): asks for an
 * address, then sends one PUT with the headers it names. Returns the address answer (file_url,
 * media_type, ...). Registering it in the media library is the caller's choice.
 */
export async function uploadFile(file) {
  const { body: up } = await api('GET', '/app/get_file_upload_url', { team: true, query: { filename: file.name, size_bytes: file.size || undefined } });
  let res;
  try {
    // the address is the credential (single-use or presigned): no session goes with it
    res = await fetch(up.upload_url, { method: up.method, headers: up.headers, body: file });
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
