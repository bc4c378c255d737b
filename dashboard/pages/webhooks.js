// The webhook signing secret (Standard Webhooks): reveal, copy, rotate.
import { html, useEffect, useState } from '/dashboard/vendor/preact-htm.js';
import { api } from '../api.js';
import { CopyButton, Notice, when } from './ui.js';

export function Webhooks() {
  const [secret, setSecret] = useState(null);
  const [shown, setShown] = useState(false);
  const [error, setError] = useState(null);
  useEffect(() => { api('GET', '/app/webhook_secret', { team: true }).then((r) => setSecret(r.body), setError); }, []);
  const rotate = async () => {
    if (!confirm('Rotate the secret? Deliveries are signed with the new one from now on; the previous one stays valid for verification for a while.')) return;
    try { setSecret((await api('POST', '/app/webhook_secret/rotate', { team: true })).body); setShown(true); } catch (err) { setError(err); }
  };
  return html`
    <p class="muted">Every webhook is signed with this secret (<code>webhook-signature</code>, Standard Webhooks v1). Verify it before trusting a delivery.</p>
    <${Notice} error=${error} />
    ${secret && html`
      <div class="card">
        <h2>Signing secret</h2>
        <p class="secret"><code data-testid="webhook-secret">${shown ? secret.secret : '•'.repeat(24)}</code></p>
        <p class="muted">Created ${when(secret.created_at)}${secret.previous.length ? ` · ${secret.previous.length} previous secret(s) still verify` : ''}</p>
        <div class="actions">
          <button class="secondary" onClick=${() => setShown(!shown)}>${shown ? 'Hide' : 'Reveal'}</button>
          <${CopyButton} text=${secret.secret} />
          <button class="danger secondary" onClick=${rotate}>Rotate</button>
        </div>
      </div>`}`;
}
