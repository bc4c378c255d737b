// Media library: upload (upload address, one PUT, then register the file), search, delete, a
// paged grid. docs/api/uploads.md "Storage and uploads".
import { html, useEffect, useState } from '/dashboard/vendor/preact-htm.js';
import { api, uploadFile } from '../api.js';
import { Media, Notice, Pager, linkable, when } from './ui.js';

const TYPES = [['all', 'All'], ['image', 'Images'], ['video', 'Videos'], ['audio', 'Audio']];

function size(n) {
  if (n === null || n === undefined) return '';
  return n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(1)} MB`;
}

export function MediaLibrary() {
  const [type, setType] = useState('all');
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(1);
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  const [note, setNote] = useState(null);
  const [busy, setBusy] = useState(false);
  const load = () => api('GET', '/app/media-library', { team: true, query: { media_type: type, search: query, page, page_size: 24 } }).then((r) => setData(r.body), setError);
  useEffect(() => { setData(null); setError(null); load(); }, [type, query, page]);

  const upload = async (e) => {
    e.preventDefault();
    const file = e.target.elements.file.files[0];
    if (!file) { setError(new Error('Choose a file to upload first.')); return; }
    setBusy(true); setError(null); setNote(null);
    try {
      const up = await uploadFile(file);
      await api('POST', '/app/media-library', { team: true, body: { url: up.file_url, media_type: up.media_type, name: file.name } });
      setNote(`${file.name} was uploaded.`);
      e.target.reset();
      setPage(1);
      await load();
    } catch (err) { setError(err); } finally { setBusy(false); }
  };
  const remove = async (a) => {
    if (!confirm(`Delete ${a.name}? An uploaded file stops being served at once.`)) return;
    setError(null); setNote(null);
    try { await api('DELETE', `/app/media-library/${a.id}`, { team: true }); setNote(`${a.name} was deleted.`); await load(); } catch (err) { setError(err); }
  };
  return html`
    <form class="inline-form" onSubmit=${upload} aria-label="Upload a file">
      <label>File <input type="file" name="file" accept="image/png,image/jpeg,image/webp,image/gif,video/mp4,video/webm,video/quicktime,audio/mpeg,audio/wav,audio/ogg,audio/mp4,audio/flac,.m4a,.flac" /></label>
      <button type="submit" disabled=${busy}>${busy ? 'Uploading…' : 'Upload'}</button>
    </form>
    <form class="inline-form" role="search" onSubmit=${(e) => { e.preventDefault(); setPage(1); setQuery(search.trim()); }}>
      <label>Search <input type="search" name="search" maxlength="200" value=${search} onInput=${(e) => setSearch(e.target.value)} placeholder="name or address" /></label>
      <label>Kind <select name="media_type" value=${type} onChange=${(e) => { setType(e.target.value); setPage(1); }}>${TYPES.map(([t, l]) => html`<option value=${t}>${l}</option>`)}</select></label>
      <button type="submit" class="secondary">Search</button>
    </form>
    <${Notice} error=${error}>${note}</${Notice}>
    ${data === null ? (!error && html`<p class="loading" role="status">Loading…</p>`) : data.items.length === 0
      ? html`<p class="empty">${query || type !== 'all' ? 'No file matches this search.' : 'Your media library is empty. Upload an image, a video or a sound to use it as a model input.'}</p>`
      : html`<ul class="grid">
        ${data.items.map((a) => html`<li class="tile" key=${a.id} data-asset=${a.name}>
          <${Media} url=${a.url} kind=${a.media_type} alt=${a.name} />
          <p><strong class="name">${a.name}</strong><br /><span class="muted">${a.media_type} ${size(a.size_bytes)} · ${when(a.created_at)}</span></p>
          <div class="actions">${linkable(a.url) && html`<a href=${a.url} target="_blank" rel="noopener">Open</a>`}<button type="button" class="danger secondary small" onClick=${() => remove(a)}>Delete</button></div>
        </li>`)}
      </ul>`}
    <${Pager} data=${data} onPage=${setPage} label="Media library pages" />`;
}
