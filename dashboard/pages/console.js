// The operator console's views (staff only; the gateway checks every role again): the user list
// with search, filters, sorting and paging; a user's recent runs and audit trail; the gateway's
// totals per UTC day with failures by model and provider; and the failed runs with the provider's
// error, each linking to the run in its user's view.
import { html, useEffect, useState } from '/dashboard/vendor/preact-htm.js';
import { api } from '../api.js';
import { Notice, credits, usd, when } from './ui.js';

const BLANK_FILTERS = { q: '', role: '', verified: '', deleted: '', studio_id: '', in_team: '', sort: 'created_at', order: 'desc' };

/** The users matching the filters; `onOpen(email)` opens one. */
export function UserList({ onOpen }) {
  const [filters, setFilters] = useState(BLANK_FILTERS);
  const [applied, setApplied] = useState(BLANK_FILTERS);
  const [page, setPage] = useState(1);
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    setData(null);
    setError(null);
    const query = { ...Object.fromEntries(Object.entries(applied).filter(([, v]) => v !== '')), page, page_size: 25 };
    api('GET', '/auth/admin_users', { query }).then((r) => setData(r.body), setError);
  }, [applied, page]);
  const set = (k) => (e) => setFilters({ ...filters, [k]: e.target.value });
  const apply = (e) => { e.preventDefault(); setPage(1); setApplied({ ...filters }); };
  const select = (k, label, options) => html`<div class="field"><label for=${`users-${k}`}>${label}</label>
    <select id=${`users-${k}`} value=${filters[k]} onChange=${set(k)}>${options.map(([v, l]) => html`<option value=${v}>${l}</option>`)}</select></div>`;
  const pages = data ? Math.max(1, Math.ceil(data.total / data.page_size)) : 1;
  return html`<section data-testid="admin-users" aria-labelledby="users-title">
    <h2 id="users-title" class="section">Users</h2>
    <form class="panel" onSubmit=${apply} aria-label="Find users">
      <div class="field-grid">
        <div class="field"><label for="users-q">Search</label><input id="users-q" type="search" value=${filters.q} onInput=${set('q')} placeholder="part of an email, or an account id" /></div>
        ${select('role', 'Role', [['', 'any'], ['user', 'user'], ['support', 'support'], ['billing', 'billing'], ['admin', 'admin']])}
        ${select('verified', 'Email', [['', 'any'], ['true', 'verified'], ['false', 'not verified']])}
        ${select('deleted', 'State', [['', 'any'], ['false', 'live'], ['true', 'erased']])}
        <div class="field"><label for="users-studio">Studio id</label><input id="users-studio" type="number" min="1" value=${filters.studio_id} onInput=${set('studio_id')} /></div>
        <div class="field"><label for="users-team">Team id</label><input id="users-team" type="number" min="1" value=${filters.in_team} onInput=${set('in_team')} /></div>
        ${select('sort', 'Sort by', [['created_at', 'joined'], ['email', 'email'], ['balance', 'balance']])}
        ${select('order', 'Order', [['desc', 'descending'], ['asc', 'ascending']])}
      </div>
      <div class="actions"><button type="submit">Find users</button><button type="button" class="secondary" onClick=${() => { setFilters(BLANK_FILTERS); setApplied(BLANK_FILTERS); setPage(1); }}>Clear</button></div>
    </form>
    <${Notice} error=${error} />
    ${data === null ? (!error && html`<p class="loading" role="status">Loading users…</p>`) : data.items.length === 0 ? html`<p class="empty">No account matches these filters.</p>` : html`
      <p class="muted" aria-live="polite">${data.total.toLocaleString()} account${data.total === 1 ? '' : 's'}</p>
      <div class="table-wrap" tabindex="0"><table data-testid="users-table">
        <caption class="visually-hidden">Accounts</caption>
        <thead><tr><th scope="col">Email</th><th scope="col">Id</th><th scope="col">Role</th><th scope="col">Email</th><th scope="col" class="num">Balance</th><th scope="col">Joined</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Open</span></th></tr></thead>
        <tbody>${data.items.map((u) => html`<tr>
          <td>${u.email}</td><td>${u.id}</td><td>${u.role}</td><td>${u.email_verified ? 'verified' : 'not verified'}</td>
          <td class="num">${credits(u.balance)}${u.held ? html`<small>${credits(u.held)} held</small>` : null}</td><td>${when(u.created_at)}</td>
          <td>${u.deleted_at ? `erased ${when(u.deleted_at)}` : u.scheduled_deletion_at ? `deletion ${when(u.scheduled_deletion_at)}` : u.studio_id ? `studio ${u.studio_id}` : 'live'}</td>
          <td>${!u.deleted_at && html`<button type="button" class="secondary small" onClick=${() => onOpen(u.email)} aria-label=${`Open ${u.email}`}>Open</button>`}</td>
        </tr>`)}</tbody></table></div>
      <nav class="pager" aria-label="User pages">
        <button type="button" class="secondary" disabled=${page <= 1} onClick=${() => setPage(page - 1)}>Previous</button>
        <span>Page ${page} of ${pages}</span>
        <button type="button" class="secondary" disabled=${!data.has_more} onClick=${() => setPage(page + 1)}>Next</button>
      </nav>`}
  </section>`;
}

/** One user's newest runs; `highlight` (a request id) is marked, e.g. when opened from the failures. */
export function UserRuns({ email, highlight, seen }) {
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => { api('GET', '/auth/admin_user_runs', { query: { email } }).then((r) => setData(r.body), setError); }, [email, seen]);
  return html`<section data-testid="admin-user-runs" aria-labelledby="user-runs-title">
    <h3 id="user-runs-title">Recent runs</h3>
    <${Notice} error=${error} />
    ${data === null ? (!error && html`<p class="loading" role="status">Loading runs…</p>`) : data.runs.length === 0 ? html`<p class="muted">No runs yet.</p>` : html`
      <div class="table-wrap" tabindex="0"><table>
        <caption class="visually-hidden">Recent runs of ${email}</caption>
        <thead><tr><th scope="col">When</th><th scope="col">Run</th><th scope="col">Model</th><th scope="col">Status</th><th scope="col" class="num">Cost</th><th scope="col">Provider</th><th scope="col">Error</th></tr></thead>
        <tbody>${data.runs.map((r) => html`<tr id=${`run-${r.request_id}`} class=${r.request_id === highlight ? 'highlight' : undefined} aria-current=${r.request_id === highlight ? 'true' : undefined}>
          <td>${when(r.created_at)}</td><td><code>${r.request_id}</code>${r.is_test ? html`<small>sandbox</small>` : null}${r.team_id ? html`<small>team ${r.team_id}</small>` : null}</td>
          <td>${r.model}</td><td><span class=${`status ${r.status}`}>${r.status}</span></td><td class="num">${credits(r.price)}</td>
          <td>${r.provider ?? html`<span class="muted">none</span>`}</td><td class="error-cell">${r.error ?? ''}${r.error_code ? html`<small>${r.error_code}</small>` : null}</td>
        </tr>`)}</tbody></table></div>`}
  </section>`;
}

/** The audit rows that name this user as the target (admins only: the audit log is theirs). */
export function UserAudit({ userId, seen }) {
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  // `seen` changes each time the account is read again (after an action), so the trail follows
  useEffect(() => { api('GET', '/auth/admin_audit_log', { query: { target_user_id: userId } }).then((r) => setData(r.body), setError); }, [userId, seen]);
  return html`<section data-testid="admin-user-audit" aria-labelledby="user-audit-title">
    <h3 id="user-audit-title">Audit trail</h3>
    <${Notice} error=${error} />
    ${data === null ? (!error && html`<p class="loading" role="status">Loading the audit trail…</p>`) : data.items.length === 0 ? html`<p class="muted">No staff action on this account yet.</p>` : html`
      <ul class="recent">${data.items.slice(0, 20).map((a) => html`<li><span>${when(a.created_at)}</span> <code>${a.action}</code>
        <span>by ${a.actor_user_id === null ? 'the command line' : `user ${a.actor_user_id}`} (${a.actor_role})</span><span class="muted">${a.status}${a.reason ? ` · ${a.reason}` : ''}</span></li>`)}</ul>`}
  </section>`;
}

function SpendBars({ days }) {
  const max = Math.max(1, ...days.map((d) => d.spend));
  const w = 24;
  return html`<figure class="chart"><svg viewBox=${`0 0 ${days.length * w} 110`} role="img" aria-label=${`Credits charged per day, the highest ${credits(max)}`}>
    ${days.map((d, i) => html`<rect class="bar" x=${i * w + 3} y=${92 - (86 * d.spend) / max} width=${w - 6} height=${Math.max(0, (86 * d.spend) / max)}><title>${d.day}: ${credits(d.spend)}</title></rect>
      <text x=${i * w + w / 2} y="106" text-anchor="middle">${d.day.slice(8)}</text>`)}
  </svg></figure>`;
}

/** The gateway's totals over a window of UTC days. */
export function Totals() {
  const [days, setDays] = useState(14);
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => { setData(null); api('GET', '/auth/admin_stats', { query: { days } }).then((r) => setData(r.body), setError); }, [days]);
  const sum = (k) => (data ? data.days.reduce((n, d) => n + d[k], 0) : 0);
  return html`<section data-testid="admin-totals" aria-labelledby="totals-title">
    <h2 id="totals-title" class="section">Totals</h2>
    <div class="field inline-field"><label for="totals-days">Days</label>
      <select id="totals-days" value=${String(days)} onChange=${(e) => setDays(Number(e.target.value))}>${[1, 7, 14, 30, 90].map((d) => html`<option value=${String(d)}>${d === 1 ? 'today' : `last ${d} days`}</option>`)}</select></div>
    <${Notice} error=${error} />
    ${data === null ? (!error && html`<p class="loading" role="status">Loading the totals…</p>`) : html`
      <div class="cards">
        <div class="card"><h3>Accounts</h3><p class="figure" data-testid="totals-users">${data.users.total.toLocaleString()}</p>
          <p class="muted">${data.users.verified.toLocaleString()} verified · ${data.users.new.toLocaleString()} new in the window · ${data.users.deleted.toLocaleString()} erased</p></div>
        <div class="card"><h3>Runs</h3><p class="figure" data-testid="totals-runs">${sum('runs').toLocaleString()}</p>
          <p class="muted">${sum('completed').toLocaleString()} completed · ${sum('failed').toLocaleString()} failed · ${sum('cancelled').toLocaleString()} cancelled</p></div>
        <div class="card"><h3>Spend</h3><p class="figure" data-testid="totals-spend">${credits(sum('spend'))}</p><p class="muted">${usd(sum('spend'))} charged for production runs</p>
          <${SpendBars} days=${data.days} /></div>
      </div>
      <h3>Per day</h3>
      <div class="table-wrap" tabindex="0"><table data-testid="totals-days-table">
        <caption class="visually-hidden">Runs and spend per day</caption>
        <thead><tr><th scope="col">Day (UTC)</th><th scope="col" class="num">Runs</th><th scope="col" class="num">Completed</th><th scope="col" class="num">Failed</th><th scope="col" class="num">Cancelled</th><th scope="col" class="num">Spend</th></tr></thead>
        <tbody>${[...data.days].reverse().map((d) => html`<tr><td>${d.day}</td><td class="num">${d.runs}</td><td class="num">${d.completed}</td><td class="num">${d.failed}</td><td class="num">${d.cancelled}</td><td class="num">${credits(d.spend)}</td></tr>`)}</tbody>
      </table></div>
      <h3>Failures by model and provider</h3>
      ${data.failures.length === 0 ? html`<p class="empty">No failed run in the window.</p>` : html`
      <div class="table-wrap" tabindex="0"><table data-testid="totals-failures">
        <caption class="visually-hidden">Failures per day by model and provider</caption>
        <thead><tr><th scope="col">Day (UTC)</th><th scope="col">Model</th><th scope="col">Provider</th><th scope="col" class="num">Failures</th></tr></thead>
        <tbody>${data.failures.map((f) => html`<tr><td>${f.day}</td><td>${f.model}</td><td>${f.provider ?? html`<span class="muted">before a provider took it</span>`}</td><td class="num">${f.failures}</td></tr>`)}</tbody>
      </table></div>`}`}
  </section>`;
}

/** Failed runs with the provider's error; `onOpenRun(email, requestId)` opens the run in its user's view. */
export function Failures({ onOpenRun }) {
  const [filters, setFilters] = useState({ days: '7', model: '', provider: '' });
  const [applied, setApplied] = useState(filters);
  const [page, setPage] = useState(1);
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    setData(null);
    api('GET', '/auth/admin_failures', { query: { ...Object.fromEntries(Object.entries(applied).filter(([, v]) => v !== '')), page } }).then((r) => setData(r.body), setError);
  }, [applied, page]);
  const set = (k) => (e) => setFilters({ ...filters, [k]: e.target.value });
  return html`<section data-testid="admin-failures" aria-labelledby="failures-title">
    <h2 id="failures-title" class="section">Failures</h2>
    <form class="panel" onSubmit=${(e) => { e.preventDefault(); setPage(1); setApplied({ ...filters }); }} aria-label="Filter failures">
      <div class="field-grid">
        <div class="field"><label for="failures-days">Days</label><select id="failures-days" value=${filters.days} onChange=${set('days')}>${['1', '7', '30', '90'].map((d) => html`<option value=${d}>${d === '1' ? 'today' : `last ${d} days`}</option>`)}</select></div>
        <div class="field"><label for="failures-model">Model</label><input id="failures-model" value=${filters.model} onInput=${set('model')} placeholder="any" /></div>
        <div class="field"><label for="failures-provider">Provider</label><input id="failures-provider" value=${filters.provider} onInput=${set('provider')} placeholder="any" /></div>
      </div>
      <div class="actions"><button type="submit">Show failures</button></div>
    </form>
    <${Notice} error=${error} />
    ${data === null ? (!error && html`<p class="loading" role="status">Loading failures…</p>`) : data.items.length === 0 ? html`<p class="empty">No failed run matches.</p>` : html`
      <div class="table-wrap" tabindex="0"><table data-testid="failures-table">
        <caption class="visually-hidden">Failed runs</caption>
        <thead><tr><th scope="col">When</th><th scope="col">Account</th><th scope="col">Model</th><th scope="col">Provider</th><th scope="col">Error</th><th scope="col"><span class="visually-hidden">Run</span></th></tr></thead>
        <tbody>${data.items.map((f) => html`<tr>
          <td>${when(f.created_at)}</td><td>${f.email}</td><td>${f.model}</td>
          <td>${f.provider ? html`${f.provider}${f.provider_model ? html`<small>${f.provider_model}</small>` : null}` : html`<span class="muted">before a provider took it</span>`}</td>
          <td class="error-cell">${f.error ?? ''}${f.error_code ? html`<small>${f.error_code}</small>` : null}</td>
          <td><a href=${`#/admin?user=${encodeURIComponent(f.email)}&run=${encodeURIComponent(f.request_id)}`} onClick=${(e) => { e.preventDefault(); onOpenRun(f.email, f.request_id); }}>Open run</a></td>
        </tr>`)}</tbody></table></div>
      <nav class="pager" aria-label="Failure pages">
        <button type="button" class="secondary" disabled=${page <= 1} onClick=${() => setPage(page - 1)}>Previous</button><span>Page ${page}</span>
        <button type="button" class="secondary" disabled=${!data.has_more} onClick=${() => setPage(page + 1)}>Next</button>
      </nav>`}
  </section>`;
}
