// Overview: the wallet, spend over the last two weeks (a bar per day, from the ledger) and the
// recent runs.
import { html, useEffect, useState } from '/dashboard/vendor/preact-htm.js';
import { api } from '../api.js';
import { Notice, credits, usd, when } from './ui.js';

const DAYS = 14;
const MAX_PAGES = 5; // at most 500 ledger rows: enough for the chart of a normal account

/** Credits charged for runs (`prediction` rows) per UTC day, the last DAYS days, oldest first. */
export function spendByDay(rows, now = new Date()) {
  const days = [];
  for (let i = DAYS - 1; i >= 0; i--) days.push({ day: new Date(now.getTime() - i * 86_400_000).toISOString().slice(0, 10), spent: 0 });
  const index = new Map(days.map((d) => [d.day, d]));
  for (const r of rows) {
    const d = index.get(String(r.created_at).slice(0, 10));
    if (d && r.kind === 'prediction' && r.amount < 0) d.spent -= r.amount;
  }
  return days;
}

async function ledgerRows() {
  const since = new Date(Date.now() - DAYS * 86_400_000).toISOString();
  const rows = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const { body } = await api('GET', '/app/credit_transactions', { team: true, query: { page, page_size: 100 } });
    rows.push(...body.items);
    if (!body.has_more || (body.items.length && body.items[body.items.length - 1].created_at < since)) break;
  }
  return rows;
}

function SpendChart({ days }) {
  const max = Math.max(1, ...days.map((d) => d.spent));
  const total = days.reduce((s, d) => s + d.spent, 0);
  const w = 28, gap = 6, h = 120;
  const label = `Spend per day over the last ${DAYS} days: ${credits(total)} in all.`;
  return html`
    <figure class="chart">
      <svg viewBox=${`0 0 ${days.length * (w + gap)} ${h + 22}`} role="img" aria-label=${label} data-testid="spend-chart">
        ${days.map((d, i) => {
          const bh = d.spent ? Math.max(2, Math.round((d.spent / max) * h)) : 0;
          return html`<g>
            <title>${d.day}: ${credits(d.spent)} (${usd(d.spent)})</title>
            <rect class="bar" x=${i * (w + gap)} y=${h - bh} width=${w} height=${bh} data-day=${d.day} data-spent=${d.spent} />
            <rect class="baseline" x=${i * (w + gap)} y=${h} width=${w} height="1" />
            ${i % 2 === 0 && html`<text x=${i * (w + gap) + w / 2} y=${h + 16} text-anchor="middle">${d.day.slice(8)}</text>`}
          </g>`;
        })}
      </svg>
      <figcaption class="muted">${total ? `${credits(total)} (${usd(total)}) spent on runs in the last ${DAYS} days; the highest day ${credits(max)}.` : `Nothing spent on runs in the last ${DAYS} days.`}</figcaption>
    </figure>`;
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
  const [days, setDays] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    api('GET', '/account/balance', { team: true }).then((r) => setBalance(r.body), setError);
    ledgerRows().then((rows) => setDays(spendByDay(rows)), setError);
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
        ${days ? html`<${SpendChart} days=${days} />` : !error && html`<p class="loading" role="status">Loading…</p>`}
      </div>`}
      <div class="card">
        <h2>Recent runs</h2>
        <${RecentRuns} />
      </div>
    </section>`;
}
