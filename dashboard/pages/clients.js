// OAuth clients (machine-to-machine, client credentials): create with scopes, secret shown once, delete.
import { html, useEffect, useRef, useState } from '/dashboard/vendor/preact-htm.js';
import { api } from '../api.js';
import { CopyButton, Notice, when } from './ui.js';

export function Clients() {
  const [clients, setClients] = useState(null);
  const [scopes, setScopes] = useState([]);
  const [name, setName] = useState('');
  const [picked, setPicked] = useState(new Set());
  const [created, setCreated] = useState(null);
  const [error, setError] = useState(null);
  const dialog = useRef(null);

  const load = () => api('GET', '/oauth/clients').then((r) => setClients(r.body), setError);
  useEffect(() => {
    load();
    api('GET', '/oauth/scopes', { auth: false }).then((r) => setScopes(r.body.scopes), setError);
  }, []);
  useEffect(() => { if (created && dialog.current && !dialog.current.open) dialog.current.showModal(); }, [created]);

  const toggle = (s) => setPicked((prev) => { const next = new Set(prev); next.has(s) ? next.delete(s) : next.add(s); return next; });
  const create = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      const r = await api('POST', '/oauth/clients', { body: { name, scopes: [...picked] } });
      setCreated(r.body);
      setName('');
      setPicked(new Set());
      await load();
    } catch (err) { setError(err); }
  };
  const remove = async (c) => {
    if (!confirm(`Delete the client "${c.name}"? Its access tokens stop working at once.`)) return;
    try { await api('DELETE', `/oauth/clients/${encodeURIComponent(c.id)}`); await load(); } catch (err) { setError(err); }
  };

  return html`
    <p class="muted">A client exchanges its id and secret for short-lived access tokens at <code>POST /oauth/token</code> (client credentials), limited to the scopes you pick.</p>
    <${Notice} error=${error} />
    <form class="inline-form" onSubmit=${create} aria-label="Create a client">
      <label>Name <input name="client-name" required maxlength="100" value=${name} onInput=${(e) => setName(e.target.value)} placeholder="e.g. batch renderer" /></label>
      <fieldset class="scopes"><legend>Scopes</legend>
        ${scopes.map((s) => html`<label class="check"><input type="checkbox" checked=${picked.has(s.name)} onChange=${() => toggle(s.name)} /> <span><code>${s.name}</code> <small>${s.description}</small></span></label>`)}
      </fieldset>
      <button type="submit" disabled=${picked.size === 0}>Create client</button>
    </form>
    ${clients === null ? html`<p class="loading" role="status">Loading…</p>` : clients.length === 0 ? html`<p class="empty">No OAuth clients yet.</p>` : html`
      <div class="table-wrap" tabindex="0"><table>
        <thead><tr><th>Name</th><th>Client id</th><th>Scopes</th><th>Created</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>${clients.map((c) => html`<tr><td>${c.name}</td><td><code>${c.client_id}</code></td><td>${c.allowed_scopes.join(' ')}</td><td>${when(c.created_at)}</td>
          <td><button class="danger secondary" onClick=${() => remove(c)}>Delete</button></td></tr>`)}</tbody>
      </table></div>`}
    <dialog ref=${dialog} aria-labelledby="client-title" onClose=${() => setCreated(null)}>
      ${created && html`
        <h2 id="client-title">Client "${created.name}"</h2>
        <p>Client id: <code>${created.client_id}</code></p>
        <p>Copy the secret now: it is shown only this once.</p>
        <p class="secret"><code data-testid="client-secret">${created.client_secret}</code></p>
        <div class="actions"><${CopyButton} text=${created.client_secret} /><button onClick=${() => dialog.current.close()}>I have stored it</button></div>`}
    </dialog>`;
}
