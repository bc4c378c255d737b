// Billing: the balance, the ledger (paged, kinds as words, credits and USD), the paying wallet's
// discounts and subscription. docs/operating/administration.md "The ledger".
import { html, useEffect, useState } from '/dashboard/vendor/preact-htm.js';
import { api } from '../api.js';
import { Notice, Pager, credits, usd, when } from './ui.js';

// The ledger's kinds are an open set: an unknown one is shown as written.
export const KINDS = {
  signup: 'Sign-up credit',
  grant: 'Credit granted',
  topup: 'Top-up',
  hold: 'Held for a run',
  prediction: 'Run charged',
  release: 'Hold released',
  refund: 'Refund',
  deduction: 'Deduction',
  adjustment: 'Adjustment',
  opening: 'Opening balance',
};
export const kindWord = (k) => KINDS[k] || k.charAt(0).toUpperCase() + k.slice(1).replace(/_/g, ' ');

function Discounts() {
  const [state, setState] = useState({ loading: true });
  useEffect(() => {
    api('GET', '/auth/my_model_discounts', { team: true }).then(
      (r) => setState({ items: r.body }),
      (err) => setState({ error: err }),
    );
  }, []);
  if (state.loading) return html`<p class="muted">Loading…</p>`;
  if (state.error) {
    return state.error.status === 501
      ? html`<p class="muted" data-testid="discounts-unavailable">Discounts are not available on this gateway yet.</p>`
      : html`<${Notice} error=${state.error} />`;
  }
  if (!state.items.length) return html`<p class="muted">No discount applies to your runs.</p>`;
  return html`<ul>${state.items.map((d) => html`<li>${d.percent_off}% off ${d.model}${d.expires_at ? ` until ${when(d.expires_at)}` : ''}</li>`)}</ul>`;
}

/** The paying wallet's subscription (GET /app/subscription; docs/operating/billing.md "Subscriptions"). */
function Subscription() {
  const [state, setState] = useState({ loading: true });
  useEffect(() => {
    api('GET', '/app/subscription', { team: true }).then((r) => setState({ sub: r.body }), (err) => setState({ error: err }));
  }, []);
  if (state.loading) return html`<p class="muted">Loading…</p>`;
  if (state.error) return html`<${Notice} error=${state.error} />`;
  const s = state.sub;
  const leftover = s.grant_remaining > 0 ? html`<p class="muted">${credits(s.grant_remaining)} of plan credit left; it is spent before purchased credit and expires with its period.</p>` : null;
  if (s.status === 'none') return html`<p class="muted" data-testid="subscription-none">No subscription. Contact billing to start a plan.</p>`;
  return html`<p data-testid="subscription-plan"><strong>${s.plan}</strong> · ${s.status === 'active' ? 'active' : 'cancelled'}</p>
    ${s.credits_per_period !== null && html`<p class="muted">${credits(s.credits_per_period)} (${usd(s.credits_per_period)}) every ${String(s.period).replace(/^(\d+)d$/, '$1 days')}${s.rollover_cap ? `, up to ${credits(s.rollover_cap)} carried over` : ''}.</p>`}
    ${s.status === 'active'
      ? html`<p class="muted">Renews ${when(s.current_period_end)}${s.next_plan ? ` with the ${s.next_plan} plan` : ''}.</p>`
      : html`<p class="muted">Cancelled: no further credit will be granted.</p>`}
    ${leftover}`;
}

export function Billing() {
  const [balance, setBalance] = useState(null);
  const [page, setPage] = useState(1);
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => { api('GET', '/account/balance', { team: true }).then((r) => setBalance(r.body), setError); }, []);
  useEffect(() => {
    setData(null);
    api('GET', '/app/credit_transactions', { team: true, query: { page, page_size: 25 } }).then((r) => setData(r.body), setError);
  }, [page]);
  return html`
    <${Notice} error=${error} />
    <section class="cards">
      <div class="card">
        <h2>Balance</h2>
        ${balance ? html`<p class="figure" data-testid="billing-balance">${credits(balance.balance)}</p>
          <p class="muted">${usd(balance.balance)} · ${credits(balance.held)} held by running runs · 1,000 credits = 1 USD</p>` : html`<p class="muted">Loading…</p>`}
      </div>
      <div class="card" data-testid="discounts">
        <h2>Discounts</h2>
        <${Discounts} />
      </div>
      <div class="card" data-testid="subscription">
        <h2>Subscription</h2>
        <${Subscription} />
      </div>
    </section>
    <h2 class="section">Transactions</h2>
    ${data === null ? (!error && html`<p class="muted">Loading…</p>`) : data.items.length === 0
      ? html`<p class="empty">${page > 1 ? 'There are no more transactions.' : 'No credit has moved on this wallet yet.'}</p>`
      : html`<div class="table-wrap"><table class="ledger">
        <thead><tr><th>When</th><th>What</th><th class="num">Amount</th><th class="num">Balance after</th><th>Description</th><th>Run</th></tr></thead>
        <tbody>${data.items.map((t) => html`<tr data-kind=${t.kind}>
          <td>${when(t.created_at)}</td>
          <td>${kindWord(t.kind)}</td>
          <td class=${t.amount < 0 ? 'num minus' : 'num'}>${t.amount > 0 ? '+' : ''}${credits(t.amount)}<small>${usd(t.amount)}</small></td>
          <td class="num">${credits(t.balance_after)}<small>${usd(t.balance_after)}</small></td>
          <td>${t.description}</td>
          <td>${t.request_id ? html`<a href=${`#/history?id=${encodeURIComponent(t.request_id)}`}><code>${t.request_id.slice(0, 12)}…</code></a>` : ''}</td>
        </tr>`)}</tbody></table></div>`}
    <${Pager} data=${data} onPage=${setPage} label="Transaction pages" />`;
}
