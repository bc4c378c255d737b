// Team API keys and generation on the team wallet over HTTP (issue 8), on MariaDB and RabbitMQ
// with a worker in the process: keys that belong to a team, team_id on model endpoints and the
// prediction routes, what a team key may call, and removal of a member. Every reply is checked
// against the spec (callOperation).
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import type { CallOptions } from '../helpers/operation.ts';
import { waitFor } from '../helpers/services.ts';
import { creditTeam } from '../../db/wallet/moves.ts';
import { getTeamBalance } from '../../db/wallet/ledger.ts';
import { newPredictionId } from '../../db/predictions/record.ts';
import { insertDelivery, newDeliveryId } from '../../db/webhooks.ts';
import { createClient, tokenFor } from '../helpers/oauth.ts';

const MODEL = 'canvas-v1-fast-text-to-image';
const INPUT = { prompt: 'team', width: 64, height: 64 };
const PERSONAL_CREDIT = 1000;
const TEAM_CREDIT = 500;

let gw: TestGateway;
let owner: Account;
let dev: Account;
let viewer: Account;
let stranger: Account;
let teamId: number;
let otherTeamId: number;

type Body = Record<string, unknown>;
const call = <T = Body>(operationId: string, opts: CallOptions) => callOperation<T>(gw, operationId, opts);

async function addMember(who: Account, team: number, role: string): Promise<void> {
  await gw.app.db('team_members').insert({ team_id: team, user_id: who.userId, role, created_at: Date.now() });
}

async function newTeam(by: Account, name: string): Promise<number> {
  const res = await call('createTeam', { as: by.session, body: { name } });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return Number(res.body.id);
}

async function teamKey(by: string, team: number, body: Body = {}): Promise<Body & { key: string; id: number }> {
  const res = await call<Body & { key: string; id: number }>('createTeamApiKey', { as: by, params: { team_id: team }, body: { name: 'ci', ...body } });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body;
}

async function personalBalance(a: Account): Promise<number> {
  return Number((await gw.app.db('users').where({ id: a.userId }).first()).balance);
}

async function completed(id: string): Promise<void> {
  await waitFor(async () => (await gw.app.db('predictions').where({ id, status: 'completed' }).first()) ?? false, { what: `prediction ${id} to complete`, timeoutMs: 30_000 });
}

test.before(async () => {
  gw = await startGateway({ worker: true });
  [owner, dev, viewer, stranger] = [
    await newAccount(gw, PERSONAL_CREDIT), await newAccount(gw, PERSONAL_CREDIT), await newAccount(gw, PERSONAL_CREDIT), await newAccount(gw, PERSONAL_CREDIT),
  ];
  teamId = await newTeam(owner, 'Studio');
  otherTeamId = await newTeam(stranger, 'Elsewhere');
  await addMember(dev, teamId, 'developer');
  await addMember(viewer, teamId, 'viewer');
  // Top-up routes are issue 11: tests credit the team wallet with the db helper.
  await gw.app.db.transaction((trx) => creditTeam(trx, teamId, owner.userId, TEAM_CREDIT, 'topup', 'test credit', Date.now()));
});
test.after.always(async () => {
  await gw?.stop();
});

test.serial('a team key is shown once, listed without its value, never in a personal list, and revoked through its team', async (t) => {
  const created = await teamKey(dev.session, teamId);
  t.regex(created.key, /^mg_live_/);
  t.is(created.prefix, created.key.slice(0, 'mg_live_'.length + 4));
  t.is(created.team_id, teamId);
  t.is(created.created_by, dev.userId);
  t.is(created.is_test, false);

  const listed = await call<Body[]>('listTeamApiKeys', { as: owner.session, params: { team_id: teamId } });
  t.is(listed.status, 200);
  const row = listed.body.find((k) => k.id === created.id);
  t.truthy(row);
  t.false('key' in row!, 'the value is never listed');
  const personal = await call<Body[]>('getUserKeys', { as: dev.session });
  t.false(personal.body.some((k) => k.id === created.id), 'a team key is not its creator\'s personal key');

  const sandbox = await teamKey(owner.liveKey, teamId, { is_test: true });
  t.regex(sandbox.key, /^mg_test_/);

  // another team's id path does not reach this team's key
  const elsewhere = await call('revokeTeamApiKey', { as: stranger.session, params: { team_id: otherTeamId, key_id: created.id } });
  t.is(elsewhere.status, 404);
  t.is((await call('getPredictionResult', { as: created.key, params: { request_id: 'f'.repeat(32) } })).status, 404, 'the key works until revoked');

  const revoked = await call('revokeTeamApiKey', { as: owner.session, params: { team_id: teamId, key_id: created.id } });
  t.is(revoked.status, 200);
  t.deepEqual(revoked.body, { id: created.id, deleted: true });
  const after = await call('getPredictionResult', { as: created.key, params: { request_id: 'f'.repeat(32) } });
  t.is(after.status, 401);
  t.is((await call('revokeTeamApiKey', { as: owner.session, params: { team_id: teamId, key_id: created.id } })).status, 404);
});

test('managing team keys needs manage_keys (403 naming it); a non-member gets 404', async (t) => {
  const denied = await call('createTeamApiKey', { as: viewer.session, params: { team_id: teamId }, body: { name: 'x' } });
  t.is(denied.status, 403);
  t.deepEqual(denied.body, { detail: 'your role in this team (viewer) lacks the "manage_keys" permission', code: 'forbidden' });
  t.is((await call('listTeamApiKeys', { as: viewer.session, params: { team_id: teamId } })).status, 403);
  const hidden = await call('listTeamApiKeys', { as: stranger.liveKey, params: { team_id: teamId } });
  t.is(hidden.status, 404);
  t.deepEqual(hidden.body, { detail: 'team not found', code: 'not_found' });
  t.is((await call('createTeamApiKey', { as: stranger.session, params: { team_id: teamId }, body: {} })).status, 404);
});

test('updateTeamApiKey changes a team key with the rules of updateApiKey; another team\'s or a personal key is 404, a member without manage_keys 403', async (t) => {
  const k = await teamKey(dev.session, teamId);
  const at = new Date(Date.now() + 86_400_000).toISOString();
  const res = await call('updateTeamApiKey', { as: owner.session, params: { team_id: teamId, key_id: k.id }, body: { name: 'renamed', ip_whitelist: ['::ffff:192.0.2.7', '10.1.2.3/8'], expires_at: at, spend_limit: 30, spend_limit_period: 'day' } });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.like(res.body, { id: k.id, team_id: teamId, created_by: dev.userId, name: 'renamed', ip_whitelist: ['192.0.2.7', '10.0.0.0/8'], expires_at: at, spend_limit: 30, spend_limit_period: 'day' });
  const listed = await call<Body[]>('listTeamApiKeys', { as: dev.session, params: { team_id: teamId } });
  t.like(listed.body.find((x) => x.id === k.id), { name: 'renamed', spend_limit: 30 });
  // an absent field is left as it is
  t.like((await call('updateTeamApiKey', { as: dev.session, params: { team_id: teamId, key_id: k.id }, body: { ip_whitelist: [] } })).body, { name: 'renamed', ip_whitelist: [], spend_limit: 30 });

  const bad = await call<{ detail: Array<{ loc: unknown[] }> }>('updateTeamApiKey', { as: owner.session, params: { team_id: teamId, key_id: k.id }, body: { ip_whitelist: ['10.0.0.1', 'fe80::/129'] } });
  t.is(bad.status, 422);
  t.deepEqual(bad.body.detail[0]!.loc, ['body', 'ip_whitelist', 1]);
  t.is((await call('updateTeamApiKey', { as: owner.session, params: { team_id: teamId, key_id: k.id }, body: { expires_at: new Date(Date.now() - 1000).toISOString() } })).status, 422);
  t.is((await call('updateTeamApiKey', { as: owner.session, params: { team_id: teamId, key_id: k.id }, body: { spend_limit_period: 'month', spend_limit: null } })).status, 422);

  // a team key changing itself may only narrow
  t.is((await call('updateTeamApiKey', { as: k.key, params: { team_id: teamId, key_id: k.id }, body: { expires_at: null } })).status, 403);
  t.is((await call('updateTeamApiKey', { as: k.key, params: { team_id: teamId, key_id: k.id }, body: { spend_limit: 31 } })).status, 403);
  t.like((await call('updateTeamApiKey', { as: k.key, params: { team_id: teamId, key_id: k.id }, body: { spend_limit: 20 } })).body, { spend_limit: 20 });

  const denied = await call('updateTeamApiKey', { as: viewer.session, params: { team_id: teamId, key_id: k.id }, body: { name: 'x' } });
  t.is(denied.status, 403);
  t.deepEqual(denied.body, { detail: 'your role in this team (viewer) lacks the "manage_keys" permission', code: 'forbidden' });
  t.is((await call('updateTeamApiKey', { as: stranger.session, params: { team_id: teamId, key_id: k.id }, body: { name: 'x' } })).status, 404);
  const foreign = await teamKey(stranger.session, otherTeamId);
  const notOurs = await call('updateTeamApiKey', { as: owner.session, params: { team_id: teamId, key_id: foreign.id }, body: { name: 'taken over' } });
  t.is(notOurs.status, 404);
  t.deepEqual(notOurs.body, { detail: 'API key not found', code: 'not_found' });
  const personal = await call<{ id: number }>('createApiKey', { as: owner.session, body: { name: 'mine' } });
  t.is((await call('updateTeamApiKey', { as: owner.session, params: { team_id: teamId, key_id: personal.body.id }, body: { name: 'x' } })).status, 404);
  t.is((await gw.app.db('api_keys').where({ id: foreign.id }).first()).name, 'ci');
});

test('createTeamApiKey takes expires_at and a spend limit, validated as on update', async (t) => {
  const at = new Date(Date.now() + 86_400_000).toISOString();
  const k = await teamKey(owner.session, teamId, { expires_at: at, spend_limit: 12, spend_limit_period: 'month' });
  t.like(k, { expires_at: at, spend_limit: 12, spend_limit_period: 'month' });
  t.is((await call('createTeamApiKey', { as: owner.session, params: { team_id: teamId }, body: { spend_limit: 12 } })).status, 422);
  t.is((await call('createTeamApiKey', { as: owner.session, params: { team_id: teamId }, body: { expires_at: new Date(Date.now() - 1000).toISOString() } })).status, 422);
  // created by that key: inherits it, and may not ask for more
  t.like(await teamKey(k.key, teamId), { expires_at: at, spend_limit: 12, spend_limit_period: 'month' });
  t.is((await call('createTeamApiKey', { as: k.key, params: { team_id: teamId }, body: { spend_limit: 13, spend_limit_period: 'month' } })).status, 403);
});

test('a team key inherits the creating key\'s limits: sandbox creates only sandbox, and an IP restriction is enforced', async (t) => {
  const refused = await call('createTeamApiKey', { as: owner.testKey, params: { team_id: teamId }, body: { is_test: false } });
  t.is(refused.status, 403);
  t.regex(String(refused.body.detail), /sandbox key may only create sandbox keys/);
  const restricted = await teamKey(owner.session, teamId, { ip_whitelist: ['203.0.113.7'] });
  t.deepEqual(restricted.ip_whitelist, ['203.0.113.7']);
  const used = await call('getPredictionResult', { as: restricted.key, params: { request_id: 'f'.repeat(32) } });
  t.is(used.status, 403, 'server.inject comes from 127.0.0.1');
  t.is(used.body.detail, 'this API key may not be used from this address');
  const bad = await call('createTeamApiKey', { as: owner.session, params: { team_id: teamId }, body: { ip_whitelist: ['not an address'] } });
  t.is(bad.status, 422);
});

test.serial('a team key generates on the team wallet: the team balance goes down, no member\'s does, and the ledger records the team', async (t) => {
  const { key } = await teamKey(owner.session, teamId);
  const teamBefore = await getTeamBalance(gw.app.db, teamId);
  const submit = await call<{ request_id: string }>(MODEL, { as: key, body: INPUT });
  t.is(submit.status, 200);
  const id = submit.body.request_id;
  await completed(id);
  const row = await gw.app.db('predictions').where({ id }).first();
  t.is(Number(row.team_id), teamId);
  t.is(Number(row.user_id), owner.userId, 'the key\'s creator is recorded as who acted');
  const price = Number(row.price);
  t.true(price > 0);
  t.deepEqual(await getTeamBalance(gw.app.db, teamId), { balance: teamBefore.balance - price, held: 0 });
  t.is(await personalBalance(owner), PERSONAL_CREDIT);
  const ledger = await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' });
  t.is(ledger.length, 1);
  t.is(Number(ledger[0].team_id), teamId);
  t.is(Number(ledger[0].amount), -price);
  t.is(Number(ledger[0].balance_after), teamBefore.balance - price);

  // The key reads its team's prediction with or without team_id; members read it only with team_id.
  t.is((await call('getPredictionResult', { as: key, params: { request_id: id } })).status, 200);
  t.is((await call('getPredictionResult', { as: key, params: { request_id: id }, query: { team_id: teamId } })).status, 200);
  const mine = await call('getPredictionResult', { as: owner.session, params: { request_id: id } });
  t.is(mine.status, 404, 'without team_id a team prediction is not the member\'s own');
  t.deepEqual(mine.body, { detail: 'prediction not found', code: 'not_found' });
  for (const member of [owner.session, dev.liveKey, viewer.session]) {
    const read = await call<Body>('getPredictionResult', { as: member, params: { request_id: id }, query: { team_id: teamId } });
    t.is(read.status, 200);
    t.is(read.body.status, 'completed');
  }
  t.is((await call('getPredictionResponse', { as: viewer.session, params: { request_id: id }, query: { team_id: teamId } })).status, 200);
  t.is((await call('getPredictionResult', { as: stranger.session, params: { request_id: id }, query: { team_id: teamId } })).status, 404);
});

test('a team key acts for its team only: another team_id, personal-account and team-management operations are 403 saying why', async (t) => {
  const { key } = await teamKey(owner.session, teamId);
  const other = await call(MODEL, { as: key, body: INPUT, query: { team_id: otherTeamId } });
  t.is(other.status, 403);
  t.deepEqual(other.body, { detail: `this API key belongs to team ${teamId} and acts for no other team`, code: 'forbidden' });
  t.is((await call('listTeamApiKeys', { as: key, params: { team_id: otherTeamId } })).status, 403);
  const personal = 'this API key belongs to a team and acts only for it; this operation acts on a personal account: use a personal API key or a session';
  for (const [op, opts] of [
    ['getUserKeys', {}], ['createApiKey', { body: { name: 'x' } }], ['listTeams', {}],
    ['getTeam', { params: { team_id: teamId } }], ['createTeamInvite', { params: { team_id: teamId }, body: { email: 'a@example.com', role: 'viewer' } }],
  ] as Array<[string, CallOptions]>) {
    const res = await call(op, { as: key, ...opts });
    t.is(res.status, 403, op);
    t.deepEqual(res.body, { detail: personal, code: 'forbidden' }, op);
  }
  // ...but it manages its own team's keys (manage_keys)
  const listed = await call<Body[]>('listTeamApiKeys', { as: key, params: { team_id: teamId } });
  t.is(listed.status, 200);
  const child = await teamKey(key, teamId);
  t.is(child.team_id, teamId);
});

test.serial('members generate on the team wallet with team_id when their role has generate; a viewer gets 403, a stranger 404', async (t) => {
  const teamBefore = await getTeamBalance(gw.app.db, teamId);
  const submit = await call<{ request_id: string }>(MODEL, { as: dev.session, body: INPUT, query: { team_id: teamId } });
  t.is(submit.status, 200);
  await completed(submit.body.request_id);
  const price = Number((await gw.app.db('predictions').where({ id: submit.body.request_id }).first()).price);
  t.deepEqual(await getTeamBalance(gw.app.db, teamId), { balance: teamBefore.balance - price, held: 0 });
  t.is(await personalBalance(dev), PERSONAL_CREDIT);
  const ledger = await gw.app.db('credit_transactions').where({ prediction_id: submit.body.request_id, kind: 'prediction' }).first();
  t.is(Number(ledger.team_id), teamId);
  t.is(Number(ledger.user_id), dev.userId);

  const denied = await call(MODEL, { as: viewer.session, body: INPUT, query: { team_id: teamId } });
  t.is(denied.status, 403);
  t.deepEqual(denied.body, { detail: 'your role in this team (viewer) lacks the "generate" permission', code: 'forbidden' });
  const hidden = await call(MODEL, { as: stranger.liveKey, body: INPUT, query: { team_id: teamId } });
  t.is(hidden.status, 404);
  t.deepEqual(hidden.body, { detail: 'team not found', code: 'not_found' });
  t.deepEqual(await getTeamBalance(gw.app.db, teamId), { balance: teamBefore.balance - price, held: 0 });
});

test.serial('a team prediction is cancelled with team_id (generate), and the hold goes back to the team wallet', async (t) => {
  // Recorded but never dispatched, so no worker can finish it first.
  const id = newPredictionId(Date.now());
  const before = await getTeamBalance(gw.app.db, teamId);
  await gw.app.store.submit({ p: { id, userId: dev.userId, teamId, apiKeyId: null, model: MODEL, input: INPUT, price: 7, webhookUrl: null }, now: Date.now() });
  t.deepEqual(await getTeamBalance(gw.app.db, teamId), { balance: before.balance - 7, held: before.held + 7 });
  t.is((await call('cancelPrediction', { as: owner.session, params: { request_id: id } })).status, 404, 'not the owner\'s own');
  const viewerCancel = await call('cancelPrediction', { as: viewer.session, params: { request_id: id }, query: { team_id: teamId } });
  t.is(viewerCancel.status, 403);
  t.regex(String(viewerCancel.body.detail), /lacks the "generate" permission/);
  const cancelled = await call<Body>('cancelPrediction', { as: owner.session, params: { request_id: id }, query: { team_id: teamId } });
  t.is(cancelled.status, 200);
  t.is(cancelled.body.status, 'cancelled');
  t.deepEqual(await getTeamBalance(gw.app.db, teamId), before);
  t.is(await personalBalance(dev), PERSONAL_CREDIT);
});

test.serial('a sandbox team key makes sandbox predictions owned by the team, free', async (t) => {
  const { key } = await teamKey(owner.session, teamId, { is_test: true });
  const before = await getTeamBalance(gw.app.db, teamId);
  const submit = await call<{ request_id: string }>(MODEL, { as: key, body: INPUT });
  t.is(submit.status, 200);
  const id = submit.body.request_id;
  const row = await gw.app.db('predictions').where({ id }).first();
  t.is(Number(row.team_id), teamId);
  t.true(Boolean(row.is_test));
  t.deepEqual(await getTeamBalance(gw.app.db, teamId), before);
  t.is((await call('getPredictionResult', { as: key, params: { request_id: id } })).status, 200);
  t.is((await call('getPredictionResult', { as: owner.testKey, params: { request_id: id } })).status, 404);
  t.is((await call('getPredictionResult', { as: owner.testKey, params: { request_id: id }, query: { team_id: teamId } })).status, 200);
});

test.serial('removing a member revokes the team keys they created in the same step, keeps the keys others created, and revokes their own access at once', async (t) => {
  const member = await newAccount(gw, PERSONAL_CREDIT);
  await addMember(member, teamId, 'developer');
  const { key, id: keyId } = await teamKey(member.session, teamId);
  const kept = await teamKey(dev.session, teamId);
  const first = await call<{ request_id: string }>(MODEL, { as: member.session, body: INPUT, query: { team_id: teamId } });
  t.is(first.status, 200);
  const requestId = first.body.request_id;
  t.is((await call('getPredictionResult', { as: member.session, params: { request_id: requestId }, query: { team_id: teamId } })).status, 200);
  // used once, so a cached credential would answer the next request if the removal did not drop it
  t.is((await call('getPredictionResult', { as: key, params: { request_id: requestId } })).status, 200);

  const removed = await call('removeTeamMember', { as: owner.session, params: { team_id: teamId, user_id: member.userId } });
  t.is(removed.status, 200);
  t.deepEqual(removed.body, { id: member.userId, deleted: true, revoked_key_ids: [keyId] });

  // their access is gone on the very next request, whatever credential they use
  for (const as of [member.session, member.liveKey]) {
    const read = await call('getPredictionResult', { as, params: { request_id: requestId }, query: { team_id: teamId } });
    t.is(read.status, 404);
    t.deepEqual(read.body, { detail: 'team not found', code: 'not_found' });
    t.is((await call(MODEL, { as, body: INPUT, query: { team_id: teamId } })).status, 404);
    t.is((await call('listTeamApiKeys', { as, params: { team_id: teamId } })).status, 404);
  }
  // the team key they created went with them: it neither reads nor spends the team wallet
  t.is((await call('getPredictionResult', { as: key, params: { request_id: requestId } })).status, 401);
  t.is((await call(MODEL, { as: key, body: INPUT })).status, 401);
  t.not((await gw.app.db('api_keys').where({ id: keyId }).first()).revoked_at, null);
  // a key another member created belongs to the team and keeps working
  const again = await call<{ request_id: string }>(MODEL, { as: kept.key, body: INPUT });
  t.is(again.status, 200);
  await completed(again.body.request_id);
  t.is(Number((await gw.app.db('predictions').where({ id: again.body.request_id }).first()).team_id), teamId);
  const listed = await call<Body[]>('listTeamApiKeys', { as: owner.session, params: { team_id: teamId } });
  t.false(listed.body.some((k) => k.id === keyId));
  t.true(listed.body.some((k) => k.id === kept.id));
  t.is(await personalBalance(member), PERSONAL_CREDIT);
});

test.serial('a member who leaves takes the team keys they created with them; a last owner refused (409) keeps theirs', async (t) => {
  const member = await newAccount(gw, PERSONAL_CREDIT);
  await addMember(member, teamId, 'admin');
  const { key, id: keyId } = await teamKey(member.session, teamId);
  t.is((await call('getBalance', { as: key })).status, 200);
  const left = await call('leaveTeam', { as: member.session, params: { team_id: teamId } });
  t.is(left.status, 200);
  t.deepEqual(left.body, { id: teamId, deleted: true, revoked_key_ids: [keyId] });
  t.is((await call('getBalance', { as: key })).status, 401);

  // leaving through removeTeamMember on oneself is the same
  const other = await newAccount(gw, PERSONAL_CREDIT);
  await addMember(other, teamId, 'developer');
  const theirs = await teamKey(other.session, teamId);
  const self = await call('removeTeamMember', { as: other.session, params: { team_id: teamId, user_id: other.userId } });
  t.deepEqual(self.body, { id: other.userId, deleted: true, revoked_key_ids: [theirs.id] });
  t.is((await call('getBalance', { as: theirs.key })).status, 401);

  // the last owner cannot leave: nothing is revoked
  const solo = await newAccount(gw, PERSONAL_CREDIT);
  const soloTeam = await newTeam(solo, 'Solo');
  const soloKey = await teamKey(solo.session, soloTeam);
  t.is((await call('leaveTeam', { as: solo.session, params: { team_id: soloTeam } })).status, 409);
  t.is((await call('getBalance', { as: soloKey.key })).status, 200);
});

test.serial('a member who rotates another member\'s team key becomes its creator: removing the rotator revokes it, the former creator\'s leaving does not', async (t) => {
  const creator = await newAccount(gw, PERSONAL_CREDIT);
  const rotator = await newAccount(gw, PERSONAL_CREDIT);
  await addMember(creator, teamId, 'developer');
  await addMember(rotator, teamId, 'admin');
  const made = await teamKey(creator.session, teamId);
  t.is(made.created_by, creator.userId);
  const rotated = await call<Body & { key: string; created_by: number }>('rotateTeamApiKey', { as: rotator.session, params: { team_id: teamId, key_id: made.id }, body: { grace_seconds: 0 } });
  t.is(rotated.status, 200);
  // the rotator holds the only working secret now
  t.is(rotated.body.created_by, rotator.userId);
  t.is((await call('getBalance', { as: made.key })).status, 401);
  t.is((await call('getBalance', { as: rotated.body.key })).status, 200);
  const listed = await call<Body[]>('listTeamApiKeys', { as: owner.session, params: { team_id: teamId } });
  t.is(listed.body.find((k) => k.id === made.id)?.created_by, rotator.userId);

  // the former creator no longer holds a working secret: leaving takes nothing with it
  const left = await call('leaveTeam', { as: creator.session, params: { team_id: teamId } });
  t.deepEqual(left.body, { id: teamId, deleted: true, revoked_key_ids: [] });
  t.is((await call('getBalance', { as: rotated.body.key })).status, 200);
  // the rotator does: removing them revokes it
  const removed = await call('removeTeamMember', { as: owner.session, params: { team_id: teamId, user_id: rotator.userId } });
  t.deepEqual(removed.body, { id: rotator.userId, deleted: true, revoked_key_ids: [made.id] });
  t.is((await call('getBalance', { as: rotated.body.key })).status, 401);
});

test.serial('a replaced secret still in its grace period ends when the member who held it is removed, or erased; the rotator\'s stays', async (t) => {
  for (const how of ['removal', 'erasure'] as const) {
    const creator = await newAccount(gw, PERSONAL_CREDIT);
    const rotator = await newAccount(gw, PERSONAL_CREDIT);
    await addMember(creator, teamId, 'developer');
    await addMember(rotator, teamId, 'admin');
    const made = await teamKey(creator.session, teamId);
    const rotated = await call<Body & { key: string }>('rotateTeamApiKey', { as: rotator.session, params: { team_id: teamId, key_id: made.id }, body: { grace_seconds: 3600 } });
    t.is(rotated.status, 200);
    t.is((await call('getBalance', { as: made.key })).status, 200, `${how}: the replaced secret works in its grace period`);
    if (how === 'removal') {
      const removed = await call('removeTeamMember', { as: owner.session, params: { team_id: teamId, user_id: creator.userId } });
      t.deepEqual(removed.body, { id: creator.userId, deleted: true, revoked_key_ids: [] }, 'the key is the rotator\'s now: not revoked');
    } else {
      // an administrator erases the former holder while the grace period runs
      const admin = await newAccount(gw);
      await gw.app.db('users').where({ id: admin.userId }).update({ role: 'admin' });
      const email = String((await gw.app.db('users').where({ id: creator.userId }).first('email')).email);
      const erased = await call('adminDeleteUser', { as: admin.session, body: { email, reason: 'test' } });
      t.is(erased.status, 200, JSON.stringify(erased.body));
    }
    const refused = await call('getBalance', { as: made.key });
    t.is(refused.status, 401, `${how}: the replaced secret ends with its holder`);
    t.is((await call('getBalance', { as: rotated.body.key })).status, 200, `${how}: the key's current secret keeps working`);
  }
});

test.serial('rotating one\'s own team key, or a personal key, keeps its creator', async (t) => {
  const made = await teamKey(dev.session, teamId);
  const rotated = await call<Body & { created_by: number }>('rotateTeamApiKey', { as: dev.session, params: { team_id: teamId, key_id: made.id }, body: { grace_seconds: 0 } });
  t.is(rotated.status, 200);
  t.is(rotated.body.created_by, dev.userId);
  t.is(Number((await gw.app.db('api_keys').where({ id: made.id }).first()).user_id), dev.userId);
});

test.serial('a dead webhook delivery of a team prediction is redelivered by a member with team_id (generate), by nobody without it', async (t) => {
  const id = newPredictionId(Date.now());
  await gw.app.store.submit({ p: { id, userId: dev.userId, teamId, apiKeyId: null, model: MODEL, input: INPUT, price: 0, webhookUrl: 'https://example.invalid/hook' }, now: Date.now() });
  await gw.app.db('predictions').where({ id }).update({ status: 'failed', completed_at: Date.now() });
  const deliveryId = newDeliveryId();
  await insertDelivery(gw.app.db, { id: deliveryId, predictionId: id, userId: dev.userId, url: 'https://example.invalid/hook' }, Date.now());
  await gw.app.db('webhook_deliveries').where({ id: deliveryId }).update({ status: 'dead' });

  t.is((await call('redeliverWebhook', { as: dev.session, params: { id: deliveryId } })).status, 404, 'not the submitter\'s own without team_id');
  t.is((await call('redeliverWebhook', { as: stranger.session, params: { id: deliveryId }, query: { team_id: teamId } })).status, 404);
  const viewerTry = await call('redeliverWebhook', { as: viewer.session, params: { id: deliveryId }, query: { team_id: teamId } });
  t.is(viewerTry.status, 403);
  t.regex(String(viewerTry.body.detail), /lacks the "generate" permission/);
  const again = await call('redeliverWebhook', { as: owner.session, params: { id: deliveryId }, query: { team_id: teamId } });
  t.is(again.status, 202);
  t.deepEqual(again.body, { id: deliveryId, status: 'pending' });
});

test.serial('the balance route reads the team wallet with team_id (read_balance) or a team key, and the personal one otherwise', async (t) => {
  const team = await getTeamBalance(gw.app.db, teamId);
  const { key } = await teamKey(owner.session, teamId);
  for (const [as, query] of [[key, {}], [key, { team_id: teamId }], [dev.session, { team_id: teamId }]] as Array<[string, Record<string, number>]>) {
    const res = await call<Body>('getBalance', { as, query });
    t.is(res.status, 200);
    t.is(res.body.balance, team.balance);
    t.is(res.body.held, team.held);
  }
  t.is((await call<Body>('getBalance', { as: dev.session })).body.balance, PERSONAL_CREDIT);
  const viewerTry = await call('getBalance', { as: viewer.session, query: { team_id: teamId } });
  t.is(viewerTry.status, 403);
  t.regex(String(viewerTry.body.detail), /lacks the "read_balance" permission/);
  t.is((await call('getBalance', { as: stranger.session, query: { team_id: teamId } })).status, 404);
  t.is((await call('getBalance', { as: key, query: { team_id: otherTeamId } })).status, 403);
});

test('an OAuth token acts for a team its owner is a member of, with the operation\'s permission and scope', async (t) => {
  const token = await tokenFor(gw, await createClient(gw, dev.session, ['generate:write', 'keys:manage'], 'team machine'));
  const submit = await call<{ request_id: string }>(MODEL, { as: token, body: INPUT, query: { team_id: teamId } });
  t.is(submit.status, 200);
  t.is(Number((await gw.app.db('predictions').where({ id: submit.body.request_id }).first()).team_id), teamId);
  t.is((await call(MODEL, { as: token, body: INPUT, query: { team_id: otherTeamId } })).status, 404);
  const created = await call<Body>('createTeamApiKey', { as: token, params: { team_id: teamId }, body: { name: 'from a token' } });
  t.is(created.status, 201);
  t.deepEqual(created.body.scopes, ['generate:write', 'keys:manage'], 'a key created by a token carries at most its scopes');
});

test.serial('the team ledger shows a member without read_balance its rows without the balance, discounts or what credited the wallet', async (t) => {
  type Row = { kind: string; amount: number | null; balance_after: number | null; description: string | null; request_id: string | null; list_price: number | null; discount_percent: number | null; charged: number | null };
  const ledger = async (as: string) => {
    const res = await call<{ items: Row[]; total: number }>('listCreditTransactions', { as, query: { team_id: teamId, page_size: 100 } });
    t.is(res.status, 200);
    return res.body;
  };
  // a run on the team wallet: its hold and charge are rows too
  const run = await call<{ request_id: string }>(MODEL, { as: dev.session, body: INPUT, query: { team_id: teamId } });
  t.is(run.status, 200);
  await completed(run.body.request_id);
  const full = await ledger(dev.session);
  const hidden = await ledger(viewer.session);
  t.is(hidden.total, full.total, 'the viewer reads every row');
  t.deepEqual(hidden.items.map((r) => r.kind), full.items.map((r) => r.kind));
  t.true(full.items.some((r) => r.kind === 'topup' && r.amount === TEAM_CREDIT && r.description === 'test credit'));
  t.true(full.items.some((r) => r.kind === 'prediction'));
  t.true(full.items.every((r) => typeof r.balance_after === 'number'));
  for (const [i, r] of hidden.items.entries()) {
    const whole = full.items[i]!;
    t.is(r.balance_after, null);
    t.is(r.list_price, null);
    t.is(r.discount_percent, null);
    if (whole.request_id === null) {
      // a top-up, purchase or grant: what was put in the wallet is the balance's business
      t.is(r.amount, null);
      t.is(r.description, null);
    } else {
      // a run's hold, charge or release: history the viewer reads anyway
      t.like(r, { amount: whole.amount, description: whole.description, request_id: whole.request_id, charged: whole.charged });
    }
  }
  // a team key holds read_balance: the whole row
  const { key } = await teamKey(owner.session, teamId);
  t.deepEqual((await ledger(key)).items, full.items);
});
