// Run history: filters, a paged table, bulk review and delete, and one run's detail (inputs,
// outputs, cost, webhook deliveries with redeliver). docs/api/history.md "Run history, gallery and review".
import { html, useEffect, useState } from '/dashboard/vendor/preact-htm.js';
import { api, follow } from '../api.js';
import { LastAnswer, Media, Notice, Pager, REVIEW, STATUSES, credits, kindOfUrl, when } from './ui.js';

const PAGE_SIZE = 20;
const EMPTY = { status: '', model_name: '', review_status: '', created_at: '', q: '' };

function value(v) {
  if (v === null || v === undefined) return '(none)';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function Detail({ id, version, onClose, onChanged }) {
  const [run, setRun] = useState(null);
  const [error, setError] = useState(null);
  const [note, setNote] = useState(null);
  const load = () => api('GET', `/app/prediction_response/${encodeURIComponent(id)}`, { team: true }).then((r) => setRun(r.body), setError);
  useEffect(() => { setRun(null); setError(null); setNote(null); }, [id]);
  // again after the list changed (a bulk review of this run)
  useEffect(() => { load(); }, [id, version]);
  // the run's log, and while it runs its queue position and progress, live from its event stream
  const [live, setLive] = useState({ lines: [], state: null });
  const unfinished = run && !['completed', 'failed', 'cancelled'].includes(run.status);
  useEffect(() => {
    setLive({ lines: [], state: null });
    api('GET', `/api/v1/predictions/${encodeURIComponent(id)}/result`, { query: { logs: 'true' }, team: true })
      .then((r) => setLive((l) => (l.lines.length ? l : { ...l, lines: r.body.logs || [] })), () => {});
  }, [id]);
  useEffect(() => {
    if (!unfinished) return undefined;
    const controller = new AbortController();
    const lines = [];
    follow(id, (p) => setLive((l) => ({ ...l, state: p })), controller.signal, (fresh) => {
      lines.push(...fresh);
      setLive((l) => ({ ...l, lines: [...lines] }));
    }).then(() => load(), () => {});
    return () => controller.abort();
  }, [id, unfinished]);
  const state = live.state;
  const review = async (status) => {
    setError(null);
    try {
      await api('PATCH', `/app/usage_logs/${encodeURIComponent(id)}/review_status`, { body: { review_status: status }, team: true });
      onChanged(); // reloads the list, and this detail with it
    } catch (err) { setError(err); }
  };
  const redeliver = async (d) => {
    setError(null);
    try {
      await api('POST', `/app/webhook_deliveries/${encodeURIComponent(d.id)}/redeliver`, { team: true });
      setNote('The delivery was scheduled again.');
      await load();
    } catch (err) { setError(err); }
  };
  return html`<section class="card detail" aria-labelledby="run-detail-title" data-testid="run-detail">
    <div class="detail-head"><h2 id="run-detail-title">Run <code>${id}</code></h2><button type="button" class="secondary" onClick=${onClose}>Close</button></div>
    <${Notice} error=${error}>${note}</${Notice}>
    ${!run ? (!error && html`<p class="loading" role="status">Loading…</p>`) : html`
      <dl class="facts">
        <dt>Model</dt><dd>${run.model}</dd>
        <dt>Status</dt><dd><span class=${`status ${run.status}`}>${run.status}</span>${run.error ? ` · ${run.error}` : ''}</dd>
        <dt>Cost</dt><dd>${run.is_test ? 'sandbox (not billed)' : credits(run.cost)}</dd>
        <dt>Created</dt><dd>${when(run.created_at)}</dd>
        <dt>Completed</dt><dd>${run.completed_at ? when(run.completed_at) : 'not yet'}${run.executionTime ? ` (${run.executionTime})` : ''}</dd>
        ${run.tokens && html`<dt>Tokens</dt><dd data-testid="run-tokens">${run.tokens.input.toLocaleString('en-US')} in, ${run.tokens.output.toLocaleString('en-US')} out${run.tokens.source === 'counted' ? ' (counted by the gateway from the prompt and the answer: the provider reported none)' : ''}</dd>`}
        ${state && state.status === 'processing' && html`<dt>Progress</dt><dd data-testid="run-progress">${
          state.queue_position !== null && state.queue_position !== undefined ? `waiting at the provider: ${state.queue_position === 0 ? 'next to run' : `${state.queue_position} ahead`}`
          : state.progress !== null && state.progress !== undefined ? html`<progress max="1" value=${state.progress} aria-label="Progress"></progress> ${Math.round(state.progress * 100)}%`
          : 'running'}</dd>`}
        <dt>Review</dt><dd>
          <label class="inline"><span class="visually-hidden">Review status</span><select name="detail-review" value=${run.review_status} onChange=${(e) => review(e.target.value)}>
            ${REVIEW.map((r) => html`<option value=${r}>${r}</option>`)}</select></label></dd>
      </dl>
      <h3>Inputs</h3>
      <dl class="facts inputs">${Object.entries(run.input || {}).map(([k, v]) => html`<dt>${k}</dt><dd>${value(v)}</dd>`)}</dl>
      <h3>Outputs</h3>
      ${typeof run.output_text === 'string' && html`<pre class="run-answer" data-testid="run-answer" tabindex="0">${run.output_text || '(an empty answer)'}</pre>`}
      ${typeof run.output_text === 'string' && run.outputs.length === 0 ? null : run.outputs_expired ? html`<p class="empty">The output files were removed (deleted or past retention).</p>`
        : run.outputs.length === 0 ? html`<p class="empty">This run has no outputs${run.status === 'completed' ? '' : ' yet'}.</p>`
        : html`<div class="outputs">${run.outputs.map((u, i) => html`<figure><${Media} url=${u} kind=${kindOfUrl(u)} nsfw=${(run.has_nsfw_contents || [])[i]} /></figure>`)}</div>`}
      <h3>Logs</h3>
      ${live.lines.length === 0 ? html`<p class="muted">${unfinished ? 'No log lines yet.' : 'The provider wrote no log lines for this run.'}</p>`
        : html`<pre class="run-logs" data-testid="run-logs" tabindex="0">${live.lines.map((l) => `${l.at.slice(11, 23)}  ${l.message}\n`).join('')}</pre>`}
      <h3>Webhook deliveries</h3>
      ${!run.webhook ? html`<p class="muted">This run had no webhook.</p>` : !(run.webhook_deliveries || []).length ? html`<p class="muted">No delivery to ${run.webhook} yet.</p>` : html`
        <div class="table-wrap" tabindex="0"><table>
          <thead><tr><th>Address</th><th>Status</th><th>Attempts</th><th>Last answer</th><th>Created</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>${run.webhook_deliveries.map((d) => html`<tr>
            <td>${d.url}</td><td>${d.status}</td><td>${d.attempts}</td>
            <td><${LastAnswer} d=${d} /></td><td>${when(d.created_at)}</td>
            <td>${(d.status === 'dead' || d.status === 'gone') && html`<button type="button" class="secondary" onClick=${() => redeliver(d)}>Redeliver</button>`}</td>
          </tr>`)}</tbody></table></div>`}`}
  </section>`;
}

export function History() {
  const [models, setModels] = useState([]);
  const [form, setForm] = useState(EMPTY);
  const [filters, setFilters] = useState(EMPTY);
  const [page, setPage] = useState(1);
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  const [note, setNote] = useState(null);
  const [selected, setSelected] = useState(new Set());
  const [version, setVersion] = useState(0);
  const [open, setOpen] = useState(new URLSearchParams(location.hash.split('?')[1] || '').get('id'));

  const load = () => api('GET', '/app/get_run_history_data_by_search', { team: true, query: { ...filters, page, page_size: PAGE_SIZE, include_count: false } })
    .then((r) => { setData(r.body); setSelected(new Set()); setVersion((v) => v + 1); }, setError);
  useEffect(() => { api('GET', '/api/v1/models', { auth: false }).then((r) => setModels(r.body.models.map((m) => m.slug)), () => {}); }, []);
  useEffect(() => { setData(null); setError(null); load(); }, [filters, page]);

  const set = (k) => (e) => setForm({ ...form, [k]: e.target.value });
  const apply = (e) => { e.preventDefault(); setPage(1); setFilters({ ...form }); };
  const clear = () => { setForm(EMPTY); setPage(1); setFilters(EMPTY); };
  const toggle = (id) => { const next = new Set(selected); next.has(id) ? next.delete(id) : next.add(id); setSelected(next); };
  const all = data && data.items.length > 0 && data.items.every((r) => selected.has(r.request_id));
  const toggleAll = () => setSelected(all ? new Set() : new Set(data.items.map((r) => r.request_id)));

  const bulkReview = async (status) => {
    setError(null); setNote(null);
    try {
      const r = await api('PATCH', '/app/usage_logs/bulk_review_status', { team: true, body: { ids: [...selected], review_status: status } });
      setNote(`${r.body.updated} run${r.body.updated === 1 ? '' : 's'} marked ${status}${r.body.skipped.length ? `; ${r.body.skipped.length} skipped` : ''}.`);
      await load();
    } catch (err) { setError(err); }
  };
  const bulkDelete = async () => {
    const n = selected.size;
    if (!confirm(`Delete ${n} run${n === 1 ? '' : 's'}? Their output files are removed; the charges stay in the ledger.`)) return;
    setError(null); setNote(null);
    try {
      const r = await api('POST', '/app/usage_logs/bulk_delete', { team: true, body: { ids: [...selected] } });
      setNote(`${r.body.deleted} run${r.body.deleted === 1 ? '' : 's'} deleted${r.body.skipped.length ? `; ${r.body.skipped.length} skipped` : ''}.`);
      if (selected.has(open)) setOpen(null);
      await load();
    } catch (err) { setError(err); }
  };
  const filtered = Object.values(filters).some(Boolean);

  return html`
    <form class="inline-form filters" onSubmit=${apply} aria-label="Filter runs">
      <label>Search <input type="search" name="q" maxlength="200" value=${form.q} onInput=${set('q')} placeholder="request id, model or prompt" /></label>
      <label>Status <select name="status" value=${form.status} onChange=${set('status')}><option value="">any</option>${STATUSES.map((s) => html`<option value=${s}>${s}</option>`)}</select></label>
      <label>Model <select name="model_name" value=${form.model_name} onChange=${set('model_name')}><option value="">any</option>${models.map((s) => html`<option value=${s}>${s}</option>`)}</select></label>
      <label>Review <select name="review_status" value=${form.review_status} onChange=${set('review_status')}><option value="">any</option>${REVIEW.map((s) => html`<option value=${s}>${s}</option>`)}</select></label>
      <label>Day (UTC) <input type="date" name="created_at" value=${form.created_at} onInput=${set('created_at')} /></label>
      <div class="actions"><button type="submit">Apply</button><button type="button" class="secondary" onClick=${clear}>Clear</button></div>
    </form>
    <${Notice} error=${error}>${note}</${Notice}>
    ${selected.size > 0 && html`<div class="bulk" role="group" aria-label="Selected runs">
      <span>${selected.size} selected</span>
      <button type="button" class="secondary" onClick=${() => bulkReview('approved')}>Approve</button>
      <button type="button" class="secondary" onClick=${() => bulkReview('rejected')}>Reject</button>
      <button type="button" class="secondary" onClick=${() => bulkReview('flagged')}>Flag</button>
      <button type="button" class="danger secondary" onClick=${bulkDelete}>Delete</button>
    </div>`}
    ${data === null ? (!error && html`<p class="loading" role="status">Loading…</p>`) : data.items.length === 0
      ? html`<p class="empty">${filtered ? 'No run matches these filters.' : page > 1 ? 'There are no more runs.' : 'You have no runs yet. Try a model in the playground.'}</p>`
      : html`<div class="table-wrap" tabindex="0"><table>
        <thead><tr><th><input type="checkbox" aria-label="Select every run on this page" checked=${all} onChange=${toggleAll} /></th><th>Run</th><th>Model</th><th>Status</th><th>Review</th><th>Cost</th><th>Source</th><th>Created</th></tr></thead>
        <tbody>${data.items.map((r) => html`<tr data-id=${r.request_id}>
          <td><input type="checkbox" aria-label=${`Select run ${r.request_id}`} checked=${selected.has(r.request_id)} onChange=${() => toggle(r.request_id)} /></td>
          <td><button type="button" class="link" onClick=${() => setOpen(r.request_id)}><code>${r.request_id.slice(0, 12)}…</code></button></td>
          <td>${r.model}</td>
          <td><span class=${`status ${r.status}`}>${r.status}</span></td>
          <td><span class=${`badge review ${r.review_status}`} data-testid="review-status">${r.review_status}</span></td>
          <td>${r.is_test ? html`<span class="badge sandbox">sandbox</span>` : credits(r.cost)}</td>
          <td>${r.source}${r.api_key ? ` (${r.api_key.name || `key ${r.api_key.id}`})` : ''}</td>
          <td>${when(r.created_at)}</td>
        </tr>`)}</tbody></table></div>`}
    <${Pager} data=${data} onPage=${setPage} label="Run history pages" />
    ${open && html`<${Detail} id=${open} version=${version} onClose=${() => setOpen(null)} onChanged=${load} />`}`;
}
