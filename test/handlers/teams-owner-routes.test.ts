// team_id on a live operation (getPredictionResponse, x-team-permission: read_history): members
// read the team's records as the team, everyone else gets 404, and the personal scope never
// shows a team's records.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { createTeam } from '../../db/teams.ts';
import { newPredictionId } from '../../db/predictions/record.ts';

let gw: TestGateway;
let owner: Account;
let viewer: Account;
let stranger: Account;
let teamId: number;
let otherTeamId: number;
let predictionId: string;

test.before(async () => {
  gw = await startGateway({ queue: 'memory' });
  [owner, viewer, stranger] = [await newAccount(gw), await newAccount(gw), await newAccount(gw)];
  teamId = (await createTeam(gw.app.db, owner.userId, 'Studio', Date.now())).id;
  otherTeamId = (await createTeam(gw.app.db, stranger.userId, 'Elsewhere', Date.now())).id;
  await gw.app.db('team_members').insert({ team_id: teamId, user_id: viewer.userId, role: 'viewer', created_at: Date.now() });
  await gw.app.db('teams').where({ id: teamId }).update({ balance: 100 });
  predictionId = newPredictionId(Date.now());
  await gw.app.store.submit({ p: { id: predictionId, teamId, userId: owner.userId, apiKeyId: null, model: 'canvas-v1-fast-text-to-image', input: { prompt: 'team' }, price: 10, webhookUrl: null }, now: Date.now() });
});
test.after.always(async () => {
  await gw?.stop();
});

const read = (as: string, team?: number) => callOperation<{ id: string }>(gw, 'getPredictionResponse', {
  as, params: { request_id: predictionId }, ...(team === undefined ? {} : { query: { team_id: team } }),
});

test('members read a team prediction with team_id, with a session or a production key', async (t) => {
  for (const as of [owner.session, owner.liveKey, viewer.session]) {
    const res = await read(as, teamId);
    t.is(res.status, 200);
    t.is(res.body.id, predictionId);
  }
});

test('without team_id, a team prediction is not the member\'s own: 404', async (t) => {
  t.is((await read(owner.session)).status, 404);
});

test('a non-member, or a member naming another team, gets 404 team not found', async (t) => {
  const res = await read(stranger.session, teamId);
  t.is(res.status, 404);
  t.deepEqual(res.body, { detail: 'team not found', code: 'not_found' });
  t.is((await read(stranger.session, otherTeamId)).status, 404, 'the stranger\'s own team does not hold it');
  t.is((await read(owner.session, otherTeamId)).status, 404);
});
