// Account: the profile, an export of everything stored about you, and deletion with its grace
// period (the countdown to the date) and cancel. docs/api/credentials.md "Deleting an account".
import { html, useEffect, useState } from '/dashboard/vendor/preact-htm.js';
import { api } from '../api.js';
import { Notice, credits, day, when } from './ui.js';

function Export() {
  const [state, setState] = useState({});
  useEffect(() => () => { if (state.href) URL.revokeObjectURL(state.href); }, [state.href]);
  const prepare = async () => {
    setState({ busy: true });
    try {
      const r = await api('GET', '/app/account/export');
      const blob = new Blob([JSON.stringify(r.body, null, 2)], { type: 'application/json' });
      setState({ href: URL.createObjectURL(blob) });
    } catch (err) {
      setState({ error: err });
    }
  };
  if (state.error && state.error.status === 501) return html`<p class="muted" data-testid="export-unavailable">Exporting your data is not available on this gateway yet.</p>`;
  return html`
    <${Notice} error=${state.error} />
    ${state.href
      ? html`<p><a href=${state.href} download="account-export.json" data-testid="export-link">Download your data (JSON)</a></p>`
      : html`<button type="button" class="secondary" disabled=${state.busy} onClick=${prepare}>${state.busy ? 'Preparing…' : 'Prepare my data export'}</button>`}`;
}

function daysLeft(iso, now = Date.now()) {
  return Math.max(0, Math.ceil((new Date(iso).getTime() - now) / 86_400_000));
}

export function Account() {
  const [me, setMe] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const load = () => api('GET', '/app/user_details').then((r) => setMe(r.body), setError);
  useEffect(() => { load(); }, []);
  const act = async (path, question) => {
    if (question && !confirm(question)) return;
    setError(null);
    setBusy(true);
    try { await api('POST', path); await load(); } catch (err) { setError(err); } finally { setBusy(false); }
  };
  if (!me) return error ? html`<${Notice} error=${error} />` : html`<p class="loading" role="status">Loading your account…</p>`;
  const due = me.scheduled_deletion_at;
  return html`
    <${Notice} error=${error} />
    <section class="cards">
      <div class="card">
        <h2>Profile</h2>
        <dl class="facts">
          <dt>Email</dt><dd>${me.email} ${me.email_verified ? html`<span class="badge">verified</span>` : html`<span class="badge muted">not verified</span>`}</dd>
          <dt>Role</dt><dd>${me.role}</dd>
          <dt>Member since</dt><dd>${day(me.created_at)}</dd>
          <dt>Balance</dt><dd>${credits(me.balance)}</dd>
        </dl>
      </div>
      <div class="card">
        <h2>Your data</h2>
        <p class="muted">One JSON file with your profile, balance, keys (without their values), OAuth clients, transactions, run history and media.</p>
        <${Export} />
      </div>
      <div class="card danger-zone">
        <h2>Delete your account</h2>
        ${due ? html`
          <p class="notice error" data-testid="deletion-scheduled">Your account will be deleted on <strong>${when(due)}</strong>, in ${daysLeft(due)} day${daysLeft(due) === 1 ? '' : 's'}. Until then your API keys and OAuth clients are refused; cancel to keep everything.</p>
          <button type="button" disabled=${busy} onClick=${() => act('/app/account/cancel-deletion')}>Cancel the deletion</button>`
        : html`
          <p class="muted">After a grace period your profile, keys, runs and files are erased; the ledger stays, anonymised, and unused credit is forfeited. Your API keys stop working as soon as you ask.</p>
          <button type="button" class="danger secondary" disabled=${busy} onClick=${() => act('/app/account/request-deletion', 'Delete your account? Your API keys stop working now, and everything is erased when the grace period ends unless you cancel.')}>Request deletion</button>`}
      </div>
    </section>`;
}
