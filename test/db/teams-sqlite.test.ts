// Teams on the embedded default (SQLite, no SMTP_URL): the invite mail is logged (the
// documented exception, like one-time codes), and its token is in no other log line.
import test from 'ava';
import { Writable } from 'node:stream';
import pino from 'pino';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { LOGGED_MAIL_MESSAGE } from '../../lib/mail.ts';

let gw: TestGateway;
const lines: string[] = [];

test.before(async () => {
  const sink = new Writable({ write(chunk: Buffer, _enc, done) { lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)); done(); } });
  gw = await startGateway({ db: 'sqlite', queue: 'memory', log: pino({ level: 'info' }, sink) });
});
test.after.always(async () => {
  await gw?.stop();
});

test('a team is joined by a logged invite and the last owner is kept on SQLite', async (t) => {
  const owner = await newAccount(gw);
  const member = await newAccount(gw);
  const email = String((await gw.app.db('users').where({ id: member.userId }).first()).email);

  const created = await gw.server.inject({ method: 'POST', url: '/app/teams', headers: as(owner), payload: { name: 'Local' } });
  t.is(created.statusCode, 201);
  const teamId = (created.result as { id: number }).id;
  const invited = await gw.server.inject({ method: 'POST', url: `/app/teams/${teamId}/invites`, headers: as(owner), payload: { email, role: 'billing' } });
  t.is(invited.statusCode, 201);
  t.false(invited.payload.includes('mgi_'));

  const mail = await waitFor(() => lines.map((l) => JSON.parse(l) as { msg: string; mail?: { to: string; text: string } })
    .find((l) => l.msg === LOGGED_MAIL_MESSAGE && l.mail?.to === email && l.mail.text.includes('invite token')), { what: 'the logged invite mail' });
  const token = /invite token is (mgi_[A-Za-z0-9_-]+)/.exec(mail.mail!.text)![1]!;
  t.is(lines.filter((l) => l.includes(token)).length, 1, 'the token is only in the logged mail');

  const accepted = await gw.server.inject({ method: 'POST', url: '/app/team_invites/accept', headers: as(member), payload: { token } });
  t.is(accepted.statusCode, 200);
  t.like(accepted.result as object, { id: teamId, role: 'billing', balance: 0 });
  t.is((await gw.server.inject({ method: 'POST', url: '/app/team_invites/accept', headers: as(member), payload: { token } })).statusCode, 404);
  t.is((await gw.server.inject({ method: 'POST', url: `/app/teams/${teamId}/leave`, headers: as(owner) })).statusCode, 409);
  t.is((await gw.server.inject({ method: 'POST', url: `/app/teams/${teamId}/leave`, headers: as(member) })).statusCode, 200);
  t.is((await gw.server.inject({ method: 'GET', url: `/app/teams/${teamId}`, headers: as(member) })).statusCode, 404);
});

test('a team key holds a submit on the team wallet on SQLite, and the member\'s own wallet is untouched', async (t) => {
  const { creditTeam } = await import('../../db/wallet/moves.ts');
  const { getTeamBalance } = await import('../../db/wallet/ledger.ts');
  const owner = await newAccount(gw, 100);
  const as = { authorization: `Bearer ${owner.session}` };
  const teamId = ((await gw.server.inject({ method: 'POST', url: '/app/teams', headers: as, payload: { name: 'Local keys' } })).result as { id: number }).id;
  await gw.app.db.transaction((trx) => creditTeam(trx, teamId, owner.userId, 50, 'topup', 'test credit', Date.now()));
  const created = await gw.server.inject({ method: 'POST', url: `/app/teams/${teamId}/keys`, headers: as, payload: { name: 'ci' } });
  t.is(created.statusCode, 201);
  const key = (created.result as { key: string }).key;
  const submit = await gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { 'x-api-key': key }, payload: { prompt: 'local', width: 64, height: 64 } });
  t.is(submit.statusCode, 200);
  const row = await gw.app.db('predictions').where({ id: (submit.result as { request_id: string }).request_id }).first();
  t.is(Number(row.team_id), teamId);
  const price = Number(row.price);
  const team = await getTeamBalance(gw.app.db, teamId);
  // no worker runs in this gateway: the price stays held on the team wallet
  t.deepEqual(team, { balance: 50 - price, held: price });
  t.is(Number((await gw.app.db('users').where({ id: owner.userId }).first()).balance), 100);
});

const as = (who: { session: string }) => ({ authorization: `Bearer ${who.session}` });

/** A new team of a new owner with one more new account as `role`. */
async function teamWithMember(name: string, role: string) {
  const owner = await newAccount(gw);
  const member = await newAccount(gw);
  const teamId = ((await gw.server.inject({ method: 'POST', url: '/app/teams', headers: as(owner), payload: { name } })).result as { id: number }).id;
  await gw.app.db('team_members').insert({ team_id: teamId, user_id: member.userId, role, created_at: Date.now() });
  return { owner, member, teamId };
}

const teamKey = async (teamId: number, who: { session: string }) => (await gw.server.inject({ method: 'POST', url: `/app/teams/${teamId}/keys`, headers: as(who), payload: { name: 'ci' } })).result as { key: string; id: number };
const balanceWith = (key: string) => gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': key } });

test('a removed member\'s team keys are revoked with the removal on SQLite; another member\'s key keeps working', async (t) => {
  const { owner, member, teamId } = await teamWithMember('Local removal', 'developer');
  const theirs = await teamKey(teamId, member);
  const owners = await teamKey(teamId, owner);
  t.is((await balanceWith(theirs.key)).statusCode, 200);
  const removed = await gw.server.inject({ method: 'DELETE', url: `/app/teams/${teamId}/members/${member.userId}`, headers: as(owner) });
  t.is(removed.statusCode, 200);
  t.deepEqual(removed.result, { id: member.userId, deleted: true, revoked_key_ids: [theirs.id] });
  t.is((await balanceWith(theirs.key)).statusCode, 401);
  t.is((await balanceWith(owners.key)).statusCode, 200);
});

test('a viewer reads the team ledger on SQLite without the balance or the top-up\'s amount', async (t) => {
  const { creditTeam } = await import('../../db/wallet/moves.ts');
  const { owner, member: viewer, teamId } = await teamWithMember('Local ledger', 'viewer');
  await gw.app.db.transaction((trx) => creditTeam(trx, teamId, owner.userId, 70, 'topup', 'test credit', Date.now()));
  const read = async (who: { session: string }) => (await gw.server.inject({ method: 'GET', url: `/app/credit_transactions?team_id=${teamId}`, headers: as(who) })).result as { items: Array<Record<string, unknown>> };
  t.like((await read(owner)).items[0], { kind: 'topup', amount: 70, balance_after: 70, description: 'test credit' });
  t.like((await read(viewer)).items[0], { kind: 'topup', amount: null, balance_after: null, description: null, user_id: owner.userId });
});

test('an erased member\'s team keys are revoked with the erasure on SQLite; another member\'s key keeps working', async (t) => {
  const { eraseAccountAndFiles } = await import('../../workers/retention.ts');
  const { owner, member, teamId } = await teamWithMember('Local erasure', 'developer');
  const theirs = await teamKey(teamId, member);
  const owners = await teamKey(teamId, owner);
  t.is((await balanceWith(theirs.key)).statusCode, 200);
  t.like(await eraseAccountAndFiles(gw.app, member.userId, Date.now(), { immediate: true }), { kind: 'erased', revokedTeamKeys: [{ id: theirs.id, teamId }] });
  t.is((await balanceWith(theirs.key)).statusCode, 401);
  t.is((await balanceWith(owners.key)).statusCode, 200);
});

test('a member who rotates another member\'s team key becomes its creator on SQLite: removing the rotator revokes it', async (t) => {
  const { owner, member: creator, teamId } = await teamWithMember('Local rotation', 'developer');
  const made = await teamKey(teamId, creator);
  const rotated = await gw.server.inject({ method: 'POST', url: `/app/teams/${teamId}/keys/${made.id}/rotate`, headers: as(creator), payload: { grace_seconds: 0 } });
  t.is((rotated.result as { created_by: number }).created_by, creator.userId, 'rotating one\'s own key keeps it');
  const second = await newAccount(gw);
  await gw.app.db('team_members').insert({ team_id: teamId, user_id: second.userId, role: 'admin', created_at: Date.now() });
  const again = await gw.server.inject({ method: 'POST', url: `/app/teams/${teamId}/keys/${made.id}/rotate`, headers: as(second), payload: { grace_seconds: 0 } });
  t.is((again.result as { created_by: number }).created_by, second.userId);
  const left = await gw.server.inject({ method: 'POST', url: `/app/teams/${teamId}/leave`, headers: as(creator) });
  t.deepEqual(left.result, { id: teamId, deleted: true, revoked_key_ids: [] });
  const removed = await gw.server.inject({ method: 'DELETE', url: `/app/teams/${teamId}/members/${second.userId}`, headers: as(owner) });
  t.deepEqual(removed.result, { id: second.userId, deleted: true, revoked_key_ids: [made.id] });
  t.is((await balanceWith((again.result as { key: string }).key)).statusCode, 401);
});
