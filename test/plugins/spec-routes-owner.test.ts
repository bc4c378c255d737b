// The owner of a request is resolved once, in the route bridge, from `team_id`, before the
// handler runs; owned records are looked up scoped to the owner in the query.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';

let gw: TestGateway;
test.before(async () => {
  gw = await startGateway({ db: 'sqlite', queue: 'memory' });
});
test.after.always(async () => {
  await gw?.stop();
});

const LOCAL_MODEL = '/api/v1/canvas-v1-fast-text-to-image';

async function sandboxPrediction(key: string): Promise<string> {
  const submit = await gw.server.inject({ method: 'POST', url: LOCAL_MODEL, headers: { 'x-api-key': key }, payload: { prompt: 'mine' } });
  return (submit.result as { request_id: string }).request_id;
}

test.serial('a team_id the caller is not a member of is 404 team not found, before the handler runs', async (t) => {
  const a = await newAccount(gw);
  const id = await sandboxPrediction(a.testKey);
  const own = await gw.server.inject({ method: 'GET', url: `/app/prediction_response/${id}`, headers: { 'x-api-key': a.testKey } });
  t.is(own.statusCode, 200);
  const team = await gw.server.inject({ method: 'GET', url: `/app/prediction_response/${id}?team_id=7`, headers: { 'x-api-key': a.testKey } });
  t.is(team.statusCode, 404);
  t.deepEqual(team.result, { detail: 'team not found', code: 'not_found' });
});

test.serial('membership is asked once, through the one seam (app.teams), with the team and the caller', async (t) => {
  const a = await newAccount(gw);
  const id = await sandboxPrediction(a.testKey);
  const calls: Array<[number, number]> = [];
  gw.app.teams = { membership: async (teamId, userId) => { calls.push([teamId, userId]); return teamId === 7 ? { role: 'owner' } : undefined; } };
  try {
    const member = await gw.server.inject({ method: 'GET', url: `/app/prediction_response/${id}?team_id=7`, headers: { 'x-api-key': a.testKey } });
    t.not((member.result as { detail?: string }).detail, 'team not found');
    t.deepEqual(calls, [[7, a.userId]]);
    const outsider = await gw.server.inject({ method: 'GET', url: `/app/prediction_response/${id}?team_id=8`, headers: { 'x-api-key': a.testKey } });
    t.deepEqual(outsider.result, { detail: 'team not found', code: 'not_found' });
    const none = await gw.server.inject({ method: 'GET', url: `/app/prediction_response/${id}`, headers: { 'x-api-key': a.testKey } });
    t.is(none.statusCode, 200);
    t.is(calls.length, 2, 'no team_id, no membership lookup');
  } finally {
    delete gw.app.teams;
  }
});

test('cancelling another account\'s prediction is 404 and leaves it alone; the owner gets 409 on a finished one', async (t) => {
  const a = await newAccount(gw);
  const b = await newAccount(gw);
  const id = await sandboxPrediction(a.testKey);
  const theirs = await gw.server.inject({ method: 'POST', url: `/app/cancel_prediction/${id}`, headers: { 'x-api-key': b.testKey } });
  t.is(theirs.statusCode, 404);
  t.deepEqual(theirs.result, { detail: 'prediction not found', code: 'not_found' });
  const mine = await gw.server.inject({ method: 'POST', url: `/app/cancel_prediction/${id}`, headers: { 'x-api-key': a.testKey } });
  t.is(mine.statusCode, 409);
  t.deepEqual(mine.result, { detail: 'prediction is already completed and cannot be cancelled', code: 'conflict' });
});

test.serial('prediction_response is scoped to the owner in the query: a teammate reads the team\'s prediction under its team_id, and only there', async (t) => {
  const a = await newAccount(gw);
  const b = await newAccount(gw);
  const id = await sandboxPrediction(a.testKey);
  await gw.app.db('predictions').where('id', id).update({ team_id: 7 });
  const personal = await sandboxPrediction(a.testKey);
  gw.app.teams = { membership: async (teamId) => (teamId === 7 ? { role: 'viewer' } : undefined) };
  try {
    const get = (rid: string, key: string, query = '') => gw.server.inject({ method: 'GET', url: `/app/prediction_response/${rid}${query}`, headers: { 'x-api-key': key } });
    const teammate = await get(id, b.testKey, '?team_id=7');
    t.is(teammate.statusCode, 200);
    t.is((teammate.result as { request_id: string }).request_id, id);
    t.is((teammate.result as { team_id: number | null }).team_id, 7);
    const creator = await get(id, a.testKey, '?team_id=7');
    t.is(creator.statusCode, 200);
    t.is((creator.result as { team_id: number | null }).team_id, 7);
    // outside the team's scope the teammate does not know the id; a personal prediction is not the team's
    t.deepEqual((await get(id, b.testKey)).result, { detail: 'prediction not found', code: 'not_found' });
    t.deepEqual((await get(personal, a.testKey, '?team_id=7')).result, { detail: 'prediction not found', code: 'not_found' });
    t.is((await get(personal, a.testKey)).statusCode, 200);
  } finally {
    delete gw.app.teams;
  }
});
