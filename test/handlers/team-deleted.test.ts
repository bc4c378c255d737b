// What a deleted team leaves behind, through every credential that could still reach it (docs/api/teams.md
// "Deleting"): a former member's session and personal key with team_id, the team's own key, and the
// operator's routes; and a team made again with the same name starts empty. On MariaDB and SQLite.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { waitFor } from '../helpers/services.ts';
import { assertLedger } from '../helpers/ledger.ts';

const MODEL = 'canvas-v1-fast-text-to-image';

async function emailOf(gw: TestGateway, userId: number): Promise<string> {
  return String((await gw.app.db('users').where({ id: userId }).first()).email);
}

async function scenario(t: ExecutionContext, db: 'mysql' | 'sqlite'): Promise<void> {
  const gw = await startGateway({ db, queue: 'memory', worker: true });
  t.teardown(() => gw.stop());
  const admin = await newAccount(gw);
  await gw.app.db('users').where({ id: admin.userId }).update({ role: 'admin' });
  const owner = await newAccount(gw);
  const member = await newAccount(gw);
  const ownerEmail = await emailOf(gw, owner.userId);

  const team = await callOperation<{ id: number }>(gw, 'createTeam', { as: owner.session, body: { name: 'Gone soon' } });
  t.is(team.status, 201);
  const teamId = team.body.id;
  await gw.app.db('team_members').insert({ team_id: teamId, user_id: member.userId, role: 'developer', created_at: Date.now() });
  t.is((await callOperation(gw, 'adminTopup', { as: admin.session, query: { team_id: teamId }, body: { email: ownerEmail, amount: 100 } })).status, 200);
  const teamKey = await callOperation<{ key: string }>(gw, 'createTeamApiKey', { as: owner.session, params: { team_id: teamId }, body: { name: 'ci', is_test: false } });
  t.is(teamKey.status, 201);

  // a run and a sandbox run of the team, by the member with their own keys
  const submit = async (key: string) => {
    const res = await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}?team_id=${teamId}`, headers: { 'x-api-key': key }, payload: { prompt: 'p', width: 64, height: 64 } });
    t.is(res.statusCode, 200, res.payload);
    return (res.result as { request_id: string }).request_id;
  };
  const run = await submit(member.liveKey);
  const sandboxRun = await submit(member.testKey);
  await waitFor(async () => (await gw.app.db('predictions').where({ id: run }).first()).status === 'completed', { what: 'the team run to complete' });
  const left = Number((await gw.app.db('teams').where({ id: teamId }).first()).balance);
  t.true(left > 0 && left < 100);
  t.is((await callOperation(gw, 'adminDeductCredits', { as: admin.session, query: { team_id: teamId }, body: { email: ownerEmail, amount: left } })).status, 200);
  t.is((await callOperation(gw, 'deleteTeam', { as: owner.session, params: { team_id: teamId } })).status, 200);

  // a former member, with a session or a personal key naming the team: 404 everywhere, never 403 or data
  const teamReads: Array<[string, { params?: Record<string, string | number>; query?: Record<string, string | number | boolean> }]> = [
    ['getTeam', { params: { team_id: teamId } }],
    ['listTeamMembers', { params: { team_id: teamId } }],
    ['listTeamApiKeys', { params: { team_id: teamId } }],
    ['getRunHistory', { query: { team_id: teamId } }],
    ['getGallery', { query: { team_id: teamId } }],
    ['listCreditTransactions', { query: { team_id: teamId } }],
    ['getUsage', { query: { team_id: teamId } }],
    ['getBalance', { query: { team_id: teamId } }],
    ['listWebhookDeliveries', { query: { team_id: teamId } }],
    ['getAlertSettings', { query: { team_id: teamId } }],
    ['listMediaAssets', { query: { team_id: teamId } }],
    ['getPredictionResult', { params: { request_id: run }, query: { team_id: teamId } }],
    ['getPredictionResult', { params: { request_id: sandboxRun }, query: { team_id: teamId } }],
  ];
  for (const who of [{ name: 'the owner\'s session', as: owner.session }, { name: 'the member\'s session', as: member.session }, { name: 'the member\'s personal key', as: member.liveKey }]) {
    for (const [op, call] of teamReads) {
      const res = await callOperation<{ detail: string }>(gw, op, { as: who.as, ...call });
      t.is(res.status, 404, `${who.name}: ${op}`);
      t.is(res.body.detail, 'team not found', `${who.name}: ${op}`);
    }
    // without team_id the team's runs are another owner's
    t.is((await callOperation(gw, 'getPredictionResult', { as: who.as, params: { request_id: run } })).status, 404, `${who.name}: the run without team_id`);
  }
  const resubmit = await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}?team_id=${teamId}`, headers: { 'x-api-key': member.testKey }, payload: { prompt: 'p', width: 64, height: 64 } });
  t.is(resubmit.statusCode, 404, 'a sandbox submit for the deleted team');
  // the team's key was revoked with it
  t.is((await callOperation(gw, 'getBalance', { as: teamKey.body.key })).status, 401);

  // the operator: no credit lands on its wallet, and its member list shows it deleted
  t.is((await callOperation(gw, 'adminTopup', { as: admin.session, query: { team_id: teamId }, body: { email: ownerEmail, amount: 5 } })).status, 404);
  t.is((await callOperation(gw, 'adminDeductCredits', { as: admin.session, query: { team_id: teamId }, body: { email: ownerEmail, amount: 5 } })).status, 404);
  t.is((await callOperation(gw, 'adminRefund', { as: admin.session, body: { request_id: run } })).status, 409);
  const wallet = await gw.app.db('teams').where({ id: teamId }).first();
  t.deepEqual([Number(wallet.balance), Number(wallet.held)], [0, 0]);
  // its former members' records still name it (runs, keys): the operator sees it, as deleted
  for (const who of [owner, member]) {
    const info = await callOperation<{ teams: Array<{ id: number; role: string; deleted_at: string | null }> }>(gw, 'adminUserInfo', { as: admin.session, query: { email: await emailOf(gw, who.userId) } });
    t.is(info.status, 200);
    t.like(info.body.teams.find((x) => x.id === teamId), { role: who === owner ? 'owner' : 'developer', deleted_at: new Date(Number(wallet.deleted_at)).toISOString() });
  }

  // the same name again is another team: none of the old one's history, keys or wallet
  const again = await callOperation<{ id: number }>(gw, 'createTeam', { as: owner.session, body: { name: 'Gone soon' } });
  t.is(again.status, 201);
  t.not(again.body.id, teamId);
  // the live teams first, then the deleted ones
  const listed = await callOperation<{ teams: Array<{ id: number; deleted_at: string | null }> }>(gw, 'adminUserInfo', { as: admin.session, query: { email: ownerEmail } });
  t.deepEqual(listed.body.teams.map((x) => [x.id, x.deleted_at === null]), [[again.body.id, true], [teamId, false]]);
  await gw.app.db('team_members').insert({ team_id: again.body.id, user_id: member.userId, role: 'developer', created_at: Date.now() });
  for (const as of [owner.session, member.session]) {
    const got = await callOperation<{ balance: number; held: number }>(gw, 'getTeam', { as, params: { team_id: again.body.id } });
    t.like(got.body, { balance: 0, held: 0 });
    t.deepEqual((await callOperation<unknown[]>(gw, 'listTeamApiKeys', { as, params: { team_id: again.body.id } })).body, []);
    const history = await callOperation<{ items: unknown[] }>(gw, 'getRunHistory', { as, query: { team_id: again.body.id } });
    t.deepEqual(history.body.items, []);
    const ledger = await callOperation<{ items: unknown[] }>(gw, 'listCreditTransactions', { as, query: { team_id: again.body.id } });
    t.deepEqual(ledger.body.items, []);
    t.is((await callOperation(gw, 'getPredictionResult', { as, params: { request_id: run }, query: { team_id: again.body.id } })).status, 404);
  }
  await assertLedger(t, gw.app.db);
}

test('a deleted team is 404 to its former members, its key is refused, and a team of the same name starts empty, on MariaDB', (t) => scenario(t, 'mysql'));
test('a deleted team is 404 to its former members, its key is refused, and a team of the same name starts empty, on SQLite', (t) => scenario(t, 'sqlite'));

async function freeRunBlocksDeletion(t: ExecutionContext, db: 'mysql' | 'sqlite'): Promise<void> {
  // no worker: the run stays queued
  const gw = await startGateway({ db, queue: 'memory' });
  t.teardown(() => gw.stop());
  const admin = await newAccount(gw);
  await gw.app.db('users').where({ id: admin.userId }).update({ role: 'admin' });
  const owner = await newAccount(gw);
  const teamId = (await callOperation<{ id: number }>(gw, 'createTeam', { as: owner.session, body: { name: 'Free runs' } })).body.id;
  const discount = await callOperation(gw, 'upsertModelDiscounts', { as: admin.session, query: { team_id: teamId }, body: { discounts: [{ email: await emailOf(gw, owner.userId), model: '*', percent_off: 100 }] } });
  t.is(discount.status, 200, JSON.stringify(discount.body));
  const res = await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}?team_id=${teamId}`, headers: { 'x-api-key': owner.liveKey }, payload: { prompt: 'p', width: 64, height: 64 } });
  t.is(res.statusCode, 200, res.payload);
  t.is(res.headers['x-cost'], '0');
  const run = (res.result as { request_id: string }).request_id;
  t.is(Number((await gw.app.db('teams').where({ id: teamId }).first()).held), 0, 'a free run holds nothing');

  const refused = await callOperation<{ detail: string }>(gw, 'deleteTeam', { as: owner.session, params: { team_id: teamId } });
  t.is(refused.status, 409, 'its run would finish for a team that is gone: no one could read it');
  t.regex(refused.body.detail, /predictions .*running.*wait for them to finish/);
  t.is((await callOperation(gw, 'getTeam', { as: owner.session, params: { team_id: teamId } })).status, 200);

  t.is((await callOperation(gw, 'cancelPrediction', { as: owner.session, params: { request_id: run }, query: { team_id: teamId } })).status, 200);
  t.is((await callOperation(gw, 'deleteTeam', { as: owner.session, params: { team_id: teamId } })).status, 200);
  await assertLedger(t, gw.app.db);
}

test('a team whose run is free (a 100% discount) holds nothing, yet is not deleted while the run is unfinished, on MariaDB', (t) => freeRunBlocksDeletion(t, 'mysql'));
test('a team whose run is free (a 100% discount) holds nothing, yet is not deleted while the run is unfinished, on SQLite', (t) => freeRunBlocksDeletion(t, 'sqlite'));
