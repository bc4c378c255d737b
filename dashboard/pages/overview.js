// Overview: the wallet, and where to go next.
import { html, useEffect, useState } from '/dashboard/vendor/preact-htm.js';
import { api } from '../api.js';
import { Notice, credits } from './ui.js';

export function Overview({ user }) {
  const [balance, setBalance] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    api('GET', '/account/balance', { team: true }).then((r) => setBalance(r.body), setError);
  }, []);
  return html`
    <${Notice} error=${error} />
    <section class="cards">
      <div class="card">
        <h2>Balance</h2>
        ${balance ? html`<p class="figure" data-testid="balance">${credits(balance.balance)}</p>
          <p class="muted">${credits(balance.held)} held by running predictions · 1,000 credits = 1 USD</p>` : html`<p class="muted">Loading…</p>`}
      </div>
      <div class="card">
        <h2>Get started</h2>
        <p>Try a model in the <a href="#/playground">playground</a>, then create an <a href="#/keys">API key</a> to call it from your code.</p>
        ${!user.email_verified && html`<p class="notice">Your email address is not verified yet: look for the code we sent you.</p>`}
      </div>
    </section>`;
}
