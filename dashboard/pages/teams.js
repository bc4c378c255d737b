// Teams: create, switch (the dashboard then acts for the team: team_id on every call), members
// and their roles, invitations.
import { html, useEffect, useState } from '/dashboard/vendor/preact-htm.js';
import { api, session } from '../api.js';
import { Notice, credits, when } from './ui.js';

const ROLES = ['owner', 'admin', 'developer', 'billing', 'viewer'];

function Members({ team, onError }) {
  const [members, setMembers] = useState(null);
  const [invites, setInvites] = useState(null);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('developer');
  const manage = team.role === 'owner' || team.role === 'admin';
  const load = () => {
    api('GET', `/app/teams/${team.id}/members`).then((r) => setMembers(r.body), onError);
    if (manage) api('GET', `/app/teams/${team.id}/invites`).then((r) => setInvites(r.body), onError);
  };
  useEffect(load, [team.id]);
  const act = (fn) => async (...args) => { try { await fn(...args); load(); } catch (err) { onError(err); } };
  const changeRole = act((m, r) => api('PATCH', `/app/teams/${team.id}/members/${m.user_id}`, { body: { role: r } }));
  const remove = act((m) => confirm(`Remove ${m.email} from ${team.name}?`) && api('DELETE', `/app/teams/${team.id}/members/${m.user_id}`));
  const invite = act(async (e) => { e.preventDefault(); await api('POST', `/app/teams/${team.id}/invites`, { body: { email, role } }); setEmail(''); });
  const revoke = act((i) => api('DELETE', `/app/teams/${team.id}/invites/${i.id}`));
  return html`
    <h3>Members</h3>
    ${members === null ? html`<p class="loading" role="status">Loading…</p>` : html`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th>Email</th><th>Role</th><th>Joined</th>${manage && html`<th><span class="visually-hidden">Actions</span></th>`}</tr></thead>
      <tbody>${members.map((m) => html`<tr><td>${m.email}</td>
        <td>${manage ? html`<select aria-label=${`Role of ${m.email}`} value=${m.role} onChange=${(e) => changeRole(m, e.target.value)}>${ROLES.map((r) => html`<option value=${r}>${r}</option>`)}</select>` : m.role}</td>
        <td>${when(m.joined_at)}</td>${manage && html`<td><button class="danger secondary" onClick=${() => remove(m)}>Remove</button></td>`}</tr>`)}</tbody>
    </table></div>`}
    ${manage && html`
      <h3>Invitations</h3>
      <form class="inline-form" onSubmit=${invite} aria-label="Invite a member">
        <label>Email <input type="email" name="invite-email" required value=${email} onInput=${(e) => setEmail(e.target.value)} /></label>
        <label>Role <select name="invite-role" value=${role} onChange=${(e) => setRole(e.target.value)}>${ROLES.filter((r) => r !== 'owner').map((r) => html`<option value=${r}>${r}</option>`)}</select></label>
        <button type="submit">Send invitation</button>
      </form>
      ${invites && (invites.length === 0 ? html`<p class="empty">No open invitations.</p>` : html`<div class="table-wrap" tabindex="0"><table>
        <thead><tr><th>Email</th><th>Role</th><th>Expires</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>${invites.map((i) => html`<tr><td>${i.email}</td><td>${i.role}</td><td>${i.expired ? 'expired' : when(i.expires_at)}</td><td><button class="secondary" onClick=${() => revoke(i)}>Revoke</button></td></tr>`)}</tbody>
      </table></div>`)}`}`;
}

/** The invite token of the mail's link (#/teams?invite=…), if the page was opened with one. */
const inviteOfHash = () => new URLSearchParams(location.hash.split('?')[1] ?? '').get('invite') ?? '';

/** Joins a team with the token a team owner's invite mailed to this account's address. */
function JoinTeam({ onJoined }) {
  const [token, setToken] = useState(inviteOfHash());
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const fromLink = inviteOfHash() !== '';
  const accept = async (e) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const r = await api('POST', '/app/team_invites/accept', { body: { token: token.trim() } });
      setToken('');
      // the token is spent: keep it out of the address bar and the history
      history.replaceState(null, '', `${location.pathname}#/teams`);
      onJoined(r.body);
    } catch (err) { setError(err); } finally { setBusy(false); }
  };
  return html`
    <section class="card" aria-labelledby="join-team">
      <h2 id="join-team">${fromLink ? 'You are invited to a team' : 'Join a team'}</h2>
      <p class="hint">${fromLink
        ? 'Accept to join it with the role the invite names. The invite was sent to one address: this account must have it.'
        : 'Paste the invite token from the email a team owner sent to your address.'}</p>
      <${Notice} error=${error} />
      <form class="inline-form" onSubmit=${accept} aria-label="Accept a team invite">
        <label>Invite token <input name="invite-token" required maxlength="200" autocomplete="off" value=${token} onInput=${(e) => setToken(e.target.value)} /></label>
        <button type="submit" disabled=${busy}>${busy ? 'Joining…' : 'Accept invite'}</button>
      </form>
    </section>`;
}

export function Teams() {
  const [teams, setTeams] = useState(null);
  const [name, setName] = useState('');
  const [error, setError] = useState(null);
  const [current, setCurrent] = useState(session.teamId);
  const [joined, setJoined] = useState(null);
  const load = () => api('GET', '/app/teams').then((r) => setTeams(r.body), setError);
  useEffect(() => { load(); }, []);
  const create = async (e) => {
    e.preventDefault();
    try { await api('POST', '/app/teams', { body: { name } }); setName(''); await load(); } catch (err) { setError(err); }
  };
  const switchTo = (id) => { session.teamId = id; setCurrent(id); };
  const team = (teams || []).find((t) => t.id === current);
  return html`
    <${Notice} error=${error} />
    ${joined && html`<p class="notice ok" role="status">You joined the team <strong>${joined.name}</strong> as ${joined.role}.</p>`}
    <p class="notice" role="status" data-testid="acting-for">${team ? html`Acting for the team <strong>${team.name}</strong>: the playground, balance and webhooks use its wallet and resources. <button class="link" onClick=${() => switchTo(null)}>Switch to your own account</button>` : 'Acting for your own account.'}</p>
    <form class="inline-form" onSubmit=${create} aria-label="Create a team">
      <label>New team <input name="team-name" required maxlength="100" value=${name} onInput=${(e) => setName(e.target.value)} /></label>
      <button type="submit">Create team</button>
    </form>
    ${teams === null ? html`<p class="loading" role="status">Loading…</p>` : teams.length === 0 ? html`<p class="empty">You are not in any team yet.</p>` : html`
      <div class="table-wrap" tabindex="0"><table>
        <thead><tr><th>Team</th><th>Your role</th><th>Balance</th><th>Created</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>${teams.map((t) => html`<tr><td>${t.name}</td><td>${t.role}</td><td>${t.balance === null ? '(hidden by your role)' : credits(t.balance)}</td><td>${when(t.created_at)}</td>
          <td>${t.id === current ? html`<span class="badge">current</span>` : html`<button class="secondary" onClick=${() => switchTo(t.id)}>Act for this team</button>`}</td></tr>`)}</tbody>
      </table></div>`}
    <${JoinTeam} onJoined=${(t) => { setJoined(t); load(); }} />
    ${team && html`<section class="card team-detail"><h2>${team.name}</h2><${Members} team=${team} onError=${setError} /></section>`}`;
}
