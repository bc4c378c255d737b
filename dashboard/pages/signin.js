// Sign-in: by password, or by a one-time code mailed to the address.
import { html, useState } from '/dashboard/vendor/preact-htm.js';
import { api, session } from '../api.js';
import { Notice } from './ui.js';

export function SignIn({ onSignedIn }) {
  const [mode, setMode] = useState('password');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [codeSent, setCodeSent] = useState(false);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);

  const run = (fn) => async (e) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try { await fn(); } catch (err) { setError(err); } finally { setBusy(false); }
  };
  const withPassword = run(async () => {
    const r = await api('POST', '/auth/login', { auth: false, body: { email, password } });
    session.token = r.body.access_token;
    onSignedIn();
  });
  const sendCode = run(async () => {
    await api('POST', '/auth/request-otp', { auth: false, body: { email } });
    setCodeSent(true);
  });
  const withCode = run(async () => {
    const r = await api('POST', '/auth/login-otp', { auth: false, body: { email, otp: code } });
    session.token = r.body.access_token;
    onSignedIn();
  });

  return html`
    <main class="signin">
      <h1>Sign in to mediagate</h1>
      <div class="tabs" role="tablist">
        <button role="tab" aria-selected=${mode === 'password'} onClick=${() => { setMode('password'); setError(null); }}>Password</button>
        <button role="tab" aria-selected=${mode === 'code'} onClick=${() => { setMode('code'); setError(null); }}>One-time code</button>
      </div>
      <${Notice} error=${error} />
      ${mode === 'password' ? html`
        <form onSubmit=${withPassword}>
          <label>Email <input type="email" name="email" autocomplete="username" required value=${email} onInput=${(e) => setEmail(e.target.value)} /></label>
          <label>Password <input type="password" name="password" autocomplete="current-password" required value=${password} onInput=${(e) => setPassword(e.target.value)} /></label>
          <button type="submit" disabled=${busy}>${busy ? 'Signing in…' : 'Sign in'}</button>
        </form>` : html`
        <form onSubmit=${codeSent ? withCode : sendCode}>
          <label>Email <input type="email" name="email" autocomplete="username" required value=${email} onInput=${(e) => setEmail(e.target.value)} /></label>
          ${codeSent && html`
            <p class="notice" role="status">If an account exists for ${email}, a six-digit code is on its way.</p>
            <label>Code <input name="otp" inputmode="numeric" pattern="[0-9]{6}" autocomplete="one-time-code" required value=${code} onInput=${(e) => setCode(e.target.value)} /></label>`}
          <button type="submit" disabled=${busy}>${codeSent ? 'Sign in' : 'Send me a code'}</button>
        </form>`}
    </main>`;
}
