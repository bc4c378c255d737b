// The pages support links open (docs/operating/administration.md "Impersonation and support links"): the token travels in
// the URL's fragment (#/support-login?token=…), which browsers never send to a server, and is
// posted once to the gateway. A login link signs this tab in as the account, on behalf of the
// staff member who made it; a reset link asks for a new password.
import { html, useEffect, useState } from '/dashboard/vendor/preact-htm.js';
import { api, session } from '../api.js';
import { Notice } from './ui.js';

/** 'support-login' or 'support-reset-password' and its token, when the address is a support link. */
export function supportLinkOf(hash) {
  const m = /^#\/(support-login|support-reset-password)\?(.*)$/.exec(hash);
  const token = m && new URLSearchParams(m[2]).get('token');
  return token ? { kind: m[1], token } : null;
}

function leave() {
  history.replaceState(null, '', `${location.pathname}#/overview`);
}

export function SupportLink({ link, onDone }) {
  const [error, setError] = useState(null);
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [changed, setChanged] = useState(false);

  useEffect(() => {
    if (link.kind !== 'support-login') return;
    api('POST', '/auth/support-login', { auth: false, body: { token: link.token } }).then((r) => {
      session.token = r.body.access_token;
      leave();
      onDone();
    }, setError);
  }, []);

  const reset = async (e) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      await api('POST', '/auth/support-reset-password', { auth: false, body: { token: link.token, new_password: password } });
      session.token = null;
      setChanged(true);
    } catch (err) { setError(err); } finally { setBusy(false); }
  };
  const toSignIn = () => { leave(); onDone(); };

  if (link.kind === 'support-login') {
    return html`<main class="signin"><h1>Support sign-in</h1>
      ${error ? html`<${Notice} error=${error} /><button onClick=${toSignIn}>Go to sign-in</button>` : html`<p class="boot">Signing in…</p>`}</main>`;
  }
  return html`
    <main class="signin">
      <h1>Choose a new password</h1>
      <${Notice} error=${error} />
      ${changed ? html`
        <p class="notice" role="status">Your password has been changed and every session signed out.</p>
        <button onClick=${toSignIn}>Sign in</button>` : html`
        <form onSubmit=${reset}>
          <label>New password <input type="password" name="new_password" autocomplete="new-password" minlength="8" required value=${password} onInput=${(e) => setPassword(e.target.value)} /></label>
          <button type="submit" disabled=${busy}>${busy ? 'Saving…' : 'Set password'}</button>
        </form>`}
    </main>`;
}
