// Issue 11, adminDeleteUser: an administrator erases an account at once with the retention job's
// eraser (README "Deleting an account"): its keys, sessions, OAuth clients and their tokens,
// personal predictions and their files, media, memberships, embed codes and support links go;
// the anonymised users row, the ledger rows and the audit rows stay. The only owner of a team and
// the last administrator are refused with 409; only the admin role may call it.
import test from 'ava';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { createClient, tokenFor } from '../helpers/oauth.ts';
import { ledgerCheckedAfterEach } from '../helpers/ledger.ts';
import { waitFor } from '../helpers/services.ts';
import { creditTeam } from '../../db/wallet/moves.ts';

type Staff = 'user' | 'support' | 'billing' | 'admin';
let gw: TestGateway;
const as: Record<Staff, Account & { email: string }> = {} as never;
const MODEL = '/api/v1/canvas-v1-fast-text-to-image';

async function account(credit = 0): Promise<Account & { email: string }> {
  const acct = await newAccount(gw, credit);
  const row = await gw.app.db('users').where({ id: acct.userId }).first('email');
  return { ...acct, email: String(row.email) };
}

test.before(async () => {
  gw = await startGateway({ worker: true, queue: 'memory' });
  for (const role of ['user', 'support', 'billing', 'admin'] as const) {
    as[role] = await account();
    await gw.app.db('users').where({ id: as[role].userId }).update({ role });
  }
});
test.after.always(async () => { await gw?.stop(); });
ledgerCheckedAfterEach(test, () => gw?.app.db);

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const deleteUser = (caller: string, email: string) => callOperation<{ id?: number; deleted?: boolean; code?: string; detail?: string }>(gw, 'adminDeleteUser', { as: caller, body: { email, reason: 'GDPR request 9' } });

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

const count = async (table: string, where: Record<string, unknown>) => Number((await gw.app.db(table).where(where).count({ n: '*' }).first())!.n);

test.serial('deleting a user removes everything it owns at once and keeps the anonymised row, its ledger and audit rows', async (t) => {
  const a = await account(1000);
  const other = await account(1000);
  const teamId = await createTeam(other, 'studio');
  await gw.app.db('team_members').insert({ team_id: teamId, user_id: a.userId, role: 'developer', created_at: Date.now() });
  await gw.app.db.transaction((trx) => creditTeam(trx, teamId, other.userId, 1000, 'grant', 'test credit', Date.now()));
  const personal = await generate(a.liveKey);
  const forTeam = await generate(a.liveKey, teamId);
  const file = path.join(gw.app.config.storageDir, 'outputs', personal);
  await fs.stat(file);
  const client = await createClient(gw, a.session, ['account:read']);
  const token = await tokenFor(gw, client);
  const auth = bearer(a.session);
  t.is((await gw.server.inject({ method: 'POST', url: '/app/media-library', headers: auth, payload: { url: 'https://cdn.example.com/a.png', media_type: 'image', name: 'a' } })).statusCode, 200);
  t.is((await gw.server.inject({ method: 'GET', url: '/app/get_file_upload_url?filename=b.png', headers: auth })).statusCode, 200);
  t.is((await gw.server.inject({ method: 'POST', url: '/app/embed-codes', headers: auth, payload: { kind: 'embed', name: 'widget', models: ['canvas-v1-fast-text-to-image'] } })).statusCode, 201);
  t.is((await callOperation(gw, 'adminSupportLoginLink', { as: as.support.session, body: { email: a.email, reason: 'ticket 1' } })).status, 200);
  // what came with discounts, subscriptions and studios
  t.is((await callOperation(gw, 'upsertModelDiscounts', { as: as.admin.session, body: { discounts: [{ email: a.email, model: '*', percent_off: 10 }] } })).status, 200);
  t.is((await callOperation(gw, 'adminManageSubscription', { as: as.admin.session, body: { email: a.email, action: 'activate', plan: 'starter' } })).status, 200);
  const studio = await callOperation<{ id: number }>(gw, 'createStudio', { as: a.session, body: { slug: `del-${a.userId}`, name: 'to go', domains: [`del-${a.userId}.example.com`], allowed_models: ['canvas-v1-fast-text-to-image'], payer_mode: 'end_user_pays' } });
  t.is(studio.status, 201, JSON.stringify(studio.body));
  const ledgerBefore = await count('credit_transactions', { user_id: a.userId });
  t.true(ledgerBefore > 0);

  const res = await deleteUser(as.admin.session, a.email);
  t.is(res.status, 200, JSON.stringify(res.body));
  t.deepEqual(res.body, { id: a.userId, deleted: true });

  const row = (await gw.app.db('users').where({ id: a.userId }).first())!;
  t.is(row.email, `deleted-${a.userId}@deleted.invalid`);
  t.is(row.password_hash, null);
  t.truthy(row.deleted_at);
  for (const table of ['api_keys', 'sessions', 'oauth_clients', 'team_members', 'webhook_secrets', 'media_assets', 'uploads', 'embed_codes', 'support_links', 'otp_codes']) {
    const left = await gw.app.db(table).where({ user_id: a.userId }).modify((q) => { if (table === 'api_keys') q.whereNull('team_id'); });
    t.deepEqual(left, [], `${table} rows removed`);
  }
  t.is(await count('oauth_provider_records', { client_id: client.client_id }), 0, "the client's tokens are gone");
  t.is(await count('model_discounts', { user_id: a.userId }), 0, 'personal discounts removed');
  t.like(await gw.app.db('subscriptions').where({ user_id: a.userId }).first(), { status: 'cancelled' }, 'the subscription ends');
  t.truthy((await gw.app.db('studios').where({ id: studio.body.id }).first()).disabled_at, 'the personal studio is disabled');
  t.is(await count('studio_domains', { studio_id: studio.body.id }), 0, 'and its domains are free');
  t.is(await count('studio_domain_claims', { studio_id: studio.body.id }), 0, 'and no claim of them is left');
  t.is(await gw.app.db('predictions').where({ id: personal }).first(), undefined);
  t.truthy(await gw.app.db('predictions').where({ id: forTeam }).first(), "the team's run stays with the team");
  await t.throwsAsync(fs.stat(file), undefined, 'the output files are removed');
  t.is(await count('credit_transactions', { user_id: a.userId }), ledgerBefore, 'ledger rows are kept');
  t.true(await count('admin_audit', { target_user_id: a.userId }) >= 2, 'audit rows are kept');
  // kept, and anonymous: an email is recorded as the account it named (user:<id>), never as the address
  t.false(JSON.stringify(await gw.app.db('admin_audit').select('params', 'reason')).includes(a.email), 'no audit row holds the address');
  const audited = await gw.app.db('admin_audit').where({ action: 'adminDeleteUser', target_user_id: a.userId }).first();
  t.like({ ...audited, status: Number(audited.status), actor_user_id: Number(audited.actor_user_id) }, { status: 200, actor_user_id: as.admin.userId, reason: 'GDPR request 9' });

  // every credential is dead
  t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': a.liveKey } })).statusCode, 401);
  t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: auth })).statusCode, 401);
  t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: bearer(token) })).statusCode, 401);
  t.is((await deleteUser(as.admin.session, a.email)).status, 404, 'the address is unknown now');
});

test.serial('the only owner of a team is refused with 409 and nothing is erased until ownership moves', async (t) => {
  const a = await account();
  const b = await account();
  const teamId = await createTeam(a, 'lighthouse keepers');
  const res = await deleteUser(as.admin.session, a.email);
  t.is(res.status, 409);
  t.regex(res.body.detail!, /only owner of team \d+ \(lighthouse keepers\)/);
  t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': a.liveKey } })).statusCode, 200, 'nothing was erased');
  await gw.app.db('team_members').insert({ team_id: teamId, user_id: b.userId, role: 'owner', created_at: Date.now() });
  t.is((await deleteUser(as.admin.session, a.email)).status, 200);
});

test.serial('the last administrator cannot be deleted; another one can', async (t) => {
  const second = await account();
  await gw.app.db('users').where({ id: second.userId }).update({ role: 'admin' });
  t.is((await deleteUser(as.admin.session, second.email)).status, 200, 'with two admins, one may go');
  const last = await deleteUser(as.admin.session, as.admin.email);
  t.is(last.status, 409);
  t.regex(last.body.detail!, /last administrator/);
  t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: bearer(as.admin.session) })).statusCode, 200);
  t.is((await gw.app.db('users').where({ id: second.userId }).first()).role, 'user', 'a tombstone holds no role');
});

test.serial('only the admin role may call it; 404 for an unknown email, 422 for a bad body', async (t) => {
  const a = await account();
  for (const role of ['user', 'support', 'billing'] as const) {
    t.like(await deleteUser(as[role].session, a.email), { status: 403, body: { code: 'role_required' } }, role);
  }
  t.like(await deleteUser(as.admin.liveKey, a.email), { status: 403, body: { code: 'session_required' } });
  t.is((await deleteUser(as.admin.session, 'nobody-here@example.com')).status, 404);
  t.is((await callOperation(gw, 'adminDeleteUser', { as: as.admin.session, body: { email: 'not an email' } })).status, 422);
  t.is((await callOperation(gw, 'adminDeleteUser', { as: as.admin.session, body: { email: a.email, extra: 1 } })).status, 422);
  t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': a.liveKey } })).statusCode, 200, 'still there');
});

test.serial("an erased account's anonymised address names no account to act on: no credit, discount, impersonation or support link, so nobody can sign in to it", async (t) => {
  const a = await account(0);
  t.is((await deleteUser(as.admin.session, a.email)).status, 200);
  const tombstone = `deleted-${a.userId}@deleted.invalid`;
  const before = await gw.app.db('users').where({ id: a.userId }).first('balance', 'password_hash');
  const refused: Array<[string, unknown]> = [
    ['adminTopup', { email: tombstone, amount: 500, reason: 'goodwill' }],
    ['adminDeductCredits', { email: tombstone, amount: 1, allow_negative: true }],
    ['upsertModelDiscounts', { discounts: [{ email: tombstone, model: '*', percent_off: 50 }] }],
    ['adminManageSubscription', { email: tombstone, action: 'activate', plan: 'starter' }],
    ['virtualLogin', { email: tombstone, reason: 'ticket 3' }],
    ['adminSupportLoginLink', { email: tombstone, reason: 'ticket 3' }],
    ['adminPasswordResetLink', { email: tombstone, reason: 'ticket 3' }],
  ];
  for (const [op, body] of refused) {
    const res = await callOperation<{ code?: string }>(gw, op, { as: as.admin.session, body });
    t.like(res, { status: 404, body: { code: 'not_found' } }, `${op} on an erased account: ${JSON.stringify(res.body)}`);
  }
  t.deepEqual(await gw.app.db('users').where({ id: a.userId }).first('balance', 'password_hash'), before, 'the tombstone is untouched');
  t.is(await count('sessions', { user_id: a.userId }), 0);
  t.is(await count('support_links', { user_id: a.userId }), 0);
  t.is(await count('model_discounts', { user_id: a.userId }), 0);
  // reading what is left of it stays possible for staff
  t.is((await callOperation(gw, 'adminUserInfo', { as: as.support.session, query: { email: tombstone } })).status, 200);
});

test.serial("nobody can register an erased account's address ahead of it: .invalid addresses are 422, and the erasure goes through", async (t) => {
  const target = await account();
  // the address the erasure will give the account's anonymised row
  const squat = await gw.server.inject({ method: 'POST', url: '/auth/register', payload: { email: `deleted-${target.userId}@deleted.invalid`, password: 'squatting the tombstone' } });
  t.is(squat.statusCode, 422, squat.payload);
  t.is((squat.result as { code: string }).code, 'validation_failed');
  t.regex(squat.payload, /cannot receive mail/);
  const other = await gw.server.inject({ method: 'POST', url: '/auth/register', payload: { email: 'someone@mail.example.INVALID ', password: 'a long enough password' } });
  t.is(other.statusCode, 422, other.payload);
  const res = await deleteUser(as.admin.session, target.email);
  t.is(res.status, 200, JSON.stringify(res.body));
  t.is((await gw.app.db('users').where({ id: target.userId }).first('email')).email, `deleted-${target.userId}@deleted.invalid`);
});
