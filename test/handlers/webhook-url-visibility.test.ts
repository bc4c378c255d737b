// Webhook URLs may carry a receiver's secret in their query string: they are shown whole only to
// a caller who could have set them. A prediction's `webhook` (and its deliveries' `url`): the
// member who submitted it and members with `manage_keys` (owner, admin, developer, and the
// team's keys); the alert webhook URL: members with `top_up` (owner, admin, billing), who set it.
// Anyone else who may read them (billing and viewer; developer and team keys for the alert URL),
// and every credential without the scope that sets them (generate:write; keys:manage), gets the
// URL with each query value `redacted` and no user name, password or fragment.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import type { CallOptions } from '../helpers/operation.ts';
import { createClient, tokenFor } from '../helpers/oauth.ts';
import { newPredictionId } from '../../db/predictions/record.ts';
import { insertDelivery, newDeliveryId } from '../../db/webhooks.ts';

const MODEL = 'canvas-v1-fast-text-to-image';
const INPUT = { prompt: 'team hook', width: 64, height: 64 };
const HOOK = 'https://hooks.example.com/mediagate/hook?token=abc123&sig=s3cr3t&plain';
const HOOK_REDACTED = 'https://hooks.example.com/mediagate/hook?token=redacted&sig=redacted&plain=redacted';
const ALERT_HOOK = 'https://alerts.example.com/in?key=k-123';
const ALERT_HOOK_REDACTED = 'https://alerts.example.com/in?key=redacted';

let gw: TestGateway;
let owner: Account;
let admin: Account;
let dev: Account;
let dev2: Account;
let billing: Account;
let viewer: Account;
let teamId: number;
let teamKey: string;
let requestId: string;

type Body = Record<string, unknown>;
const call = <T = Body>(operationId: string, opts: CallOptions) => callOperation<T>(gw, operationId, opts);

async function readOnlyToken(session: string, scopes: string[]): Promise<string> {
  return tokenFor(gw, await createClient(gw, session, scopes));
}

/** What `as` reads of the team prediction: its `webhook` and its first delivery's `url`. */
async function seenOnPrediction(as: string, id = requestId, team: number | null = teamId): Promise<[unknown, unknown]> {
  const res = await call<{ webhook: unknown; webhook_deliveries: Array<{ url: unknown }> }>('getPredictionResponse', {
    as, params: { request_id: id }, ...(team === null ? {} : { query: { team_id: team } }),
  });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return [res.body.webhook, res.body.webhook_deliveries[0]?.url];
}

test.before(async () => {
  gw = await startGateway({ db: 'sqlite', queue: 'memory' });
  [owner, admin, dev, dev2, billing, viewer] = await Promise.all([newAccount(gw), newAccount(gw), newAccount(gw), newAccount(gw), newAccount(gw), newAccount(gw)]);
  const res = await call('createTeam', { as: owner.session, body: { name: 'Hooks' } });
  teamId = Number(res.body.id);
  for (const [who, role] of [[admin, 'admin'], [dev, 'developer'], [dev2, 'developer'], [billing, 'billing'], [viewer, 'viewer']] as const) {
    await gw.app.db('team_members').insert({ team_id: teamId, user_id: who.userId, role, created_at: Date.now() });
  }
  const key = await call<{ key: string }>('createTeamApiKey', { as: dev2.session, params: { team_id: teamId }, body: { name: 'ci', is_test: true } });
  teamKey = key.body.key;
  // a sandbox submit: recorded at once, with its delivery (no worker sends it)
  const submit = await call<{ request_id: string }>(MODEL, { as: dev.testKey, body: INPUT, query: { team_id: teamId, webhook: HOOK } });
  if (submit.status !== 200) throw new Error(JSON.stringify(submit.body));
  requestId = submit.body.request_id;
  const set = await call('updateAlertSettings', { as: owner.session, query: { team_id: teamId }, body: { webhook_url: ALERT_HOOK } });
  if (set.status !== 200) throw new Error(JSON.stringify(set.body));
});
test.after.always(async () => {
  await gw?.stop();
});

test('a team prediction\'s webhook is whole to its submitter and to manage_keys members and keys, redacted to billing and viewer', async (t) => {
  for (const [who, as] of [['the submitter', dev.session], ['the submitter\'s key', dev.testKey], ['the owner', owner.session], ['an admin', admin.liveKey], ['another developer', dev2.session], ['the team key', teamKey]] as const) {
    t.deepEqual(await seenOnPrediction(as), [HOOK, HOOK], who);
  }
  for (const [who, as] of [['billing', billing.session], ['a viewer', viewer.session], ['a viewer\'s key', viewer.liveKey]] as const) {
    t.deepEqual(await seenOnPrediction(as), [HOOK_REDACTED, HOOK_REDACTED], who);
  }
});

test('a credential that cannot submit sees the webhook redacted, even the owner\'s or the submitter\'s', async (t) => {
  t.deepEqual(await seenOnPrediction(await readOnlyToken(owner.session, ['generate:read'])), [HOOK_REDACTED, HOOK_REDACTED]);
  t.deepEqual(await seenOnPrediction(await readOnlyToken(dev.session, ['generate:read', 'account:read'])), [HOOK_REDACTED, HOOK_REDACTED]);
  t.deepEqual(await seenOnPrediction(await readOnlyToken(dev.session, ['generate:read', 'generate:write'])), [HOOK, HOOK]);
  // a personal prediction read by its own user's read-only token
  const own = await call<{ request_id: string }>(MODEL, { as: viewer.testKey, body: INPUT, query: { webhook: HOOK } });
  t.deepEqual(await seenOnPrediction(viewer.session, own.body.request_id, null), [HOOK, HOOK]);
  t.deepEqual(await seenOnPrediction(await readOnlyToken(viewer.session, ['generate:read']), own.body.request_id, null), [HOOK_REDACTED, HOOK_REDACTED]);
});

test('the delivery log shows each delivery\'s URL by the same rules: the prediction\'s, and the alert webhook\'s', async (t) => {
  // an alert delivery of the team's, beside the prediction's
  const alert = await gw.app.db('alerts').insert({ user_id: owner.userId, team_id: teamId, subject: `t:${teamId}`, kind: 'low_balance', period: '1', threshold: 10, value: 5, claim: 'test', created_at: Date.now() });
  await gw.app.db('alert_deliveries').insert({ id: newDeliveryId(), alert_id: alert[0], user_id: owner.userId, team_id: teamId, url: ALERT_HOOK, status: 'delivered', attempts: 1, next_attempt_at: Date.now(), created_at: Date.now(), updated_at: Date.now() });
  const log = async (as: string) => {
    const res = await call<{ items: Array<{ event_type: string; url: string }> }>('listWebhookDeliveries', { as, query: { team_id: teamId } });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return Object.fromEntries(res.body.items.map((i) => [i.event_type, i.url]));
  };
  t.deepEqual(await log(owner.session), { prediction: HOOK, 'alert.low_balance': ALERT_HOOK });
  t.deepEqual(await log(dev.session), { prediction: HOOK, 'alert.low_balance': ALERT_HOOK_REDACTED });
  t.deepEqual(await log(billing.session), { prediction: HOOK_REDACTED, 'alert.low_balance': ALERT_HOOK });
  // a viewer lacks read_balance: the team's alerts, which tell when its balance crossed a line, are not listed to it
  t.deepEqual(await log(viewer.session), { prediction: HOOK_REDACTED });
});

test('the alert webhook URL is whole to top_up members (who set it), redacted to a developer, a team key and a read-only token', async (t) => {
  const seen = async (as: string) => {
    const res = await call<{ webhook_url: unknown }>('getAlertSettings', { as, query: { team_id: teamId } });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return res.body.webhook_url;
  };
  t.is(await seen(owner.session), ALERT_HOOK);
  t.is(await seen(admin.session), ALERT_HOOK);
  t.is(await seen(billing.session), ALERT_HOOK);
  t.is(await seen(dev.session), ALERT_HOOK_REDACTED);
  t.is(await seen(teamKey), ALERT_HOOK_REDACTED);
  t.is(await seen(await readOnlyToken(owner.session, ['account:read'])), ALERT_HOOK_REDACTED);
  // the one who sets it sees what was set in the answer to the change
  const put = await call<{ webhook_url: unknown }>('updateAlertSettings', { as: billing.session, query: { team_id: teamId }, body: { webhook_url: ALERT_HOOK } });
  t.is(put.body.webhook_url, ALERT_HOOK);
});

test('an older row\'s user name and password are never shown to a caller who gets the URL redacted', async (t) => {
  const id = newPredictionId(Date.now());
  const legacy = 'https://user:pass@hooks.example.com/old?t=1#frag';
  await gw.app.db('predictions').insert({
    id, user_id: dev.userId, team_id: teamId, api_key_id: null, model: MODEL, status: 'completed', is_test: true, input: '{}', price: 0,
    webhook_url: legacy, created_at: Date.now(), updated_at: Date.now(),
  });
  await insertDelivery(gw.app.db, { id: newDeliveryId(), predictionId: id, userId: dev.userId, url: legacy }, Date.now());
  t.deepEqual(await seenOnPrediction(viewer.session, id), ['https://hooks.example.com/old?t=redacted', 'https://hooks.example.com/old?t=redacted']);
  t.deepEqual(await seenOnPrediction(dev.session, id), [legacy, legacy]);
});

test('an account export through a read-only token has the webhook URLs redacted; through a session, whole', async (t) => {
  const user = await newAccount(gw);
  await call(MODEL, { as: user.testKey, body: INPUT, query: { webhook: HOOK } });
  await call('updateAlertSettings', { as: user.session, body: { webhook_url: ALERT_HOOK } });
  const seen = async (as: string) => {
    const res = await call<{ alert_settings: { webhook_url: unknown }; predictions: Array<{ webhook: unknown }> }>('exportAccount', { as });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return [res.body.alert_settings.webhook_url, res.body.predictions.map((p) => p.webhook)];
  };
  t.deepEqual(await seen(user.session), [ALERT_HOOK, [HOOK]]);
  t.deepEqual(await seen(await readOnlyToken(user.session, ['account:read'])), [ALERT_HOOK_REDACTED, [HOOK_REDACTED]]);
});
