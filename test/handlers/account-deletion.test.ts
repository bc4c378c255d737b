// Deleting an account (README "Deleting an account"): a request schedules it after the grace
// period; meanwhile the account signs in and may cancel, and its API keys, embed codes and OAuth
// clients are refused; the only owner of a team is refused until ownership moves; after the period the
// retention job erases the account's personal data and files and keeps its ledger rows,
// anonymised. Time is the app clock, moved by the test.
import test from 'ava';
import fs from 'node:fs/promises';
import path from 'node:path';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { createClient, tokenFor, tokenRequest, basic } from '../helpers/oauth.ts';
import { createRetention, eraseAccountAndFiles } from '../../workers/retention.ts';
import type { Retention } from '../../workers/retention.ts';
import { saveHandoff } from '../../db/session-handoffs.ts';
import { creditWallet } from '../../db/wallet/moves.ts';
import { createInvite } from '../../db/teams.ts';
import { insertSession } from '../../db/sessions.ts';
import { newSecret, sha256Hex, SESSION_PREFIX } from '../../lib/secrets.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const MODEL = '/api/v1/canvas-v1-fast-text-to-image';

let now = Date.UTC(2026, 10, 1);
const clock = () => now;
let gw: TestGateway;
let retention: Retention;

test.before(async () => {
  gw = await startGateway({ worker: true, queue: 'memory', clock, env: { ACCOUNT_DELETION_GRACE_DAYS: '14' } });
  retention = createRetention(gw.app);
});
test.after.always(async () => {
  await retention?.stop();
  await gw?.stop();
});

const bearer = (session: string) => ({ authorization: `Bearer ${session}` });
const requestDeletion = (a: Account) => gw.server.inject({ method: 'POST', url: '/app/account/request-deletion', headers: bearer(a.session) });
const cancelDeletion = (a: Account) => gw.server.inject({ method: 'POST', url: '/app/account/cancel-deletion', headers: bearer(a.session) });
const balanceWith = (key: string) => gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': key } });

async function runNextPeriod() {
  now += HOUR;
  const counts = await retention.runOnce();
  if (!counts) throw new Error('the lease was not free');
  return counts;
}

async function generate(key: string, teamId?: number): Promise<string> {
  const res = await gw.server.inject({ method: 'POST', url: `${MODEL}${teamId ? `?team_id=${teamId}` : ''}`, headers: { 'x-api-key': key }, payload: { prompt: 'a lighthouse', width: 64, height: 64 } });
  if (res.statusCode !== 200) throw new Error(res.payload);
  const id = (res.result as { request_id: string }).request_id;
  await waitFor(async () => (await gw.app.db('predictions').where({ id }).first())?.status === 'completed', { what: 'the prediction to complete', timeoutMs: 30_000 });
  return id;
}

async function createTeam(a: Account, name: string): Promise<number> {
  const res = await gw.server.inject({ method: 'POST', url: '/app/teams', headers: bearer(a.session), payload: { name } });
  if (res.statusCode !== 201) throw new Error(res.payload);
  return (res.result as { id: number }).id;
}

test.serial('a request schedules the deletion; keys and OAuth clients stop at once; the session still works; cancel restores them', async (t) => {
  const a = await newAccount(gw, 100);
  const client = await createClient(gw, a.session, ['account:read']);
  t.truthy(await tokenFor(gw, client));

  const res = await requestDeletion(a);
  t.is(res.statusCode, 200, res.payload);
  t.deepEqual(res.result, { deletion_requested: true, scheduled_deletion_at: new Date(now + 14 * DAY).toISOString() });
  const me = await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: bearer(a.session) });
  t.is((me.result as { scheduled_deletion_at: string }).scheduled_deletion_at, new Date(now + 14 * DAY).toISOString());

  const refused = await balanceWith(a.liveKey);
  t.is(refused.statusCode, 401);
  t.regex((refused.result as { detail: string }).detail, /scheduled for deletion/);
  t.is((await balanceWith(a.testKey)).statusCode, 401);
  const token = await tokenRequest(gw, { grant_type: 'client_credentials' }, { authorization: basic(client.client_id, client.client_secret) });
  t.is(token.status, 401, 'the client cannot get a token');
  // signing in works, so the deletion can be cancelled
  t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: bearer(a.session) })).statusCode, 200);

  t.is((await requestDeletion(a)).statusCode, 409, 'already scheduled');
  const cancelled = await cancelDeletion(a);
  t.is(cancelled.statusCode, 200);
  t.deepEqual(cancelled.result, { deletion_requested: false, scheduled_deletion_at: null });
  t.is((await balanceWith(a.liveKey)).statusCode, 200);
  t.truthy(await tokenFor(gw, client));
  t.is((await cancelDeletion(a)).statusCode, 409, 'nothing to cancel');
});

test.serial('an access token issued before the request is refused as scheduled for deletion, not as revoked, and works again after a cancel', async (t) => {
  const a = await newAccount(gw, 100);
  const token = await tokenFor(gw, await createClient(gw, a.session, ['account:read']));
  t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: bearer(token) })).statusCode, 200);
  t.is((await requestDeletion(a)).statusCode, 200);
  const refused = await gw.server.inject({ method: 'GET', url: '/account/balance', headers: bearer(token) });
  t.is(refused.statusCode, 401);
  t.regex((refused.result as { detail: string }).detail, /scheduled for deletion/);
  t.regex(String(refused.headers['www-authenticate']), /error="invalid_token"/);
  t.is((await cancelDeletion(a)).statusCode, 200);
  t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: bearer(token) })).statusCode, 200);
});

test.serial('a personal embed code is refused while the deletion is pending and works again after a cancel; a team code keeps working', async (t) => {
  const a = await newAccount(gw, 100_000);
  const teamId = await createTeam(a, 'embedders');
  // another owner, so that the deletion may be asked for
  const b = await newAccount(gw, 0);
  await gw.app.db('team_members').insert({ team_id: teamId, user_id: b.userId, role: 'owner', created_at: now });
  const makeCode = async (query: string) => {
    const res = await gw.server.inject({ method: 'POST', url: `/app/embed-codes${query}`, headers: bearer(a.session), payload: { kind: 'embed', name: 'widget', models: ['canvas-v1-fast-text-to-image'] } });
    if (res.statusCode !== 201) throw new Error(res.payload);
    return (res.result as { code: string }).code;
  };
  const [personal, team] = [await makeCode(''), await makeCode(`?team_id=${teamId}`)];
  const submit = (code: string) => gw.server.inject({ method: 'POST', url: MODEL, headers: { 'x-embed-code': code }, payload: { prompt: 'a lighthouse', width: 64, height: 64 } });
  const first = await submit(personal);
  t.is(first.statusCode, 200, first.payload);

  const requested = await requestDeletion(a);
  t.is(requested.statusCode, 200, requested.payload);
  const refused = await submit(personal);
  t.is(refused.statusCode, 401);
  t.like(JSON.parse(refused.payload), { code: 'embed_code_invalid' });
  t.regex(JSON.parse(refused.payload).detail, /scheduled for deletion/);
  // resolving it is refused as the submit is: a page draws no model the code cannot run
  const resolve = (code: string) => gw.server.inject({ method: 'GET', url: `/app/get_model_name_for_embedcode?embed_code=${code}` });
  const described = await resolve(personal);
  t.is(described.statusCode, refused.statusCode, described.payload);
  t.like(JSON.parse(described.payload), { code: 'embed_code_invalid', detail: JSON.parse(refused.payload).detail });
  // the team's code is the team's: it gets through, to the team's wallet (empty: 402)
  t.like(JSON.parse((await submit(team)).payload), { code: 'insufficient_credit' });
  t.is((await resolve(team)).statusCode, 200);

  t.is((await cancelDeletion(a)).statusCode, 200);
  t.is((await submit(personal)).statusCode, 200);
  t.is((await resolve(personal)).statusCode, 200);
});

test.serial('session only: an API key cannot request or cancel a deletion (403 session_required)', async (t) => {
  const a = await newAccount(gw, 0);
  const res = await gw.server.inject({ method: 'POST', url: '/app/account/request-deletion', headers: { 'x-api-key': a.liveKey } });
  t.is(res.statusCode, 403);
  t.like(res.result, { code: 'session_required' });
  t.is((await gw.app.db('users').where({ id: a.userId }).first()).deletion_due_at, null);
});

test.serial('the only owner of a team is refused with 409 naming it, until another member is owner', async (t) => {
  const a = await newAccount(gw, 0);
  const b = await newAccount(gw, 0);
  const teamId = await createTeam(a, 'lighthouse keepers');
  const res = await requestDeletion(a);
  t.is(res.statusCode, 409);
  t.regex((res.result as { detail: string }).detail, /only owner of "lighthouse keepers"/);
  await gw.app.db('team_members').insert({ team_id: teamId, user_id: b.userId, role: 'owner', created_at: now });
  t.is((await requestDeletion(a)).statusCode, 200);
  await cancelDeletion(a);
});

test.serial('after the grace period the job erases the account: files, keys, personal runs go; ledger rows and team runs stay', async (t) => {
  const a = await newAccount(gw, 1000);
  const other = await newAccount(gw, 1000);
  const teamId = await createTeam(other, 'studio');
  await gw.app.db('team_members').insert({ team_id: teamId, user_id: a.userId, role: 'developer', created_at: now });
  await gw.app.db('teams').where({ id: teamId }).update({ balance: 1000 });
  const personal = await generate(a.liveKey);
  const forTeam = await generate(a.liveKey, teamId);
  // the webhook events a personal run asked for (a filter without completed outlives the run: it holds the URL)
  await gw.app.db('webhook_event_filters').insert({ prediction_id: personal, user_id: a.userId, url: 'https://hooks.example.com/in?token=secret', events: 'start', created_at: now });
  const file = path.join(gw.app.config.storageDir, 'outputs', personal);
  const { email } = (await gw.app.db('users').where({ id: a.userId }).first<{ email: string }>())!;
  const ledgerBefore = await gw.app.db('credit_transactions').where({ user_id: a.userId }).count<Array<{ n: number | string }>>({ n: '*' });
  // a media asset, an upload address and an embed code of the personal account
  const auth = bearer(a.session);
  t.is((await gw.server.inject({ method: 'POST', url: '/app/media-library', headers: auth, payload: { url: 'https://cdn.example.com/a.png', media_type: 'image', name: 'a' } })).statusCode, 200);
  t.is((await gw.server.inject({ method: 'GET', url: '/app/get_file_upload_url?filename=b.png', headers: auth })).statusCode, 200);
  t.is((await gw.server.inject({ method: 'POST', url: '/app/embed-codes', headers: auth, payload: { kind: 'embed', name: 'widget', models: ['canvas-v1-fast-text-to-image'] } })).statusCode, 201);
  // an alert webhook and an alert's delivery to it
  t.is((await gw.server.inject({ method: 'PUT', url: '/app/alert_settings', headers: auth, payload: { webhook_url: 'https://hooks.example.com/a?token=t' } })).statusCode, 200);
  const [alertId] = await gw.app.db('alerts').insert({ user_id: a.userId, team_id: null, subject: `u:${a.userId}`, kind: 'low_balance', period: '0', threshold: 10, value: 5, claim: 'x', created_at: now });
  await gw.app.db('alert_deliveries').insert({ id: 'msg_erased_alert', alert_id: alertId, user_id: a.userId, url: 'https://hooks.example.com/a?token=t', status: 'delivered', attempts: 1, next_attempt_at: now, created_at: now, updated_at: now });

  t.is((await requestDeletion(a)).statusCode, 200);
  const early = await runNextPeriod();
  t.is(early.accounts, 0, 'not before the grace period ends');
  now += 14 * DAY;
  const counts = await runNextPeriod();
  t.is(counts.accounts, 1);

  const row = (await gw.app.db('users').where({ id: a.userId }).first())!;
  t.is(row.email, `deleted-${a.userId}@deleted.invalid`);
  t.is(row.password_hash, null);
  t.is(row.alert_webhook_url, null);
  t.truthy(row.deleted_at);
  t.is(await gw.app.db('predictions').where({ id: personal }).first(), undefined);
  t.truthy(await gw.app.db('predictions').where({ id: forTeam }).first(), "the team's run stays with the team");
  await t.throwsAsync(fs.stat(file), undefined, 'the output files are removed');
  for (const table of ['api_keys', 'sessions', 'oauth_clients', 'team_members', 'webhook_secrets', 'media_assets', 'uploads', 'embed_codes', 'alert_deliveries', 'webhook_event_filters']) {
    const left = await gw.app.db(table).where({ user_id: a.userId }).modify((q) => { if (table === 'api_keys') q.whereNull('team_id'); });
    t.deepEqual(left, [], `${table} rows removed`);
  }
  const ledgerAfter = await gw.app.db('credit_transactions').where({ user_id: a.userId }).count<Array<{ n: number | string }>>({ n: '*' });
  t.deepEqual(ledgerAfter, ledgerBefore, 'ledger rows are kept');
  // the address is free again; the old password does not sign in
  const login = await gw.server.inject({ method: 'POST', url: '/auth/login', payload: { email, password: 'correct horse battery' } });
  t.is(login.statusCode, 401);
  const again = await gw.server.inject({ method: 'POST', url: '/auth/register', payload: { email, password: 'another long password' } });
  t.is(again.statusCode, 201);
  t.is((await runNextPeriod()).accounts, 0, 'erased once');
});

test.serial('an account that became the only owner of a team during the grace period waits until ownership moves', async (t) => {
  const a = await newAccount(gw, 0);
  t.is((await requestDeletion(a)).statusCode, 200);
  const teamId = await createTeam(a, 'late team');
  now += 15 * DAY;
  t.is((await runNextPeriod()).accounts, 0);
  t.truthy((await gw.app.db('users').where({ id: a.userId }).first()).deletion_due_at, 'still scheduled');
  await gw.app.db('teams').where({ id: teamId }).update({ deleted_at: now });
  t.is((await runNextPeriod()).accounts, 1);
});

test.serial('an erased account opens no session: a hand-off waiting for it is gone, and a session a racing sign-in wrote after the erasure is refused', async (t) => {
  const a = await newAccount(gw);
  // a Google sign-in handed off to a studio domain a moment before an administrator erases the account
  await saveHandoff(gw.app.db, sha256Hex('handoff-code-erase'), { userId: a.userId, studioId: 1 }, now);
  t.like(await eraseAccountAndFiles(gw.app, a.userId, now, { immediate: true }), { kind: 'erased' });
  t.is(await gw.app.db('session_handoffs').where({ user_id: a.userId }).first(), undefined, 'the hand-off went with the account');
  // a password or Google sign-in that checked the account before the erasure writes its session after it
  const token = newSecret(SESSION_PREFIX);
  await insertSession(gw.app.db, a.userId, sha256Hex(token), now, 3600);
  const res = await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: bearer(token) });
  t.is(res.statusCode, 401, res.payload);
});

test.serial('erasing an account removes its personal LoRAs; a LoRA it registered for a team stays with the team', async (t) => {
  const a = await newAccount(gw);
  const teamId = await createTeam(a, 'lora team');
  const other = await newAccount(gw);
  // another owner, so the person may leave
  await gw.app.db('team_members').insert({ team_id: teamId, user_id: other.userId, role: 'owner', created_at: now });
  const lora = (teamQuery: string) => gw.server.inject({ method: 'POST', url: `/app/loras${teamQuery}`, headers: bearer(a.session), payload: {
    name: `mine-${teamQuery ? 'team' : 'own'}`, lora_type: 'character', base_model: 'lumen', title: 'My face', description: 'trained on photos of me',
    weights_url: 'https://weights.example.com/me.safetensors', preview_url: 'https://weights.example.com/me.png',
  } });
  t.is((await lora('')).statusCode, 201);
  t.is((await lora(`?team_id=${teamId}`)).statusCode, 201);
  t.like(await eraseAccountAndFiles(gw.app, a.userId, now, { immediate: true }), { kind: 'erased' });
  t.deepEqual(await gw.app.db('loras').where({ user_id: a.userId }).whereNull('team_id').pluck('name'), [], 'the personal LoRA is gone');
  t.deepEqual(await gw.app.db('loras').where({ team_id: teamId }).pluck('name'), ['mine-team']);
});

test.serial('erasing an account takes its address out of the descriptions staff wrote on its ledger rows; the amounts stay', async (t) => {
  const a = await newAccount(gw);
  const email = String((await gw.app.db('users').where({ id: a.userId }).first('email')).email);
  // an administrator's top-up whose reason names the person, as a support ticket's text would
  await gw.app.db.transaction((trx) => creditWallet(trx, { userId: a.userId, teamId: null }, 250, 'topup', `goodwill for ${email.toUpperCase()} (ticket 7)`, now));
  t.like(await eraseAccountAndFiles(gw.app, a.userId, now, { immediate: true }), { kind: 'erased' });
  const rows = await gw.app.db('credit_transactions').where({ user_id: a.userId }).select('amount', 'description');
  t.deepEqual(rows.map((r) => Number(r.amount)), [250]);
  t.is(rows[0].description, `goodwill for deleted-${a.userId}@deleted.invalid (ticket 7)`);
  t.false(JSON.stringify(rows).toLowerCase().includes(email.toLowerCase()));
});

test.serial('a prediction that completes while the eraser removes the files has its files removed too, not left behind without a row', async (t) => {
  const a = await newAccount(gw, 1000);
  const first = await generate(a.liveKey);
  let late = '';
  // the storage the eraser uses: while it removes the first run's files, a second run completes and stores its own
  const storage = Object.create(gw.app.storage) as typeof gw.app.storage;
  storage.removeOutputs = async (id, keys) => {
    if (!late) late = await generate(a.liveKey);
    return gw.app.storage.removeOutputs(id, keys);
  };
  t.like(await eraseAccountAndFiles({ ...gw.app, storage }, a.userId, now, { immediate: true }), { kind: 'erased' });
  t.truthy(late);
  t.is(await gw.app.db('predictions').where({ id: late }).first(), undefined);
  for (const id of [first, late]) {
    await t.throwsAsync(fs.readdir(path.join(gw.app.config.storageDir, 'outputs', id)), undefined, `the files of ${id === first ? 'the first' : 'the late'} run are removed`);
  }
});

test.serial('erasing an account revokes the team invites it sent: a token in someone\'s mailbox no longer joins the team', async (t) => {
  const a = await newAccount(gw);
  const other = await newAccount(gw);
  const teamId = await createTeam(other, 'invited team');
  await gw.app.db('team_members').insert({ team_id: teamId, user_id: a.userId, role: 'admin', created_at: now });
  const invitee = await newAccount(gw);
  const inviteeEmail = String((await gw.app.db('users').where({ id: invitee.userId }).first('email')).email);
  const token = newSecret('mgi_');
  await createInvite(gw.app.db, { teamId, email: inviteeEmail, role: 'developer', invitedBy: a.userId, tokenHash: sha256Hex(token) }, now);
  t.like(await eraseAccountAndFiles(gw.app, a.userId, now, { immediate: true }), { kind: 'erased' });
  const res = await gw.server.inject({ method: 'POST', url: '/app/team_invites/accept', headers: bearer(invitee.session), payload: { token } });
  t.is(res.statusCode, 404, res.payload);
  t.is(await gw.app.db('team_members').where({ team_id: teamId, user_id: invitee.userId }).first(), undefined);
});

test.serial('erasing an account removes its alert settings and its alerts; a team\'s stay', async (t) => {
  const a = await newAccount(gw);
  const teamId = await createTeam(a, 'alerting team');
  const other = await newAccount(gw);
  await gw.app.db('team_members').insert({ team_id: teamId, user_id: other.userId, role: 'owner', created_at: now });
  const auth = bearer(a.session);
  t.is((await gw.server.inject({ method: 'PUT', url: '/app/alert_settings', headers: auth, payload: { low_balance_threshold: 100, monthly_budget: 5000, monthly_budget_mode: 'hard' } })).statusCode, 200);
  await gw.app.db('users').where({ id: a.userId }).update({ low_balance_epoch: 3 });
  await gw.app.db('alerts').insert({ user_id: a.userId, team_id: null, subject: `u:${a.userId}`, kind: 'monthly_budget', period: '2026-11', threshold: 5000, value: 5100, claim: 'y', created_at: now });
  await gw.app.db('alerts').insert({ user_id: a.userId, team_id: teamId, subject: `t:${teamId}`, kind: 'monthly_budget', period: '2026-11', threshold: 10, value: 20, claim: 'z', created_at: now });
  t.like(await eraseAccountAndFiles(gw.app, a.userId, now, { immediate: true }), { kind: 'erased' });
  const row = (await gw.app.db('users').where({ id: a.userId }).first())!;
  t.like({ ...row, monthly_budget_hard: Boolean(row.monthly_budget_hard) }, { low_balance_threshold: null, monthly_budget: null, monthly_budget_hard: false, low_balance_epoch: 0 });
  t.deepEqual(await gw.app.db('alerts').where({ user_id: a.userId }).whereNull('team_id'), [], 'the personal alerts are gone');
  t.is((await gw.app.db('alerts').where({ team_id: teamId })).length, 1, "the team's alert stays with the team");
});

test.serial('erasing an account revokes the team API keys it created, at once and after the grace period; keys other members created keep working', async (t) => {
  const owner = await newAccount(gw, 0);
  const teamId = await createTeam(owner, 'keyed team');
  await gw.app.db('teams').where({ id: teamId }).update({ balance: 1000 });
  const teamKey = async (a: Account): Promise<{ id: number; key: string }> => {
    const res = await gw.server.inject({ method: 'POST', url: `/app/teams/${teamId}/keys`, headers: bearer(a.session), payload: { name: 'ci' } });
    if (res.statusCode !== 201) throw new Error(res.payload);
    return res.result as { id: number; key: string };
  };
  const kept = await teamKey(owner);
  const erasedAtOnce = await newAccount(gw);
  const erasedLater = await newAccount(gw);
  for (const a of [erasedAtOnce, erasedLater]) await gw.app.db('team_members').insert({ team_id: teamId, user_id: a.userId, role: 'developer', created_at: now });
  const atOnce = await teamKey(erasedAtOnce);
  const later = await teamKey(erasedLater);
  // each used once, so a cached credential would answer the next request if the erasure did not drop it
  for (const k of [kept, atOnce, later]) t.is((await balanceWith(k.key)).statusCode, 200);

  // an administrator's erasure (no grace period)
  t.like(await eraseAccountAndFiles(gw.app, erasedAtOnce.userId, now, { immediate: true }), { kind: 'erased' });
  t.is((await balanceWith(atOnce.key)).statusCode, 401);
  t.not((await gw.app.db('api_keys').where({ id: atOnce.id }).first()).revoked_at, null, 'the row stays, revoked, for the team\'s records');
  t.is((await generate(kept.key)).length > 0, true, 'a key another member created still spends the team wallet');

  // the retention job's erasure after the grace period
  t.is((await requestDeletion(erasedLater)).statusCode, 200);
  t.is((await balanceWith(later.key)).statusCode, 200, 'a team key keeps working while its creator\'s deletion is pending');
  now += 15 * DAY;
  t.is((await runNextPeriod()).accounts, 1);
  t.is((await balanceWith(later.key)).statusCode, 401);
  t.is((await gw.server.inject({ method: 'POST', url: MODEL, headers: { 'x-api-key': later.key }, payload: { prompt: 'a lighthouse', width: 64, height: 64 } })).statusCode, 401);
  t.is((await balanceWith(kept.key)).statusCode, 200);
});
