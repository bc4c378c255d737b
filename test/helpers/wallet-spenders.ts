// What an account's session can set up, besides keys and OAuth clients, to spend its wallet or
// hear about it: a personal embed code and agent embed code, a personal owner_pays studio with an
// end user, a pending invite to a team it made, and an alert webhook URL; and an embed code of that
// team, which is the team's and is never taken back with the account. The take-back of an
// account registered by someone who never proved its address removes all of it
// (docs/api/credentials.md); `standing` reads what of it still works. Real SMTP for the invite.
import crypto from 'node:crypto';
import type { TestGateway } from './gateway.ts';
import type { SmtpCapture } from './smtp.ts';
import { waitFor } from './services.ts';

const MODEL = 'canvas-v1-fast-text-to-image';
const PASSWORD = 'the end user password';

export interface Planted {
  embed: string;
  agentEmbed: string;
  studioSlug: string;
  /** the session of an end user of the studio */
  studioUser: string;
  inviteToken: string;
  /** the session of the invited account */
  invitee: string;
  /** an embed code of the team the account made */
  teamEmbed: string;
}

/** What a check found: the statuses of a submit with each code, of the studio's end user's submit in the studio and of the invite's acceptance, and the alert settings. */
export interface Standing {
  embed: number;
  agentEmbed: number;
  studioUser: number;
  studioCode?: string;
  invite: number;
  teamEmbed: number;
  webhookUrl: string | null;
  lowBalanceThreshold: number | null;
}

const bearer = (session: string) => ({ authorization: `Bearer ${session}` });

async function call(gw: TestGateway, method: string, url: string, session: string, payload?: object, headers: Record<string, string> = {}) {
  const res = await gw.server.inject({ method, url, headers: { ...bearer(session), ...headers }, ...(payload ? { payload } : {}) });
  return { status: res.statusCode, body: JSON.parse(res.payload || 'null') as Record<string, unknown> };
}

async function signedUp(gw: TestGateway, prefix: string, headers: Record<string, string> = {}): Promise<{ email: string; session: string }> {
  const email = `${prefix}-${crypto.randomBytes(5).toString('hex')}@example.com`;
  const reg = await gw.server.inject({ method: 'POST', url: '/auth/register', headers, payload: { email, password: PASSWORD } });
  if (reg.statusCode !== 201) throw new Error(`register: ${reg.payload}`);
  const login = await gw.server.inject({ method: 'POST', url: '/auth/login', headers, payload: { email, password: PASSWORD } });
  if (login.statusCode !== 200) throw new Error(`login: ${login.payload}`);
  return { email, session: (login.result as { access_token: string }).access_token };
}

/** Sets everything up with the account's session. */
export async function plantSpenders(gw: TestGateway, smtp: SmtpCapture, session: string): Promise<Planted> {
  const code = async (kind: string, query = '') => {
    const res = await call(gw, 'POST', `/app/embed-codes${query}`, session, { kind, name: 'widget', models: [MODEL] });
    if (res.status !== 201) throw new Error(`createEmbedCode: ${res.status} ${JSON.stringify(res.body)}`);
    return String(res.body.code);
  };
  const [embed, agentEmbed] = [await code('embed'), await code('agent_embed')];

  const studioSlug = `squat-${crypto.randomBytes(5).toString('hex')}`;
  const studio = await call(gw, 'POST', '/app/studios', session, { slug: studioSlug, name: 'Shop', allowed_models: [MODEL], payer_mode: 'owner_pays', markup_percent: 0 });
  if (studio.status !== 201) throw new Error(`createStudio: ${studio.status} ${JSON.stringify(studio.body)}`);
  const studioUser = (await signedUp(gw, 'enduser', { 'x-whitelabel-studio': studioSlug })).session;

  const team = await call(gw, 'POST', '/app/teams', session, { name: 'Squat team' });
  if (team.status !== 201) throw new Error(`createTeam: ${team.status} ${JSON.stringify(team.body)}`);
  const invitee = await signedUp(gw, 'invitee');
  const before = smtp.count(invitee.email);
  const invite = await call(gw, 'POST', `/app/teams/${String(team.body.id)}/invites`, session, { email: invitee.email, role: 'developer' });
  if (invite.status !== 201) throw new Error(`invite: ${invite.status} ${JSON.stringify(invite.body)}`);
  const mail = await waitFor(() => smtp.messages.filter((m) => m.to.includes(invitee.email)).slice(before).find((m) => m.raw.includes('invite token is')), { what: `the invite mail to ${invitee.email}` });
  const inviteToken = /invite token is (mgi_[A-Za-z0-9_-]+)/.exec(mail.raw)![1]!;

  const teamEmbed = await code('embed', `?team_id=${String(team.body.id)}`);

  const alerts = await call(gw, 'PUT', '/app/alert_settings', session, { low_balance_threshold: 100, webhook_url: 'https://hooks.example.com/squatter' });
  if (alerts.status !== 200) throw new Error(`updateAlertSettings: ${alerts.status} ${JSON.stringify(alerts.body)}`);
  return { embed, agentEmbed, studioSlug, studioUser, inviteToken, invitee: invitee.session, teamEmbed };
}

/** What of it still works, read with `session` (the account's owner's). Accepts the invite when it still can be. */
export async function standing(gw: TestGateway, p: Planted, session: string): Promise<Standing> {
  const submit = (headers: Record<string, string>) => gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'content-type': 'application/json', ...headers }, payload: { prompt: 'a lighthouse' } });
  const studio = await submit({ ...bearer(p.studioUser), 'x-whitelabel-studio': p.studioSlug });
  const settings = await call(gw, 'GET', '/app/alert_settings', session);
  return {
    embed: (await submit({ 'x-embed-code': p.embed })).statusCode,
    agentEmbed: (await submit({ 'x-agent-embed-code': p.agentEmbed })).statusCode,
    studioUser: studio.statusCode,
    ...(studio.statusCode === 403 || studio.statusCode === 404 ? { studioCode: String((JSON.parse(studio.payload) as { code?: string }).code) } : {}),
    invite: (await call(gw, 'POST', '/app/team_invites/accept', p.invitee, { token: p.inviteToken })).status,
    teamEmbed: (await submit({ 'x-embed-code': p.teamEmbed })).statusCode,
    webhookUrl: (settings.body.webhook_url as string | null) ?? null,
    lowBalanceThreshold: (settings.body.low_balance_threshold as number | null) ?? null,
  };
}

/**
 * Everything is gone: both codes 401, the studio disabled (403: its users may only sign in, export and leave), the invite 404, no alert webhook URL (the
 * threshold kept); the team's code still works (402: the team's wallet is empty).
 */
export const TAKEN_BACK: Standing = { embed: 401, agentEmbed: 401, studioUser: 403, studioCode: 'studio_disabled', invite: 404, teamEmbed: 402, webhookUrl: null, lowBalanceThreshold: 100 };
