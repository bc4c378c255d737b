// Small shared pieces: an error or notice as a sentence, a copy button, dates.
import { html, useEffect, useState } from '/dashboard/vendor/preact-htm.js';

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

/** An output shown inline by its media type; NSFW outputs are blurred until clicked. */
export function Media({ url, kind, nsfw, alt = 'Generated output' }) {
  const [shown, setShown] = useState(!nsfw);
  // flagged later (a review action): blurred again
  useEffect(() => setShown(!nsfw), [nsfw, url]);
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
