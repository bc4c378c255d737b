// Overview: the wallet, spend over the last two weeks (a bar per day, summed by the gateway from
// the ledger: GET /app/usage) and the recent runs.
import { html, useEffect, useState } from '/dashboard/vendor/preact-htm.js';
import { api } from '../api.js';
import { Notice, credits, usd, when } from './ui.js';
import { BarChart, PALETTE, daysBetween } from './charts.js';

const DAYS = 14;

/** Spend per UTC day of the last DAYS days (GET /app/usage: the ledger's charges less refunds, summed by the gateway). */
async function usageByDay() {
  const to = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.now() - (DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
  const { body } = await api('GET', '/app/usage', { team: true, query: { from, to, group_by: 'day' } });
  return body;
}

function SpendChart({ usage }) {
  const days = daysBetween(usage.from, usage.to);
  const spent = new Map(usage.rows.map((r) => [r.day, r.spend]));
  const values = days.map((d) => spent.get(d) ?? 0);
  const total = usage.totals.spend;
  const max = Math.max(0, ...values);
  return html`<div data-testid="spend-chart" data-total=${total}>
    <${BarChart} testid="spend-chart-plot" label=${`Spend per day over the last ${DAYS} days: ${credits(total)} in all.`} height=${160}
      xs=${days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000)} series=${[{ label: 'Spend', color: PALETTE[0], values }]}
      caption=${total ? `${credits(total)} (${usd(total)}) spent on runs in the last ${DAYS} days; the highest day ${credits(max)}.` : `Nothing spent on runs in the last ${DAYS} days.`} />
    <p><a href="#/usage">Usage by model and key</a></p>
  </div>`;
}

function RecentRuns() {
  const [runs, setRuns] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => { api('GET', '/app/get_run_history_data', { team: true, query: { page: 1, page_size: 5, include_count: false } }).then((r) => setRuns(r.body.items), setError); }, []);
  if (error) return html`<${Notice} error=${error} />`;
  if (!runs) return html`<p class="loading" role="status">Loading…</p>`;
  if (!runs.length) return html`<p class="muted">No runs yet. Try a model in the <a href="#/playground">playground</a>.</p>`;
  return html`<ul class="recent" data-testid="recent-runs">${runs.map((r) => html`<li>
    <a href=${`#/history?id=${encodeURIComponent(r.request_id)}`}>${r.model}</a>
    <span class=${`status ${r.status}`}>${r.status}</span>
    <span class="muted">${r.is_test ? 'sandbox' : credits(r.cost)} · ${when(r.created_at)}</span></li>`)}</ul>
    <p><a href="#/history">All runs</a></p>`;
}

export function Overview({ user, site }) {
  // on a storefront whose owner pays, the user's own wallet is not what pays for their runs
  const ownWallet = !(site && site.studio && site.studio.payer_mode === 'owner_pays');
  const [balance, setBalance] = useState(null);
  const [usage, setUsage] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    api('GET', '/account/balance', { team: true }).then((r) => setBalance(r.body), setError);
    usageByDay().then(setUsage, setError);
  }, []);
  return html`
    <${Notice} error=${error} />
    <section class="cards">
      ${ownWallet && html`<div class="card">
        <h2>Balance</h2>
        ${balance ? html`<p class="figure" data-testid="balance">${credits(balance.balance)}</p>
          <p class="muted">${credits(balance.held)} held by running predictions · 1,000 credits = 1 USD</p>` : html`<p class="loading" role="status">Loading…</p>`}
      </div>`}
      <div class="card">
        <h2>Get started</h2>
        <p>Try a model in the <a href="#/playground">playground</a>, then create an <a href="#/keys">API key</a> to call it from your code.</p>
        ${!user.email_verified && html`<p class="notice">Your email address is not verified yet: look for the code we sent you.</p>`}
      </div>
      ${ownWallet && html`<div class="card">
        <h2>Spend</h2>
        ${usage ? html`<${SpendChart} usage=${usage} />` : !error && html`<p class="loading" role="status">Loading…</p>`}
      </div>`}
      <div class="card">
        <h2>Recent runs</h2>
        <${RecentRuns} />
      </div>
    </section>`;
}
