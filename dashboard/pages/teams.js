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

export function Teams() {
  const [teams, setTeams] = useState(null);
  const [name, setName] = useState('');
  const [error, setError] = useState(null);
  const [current, setCurrent] = useState(session.teamId);
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
    ${team && html`<section class="card team-detail"><h2>${team.name}</h2><${Members} team=${team} onError=${setError} /></section>`}`;
}
