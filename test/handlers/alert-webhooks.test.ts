// Alerts as signed webhook events (issue 38), through the real worker, RabbitMQ and MariaDB to real
// local receivers: the alert webhook URL in the settings (personal and team, the destination
// policy's 422); a crossing under concurrent submits sends exactly one mail and one signed event;
// the delivery log lists it (event type, no prediction, the receiver's answer's excerpt) and
// redelivery sends it again; the test alert; a top-up re-arms the low-balance alert; a team's
// alert is signed with the team's secret and logged for the team; a key's soft-limit alert goes
// to the key's owner (a studio's user, a member), not the wallet that paid; the sweeper publishes
// a lost alert delivery; one queued for a URL since changed or removed (by its owner, or with the
// account's take-back by the mailbox owner) is not sent; the log's pages skip nothing that shares a
// millisecond, on MariaDB and SQLite.
import test from 'ava';
import crypto from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { createClient, tokenFor } from '../helpers/oauth.ts';
import { callOperation } from '../helpers/operation.ts';
import { startSmtp } from '../helpers/smtp.ts';
import type { SmtpCapture } from '../helpers/smtp.ts';
import { waitFor } from '../helpers/services.ts';
import { startReceiver } from '../helpers/receiver.ts';
import type { Receiver } from '../helpers/receiver.ts';
import { ledgerCheckedAfterEach } from '../helpers/ledger.ts';
import { adminTopUp } from '../../db/wallet/admin.ts';
import { creditTeam } from '../../db/wallet/moves.ts';
import { newDeliveryId } from '../../db/webhooks.ts';

const MODEL = 'canvas-v1-fast-text-to-image';
/** alerts are mailed to verified addresses only */
const VERIFIED = { emailVerified: true };
const BODY = { prompt: 'a kite', width: 64, height: 64 };
const BACKOFF = 100;

let smtp: SmtpCapture;
let gw: TestGateway;
let lite: TestGateway;
let price: number;
test.before(async () => {
  smtp = await startSmtp();
  const env = {
    SMTP_URL: smtp.url, MAIL_FROM: 'mediagate <alerts@gateway.test>', WEBHOOK_ALLOW_INSECURE: 'true',
    WEBHOOK_RETRY_SCHEDULE_MS: `${BACKOFF},${BACKOFF * 5},${BACKOFF * 21}`, WEBHOOK_TIMEOUT_MS: '2000',
  };
  gw = await startGateway({ worker: true, env });
  lite = await startGateway({ db: 'sqlite', queue: 'memory', worker: true, env });
  const acct = await newAccount(gw, 0, VERIFIED);
  price = (await callOperation<{ cost: number }>(gw, 'calculateDynamicCost', { as: acct.session, body: { model: MODEL, input: BODY } })).body.cost;
});
test.after.always(async () => {
  await gw?.stop();
  await lite?.stop();
  await smtp?.close();
});
ledgerCheckedAfterEach(test, () => gw?.app.db);

interface AlertEvent { type: string; id: string; team_id: number | null; alert: { id: number | null; kind: string; threshold: number; value: number; period: string }; message: string }
interface LogItem {
  id: string; event_type: string; prediction_id: string | null; status: string; created_at: string;
  attempt_log: Array<{ status_code: number | null; response_excerpt: string | null }>;
}
interface Log { items: LogItem[]; next_before: string | null }

async function receiver(respond?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  return startReceiver(respond);
}

async function secretOf(g: TestGateway, as: string, teamId?: number, headers: Record<string, string> = {}): Promise<string> {
  return (await callOperation<{ secret: string }>(g, 'getWebhookSecret', { as, headers, ...(teamId === undefined ? {} : { query: { team_id: teamId } }) })).body.secret;
}

function verified(secret: string, r: Receiver['received'][number]): AlertEvent {
  return new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as AlertEvent;
}

async function submit(g: TestGateway, key: string) {
  const res = await g.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': key }, payload: BODY });
  if (res.statusCode !== 200) throw new Error(res.payload);
  return res;
}

async function setAlerts(g: TestGateway, a: Account, body: Record<string, unknown>, teamId?: number) {
  const res = await callOperation(g, 'updateAlertSettings', { as: a.session, body, ...(teamId === undefined ? {} : { query: { team_id: teamId } }) });
  if (res.status !== 200) throw new Error(res.raw.payload);
  return res;
}

async function log(g: TestGateway, a: Account, query: Record<string, string | number> = {}) {
  return callOperation<Log>(g, 'listWebhookDeliveries', { as: a.session, query });
}

test('the alert webhook URL is set and read per wallet, personal and team; a URL the destination policy refuses is 422', async (t) => {
  const a = await newAccount(gw, 0, VERIFIED);
  t.deepEqual((await callOperation(gw, 'getAlertSettings', { as: a.session })).body, { low_balance_threshold: null, monthly_budget: null, monthly_budget_mode: 'soft', webhook_url: null });
  await setAlerts(gw, a, { low_balance_threshold: 10, webhook_url: 'https://hooks.example.com/alerts' });
  t.is((await callOperation<{ webhook_url: string }>(gw, 'getAlertSettings', { as: a.liveKey })).body.webhook_url, 'https://hooks.example.com/alerts');
  for (const bad of ['ftp://hooks.example.com/alerts', 'not a url']) {
    const res = await callOperation<{ detail: Array<{ loc: string[]; msg: string }> }>(gw, 'updateAlertSettings', { as: a.session, body: { webhook_url: bad } });
    t.is(res.status, 422, bad);
    t.deepEqual(res.body.detail[0]!.loc, ['body', 'webhook_url']);
  }
  // unchanged by the refused ones
  t.is((await callOperation<{ webhook_url: string }>(gw, 'getAlertSettings', { as: a.session })).body.webhook_url, 'https://hooks.example.com/alerts');

  const team = await callOperation<{ id: number }>(gw, 'createTeam', { as: a.session, body: { name: 'alert team' } });
  const teamId = team.body.id;
  await setAlerts(gw, a, { webhook_url: 'https://hooks.example.com/team-alerts' }, teamId);
  t.is((await callOperation<{ webhook_url: string }>(gw, 'getAlertSettings', { as: a.session, query: { team_id: teamId } })).body.webhook_url, 'https://hooks.example.com/team-alerts');
  t.is((await callOperation<{ webhook_url: string }>(gw, 'getAlertSettings', { as: a.session })).body.webhook_url, 'https://hooks.example.com/alerts');
  // null: by email only again
  await setAlerts(gw, a, { low_balance_threshold: 10 });
  t.is((await callOperation<{ webhook_url: string | null }>(gw, 'getAlertSettings', { as: a.session })).body.webhook_url, null);
});

test('concurrent submits that cross the low-balance line send exactly one mail and one signed alert event, listed in the delivery log', async (t) => {
  const hook = await receiver(() => ({ status: 200, body: 'thanks\nsee you' }));
  t.teardown(() => hook.close());
  const a = await newAccount(gw, price * 20, VERIFIED);
  const threshold = price * 10 + 1;
  await setAlerts(gw, a, { low_balance_threshold: threshold, webhook_url: hook.url });
  const replies = await Promise.all(Array.from({ length: 16 }, () => submit(gw, a.liveKey)));
  t.is(replies.length, 16);
  await waitFor(() => hook.received.length > 0, { what: 'the alert event' });
  // every submit's check has run once their predictions are done: wait for them, then one more submit (still below) and its check
  await waitFor(async () => (await gw.app.db('predictions').where({ user_id: a.userId }).whereIn('status', ['completed', 'failed'])).length === 16, { what: 'the runs', timeoutMs: 30_000 });
  await submit(gw, a.liveKey);
  const [delivery] = await waitFor(async () => {
    const rows = await gw.app.db('alert_deliveries').where({ user_id: a.userId });
    return rows.length > 0 && rows.every((r: { status: string }) => r.status === 'delivered') ? rows : undefined;
  }, { what: 'the delivery delivered' });
  t.is((await gw.app.db('alerts').where({ user_id: a.userId })).length, 1);
  t.is((await gw.app.db('alert_deliveries').where({ user_id: a.userId })).length, 1);
  const email = (await gw.app.db('users').where({ id: a.userId }).first<{ email: string }>())!.email;
  const mails = () => smtp.messages.filter((m) => m.to.includes(email.toLowerCase()) && /^Subject: mediagate: low balance/m.test(m.raw));
  await waitFor(() => mails().length > 0, { what: 'the mail' });
  t.is(mails().length, 1);
  t.is(hook.received.length, 1);

  const event = verified(await secretOf(gw, a.session), hook.received[0]!);
  t.is(event.type, 'alert.low_balance');
  t.is(event.id, String(hook.received[0]!.headers['webhook-id']));
  t.is(event.id, delivery.id);
  t.is(event.team_id, null);
  t.is(event.alert.kind, 'low_balance');
  t.is(event.alert.threshold, threshold);
  t.true(event.alert.value < threshold);
  t.regex(event.message, /below your low-balance alert/);

  const listed = await log(gw, a);
  t.is(listed.status, 200);
  t.is(listed.body.items.length, 1);
  const item = listed.body.items[0]!;
  t.like(item, { id: delivery.id, event_type: 'alert.low_balance', prediction_id: null, status: 'delivered' });
  t.is(item.attempt_log[0]!.status_code, 200);
  t.is(item.attempt_log[0]!.response_excerpt, 'thanks see you');

  // an alert tells when the balance crossed a line: a credential that may read the predictions
  // (generate:read) but not the account (account:read) lists the predictions' deliveries only
  const narrow = await tokenFor(gw, await createClient(gw, a.session, ['generate:read']));
  const wide = await tokenFor(gw, await createClient(gw, a.session, ['generate:read', 'account:read'], 'wide'));
  const scopedKey = await callOperation<{ key: string; id: number }>(gw, 'createApiKey', { as: a.session, body: { name: 'read', is_test: false } });
  t.is((await callOperation(gw, 'updateApiKey', { as: a.session, params: { key_id: scopedKey.body.id }, body: { scopes: ['generate:read'] } })).status, 200);
  for (const [as, ids] of [[narrow, []], [scopedKey.body.key, []], [wide, [delivery.id]]] as const) {
    const seen = await callOperation<Log>(gw, 'listWebhookDeliveries', { as });
    t.is(seen.status, 200);
    t.deepEqual(seen.body.items.map((i) => i.id), ids);
  }
  t.is((await callOperation(gw, 'listAlerts', { as: narrow })).status, 403);
});

test('an alert delivery the receiver answered 410 is redelivered with the same webhook-id, and a dead one by redeliver_dead; the excerpt shows its answer with control characters replaced', async (t) => {
  const hook = await receiver((n) => (n === 1 ? { status: 410, body: Buffer.from([0x67, 0x6f, 0x6e, 0x65, 0x00, 0x0a, 0x1b, 0xff, 0x21]) } : { status: 204 }));
  t.teardown(() => hook.close());
  const a = await newAccount(gw, price * 2, VERIFIED);
  await setAlerts(gw, a, { low_balance_threshold: price * 2, webhook_url: hook.url });
  await submit(gw, a.liveKey);
  const gone = await waitFor(async () => (await log(gw, a)).body.items.find((i) => i.status === 'gone'), { what: 'the delivery gone' });
  t.is(gone.attempt_log[0]!.status_code, 410);
  t.is(gone.attempt_log[0]!.response_excerpt, 'gone\ufffd \ufffd\ufffd!');
  const again = await callOperation<{ status: string }>(gw, 'redeliverWebhook', { as: a.session, params: { id: gone.id } });
  t.is(again.status, 202, again.raw.payload);
  const delivered = await waitFor(async () => (await log(gw, a)).body.items.find((i) => i.status === 'delivered'), { what: 'the redelivery' });
  t.is(delivered.id, gone.id);
  t.is(delivered.attempt_log.length, 2);
  t.is(delivered.attempt_log[1]!.response_excerpt, null);
  t.deepEqual(hook.received.map((r) => r.headers['webhook-id']), [gone.id, gone.id]);
  // after an outage, every dead delivery since a time goes again: alerts' too
  await gw.app.db('alert_deliveries').where({ id: gone.id }).update({ status: 'dead' });
  const dead = await callOperation<{ ids: string[]; more: boolean }>(gw, 'redeliverDeadWebhooks', { as: a.session, body: { since: new Date(Date.now() - 3_600_000).toISOString() } });
  t.is(dead.status, 202, dead.raw.payload);
  t.deepEqual(dead.body, { count: 1, ids: [gone.id], more: false });
  await waitFor(() => hook.received.length === 3, { what: 'the dead delivery sent again' });
  // a credential that may not list alerts' deliveries (no account:read) does not reach them to
  // redeliver either: its id is unknown, and redeliver_dead neither names nor sends it
  const generateOnly = await callOperation<{ key: string; id: number }>(gw, 'createApiKey', { as: a.session, body: { name: 'generate only', is_test: false } });
  t.is((await callOperation(gw, 'updateApiKey', { as: a.session, params: { key_id: generateOnly.body.id }, body: { scopes: ['generate:write'] } })).status, 200);
  await gw.app.db('alert_deliveries').where({ id: gone.id }).update({ status: 'dead' });
  t.is((await callOperation(gw, 'redeliverWebhook', { as: generateOnly.body.key, params: { id: gone.id } })).status, 404);
  const narrowDead = await callOperation(gw, 'redeliverDeadWebhooks', { as: generateOnly.body.key, body: { since: new Date(Date.now() - 3_600_000).toISOString() } });
  t.is(narrowDead.status, 202, narrowDead.raw.payload);
  t.deepEqual(narrowDead.body, { count: 0, ids: [], more: false });
  t.is((await gw.app.db('alert_deliveries').where({ id: gone.id }).first<{ status: string }>())!.status, 'dead');
  t.is(hook.received.length, 3);
  // another account's delivery id is unknown; a sandbox key reaches no alert's
  const b = await newAccount(gw, 0, VERIFIED);
  t.is((await callOperation(gw, 'redeliverWebhook', { as: b.session, params: { id: gone.id } })).status, 404);
  t.is((await callOperation(gw, 'redeliverWebhook', { as: a.testKey, params: { id: gone.id } })).status, 404);
  t.deepEqual((await log(gw, b)).body.items, []);
  t.deepEqual((await callOperation<Log>(gw, 'listWebhookDeliveries', { as: a.testKey })).body.items, []);
});

test('a test alert goes to the saved URL or the one given, signed with the wallet\'s secret (a team\'s with team_id); without a URL it is 422', async (t) => {
  const hook = await receiver();
  t.teardown(() => hook.close());
  const a = await newAccount(gw, 0, VERIFIED);
  const none = await callOperation<{ detail: Array<{ loc: string[]; msg: string }> }>(gw, 'sendAlertTest', { as: a.session, body: {} });
  t.is(none.status, 422);
  t.regex(none.body.detail[0]!.msg, /no alert webhook URL is saved/);
  t.is((await callOperation(gw, 'sendAlertTest', { as: a.session, body: { url: 'ftp://hooks.example.com/x' } })).status, 422);
  // a sandbox key never gets anything signed with the production secret
  const sandbox = await callOperation<{ code: string }>(gw, 'sendAlertTest', { as: a.testKey, body: { url: hook.url } });
  t.is(sandbox.status, 403);
  t.is(hook.received.length, 0);

  await setAlerts(gw, a, { low_balance_threshold: 500, webhook_url: hook.url });
  const sent = await callOperation<{ delivered: boolean; status_code: number; webhook_id: string }>(gw, 'sendAlertTest', { as: a.session, body: {} });
  t.is(sent.status, 200, sent.raw.payload);
  t.like(sent.body, { delivered: true, status_code: 200 });
  const personal = await secretOf(gw, a.session);
  const event = verified(personal, hook.received[0]!);
  t.is(event.type, 'alert.test');
  t.is(event.id, sent.body.webhook_id);
  t.like(event.alert, { id: null, kind: 'low_balance', threshold: 500 });
  t.regex(event.message, /^A test alert/);
  // nothing recorded
  t.deepEqual((await log(gw, a)).body.items, []);

  const team = await callOperation<{ id: number }>(gw, 'createTeam', { as: a.session, body: { name: 'test alert team' } });
  const teamId = team.body.id;
  const forTeam = await callOperation<{ delivered: boolean }>(gw, 'sendAlertTest', { as: a.session, query: { team_id: teamId }, body: { url: hook.url } });
  t.true(forTeam.body.delivered);
  const teamEvent = verified(await secretOf(gw, a.session, teamId), hook.received[1]!);
  t.is(teamEvent.team_id, teamId);
  // not the account's secret
  t.throws(() => verified(personal, hook.received[1]!));
});

async function topUpRearms(t: import('ava').ExecutionContext, g: TestGateway) {
  const hook = await receiver();
  t.teardown(() => hook.close());
  const a = await newAccount(g, price * 3, VERIFIED);
  const owner = { userId: a.userId, teamId: null };
  // a submit leaves 2 prices, below the line; a top-up of one price (at least 2 credits) lifts it back over
  t.true(price >= 2);
  await setAlerts(g, a, { low_balance_threshold: price * 2 + 2, webhook_url: hook.url });
  await submit(g, a.liveKey);
  await waitFor(() => hook.received.length === 1, { what: 'the first alert' });
  // no submit sees the balance back above the line: only the top-up can re-arm the alert
  await adminTopUp(g.app.db, owner, price, 'top-up', Date.now());
  await submit(g, a.liveKey);
  await waitFor(() => hook.received.length === 2, { what: 'the second alert' });
  // each signed with this account's secret, though the MariaDB and SQLite gateways of this file,
  // running at once in one process, each have an account with this id
  const secret = await secretOf(g, a.session);
  const mine = () => hook.received.map((r) => verified(secret, r));
  const rows = await g.app.db('alerts').where({ user_id: a.userId }).orderBy('id');
  t.deepEqual(rows.map((r: { kind: string; period: string }) => [r.kind, r.period]), [['low_balance', '0'], ['low_balance', '1']]);
  t.deepEqual(mine().map((e) => e.alert.period), ['0', '1']);
  // a top-up that leaves the balance below the line (2 prices + 1) re-arms nothing
  const epoch = Number((await g.app.db('users').where({ id: a.userId }).first('low_balance_epoch')).low_balance_epoch);
  await adminTopUp(g.app.db, owner, 1, 'a little', Date.now());
  t.is(Number((await g.app.db('users').where({ id: a.userId }).first('low_balance_epoch')).low_balance_epoch), epoch);
}

test('mariadb: a top-up that brings the balance back above the line re-arms the low-balance alert: the next crossing alerts again', (t) => topUpRearms(t, gw));
test('sqlite: a top-up that brings the balance back above the line re-arms the low-balance alert', (t) => topUpRearms(t, lite));

test('a team\'s alert goes to the team\'s webhook URL signed with the team\'s secret, and is in the team\'s delivery log only', async (t) => {
  const hook = await receiver();
  t.teardown(() => hook.close());
  const a = await newAccount(gw, 0, VERIFIED);
  const teamId = (await callOperation<{ id: number }>(gw, 'createTeam', { as: a.session, body: { name: 'alerting team' } })).body.id;
  await gw.app.db.transaction((trx) => creditTeam(trx, teamId, a.userId, price * 2, 'topup', 'test credit', Date.now()));
  const key = (await callOperation<{ key: string }>(gw, 'createTeamApiKey', { as: a.session, params: { team_id: teamId }, body: { name: 'ci', is_test: false } })).body.key;
  await setAlerts(gw, a, { low_balance_threshold: price * 2, webhook_url: hook.url }, teamId);
  await submit(gw, key);
  await waitFor(() => hook.received.length === 1, { what: 'the team\'s alert' });
  const event = verified(await secretOf(gw, a.session, teamId), hook.received[0]!);
  t.like(event, { type: 'alert.low_balance', team_id: teamId });
  // not the member's own secret
  const personal = await secretOf(gw, a.session);
  t.throws(() => verified(personal, hook.received[0]!));
  const teamLog = await callOperation<Log>(gw, 'listWebhookDeliveries', { as: a.session, query: { team_id: teamId } });
  t.deepEqual(teamLog.body.items.map((i) => [i.id, i.event_type]), [[event.id, 'alert.low_balance']]);
  t.deepEqual((await log(gw, a)).body.items, []);
  // a viewer reads the team's history, not its balance: the alert is as hidden from its delivery log as from listAlerts
  const viewer = await newAccount(gw, 0);
  await gw.app.db('team_members').insert({ team_id: teamId, user_id: viewer.userId, role: 'viewer', created_at: Date.now() });
  t.is((await callOperation(gw, 'listAlerts', { as: viewer.session, query: { team_id: teamId } })).status, 403);
  const viewerLog = await log(gw, viewer, { team_id: teamId });
  t.is(viewerLog.status, 200);
  t.deepEqual(viewerLog.body.items, []);
});

/** The mails with an alert subject sent to this user. */
async function alertMailsOf(g: TestGateway, userId: number) {
  const email = (await g.app.db('users').where({ id: userId }).first<{ email: string }>())!.email.toLowerCase();
  return smtp.messages.filter((m) => m.to.includes(email) && /^Subject: mediagate: /m.test(m.raw));
}

test('owner_pays: a studio user\'s key soft limit alerts the studio user (list, mail, webhook), never the owner who paid', async (t) => {
  const ownerHook = await receiver();
  const userHook = await receiver();
  t.teardown(() => Promise.all([ownerHook.close(), userHook.close()]));
  const owner = await newAccount(gw, price * 100, VERIFIED);
  await setAlerts(gw, owner, { webhook_url: ownerHook.url });
  const slug = `keyalert-${Date.now().toString(36)}`;
  const created = await callOperation(gw, 'createStudio', { as: owner.session, body: { slug, name: 'Key alerts', allowed_models: [MODEL], payer_mode: 'owner_pays' } });
  t.is(created.status, 201, created.raw.payload);
  const inStudio = { 'x-whitelabel-studio': slug };
  const email = `keyalert-${Date.now().toString(36)}@example.com`;
  const password = 'correct horse battery';
  const reg = await gw.server.inject({ method: 'POST', url: '/auth/register', headers: inStudio, payload: { email, password } });
  t.is(reg.statusCode, 201, reg.payload);
  const userId = (reg.result as { id: number }).id;
  await gw.app.db('users').where({ id: userId }).update({ email_verified: true });
  const session = ((await gw.server.inject({ method: 'POST', url: '/auth/login', headers: inStudio, payload: { email, password } })).result as { access_token: string }).access_token;
  const key = (await callOperation<{ id: number; key: string }>(gw, 'createApiKey', { as: session, headers: inStudio, body: { name: 'end user project', is_test: false } })).body;
  t.is((await callOperation(gw, 'updateApiKey', { as: session, headers: inStudio, params: { key_id: key.id }, body: { soft_spend_limit: 1 } })).status, 200);
  t.is((await callOperation(gw, 'updateAlertSettings', { as: session, headers: inStudio, body: { webhook_url: userHook.url } })).status, 200);

  const res = await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': key.key, ...inStudio }, payload: BODY });
  t.is(res.statusCode, 200, res.payload);
  // the owner's wallet paid
  t.is((await gw.app.db('credit_transactions').where({ kind: 'hold', user_id: owner.userId }).whereNotNull('prediction_id')).length, 1);
  const [row] = await waitFor(async () => {
    const rows = await gw.app.db('alerts').where({ kind: 'key_soft_limit', api_key_id: key.id });
    return rows.length ? rows : undefined;
  }, { what: 'the key\'s alert' });
  t.deepEqual([Number(row.user_id), row.team_id], [userId, null], 'the alert is the key owner\'s, not the paying owner\'s');

  const mine = await callOperation<{ items: Array<{ kind: string; api_key_id: number | null }> }>(gw, 'listAlerts', { as: session, headers: inStudio });
  t.deepEqual(mine.body.items.map((i) => [i.kind, i.api_key_id]), [['key_soft_limit', key.id]]);
  t.deepEqual((await callOperation<{ items: unknown[] }>(gw, 'listAlerts', { as: owner.session })).body.items, []);
  await waitFor(() => userHook.received.length === 1, { what: 'the end user\'s alert event' });
  const event = verified(await secretOf(gw, session, undefined, inStudio), userHook.received[0]!);
  t.like(event, { type: 'alert.key_soft_limit', team_id: null });
  t.is(event.alert.kind, 'key_soft_limit');
  await waitFor(async () => (await alertMailsOf(gw, userId)).length === 1, { what: 'the end user\'s mail' });
  t.regex((await alertMailsOf(gw, userId))[0]!.raw, /^Subject: mediagate: API key spend alert/m);
  t.is(ownerHook.received.length, 0);
  t.deepEqual(await alertMailsOf(gw, owner.userId), []);
  t.is((await gw.app.db('alert_deliveries').where({ user_id: owner.userId })).length, 0);
});

test('a member\'s own key used with team_id: the key\'s soft limit alerts the member, the team wallet that paid gets nothing', async (t) => {
  const teamHook = await receiver();
  const memberHook = await receiver();
  t.teardown(() => Promise.all([teamHook.close(), memberHook.close()]));
  const lead = await newAccount(gw, 0, VERIFIED);
  const member = await newAccount(gw, 0, VERIFIED);
  const teamId = (await callOperation<{ id: number }>(gw, 'createTeam', { as: lead.session, body: { name: 'paying team' } })).body.id;
  await gw.app.db('team_members').insert({ team_id: teamId, user_id: member.userId, role: 'developer', created_at: Date.now() });
  await gw.app.db.transaction((trx) => creditTeam(trx, teamId, lead.userId, price * 10, 'topup', 'test credit', Date.now()));
  await setAlerts(gw, lead, { webhook_url: teamHook.url }, teamId);
  await setAlerts(gw, member, { webhook_url: memberHook.url });
  const key = (await callOperation<{ id: number; key: string }>(gw, 'createApiKey', { as: member.session, body: { name: 'member own', is_test: false } })).body;
  t.is((await callOperation(gw, 'updateApiKey', { as: member.session, params: { key_id: key.id }, body: { soft_spend_limit: 1 } })).status, 200);

  const res = await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}?team_id=${teamId}`, headers: { 'x-api-key': key.key }, payload: BODY });
  t.is(res.statusCode, 200, res.payload);
  const [row] = await waitFor(async () => {
    const rows = await gw.app.db('alerts').where({ kind: 'key_soft_limit', api_key_id: key.id });
    return rows.length ? rows : undefined;
  }, { what: 'the key\'s alert' });
  t.deepEqual([Number(row.user_id), row.team_id], [member.userId, null], 'the member\'s alert, not the team\'s');
  t.deepEqual((await callOperation<{ items: Array<{ api_key_id: number | null }> }>(gw, 'listAlerts', { as: member.session })).body.items.map((i) => i.api_key_id), [key.id]);
  t.deepEqual((await callOperation<{ items: unknown[] }>(gw, 'listAlerts', { as: lead.session, query: { team_id: teamId } })).body.items, []);
  await waitFor(() => memberHook.received.length === 1, { what: 'the member\'s alert event' });
  t.like(verified(await secretOf(gw, member.session), memberHook.received[0]!), { type: 'alert.key_soft_limit', team_id: null });
  await waitFor(async () => (await alertMailsOf(gw, member.userId)).length === 1, { what: 'the member\'s mail' });
  t.is(teamHook.received.length, 0);
  t.deepEqual(await alertMailsOf(gw, lead.userId), []);
});

test('an alert delivery whose message was lost is published again by the sweeper and delivered', async (t) => {
  const hook = await receiver();
  t.teardown(() => hook.close());
  const a = await newAccount(gw, 0, VERIFIED);
  await setAlerts(gw, a, { webhook_url: hook.url });
  const { id, alertId } = await queuedAlertDelivery(gw, a.userId, hook.url);
  t.true(await gw.app.dispatcher.sweep() >= 1);
  await waitFor(() => hook.received.length === 1, { what: 'the swept delivery' });
  const event = verified(await secretOf(gw, a.session), hook.received[0]!);
  t.like(event, { type: 'alert.monthly_budget', id });
  t.like(event.alert, { id: Number(alertId), threshold: 10, value: 12, period: '2026-11' });
  await waitFor(async () => (await gw.app.db('alert_deliveries').where({ id }).first<{ status: string }>())?.status === 'delivered', { what: 'delivered' });
});

/**
 * An alert of the account recorded an hour ago, and its delivery to `url`, pending: overdue and
 * never published (the process died between the two: the next sweep publishes it), or, with
 * `waiting`, between two attempts (no sweep takes it; the test publishes it, as its retry's message).
 */
async function queuedAlertDelivery(g: TestGateway, userId: number, url: string, opts: { teamId?: number; waiting?: boolean } = {}): Promise<{ id: string; alertId: number }> {
  const teamId = opts.teamId ?? null;
  const at = Date.now() - 3_600_000;
  const [alertId] = await g.app.db('alerts').insert({
    user_id: userId, team_id: teamId, api_key_id: null, subject: teamId === null ? `u:${userId}` : `t:${teamId}`, kind: 'monthly_budget',
    period: '2026-11', threshold: 10, value: 12, claim: 'lost', created_at: at,
  });
  const id = newDeliveryId();
  const due = opts.waiting ? Date.now() + 3_600_000 : at;
  await g.app.db('alert_deliveries').insert({ id, alert_id: alertId, user_id: userId, team_id: teamId, url, status: 'pending', attempts: 0, next_attempt_at: due, created_at: at, updated_at: at });
  return { id, alertId: Number(alertId) };
}

/** The delivery once the worker has settled it (no longer pending). */
async function settled(g: TestGateway, id: string) {
  return waitFor(async () => {
    const row = await g.app.db('alert_deliveries').where({ id }).first<{ status: string; last_error: string | null; attempts: number } | undefined>('status', 'last_error', 'attempts');
    return row && row.status !== 'pending' ? row : undefined;
  }, { what: `delivery ${id} settled` });
}

test('an alert delivery queued for a URL since changed or removed is not sent, to it or to the new one; it is dead saying why, and goes once the URL is set back and it is redelivered', async (t) => {
  const [old, replacement] = [await receiver(), await receiver()];
  t.teardown(() => Promise.all([old.close(), replacement.close()]).then(() => undefined));
  const a = await newAccount(gw, 0);
  await setAlerts(gw, a, { webhook_url: old.url });
  const changed = (await queuedAlertDelivery(gw, a.userId, old.url, { waiting: true })).id;
  await setAlerts(gw, a, { webhook_url: replacement.url });
  // a team's URL is the team's: removing it withdraws the team's queued alerts
  const team = await callOperation<{ id: number }>(gw, 'createTeam', { as: a.session, body: { name: 'withdrawn alerts' } });
  await setAlerts(gw, a, { webhook_url: old.url }, team.body.id);
  const removed = (await queuedAlertDelivery(gw, a.userId, old.url, { teamId: team.body.id, waiting: true })).id;
  await setAlerts(gw, a, { monthly_budget: 100 }, team.body.id);
  for (const id of [changed, removed]) t.true(await gw.app.dispatcher.dispatchWebhook(id));
  for (const id of [changed, removed]) {
    const row = await settled(gw, id);
    t.is(row.status, 'dead', id);
    t.regex(String(row.last_error), /alert webhook URL was changed or removed/);
  }
  const item = (await log(gw, a)).body.items.find((i) => i.id === changed);
  t.like(item, { status: 'dead', event_type: 'alert.monthly_budget' });
  t.is(item?.attempt_log.length, 1);
  t.is(item?.attempt_log[0]!.status_code, null, 'no request was made');
  t.is(old.received.length, 0);
  t.is(replacement.received.length, 0);

  // redelivered while the URL is still another: not sent either
  t.is((await callOperation(gw, 'redeliverWebhook', { as: a.session, params: { id: changed } })).status, 202);
  t.is((await settled(gw, changed)).attempts, 2);
  t.is(old.received.length, 0);
  // set back: the redelivery goes there
  await setAlerts(gw, a, { webhook_url: old.url });
  t.is((await callOperation(gw, 'redeliverWebhook', { as: a.session, params: { id: changed } })).status, 202);
  t.is((await settled(gw, changed)).status, 'delivered');
  t.deepEqual(old.received.map((r) => r.headers['webhook-id']), [changed]);
  t.is(replacement.received.length, 0);
});

test('an alert delivery queued for the alert webhook URL of a squatter is not sent once the mailbox owner takes the account back', async (t) => {
  const squatter = await receiver();
  t.teardown(() => squatter.close());
  const email = `squat-${crypto.randomBytes(5).toString('hex')}@example.com`;
  const password = 'the squatter password';
  t.is((await gw.server.inject({ method: 'POST', url: '/auth/register', payload: { email, password } })).statusCode, 201);
  await smtp.code(email); // the registration's code, in the mailbox only: never used
  const login = await gw.server.inject({ method: 'POST', url: '/auth/login', payload: { email, password } });
  const session = (login.result as { access_token: string }).access_token;
  const set = await callOperation(gw, 'updateAlertSettings', { as: session, body: { low_balance_threshold: 10, webhook_url: squatter.url } });
  t.is(set.status, 200, set.raw.payload);
  const userId = (await gw.app.db('users').where({ email }).first<{ id: number }>('id')).id;
  // queued before the take-back: a crossing whose delivery is not yet sent (or waits for a retry)
  const { id } = await queuedAlertDelivery(gw, userId, squatter.url, { waiting: true });

  await gw.server.inject({ method: 'POST', url: '/auth/request-otp', payload: { email } });
  const back = await gw.server.inject({ method: 'POST', url: '/auth/login-otp', payload: { email, otp: await smtp.code(email) } });
  t.is(back.statusCode, 200, back.payload);
  t.regex(String((back.result as { detail?: string }).detail), /alert webhook URL was removed/);

  // its message reaches the worker after the take-back
  t.true(await gw.app.dispatcher.dispatchWebhook(id));
  t.is((await settled(gw, id)).status, 'dead');
  t.is(squatter.received.length, 0, 'nothing went to the squatter\'s receiver after the take-back');
});

/**
 * Five deliveries of one account created in the same millisecond, two of predictions and three of
 * alerts: pages of two list each exactly once, newest first by (created_at, id).
 */
async function pagesSkipNothing(t: import('ava').ExecutionContext, g: TestGateway) {
  const hook = await receiver();
  t.teardown(() => hook.close());
  const a = await newAccount(g, price * 10, VERIFIED);
  for (let i = 0; i < 2; i++) {
    const res = await g.server.inject({ method: 'POST', url: `/api/v1/${MODEL}?webhook=${encodeURIComponent(hook.url)}`, headers: { 'x-api-key': a.liveKey }, payload: BODY });
    t.is(res.statusCode, 200, res.payload);
  }
  await waitFor(() => hook.received.length === 2, { what: 'the predictions\' deliveries' });
  const at = Date.now();
  for (let i = 0; i < 3; i++) {
    const [alertId] = await g.app.db('alerts').insert({
      user_id: a.userId, team_id: null, api_key_id: null, subject: `u:${a.userId}`, kind: 'monthly_budget', period: `2026-0${i + 1}`,
      threshold: 1, value: 1, claim: `c${i}`, created_at: at,
    });
    await g.app.db('alert_deliveries').insert({
      id: newDeliveryId(), alert_id: alertId, user_id: a.userId, team_id: null, url: hook.url, status: 'dead', attempts: 4,
      next_attempt_at: at, created_at: at, updated_at: at,
    });
  }
  const predictionIds = (await g.app.db('predictions').where({ user_id: a.userId }).select('id')).map((r: { id: string }) => r.id);
  await g.app.db('webhook_deliveries').whereIn('prediction_id', predictionIds).update({ created_at: at });

  const seen: LogItem[] = [];
  let before: string | null = null;
  let pages = 0;
  do {
    const page: Awaited<ReturnType<typeof log>> = await log(g, a, { limit: 2, ...(before ? { before } : {}) });
    t.is(page.status, 200, page.raw.payload);
    seen.push(...page.body.items);
    before = page.body.next_before;
    pages++;
  } while (before !== null && pages < 10);
  t.is(pages, 3);
  t.is(seen.length, 5);
  t.is(new Set(seen.map((i) => i.id)).size, 5);
  t.deepEqual(seen.map((i) => i.event_type).sort(), ['alert.monthly_budget', 'alert.monthly_budget', 'alert.monthly_budget', 'prediction', 'prediction']);
  t.true(seen.every((i) => i.created_at === new Date(at).toISOString()));
  // a plain time still pages by time: nothing created before the shared millisecond
  t.deepEqual((await log(g, a, { before: new Date(at).toISOString() })).body.items, []);
  t.is((await log(g, a, { before: 'yesterday' })).status, 422);
}

test('mariadb: the delivery log\'s pages skip no delivery created in the same millisecond', (t) => pagesSkipNothing(t, gw));
test('sqlite: the delivery log\'s pages skip no delivery created in the same millisecond', (t) => pagesSkipNothing(t, lite));

test('an alert of a team deleted moments after another of its alerts was signed is dead, not signed with the secret the worker had read', async (t) => {
  const hook = await receiver();
  t.teardown(() => hook.close());
  const a = await newAccount(gw, 0, VERIFIED);
  const created = await callOperation<{ id: number }>(gw, 'createTeam', { as: a.session, body: { name: 'Alerting, then gone' } });
  t.is(created.status, 201, created.raw.payload);
  const teamId = Number(created.body.id);
  await setAlerts(gw, a, { low_balance_threshold: 10, webhook_url: hook.url }, teamId);
  // one sent now: the worker holds the team's secret for a few seconds
  const first = await queuedAlertDelivery(gw, a.userId, hook.url, { teamId });
  t.true(await gw.app.dispatcher.dispatchWebhook(first.id));
  t.is((await settled(gw, first.id)).status, 'delivered');
  t.is((await callOperation(gw, 'deleteTeam', { as: a.session, params: { team_id: teamId } })).status, 200);

  // the next month's crossing (one alert per kind and period)
  await gw.app.db('alerts').where({ id: first.alertId }).update({ period: '2026-10' });
  const second = await queuedAlertDelivery(gw, a.userId, hook.url, { teamId });
  t.true(await gw.app.dispatcher.dispatchWebhook(second.id));
  const row = await settled(gw, second.id);
  t.is(row.status, 'dead');
  t.is(row.last_error, 'the team was deleted: no secret to sign with');
  // the first one may have come twice (its row was overdue, so the sweeper may have published a copy
  // beside the test's: deliveries are at least once, receivers dedupe by webhook-id); the second never
  t.deepEqual([...new Set(hook.received.map((r) => String(r.headers['webhook-id'])))], [first.id], 'nothing more goes to a deleted team\'s receiver');
});
