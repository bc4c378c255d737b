// API keys: every property a key has (name, sandbox, allowed addresses, expiry, spend limit per
// day or month with what it has spent, per-minute and concurrency limits, scopes of keys made by
// an OAuth token), last use; create and edit them in one form, rotate a key with a grace period
// for its old secret, revoke. A new secret is shown once, in a dialog. Acting for a team, the
// team's keys.
import { html, useEffect, useRef, useState } from '/dashboard/vendor/preact-htm.js';
import { api, session } from '../api.js';
import { CopyButton, Notice, credits, when } from './ui.js';

const GRACES = [
  { seconds: 0, label: 'Stop it now' },
  { seconds: 3600, label: '1 hour' },
  { seconds: 86400, label: '1 day' },
  { seconds: 7 * 86400, label: '7 days' },
  { seconds: 30 * 86400, label: '30 days' },
];

/** The five scopes, in the order the gateway lists them; a key holding all of them shows `scopes: null`. */
const ALL_SCOPES = ['generate:write', 'generate:read', 'files:write', 'account:read', 'keys:manage'];
const SCOPE_TEXT = {
  'generate:write': 'Run models', 'generate:read': 'Read results', 'files:write': 'Upload files',
  'account:read': 'Read the account', 'keys:manage': 'Manage keys',
};

const BLANK = { name: '', sandbox: false, ips: '', expires: '', spendLimit: '', spendPeriod: 'month', perMinute: '', concurrent: '' };

/** datetime-local wants local time without seconds or zone. */
function localInput(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function formOf(k) {
  return {
    name: k.name, sandbox: k.is_test, ips: k.ip_whitelist.join(', '), expires: localInput(k.expires_at),
    spendLimit: k.spend_limit ?? '', softLimit: k.soft_spend_limit ?? '', spendPeriod: k.spend_limit_period ?? 'month', perMinute: k.rate_limit_per_minute ?? '', concurrent: k.max_concurrent ?? '',
    scopes: k.scopes ?? ALL_SCOPES, held: k.scopes ?? ALL_SCOPES,
  };
}

const numberOrNull = (v) => (v === '' || v === null || v === undefined ? null : Number(v));

/** The request body for the form's values: all of them for a new key; for an edit, only what changed. */
function bodyOf(form, original) {
  const all = {
    name: form.name,
    ip_whitelist: form.ips.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean),
    expires_at: form.expires ? new Date(form.expires).toISOString() : null,
    spend_limit: numberOrNull(form.spendLimit),
    rate_limit_per_minute: numberOrNull(form.perMinute),
    max_concurrent: numberOrNull(form.concurrent),
  };
  if (all.spend_limit !== null) all.spend_limit_period = form.spendPeriod;
  // the soft limit (an alert, nothing refused) is set on an existing key
  if (original) all.soft_spend_limit = numberOrNull(form.softLimit);
  if (!original) {
    const body = { is_test: form.sandbox };
    for (const [k, v] of Object.entries(all)) if (v !== null && !(Array.isArray(v) && v.length === 0)) body[k] = v;
    return body;
  }
  const before = bodyOf(formOf(original), null);
  const changed = {};
  for (const [k, v] of Object.entries(all)) {
    const was = k === 'ip_whitelist' ? original.ip_whitelist : k === 'soft_spend_limit' ? original.soft_spend_limit ?? null : before[k] ?? null;
    if (JSON.stringify(v) !== JSON.stringify(was)) changed[k] = v;
  }
  if ('spend_limit' in changed && changed.spend_limit !== null) changed.spend_limit_period = form.spendPeriod;
  else if (all.spend_limit !== null && form.spendPeriod !== original.spend_limit_period) { changed.spend_limit = all.spend_limit; changed.spend_limit_period = form.spendPeriod; }
  // scopes only narrow: the ones still ticked, in the gateway's order
  const scopes = ALL_SCOPES.filter((s) => form.scopes.includes(s));
  if (JSON.stringify(scopes) !== JSON.stringify(ALL_SCOPES.filter((s) => (original.scopes ?? ALL_SCOPES).includes(s)))) changed.scopes = scopes;
  return changed;
}

/** The fields of a key, for creating one or editing it (the kind is fixed once created). */
function KeyFields({ form, set, editing, idPrefix }) {
  const id = (n) => `${idPrefix}-${n}`;
  const on = (k) => (e) => set({ ...form, [k]: e.target.type === 'checkbox' ? e.target.checked : e.target.value });
  return html`
    <div class="field"><label for=${id('name')}>Name</label>
      <input id=${id('name')} name="name" maxlength="100" value=${form.name} onInput=${on('name')} placeholder="e.g. production server" /></div>
    ${!editing && html`<div class="field check"><input id=${id('sandbox')} type="checkbox" name="sandbox" checked=${form.sandbox} onChange=${on('sandbox')} />
      <label for=${id('sandbox')}>Sandbox (mock outputs, never billed)</label></div>`}
    <details class="more" open=${editing}>
      <summary>Restrictions and limits</summary>
      <div class="field-grid">
        <div class="field"><label for=${id('ips')}>Allowed addresses</label>
          <input id=${id('ips')} name="ip_whitelist" value=${form.ips} onInput=${on('ips')} placeholder="any" aria-describedby=${id('ips-hint')} />
          <small id=${id('ips-hint')}>IP addresses or ranges, e.g. 203.0.113.0/24, 2001:db8::/32. Empty: any address.</small></div>
        <div class="field"><label for=${id('expires')}>Expires</label>
          <input id=${id('expires')} type="datetime-local" name="expires_at" value=${form.expires} onInput=${on('expires')} aria-describedby=${id('expires-hint')} />
          <small id=${id('expires-hint')}>Empty: never. In your time zone.</small></div>
        <div class="field"><label for=${id('spend')}>Spend limit (credits)</label>
          <input id=${id('spend')} type="number" min="1" step="1" name="spend_limit" value=${form.spendLimit} onInput=${on('spendLimit')} placeholder="none" /></div>
        <div class="field"><label for=${id('period')}>Per</label>
          <select id=${id('period')} name="spend_limit_period" value=${form.spendPeriod} onChange=${on('spendPeriod')}>
            <option value="day">day (UTC)</option><option value="month">month (UTC)</option>
          </select></div>
        ${editing && html`<div class="field"><label for=${id('soft')}>Alert at (credits)</label>
          <input id=${id('soft')} type="number" min="1" step="1" name="soft_spend_limit" value=${form.softLimit} onInput=${on('softLimit')} placeholder="no alert" aria-describedby=${id('soft-hint')} />
          <small id=${id('soft-hint')}>An email once the key has spent this much in its period (the spend limit's, else the month); nothing is refused.</small></div>`}
        <div class="field"><label for=${id('rpm')}>Runs per minute</label>
          <input id=${id('rpm')} type="number" min="1" step="1" name="rate_limit_per_minute" value=${form.perMinute} onInput=${on('perMinute')} placeholder="gateway default" /></div>
        <div class="field"><label for=${id('conc')}>Runs at once</label>
          <input id=${id('conc')} type="number" min="1" step="1" name="max_concurrent" value=${form.concurrent} onInput=${on('concurrent')} placeholder="gateway default" /></div>
      </div>
      ${editing && html`<fieldset class="scopes" aria-describedby=${id('scopes-hint')}>
        <legend>What the key may do</legend>
        ${ALL_SCOPES.map((s) => html`<div class="field check">
          <input id=${id(`scope-${s}`)} type="checkbox" name="scopes" value=${s} disabled=${!form.held.includes(s)}
            checked=${form.scopes.includes(s)} onChange=${(e) => set({ ...form, scopes: e.target.checked ? [...form.scopes, s] : form.scopes.filter((x) => x !== s) })} />
          <label for=${id(`scope-${s}`)}>${SCOPE_TEXT[s]} <code>${s}</code></label></div>`)}
        <small id=${id('scopes-hint')}>A key can only give up what it may do; to do more, create a new key.</small>
      </fieldset>`}
    </details>`;
}

function SpendCell({ k }) {
  if (k.spend_limit === null) return html`<span class="muted">no limit</span>`;
  const spent = k.spend_so_far ?? 0;
  return html`<span>${credits(spent)} of ${credits(k.spend_limit)} per ${k.spend_limit_period}</span>
    <meter min="0" max=${k.spend_limit} value=${Math.min(spent, k.spend_limit)} aria-label=${`Spent this ${k.spend_limit_period}`}></meter>`;
}

function limitsText(k) {
  const parts = [];
  parts.push(k.rate_limit_per_minute ? `${k.rate_limit_per_minute}/min` : 'default/min');
  parts.push(k.max_concurrent ? `${k.max_concurrent} at once` : 'default at once');
  return parts.join(', ');
}

function expiryText(k) {
  if (!k.expires_at) return 'never';
  return Date.parse(k.expires_at) <= Date.now() ? `expired ${when(k.expires_at)}` : when(k.expires_at);
}

/** A modal dialog that opens while `open` is true and reports Escape or a close as onClose. */
function Modal({ open, labelledBy, onClose, children }) {
  const ref = useRef(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return html`<dialog ref=${ref} aria-labelledby=${labelledBy} onClose=${onClose}>${open ? children : null}</dialog>`;
}

export function Keys() {
  const [keys, setKeys] = useState(null);
  const [error, setError] = useState(null);
  const [form, setForm] = useState(BLANK);
  const [secret, setSecret] = useState(null);
  const [editing, setEditing] = useState(null);
  const [editForm, setEditForm] = useState(BLANK);
  const [rotating, setRotating] = useState(null);
  const [grace, setGrace] = useState(86400);
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState(null);

  // acting for a team (Teams page): the team's keys
  const team = session.teamId;
  const base = team ? `/app/teams/${team}/keys` : null;
  const load = () => api('GET', base ?? '/app/get_user_keys').then((r) => setKeys(r.body), setError);
  useEffect(() => { load(); }, []);

  const act = async (fn) => {
    setError(null);
    setNote(null);
    setBusy(true);
    try { await fn(); } catch (err) { setError(err); } finally { setBusy(false); }
  };
  const create = (e) => {
    e.preventDefault();
    return act(async () => {
      const r = await api('POST', base ?? '/api/v1/keys', { body: bodyOf(form, null) });
      setSecret({ title: `Your new ${r.body.is_test ? 'sandbox ' : ''}key`, key: r.body.key });
      setForm(BLANK);
      await load();
    });
  };
  const save = (e) => {
    e.preventDefault();
    return act(async () => {
      const body = bodyOf(editForm, editing);
      if (Object.keys(body).length) await api(base ? 'PATCH' : 'PUT', base ? `${base}/${editing.id}` : `/app/update_api_key/${editing.id}`, { body });
      setNote(`Saved "${editForm.name || editing.prefix}".`);
      setEditing(null);
      await load();
    });
  };
  const rotate = (e) => {
    e.preventDefault();
    return act(async () => {
      const r = await api('POST', base ? `${base}/${rotating.id}/rotate` : `/app/api_keys/${rotating.id}/rotate`, { body: { grace_seconds: Number(grace) } });
      setRotating(null);
      setSecret({
        title: `New secret for "${r.body.name || r.body.prefix}"`,
        key: r.body.key,
        detail: r.body.grace_until ? `The old secret keeps working until ${when(r.body.grace_until)}.` : 'The old secret has stopped working.',
      });
      await load();
    });
  };
  const revoke = (k) => {
    if (!confirm(`Revoke the key "${k.name || k.prefix}"? Requests with it will fail at once.`)) return;
    act(async () => {
      await api('DELETE', base ? `${base}/${k.id}` : `/app/delete_api_keys/${k.id}`);
      await load();
    });
  };

  return html`
    <p class="lead">Send a key in the <code>x-api-key</code> header. Sandbox keys return mock outputs and are never billed.</p>
    <${Notice} error=${error}>${note}<//>
    <form class="panel" onSubmit=${create} aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <${KeyFields} form=${form} set=${setForm} idPrefix="new" />
      <div class="actions"><button type="submit" disabled=${busy}>Create key</button></div>
    </form>
    ${keys === null ? html`<p class="loading" role="status">Loading your keys…</p>` : keys.length === 0 ? html`<p class="empty">No API keys yet. Create one above to call the API from your code.</p>` : html`
      <div class="table-wrap" tabindex="0"><table>
        <caption class="visually-hidden">Your API keys</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Kind</th><th scope="col">Addresses</th><th scope="col">Expires</th><th scope="col">Spend</th><th scope="col">Limits</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>${keys.map((k) => html`<tr>
          <td>${k.name || '(unnamed)'}${k.scopes && html`<small>Scopes: ${k.scopes.join(', ') || 'none'}</small>`}</td>
          <td><code>${k.prefix}…</code>${k.grace_until && Date.parse(k.grace_until) > Date.now() && html`<small>Old secret works until ${when(k.grace_until)}</small>`}</td>
          <td>${k.is_test ? html`<span class="badge sandbox">sandbox</span>` : html`<span class="badge">production</span>`}</td>
          <td>${k.ip_whitelist.length ? k.ip_whitelist.join(', ') : 'any'}</td>
          <td>${expiryText(k)}</td>
          <td class="spend"><${SpendCell} k=${k} /></td>
          <td>${limitsText(k)}</td>
          <td>${when(k.last_used_at)}<small>created ${when(k.created_at)}</small></td>
          <td><div class="actions">
            <button class="secondary small" onClick=${() => { setEditing(k); setEditForm(formOf(k)); }} aria-label=${`Edit ${k.name || k.prefix}`}>Edit</button>
            <button class="secondary small" onClick=${() => { setRotating(k); setGrace(86400); }} aria-label=${`Rotate ${k.name || k.prefix}`}>Rotate</button>
            <button class="danger secondary small" onClick=${() => revoke(k)}>Revoke</button>
          </div></td>
        </tr>`)}</tbody>
      </table></div>`}
    <${Modal} open=${editing !== null} labelledBy="edit-key-title" onClose=${() => setEditing(null)}>
      ${editing && html`<form onSubmit=${save}>
        <h2 id="edit-key-title">Edit "${editing.name || editing.prefix}"</h2>
        <${KeyFields} form=${editForm} set=${setEditForm} editing=${true} idPrefix="edit" />
        <${Notice} error=${error} />
        <div class="actions"><button type="submit" disabled=${busy}>Save</button><button type="button" class="secondary" onClick=${() => setEditing(null)}>Cancel</button></div>
      </form>`}
    <//>
    <${Modal} open=${rotating !== null} labelledBy="rotate-key-title" onClose=${() => setRotating(null)}>
      ${rotating && html`<form onSubmit=${rotate}>
        <h2 id="rotate-key-title">Rotate "${rotating.name || rotating.prefix}"</h2>
        <p>The key gets a new secret; its limits, spend and history stay. Update your code with the new secret before the old one stops.</p>
        <div class="field"><label for="grace">Keep the old secret working for</label>
          <select id="grace" name="grace_seconds" value=${grace} onChange=${(e) => setGrace(e.target.value)}>
            ${GRACES.map((g) => html`<option value=${g.seconds}>${g.label}</option>`)}
          </select></div>
        <${Notice} error=${error} />
        <div class="actions"><button type="submit" disabled=${busy}>Rotate</button><button type="button" class="secondary" onClick=${() => setRotating(null)}>Cancel</button></div>
      </form>`}
    <//>
    <${Modal} open=${secret !== null} labelledBy="created-title" onClose=${() => setSecret(null)}>
      ${secret && html`
        <h2 id="created-title">${secret.title}</h2>
        <p>Copy it now: it is shown only this once. Send it in the <code>x-api-key</code> header.${secret.detail ? ` ${secret.detail}` : ''}</p>
        <p class="secret"><code data-testid="new-key">${secret.key}</code></p>
        <div class="actions"><${CopyButton} text=${secret.key} /><button onClick=${() => setSecret(null)}>I have stored it</button></div>`}
    <//>`;
}
