// Whitelabel studios: list, create, edit and disable (slug, name, branding, domains, models from
// the catalog, markup or per-model prices, who pays), and a studio's usage and revenue (totals, by
// day, by model). docs/partners/studios.md "Whitelabel studios". The selected team (team_id) owns what is shown.
import { html, useEffect, useState } from '/dashboard/vendor/preact-htm.js';
import { api } from '../api.js';
import { Notice, credits, day, usd, useTeamResources, when } from './ui.js';

// `-` escaped: browsers compile pattern attributes with the v flag
const SLUG_PATTERN = '[a-z0-9][a-z0-9\\-]{1,38}[a-z0-9]';
const COLOUR_PATTERN = '#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})';
const BLANK = { slug: '', name: '', logo_url: '', primary_color: '', accent_color: '', domains: '', models: [], markup_percent: '0', prices: '', payer_mode: 'owner_pays' };
const PAYERS = { owner_pays: 'You pay the list price for every run', end_user_pays: 'End users pay the studio price; the markup is credited to you' };

function formOf(s) {
  return {
    slug: s.slug, name: s.name, logo_url: s.branding.logo_url ?? '', primary_color: s.branding.primary_color ?? '', accent_color: s.branding.accent_color ?? '',
    domains: s.domains.join('\n'), models: s.allowed_models, markup_percent: String(s.markup_percent),
    prices: Object.entries(s.model_prices).map(([m, p]) => `${m}=${p}`).join('\n'), payer_mode: s.payer_mode,
  };
}

/** "model=credits" lines into model_prices; a line that is not one is an error sentence. */
function pricesOf(text) {
  const out = {};
  for (const line of text.split(/[\n,]+/).map((l) => l.trim()).filter(Boolean)) {
    const m = /^([^=\s]+)\s*=\s*(\d+)$/.exec(line);
    if (!m) throw new Error(`"${line}" is not a per-model price: write model=credits, one a line.`);
    out[m[1]] = Number(m[2]);
  }
  return out;
}

function bodyOf(form) {
  const list = (text) => text.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean);
  const orNull = (v) => (v.trim() === '' ? null : v.trim());
  return {
    name: form.name,
    branding: { logo_url: orNull(form.logo_url), primary_color: orNull(form.primary_color), accent_color: orNull(form.accent_color) },
    domains: list(form.domains),
    allowed_models: form.models,
    markup_percent: Number(form.markup_percent || 0),
    model_prices: pricesOf(form.prices),
    payer_mode: form.payer_mode,
  };
}

function Usage({ studio }) {
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    setData(null); setError(null);
    api('GET', `/app/studios/${studio.id}/usage`, { team: true }).then((r) => setData(r.body), setError);
  }, [studio.id]);
  const rows = (items, key, label) => (items.length === 0 ? html`<p class="muted">No runs in this period.</p>` : html`
    <div class="table-wrap" tabindex="0"><table><thead><tr><th>${label}</th><th class="num">Runs</th><th class="num">Spend</th><th class="num">Revenue</th></tr></thead>
      <tbody>${items.map((r) => html`<tr><td>${key === 'day' ? r.day : html`<code>${r.model}</code>`}</td><td class="num">${r.runs}</td>
        <td class="num">${credits(r.spend)}</td><td class="num">${credits(r.revenue)}</td></tr>`)}</tbody></table></div>`);
  return html`<section class="card" data-testid="studio-usage" aria-label=${`Usage of ${studio.name}`}>
    <h2>Usage of ${studio.name}</h2>
    <${Notice} error=${error} />
    ${data === null ? (!error && html`<p class="loading" role="status">Loading…</p>`) : html`
      <p class="muted">From ${day(data.from)} to ${day(data.to)} (UTC, end excluded).</p>
      <p><strong data-testid="studio-usage-runs">${data.runs} runs</strong> · spend ${credits(data.spend)} (${usd(data.spend)}) · revenue <strong data-testid="studio-usage-revenue">${credits(data.revenue)}</strong> (${usd(data.revenue)})</p>
      <h3>By day</h3>${rows(data.by_day, 'day', 'Day')}
      <h3>By model</h3>${rows(data.by_model, 'model', 'Model')}`}
  </section>`;
}

export function Studios() {
  const { items: studios, models, form, editing, error, setError, note, setNote, busy, load, submit, set, pickModels, edit: startEdit, cancel } = useTeamResources('/app/studios', BLANK);
  const [usage, setUsage] = useState(null);

  const save = async (e) => {
    e.preventDefault();
    setError(null); setNote(null);
    if (!form.models.length) { setError(new Error('Pick at least one model the studio offers.')); return; }
    let body;
    try { body = bodyOf(form); } catch (err) { setError(err); return; }
    await submit(
      () => (editing
        ? api('PATCH', `/app/studios/${editing.id}`, { team: true, body })
        : api('POST', '/app/studios', { team: true, body: { slug: form.slug.trim(), ...body } })),
      (b) => (editing ? `The studio "${b.name}" was saved; it applies from the next request.` : `The studio "${b.name}" was created. Its users sign in with the header x-whitelabel-studio: ${b.slug}${b.domains.length ? ` or at ${b.domains.join(', ')}` : ''}.`));
  };
  const edit = (s) => { startEdit(s, formOf); setError(null); };
  const disable = async (s) => {
    if (!confirm(`Disable the studio "${s.name}"? Its users can no longer sign in or run models there.`)) return;
    setError(null);
    try { await api('DELETE', `/app/studios/${s.id}`, { team: true }); setNote(`The studio "${s.name}" was disabled.`); await load(); } catch (err) { setError(err); }
  };

  return html`
    <p class="muted">A studio is your own storefront on this gateway: your name, colours and domains, the models you pick, your prices.</p>
    <form class="inline-form studio-form" onSubmit=${save} aria-label=${editing ? `Edit the studio ${editing.name}` : 'Create a studio'}>
      <label>Slug <input name="studio-slug" required pattern=${SLUG_PATTERN} disabled=${!!editing} value=${form.slug} onInput=${set('slug')} placeholder="e.g. acme-art" /></label>
      <label>Name <input name="studio-name" required maxlength="200" value=${form.name} onInput=${set('name')} /></label>
      <label>Logo (https address) <input name="studio-logo" type="url" maxlength="2000" value=${form.logo_url} onInput=${set('logo_url')} /></label>
      <label>Main colour <input name="studio-primary" pattern=${COLOUR_PATTERN} value=${form.primary_color} onInput=${set('primary_color')} placeholder="#336699" /></label>
      <label>Accent colour <input name="studio-accent" pattern=${COLOUR_PATTERN} value=${form.accent_color} onInput=${set('accent_color')} placeholder="#ff9900" /></label>
      <label>Domains <textarea name="studio-domains" rows="2" value=${form.domains} onInput=${set('domains')} placeholder="art.example.com (hostnames, one a line)" /></label>
      <label>Models <select name="studio-models" multiple size="6" onChange=${pickModels}>
        ${models.map((m) => html`<option value=${m.slug} selected=${form.models.includes(m.slug)}>${m.title} (${m.slug})</option>`)}
      </select></label>
      <label>Markup (percent over the list price) <input name="studio-markup" type="number" min="0" max="10000" step="1" value=${form.markup_percent} onInput=${set('markup_percent')} /></label>
      <label>Prices per model (credits per run, instead of the markup) <textarea name="studio-prices" rows="2" value=${form.prices} onInput=${set('prices')} placeholder="model-slug=120, one a line" /></label>
      <label>Who pays <select name="studio-payer" value=${form.payer_mode} onChange=${set('payer_mode')}>
        ${Object.entries(PAYERS).map(([v, label]) => html`<option value=${v}>${label}</option>`)}</select></label>
      <div class="actions">
        <button type="submit" disabled=${busy}>${editing ? 'Save' : 'Create studio'}</button>
        ${editing && html`<button type="button" class="secondary" onClick=${cancel}>Cancel</button>`}
      </div>
    </form>
    <${Notice} error=${error}>${note}</${Notice}>
    ${studios === null ? (!error && html`<p class="loading" role="status">Loading…</p>`) : studios.length === 0 ? html`<p class="empty">You have no studios yet. Create one above to offer models under your own name.</p>` : html`
      <div class="table-wrap" tabindex="0"><table data-testid="studios">
        <thead><tr><th>Name</th><th>Slug</th><th>Models</th><th>Price</th><th>Who pays</th><th>Created</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>${studios.map((s) => html`<tr class=${s.disabled_at ? 'revoked' : ''}>
          <td>${s.branding.primary_color && html`<span class="swatch" style=${{ background: s.branding.primary_color }} aria-hidden="true"></span> `}${s.name}${s.disabled_at && html` <span class="badge muted">disabled</span>`}</td>
          <td><code>${s.slug}</code>${s.domains.length ? html`<br /><small>${s.domains.join(', ')}</small>` : ''}</td>
          <td>${s.allowed_models.join(', ')}</td>
          <td>+${s.markup_percent}%${Object.keys(s.model_prices).length ? `, ${Object.keys(s.model_prices).length} set per model` : ''}</td>
          <td>${s.payer_mode === 'owner_pays' ? 'you' : 'end users'}</td>
          <td>${when(s.created_at)}</td>
          <td><div class="actions">
            <button type="button" class="secondary small" onClick=${() => setUsage(s)}>Usage</button>
            ${!s.disabled_at && html`<button type="button" class="secondary small" onClick=${() => edit(s)}>Edit</button>
            <button type="button" class="danger secondary small" onClick=${() => disable(s)}>Disable</button>`}</div></td>
        </tr>`)}</tbody>
      </table></div>`}
    ${usage && html`<${Usage} studio=${usage} />`}`;
}
