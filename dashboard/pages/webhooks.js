// The webhook signing secrets (Standard Webhooks), production and sandbox: reveal, copy, rotate each; send a test event to a
// URL signed with either; the delivery log of every run, by status, with redelivery.
import { html, useEffect, useRef, useState } from '/dashboard/vendor/preact-htm.js';
import { api, session } from '../api.js';
import { CopyButton, LastAnswer, Notice, when } from './ui.js';

const DELIVERY_STATUSES = ['pending', 'delivered', 'gone', 'dead'];
const EVENT_TEXT = { 'alert.low_balance': 'Alert: low balance', 'alert.monthly_budget': 'Alert: monthly budget reached', 'alert.key_soft_limit': 'Alert: API key spend' };


function DeliveryLog() {
  const [status, setStatus] = useState('');
  const [page, setPage] = useState(null);
  const [error, setError] = useState(null);
  const [note, setNote] = useState(null);
  // the newest load wins: an answer for a filter the user has since changed is dropped
  const latest = useRef(0);
  const load = async (before) => {
    const mine = ++latest.current;
    setError(null);
    try {
      const r = await api('GET', '/app/webhook_deliveries', { query: { status, before, limit: 20 }, team: true });
      if (mine !== latest.current) return;
      setPage((p) => (before && p ? { items: [...p.items, ...r.body.items], next_before: r.body.next_before } : r.body));
    } catch (err) { if (mine === latest.current) setError(err); }
  };
  useEffect(() => { setPage(null); load(); }, [status]);
  const redeliver = async (d) => {
    setError(null);
    try {
      await api('POST', `/app/webhook_deliveries/${encodeURIComponent(d.id)}/redeliver`, { team: true });
      setNote('The delivery was scheduled again.');
      await load();
    } catch (err) { setError(err); }
  };
  return html`<section class="card" aria-labelledby="delivery-log-title" data-testid="delivery-log">
    <h2 id="delivery-log-title">Deliveries</h2>
    <p class="muted">Every delivery of your runs' results and your alerts, newest first, with what the receiver answered.</p>
    <${Notice} error=${error}>${note}</${Notice}>
    <label class="inline">Status <select name="delivery-status" value=${status} onChange=${(e) => setStatus(e.target.value)}>
      <option value="">any</option>${DELIVERY_STATUSES.map((x) => html`<option value=${x}>${x}</option>`)}</select></label>
    ${!page ? (!error && html`<p class="loading" role="status">Loading…</p>`) : page.items.length === 0 ? html`<p class="empty">No delivery${status ? ` is ${status}` : ' yet'}.</p>` : html`
      <div class="table-wrap" tabindex="0"><table>
        <thead><tr><th>Created</th><th>Address</th><th>Status</th><th>Attempts</th><th>Last answer</th><th>Run or event</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>${page.items.map((d) => html`<tr>
          <td>${when(d.created_at)}</td><td>${d.url}</td><td>${d.status}</td><td>${d.attempts}</td>
          <td><${LastAnswer} d=${d} /></td>
          <td>${d.prediction_id
            ? html`<a href=${`#/history?id=${d.prediction_id}`}><code>${d.prediction_id.slice(0, 10)}…</code></a>`
            : (EVENT_TEXT[d.event_type] ?? d.event_type)}</td>
          <td>${(d.status === 'dead' || d.status === 'gone') && html`<button type="button" class="secondary" onClick=${() => redeliver(d)}>Redeliver</button>`}</td>
        </tr>`)}</tbody></table></div>
      ${page.next_before && html`<div class="actions"><button type="button" class="secondary" onClick=${() => load(page.next_before)}>More</button></div>`}`}
  </section>`;
}

/**
 * Each owner (the account, or the team acted for) has two signing secrets: a receiver verifies
 * production deliveries with one and sandbox deliveries with the other, and rotates each alone.
 */
const SECRETS = [
  { sandbox: false, id: 'production', title: 'Production signing secret', signs: 'Signs the deliveries of production runs and of alerts (low balance, budget, key spend).' },
  { sandbox: true, id: 'sandbox', title: 'Sandbox signing secret', signs: 'Signs the deliveries of sandbox runs (made with a sandbox key) only. A sandbox key can read and rotate this secret, never the production one.' },
];

function SigningSecret({ kind }) {
  const [secret, setSecret] = useState(null);
  const [shown, setShown] = useState(false);
  const [error, setError] = useState(null);
  // sandbox=false is sent too: the production card asks for the production secret by name
  const query = { sandbox: kind.sandbox };
  useEffect(() => { api('GET', '/app/webhook_secret', { query, team: true }).then((r) => setSecret(r.body), setError); }, []);
  const rotate = async () => {
    if (!confirm(`Rotate the ${kind.id} secret? ${kind.sandbox ? 'Sandbox' : 'Production'} deliveries are signed with the new one from now on; the previous one stays valid for verification for a while. The ${kind.sandbox ? 'production' : 'sandbox'} secret does not change.`)) return;
    setError(null);
    try { setSecret((await api('POST', '/app/webhook_secret/rotate', { query, team: true })).body); setShown(true); } catch (err) { setError(err); }
  };
  const titleId = `${kind.id}-secret-title`;
  return html`<section class="card" aria-labelledby=${titleId} data-testid=${`${kind.id}-secret`}>
    <h2 id=${titleId}>${kind.title}</h2>
    <p class="muted">${kind.signs}</p>
    <${Notice} error=${error} />
    ${!secret ? (!error && html`<p class="loading" role="status">Loading…</p>`) : html`
      <p class="secret"><code data-testid="webhook-secret">${shown ? secret.secret : '•'.repeat(24)}</code></p>
      <p class="muted">Created ${when(secret.created_at)}${secret.previous.length ? ` · ${secret.previous.length} previous secret(s) still verify` : ''}</p>
      <div class="actions">
        <button class="secondary" onClick=${() => setShown(!shown)}>${shown ? 'Hide' : 'Reveal'}</button>
        <${CopyButton} text=${secret.secret} />
        <button class="danger secondary" onClick=${rotate}>Rotate ${kind.id} secret</button>
      </div>`}
  </section>`;
}

export function Webhooks() {
  const [error, setError] = useState(null);
  const [testUrl, setTestUrl] = useState('');
  // which secret signs the test event: an id of SECRETS
  const [testSecret, setTestSecret] = useState(SECRETS[0].id);
  const [tested, setTested] = useState(null);
  const [testing, setTesting] = useState(false);
  const sendTest = async (e) => {
    e.preventDefault();
    setError(null);
    setTested(null);
    setTesting(true);
    const kind = SECRETS.find((k) => k.id === testSecret);
    try {
      const r = await api('POST', '/app/webhook_test', { query: { sandbox: kind.sandbox }, body: { url: testUrl }, team: true });
      setTested({ ...r.body, secret: kind.id });
    } catch (err) { setError(err); }
    setTesting(false);
  };
  return html`
    <p class="muted">Every webhook is signed (<code>webhook-signature</code>, Standard Webhooks v1) with one of ${session.teamId ? 'the team\'s' : 'your account\'s'} two secrets. Verify it before trusting a delivery: production deliveries with the production secret, sandbox deliveries with the sandbox secret.</p>
    <${Notice} error=${error} />
    ${SECRETS.map((kind) => html`<${SigningSecret} key=${kind.id} kind=${kind} />`)}
    <form class="card" onSubmit=${sendTest} aria-labelledby="webhook-test-title">
      <h2 id="webhook-test-title">Send a test event</h2>
      <p class="muted">Sends one <code>webhook.test</code> event to your receiver now, signed with the current production or sandbox secret (a receiver of sandbox runs' deliveries verifies with the sandbox one), and shows what it answered.</p>
      <label>Receiver URL <input type="url" name="webhook-test-url" required placeholder="https://example.com/hooks/mediagate" value=${testUrl} onInput=${(e) => setTestUrl(e.target.value)} /></label>
      <label>Signed with <select name="webhook-test-secret" value=${testSecret} onChange=${(e) => setTestSecret(e.target.value)}>
        ${SECRETS.map((k) => html`<option value=${k.id}>${k.sandbox ? 'Sandbox' : 'Production'} secret</option>`)}</select></label>
      <div class="actions"><button type="submit" disabled=${testing}>${testing ? 'Sending…' : 'Send test event'}</button></div>
      ${tested && html`<p role="status" data-testid="webhook-test-result" class=${tested.delivered ? 'ok' : 'error'}>${tested.delivered
        ? `Delivered: the receiver answered HTTP ${tested.status_code} in ${tested.duration_ms} ms.`
        : `Not delivered: ${tested.status_code !== null ? `the receiver answered HTTP ${tested.status_code}` : tested.error} (${tested.duration_ms} ms).`} Signed with the ${tested.secret} secret. Event id <code>${tested.webhook_id}</code>.</p>`}
    </form>
    <${DeliveryLog} />`;
}
