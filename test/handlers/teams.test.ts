// Team management through the real spec, plugins and handlers (server.inject), on MariaDB,
// with invite mail over a real local SMTP server.
import test from 'ava';
import { Writable } from 'node:stream';
import pino from 'pino';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { responseErrors } from '../helpers/operation.ts';
import { startSmtp } from '../helpers/smtp.ts';
import type { SmtpCapture } from '../helpers/smtp.ts';
import { TEAM_ROLES } from '../../lib/caller.ts';
import type { TeamRole } from '../../lib/caller.ts';

let gw: TestGateway;
let smtp: SmtpCapture;
const logLines: string[] = [];

test.before(async () => {
  smtp = await startSmtp();
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logLines.push(String(chunk));
      cb();
    },
  });
  gw = await startGateway({
    queue: 'memory',
    log: pino({ level: 'info' }, sink),
    env: { SMTP_URL: smtp.url, MAIL_FROM: 'mediagate <teams@gateway.test>', AUTH_RATE_PER_ADDRESS: '10000', AUTH_RATE_PER_EMAIL: '10000' },
  });
});
test.after.always(async () => {
  await gw?.stop();
  await smtp?.close();
});

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
interface Res { status: number; body: Record<string, unknown> & Array<Record<string, unknown>> }

/** Every reply must use a status the operation declares, with a body matching its schema. */
function conforms(method: Method, url: string, status: number, body: unknown): void {
  const op = gw.app.spec.api.router.matchOperation({ method, path: url.split('?')[0]!, headers: {}, query: {} });
  if (!op?.operationId) throw new Error(`no operation for ${method} ${url}`);
  const declared = (op.responses ?? {}) as Record<string, unknown>;
  if (!declared[String(status)]) throw new Error(`${op.operationId} answered ${status}, which the spec does not declare`);
  const errors = responseErrors(gw, op.operationId, status, body);
  if (errors?.length) throw new Error(`${op.operationId} ${status}: ${JSON.stringify(errors)} body ${JSON.stringify(body)}`);
}

async function call(who: Account, method: Method, url: string, payload?: object): Promise<Res> {
  const res = await gw.server.inject({ method, url, headers: { authorization: `Bearer ${who.session}` }, ...(payload ? { payload } : {}) });
  const body = JSON.parse(res.payload || 'null');
  conforms(method, url, res.statusCode, body);
  return { status: res.statusCode, body };
}

async function emailOf(a: Account): Promise<string> {
  return String((await gw.app.db('users').where({ id: a.userId }).first()).email);
}

async function newTeam(owner: Account, name = 'Studio'): Promise<number> {
  const res = await call(owner, 'POST', '/app/teams', { name });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return Number(res.body.id);
}

/** Invites `who` with `role` through the API and returns the token read from the mail. */
async function invite(by: Account, teamId: number, email: string, role: TeamRole): Promise<{ token: string; id: number }> {
  const before = smtp.count(email);
  const res = await call(by, 'POST', `/app/teams/${teamId}/invites`, { email, role });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  // the invite mail among those after `before`: the account's own one-time-code mail may arrive after the count was taken
  const mail = await waitFor(() => smtp.messages.filter((m) => m.to.includes(email.toLowerCase())).slice(before).find((m) => m.raw.includes('invite token is')), { what: `the invite mail to ${email}` });
  const m = /invite token is (mgi_[A-Za-z0-9_-]+)/.exec(mail.raw);
  if (!m) throw new Error(`no token in the mail:\n${mail.raw}`);
  return { token: m[1]!, id: Number(res.body.id) };
}

async function join(owner: Account, teamId: number, role: TeamRole): Promise<Account> {
  const member = await newAccount(gw);
  const { token } = await invite(owner, teamId, await emailOf(member), role);
  const res = await call(member, 'POST', '/app/team_invites/accept', { token });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return member;
}

test('a team is created, listed, renamed, joined by invite and deleted', async (t) => {
  const owner = await newAccount(gw);
  const created = await call(owner, 'POST', '/app/teams', { name: 'Studio' });
  t.is(created.status, 201);
  t.like(created.body, { name: 'Studio', role: 'owner', balance: 0, held: 0 });
  const id = Number(created.body.id);
  t.deepEqual((await call(owner, 'GET', '/app/teams')).body.map((x) => x.id), [id]);
  t.like((await call(owner, 'PATCH', `/app/teams/${id}`, { name: 'Renamed' })).body, { id, name: 'Renamed' });

  const dev = await join(owner, id, 'developer');
  t.like((await call(dev, 'GET', `/app/teams/${id}`)).body, { id, name: 'Renamed', role: 'developer' });
  const members = (await call(owner, 'GET', `/app/teams/${id}/members`)).body;
  t.deepEqual(members.map((m) => [m.user_id, m.role]), [[owner.userId, 'owner'], [dev.userId, 'developer']]);

  await gw.app.db('teams').where({ id }).update({ balance: 10 });
  const refused = await call(owner, 'DELETE', `/app/teams/${id}`);
  t.is(refused.status, 409);
  t.regex(String(refused.body.detail), /10 credits/);
  await gw.app.db('teams').where({ id }).update({ balance: 0 });
  t.deepEqual((await call(owner, 'DELETE', `/app/teams/${id}`)).body, { id, deleted: true });
  t.is((await call(owner, 'GET', `/app/teams/${id}`)).status, 404);
  t.is((await call(dev, 'GET', `/app/teams/${id}/members`)).status, 404);
  t.deepEqual((await call(owner, 'GET', '/app/teams')).body, []);
});

// The permission table as the README states it, written out independently of lib/caller.ts.
const ALLOWED: Record<string, readonly TeamRole[]> = {
  'get team': TEAM_ROLES,
  'list members': TEAM_ROLES,
  rename: ['owner', 'admin'],
  'list invites': ['owner', 'admin'],
  'invite a viewer': ['owner', 'admin'],
  'invite an owner': ['owner'],
  'change a viewer to billing': ['owner', 'admin'],
  'remove a viewer': ['owner', 'admin'],
  'demote an owner': ['owner'],
  'delete the team': ['owner'],
};
const PERMISSION: Record<string, string> = {
  rename: 'rename', 'list invites': 'invite', 'invite a viewer': 'invite', 'invite an owner': 'manage_owners',
  'change a viewer to billing': 'invite', 'remove a viewer': 'invite', 'demote an owner': 'manage_owners', 'delete the team': 'delete_team',
};

for (const role of TEAM_ROLES) {
  test(`the permission table is enforced for a ${role}`, async (t) => {
    const owner = await newAccount(gw);
    const teamId = await newTeam(owner);
    const actor = role === 'owner' ? owner : await join(owner, teamId, role);
    // a second owner, so that demoting one is not refused by the last-owner rule
    const otherOwner = await join(owner, teamId, 'owner');
    const target = async () => (await join(owner, teamId, 'viewer')).userId;
    const actions: Record<string, () => Promise<Res>> = {
      'get team': () => call(actor, 'GET', `/app/teams/${teamId}`),
      'list members': () => call(actor, 'GET', `/app/teams/${teamId}/members`),
      rename: () => call(actor, 'PATCH', `/app/teams/${teamId}`, { name: `by ${role}` }),
      'list invites': () => call(actor, 'GET', `/app/teams/${teamId}/invites`),
      'invite a viewer': () => call(actor, 'POST', `/app/teams/${teamId}/invites`, { email: 'someone@example.com', role: 'viewer' }),
      'invite an owner': () => call(actor, 'POST', `/app/teams/${teamId}/invites`, { email: 'boss@example.com', role: 'owner' }),
      'change a viewer to billing': async () => call(actor, 'PATCH', `/app/teams/${teamId}/members/${await target()}`, { role: 'billing' }),
      'remove a viewer': async () => call(actor, 'DELETE', `/app/teams/${teamId}/members/${await target()}`),
      'demote an owner': () => call(actor, 'PATCH', `/app/teams/${teamId}/members/${otherOwner.userId}`, { role: 'admin' }),
      'delete the team': () => call(actor, 'DELETE', `/app/teams/${teamId}`),
    };
    for (const [action, run] of Object.entries(actions)) {
      const res = await run();
      if (ALLOWED[action]!.includes(role)) {
        t.true(res.status === 200 || res.status === 201, `${role} may ${action}: got ${res.status} ${JSON.stringify(res.body)}`);
      } else {
        t.is(res.status, 403, `${role} may not ${action}`);
        // a role without `invite` is told about that one first, before `manage_owners`
        const missing = ALLOWED['invite a viewer']!.includes(role) || !['invite', 'manage_owners'].includes(PERMISSION[action]!) ? PERMISSION[action] : 'invite';
        t.true(String(res.body.detail).includes(`"${missing}"`), `the 403 for ${action} names ${missing}: ${res.body.detail}`);
      }
    }
    // the wallet is visible only to roles with read_balance (the owner may have deleted the team by now)
    const seen = await call(otherOwner, 'GET', `/app/teams/${teamId}`);
    if (role !== 'owner' && seen.status === 200) {
      const mine = await call(actor, 'GET', `/app/teams/${teamId}`);
      t.is(mine.body.balance === null, !['admin', 'developer', 'billing'].includes(role));
    }
  });
}

test('an invite works only for the invited address, once, before it expires and unless revoked', async (t) => {
  const owner = await newAccount(gw);
  const teamId = await newTeam(owner);
  const invitee = await newAccount(gw);
  const stranger = await newAccount(gw);
  const email = await emailOf(invitee);

  const first = await invite(owner, teamId, email.toUpperCase(), 'developer');
  const wrong = await call(stranger, 'POST', '/app/team_invites/accept', { token: first.token });
  t.is(wrong.status, 403);
  t.regex(String(wrong.body.detail), /another email address/);
  t.is((await call(stranger, 'GET', `/app/teams/${teamId}`)).status, 404);
  // the refusal did not use the invite up
  t.like((await call(invitee, 'POST', '/app/team_invites/accept', { token: first.token })).body, { id: teamId, role: 'developer' });
  t.is((await call(invitee, 'POST', '/app/team_invites/accept', { token: first.token })).status, 404);

  const other = await newAccount(gw);
  const revoked = await invite(owner, teamId, await emailOf(other), 'viewer');
  t.deepEqual((await call(owner, 'GET', `/app/teams/${teamId}/invites`)).body.map((i) => i.id), [revoked.id]);
  t.is((await call(owner, 'DELETE', `/app/teams/${teamId}/invites/${revoked.id}`)).status, 200);
  t.is((await call(owner, 'DELETE', `/app/teams/${teamId}/invites/${revoked.id}`)).status, 404);
  t.is((await call(other, 'POST', '/app/team_invites/accept', { token: revoked.token })).status, 404);
  t.deepEqual((await call(owner, 'GET', `/app/teams/${teamId}/invites`)).body, []);

  const late = await invite(owner, teamId, await emailOf(other), 'viewer');
  // seven days later (moving the row, not the clock: sessions would expire too)
  await gw.app.db('team_invites').where({ id: late.id }).update({ expires_at: Date.now() - 1 });
  t.true((await call(owner, 'GET', `/app/teams/${teamId}/invites`)).body[0]!.expired as boolean);
  t.is((await call(other, 'POST', '/app/team_invites/accept', { token: late.token })).status, 404);
  t.is((await call(other, 'GET', `/app/teams/${teamId}`)).status, 404);
  t.is((await call(other, 'POST', '/app/team_invites/accept', { token: 'mgi_unknown' })).status, 404);

  // tokens are stored as digests only and never logged
  const rows = await gw.app.db('team_invites').where({ team_id: teamId });
  for (const token of [first.token, revoked.token, late.token]) {
    t.false(rows.some((r: Record<string, unknown>) => Object.values(r).includes(token)));
    t.false(logLines.some((l) => l.includes(token)));
  }
});

test('removing a member, or a member leaving, revokes the invites to the team they sent; others\' invites stay', async (t) => {
  const owner = await newAccount(gw);
  const teamId = await newTeam(owner);
  const elsewhere = await newTeam(owner, 'Elsewhere');
  const removed = await join(owner, teamId, 'admin');
  const leaver = await join(owner, teamId, 'admin');
  const alsoElsewhere = await newAccount(gw);
  const inviteeA = await newAccount(gw);
  const inviteeB = await newAccount(gw);
  const inviteeC = await newAccount(gw);
  // the removed admin is also an admin of another team, where their invite stays
  const joinElsewhere = await invite(owner, elsewhere, await emailOf(removed), 'admin');
  t.is((await call(removed, 'POST', '/app/team_invites/accept', { token: joinElsewhere.token })).status, 200);
  const byRemoved = await invite(removed, teamId, await emailOf(inviteeA), 'developer');
  const byRemovedElsewhere = await invite(removed, elsewhere, await emailOf(alsoElsewhere), 'viewer');
  const byLeaver = await invite(leaver, teamId, await emailOf(inviteeB), 'developer');
  const byOwner = await invite(owner, teamId, await emailOf(inviteeC), 'viewer');

  t.is((await call(owner, 'DELETE', `/app/teams/${teamId}/members/${removed.userId}`)).status, 200);
  t.is((await call(leaver, 'POST', `/app/teams/${teamId}/leave`)).status, 200);
  t.deepEqual((await call(owner, 'GET', `/app/teams/${teamId}/invites`)).body.map((i) => i.id), [byOwner.id]);
  t.is((await call(inviteeA, 'POST', '/app/team_invites/accept', { token: byRemoved.token })).status, 404);
  t.is((await call(inviteeB, 'POST', '/app/team_invites/accept', { token: byLeaver.token })).status, 404);
  t.is((await call(inviteeC, 'POST', '/app/team_invites/accept', { token: byOwner.token })).status, 200);
  t.is((await call(alsoElsewhere, 'POST', '/app/team_invites/accept', { token: byRemovedElsewhere.token })).status, 200, 'an invite to a team they are still in stays');
});

test('demoting a member to a role without invite revokes the invites to the team they sent; a role keeping it leaves them', async (t) => {
  const owner = await newAccount(gw);
  const teamId = await newTeam(owner);
  const elsewhere = await newTeam(owner, 'Elsewhere');
  const demoted = await join(owner, teamId, 'admin');
  const kept = await join(owner, teamId, 'admin');
  const joinElsewhere = await invite(owner, elsewhere, await emailOf(demoted), 'admin');
  t.is((await call(demoted, 'POST', '/app/team_invites/accept', { token: joinElsewhere.token })).status, 200);
  const [inviteeA, inviteeB, inviteeC] = [await newAccount(gw), await newAccount(gw), await newAccount(gw)];
  const byDemoted = await invite(demoted, teamId, await emailOf(inviteeA), 'developer');
  const byDemotedElsewhere = await invite(demoted, elsewhere, await emailOf(inviteeC), 'viewer');
  const byKept = await invite(kept, teamId, await emailOf(inviteeB), 'developer');

  t.is((await call(owner, 'PATCH', `/app/teams/${teamId}/members/${demoted.userId}`, { role: 'developer' })).status, 200);
  // owner keeps invite: promoting (or a role change that keeps the permission) leaves the invites alone
  t.is((await call(owner, 'PATCH', `/app/teams/${teamId}/members/${kept.userId}`, { role: 'owner' })).status, 200);
  t.deepEqual((await call(owner, 'GET', `/app/teams/${teamId}/invites`)).body.map((i) => i.id), [byKept.id]);
  t.is((await call(inviteeA, 'POST', '/app/team_invites/accept', { token: byDemoted.token })).status, 404);
  t.is((await call(inviteeB, 'POST', '/app/team_invites/accept', { token: byKept.token })).status, 200);
  t.is((await call(inviteeC, 'POST', '/app/team_invites/accept', { token: byDemotedElsewhere.token })).status, 200, 'an invite to a team where they keep invite stays');
});

test('demoting an owner to admin revokes the owner invites they sent; their other invites stay', async (t) => {
  const owner = await newAccount(gw);
  const teamId = await newTeam(owner);
  const demoted = await join(owner, teamId, 'owner');
  const [inviteeA, inviteeB] = [await newAccount(gw), await newAccount(gw)];
  const asOwner = await invite(demoted, teamId, await emailOf(inviteeA), 'owner');
  const asDeveloper = await invite(demoted, teamId, await emailOf(inviteeB), 'developer');

  // admin keeps invite but not manage_owners: an owner invite from them would grant what they no longer may
  t.is((await call(owner, 'PATCH', `/app/teams/${teamId}/members/${demoted.userId}`, { role: 'admin' })).status, 200);
  t.deepEqual((await call(owner, 'GET', `/app/teams/${teamId}/invites`)).body.map((i) => i.id), [asDeveloper.id]);
  t.is((await call(inviteeA, 'POST', '/app/team_invites/accept', { token: asOwner.token })).status, 404);
  t.is((await call(inviteeB, 'POST', '/app/team_invites/accept', { token: asDeveloper.token })).status, 200);
  t.deepEqual((await call(owner, 'GET', `/app/teams/${teamId}/members`)).body.map((m) => [m.user_id, m.role]),
    [[owner.userId, 'owner'], [demoted.userId, 'admin'], [inviteeB.userId, 'developer']]);
});

test('the last owner can neither leave nor be demoted, even by two concurrent requests', async (t) => {
  const owner = await newAccount(gw);
  const teamId = await newTeam(owner);
  t.is((await call(owner, 'POST', `/app/teams/${teamId}/leave`)).status, 409);
  t.is((await call(owner, 'PATCH', `/app/teams/${teamId}/members/${owner.userId}`, { role: 'admin' })).status, 409);
  t.is((await call(owner, 'DELETE', `/app/teams/${teamId}/members/${owner.userId}`)).status, 409);

  const second = await join(owner, teamId, 'owner');
  const [a, b] = await Promise.all([
    call(owner, 'PATCH', `/app/teams/${teamId}/members/${second.userId}`, { role: 'viewer' }),
    call(second, 'PATCH', `/app/teams/${teamId}/members/${owner.userId}`, { role: 'viewer' }),
  ]);
  // One wins. The other is refused either by the last-owner rule (409, when it passed its
  // permission check while still an owner) or, when the winner committed first, because it is no
  // longer an owner (403): both orders happen, and neither leaves the team without an owner.
  const statuses = [a.status, b.status].sort();
  t.is(statuses[0], 200, JSON.stringify([a.body, b.body]));
  t.true([403, 409].includes(statuses[1]!), JSON.stringify([a.body, b.body]));
  // whoever demoted the other is the one owner left
  const survivor = a.status === 200 ? owner : second;
  const members = (await call(survivor, 'GET', `/app/teams/${teamId}/members`)).body;
  t.deepEqual(members.filter((m) => m.role === 'owner').map((m) => m.user_id), [survivor.userId]);

  const viewer = await join(survivor, teamId, 'viewer');
  t.deepEqual((await call(viewer, 'POST', `/app/teams/${teamId}/leave`)).body, { id: teamId, deleted: true, revoked_key_ids: [] });
  t.is((await call(viewer, 'GET', `/app/teams/${teamId}`)).status, 404);
});

test("another user's team is 404 on every team route", async (t) => {
  const owner = await newAccount(gw);
  const teamId = await newTeam(owner);
  const { id: inviteId } = await invite(owner, teamId, 'x@example.com', 'viewer');
  const stranger = await newAccount(gw);
  const routes: Array<[Method, string, object?]> = [
    ['GET', `/app/teams/${teamId}`],
    ['PATCH', `/app/teams/${teamId}`, { name: 'mine' }],
    ['DELETE', `/app/teams/${teamId}`],
    ['GET', `/app/teams/${teamId}/members`],
    ['PATCH', `/app/teams/${teamId}/members/${owner.userId}`, { role: 'viewer' }],
    ['DELETE', `/app/teams/${teamId}/members/${owner.userId}`],
    ['POST', `/app/teams/${teamId}/leave`],
    ['POST', `/app/teams/${teamId}/invites`, { email: 'y@example.com', role: 'viewer' }],
    ['GET', `/app/teams/${teamId}/invites`],
    ['DELETE', `/app/teams/${teamId}/invites/${inviteId}`],
  ];
  for (const [method, url, payload] of routes) {
    const res = await call(stranger, method, url, payload);
    t.is(res.status, 404, `${method} ${url}`);
    t.is(res.body.detail, 'team not found');
  }
  // a team that does not exist answers exactly the same
  t.deepEqual(await call(stranger, 'GET', '/app/teams/999999999'), { status: 404, body: { detail: 'team not found', code: 'not_found' } });
  t.deepEqual((await call(stranger, 'GET', '/app/teams')).body, []);
  t.is((await call(owner, 'GET', `/app/teams/${teamId}`)).status, 200);
});

test('a removed member loses access at once', async (t) => {
  const owner = await newAccount(gw);
  const teamId = await newTeam(owner);
  const dev = await join(owner, teamId, 'developer');
  // through an API key as well as the session
  const viaKey = () => gw.server.inject({ method: 'GET', url: `/app/teams/${teamId}`, headers: { 'x-api-key': dev.liveKey } });
  t.is((await viaKey()).statusCode, 200);
  t.is((await call(owner, 'DELETE', `/app/teams/${teamId}/members/${dev.userId}`)).status, 200);
  t.is((await call(dev, 'GET', `/app/teams/${teamId}`)).status, 404);
  t.is((await viaKey()).statusCode, 404);
  t.is((await call(owner, 'DELETE', `/app/teams/${teamId}/members/${dev.userId}`)).status, 404);
});

test('bad input is a 422, never a 500', async (t) => {
  const owner = await newAccount(gw);
  const teamId = await newTeam(owner);
  t.is((await call(owner, 'POST', '/app/teams', { name: '' })).status, 422);
  t.is((await call(owner, 'POST', '/app/teams', { name: '   ' })).status, 422);
  t.is((await call(owner, 'POST', '/app/teams', {})).status, 422);
  t.is((await call(owner, 'GET', '/app/teams/abc')).status, 422);
  t.is((await call(owner, 'PATCH', `/app/teams/${teamId}/members/${owner.userId}`, { role: 'emperor' })).status, 422);
  t.is((await call(owner, 'POST', `/app/teams/${teamId}/invites`, { email: 'not an email', role: 'viewer' })).status, 422);
  t.is((await call(owner, 'POST', '/app/team_invites/accept', {})).status, 422);
});

test("a member's team submit answers urls that reach the prediction as given: they carry the team_id", async (t) => {
  const owner = await newAccount(gw);
  const teamId = await newTeam(owner);
  const member = await join(owner, teamId, 'developer');
  const key = { 'x-api-key': member.testKey };
  const path = (url: string) => new URL(url).pathname + new URL(url).search;
  for (const prefer of [undefined, 'wait=5']) {
    const res = await gw.server.inject({ method: 'POST', url: `/api/v1/canvas-v1-fast-text-to-image?team_id=${teamId}`, headers: { ...key, ...(prefer ? { prefer } : {}) }, payload: { prompt: 'a lighthouse' } });
    t.is(res.statusCode, 200, res.payload);
    const body = JSON.parse(res.payload) as { request_id?: string; id?: string; urls: { get: string; cancel?: string } };
    const id = String(body.request_id ?? body.id);
    t.is(path(body.urls.get), `/api/v1/predictions/${id}/result?team_id=${teamId}`);
    const got = await gw.server.inject({ method: 'GET', url: path(body.urls.get), headers: key });
    t.is(got.statusCode, 200, got.payload);
    t.is((JSON.parse(got.payload) as { id: string }).id, id);
    if (body.urls.cancel) {
      // a sandbox prediction is born finished: the cancel reaches it and is told so, not 404
      const cancel = await gw.server.inject({ method: 'POST', url: path(body.urls.cancel), headers: key });
      t.is(cancel.statusCode, 409, cancel.payload);
    }
  }
  // a personal submit's urls are as before
  const own = await gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: key, payload: { prompt: 'a lighthouse' } });
  t.false(String((JSON.parse(own.payload) as { urls: { get: string } }).urls.get).includes('team_id'));
});
