// Billing: the wallet (balance, held, expiring plan credit), buying credit with Stripe Checkout
// (the operator's presets or an amount within its limits), the plan (start one sold online,
// manage it in Stripe's billing portal), purchases, invoices, discounts and the ledger. Acting
// for a team, all of it is the team's wallet. Back from Checkout, the page waits for Stripe's
// confirmation to land and then shows the purchase.
import { html, useEffect, useState } from '/dashboard/vendor/preact-htm.js';
import { api } from '../api.js';
import { Notice, Pager, credits, day, usd, when } from './ui.js';

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
  purchase: 'Credit bought',
  payment_refund: 'Payment refunded',
  subscription: 'Plan credit',
  expiry: 'Plan credit expired',
  studio_revenue: 'Studio revenue',
};
export const kindWord = (k) => KINDS[k] || k.charAt(0).toUpperCase() + k.slice(1).replace(/_/g, ' ');

/** Digits after the point in a currency's major unit (USD 2, JPY 0). */
function digitsOf(currency) {
  try { return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits; } catch { return 2; }
}

/** An amount in a currency's minor unit, as money. */
export function money(minor, currency) {
  const d = digitsOf(currency);
  try { return (minor / 10 ** d).toLocaleString(undefined, { style: 'currency', currency: currency.toUpperCase() }); } catch { return `${minor} ${currency}`; }
}

/** Credits an amount buys at the operator's rate. */
const creditsFor = (minor, p) => Math.floor((minor * p.credits_per_unit) / 10 ** digitsOf(p.currency));

/** A ledger figure the team role may not read (it lacks read_balance: the API sends null). */
const hiddenCell = html`<span title="Your role in this team cannot see the balance">—</span>`;

function useLoad(path, deps = []) {
  const [state, setState] = useState({ loading: true });
  const load = () => api('GET', path, { team: true }).then((r) => setState({ data: r.body }), (err) => setState({ error: err }));
  useEffect(() => { load(); }, deps);
  return [state, load];
}

function Loading({ what }) {
  return html`<p class="loading" role="status">Loading ${what}…</p>`;
}

function Wallet({ balance, sub }) {
  if (balance.loading || sub.loading) return html`<${Loading} what="the wallet" />`;
  if (balance.error) return html`<${Notice} error=${balance.error} />`;
  const b = balance.data;
  const s = sub.data;
  const expiring = s && s.grant_remaining > 0;
  return html`
    <p class="figure" data-testid="billing-balance">${credits(b.balance)}</p>
    <p class="muted">${usd(b.balance)} · 1,000 credits = 1 USD</p>
    <dl class="facts">
      <dt>Held</dt><dd data-testid="billing-held">${credits(b.held)} <span class="muted">by runs in progress</span></dd>
      <dt>Expiring</dt><dd data-testid="billing-expiring">${expiring
        ? html`${credits(s.grant_remaining)} <span class="muted">of plan credit, spent first; it expires ${s.current_period_end ? day(s.current_period_end) : 'with its period'}</span>`
        : html`<span class="muted">none</span>`}</dd>
    </dl>`;
}

function BuyCredits({ payments, onError }) {
  const [choice, setChoice] = useState(String(payments.presets[0] ?? ''));
  const [custom, setCustom] = useState('');
  const [busy, setBusy] = useState(false);
  const [fieldError, setFieldError] = useState(null);
  const d = digitsOf(payments.currency);
  const minor = choice === 'other' ? Math.round(Number(custom) * 10 ** d) : Number(choice);
  const buy = async (e) => {
    e.preventDefault();
    setFieldError(null);
    if (!Number.isFinite(minor) || minor < payments.min_amount || minor > payments.max_amount) {
      setFieldError(`Choose an amount from ${money(payments.min_amount, payments.currency)} to ${money(payments.max_amount, payments.currency)}.`);
      return;
    }
    setBusy(true);
    try {
      const r = await api('POST', '/app/checkout_sessions', { team: true, body: { amount: minor } });
      location.assign(r.body.url);
    } catch (err) { onError(err); setBusy(false); }
  };
  // the limits are checked here, so the message stands beside the field (not a browser bubble)
  return html`<form onSubmit=${buy} aria-labelledby="buy-title" novalidate>
    <h2 id="buy-title">Buy credits</h2>
    <fieldset class="choices">
      <legend>Amount</legend>
      ${payments.presets.map((p) => html`<label class="choice"><input type="radio" name="amount" value=${String(p)} checked=${choice === String(p)} onChange=${() => setChoice(String(p))} />
        ${money(p, payments.currency)} <span class="muted">${credits(creditsFor(p, payments))}</span></label>`)}
      <label class="choice"><input type="radio" name="amount" value="other" checked=${choice === 'other'} onChange=${() => setChoice('other')} /> Another amount</label>
    </fieldset>
    ${choice === 'other' && html`<div class="field">
      <label for="custom-amount">Amount (${payments.currency.toUpperCase()})</label>
      <input id="custom-amount" type="number" inputmode="decimal" min=${payments.min_amount / 10 ** d} max=${payments.max_amount / 10 ** d} step=${1 / 10 ** d}
        value=${custom} onInput=${(e) => setCustom(e.target.value)} aria-invalid=${fieldError ? 'true' : undefined} aria-describedby="custom-amount-hint" />
      <small id="custom-amount-hint">From ${money(payments.min_amount, payments.currency)} to ${money(payments.max_amount, payments.currency)}.</small>
    </div>`}
    ${fieldError && html`<p class="field-error" role="alert">${fieldError}</p>`}
    <p class="muted">${Number.isFinite(minor) && minor > 0 ? `You get ${credits(creditsFor(minor, payments))}.` : ''} You pay on Stripe's secure page and come back here.</p>
    <button type="submit" disabled=${busy}>${busy ? 'Opening the payment page…' : 'Continue to payment'}</button>
  </form>`;
}

function Plan({ sub, payments, purchases, onError }) {
  const [busy, setBusy] = useState(false);
  if (sub.loading) return html`<${Loading} what="the plan" />`;
  if (sub.error) return html`<${Notice} error=${sub.error} />`;
  const s = sub.data;
  const online = payments.enabled ? payments.plans.filter((p) => p.online) : [];
  const go = (path, body) => async () => {
    setBusy(true);
    try { location.assign((await api('POST', path, { team: true, body })).body.url); } catch (err) { onError(err); setBusy(false); }
  };
  const portal = payments.enabled && (s.status !== 'none' || (purchases.data && purchases.data.purchases.length > 0))
    ? html`<button type="button" class="secondary" disabled=${busy} onClick=${go('/app/billing_portal_sessions')}>Manage billing in Stripe</button>` : null;
  if (s.status === 'none' || s.status === 'cancelled') {
    return html`
      ${s.status === 'cancelled' ? html`<p data-testid="subscription-plan"><strong>${s.plan}</strong> · cancelled</p>` : html`<p class="muted" data-testid="subscription-none">No plan.</p>`}
      ${online.length ? html`<ul class="plans">${online.map((p) => html`<li>
          <strong>${p.name}</strong> · ${credits(p.credits_per_period)} every ${periodWords(p.period)}${p.rollover_cap ? `, up to ${credits(p.rollover_cap)} carried over` : ''}
          <button type="button" class="small" disabled=${busy} onClick=${go('/app/checkout_sessions', { plan: p.name })} aria-label=${`Start the ${p.name} plan`}>Start</button></li>`)}</ul>`
        : html`<p class="muted">Plans are arranged with the operator's billing team.</p>`}
      ${portal && html`<div class="actions">${portal}</div>`}`;
  }
  return html`<p data-testid="subscription-plan"><strong>${s.plan}</strong> · active</p>
    ${s.credits_per_period !== null && html`<p class="muted">${credits(s.credits_per_period)} (${usd(s.credits_per_period)}) every ${periodWords(s.period)}${s.rollover_cap ? `, up to ${credits(s.rollover_cap)} carried over` : ''}.</p>`}
    <p class="muted">Renews ${when(s.current_period_end)}${s.next_plan ? ` with the ${s.next_plan} plan` : ''}.</p>
    ${portal && html`<div class="actions">${portal}</div>`}`;
}

const periodWords = (p) => String(p).replace(/^(\d+)d$/, '$1 days');

function Discounts() {
  const [state] = useLoad('/auth/my_model_discounts');
  if (state.loading) return html`<${Loading} what="discounts" />`;
  if (state.error) {
    return state.error.status === 501
      ? html`<p class="muted" data-testid="discounts-unavailable">Discounts are not available on this gateway yet.</p>`
      : html`<${Notice} error=${state.error} />`;
  }
  if (!state.data.length) return html`<p class="muted">No discount applies to your runs.</p>`;
  return html`<ul>${state.data.map((d) => html`<li>${d.percent_off}% off ${d.model}${d.expires_at ? ` until ${when(d.expires_at)}` : ''}</li>`)}</ul>`;
}

/** Back from Stripe: waits (a few seconds at most, usually one) for the webhook to land, then names what it bought. */
function useCheckoutReturn(onLanded) {
  const params = new URLSearchParams(location.search);
  const [state, setState] = useState(() => (params.get('checkout') === 'done' ? { waiting: true, id: params.get('session_id'), plan: params.get('plan') }
    : params.get('checkout') === 'cancelled' ? { cancelled: true } : null));
  useEffect(() => {
    if (!state) return undefined;
    // the address keeps no trace of the checkout: a reload does not wait again
    history.replaceState(null, '', `${location.pathname}${location.hash}`);
    if (!state.waiting) return undefined;
    let stop = false;
    let tries = 0;
    const poll = async () => {
      if (stop) return;
      tries += 1;
      try {
        const [p, s] = await Promise.all([api('GET', '/app/purchases', { team: true }), api('GET', '/app/subscription', { team: true })]);
        const bought = p.body.purchases.find((x) => x.checkout_session_id === state.id);
        if (bought) { setState({ landed: `Payment received: ${credits(bought.credits)} added.` }); onLanded(); return; }
        if (state.plan && s.body.status === 'active' && s.body.plan === state.plan) { setState({ landed: `Your ${s.body.plan} plan is active.` }); onLanded(); return; }
      } catch { /* try again */ }
      if (tries >= 30) { setState({ slow: true }); return; }
      setTimeout(poll, 1000);
    };
    poll();
    return () => { stop = true; };
  }, []);
  return state;
}

export function Billing({ site }) {
  const payments = site.payments;
  const [page, setPage] = useState(1);
  const [error, setError] = useState(null);
  const [balance, loadBalance] = useLoad('/account/balance');
  const [sub, loadSub] = useLoad('/app/subscription');
  const [purchases, loadPurchases] = useLoad('/app/purchases');
  const [invoices] = useLoad('/app/invoices');
  const [ledger, setLedger] = useState(null);
  const loadLedger = () => api('GET', '/app/credit_transactions', { team: true, query: { page, page_size: 25 } }).then((r) => setLedger(r.body), setError);
  useEffect(() => { setLedger(null); loadLedger(); }, [page]);
  const returned = useCheckoutReturn(() => { loadBalance(); loadSub(); loadPurchases(); loadLedger(); });

  return html`
    ${returned && html`<p class=${returned.cancelled || returned.slow ? 'notice' : 'notice ok'} role="status" data-testid="checkout-status">${
      returned.cancelled ? 'The payment was cancelled; nothing was charged.'
      : returned.waiting ? 'Payment received by Stripe. Waiting for its confirmation…'
      : returned.slow ? 'Stripe has not confirmed the payment yet. It will appear in your purchases as soon as it does; you can leave this page.'
      : returned.landed}</p>`}
    <${Notice} error=${error} />
    <section class="cards">
      <div class="card"><h2>Wallet</h2><${Wallet} balance=${balance} sub=${sub} /></div>
      ${payments.enabled && html`<div class="card"><${BuyCredits} payments=${payments} onError=${setError} /></div>`}
      <div class="card" data-testid="subscription"><h2>Plan</h2><${Plan} sub=${sub} payments=${payments} purchases=${purchases} onError=${setError} /></div>
      <div class="card" data-testid="discounts"><h2>Discounts</h2><${Discounts} /></div>
    </section>

    ${payments.enabled && html`
    <h2 class="section">Purchases</h2>
    ${purchases.loading ? html`<${Loading} what="purchases" />` : purchases.error ? html`<${Notice} error=${purchases.error} />`
      : purchases.data.purchases.length === 0 ? html`<p class="empty">No credit bought yet.</p>`
      : html`<div class="table-wrap" tabindex="0"><table data-testid="purchases">
        <caption class="visually-hidden">Purchases</caption>
        <thead><tr><th scope="col">When</th><th scope="col" class="num">Paid</th><th scope="col" class="num">Credits</th><th scope="col">Refunds</th></tr></thead>
        <tbody>${purchases.data.purchases.map((p) => html`<tr>
          <td>${when(p.created_at)}</td><td class="num">${money(p.amount, p.currency)}</td><td class="num">${credits(p.credits)}</td>
          <td>${p.refunded_amount ? `${money(p.refunded_amount, p.currency)} refunded, ${credits(p.credits_removed)} taken back` : html`<span class="muted">none</span>`}</td>
        </tr>`)}</tbody></table></div>`}

    <h2 class="section">Invoices</h2>
    ${invoices.loading ? html`<${Loading} what="invoices" />` : invoices.error ? html`<${Notice} error=${invoices.error} />`
      : invoices.data.invoices.length === 0 ? html`<p class="empty">No invoices yet. Plans are invoiced by Stripe every period.</p>`
      : html`<div class="table-wrap" tabindex="0"><table>
        <caption class="visually-hidden">Invoices</caption>
        <thead><tr><th scope="col">Invoice</th><th scope="col">Date</th><th scope="col">Status</th><th scope="col" class="num">Amount</th><th scope="col"><span class="visually-hidden">Links</span></th></tr></thead>
        <tbody>${invoices.data.invoices.map((i) => html`<tr>
          <td>${i.number || i.id}</td><td>${day(i.created_at)}</td><td>${i.status || ''}</td><td class="num">${money(i.amount_due, i.currency)}</td>
          <td>${i.hosted_invoice_url && html`<a href=${i.hosted_invoice_url} target="_blank" rel="noopener">View</a>`} ${i.invoice_pdf && html`<a href=${i.invoice_pdf} target="_blank" rel="noopener">PDF</a>`}</td>
        </tr>`)}</tbody></table></div>`}`}

    <h2 class="section">Transactions</h2>
    ${ledger === null ? (!error && html`<${Loading} what="transactions" />`) : ledger.items.length === 0
      ? html`<p class="empty">${page > 1 ? 'There are no more transactions.' : 'No credit has moved on this wallet yet.'}</p>`
      : html`<div class="table-wrap" tabindex="0"><table class="ledger">
        <caption class="visually-hidden">Transactions</caption>
        <thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col" class="num">Amount</th><th scope="col" class="num">Balance after</th><th scope="col">Description</th><th scope="col">Run</th></tr></thead>
        <tbody>${ledger.items.map((t) => html`<tr data-kind=${t.kind}>
          <td>${when(t.created_at)}</td>
          <td>${kindWord(t.kind)}</td>
          <td class=${t.amount < 0 ? 'num minus' : 'num'}>${t.amount === null ? hiddenCell : html`${t.amount > 0 ? '+' : ''}${credits(t.amount)}<small>${usd(t.amount)}</small>`}</td>
          <td class="num">${t.balance_after === null ? hiddenCell : html`${credits(t.balance_after)}<small>${usd(t.balance_after)}</small>`}</td>
          <td>${t.description ?? ''}</td>
          <td>${t.request_id ? html`<a href=${`#/history?id=${encodeURIComponent(t.request_id)}`}><code>${t.request_id.slice(0, 12)}…</code></a>` : ''}</td>
        </tr>`)}</tbody></table></div>`}
    <${Pager} data=${ledger} onPage=${setPage} label="Transaction pages" />`;
}
