// Usage: spend per day stacked by model and spend by API key over a range the user picks, totals
// (the ledger's charges less refunds in the range, computed by the gateway), a CSV export of
// the rows by day and model, and the wallet's alerts and budget with the alerts sent. All from GET /app/usage; nothing is summed from ledger pages here.
import { html, useEffect, useState } from '/dashboard/vendor/preact-htm.js';
import { api } from '../api.js';
import { Notice, credits, usd } from './ui.js';
import { BarChart, PALETTE, spendByDayAndModel } from './charts.js';

const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
const PRESETS = [{ days: 7, label: 'Last 7 days' }, { days: 30, label: 'Last 30 days' }, { days: 90, label: 'Last 90 days' }];

/** The rows by day and model as CSV (RFC 4180: fields with a comma, quote or line break are quoted). */
export function usageCsv(rows) {
  const field = (v) => { const s = v === null || v === undefined ? '' : String(v); return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s; };
  const lines = [['day', 'model', 'runs', 'failed_runs', 'sandbox_runs', 'spend_credits'].join(',')];
  for (const r of rows) lines.push([r.day, r.model, r.runs, r.failed_runs, r.sandbox_runs, r.spend].map(field).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

function Range({ from, to, onChange }) {
  const [f, setF] = useState(from);
  const [t, setT] = useState(to);
  useEffect(() => { setF(from); setT(to); }, [from, to]);
  return html`<form class="range" onSubmit=${(e) => { e.preventDefault(); onChange(f, t); }} aria-label="Range">
    ${PRESETS.map((p) => html`<button type="button" class="secondary" onClick=${() => onChange(daysAgo(p.days - 1), today())}>${p.label}</button>`)}
    <label>From <input type="date" name="from" value=${f} max=${t} onInput=${(e) => setF(e.target.value)} required /></label>
    <label>To <input type="date" name="to" value=${t} min=${f} onInput=${(e) => setT(e.target.value)} required /></label>
    <button type="submit">Show</button>
  </form>`;
}

const KIND_TEXT = { low_balance: 'Low balance', monthly_budget: 'Monthly budget reached', key_soft_limit: 'API key spend alert' };

/** The wallet's alerts and budget (GET/PUT /app/alert_settings) and the alerts sent (GET /app/alerts). */
function Alerts() {
  const [settings, setSettings] = useState(null);
  const [alerts, setAlerts] = useState(null);
  const [error, setError] = useState(null);
  const [saved, setSaved] = useState(false);
  const [hookUrl, setHookUrl] = useState(null);
  // what was typed, field by field, until saved: a re-render (the page's other data arriving)
  // must not put the stored value back over it
  const [typed, setTyped] = useState({});
  const shown = (name) => typed[name] ?? settings[name] ?? '';
  const type = (name) => (e) => setTyped({ ...typed, [name]: e.target.value });
  const [tested, setTested] = useState(null);
  const [testing, setTesting] = useState(false);
  const load = () => Promise.all([api('GET', '/app/alert_settings', { team: true }), api('GET', '/app/alerts', { team: true })])
    .then(([a, b]) => { setSettings(a.body); setAlerts(b.body.items); }, setError);
  useEffect(() => { load(); }, []);
  if (!settings) return html`<${Notice} error=${error} />${!error && html`<p class="loading" role="status">Loading…</p>`}`;
  const number = (v) => (v === '' ? null : Number(v));
  async function save(e) {
    e.preventDefault();
    setError(null);
    setSaved(false);
    const f = new FormData(e.target);
    const body = {
      low_balance_threshold: number(f.get('low_balance_threshold')), monthly_budget: number(f.get('monthly_budget')), monthly_budget_mode: f.get('monthly_budget_mode'),
      webhook_url: String(f.get('webhook_url') || '').trim() || null,
    };
    try {
      setSettings((await api('PUT', '/app/alert_settings', { team: true, body })).body);
      setTyped({});
      setSaved(true);
    } catch (err) { setError(err); }
  }
  // the address in the field (saved or not): try a receiver before saving it
  const url = (hookUrl ?? settings.webhook_url ?? '').trim();
  async function sendTest() {
    setError(null);
    setTested(null);
    setTesting(true);
    try { setTested((await api('POST', '/app/alert_settings/test', { team: true, body: url ? { url } : {} })).body); } catch (err) { setError(err); }
    setTesting(false);
  }
  return html`
    <${Notice} error=${error} />
    <form onSubmit=${save} class="settings" aria-label="Alerts and budget" data-testid="alert-settings">
      <label>Alert when the balance falls below (credits)
        <input type="number" name="low_balance_threshold" min="1" step="1" value=${shown('low_balance_threshold')} onInput=${type('low_balance_threshold')} placeholder="off" /></label>
      <label>Monthly budget (credits)
        <input type="number" name="monthly_budget" min="0" step="1" value=${shown('monthly_budget')} onInput=${type('monthly_budget')} placeholder="none" /></label>
      <label>When the budget is reached
        <select name="monthly_budget_mode" value=${shown('monthly_budget_mode')} onChange=${type('monthly_budget_mode')}>
          <option value="soft">Alert only</option>
          <option value="hard">Alert and refuse runs past it</option>
        </select></label>
      <label>Also send alerts to this webhook (optional)
        <input type="url" name="webhook_url" placeholder="https://example.com/hooks/alerts" value=${hookUrl ?? settings.webhook_url ?? ''} onInput=${(e) => setHookUrl(e.target.value)} /></label>
      <p class="muted">Alerts are emailed to you (for a team: its owners, admins and billing members), once each time a line is crossed, and posted to the webhook when one is set, signed with your webhook signing secret. Leave a field empty to turn it off.</p>
      <div class="actions">
        <button type="submit">Save alerts</button>
        <button type="button" class="secondary" disabled=${testing || !url} onClick=${sendTest}>${testing ? 'Sending…' : 'Send test alert'}</button>
      </div>
      ${saved && html`<span role="status">Saved.</span>`}
      ${tested && html`<p role="status" data-testid="alert-test-result" class=${tested.delivered ? 'ok' : 'error'}>${tested.delivered
        ? `Test alert delivered: the receiver answered HTTP ${tested.status_code} in ${tested.duration_ms} ms.`
        : `Test alert not delivered: ${tested.status_code !== null ? `the receiver answered HTTP ${tested.status_code}` : tested.error} (${tested.duration_ms} ms).`}</p>`}
    </form>
    <h3>Alerts sent</h3>
    ${alerts.length
      ? html`<ul class="recent" data-testid="alerts">${alerts.map((a) => html`<li>
          <strong>${KIND_TEXT[a.kind] ?? a.kind}</strong>
          <span class="muted">${credits(a.value)} against ${credits(a.threshold)} · ${a.period}${a.api_key_id !== null ? ` · key ${a.api_key_id}` : ''} · ${new Date(a.created_at).toLocaleString()}</span></li>`)}</ul>`
      : html`<p class="muted">No alerts yet.</p>`}`;
}

export function Usage() {
  const [range, setRange] = useState({ from: daysAgo(29), to: today() });
  const [byDayModel, setByDayModel] = useState(null);
  const [byKey, setByKey] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    setError(null);
    const query = { from: range.from, to: range.to };
    Promise.all([
      api('GET', '/app/usage', { team: true, query: { ...query, group_by: 'day,model' } }),
      api('GET', '/app/usage', { team: true, query: { ...query, group_by: 'api_key' } }),
    ]).then(([a, b]) => { setByDayModel(a.body); setByKey(b.body); }, setError);
  }, [range.from, range.to]);

  const csvHref = byDayModel ? URL.createObjectURL(new Blob([usageCsv(byDayModel.rows)], { type: 'text/csv' })) : null;
  useEffect(() => () => { if (csvHref) URL.revokeObjectURL(csvHref); }, [csvHref]);

  let content = !error && html`<p class="loading" role="status">Loading…</p>`;
  if (byDayModel && byKey) {
    const { totals } = byDayModel;
    const stacked = spendByDayAndModel(byDayModel.rows, byDayModel.from, byDayModel.to);
    const keys = byKey.rows.filter((r) => r.spend !== 0);
    const keyLabels = keys.map((r) => r.other_callers ? 'Others you paid for (your studios\' users)' : r.api_key_id === null ? 'No key (dashboard, embeds, OAuth)' : r.api_key_name ?? `key ${r.api_key_id}`);
    content = html`
      <section class="cards">
        <div class="card"><h2>Spend</h2><p class="figure" data-testid="usage-spend" data-spend=${totals.spend}>${credits(totals.spend)}</p>
          <p class="muted">${usd(totals.spend)} from ${byDayModel.from} to ${byDayModel.to} (UTC): charges less refunds, as in the ledger</p></div>
        <div class="card"><h2>Runs</h2><p class="figure" data-testid="usage-runs">${totals.runs.toLocaleString('en-US')}</p>
          <p class="muted">${totals.failed_runs} failed (not charged) · ${totals.sandbox_runs} sandbox runs (free)</p></div>
      </section>
      <div class="card">
        <h2>Spend per day by model</h2>
        ${stacked.series.length
          ? html`<${BarChart} testid="usage-by-day" label=${`Spend per day from ${byDayModel.from} to ${byDayModel.to}, stacked by model`} xs=${stacked.xs} series=${stacked.series} />`
          : html`<p class="muted">Nothing spent in this range.</p>`}
        ${csvHref && html`<p><a href=${csvHref} download=${`usage-${byDayModel.from}-to-${byDayModel.to}.csv`} data-testid="usage-csv">Download CSV</a> (one row per day and model)</p>`}
      </div>
      <div class="card">
        <h2>Spend by API key</h2>
        ${keys.length
          ? html`<${BarChart} testid="usage-by-key" label="Spend by API key in this range" height=${200}
              xs=${keys.map((_, i) => i)} labels=${keyLabels} series=${[{ label: 'Spend', color: PALETTE[0], values: keys.map((r) => r.spend) }]} />
            <div class="table-wrap"><table data-testid="usage-keys"><thead><tr><th>Key</th><th>Runs</th><th>Spend</th></tr></thead>
              <tbody>${keys.map((r, i) => html`<tr><td>${keyLabels[i]}</td><td>${r.runs}</td><td>${credits(r.spend)}</td></tr>`)}</tbody></table></div>`
          : html`<p class="muted">No key spent anything in this range.</p>`}
      </div>`;
  }
  return html`
    <${Notice} error=${error} />
    <${Range} from=${range.from} to=${range.to} onChange=${(from, to) => setRange({ from, to })} />
    ${content}
    <div class="card"><h2>Alerts and budget</h2><${Alerts} /></div>`;
}
