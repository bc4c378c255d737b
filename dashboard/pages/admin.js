// Administration (docs/operating/administration.md "Roles and administration"): shown to support, billing and admin
// accounts only, and each part only to the roles its route allows (the gateway checks again).
// Look a user up; move credit; discounts and the subscription; refund a run; revenue, provider
// cost and margin by model and day; read the audit log.
import { html, useEffect, useState } from '/dashboard/vendor/preact-htm.js';
import { api } from '../api.js';
import { Notice, Pager, credits, usd, when } from './ui.js';
import { kindWord } from './billing.js';
import { Failures, Totals, UserAudit, UserList, UserRuns } from './console.js';

export const STAFF_ROLES = ['support', 'billing', 'admin'];
const can = (user, roles) => roles.includes(user.role);

/** Money routes take an Idempotency-Key: one per form submission, so a double click moves money once. */
const idempotency = () => ({ 'idempotency-key': crypto.randomUUID() });

function UserInfo({ info }) {
  return html`<section class="card" data-testid="admin-user">
    <h2>${info.email}</h2>
    <p class="muted">User ${info.id} · role ${info.role} · ${info.email_verified ? 'email verified' : 'email not verified'} · joined ${when(info.created_at)} · last sign-in ${when(info.last_sign_in_at)}</p>
    ${info.deletion_scheduled_at && html`<p class="notice error">Deletion scheduled for ${when(info.deletion_scheduled_at)}.</p>`}
    <p><strong data-testid="admin-balance">${credits(info.balance)}</strong> <span class="muted">(${usd(info.balance)}) · ${credits(info.held)} held · subscription: ${info.subscription?.plan ?? info.subscription?.status ?? 'none'}</span></p>
    <h3>Open holds</h3>
    ${info.open_holds.length === 0 ? html`<p class="muted">No run is holding credit.</p>`
      : html`<ul>${info.open_holds.map((h) => html`<li><code>${h.request_id}</code> ${h.model} · ${h.status} · ${credits(h.amount)}</li>`)}</ul>`}
    <h3>Teams</h3>
    ${info.teams.length === 0 ? html`<p class="muted">Not a member of any team.</p>`
      : html`<ul>${info.teams.map((t) => t.deleted_at ? html`<li class="muted">${t.name} (team ${t.id}, ${t.role}) · deleted ${when(t.deleted_at)}</li>` : html`<li>${t.name} (team ${t.id}, ${t.role}) · ${credits(t.balance)}, ${credits(t.held)} held · subscription: ${t.subscription?.plan ?? t.subscription?.status ?? 'none'}</li>`)}</ul>`}
    <h3>API keys</h3>
    ${info.api_keys.length === 0 ? html`<p class="muted">No API keys.</p>`
      : html`<div class="table-wrap" tabindex="0"><table><thead><tr><th>Name</th><th>Prefix</th><th>Kind</th><th>Last used</th><th>State</th></tr></thead>
        <tbody>${info.api_keys.map((k) => html`<tr><td>${k.name}</td><td><code>${k.prefix}</code></td><td>${k.is_test ? 'sandbox' : 'production'}${k.team_id ? ` · team ${k.team_id}` : ''}</td>
          <td>${when(k.last_used_at)}</td><td>${k.revoked_at ? `revoked ${when(k.revoked_at)}` : 'active'}</td></tr>`)}</tbody></table></div>`}
    <h3>Recent transactions</h3>
    ${info.recent_transactions.length === 0 ? html`<p class="muted">No credit has moved yet.</p>`
      : html`<div class="table-wrap" tabindex="0"><table class="ledger"><thead><tr><th>When</th><th>What</th><th class="num">Amount</th><th class="num">Balance after</th><th>Description</th></tr></thead>
        <tbody>${info.recent_transactions.map((t) => html`<tr data-kind=${t.kind}><td>${when(t.created_at)}</td><td>${kindWord(t.kind)}</td>
          <td class=${t.amount < 0 ? 'num minus' : 'num'}>${t.amount > 0 ? '+' : ''}${credits(t.amount)}</td><td class="num">${credits(t.balance_after)}</td><td>${t.description}</td></tr>`)}</tbody></table></div>`}
  </section>`;
}

/** `team` is null for the user's own wallet, else the team (a member of it) whose wallet the forms act on. */
const walletQuery = (team) => (team ? { team_id: team.id } : undefined);
const walletWord = (team) => (team ? `the team ${team.name}'s wallet` : 'their own wallet');

function Credits({ email, team, onDone }) {
  const [form, setForm] = useState({ kind: 'topup', amount: '', reason: '', allowNegative: false });
  const [result, setResult] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true); setError(null); setResult(null);
    try {
      const body = { email, amount: Number(form.amount), ...(form.reason ? { reason: form.reason } : {}), ...(form.kind === 'deduct' && form.allowNegative ? { allow_negative: true } : {}) };
      const r = await api('POST', form.kind === 'topup' ? '/auth/admin_topup' : '/auth/admin_deduct_credits', { body, query: walletQuery(team), headers: idempotency() });
      setResult(`${form.kind === 'topup' ? 'Added' : 'Removed'} ${credits(body.amount)}${team ? ` (${walletWord(team)})` : ''}. The balance is now ${credits(r.body.balance)}.`);
      setForm({ ...form, amount: '', reason: '' });
      onDone();
    } catch (err) { setError(err); } finally { setBusy(false); }
  };
  return html`<form class="card" onSubmit=${submit} data-testid="admin-credits">
    <h2>Credits</h2>
    <label>Action <select name="kind" value=${form.kind} onChange=${(e) => setForm({ ...form, kind: e.target.value })}>
      <option value="topup">Add credit</option><option value="deduct">Remove credit</option></select></label>
    <label>Credits (1,000 = 1 USD) <input name="amount" type="number" min="1" step="1" required value=${form.amount} onInput=${(e) => setForm({ ...form, amount: e.target.value })} /></label>
    <label>Reason (shown in the user's transactions) <input name="reason" maxlength="500" value=${form.reason} onInput=${(e) => setForm({ ...form, reason: e.target.value })} /></label>
    ${form.kind === 'deduct' && html`<label class="check"><input type="checkbox" checked=${form.allowNegative} onChange=${(e) => setForm({ ...form, allowNegative: e.target.checked })} /> Allow the balance to go below zero (a chargeback)</label>`}
    <button disabled=${busy}>${form.kind === 'topup' ? 'Add credit' : 'Remove credit'}</button>
    <${Notice} error=${error}>${result}</${Notice}>
  </form>`;
}

/** The discounts of the chosen wallet (docs/operating/administration.md "Discounts"): list, add or replace one, delete one. */
function Discounts({ email, team }) {
  const [items, setItems] = useState(null);
  const [models, setModels] = useState([]);
  const [form, setForm] = useState({ model: '*', percent: '', expires: '', reason: '' });
  const [error, setError] = useState(null);
  const [result, setResult] = useState(null);
  const [busy, setBusy] = useState(false);
  // a team's list holds every member's discounts on that wallet: show this user's
  const load = () => api('GET', '/auth/admin_model_discounts', { query: team ? { team_id: team.id } : { email } })
    .then((r) => setItems(team ? r.body.filter((d) => d.email === email) : r.body), setError);
  useEffect(() => { setItems(null); setResult(null); load(); }, [email, team?.id]);
  useEffect(() => { api('GET', '/api/v1/models', { auth: false }).then((r) => setModels(r.body.models), setError); }, []);
  const set = (k) => (e) => setForm({ ...form, [k]: e.target.value });
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true); setError(null); setResult(null);
    try {
      const item = { email, model: form.model, percent_off: Number(form.percent), ...(form.expires ? { expires_at: new Date(form.expires).toISOString() } : {}) };
      await api('POST', '/auth/admin_model_discounts', { body: { discounts: [item], ...(form.reason ? { reason: form.reason } : {}) }, query: walletQuery(team), headers: idempotency() });
      setResult(`${item.percent_off}% off ${item.model === '*' ? 'every model' : item.model} saved for ${email} on ${walletWord(team)}.`);
      setForm({ model: '*', percent: '', expires: '', reason: '' });
      await load();
    } catch (err) { setError(err); } finally { setBusy(false); }
  };
  const remove = async (d) => {
    if (!confirm(`Delete the ${d.percent_off}% discount on ${d.model === '*' ? 'every model' : d.model}?`)) return;
    setError(null); setResult(null);
    try {
      await api('DELETE', `/auth/admin_model_discounts/${d.id}`, { headers: idempotency() });
      setResult('The discount was deleted; later runs pay the list price.');
      await load();
    } catch (err) { setError(err); }
  };
  const expired = (d) => d.expires_at && new Date(d.expires_at) <= new Date();
  return html`<section class="card" data-testid="admin-discounts">
    <h2>Discounts</h2>
    ${items === null ? (!error && html`<p class="loading" role="status">Loading…</p>`) : items.length === 0 ? html`<p class="muted">No discount for this user on ${walletWord(team)}.</p>`
      : html`<ul>${items.map((d) => html`<li>${d.percent_off}% off ${d.model === '*' ? 'every model' : html`<code>${d.model}</code>`}
          ${d.expires_at ? ` · ${expired(d) ? 'expired' : 'until'} ${when(d.expires_at)}` : ' · no expiry'}${d.reason ? ` · ${d.reason}` : ''}${' '}
          <button type="button" class="danger secondary small" onClick=${() => remove(d)}>Delete</button></li>`)}</ul>`}
    <form onSubmit=${submit}>
      <label>Model <select name="discount-model" value=${form.model} onChange=${set('model')}>
        <option value="*">Every model (*)</option>
        ${models.map((m) => html`<option value=${m.slug}>${m.title} (${m.slug})</option>`)}</select></label>
      <label>Percent off (1-100) <input name="discount-percent" type="number" min="1" max="100" step="1" required value=${form.percent} onInput=${set('percent')} /></label>
      <label>Expires (empty: never) <input name="discount-expires" type="datetime-local" value=${form.expires} onInput=${set('expires')} /></label>
      <label>Reason <input name="discount-reason" maxlength="255" value=${form.reason} onInput=${set('reason')} /></label>
      <button disabled=${busy}>Save discount</button>
    </form>
    <${Notice} error=${error}>${result}</${Notice}>
  </section>`;
}

// No route lists the configured plans (SUBSCRIPTION_PLANS): the default names are suggestions.
const PLAN_SUGGESTIONS = ['starter', 'pro', 'scale'];

/** The chosen wallet's subscription: activate, change (from the next renewal), cancel. */
function Subscription({ email, team, current, onDone }) {
  const [form, setForm] = useState({ action: current?.status === 'active' ? 'change' : 'activate', plan: '', reason: '' });
  const [error, setError] = useState(null);
  const [result, setResult] = useState(null);
  const [busy, setBusy] = useState(false);
  const set = (k) => (e) => setForm({ ...form, [k]: e.target.value });
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true); setError(null); setResult(null);
    try {
      const body = { email, action: form.action, ...(form.action !== 'cancel' ? { plan: form.plan.trim() } : {}), ...(form.reason ? { reason: form.reason } : {}) };
      const r = await api('POST', '/auth/admin_manage_subscription', { body, query: walletQuery(team), headers: idempotency() });
      const s = r.body;
      setResult(form.action === 'cancel' ? 'The subscription was cancelled; credit already granted stays until it expires.'
        : form.action === 'change' ? `From the next renewal (${when(s.current_period_end)}) the plan is ${s.next_plan ?? s.plan}.`
          : `The ${s.plan} plan is active until ${when(s.current_period_end)}; ${credits(s.credits_per_period ?? 0)} granted.`);
      setForm({ ...form, plan: '', reason: '', action: s.status === 'active' ? 'change' : 'activate' });
      onDone();
    } catch (err) { setError(err); } finally { setBusy(false); }
  };
  return html`<form class="card" onSubmit=${submit} data-testid="admin-subscription">
    <h2>Subscription</h2>
    <p class="muted">On ${walletWord(team)}.</p>
    <p class="muted" data-testid="admin-subscription-now">${!current || current.status === 'none' ? 'No subscription.'
      : `${current.plan}, ${current.status}${current.status === 'active' ? ` until ${when(current.current_period_end)}` : ''}${current.next_plan ? `, then ${current.next_plan}` : ''}.`}</p>
    <label>Action <select name="subscription-action" value=${form.action} onChange=${set('action')}>
      <option value="activate">Activate</option><option value="change">Change plan (from the next renewal)</option><option value="cancel">Cancel now</option></select></label>
    ${form.action !== 'cancel' && html`<label>Plan <input name="subscription-plan" list="plan-names" required maxlength="50" value=${form.plan} onInput=${set('plan')} placeholder="starter, pro or scale" />
      <datalist id="plan-names">${PLAN_SUGGESTIONS.map((p) => html`<option value=${p} />`)}</datalist></label>`}
    <label>Reason <input name="subscription-reason" maxlength="500" value=${form.reason} onInput=${set('reason')} /></label>
    <button disabled=${busy}>${form.action === 'cancel' ? 'Cancel the subscription' : form.action === 'change' ? 'Change the plan' : 'Activate'}</button>
    <${Notice} error=${error}>${result}</${Notice}>
  </form>`;
}

function Refund({ onDone = () => {} }) {
  const [form, setForm] = useState({ requestId: '', amount: '', reason: '' });
  const [result, setResult] = useState(null);
  const [error, setError] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    setError(null); setResult(null);
    try {
      const body = { request_id: form.requestId.trim(), ...(form.amount ? { amount: Number(form.amount) } : {}), ...(form.reason ? { reason: form.reason } : {}) };
      const r = await api('POST', '/auth/admin_refund', { body, headers: idempotency() });
      setResult(`Refunded ${credits(r.body.amount)} for run ${body.request_id}.`);
      onDone();
      setForm({ requestId: '', amount: '', reason: '' });
    } catch (err) { setError(err); }
  };
  return html`<form class="card" onSubmit=${submit} data-testid="admin-refund">
    <h2>Refund a run</h2>
    <label>Run (request id) <input name="request_id" required maxlength="64" value=${form.requestId} onInput=${(e) => setForm({ ...form, requestId: e.target.value })} /></label>
    <label>Credits (empty: what is left of its charge) <input name="refund_amount" type="number" min="1" step="1" value=${form.amount} onInput=${(e) => setForm({ ...form, amount: e.target.value })} /></label>
    <label>Reason <input name="refund_reason" maxlength="500" value=${form.reason} onInput=${(e) => setForm({ ...form, reason: e.target.value })} /></label>
    <button>Refund</button>
    <${Notice} error=${error}>${result}</${Notice}>
  </form>`;
}

/**
 * virtual_login: a short session acting as the user, opened in a new tab (which starts with a
 * copy of this tab's session storage, then replaces the session with the user's), so this tab
 * stays signed in as the staff member. The token travels in the fragment, never sent to a server.
 */
function ActAs({ email }) {
  const [reason, setReason] = useState('');
  const [minutes, setMinutes] = useState('30');
  const [error, setError] = useState(null);
  const [opened, setOpened] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    setError(null); setOpened(false);
    try {
      const r = await api('POST', '/auth/virtual_login', { body: { email, reason, minutes: Number(minutes) }, headers: { accept: 'text/plain' } });
      const token = typeof r.body === 'string' ? r.body.trim() : '';
      window.open(`/dashboard#/impersonate?token=${encodeURIComponent(token)}`, '_blank');
      setOpened(true);
    } catch (err) { setError(err); }
  };
  return html`<form class="card" onSubmit=${submit} data-testid="admin-act-as">
    <h2>Act as this user</h2>
    <p class="muted">Opens a new tab signed in as ${email}, on your behalf: every request is recorded with both names, and keys, clients, passwords, exports, payments and admin pages stay closed.</p>
    <label>Reason (a ticket, the user's request) <input name="impersonation_reason" required minlength="3" maxlength="500" value=${reason} onInput=${(e) => setReason(e.target.value)} /></label>
    <label>Minutes (1-60) <input name="impersonation_minutes" type="number" min="1" max="60" required value=${minutes} onInput=${(e) => setMinutes(e.target.value)} /></label>
    <button>Act as ${email}</button>
    <${Notice} error=${error}>${opened ? 'Opened in a new tab.' : null}</${Notice}>
  </form>`;
}

/** YYYY-MM-DD of a date, in UTC (the margins are by UTC day). */
const isoDay = (d) => d.toISOString().slice(0, 10);

function Margins() {
  const today = new Date();
  const [range, setRange] = useState({ from: isoDay(new Date(today.getTime() - 29 * 86400000)), to: isoDay(today), model: '' });
  const [applied, setApplied] = useState(range);
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    setData(null); setError(null);
    const query = { from: applied.from, to: applied.to, ...(applied.model ? { model: applied.model } : {}) };
    api('GET', '/auth/admin_model_margins', { query }).then((r) => setData(r.body), setError);
  }, [applied]);
  const field = (name, label, type) => html`<label>${label} <input name=${`margins-${name}`} type=${type} value=${range[name]} onInput=${(e) => setRange({ ...range, [name]: e.target.value })} /></label>`;
  const row = (r, head) => html`<tr class=${head ? 'total' : ''}>
    <td>${head ?? r.day}</td><td>${head ? '' : html`<code>${r.model}</code>`}</td><td>${r.runs}</td><td>${r.charged_runs}</td>
    <td>${credits(r.revenue)}</td><td>${credits(r.provider_cost)}${r.unknown_cost_runs > 0 ? html` <span class="muted">(${r.unknown_cost_runs} unknown)</span>` : ''}</td>
    <td data-testid=${head ? 'margins-total' : null}>${credits(r.margin)} <span class="muted">(${usd(r.margin)})</span></td></tr>`;
  return html`<section data-testid="admin-margins">
    <h2 class="section">Revenue, provider cost and margin</h2>
    <p class="muted">By model and UTC day. Revenue is what users paid (a studio owner's markup excluded); provider cost is what each provider's answer reported, else the model's declared provider cost; a run whose cost is unknown adds nothing to it and is counted beside it.</p>
    <form class="filters" onSubmit=${(e) => { e.preventDefault(); setApplied({ ...range }); }}>${field('from', 'From', 'date')}${field('to', 'To', 'date')}${field('model', 'Model', 'text')}<button class="secondary">Show</button></form>
    <${Notice} error=${error} />
    ${data === null ? (!error && html`<p class="muted">Loading…</p>`) : data.rows.length === 0
      ? html`<p class="empty">No runs in this range.</p>`
      : html`<div class="table-wrap"><table><thead><tr><th>Day</th><th>Model</th><th>Runs</th><th>Charged</th><th>Revenue</th><th>Provider cost</th><th>Margin</th></tr></thead>
        <tbody>${data.rows.map((r) => row(r))}${row(data.totals, 'Total')}</tbody></table></div>`}
  </section>`;
}

function AuditLog() {
  const [filters, setFilters] = useState({ action: '', actor_id: '', target_user_id: '' });
  const [page, setPage] = useState(1);
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  const [applied, setApplied] = useState(filters);
  useEffect(() => {
    setData(null); setError(null);
    api('GET', '/auth/admin_audit_log', { query: { ...applied, page } }).then((r) => setData(r.body), setError);
  }, [applied, page]);
  const apply = (e) => { e.preventDefault(); setPage(1); setApplied({ ...filters }); };
  const field = (name, label, type = 'text') => html`<label>${label} <input name=${`audit-${name}`} type=${type} min="1" value=${filters[name]} onInput=${(e) => setFilters({ ...filters, [name]: e.target.value })} /></label>`;
  return html`<section data-testid="admin-audit">
    <h2 class="section">Audit log</h2>
    <form class="filters" onSubmit=${apply}>${field('action', 'Operation')}${field('actor_id', 'By user id', 'number')}${field('target_user_id', 'On user id', 'number')}<button class="secondary">Filter</button></form>
    <${Notice} error=${error} />
    ${data === null ? (!error && html`<p class="loading" role="status">Loading…</p>`) : data.items.length === 0
      ? html`<p class="empty">No audit records match.</p>`
      : html`<div class="table-wrap" tabindex="0"><table><thead><tr><th>When</th><th>Who</th><th>Operation</th><th>On</th><th>Status</th><th>Reason</th><th>Address</th></tr></thead>
        <tbody>${data.items.map((a) => html`<tr>
          <td>${when(a.created_at)}</td><td>${a.actor_user_id === null ? 'command line' : `user ${a.actor_user_id}`} (${a.actor_role}, ${a.credential})</td>
          <td><code>${a.action}</code></td><td>${a.target_user_id === null ? '' : `user ${a.target_user_id}`}${a.target_team_id === null ? '' : ` team ${a.target_team_id}`}</td>
          <td>${a.status}</td><td>${a.reason ?? ''}</td><td>${a.client_address ?? ''}</td></tr>`)}</tbody></table></div>`}
    <${Pager} data=${data} onPage=${setPage} label="Audit log pages" />
  </section>`;
}

const TABS = [['users', 'Users'], ['totals', 'Totals'], ['failures', 'Failures'], ['margins', 'Margins'], ['audit', 'Audit log']];

/** #/admin?tab=…&user=…&run=…: a view of the console to open (a link from the failures, a reload). */
function linkParams() {
  return new URLSearchParams(location.hash.split('?')[1] || '');
}

export function Admin({ user }) {
  const [tab, setTab] = useState(() => linkParams().get('tab') || 'users');
  const [email, setEmail] = useState('');
  const [info, setInfo] = useState(null);
  const [highlight, setHighlight] = useState(() => linkParams().get('run'));
  const [error, setError] = useState(null);
  // the wallet the money forms act on: '' the user's own, else a team id
  const [teamId, setTeamId] = useState('');
  const lookup = async (target = email) => {
    setError(null);
    try {
      const next = (await api('GET', '/auth/admin_user_info', { query: { email: target.trim() } })).body;
      if (next.email !== info?.email) setTeamId('');
      setInfo(next);
      setEmail(next.email);
    } catch (err) { setInfo(null); setTeamId(''); setError(err.status === 404 ? new Error(`No account uses ${target.trim()}.`) : err); }
  };
  useEffect(() => { const u = linkParams().get('user'); if (u) lookup(u); }, []);
  const open = (target, run = null) => {
    setTab('users');
    setHighlight(run);
    history.replaceState(null, '', `${location.pathname}#/admin?user=${encodeURIComponent(target)}${run ? `&run=${encodeURIComponent(run)}` : ''}`);
    lookup(target);
  };
  // a deleted team's wallet takes no credit and no plan: not offered
  const liveTeams = info?.teams.filter((t) => !t.deleted_at) ?? [];
  const team = liveTeams.find((t) => String(t.id) === teamId) ?? null;
  const billing = info && can(user, ['billing', 'admin']);
  if (!can(user, STAFF_ROLES)) return html`<p class="empty">This page is for support, billing and admin accounts.</p>`;
  const tabs = TABS.filter(([t]) => (t !== 'audit' || can(user, ['admin'])) && (t !== 'margins' || can(user, ['billing', 'admin'])));
  const onKey = (e) => {
    const i = tabs.findIndex(([t]) => t === tab);
    const next = e.key === 'ArrowRight' ? (i + 1) % tabs.length : e.key === 'ArrowLeft' ? (i + tabs.length - 1) % tabs.length : -1;
    if (next < 0) return;
    e.preventDefault();
    setTab(tabs[next][0]);
    e.currentTarget.querySelectorAll('[role="tab"]')[next]?.focus();
  };
  return html`
    <div class="tabs" role="tablist" aria-label="Console" onKeyDown=${onKey}>
      ${tabs.map(([t, label]) => html`<button type="button" role="tab" id=${`console-tab-${t}`} aria-controls="console-panel" aria-selected=${t === tab} tabindex=${t === tab ? 0 : -1} onClick=${() => setTab(t)}>${label}</button>`)}
    </div>
    <div id="console-panel" role="tabpanel" aria-labelledby=${`console-tab-${tab}`}>
    ${tab === 'totals' && html`<${Totals} />`}
    ${tab === 'failures' && html`<${Failures} onOpenRun=${open} />`}
    ${tab === 'margins' && html`<${Margins} />`}
    ${tab === 'audit' && html`<${AuditLog} />`}
    ${tab === 'users' && html`
      ${!info && html`<${UserList} onOpen=${(e) => open(e)} />`}
      <form class="filters" onSubmit=${(e) => { e.preventDefault(); lookup(); }}>
        <label>User's email <input name="lookup-email" type="email" required value=${email} onInput=${(e) => setEmail(e.target.value)} /></label>
        <button>Look up</button>
        ${info && html`<button type="button" class="secondary" onClick=${() => { setInfo(null); setEmail(''); setHighlight(null); history.replaceState(null, '', `${location.pathname}#/admin`); }}>Back to the list</button>`}
      </form>
      <${Notice} error=${error} />
      ${info && html`<${UserInfo} info=${info} />`}
      ${info && html`<${UserRuns} email=${info.email} highlight=${highlight} seen=${info} />`}
      ${info && can(user, ['admin']) && html`<${UserAudit} userId=${info.id} seen=${info} />`}
      ${billing && liveTeams.length > 0 && html`<form class="filters" onSubmit=${(e) => e.preventDefault()}>
        <label>Wallet <select name="admin-wallet" value=${teamId} onChange=${(e) => setTeamId(e.target.value)}>
          <option value="">${info.email}'s own</option>
          ${liveTeams.map((t) => html`<option value=${String(t.id)}>Team ${t.name} (${t.id})</option>`)}</select></label>
      </form>`}
      <section class="cards">
        ${billing && html`<${Credits} email=${info.email} team=${team} onDone=${() => lookup(info.email)} />`}
        ${billing && html`<${Subscription} key=${`${info.email}/${teamId}`} email=${info.email} team=${team} current=${team ? team.subscription : info.subscription} onDone=${() => lookup(info.email)} />`}
        <${Refund} onDone=${() => info && lookup(info.email)} />
        ${info && can(user, ['support', 'admin']) && info.role === 'user' && html`<${ActAs} email=${info.email} />`}
      </section>
      ${billing && html`<${Discounts} email=${info.email} team=${team} />`}`}
    </div>`;
}
