// Small shared pieces: an error or notice as a sentence, a copy button, dates, the state of a
// page that manages a team's resources offered on models (embed codes, studios).
import { html, useEffect, useState } from '/dashboard/vendor/preact-htm.js';
import { api } from '../api.js';

export function Notice({ error, children }) {
  if (!error && !children) return null;
  return html`<p class=${error ? 'notice error' : 'notice'} role=${error ? 'alert' : 'status'}>${error ? error.message || String(error) : children}</p>`;
}

export function CopyButton({ text, label = 'Copy' }) {
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setDone(true);
      setTimeout(() => setDone(false), 1500);
    } catch { /* clipboard refused (no permission): the text stays selectable */ }
  };
  return html`<button type="button" class="secondary" onClick=${copy}>${done ? 'Copied' : label}</button>`;
}

export function when(iso) {
  if (!iso) return 'never';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

export function credits(n) {
  return `${Number(n).toLocaleString()} credits`;
}

/** Credits and their dollar value (1,000 credits = 1 USD). */
export function usd(n) {
  return (Number(n) / 1000).toLocaleString(undefined, { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 3 });
}

export function day(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleDateString();
}

/** Previous / next for the gateway's paged lists ({page, has_more, total}). */
export function Pager({ data, onPage, label = 'Pages' }) {
  if (!data || (data.page === 1 && !data.has_more)) return null;
  const pages = data.total === null || data.total === undefined ? null : Math.max(1, Math.ceil(data.total / data.page_size));
  return html`<nav class="pager" aria-label=${label}>
    <button type="button" class="secondary" disabled=${data.page <= 1} onClick=${() => onPage(data.page - 1)}>Previous</button>
    <span>Page ${data.page}${pages ? ` of ${pages}` : ''}</span>
    <button type="button" class="secondary" disabled=${!data.has_more} onClick=${() => onPage(data.page + 1)}>Next</button>
  </nav>`;
}

/**
 * Whether an address may become a link or a media source: http(s), or a path of this site. Anything
 * else (javascript:, data:, ...) could run or show a page as this site's, and is shown as text only.
 */
export function linkable(url) {
  return typeof url === 'string' && (/^https?:\/\//i.test(url) || /^\/(?![/\\])/.test(url));
}

/** An output shown inline by its media type; NSFW outputs are blurred until clicked. */
export function Media({ url, kind, nsfw, alt = 'Generated output' }) {
  const [shown, setShown] = useState(!nsfw);
  // flagged later (a review action): blurred again
  useEffect(() => setShown(!nsfw), [nsfw, url]);
  if (!linkable(url)) return html`<p class="muted">This file's address is not an http or https address, so it is not shown.</p>`;
  if (!shown) {
    return html`<button type="button" class="nsfw-blur" onClick=${() => setShown(true)} aria-label="This output may be sensitive. Show it.">
      ${kind === 'image' ? html`<img src=${url} alt="" aria-hidden="true" />` : null}
      <span>This output may be sensitive. Show it.</span></button>`;
  }
  if (kind === 'image') return html`<a href=${url} target="_blank" rel="noopener"><img src=${url} alt=${alt} loading="lazy" /></a>`;
  if (kind === 'video') return html`<video src=${url} controls playsinline preload="metadata" />`;
  if (kind === 'audio') return html`<audio src=${url} controls preload="none" />`;
  return html`<a href=${url} download>Download the ${kind === 'model3d' ? '3D model' : 'file'}</a>`;
}

/** A guess at an output's kind from its file name, for records that do not name it. */
export function kindOfUrl(url) {
  const ext = String(url).split('?')[0].split('.').pop().toLowerCase();
  if (['png', 'jpg', 'jpeg', 'webp', 'gif'].includes(ext)) return 'image';
  if (['mp4', 'webm', 'mov'].includes(ext)) return 'video';
  if (['mp3', 'wav', 'ogg', 'm4a', 'flac'].includes(ext)) return 'audio';
  if (['glb', 'gltf', 'obj', 'fbx', 'usdz', 'ply'].includes(ext)) return 'model3d';
  if (['txt', 'json', 'md'].includes(ext)) return 'text';
  return 'file';
}

export const REVIEW = ['unreviewed', 'approved', 'rejected', 'flagged'];
export const STATUSES = ['queued', 'pending', 'processing', 'completed', 'failed', 'cancelled'];

/**
 * The state of a page that lists the selected team's resources at `path` (GET), offers the model
 * catalog to pick from, and creates or edits one at a time in a form whose empty state is `blank`.
 * `submit(send, noteOf)` runs a create or save: `send()` makes the request; on success the note
 * says `noteOf(body)`, the form empties and the list reloads; it answers the body (undefined on
 * an error, which is shown).
 */
export function useTeamResources(path, blank) {
  const [items, setItems] = useState(null);
  const [models, setModels] = useState([]);
  const [form, setForm] = useState(blank);
  const [editing, setEditing] = useState(null);
  const [error, setError] = useState(null);
  const [note, setNote] = useState(null);
  const [busy, setBusy] = useState(false);
  const load = () => api('GET', path, { team: true }).then((r) => setItems(r.body), setError);
  useEffect(() => {
    load();
    api('GET', '/api/v1/models', { auth: false }).then((r) => setModels(r.body.models), setError);
  }, []);
  const submit = async (send, noteOf) => {
    setBusy(true);
    try {
      const r = await send();
      setNote(noteOf(r.body));
      setEditing(null);
      setForm(blank);
      await load();
      return r.body;
    } catch (err) { setError(err); return undefined; } finally { setBusy(false); }
  };
  return {
    items, models, form, editing, error, setError, note, setNote, busy, load, submit,
    set: (k) => (e) => setForm({ ...form, [k]: e.target.value }),
    /** one field's new value, for inputs that are not plain text (colour pickers, checkbox lists) */
    update: (k, v) => setForm((f) => ({ ...f, [k]: v })),
    pickModels: (e) => setForm({ ...form, models: [...e.target.selectedOptions].map((o) => o.value) }),
    edit: (item, formOf) => { setEditing(item); setForm(formOf(item)); setNote(null); },
    cancel: () => { setEditing(null); setForm(blank); },
  };
}

/** What the receiver last answered: its status (or why it was not reached) and the start of its answer. */
export function LastAnswer({ d }) {
  const excerpt = d.attempt_log.at(-1)?.response_excerpt;
  return html`${d.last_status_code ? `HTTP ${d.last_status_code}` : d.last_error || '-'}${excerpt
    ? html`<br /><code class="excerpt" data-testid="delivery-excerpt" title="The first 512 bytes of the receiver's answer">${excerpt}</code>` : ''}`;
}
