// An owner's sandbox webhook signing secret, over HTTP on MariaDB and RabbitMQ with a worker in the
// process and real receivers: a sandbox key reads and rotates it and never the production one; a
// session (or a production key) reads and rotates the production one, and the sandbox one with
// sandbox=true; a sandbox prediction's delivery is signed with the sandbox secret only, a
// production one's with the production secret only, for an account and for a team alike.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import type { CallOptions } from '../helpers/operation.ts';
import { deliveredTo, startReceiver, verifiesWith } from '../helpers/receiver.ts';
import { creditTeam } from '../../db/wallet/moves.ts';

const MODEL = 'canvas-v1-fast-text-to-image';
const INPUT = { prompt: 'which secret', width: 64, height: 64 };

let gw: TestGateway;

interface SecretBody { secret: string; sandbox: boolean; previous: unknown[] }
const call = <T = Record<string, unknown>>(operationId: string, opts: CallOptions) => callOperation<T>(gw, operationId, opts);

async function secretOf(as: string, query: CallOptions['query'] = {}): Promise<SecretBody> {
  const res = await call<SecretBody>('getWebhookSecret', { as, query });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body;
}

/** Submits with a webhook to a fresh receiver and resolves with the one delivery it gets. */
const delivered = (t: { teardown(fn: () => Promise<void>): void }, as: string, query: Record<string, string | number> = {}) => deliveredTo(gw, t, as, MODEL, INPUT, query);
const verifies = verifiesWith;

test.before(async () => {
  gw = await startGateway({ worker: true, env: { WEBHOOK_ALLOW_INSECURE: 'true' } });
});
test.after.always(async () => {
  await gw?.stop();
});

test('a sandbox key reads the sandbox secret, never the session\'s; a session or production key reads it with sandbox=true', async (t) => {
  const a = await newAccount(gw, 0);
  const production = await secretOf(a.session);
  t.false(production.sandbox);
  t.is((await secretOf(a.liveKey)).secret, production.secret);
  t.is((await secretOf(a.session, { sandbox: false })).secret, production.secret);
  const sandbox = await secretOf(a.testKey);
  t.true(sandbox.sandbox);
  t.regex(sandbox.secret, /^whsec_/);
  t.not(sandbox.secret, production.secret);
  t.deepEqual(await secretOf(a.testKey, { sandbox: true }), sandbox);
  t.deepEqual(await secretOf(a.session, { sandbox: true }), sandbox);
  t.deepEqual(await secretOf(a.liveKey, { sandbox: true }), sandbox);

  // a sandbox key asking for the production secret is refused, not answered with the other one
  for (const operationId of ['getWebhookSecret', 'rotateWebhookSecret']) {
    const refused = await call(operationId, { as: a.testKey, query: { sandbox: false } });
    t.is(refused.status, 403);
    t.is(refused.body.code, 'forbidden');
    t.regex(String(refused.body.detail), /sandbox key can read and rotate only the sandbox signing secret/);
  }
  t.is((await secretOf(a.session)).secret, production.secret, 'nothing rotated');
});

test('a sandbox key\'s rotation replaces the sandbox secret only; a session rotates it with sandbox=true, and the production one without', async (t) => {
  const a = await newAccount(gw, 0);
  const production = (await secretOf(a.session)).secret;
  const sandbox = (await secretOf(a.testKey)).secret;

  const byKey = await call<SecretBody>('rotateWebhookSecret', { as: a.testKey });
  t.is(byKey.status, 200);
  t.true(byKey.body.sandbox);
  t.not(byKey.body.secret, sandbox);
  t.is(byKey.body.previous.length, 1, 'the sandbox secret it replaced keeps signing for a while');
  t.is((await secretOf(a.session)).secret, production, 'the production secret is unchanged');
  t.deepEqual((await secretOf(a.session)).previous, []);

  const bySession = await call<SecretBody>('rotateWebhookSecret', { as: a.session, query: { sandbox: true } });
  t.is(bySession.status, 200);
  t.true(bySession.body.sandbox);
  t.not(bySession.body.secret, byKey.body.secret);
  t.is((await secretOf(a.testKey)).secret, bySession.body.secret);
  t.is((await secretOf(a.session)).secret, production);

  const productionRotated = await call<SecretBody>('rotateWebhookSecret', { as: a.session });
  t.is(productionRotated.status, 200);
  t.false(productionRotated.body.sandbox);
  t.not(productionRotated.body.secret, production);
  t.is((await secretOf(a.testKey)).secret, bySession.body.secret, 'the sandbox secret is unchanged');
});

test.serial('a sandbox prediction\'s delivery verifies with the sandbox secret and not the production one; a production delivery the other way round', async (t) => {
  const a: Account = await newAccount(gw, 10_000);
  const production = (await secretOf(a.session)).secret;
  const sandbox = (await secretOf(a.testKey)).secret;

  const bySandboxKey = await delivered(t, a.testKey);
  t.true(verifies(sandbox, bySandboxKey));
  t.false(verifies(production, bySandboxKey));
  t.is(String(bySandboxKey.headers['webhook-signature']).split(' ').length, 1);

  const byLiveKey = await delivered(t, a.liveKey);
  t.true(verifies(production, byLiveKey));
  t.false(verifies(sandbox, byLiveKey));
  t.is(String(byLiveKey.headers['webhook-signature']).split(' ').length, 1);

  // a test event: a sandbox key's is signed as its predictions' deliveries are
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  for (const key of [a.testKey, a.liveKey]) t.is((await call('sendWebhookTest', { as: key, body: { url: receiver.url } })).status, 200);
  t.true(verifies(sandbox, receiver.received[0]!));
  t.false(verifies(production, receiver.received[0]!));
  t.true(verifies(production, receiver.received[1]!));
  t.false(verifies(sandbox, receiver.received[1]!));
});

test.serial('a team\'s sandbox prediction is signed with the team\'s sandbox secret, its production one with the team\'s production secret', async (t) => {
  const owner = await newAccount(gw, 0);
  const created = await call('createTeam', { as: owner.session, body: { name: 'Modes' } });
  t.is(created.status, 201);
  const teamId = Number(created.body.id);
  await gw.app.db.transaction((trx) => creditTeam(trx, teamId, owner.userId, 10_000, 'topup', 'test credit', Date.now()));
  const key = async (isTest: boolean) => (await call<{ key: string }>('createTeamApiKey', { as: owner.session, params: { team_id: teamId }, body: { name: 'ci', is_test: isTest } })).body.key;
  const [liveKey, testKey] = [await key(false), await key(true)];
  const production = (await secretOf(owner.session, { team_id: teamId })).secret;
  const sandbox = await secretOf(testKey);
  t.true(sandbox.sandbox);
  t.deepEqual(await secretOf(owner.session, { team_id: teamId, sandbox: true }), sandbox);
  t.not(sandbox.secret, production);
  t.not(sandbox.secret, (await secretOf(owner.testKey)).secret, 'never the member\'s own sandbox secret');

  const sandboxDelivery = await delivered(t, testKey);
  t.true(verifies(sandbox.secret, sandboxDelivery));
  t.false(verifies(production, sandboxDelivery));
  const productionDelivery = await delivered(t, liveKey);
  t.true(verifies(production, productionDelivery));
  t.false(verifies(sandbox.secret, productionDelivery));
});

test('a session or a production key sends a test event signed with the sandbox secret with sandbox=true; a sandbox key is refused sandbox=false', async (t) => {
  const a = await newAccount(gw, 0);
  const production = (await secretOf(a.session)).secret;
  const sandbox = (await secretOf(a.testKey)).secret;
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const test = async (as: string, query: CallOptions['query'] = {}) => {
    const res = await call('sendWebhookTest', { as, query, body: { url: receiver.url } });
    t.is(res.status, 200, JSON.stringify(res.body));
    t.true(res.body.delivered);
    const got = receiver.received.find((r) => r.headers['webhook-id'] === res.body.webhook_id)!;
    return { got, event: JSON.parse(got.body) as { type: string; message: string } };
  };

  for (const as of [a.session, a.liveKey]) {
    const { got, event } = await test(as, { sandbox: true });
    t.true(verifies(sandbox, got));
    t.false(verifies(production, got));
    t.is(event.type, 'webhook.test');
    // the event says which secret signed it
    t.regex(event.message, /sandbox signing secret/);
    const explicit = await test(as, { sandbox: false });
    t.true(verifies(production, explicit.got));
    t.false(verifies(sandbox, explicit.got));
    t.regex(explicit.event.message, /production signing secret/);
  }
  // a sandbox key: the sandbox secret with or without sandbox=true, and sandbox=false is refused
  t.true(verifies(sandbox, (await test(a.testKey, { sandbox: true })).got));
  const before = receiver.received.length;
  const refused = await call('sendWebhookTest', { as: a.testKey, query: { sandbox: false }, body: { url: receiver.url } });
  t.is(refused.status, 403);
  t.is(refused.body.code, 'forbidden');
  t.regex(String(refused.body.detail), /sandbox key/);
  t.is(receiver.received.length, before, 'nothing was sent');
});

test('a team\'s test event with sandbox=true is signed with the team\'s sandbox secret, not the member\'s nor the team\'s production one', async (t) => {
  const owner = await newAccount(gw, 0);
  const created = await call('createTeam', { as: owner.session, body: { name: 'Test events' } });
  t.is(created.status, 201);
  const teamId = Number(created.body.id);
  const production = (await secretOf(owner.session, { team_id: teamId })).secret;
  const sandbox = (await secretOf(owner.session, { team_id: teamId, sandbox: true })).secret;
  const own = (await secretOf(owner.session, { sandbox: true })).secret;
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const res = await call('sendWebhookTest', { as: owner.session, query: { team_id: teamId, sandbox: true }, body: { url: receiver.url } });
  t.is(res.status, 200, JSON.stringify(res.body));
  const got = receiver.received[0]!;
  t.true(verifies(sandbox, got));
  t.false(verifies(production, got));
  t.false(verifies(own, got));
});
