// Embed codes: list, create, edit and revoke (model picker, allowed origins, caps); the code and
// an HTML snippet to copy. docs/partners/embeds.md "Embeds".
import { html, useState } from '/dashboard/vendor/preact-htm.js';
import { api } from '../api.js';
import { CopyButton, Notice, credits, useTeamResources, when } from './ui.js';

const CAPS = [
  ['max_cost_per_run', 'Most credits per run'],
  ['daily_cap', 'Credits per day (UTC)'],
  ['monthly_cap', 'Credits per month (UTC)'],
  ['rate_limit_per_minute', 'Runs per minute per visitor address'],
  ['max_concurrent', 'Runs at once'],
];
const BLANK = { kind: 'embed', name: '', models: [], origins: '', max_cost_per_run: '', daily_cap: '', monthly_cap: '', rate_limit_per_minute: '', max_concurrent: '' };

function formOf(c) {
  const f = { kind: c.kind, name: c.name, models: c.models, origins: c.allowed_origins.join('\n') };
  for (const [k] of CAPS) f[k] = c[k] === null ? '' : String(c[k]);
  return f;
}

function snippet(code, models) {
  const model = models.find((m) => m.slug === code.models[0]);
  const header = code.kind === 'agent_embed' ? 'x-agent-embed-code' : 'x-embed-code';
  return `<!-- mediagate embed "${code.name}": runs ${code.models.join(', ')} on your wallet -->
<script type="module">
  const res = await fetch('${location.origin}${model ? model.path : `/api/v1/${code.models[0]}`}', {
    method: 'POST',
    headers: { 'content-type': 'application/json', '${header}': '${code.code}' },
    body: JSON.stringify({ prompt: 'a lighthouse at dusk' }),
  });
  const run = await res.json(); // then poll run.urls.get with the same header
</script>`;
}

export function Embeds() {
  const { items: codes, models, form, editing, error, setError, note, setNote, busy, load, submit, set, pickModels, edit: startEdit, cancel } = useTeamResources('/app/embed-codes', BLANK);
  const [shown, setShown] = useState(null);

  const save = async (e) => {
    e.preventDefault();
    setError(null); setNote(null);
    if (!form.models.length) { setError(new Error('Pick the model this code may run.')); return; }
    const body = { name: form.name, models: form.kind === 'embed' ? form.models.slice(0, 1) : form.models,
      allowed_origins: form.origins.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean) };
    for (const [k] of CAPS) {
      if (form[k] !== '') body[k] = Number(form[k]);
      else if (editing) body[k] = null;
    }
    const saved = await submit(
      () => (editing
        ? api('PATCH', `/app/embed-codes/${editing.id}`, { team: true, body })
        : api('POST', '/app/embed-codes', { team: true, body: { kind: form.kind, ...body } })),
      (b) => (editing ? `The code "${b.name}" was saved; it applies from the next request.` : `The code "${b.name}" was created.`));
    if (saved) setShown(saved);
  };
  const edit = (c) => startEdit(c, formOf);
  const revoke = async (c) => {
    if (!confirm(`Revoke the code "${c.name}"? Pages using it stop working at once.`)) return;
    setError(null);
    try { await api('DELETE', `/app/embed-codes/${c.id}`, { team: true }); if (shown && shown.id === c.id) setShown(null); await load(); } catch (err) { setError(err); }
  };

  return html`
    <p class="muted">An embed code lets a web page run your model on your wallet, within the limits you set here. It is not a secret: restrict it by origin and cap its spend.</p>
    <form class="inline-form embed-form" onSubmit=${save} aria-label=${editing ? `Edit the code ${editing.name}` : 'Create an embed code'}>
      <label>Kind <select name="kind" value=${form.kind} disabled=${!!editing} onChange=${set('kind')}>
        <option value="embed">Model embed (one model)</option><option value="agent_embed">Agent embed (several models)</option></select></label>
      <label>Name <input name="embed-name" required maxlength="200" value=${form.name} onInput=${set('name')} placeholder="e.g. landing page widget" /></label>
      <label>${form.kind === 'embed' ? 'Model' : 'Models'}
        <select name="models" multiple=${form.kind === 'agent_embed'} size=${form.kind === 'agent_embed' ? 6 : undefined} onChange=${pickModels}>
          ${form.kind === 'embed' && html`<option value="" selected=${!form.models.length}>Choose a model</option>`}
          ${models.map((m) => html`<option value=${m.slug} selected=${form.models.includes(m.slug)}>${m.title} (${m.slug})</option>`)}
        </select></label>
      <label>Allowed origins <textarea name="origins" rows="2" value=${form.origins} onInput=${set('origins')} placeholder="https://example.com, *.example.org (empty: any page)" /></label>
      ${CAPS.map(([k, label]) => html`<label>${label} <input type="number" min=${k.startsWith('rate') || k === 'max_concurrent' ? 1 : 0} step="1" name=${k} value=${form[k]} onInput=${set(k)} placeholder="no limit" /></label>`)}
      <div class="actions">
        <button type="submit" disabled=${busy}>${editing ? 'Save' : 'Create code'}</button>
        ${editing && html`<button type="button" class="secondary" onClick=${cancel}>Cancel</button>`}
      </div>
    </form>
    <${Notice} error=${error}>${note}</${Notice}>
    ${shown && html`<section class="card" aria-label="Embed code" data-testid="embed-shown">
      <h2>${shown.name}</h2>
      <p class="secret"><code data-testid="embed-code">${shown.code}</code></p>
      <div class="actions"><${CopyButton} text=${shown.code} label="Copy the code" /><${CopyButton} text=${snippet(shown, models)} label="Copy the HTML snippet" /></div>
      <pre class="snippet">${snippet(shown, models)}</pre>
    </section>`}
    ${codes === null ? (!error && html`<p class="loading" role="status">Loading…</p>`) : codes.length === 0 ? html`<p class="empty">You have no embed codes yet. Create one above to put a model on a web page.</p>` : html`
      <div class="table-wrap" tabindex="0"><table>
        <thead><tr><th>Name</th><th>Kind</th><th>Models</th><th>Origins</th><th>Caps</th><th>Created</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>${codes.map((c) => html`<tr class=${c.revoked_at ? 'revoked' : ''}>
          <td>${c.name}</td>
          <td>${c.kind === 'embed' ? 'model' : 'agent'}${c.revoked_at && html` <span class="badge muted">revoked</span>`}</td>
          <td>${c.models.join(', ')}</td>
          <td>${c.allowed_origins.length ? c.allowed_origins.join(', ') : 'any'}</td>
          <td>${[c.max_cost_per_run !== null && `${credits(c.max_cost_per_run)}/run`, c.daily_cap !== null && `${credits(c.daily_cap)}/day`, c.monthly_cap !== null && `${credits(c.monthly_cap)}/month`].filter(Boolean).join(', ') || 'none'}</td>
          <td>${when(c.created_at)}</td>
          <td>${!c.revoked_at && html`<div class="actions">
            <button type="button" class="secondary small" onClick=${() => setShown(c)}>Show</button>
            <button type="button" class="secondary small" onClick=${() => edit(c)}>Edit</button>
            <button type="button" class="danger secondary small" onClick=${() => revoke(c)}>Revoke</button></div>`}</td>
        </tr>`)}</tbody>
      </table></div>`}`;
}
