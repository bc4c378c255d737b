// A team's own webhook signing secret, over HTTP on MariaDB and RabbitMQ with a worker in the
// process and real receivers: revealed and rotated with team_id (manage_keys), and the one that
// signs every delivery of the team's predictions, never a member's personal secret.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import type { CallOptions } from '../helpers/operation.ts';
import { waitFor } from '../helpers/services.ts';
import { deliveredTo, startReceiver, verifiesWith } from '../helpers/receiver.ts';
import { creditTeam } from '../../db/wallet/moves.ts';
import { newPredictionId } from '../../db/predictions/record.ts';
import { insertDelivery, newDeliveryId } from '../../db/webhooks.ts';

const MODEL = 'canvas-v1-fast-text-to-image';
const INPUT = { prompt: 'team hook', width: 64, height: 64 };

let gw: TestGateway;
let owner: Account;
let dev: Account;
let viewer: Account;
let stranger: Account;

type Body = Record<string, unknown>;
interface SecretBody { secret: string; previous: unknown[] }
const call = <T = Body>(operationId: string, opts: CallOptions) => callOperation<T>(gw, operationId, opts);

/** A team of owner, dev (developer) and viewer, with credit on its wallet. */
async function newTeam(name: string): Promise<number> {
  const res = await call('createTeam', { as: owner.session, body: { name } });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  const teamId = Number(res.body.id);
  for (const [who, role] of [[dev, 'developer'], [viewer, 'viewer']] as const) {
    await gw.app.db('team_members').insert({ team_id: teamId, user_id: who.userId, role, created_at: Date.now() });
  }
  await gw.app.db.transaction((trx) => creditTeam(trx, teamId, owner.userId, 10_000, 'topup', 'test credit', Date.now()));
  return teamId;
}

async function teamKey(teamId: number, isTest = false): Promise<string> {
  const res = await call<{ key: string }>('createTeamApiKey', { as: dev.session, params: { team_id: teamId }, body: { name: 'ci', is_test: isTest } });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.key;
}

async function secretOf(as: string, teamId?: number): Promise<string> {
  const res = await call<SecretBody>('getWebhookSecret', { as, ...(teamId === undefined ? {} : { query: { team_id: teamId } }) });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.secret;
}

/** Submits with a webhook to a fresh receiver and resolves with the one delivery it gets. */
const delivered = (t: { teardown(fn: () => Promise<void>): void }, as: string, query: Record<string, string | number> = {}) => deliveredTo(gw, t, as, MODEL, INPUT, query);
const verifies = verifiesWith;

test.before(async () => {
  gw = await startGateway({ worker: true, env: { WEBHOOK_ALLOW_INSECURE: 'true' } });
  [owner, dev, viewer, stranger] = [await newAccount(gw, 10_000), await newAccount(gw, 10_000), await newAccount(gw, 10_000), await newAccount(gw, 10_000)];
});
test.after.always(async () => {
  await gw?.stop();
});

test('team_id reveals the team\'s own secret to a manage_keys member and to the team\'s key; a viewer gets 403, a non-member 404', async (t) => {
  const teamId = await newTeam('Reveal');
  const team = await secretOf(owner.session, teamId);
  t.regex(team, /^whsec_/);
  t.is(await secretOf(dev.liveKey, teamId), team, 'the same secret for every member');
  t.not(await secretOf(owner.session), team, 'without team_id: the account\'s own');
  t.not(await secretOf(dev.session), team);
  const key = await teamKey(teamId);
  t.is(await secretOf(key), team, 'a team key without team_id acts for its team');
  t.is(await secretOf(key, teamId), team);

  const denied = await call('getWebhookSecret', { as: viewer.session, query: { team_id: teamId } });
  t.is(denied.status, 403);
  t.deepEqual(denied.body, { detail: 'your role in this team (viewer) lacks the "manage_keys" permission', code: 'forbidden' });
  t.is((await call('rotateWebhookSecret', { as: viewer.session, query: { team_id: teamId } })).status, 403);
  const hidden = await call('getWebhookSecret', { as: stranger.session, query: { team_id: teamId } });
  t.is(hidden.status, 404);
  t.deepEqual(hidden.body, { detail: 'team not found', code: 'not_found' });
  t.is((await call('rotateWebhookSecret', { as: stranger.liveKey, query: { team_id: teamId } })).status, 404);
  const otherTeam = await newTeam('Other');
  t.is((await call('getWebhookSecret', { as: key, query: { team_id: otherTeam } })).status, 403, 'a team key names no other team');

  // sealed at rest, in the team's own table
  const rows = await gw.app.db('team_webhook_secrets').where({ team_id: teamId });
  t.is(rows.length, 1);
  t.false(JSON.stringify(rows).includes(team.slice('whsec_'.length)));
});

test('first uses at once create one team secret: the teams row serialises them', async (t) => {
  const teamId = await newTeam('Race');
  const secrets = await Promise.all([owner.session, dev.session, owner.liveKey, dev.liveKey, owner.session].map((as) => secretOf(as, teamId)));
  t.is(new Set(secrets).size, 1);
  t.is((await gw.app.db('team_webhook_secrets').where({ team_id: teamId })).length, 1);
});

test('rotating with team_id replaces the team\'s secret only; a sandbox team key rotates the team\'s sandbox secret, never the production one', async (t) => {
  const teamId = await newTeam('Rotate');
  const before = await secretOf(owner.session, teamId);
  const personal = await secretOf(dev.session);
  const rotated = await call<SecretBody>('rotateWebhookSecret', { as: dev.session, query: { team_id: teamId } });
  t.is(rotated.status, 200);
  t.not(rotated.body.secret, before);
  t.is(rotated.body.previous.length, 1);
  t.is(await secretOf(owner.session, teamId), rotated.body.secret);
  t.is(await secretOf(dev.session), personal, 'the member\'s own secret is untouched');
  const sandboxKey = await teamKey(teamId, true);
  const sandboxBefore = await secretOf(sandboxKey);
  t.not(sandboxBefore, rotated.body.secret);
  const sandbox = await call<SecretBody & { sandbox: boolean }>('rotateWebhookSecret', { as: sandboxKey });
  t.is(sandbox.status, 200);
  t.true(sandbox.body.sandbox);
  t.not(sandbox.body.secret, sandboxBefore);
  t.is(await secretOf(sandboxKey), sandbox.body.secret);
  t.is(await secretOf(owner.session, teamId), rotated.body.secret, 'the team\'s production secret is unchanged');
});

test.serial('a team prediction\'s delivery is signed with the team\'s secret, not the member\'s nor the key creator\'s; a personal one with the account\'s', async (t) => {
  const teamId = await newTeam('Deliveries');
  const team = await secretOf(owner.session, teamId);
  const devPersonal = await secretOf(dev.session);

  const byMember = await delivered(t, dev.session, { team_id: teamId });
  t.true(verifies(team, byMember));
  t.false(verifies(devPersonal, byMember), 'never the submitting member\'s own secret');
  t.is(String(byMember.headers['webhook-signature']).split(' ').length, 1);

  const byKey = await delivered(t, await teamKey(teamId));
  t.true(verifies(team, byKey));
  t.false(verifies(devPersonal, byKey), 'never the key creator\'s own secret');

  const personal = await delivered(t, dev.session);
  t.true(verifies(devPersonal, personal));
  t.false(verifies(team, personal));
});

test.serial('after a team rotation its deliveries carry two signatures, by the new and by the previous team secret', async (t) => {
  const teamId = await newTeam('Overlap');
  const before = await secretOf(owner.session, teamId);
  const rotated = await call<SecretBody>('rotateWebhookSecret', { as: owner.session, query: { team_id: teamId } });
  t.is(rotated.status, 200);
  const r = await delivered(t, dev.session, { team_id: teamId });
  t.is(String(r.headers['webhook-signature']).split(' ').length, 2);
  t.true(verifies(before, r));
  t.true(verifies(rotated.body.secret, r));
});

test('a member removed from the team can no longer reveal or rotate its secret (404)', async (t) => {
  const teamId = await newTeam('Leaver');
  const leaver = await newAccount(gw, 0);
  await gw.app.db('team_members').insert({ team_id: teamId, user_id: leaver.userId, role: 'developer', created_at: Date.now() });
  const team = await secretOf(leaver.session, teamId);
  const removed = await call('removeTeamMember', { as: owner.session, params: { team_id: teamId, user_id: leaver.userId } });
  t.is(removed.status, 200);
  for (const as of [leaver.session, leaver.liveKey]) {
    t.is((await call('getWebhookSecret', { as, query: { team_id: teamId } })).status, 404);
    t.is((await call('rotateWebhookSecret', { as, query: { team_id: teamId } })).status, 404);
  }
  t.is(await secretOf(owner.session, teamId), team, 'the team\'s secret is unchanged');
});

test('deleting a team drops its secrets, and a delivery of its still pending is dead, never signed with a new one', async (t) => {
  const res = await call('createTeam', { as: owner.session, body: { name: 'Short-lived' } });
  const teamId = Number(res.body.id);
  await secretOf(owner.session, teamId);
  t.is((await gw.app.db('team_webhook_secrets').where({ team_id: teamId })).length, 1);
  t.is((await call('deleteTeam', { as: owner.session, params: { team_id: teamId } })).status, 200);
  t.is((await gw.app.db('team_webhook_secrets').where({ team_id: teamId })).length, 0);

  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const id = newPredictionId(Date.now());
  await gw.app.store.submit({ p: { id, userId: owner.userId, teamId, apiKeyId: null, model: MODEL, input: INPUT, price: 0, webhookUrl: receiver.url }, now: Date.now() });
  await gw.app.db('predictions').where({ id }).update({ status: 'failed', completed_at: Date.now() });
  const deliveryId = newDeliveryId();
  await insertDelivery(gw.app.db, { id: deliveryId, predictionId: id, userId: owner.userId, url: receiver.url }, Date.now());
  await gw.app.dispatcher.dispatchWebhook(deliveryId);
  const dead = await waitFor(async () => gw.app.db('webhook_deliveries').where({ id: deliveryId, status: 'dead' }).first(), { what: 'the delivery dead' });
  t.is(dead.last_error, 'the team was deleted: no secret to sign with');
  t.is(receiver.received.length, 0);
  t.is((await gw.app.db('team_webhook_secrets').where({ team_id: teamId })).length, 0);
});

/** A failed prediction of the team (free, submitted as dev) and its delivery to `url`, published; its delivery's id. */
async function failedTeamDelivery(teamId: number, url: string): Promise<string> {
  const id = newPredictionId(Date.now());
  await gw.app.store.submit({ p: { id, userId: dev.userId, teamId, apiKeyId: null, model: MODEL, input: INPUT, price: 0, webhookUrl: url }, now: Date.now() });
  await gw.app.db('predictions').where({ id }).update({ status: 'failed', completed_at: Date.now() });
  const deliveryId = newDeliveryId();
  await insertDelivery(gw.app.db, { id: deliveryId, predictionId: id, userId: dev.userId, url }, Date.now());
  await gw.app.dispatcher.dispatchWebhook(deliveryId);
  return deliveryId;
}

test.serial('a delivery of a team deleted moments after one of its deliveries was signed is dead, not signed with the secret this process had read', async (t) => {
  const res = await call('createTeam', { as: owner.session, body: { name: 'Just deleted' } });
  const teamId = Number(res.body.id);
  await gw.app.db('team_members').insert({ team_id: teamId, user_id: dev.userId, role: 'developer', created_at: Date.now() });
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  // a delivery signed now: the worker holds the team's secret for a few seconds
  await failedTeamDelivery(teamId, receiver.url);
  await waitFor(() => receiver.received.length === 1, { what: 'the first delivery' });
  t.is((await call('deleteTeam', { as: owner.session, params: { team_id: teamId } })).status, 200);

  const deliveryId = await failedTeamDelivery(teamId, receiver.url);
  const settled = await waitFor(async () => gw.app.db('webhook_deliveries').where({ id: deliveryId }).whereNot('status', 'pending').first(), { what: 'the delivery settled' });
  t.is(settled.status, 'dead');
  t.is(settled.last_error, 'the team was deleted: no secret to sign with');
  t.is(receiver.received.length, 1, 'nothing more goes to the URL of a deleted team');
});
