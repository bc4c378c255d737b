// Getting in: sign in by password or by a one-time code, create an account and verify its address
// with the mailed code, reset a forgotten password, and Google sign-in where the operator set it
// up. Every session is asked for as the HttpOnly cookie (session=cookie); the page only keeps its
// CSRF token. On a studio's storefront all of it happens inside the studio (api.js names it); on a
// disabled studio's its users only sign in (to take their data and leave), so there is no sign-up.
import { html, useEffect, useState } from '/dashboard/vendor/preact-htm.js';
import { api, appBase, session } from '../api.js';
import { Notice } from './ui.js';

const VIEWS = ['sign-in', 'sign-up', 'verify', 'forgot-password'];

function viewOfHash(site) {
  const v = location.hash.replace(/^#\/?/, '').split('?')[0];
  return VIEWS.includes(v) && !(site.disabled && v === 'sign-up') ? v : 'sign-in';
}

function go(view) {
  location.hash = `#/${view}`;
}

/** Runs a form's submit: clears the error, marks the form busy, shows a failure as a sentence. */
function useSubmit() {
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const run = (fn) => async (e) => {
    e?.preventDefault();
    setError(null);
    setBusy(true);
    try { await fn(); } catch (err) { setError(err); } finally { setBusy(false); }
  };
  return { error, setError, busy, run };
}

async function cookieLogin(path, body) {
  const r = await api('POST', path, { auth: false, query: { session: 'cookie' }, body });
  session.token = null;
  session.csrf = r.body.csrf_token;
}

function EmailField({ value, onInput, id = 'email' }) {
  return html`<label for=${id}>Email</label>
    <input id=${id} type="email" name="email" autocomplete="username" required value=${value} onInput=${(e) => onInput(e.target.value)} />`;
}

function PasswordField({ value, onInput, id = 'password', label = 'Password', autocomplete = 'current-password', hint }) {
  return html`<label for=${id}>${label}</label>
    <input id=${id} type="password" name=${id} autocomplete=${autocomplete} minlength=${autocomplete === 'new-password' ? 8 : undefined} required value=${value}
      aria-describedby=${hint ? `${id}-hint` : undefined} onInput=${(e) => onInput(e.target.value)} />
    ${hint && html`<small id=${`${id}-hint`}>${hint}</small>`}`;
}

function CodeField({ value, onInput, id = 'otp' }) {
  return html`<label for=${id}>Code from the email</label>
    <input id=${id} name="otp" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code" required value=${value}
      aria-describedby=${`${id}-hint`} onInput=${(e) => onInput(e.target.value.trim())} />
    <small id=${`${id}-hint`}>Six digits. A code works once, for 10 minutes.</small>`;
}

function GoogleButton({ site }) {
  const { error, busy, run } = useSubmit();
  if (!site.sign_in.google) return null;
  const start = run(async () => {
    const r = await api('GET', '/auth/get-google-url', { auth: false, query: { session: 'cookie', return_to: appBase } });
    location.assign(r.body.url);
  });
  return html`<div class="alt-sign-in">
    <${Notice} error=${error} />
    <button type="button" class="secondary wide" onClick=${start} disabled=${busy}>Continue with Google</button>
  </div>`;
}

function SignInForm({ site, onSignedIn, email, setEmail }) {
  const [mode, setMode] = useState('password');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [codeSent, setCodeSent] = useState(false);
  const { error, setError, busy, run } = useSubmit();
  const withPassword = run(async () => { await cookieLogin('/auth/login', { email, password }); onSignedIn(); });
  const sendCode = run(async () => { await api('POST', '/auth/request-otp', { auth: false, body: { email } }); setCodeSent(true); });
  const withCode = run(async () => { await cookieLogin('/auth/login-otp', { email, otp: code }); onSignedIn(); });
  const pick = (m) => () => { setMode(m); setError(null); };
  return html`
    <div class="tabs" role="group" aria-label="How to sign in">
      <button type="button" aria-pressed=${mode === 'password'} onClick=${pick('password')}>Password</button>
      <button type="button" aria-pressed=${mode === 'code'} onClick=${pick('code')}>Email me a code</button>
    </div>
    <${Notice} error=${error} />
    ${mode === 'password' ? html`
      <form onSubmit=${withPassword}>
        <${EmailField} value=${email} onInput=${setEmail} />
        <${PasswordField} value=${password} onInput=${setPassword} />
        <button type="submit" class="wide" disabled=${busy}>${busy ? 'Signing in…' : 'Sign in'}</button>
        <p class="below"><a href="#/forgot-password">Forgot your password?</a></p>
      </form>` : html`
      <form onSubmit=${codeSent ? withCode : sendCode}>
        <${EmailField} value=${email} onInput=${setEmail} />
        ${codeSent && html`
          <p class="notice" role="status">If an account exists for ${email}, a six-digit code is on its way.</p>
          <${CodeField} value=${code} onInput=${setCode} />`}
        <button type="submit" class="wide" disabled=${busy}>${codeSent ? 'Sign in' : 'Send me a code'}</button>
      </form>`}
    <${GoogleButton} site=${site} />`;
}

function SignUpForm({ site, email, setEmail, password, setPassword, onRegistered }) {
  const { error, busy, run } = useSubmit();
  const register = run(async () => {
    await api('POST', '/auth/register', { auth: false, body: { email, password } });
    onRegistered();
  });
  return html`
    ${site.registration === 'closed' && html`<p class="notice" role="note">New accounts are by invitation on ${site.name}: use the address a team owner invited.</p>`}
    <${Notice} error=${error} />
    <form onSubmit=${register}>
      <${EmailField} value=${email} onInput=${setEmail} id="signup-email" />
      <${PasswordField} value=${password} onInput=${setPassword} id="new-password" label="Choose a password" autocomplete="new-password" hint="At least 8 characters." />
      <button type="submit" class="wide" disabled=${busy}>${busy ? 'Creating your account…' : 'Create account'}</button>
    </form>
    <${GoogleButton} site=${site} />`;
}

function VerifyForm({ email, setEmail, password, onVerified }) {
  const [code, setCode] = useState('');
  const [note, setNote] = useState(null);
  const { error, busy, run } = useSubmit();
  const verify = run(async () => {
    await api('POST', '/auth/verify-otp', { auth: false, body: { email, otp: code } });
    // the password is still in this page's memory right after sign-up; otherwise the code signed nothing in
    if (password) { await cookieLogin('/auth/login', { email, password }); onVerified(true); } else onVerified(false);
  });
  const resend = run(async () => {
    await api('POST', '/auth/request-otp', { auth: false, body: { email } });
    setNote('A new code is on its way. The previous one also works until either is used.');
  });
  return html`
    <p>We sent a six-digit code to <strong>${email || 'your address'}</strong>. Enter it to confirm the address is yours.</p>
    <${Notice} error=${error}>${note}<//>
    <form onSubmit=${verify}>
      ${!email && html`<${EmailField} value=${email} onInput=${setEmail} id="verify-email" />`}
      <${CodeField} value=${code} onInput=${setCode} />
      <button type="submit" class="wide" disabled=${busy}>Verify and continue</button>
    </form>
    <p class="below"><button type="button" class="link" onClick=${resend} disabled=${busy}>Send a new code</button></p>`;
}

function ForgotForm({ email, setEmail, onReset }) {
  const [sent, setSent] = useState(false);
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const { error, busy, run } = useSubmit();
  const send = run(async () => { await api('POST', '/auth/forgot-password', { auth: false, body: { email } }); setSent(true); });
  const reset = run(async () => {
    await api('POST', '/auth/reset-password', { auth: false, body: { email, otp: code, new_password: password } });
    await cookieLogin('/auth/login', { email, password });
    onReset();
  });
  return html`
    <p>${sent ? 'Enter the code from the email and choose a new password. Every other session of the account is signed out.' : 'We will email you a code to choose a new password.'}</p>
    <${Notice} error=${error} />
    <form onSubmit=${sent ? reset : send}>
      <${EmailField} value=${email} onInput=${setEmail} id="forgot-email" />
      ${sent && html`
        <p class="notice" role="status">If an account exists for ${email}, a code is on its way.</p>
        <${CodeField} value=${code} onInput=${setCode} id="reset-otp" />
        <${PasswordField} value=${password} onInput=${setPassword} id="reset-password" label="New password" autocomplete="new-password" hint="At least 8 characters." />`}
      <button type="submit" class="wide" disabled=${busy}>${sent ? 'Set password and sign in' : 'Email me a code'}</button>
    </form>`;
}

const TITLES = { 'sign-in': 'Sign in', 'sign-up': 'Create your account', verify: 'Verify your email', 'forgot-password': 'Reset your password' };

export function SignIn({ site, returnTo, onSignedIn }) {
  const [view, setView] = useState(viewOfHash(site));
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  useEffect(() => {
    const changed = () => setView(viewOfHash(site));
    addEventListener('hashchange', changed);
    changed(); // a fragment changed before the listener was there
    return () => removeEventListener('hashchange', changed);
  }, []);
  useEffect(() => { document.title = `${TITLES[view]} · ${site.name}`; }, [view]);
  const show = (v) => { go(v); setView(v); };
  // links change the fragment; the view follows (and the browser's back button works)
  const done = () => { history.replaceState(null, '', `${location.pathname}${returnTo ?? (site.disabled ? '#/account' : '#/overview')}`); onSignedIn(); };
  return html`
    <main class="signin" id="main">
      <${Brand} site=${site} />
      <h1>${TITLES[view]}</h1>
      ${site.disabled && html`<p class="notice" role="note" data-testid="studio-closed">${site.name} has closed: no new accounts, and nothing more to run or buy. If you have an account here, sign in to download your data or delete your account.</p>`}
      ${view === 'sign-in' && html`<${SignInForm} site=${site} onSignedIn=${done} email=${email} setEmail=${setEmail} />`}
      ${view === 'sign-up' && html`<${SignUpForm} site=${site} email=${email} setEmail=${setEmail} password=${password} setPassword=${setPassword} onRegistered=${() => show('verify')} />`}
      ${view === 'verify' && html`<${VerifyForm} email=${email} setEmail=${setEmail} password=${password} onVerified=${(signedIn) => (signedIn ? done() : show('sign-in'))} />`}
      ${view === 'forgot-password' && html`<${ForgotForm} email=${email} setEmail=${setEmail} onReset=${done} />`}
      ${!(site.disabled && view === 'sign-in') && html`<p class="switch">
        ${view === 'sign-in'
          ? html`New here? <a href="#/sign-up">Create an account</a>`
          : site.disabled ? html`<a href="#/sign-in">Back to sign in</a>` : html`Already have an account? <a href="#/sign-in">Sign in</a>`}
      </p>`}
    </main>`;
}

/** The site's name and, on a studio's storefront, its logo. */
export function Brand({ site }) {
  const logo = site.studio && site.studio.logo_url;
  return html`<p class="brand-line">${logo ? html`<img class="logo" src=${logo} alt="" />` : null}<span class="brand">${site.name}</span></p>`;
}
