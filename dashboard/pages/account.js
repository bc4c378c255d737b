// Account: the profile, an export of everything stored about you, deletion with its grace
// period (the countdown to the date) and cancel, and what staff did on the account (not on a
// disabled studio's storefront, which serves its users only their data and the deletion).
// docs/api/credentials.md "Deleting an account" and "Staff access to your account".
import { html, useEffect, useState } from '/dashboard/vendor/preact-htm.js';
import { api } from '../api.js';
import { Notice, Pager, credits, day, when } from './ui.js';

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

const STAFF = { support: 'A support agent', billing: 'A billing agent', admin: 'An administrator' };

/** What staff did, as a sentence (GET /app/account/staff-access, StaffAccessEntry). */
function staffAction(e) {
  const until = e.ended_at ? `, ended ${when(e.ended_at)}` : e.expires_at ? `, until ${when(e.expires_at)} at the latest` : '';
  switch (e.kind) {
    case 'impersonation': return `Signed in as you${until}`;
    case 'support_login': return `Signed in as you with a support link${until}`;
    case 'support_login_link': return `Made a sign-in link for your account (usable once, until ${when(e.expires_at)})`;
    case 'password_reset_link': return `Made a password reset link for your account (usable once, until ${when(e.expires_at)})`;
    case 'password_reset': return 'Your password was set with a reset link made by staff';
    case 'credit': return `Added ${credits(e.amount)} to your wallet`;
    case 'debit': return `Removed ${credits(-e.amount)} from your wallet`;
    case 'refund': return e.amount === null ? 'Refunded a run' : `Refunded ${credits(e.amount)} for a run`;
    case 'discount_set': return 'Set a model discount on your wallet';
    case 'discount_removed': return 'Removed a model discount from your wallet';
    default: return e.kind;
  }
}

/**
 * Each time staff acted on or for the account. Only the owner may read it: a session a staff
 * member opened as the user is refused by the gateway, so it is not asked for there.
 */
function StaffAccess({ user }) {
  const [page, setPage] = useState(1);
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    if (user && user.impersonatedBy) return;
    setError(null);
    api('GET', '/app/account/staff-access', { query: { page } }).then((r) => setData(r.body), setError);
  }, [page]);
  if (user && user.impersonatedBy) return html`<p class="muted" data-testid="staff-access-hidden">Only the account's owner can see this list; it is not shown while staff act as them.</p>`;
  if (error) return html`<${Notice} error=${error} />`;
  if (!data) return html`<p class="loading" role="status">Loading staff access…</p>`;
  if (data.items.length === 0) {
    return html`<p class="empty" data-testid="staff-access-empty">${page > 1 ? 'There is nothing more.' : 'No staff member has signed in as you, made a sign-in or password link for you, or changed your wallet.'}</p>`;
  }
  return html`
    <div class="table-wrap" tabindex="0"><table data-testid="staff-access">
      <caption class="visually-hidden">Staff access to your account</caption>
      <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Reason given</th></tr></thead>
      <tbody>${data.items.map((e) => html`<tr data-kind=${e.kind}>
        <td>${when(e.at)}</td><td>${STAFF[e.staff_role] || 'A staff member'}</td><td>${staffAction(e)}</td>
        <td>${e.reason || html`<span class="muted">none given</span>`}</td>
      </tr>`)}</tbody></table></div>
    <${Pager} data=${data} onPage=${setPage} label="Staff access pages" />`;
}

function daysLeft(iso, now = Date.now()) {
  return Math.max(0, Math.ceil((new Date(iso).getTime() - now) / 86_400_000));
}

export function Account({ user, site }) {
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
    </section>
    ${!(site && site.disabled) && html`
      <h2 class="section">Staff access to your account</h2>
      <p class="muted">Each time a support agent or administrator signed in as you, made a sign-in or password link for you, or changed your wallet, with the reason they gave.</p>
      <${StaffAccess} user=${user} />`}`;
}
