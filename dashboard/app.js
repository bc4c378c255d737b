// The dashboard's shell: the site (the gateway, or a studio's storefront), the sign-in gate,
// navigation, hash routes (#/playground, #/keys, ...). Preact + htm, one vendored ES module, no
// build step.
import { html, render, useEffect, useState } from '/dashboard/vendor/preact-htm.js';
import { api, currentSession, session, setSiteStudio, signOut as endSession, whenSignedOut } from './api.js';
import { SignIn } from './pages/signin.js';
import { applyBranding } from './theme.js';
import { SupportLink, supportLinkOf } from './pages/support-link.js';
import { Overview } from './pages/overview.js';
import { Playground } from './pages/playground.js';
import { Keys } from './pages/keys.js';
import { Clients } from './pages/clients.js';
import { Webhooks } from './pages/webhooks.js';
import { Teams } from './pages/teams.js';
import { History } from './pages/history.js';
import { Gallery } from './pages/gallery.js';
import { MediaLibrary } from './pages/media.js';
import { Billing } from './pages/billing.js';
import { Usage } from './pages/usage.js';
import { Embeds } from './pages/embeds.js';
import { Studios } from './pages/studios.js';
import { Account } from './pages/account.js';
import { Admin, STAFF_ROLES } from './pages/admin.js';
import { Notice } from './pages/ui.js';

// Grouped as a user thinks of them: making things, wiring them into code, paying, the account.
// `studio: false` pages are the gateway's own business and never appear on a studio's storefront.
// A disabled studio's storefront serves its users only their data and the way out (the gateway
// refuses everything else there): the `closed: true` page alone.
const GROUPS = [
  { title: 'Create', pages: [
    { path: 'overview', title: 'Overview', view: Overview },
    { path: 'playground', title: 'Playground', view: Playground, wide: true },
    { path: 'history', title: 'Run history', view: History },
    { path: 'gallery', title: 'Gallery', view: Gallery },
    { path: 'media', title: 'Media library', view: MediaLibrary },
  ] },
  { title: 'Develop', pages: [
    { path: 'keys', title: 'API keys', view: Keys },
    { path: 'clients', title: 'OAuth clients', view: Clients, studio: false },
    { path: 'webhooks', title: 'Webhooks', view: Webhooks },
    { path: 'embeds', title: 'Embeds', view: Embeds, studio: false },
  ] },
  { title: 'Business', pages: [
    // a studio whose owner pays for its users' runs leaves them nothing to pay or see here
    { path: 'billing', title: 'Billing', view: Billing, ownWallet: true },
    { path: 'usage', title: 'Usage', view: Usage, ownWallet: true },
    { path: 'teams', title: 'Teams', view: Teams, studio: false },
    { path: 'studios', title: 'Studios', view: Studios, studio: false },
  ] },
  { title: 'You', pages: [
    { path: 'account', title: 'Account', view: Account, closed: true },
    // shown to support, billing and admin accounts only (each route checks the role again)
    { path: 'admin', title: 'Admin', view: Admin, roles: STAFF_ROLES, studio: false },
  ] },
];
const PAGES = GROUPS.flatMap((g) => g.pages);

const allowed = (p, user, site) => (site.disabled ? p.closed === true : true)
  && (!p.roles || p.roles.includes(user.role)) && !(site.studio && p.studio === false)
  && !(site.studio && site.studio.payer_mode === 'owner_pays' && p.ownWallet);

/** The page to land on: the overview, or on a disabled studio's storefront the account. */
const homeOf = (site) => (site.disabled ? 'account' : 'overview');

function currentPath(user, site) {
  const p = location.hash.replace(/^#\/?/, '').split('?')[0];
  return PAGES.some((x) => x.path === p && allowed(x, user, site)) ? p : homeOf(site);
}

/**
 * The page a signed-out visitor opened (say the team invite link of a mail, #/teams?invite=…),
 * shown once they have signed in or signed up; null: the overview.
 */
const openedPage = (() => {
  const p = location.hash.replace(/^#\/?/, '').split('?')[0];
  return PAGES.some((x) => x.path === p) ? location.hash : null;
})();

/**
 * #/impersonate?token=…: the session an admin's "Act as" opened, for this tab only. The fragment is
 * cleared at once; the token is kept only once the gateway says it is such a session (adoptLinkedToken).
 */
let linkedToken = null;
function takeImpersonationToken() {
  const m = /^#\/impersonate\?(.*)$/.exec(location.hash);
  const token = m && new URLSearchParams(m[1]).get('token');
  if (!token) return;
  linkedToken = token;
  history.replaceState(null, '', `${location.pathname}#/overview`);
}

/**
 * An address can carry any session token: one that is not a staff member's session acting as a
 * user would sign this tab in to whoever sent the link (their account in place of this browser's
 * own), so it is dropped.
 */
async function adoptLinkedToken() {
  const token = linkedToken;
  linkedToken = null;
  if (!token) return;
  try {
    const r = await api('GET', '/auth/session', { auth: false, headers: { authorization: `Bearer ${token}` } });
    if (r.body.impersonated_by) session.token = token;
  } catch { /* ended or never a session: nothing to keep */ }
}

function Shell({ site, user, onSignOut: endSession }) {
  const [path, setPath] = useState(currentPath(user, site));
  const [menuOpen, setMenuOpen] = useState(false);
  const [signOutError, setSignOutError] = useState(null);
  const onSignOut = async () => {
    setSignOutError(null);
    try { await endSession(); } catch (err) { setSignOutError(err); }
  };
  useEffect(() => {
    const changed = () => { setPath(currentPath(user, site)); setMenuOpen(false); };
    addEventListener('hashchange', changed);
    // the fragment may have changed between the first render and this effect (a link followed
    // while the page was still starting): that hashchange came before the listener, so look once
    changed();
    return () => removeEventListener('hashchange', changed);
  }, []);
  const page = PAGES.find((p) => p.path === path);
  useEffect(() => {
    document.title = `${page.title} · ${site.name}`;
    // a new page: the keyboard and screen readers start at its heading, not at the link left behind
    document.getElementById('page-title')?.focus({ preventScroll: true });
  }, [page]);
  const View = page.view;
  const logo = site.studio && site.studio.logo_url;
  return html`
    <a class="skip" href="#main" onClick=${(e) => { e.preventDefault(); document.getElementById('page-title')?.focus(); }}>Skip to content</a>
    <div class=${menuOpen ? 'layout menu-open' : 'layout'}>
      <header class=${site.branded ? 'top branded' : 'top'}>
        <a class="brand" href=${`#/${homeOf(site)}`}>${logo ? html`<img class="logo" src=${logo} alt="" />` : null}${site.name}</a>
        <button type="button" class="menu-button secondary" aria-expanded=${menuOpen} aria-controls="sidebar" onClick=${() => setMenuOpen(!menuOpen)}>Menu</button>
      </header>
      <nav id="sidebar" class="sidebar" aria-label="Main">
        ${GROUPS.map((g) => {
          const pages = g.pages.filter((p) => allowed(p, user, site));
          return pages.length ? html`<div class="nav-group">
            <h2 class="nav-title" id=${`nav-${g.title}`}>${g.title}</h2>
            <ul aria-labelledby=${`nav-${g.title}`}>${pages.map((p) => html`<li><a href=${`#/${p.path}`} aria-current=${p.path === path ? 'page' : undefined}>${p.title}</a></li>`)}</ul>
          </div>` : null;
        })}
        ${!site.studio && html`<div class="nav-group"><h2 class="nav-title" id="nav-help">Help</h2>
          <ul aria-labelledby="nav-help"><li><a href="/docs" target="_blank" rel="noopener">API reference</a></li></ul></div>`}
        <div class="who">
          <span class="email">${user.email}</span>
          <button type="button" class="link" onClick=${onSignOut}>Sign out</button>
        </div>
      </nav>
      <div class="content">
        ${user.impersonatedBy && html`<div class="impersonating" role="status" data-testid="impersonation-banner">
          You are acting as <strong>${user.email}</strong> on behalf of staff user ${user.impersonatedBy}. Every request is recorded.
          <button type="button" class="link" onClick=${onSignOut}>End</button></div>`}
        <${Notice} error=${signOutError} />
        <main id="main" class=${page.wide ? 'wide' : undefined}><h1 id="page-title" tabindex="-1">${page.title}</h1>
          ${site.disabled && html`<p class="notice" role="note" data-testid="studio-closed">${site.name} has closed. You can still download your data or delete your account here.</p>`}
          <${View} user=${user} site=${site} /></main>
      </div>
    </div>`;
}

function App() {
  const [site, setSite] = useState(undefined);
  const [user, setUser] = useState(undefined);
  const [bootError, setBootError] = useState(null);
  // a support link (see "Impersonation and support links" in the API docs) is handled before anything else
  const [link, setLink] = useState(() => supportLinkOf(location.hash));
  const load = async () => {
    try {
      await adoptLinkedToken();
      const s = await currentSession();
      if (!s) { setUser(null); return; }
      const r = await api('GET', '/app/user_details');
      // impersonated_by: this session acts for the user on behalf of a staff member
      setUser({ ...r.body, impersonatedBy: s.impersonated_by });
    } catch (err) {
      if (err.status === 401) setUser(null); else setBootError(err);
    }
  };
  useEffect(() => {
    whenSignedOut(() => setUser(null));
    api('GET', '/app/site', { auth: false }).then((r) => {
      setSiteStudio(r.body.studio && r.body.studio.slug);
      setSite({ ...r.body, branded: applyBranding(r.body.studio) });
      if (!link) load();
    }, setBootError);
  }, []);
  const signOut = async () => {
    await endSession();
    setUser(null);
    history.replaceState(null, '', `${location.pathname}#/sign-in`);
  };
  if (bootError) return html`<main class="signin" id="main"><h1>This page cannot load</h1><p class="notice error" role="alert">${bootError.message}</p><button onClick=${() => location.reload()}>Try again</button></main>`;
  if (site === undefined) return html`<p class="boot" role="status">Loading…</p>`;
  if (link) return html`<${SupportLink} link=${link} onDone=${() => { setLink(null); load(); }} />`;
  if (user === undefined) return html`<p class="boot" role="status">Loading…</p>`;
  if (user === null) return html`<${SignIn} site=${site} returnTo=${openedPage} onSignedIn=${load} />`;
  return html`<${Shell} site=${site} user=${user} onSignOut=${signOut} />`;
}

takeImpersonationToken();
render(html`<${App} />`, document.getElementById('app'));
