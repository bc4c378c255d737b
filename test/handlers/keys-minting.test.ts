// No credential mints a stronger one (issue 16 item 2): a key created by an OAuth token carries at
// most the token's scopes, a sandbox key can do only sandbox things, and a key created by an
// IP-restricted key stays inside that restriction.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import { createClient, tokenFor } from '../helpers/oauth.ts';
import { insertDelivery } from '../../db/webhooks.ts';
import { createInvite } from '../../db/teams.ts';
import { sha256Hex } from '../../lib/secrets.ts';

let gw: TestGateway;
let acct: Account;

test.before(async () => {
  gw = await startGateway({ queue: 'memory' });
  acct = await newAccount(gw, 100_000);
});
test.after.always(async () => {
  await gw?.stop();
});

type Headers = Record<string, string>;
const bearer = (t: string): Headers => ({ authorization: `Bearer ${t}` });
const apiKey = (k: string): Headers => ({ 'x-api-key': k });

async function call(method: string, url: string, headers: Headers, payload?: object) {
  const res = await gw.server.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  return { status: res.statusCode, body: res.result as Record<string, unknown> };
}

async function newKey(headers: Headers, payload: object) {
  const res = await call('POST', '/api/v1/keys', headers, payload);
  return res;
}

async function tokenWith(a: Account, scopes: string[]): Promise<string> {
  return tokenFor(gw, await createClient(gw, a.session, scopes, scopes.join('+')));
}

// ------------------------------------------------------------------ scopes

test('a key created by a session or an unrestricted key acts with every scope', async (t) => {
  const bySession = await newKey(bearer(acct.session), { name: 's' });
  t.is(bySession.status, 200);
  t.is(bySession.body.scopes, null);
  const byKey = await newKey(apiKey(acct.liveKey), { name: 'k' });
  t.is(byKey.body.scopes, null);
  t.is((await call('GET', '/account/balance', apiKey(String(byKey.body.key)))).status, 200);
});

test('a key created by a keys:manage token carries only keys:manage, and so does a key it creates', async (t) => {
  const token = await tokenWith(acct, ['keys:manage']);
  const created = await newKey(bearer(token), { name: 'from token' });
  t.is(created.status, 200);
  t.deepEqual(created.body.scopes, ['keys:manage']);
  const key = String(created.body.key);
  // the five-scope power the issue reproduced is gone
  t.is((await call('GET', '/account/balance', apiKey(key))).status, 403);
  t.is((await call('POST', '/api/v1/canvas-v1-fast-text-to-image', apiKey(key), { prompt: 'x' })).status, 403);
  t.is((await call('GET', '/app/get_user_keys', apiKey(key))).status, 200);
  // a grandchild cannot widen it either
  const grandchild = await newKey(apiKey(key), { name: 'grandchild' });
  t.deepEqual(grandchild.body.scopes, ['keys:manage']);
  t.is((await call('GET', '/account/balance', apiKey(String(grandchild.body.key)))).status, 403);
  // the listing shows each key's scopes
  const list = (await call('GET', '/app/get_user_keys', bearer(acct.session))).body as unknown as Array<{ id: number; scopes: string[] | null }>;
  t.deepEqual(list.find((k) => k.id === created.body.id)?.scopes, ['keys:manage']);
});

test('a keys:manage token cannot rotate a key holding scopes it lacks, which would hand it that key\'s secret', async (t) => {
  const full = await newKey(bearer(acct.session), { name: 'all five' });
  const token = await tokenWith(acct, ['keys:manage']);
  const rotated = await call('POST', `/app/api_keys/${String(full.body.id)}/rotate`, bearer(token), { grace_seconds: 0 });
  t.is(rotated.status, 403);
  t.regex(String(rotated.body.detail), /generate:write/);
  t.false('api_key' in rotated.body);
  // the key keeps its secret
  t.is((await call('GET', '/account/balance', apiKey(String(full.body.key)))).status, 200);
  // a key within the token's scopes rotates as before, and a session rotates any
  const own = await newKey(bearer(token), { name: 'from token' });
  const ownRotated = await call('POST', `/app/api_keys/${String(own.body.id)}/rotate`, bearer(token), { grace_seconds: 0 });
  t.is(ownRotated.status, 200);
  t.deepEqual(ownRotated.body.scopes, ['keys:manage']);
  t.is((await call('POST', `/app/api_keys/${String(full.body.id)}/rotate`, bearer(acct.session), { grace_seconds: 0 })).status, 200);
});

test('a keys:manage token cannot rotate a team key holding scopes it lacks', async (t) => {
  const team = await call('POST', '/app/teams', bearer(acct.session), { name: 'rotation' });
  t.is(team.status, 201);
  const teamId = String(team.body.id);
  const full = await call('POST', `/app/teams/${teamId}/keys`, bearer(acct.session), { name: 'all five' });
  t.true(full.status < 300, JSON.stringify(full.body));
  const token = await tokenWith(acct, ['keys:manage', 'account:read']);
  const rotated = await call('POST', `/app/teams/${teamId}/keys/${String(full.body.id)}/rotate`, bearer(token), { grace_seconds: 0 });
  t.is(rotated.status, 403);
  t.false('api_key' in rotated.body);
  t.is((await call('POST', `/app/teams/${teamId}/keys/${String(full.body.id)}/rotate`, bearer(acct.session), { grace_seconds: 0 })).status, 200);
});

test('a key created by a token holding generate:read and keys:manage can read results but not submit', async (t) => {
  const token = await tokenWith(acct, ['generate:read', 'keys:manage']);
  const created = await newKey(bearer(token), { name: 'reader' });
  t.deepEqual(created.body.scopes, ['generate:read', 'keys:manage']);
  const key = String(created.body.key);
  const submitted = await call('POST', '/api/v1/canvas-v1-fast-text-to-image', apiKey(acct.testKey), { prompt: 'x' });
  t.is(submitted.status, 200);
  t.is((await call('GET', `/api/v1/predictions/${String(submitted.body.request_id)}/result`, apiKey(key))).status, 200);
  t.is((await call('POST', '/api/v1/canvas-v1-fast-text-to-image', apiKey(key), { prompt: 'x' })).status, 403);
});

test('a token or key without generate:write and generate:read cannot mint or widen an embed code, which submits and reads with both', async (t) => {
  const a = await newAccount(gw, 10_000);
  const body = { kind: 'embed', name: 'widget', models: ['canvas-v1-fast-text-to-image'] };
  const token = await tokenWith(a, ['keys:manage']);
  // the token itself may not submit...
  t.is((await call('POST', '/api/v1/canvas-v1-fast-text-to-image', bearer(token), { prompt: 'x' })).status, 403);
  // ...so it may not make a code that does
  const created = await call('POST', '/app/embed-codes', bearer(token), body);
  t.is(created.status, 403, JSON.stringify(created.body));
  t.regex(String(created.body.detail), /generate:write, generate:read/);
  const key = String((await newKey(bearer(token), { name: 'child' })).body.key);
  t.is((await call('POST', '/app/embed-codes', apiKey(key), body)).status, 403, 'nor a key it created');
  // nor widen one the account made: other models, no caps
  const existing = await call('POST', '/app/embed-codes', bearer(a.session), body);
  t.is(existing.status, 201);
  const widened = await call('PATCH', `/app/embed-codes/${String(existing.body.id)}`, bearer(token), { models: ['canvas-v1-fast-text-to-image'], max_cost_per_run: null });
  t.is(widened.status, 403);
  // it may still list, read and revoke codes, which takes power away
  t.is((await call('GET', '/app/embed-codes', bearer(token))).status, 200);
  t.is((await call('DELETE', `/app/embed-codes/${String(existing.body.id)}`, bearer(token))).status, 200);
  // a token holding both generation scopes as well may
  const full = await tokenWith(a, ['keys:manage', 'generate:write', 'generate:read']);
  t.is((await call('POST', '/app/embed-codes', bearer(full), body)).status, 201);
});

test('a token or key without generate:write cannot set up a studio whose users spend the owner\'s credit (owner_pays)', async (t) => {
  const a = await newAccount(gw, 10_000);
  const slug = () => `m-${Math.random().toString(36).slice(2, 10)}`;
  const studio = (payer_mode: string) => ({ slug: slug(), name: 'Shop', allowed_models: ['canvas-v1-fast-text-to-image'], payer_mode });
  const token = await tokenWith(a, ['keys:manage']);
  const owned = await call('POST', '/app/studios', bearer(token), studio('owner_pays'));
  t.is(owned.status, 403, JSON.stringify(owned.body));
  t.regex(String(owned.body.detail), /generate:write/);
  const key = String((await newKey(bearer(token), { name: 'child' })).body.key);
  t.is((await call('POST', '/app/studios', apiKey(key), studio('owner_pays'))).status, 403, 'nor a key it created');
  // a studio whose users pay for themselves spends nothing of the owner's
  const selfPaying = await call('POST', '/app/studios', bearer(token), studio('end_user_pays'));
  t.is(selfPaying.status, 201, JSON.stringify(selfPaying.body));
  const id = String(selfPaying.body.id);
  t.is((await call('PATCH', `/app/studios/${id}`, bearer(token), { name: 'Renamed' })).status, 200);
  t.is((await call('PATCH', `/app/studios/${id}`, bearer(token), { payer_mode: 'owner_pays' })).status, 403);
  // nor change what an owner_pays studio the account set up lets its users run
  const bySession = await call('POST', '/app/studios', bearer(a.session), studio('owner_pays'));
  t.is(bySession.status, 201);
  t.is((await call('PATCH', `/app/studios/${String(bySession.body.id)}`, bearer(token), { allowed_models: ['canvas-v1-fast-text-to-image'] })).status, 403);
  // it may still read and disable studios
  t.is((await call('GET', '/app/studios', bearer(token))).status, 200);
  t.is((await call('DELETE', `/app/studios/${String(bySession.body.id)}`, bearer(token))).status, 200);
  // a token that may spend the credit itself may
  const spender = await tokenWith(a, ['keys:manage', 'generate:write']);
  t.is((await call('POST', '/app/studios', bearer(spender), studio('owner_pays'))).status, 201);
});

const emailOf = async (a: Account) => (await gw.app.db('users').where({ id: a.userId }).first<{ email: string }>('email'))!.email;

test('a token or key without generate:write cannot invite someone, or give a member, a role that spends the team wallet', async (t) => {
  const a = await newAccount(gw, 10_000);
  const other = await newAccount(gw);
  const team = (await call('POST', '/app/teams', bearer(a.session), { name: 'Wallet' })).body;
  const teamId = String(team.id);
  // it may read what every role reads, so only spending is beyond it
  const reader = await tokenWith(a, ['keys:manage', 'generate:read', 'account:read']);
  const key = String((await newKey(bearer(reader), { name: 'child' })).body.key);
  const email = await emailOf(other);
  for (const role of ['developer', 'admin', 'owner']) {
    const invited = await call('POST', `/app/teams/${teamId}/invites`, bearer(reader), { email, role });
    t.is(invited.status, 403, `${role}: ${JSON.stringify(invited.body)}`);
    t.regex(String(invited.body.detail), /needs generate:write and files:write \(for the role to run models on the team's wallet and upload files for it\), which/);
    t.is((await call('POST', `/app/teams/${teamId}/invites`, apiKey(key), { email, role })).status, 403, `nor a key it created (${role})`);
  }
  // roles that spend nothing need only what they read
  for (const role of ['viewer', 'billing']) t.is((await call('POST', `/app/teams/${teamId}/invites`, bearer(reader), { email, role })).status, 201, role);

  // nor raise a member to one
  await gw.app.db('team_members').insert({ team_id: team.id, user_id: other.userId, role: 'viewer', created_at: Date.now() });
  const raised = await call('PATCH', `/app/teams/${teamId}/members/${other.userId}`, bearer(reader), { role: 'developer' });
  t.is(raised.status, 403, JSON.stringify(raised.body));
  t.regex(String(raised.body.detail), /generate:write/);
  t.is((await call('PATCH', `/app/teams/${teamId}/members/${other.userId}`, apiKey(key), { role: 'admin' })).status, 403);
  t.is((await call('PATCH', `/app/teams/${teamId}/members/${other.userId}`, bearer(reader), { role: 'billing' })).status, 200);
  t.is((await call('POST', `/api/v1/canvas-v1-fast-text-to-image?team_id=${teamId}`, apiKey(other.liveKey), { prompt: 'x' })).status, 403, 'the member still cannot spend the wallet');

  // a token that may spend the wallet (and upload for it) itself may; so may a session and an unrestricted key
  const spender = await tokenWith(a, ['keys:manage', 'generate:read', 'account:read', 'generate:write', 'files:write']);
  t.is((await call('PATCH', `/app/teams/${teamId}/members/${other.userId}`, bearer(spender), { role: 'developer' })).status, 200);
  t.is((await call('POST', `/app/teams/${teamId}/invites`, bearer(spender), { email, role: 'admin' })).status, 201);
  t.is((await call('POST', `/app/teams/${teamId}/invites`, bearer(a.session), { email, role: 'developer' })).status, 201);
  t.is((await call('PATCH', `/app/teams/${teamId}/members/${other.userId}`, apiKey(a.liveKey), { role: 'admin' })).status, 200);
});

test('a token or key that cannot read the team\'s history or balance cannot invite someone, or give a member, a role that reads them', async (t) => {
  const a = await newAccount(gw, 10_000);
  const other = await newAccount(gw);
  const team = (await call('POST', '/app/teams', bearer(a.session), { name: 'History' })).body;
  const teamId = String(team.id);
  const manager = await tokenWith(a, ['keys:manage']);
  const key = String((await newKey(bearer(manager), { name: 'child' })).body.key);
  const email = await emailOf(other);
  for (const role of ['viewer', 'billing']) {
    const invited = await call('POST', `/app/teams/${teamId}/invites`, bearer(manager), { email, role });
    t.is(invited.status, 403, `${role}: ${JSON.stringify(invited.body)}`);
    t.is((await call('POST', `/app/teams/${teamId}/invites`, apiKey(key), { email, role })).status, 403, `nor a key it created (${role})`);
  }
  const viewer = await call('POST', `/app/teams/${teamId}/invites`, bearer(manager), { email, role: 'viewer' });
  t.is(viewer.body.detail, 'inviting someone as viewer needs generate:read and account:read (for the role to read the team\'s history), which this credential does not hold; no credential may make another that can do more than itself');
  const billing = await call('POST', `/app/teams/${teamId}/invites`, bearer(manager), { email, role: 'billing' });
  t.regex(String(billing.body.detail), /needs generate:read \(for the role to read the team's history\) and account:read \(for the role to read the team's history and read the team's balance\), which/);
  // one of the two is not enough
  const half = await tokenWith(a, ['keys:manage', 'account:read']);
  const halfRefusal = await call('POST', `/app/teams/${teamId}/invites`, bearer(half), { email, role: 'viewer' });
  t.is(halfRefusal.status, 403);
  t.regex(String(halfRefusal.body.detail), /needs generate:read \(/);
  t.notRegex(String(halfRefusal.body.detail), /account:read/);
  t.deepEqual((await call('GET', `/app/teams/${teamId}/invites`, bearer(a.session))).body as unknown, [], 'no invite was made');

  // nor change a member to one
  await gw.app.db('team_members').insert({ team_id: team.id, user_id: other.userId, role: 'viewer', created_at: Date.now() });
  const changed = await call('PATCH', `/app/teams/${teamId}/members/${other.userId}`, bearer(manager), { role: 'billing' });
  t.is(changed.status, 403, JSON.stringify(changed.body));
  t.regex(String(changed.body.detail), /^making a member billing needs generate:read/);
  t.is((await call('PATCH', `/app/teams/${teamId}/members/${other.userId}`, apiKey(key), { role: 'viewer' })).status, 403);
  t.is((await gw.app.db('team_members').where({ team_id: team.id, user_id: other.userId }).first<{ role: string }>('role'))!.role, 'viewer');

  // a credential that reads them itself may; so may a session and an unrestricted key
  const reader = await tokenWith(a, ['keys:manage', 'generate:read', 'account:read']);
  t.is((await call('PATCH', `/app/teams/${teamId}/members/${other.userId}`, bearer(reader), { role: 'billing' })).status, 200);
  t.is((await call('POST', `/app/teams/${teamId}/invites`, bearer(reader), { email: 'reader-invite@example.com', role: 'viewer' })).status, 201);
  t.is((await call('POST', `/app/teams/${teamId}/invites`, bearer(a.session), { email: 'session-invite@example.com', role: 'billing' })).status, 201);
  t.is((await call('PATCH', `/app/teams/${teamId}/members/${other.userId}`, apiKey(a.liveKey), { role: 'viewer' })).status, 200);
});

test('accepting an invite takes no scope: a restricted key that accepts one still cannot spend the team wallet', async (t) => {
  const a = await newAccount(gw, 10_000);
  const other = await newAccount(gw);
  const team = (await call('POST', '/app/teams', bearer(a.session), { name: 'Joined' })).body;
  const invite = 'mgi_restricted_key_accepts';
  await createInvite(gw.app.db, { teamId: Number(team.id), email: await emailOf(other), role: 'developer', invitedBy: a.userId, tokenHash: sha256Hex(invite) }, Date.now());
  const token = await tokenWith(other, ['keys:manage']);
  const key = String((await newKey(bearer(token), { name: 'reader' })).body.key);
  const accepted = await call('POST', '/app/team_invites/accept', apiKey(key), { token: invite });
  t.is(accepted.status, 200, JSON.stringify(accepted.body));
  // the key keeps its scopes: it may not submit for the team (nor for anyone)
  t.is((await call('POST', `/api/v1/canvas-v1-fast-text-to-image?team_id=${String(team.id)}`, apiKey(key), { prompt: 'x' })).status, 403);
});

// ------------------------------------------------------------------ sandbox keys

test('a sandbox key creates sandbox keys only', async (t) => {
  const prod = await newKey(apiKey(acct.testKey), { name: 'escalate', is_test: false });
  t.is(prod.status, 403);
  t.regex(String(prod.body.detail), /sandbox/);
  const dashboard = await call('POST', '/app/generate-api-key', apiKey(acct.testKey), { name: 'escalate' });
  t.is(dashboard.status, 403);
  const sandbox = await newKey(apiKey(acct.testKey), { name: 'fine', is_test: true });
  t.is(sandbox.status, 200);
  t.true(sandbox.body.is_test);
});

test('a sandbox key revokes sandbox keys only', async (t) => {
  const a = await newAccount(gw, 0);
  const keys = (await call('GET', '/app/get_user_keys', bearer(a.session))).body as unknown as Array<{ id: number; is_test: boolean }>;
  const live = keys.find((k) => !k.is_test)!;
  const refused = await call('DELETE', `/app/delete_api_keys/${live.id}`, apiKey(a.testKey));
  t.is(refused.status, 403);
  t.regex(String(refused.body.detail), /sandbox/);
  t.is((await call('GET', '/account/balance', apiKey(a.liveKey))).status, 200);
  const other = await newKey(apiKey(a.testKey), { name: 'other sandbox', is_test: true });
  t.is((await call('DELETE', `/app/delete_api_keys/${String(other.body.id)}`, apiKey(a.testKey))).status, 200);
  // another account's key is still 404, not 403
  const stranger = await newAccount(gw, 0);
  const theirs = ((await call('GET', '/app/get_user_keys', bearer(stranger.session))).body as unknown as Array<{ id: number }>)[0]!;
  t.is((await call('DELETE', `/app/delete_api_keys/${theirs.id}`, apiKey(a.testKey))).status, 404);
});

test('a sandbox key reads and rotates the sandbox webhook secret only, never the production one', async (t) => {
  const a = await newAccount(gw, 0);
  const production = await call('GET', '/app/webhook_secret', apiKey(a.liveKey));
  const before = await call('GET', '/app/webhook_secret', apiKey(a.testKey));
  t.is(before.status, 200);
  t.like(before.body, { sandbox: true });
  t.like(production.body, { sandbox: false });
  t.not(before.body.secret, production.body.secret);
  const rotated = await call('POST', '/app/webhook_secret/rotate', apiKey(a.testKey));
  t.is(rotated.status, 200);
  t.like(rotated.body, { sandbox: true });
  t.not(rotated.body.secret, before.body.secret);
  t.is((await call('GET', '/app/webhook_secret', apiKey(a.liveKey))).body.secret, production.body.secret);
  t.is((await call('POST', '/app/webhook_secret/rotate', apiKey(a.liveKey))).status, 200);
});

test('no API key, sandbox or production, creates or deletes OAuth clients', async (t) => {
  const client = await createClient(gw, acct.session, ['generate:read'], 'keep');
  for (const key of [acct.testKey, acct.liveKey]) {
    t.like(await call('POST', '/oauth/clients', apiKey(key), { name: 'x', scopes: ['generate:read'] }), { status: 403, body: { code: 'session_required' } });
    t.like(await call('DELETE', `/oauth/clients/${client.id}`, apiKey(key)), { status: 403, body: { code: 'session_required' } });
  }
  t.is((await tokenFor(gw, client)).length > 0, true);
});

test('a production prediction is unknown to a sandbox key: reading and cancelling are 404', async (t) => {
  const submitted = await call('POST', '/api/v1/canvas-v1-fast-text-to-image', apiKey(acct.liveKey), { prompt: 'production' });
  t.is(submitted.status, 200);
  const id = String(submitted.body.request_id);
  t.is((await call('GET', `/api/v1/predictions/${id}/result`, apiKey(acct.testKey))).status, 404);
  t.is((await call('GET', `/app/prediction_response/${id}`, apiKey(acct.testKey))).status, 404);
  t.is((await call('POST', `/app/cancel_prediction/${id}`, apiKey(acct.testKey))).status, 404);
  const still = await call('GET', `/api/v1/predictions/${id}/result`, apiKey(acct.liveKey));
  t.is(still.status, 200);
  t.not(still.body.status, 'cancelled');
  // a production key still sees the account's sandbox predictions, as the dashboard does
  const sandbox = await call('POST', '/api/v1/canvas-v1-fast-text-to-image', apiKey(acct.testKey), { prompt: 'sandbox' });
  t.is((await call('GET', `/api/v1/predictions/${String(sandbox.body.request_id)}/result`, apiKey(acct.testKey))).status, 200);
  t.is((await call('GET', `/api/v1/predictions/${String(sandbox.body.request_id)}/result`, apiKey(acct.liveKey))).status, 200);
  t.is((await call('POST', `/app/cancel_prediction/${id}`, apiKey(acct.liveKey))).status, 200);
});

test('a production prediction\'s webhook delivery is unknown to a sandbox key: redelivering it is 404', async (t) => {
  const submitted = await call('POST', '/api/v1/canvas-v1-fast-text-to-image', apiKey(acct.liveKey), { prompt: 'production hook' });
  const predictionId = String(submitted.body.request_id);
  const deliveryId = `msg_${predictionId}`;
  await gw.app.db.transaction((trx) => insertDelivery(trx, { id: deliveryId, predictionId, userId: acct.userId, url: 'https://hooks.example.com/in' }, Date.now()));
  await gw.app.db('webhook_deliveries').where({ id: deliveryId }).update({ status: 'dead' });
  t.is((await call('POST', `/app/webhook_deliveries/${deliveryId}/redeliver`, apiKey(acct.testKey))).status, 404);
  t.is((await gw.app.db('webhook_deliveries').where({ id: deliveryId }).first()).status, 'dead');
  t.is((await call('POST', `/app/webhook_deliveries/${deliveryId}/redeliver`, apiKey(acct.liveKey))).status, 202);
});

// ------------------------------------------------------------------ IP restrictions

test('a key created by an IP-restricted key inherits the restriction or narrows it, never widens it', async (t) => {
  const parent = await newKey(bearer(acct.session), { name: 'restricted', ip_whitelist: ['127.0.0.0/8', '2001:db8::/32'] });
  const key = String(parent.body.key);
  const inherited = await newKey(apiKey(key), { name: 'child' });
  t.is(inherited.status, 200);
  t.deepEqual(inherited.body.ip_whitelist, ['127.0.0.0/8', '2001:db8::/32']);
  const emptied = await newKey(apiKey(key), { name: 'child', ip_whitelist: [] });
  t.deepEqual(emptied.body.ip_whitelist, ['127.0.0.0/8', '2001:db8::/32']);
  const narrower = await newKey(apiKey(key), { name: 'child', ip_whitelist: ['127.0.0.1', '127.1.0.0/16', '2001:db8:1::/48'] });
  t.is(narrower.status, 200);
  t.deepEqual(narrower.body.ip_whitelist, ['127.0.0.1', '127.1.0.0/16', '2001:db8:1::/48']);
  for (const outside of [['10.0.0.1'], ['127.0.0.0/7'], ['0.0.0.0/0'], ['127.0.0.1', '192.168.0.0/16'], ['::1'], ['2001:db8::/31']]) {
    const res = await newKey(apiKey(key), { name: 'wider', ip_whitelist: outside });
    t.is(res.status, 403, outside.join(' '));
    t.regex(String(res.body.detail), /ip_whitelist/);
  }
  // the child is refused where the parent is
  const child = String(inherited.body.key);
  const away = await gw.server.inject({ method: 'GET', url: '/account/balance', headers: apiKey(child), remoteAddress: '203.0.113.9' });
  t.is(away.statusCode, 403);
});

test('a session or an unrestricted key may still create a restricted or unrestricted key', async (t) => {
  t.is((await newKey(bearer(acct.session), { name: 'any', ip_whitelist: ['10.0.0.0/8'] })).status, 200);
  const open = await newKey(apiKey(acct.liveKey), { name: 'any' });
  t.deepEqual(open.body.ip_whitelist, []);
});
