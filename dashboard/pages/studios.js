// Whitelabel studios: list, create, edit and disable, and a studio's usage and revenue (totals,
// by day, by model). The form is laid out in groups: who the studio is (slug, name), its branding
// with colour pickers and a live preview of its top bar and buttons, its domains (each with the
// DNS record that verifies it, and a button that checks it), a searchable model picker, its
// prices and who pays. Problems are shown beside the field they concern, the
// form's own checks and the gateway's 422 alike. The selected team (team_id) owns what is shown.
import { html, useEffect, useState } from '/dashboard/vendor/preact-htm.js';
import { api } from '../api.js';
import { Notice, credits, day, usd, useTeamResources, when } from './ui.js';
import { paletteOf } from '../theme.js';

const SLUG = /^[a-z0-9][a-z0-9-]{1,38}[a-z0-9]$/;
const COLOUR = /^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const HOSTNAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;
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

/** The domains not serving their studio yet, with the TXT record each needs and a button that checks them. */
function DomainChecks({ studios, check, busy }) {
  const waiting = studios.filter((s) => !s.disabled_at && s.domain_verification.some((d) => d.status === 'pending'));
  if (waiting.length === 0) return null;
  return html`<section class="panel" data-testid="domain-checks" aria-labelledby="domain-checks-title">
    <h2 id="domain-checks-title">Domains to verify</h2>
    <p>A domain opens as your storefront once you show that you control it. In the domain's DNS, add the TXT record below, and point the domain itself (a CNAME or A record) at this gateway; then check. You may remove the TXT record once the domain is verified.</p>
    ${waiting.map((s) => html`<h3>${s.name}</h3>
      ${s.domain_verification.filter((d) => d.status === 'pending').map((d) => html`<dl class="facts detail">
        <dt>Domain</dt><dd>${d.hostname}</dd>
        <dt>Record type</dt><dd>${d.record.type}</dd>
        <dt>Record name</dt><dd><code>${d.record.name}</code></dd>
        <dt>Record value</dt><dd><code>${d.record.value}</code></dd>
        <dt>Last check</dt><dd>${d.problem ?? 'Not checked yet.'}</dd></dl>`)}
      <div class="actions"><button type="button" class="secondary small" disabled=${busy} onClick=${() => check(s)}>Check the DNS of ${s.name}</button></div>`)}
  </section>`;
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

/** The form's own checks: field -> a sentence, shown beside the field. */
function problemsOf(form, editing) {
  const p = {};
  if (!editing && !SLUG.test(form.slug.trim())) p.slug = '3 to 40 lowercase letters, digits and dashes, starting and ending with a letter or digit.';
  if (!form.name.trim()) p.name = 'Give the studio a name its users will see.';
  if (form.logo_url.trim() && !/^https:\/\/\S+$/.test(form.logo_url.trim())) p.logo_url = 'An https address of an image, e.g. https://cdn.example.com/logo.png.';
  for (const k of ['primary_color', 'accent_color']) if (form[k].trim() && !COLOUR.test(form[k].trim())) p[k] = 'A colour as #rgb or #rrggbb, e.g. #336699.';
  const bad = form.domains.split(/[\s,]+/).filter(Boolean).find((d) => !HOSTNAME.test(d));
  if (bad) p.domains = `"${bad}" is not a hostname: write names such as art.example.com, one a line.`;
  if (!form.models.length) p.models = 'Pick at least one model the studio offers.';
  const m = Number(form.markup_percent || 0);
  if (!Number.isInteger(m) || m < 0 || m > 10000) p.markup_percent = 'A whole number of percent from 0 to 10,000.';
  try { pricesOf(form.prices); } catch (err) { p.prices = err.message; }
  return p;
}

/** The gateway's 422 and 409 answers, beside the fields they name. */
function serverProblems(err) {
  const p = {};
  const names = { branding: 'logo_url', allowed_models: 'models', model_prices: 'prices' };
  for (const f of err.fields || []) p[names[f.field] || f.field] = f.message;
  if (err.status === 409) p.slug = err.message;
  return p;
}

function FieldError({ id, message }) {
  return message ? html`<span class="field-error" id=${id}>${message}</span>` : null;
}

function TextField({ name, label, form, set, problems, hint, ...rest }) {
  const id = `studio-${name}`;
  const described = [hint ? `${id}-hint` : '', problems[name] ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  const Tag = rest.rows ? 'textarea' : 'input';
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <${Tag} id=${id} name=${id} value=${form[name]} onInput=${set(name)} aria-invalid=${problems[name] ? 'true' : undefined} aria-describedby=${described} ...${rest} />
    ${hint && html`<small id=${`${id}-hint`}>${hint}</small>`}
    <${FieldError} id=${`${id}-error`} message=${problems[name]} />
  </div>`;
}

function ColourField({ name, label, form, setValue, problems }) {
  const id = `studio-${name}`;
  const valid = COLOUR.test(form[name].trim());
  const full = valid ? form[name].trim().replace(/^#(.)(.)(.)$/, '#$1$1$2$2$3$3') : '#888888';
  return html`<div class="field colour-field">
    <label for=${id}>${label}</label>
    <div class="colour-row">
      <input type="color" aria-label=${`Pick the ${label.toLowerCase()}`} value=${full} onInput=${(e) => setValue(name, e.target.value)} />
      <input id=${id} name=${id} value=${form[name]} onInput=${(e) => setValue(name, e.target.value)} placeholder="none" maxlength="7"
        aria-invalid=${problems[name] ? 'true' : undefined} aria-describedby=${problems[name] ? `${id}-error` : undefined} />
    </div>
    <${FieldError} id=${`${id}-error`} message=${problems[name]} />
  </div>`;
}

/** What the studio's pages will look like: its top bar, a button and a link, in its colours. */
function Preview({ form }) {
  const p = paletteOf({ primary_color: form.primary_color.trim(), accent_color: form.accent_color.trim() });
  const logo = /^https:\/\/\S+$/.test(form.logo_url.trim()) ? form.logo_url.trim() : null;
  return html`<figure class="studio-preview" data-testid="studio-preview" aria-label="Preview of the studio's pages">
    <div class="preview-bar" data-testid="preview-bar" style=${p.brand ? { background: p.brand, color: p.onBrand } : {}}>
      ${logo && html`<img src=${logo} alt="" />`}<strong>${form.name.trim() || 'Your studio'}</strong>
    </div>
    <div class="preview-body">
      <span class="preview-button" data-testid="preview-button" style=${p.accent ? { background: p.accent, color: p.onAccent, borderColor: p.accent } : {}}>Run</span>
      <span class="preview-link" style=${p.link ? { color: p.link } : {}}>A link</span>
    </div>
    <figcaption class="muted">${p.accent && !p.accentReadable ? 'The accent is light: links use dark text so they stay readable, buttons keep the accent.' : 'Text on your colours is black or white, whichever reads better.'}</figcaption>
  </figure>`;
}

/** Checkboxes of the catalog, narrowed by a search; the chosen ones stay listed above it. */
function ModelPicker({ models, chosen, onChange, problem }) {
  const [q, setQ] = useState('');
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = models.filter((m) => words.every((w) => `${m.title} ${m.slug} ${m.category} ${m.tier}`.toLowerCase().includes(w)));
  const toggle = (slug) => onChange(chosen.includes(slug) ? chosen.filter((s) => s !== slug) : [...chosen, slug]);
  return html`<fieldset class="model-picker" aria-describedby=${problem ? 'studio-models-error' : undefined} aria-invalid=${problem ? 'true' : undefined}>
    <legend>Models</legend>
    <p class="muted" aria-live="polite">${chosen.length} chosen${chosen.length ? `: ${chosen.join(', ')}` : ''}</p>
    <div class="field"><label for="studio-model-search">Find a model</label>
      <input id="studio-model-search" type="search" value=${q} onInput=${(e) => setQ(e.target.value)} placeholder="name, category or tier" /></div>
    <ul class="model-choices">${shown.map((m) => html`<li><label class="choice">
      <input type="checkbox" name="studio-models" value=${m.slug} checked=${chosen.includes(m.slug)} onChange=${() => toggle(m.slug)} />
      ${m.title} <small>${m.category} · ${m.tier}</small></label></li>`)}</ul>
    ${shown.length === 0 && html`<p class="muted">No model matches "${q}".</p>`}
    <${FieldError} id="studio-models-error" message=${problem} />
  </fieldset>`;
}

export function Studios() {
  const { items: studios, models, form, editing, error, setError, note, setNote, busy, load, submit, update, edit: startEdit, cancel } = useTeamResources('/app/studios', BLANK);
  const [usage, setUsage] = useState(null);
  const [problems, setProblems] = useState({});
  const current = form;
  const setValue = update;
  const setField = (k) => (e) => update(k, e.target.value);

  const save = async (e) => {
    e.preventDefault();
    setError(null); setNote(null);
    const found = problemsOf(current, editing);
    setProblems(found);
    if (Object.keys(found).length) {
      setError(new Error('Some fields need another look: see the messages beside them.'));
      // after the messages render: the first field in trouble takes the focus
      setTimeout(() => document.querySelector('.studio-form [aria-invalid="true"]')?.focus(), 0);
      return;
    }
    const body = bodyOf(current);
    const done = await submit(
      () => (editing
        ? api('PATCH', `/app/studios/${editing.id}`, { team: true, body })
        : api('POST', '/app/studios', { team: true, body: { slug: current.slug.trim(), ...body } })),
      (b) => (editing ? `The studio "${b.name}" was saved; it applies from the next request.` : `The studio "${b.name}" was created. Its storefront is at /s/${b.slug}${b.domains.length ? `; ${b.domains.join(', ')} will open it once verified (below)` : ''}.`));
    if (done) setProblems({});
  };
  // a refusal from the gateway lands beside the fields it names
  useEffect(() => { if (error && (error.fields?.length || error.status === 409)) setProblems(serverProblems(error)); }, [error]);
  const edit = (s) => { startEdit(s, formOf); setProblems({}); setError(null); };
  const disable = async (s) => {
    if (!confirm(`Disable the studio "${s.name}"? Its users can no longer sign in or run models there.`)) return;
    setError(null);
    try { await api('DELETE', `/app/studios/${s.id}`, { team: true }); setNote(`The studio "${s.name}" was disabled.`); await load(); } catch (err) { setError(err); }
  };
  const check = async (s) => {
    setError(null); setNote(null);
    try {
      const { body } = await api('POST', `/app/studios/${s.id}/verify-domains`, { team: true });
      const verified = body.domain_verification.filter((d) => d.status === 'verified').map((d) => d.hostname);
      const pending = body.domain_verification.length - verified.length;
      setNote(`${s.name}: ${verified.length ? `verified ${verified.join(', ')}` : 'nothing verified yet'}${pending ? `; ${pending} still waiting for the DNS record (see the last check)` : ''}.`);
      await load();
    } catch (err) { setError(err); }
  };
  const f = { form: current, set: setField, problems };

  return html`
    <p class="lead">A studio is your own storefront on this gateway: your name, colours and domains, the models you pick, your prices.</p>
    <form class="panel studio-form" onSubmit=${save} novalidate aria-label=${editing ? `Edit the studio ${editing.name}` : 'Create a studio'}>
      <h2>${editing ? `Edit ${editing.name}` : 'Create a studio'}</h2>
      <div class="studio-grid">
        <div>
          <fieldset><legend>The studio</legend>
            <${TextField} name="slug" label="Slug" ...${f} disabled=${!!editing} placeholder="e.g. acme-art" hint="Fixed once created. Its storefront is /s/<slug> on this gateway." />
            <${TextField} name="name" label="Name" ...${f} maxlength="200" />
          </fieldset>
          <fieldset><legend>Branding</legend>
            <${TextField} name="logo_url" label="Logo (https address)" ...${f} type="url" maxlength="2000" placeholder="https://cdn.example.com/logo.png" />
            <div class="field-grid two">
              <${ColourField} name="primary_color" label="Main colour" form=${current} setValue=${setValue} problems=${problems} />
              <${ColourField} name="accent_color" label="Accent colour" form=${current} setValue=${setValue} problems=${problems} />
            </div>
          </fieldset>
          <fieldset><legend>Where</legend>
            <${TextField} name="domains" label="Domains" ...${f} rows="2" placeholder="art.example.com" hint="Hostnames, one a line. Point each at this gateway and add the DNS record shown after saving; once verified, its pages open as your storefront." />
          </fieldset>
        </div>
        <div>
          <${Preview} form=${current} />
          <${ModelPicker} models=${models} chosen=${current.models} onChange=${(list) => setValue('models', list)} problem=${problems.models} />
          <fieldset><legend>Prices and who pays</legend>
            <${TextField} name="markup_percent" label="Markup (percent over the list price)" ...${f} type="number" min="0" max="10000" step="1" />
            <${TextField} name="prices" label="Prices per model" ...${f} rows="2" placeholder="model-slug=120" hint="Credits per run, instead of the markup; one model=credits a line." />
            <div class="field"><label for="studio-payer">Who pays</label>
              <select id="studio-payer" name="studio-payer" value=${current.payer_mode} onChange=${setField('payer_mode')}>
                ${Object.entries(PAYERS).map(([v, label]) => html`<option value=${v}>${label}</option>`)}</select></div>
          </fieldset>
        </div>
      </div>
      <div class="actions">
        <button type="submit" disabled=${busy}>${editing ? 'Save' : 'Create studio'}</button>
        ${editing && html`<button type="button" class="secondary" onClick=${() => { cancel(); setProblems({}); }}>Cancel</button>`}
      </div>
    </form>
    <${Notice} error=${error}>${note}</${Notice}>
    ${studios === null ? (!error && html`<p class="loading" role="status">Loading…</p>`) : studios.length === 0 ? html`<p class="empty">You have no studios yet. Create one above to offer models under your own name.</p>` : html`
      <div class="table-wrap" tabindex="0"><table data-testid="studios">
        <thead><tr><th>Name</th><th>Slug</th><th>Models</th><th>Price</th><th>Who pays</th><th>Created</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>${studios.map((s) => html`<tr class=${s.disabled_at ? 'revoked' : ''}>
          <td>${s.branding.primary_color && html`<span class="swatch" style=${{ background: s.branding.primary_color }} aria-hidden="true"></span> `}${s.name}${s.disabled_at && html` <span class="badge muted">disabled</span>`}</td>
          <td><code>${s.slug}</code>${s.domain_verification.map((d) => html`<br /><small>${d.hostname} <span class=${`badge${d.status === 'verified' ? '' : ' muted'}`}>${d.status === 'verified' ? 'verified' : 'not verified'}</span></small>`)}</td>
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
    ${studios && html`<${DomainChecks} studios=${studios} check=${check} busy=${busy} />`}
    ${usage && html`<${Usage} studio=${usage} />`}`;
}
