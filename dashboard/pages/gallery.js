// Gallery: the files of completed runs as a grid by media type, review actions per item, and
// NSFW (or flagged) outputs blurred until clicked. docs/api/history.md "Run history, gallery and review".
import { html, useEffect, useState } from '/dashboard/vendor/preact-htm.js';
import { api } from '../api.js';
import { Media, Notice, Pager, when } from './ui.js';

const TABS = [['all', 'All'], ['image', 'Images'], ['video', 'Videos'], ['audio', 'Audio']];

export function Gallery() {
  const [tab, setTab] = useState('all');
  const [rejected, setRejected] = useState(false);
  const [page, setPage] = useState(1);
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  const load = () => api('GET', '/app/get_gallery_data', { team: true, query: { media_type: tab, page, page_size: 24, include_count: false, review_status: rejected ? 'rejected' : undefined } })
    .then((r) => setData(r.body), setError);
  useEffect(() => { setData(null); setError(null); load(); }, [tab, page, rejected]);
  const choose = (t) => { setTab(t); setPage(1); };
  const review = async (item, status) => {
    setError(null);
    try {
      await api('PATCH', `/app/usage_logs/${encodeURIComponent(item.request_id)}/review_status`, { team: true, body: { review_status: status } });
      await load();
    } catch (err) { setError(err); }
  };
  const onKey = (e) => {
    const i = TABS.findIndex(([t]) => t === tab);
    if (e.key === 'ArrowRight') choose(TABS[(i + 1) % TABS.length][0]);
    if (e.key === 'ArrowLeft') choose(TABS[(i + TABS.length - 1) % TABS.length][0]);
  };
  return html`
    <div class="tabs" role="tablist" aria-label="Media type" onKeyDown=${onKey}>
      ${TABS.map(([t, label]) => html`<button type="button" role="tab" aria-selected=${t === tab} tabindex=${t === tab ? 0 : -1} onClick=${() => choose(t)}>${label}</button>`)}
    </div>
    <label class="check"><input type="checkbox" name="show-rejected" checked=${rejected} onChange=${(e) => { setRejected(e.target.checked); setPage(1); }} /> Show only rejected files (hidden otherwise)</label>
    <${Notice} error=${error} />
    ${data === null ? (!error && html`<p class="loading" role="status">Loading the gallery…</p>`) : data.items.length === 0
      ? html`<p class="empty">${rejected ? 'No rejected files.' : tab === 'all' ? 'No generated files yet. Outputs of completed runs appear here.' : `No ${TABS.find(([t]) => t === tab)[1].toLowerCase()} yet.`}</p>`
      : html`<div role="tabpanel" aria-label="Files"><ul class="grid">
        ${data.items.map((item) => html`<li class="tile" key=${`${item.request_id}-${item.index}`} data-request-id=${item.request_id}>
          <${Media} url=${item.url} kind=${item.media_type} nsfw=${item.has_nsfw_content || item.review_status === 'flagged'} alt=${`Output of ${item.model}`} />
          <p class="muted"><span class=${`badge review ${item.review_status}`}>${item.review_status}</span> ${item.model}<br />${when(item.created_at)}</p>
          <div class="actions" role="group" aria-label=${`Review ${item.request_id}`}>
            ${[['approved', 'Approve'], ['rejected', 'Reject'], ['flagged', 'Flag']].map(([s, label]) => html`<button type="button" class="secondary small" disabled=${item.review_status === s} onClick=${() => review(item, s)}>${label}</button>`)}
            <a href=${`#/history?id=${encodeURIComponent(item.request_id)}`}>Details</a>
          </div>
        </li>`)}
      </ul></div>`}
    <${Pager} data=${data} onPage=${setPage} label="Gallery pages" />`;
}
