// Small shared pieces: an error or notice as a sentence, a copy button, dates.
import { html, useState } from '/dashboard/vendor/preact-htm.js';

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
