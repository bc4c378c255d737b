// API keys: list (sandbox badge), create (name, sandbox toggle, IP restriction) with the key
// shown once in a dialog, revoke.
import { html, useEffect, useRef, useState } from '/dashboard/vendor/preact-htm.js';
import { api, session } from '../api.js';
import { CopyButton, Notice, when } from './ui.js';

export function Keys() {
  const [keys, setKeys] = useState(null);
  const [error, setError] = useState(null);
  const [name, setName] = useState('');
  const [sandbox, setSandbox] = useState(false);
  const [ips, setIps] = useState('');
  const [created, setCreated] = useState(null);
  const [busy, setBusy] = useState(false);
  const dialog = useRef(null);

  // acting for a team (Teams page): the team's keys
  const team = session.teamId;
  const base = team ? `/app/teams/${team}/keys` : null;
  const load = () => api('GET', base ?? '/app/get_user_keys').then((r) => setKeys(r.body), setError);
  useEffect(() => { load(); }, []);
  useEffect(() => { if (created && dialog.current && !dialog.current.open) dialog.current.showModal(); }, [created]);

  const create = async (e) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const list = ips.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean);
      const r = await api('POST', base ?? '/api/v1/keys', { body: { name, is_test: sandbox, ...(list.length ? { ip_whitelist: list } : {}) } });
      setCreated(r.body);
      setName('');
      setIps('');
      await load();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const revoke = async (k) => {
    if (!confirm(`Revoke the key "${k.name || k.prefix}"? Requests with it will fail at once.`)) return;
    setError(null);
    try {
      await api('DELETE', base ? `${base}/${k.id}` : `/app/delete_api_keys/${k.id}`);
      await load();
    } catch (err) {
      setError(err);
    }
  };
  const closeDialog = () => { dialog.current.close(); setCreated(null); };

  return html`
    <${Notice} error=${error} />
    <form class="inline-form" onSubmit=${create} aria-label="Create a key">
      <label>Name <input name="name" maxlength="100" value=${name} onInput=${(e) => setName(e.target.value)} placeholder="e.g. production server" /></label>
      <label class="check"><input type="checkbox" name="sandbox" checked=${sandbox} onChange=${(e) => setSandbox(e.target.checked)} /> Sandbox (mock outputs, never billed)</label>
      <label>Allowed addresses <input name="ip_whitelist" value=${ips} onInput=${(e) => setIps(e.target.value)} placeholder="any; or 203.0.113.0/24, 2001:db8::/32" /></label>
      <button type="submit" disabled=${busy}>Create key</button>
    </form>
    ${keys === null ? html`<p class="muted">Loading…</p>` : keys.length === 0 ? html`<p class="empty">You have no API keys yet. Create one above to call the API from your code.</p>` : html`
      <div class="table-wrap"><table>
        <thead><tr><th>Name</th><th>Key</th><th>Kind</th><th>Addresses</th><th>Created</th><th>Last used</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>${keys.map((k) => html`<tr>
          <td>${k.name || '(unnamed)'}</td>
          <td><code>${k.prefix}…</code></td>
          <td>${k.is_test ? html`<span class="badge sandbox">sandbox</span>` : html`<span class="badge">production</span>`}</td>
          <td>${k.ip_whitelist.length ? k.ip_whitelist.join(', ') : 'any'}</td>
          <td>${when(k.created_at)}</td>
          <td>${when(k.last_used_at)}</td>
          <td><button class="danger secondary" onClick=${() => revoke(k)}>Revoke</button></td>
        </tr>`)}</tbody>
      </table></div>`}
    <dialog ref=${dialog} aria-labelledby="created-title" onClose=${() => setCreated(null)}>
      ${created && html`
        <h2 id="created-title">Your new ${created.is_test ? 'sandbox ' : ''}key</h2>
        <p>Copy it now: it is shown only this once. Send it in the <code>x-api-key</code> header.</p>
        <p class="secret"><code data-testid="new-key">${created.key}</code></p>
        <div class="actions"><${CopyButton} text=${created.key} /><button onClick=${closeDialog}>I have stored it</button></div>`}
    </dialog>`;
}
