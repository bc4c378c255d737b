// Whitelabel studios (README "Whitelabel studios") against real MariaDB and RabbitMQ, with a
// worker: management routes, the studio context (header, Host, 404/403), end users signing up and
// in within a studio, the catalog filter, studio prices in quote and charge, owner_pays and
// end_user_pays (two ledger rows, exact under concurrent submits), run history and usage (an
// owner_pays owner's usage by key never names its users' keys).
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { uniqueName, waitFor } from '../helpers/services.ts';
import { ledgerCheckedAfterEach } from '../helpers/ledger.ts';
import { creditWallet } from '../../db/wallet/moves.ts';
import { createStudio as insertStudio } from '../../db/studios.ts';
import { publishChallenges, startDns } from '../helpers/dns.ts';
import type { TestDns } from '../helpers/dns.ts';
import { startSmtp } from '../helpers/smtp.ts';
import type { SmtpCapture } from '../helpers/smtp.ts';

const MODEL = 'canvas-v1-fast-text-to-image';
const OTHER_MODEL = 'canvas-v1-budget-text-to-image';
const PASSWORD = 'correct horse battery';

let gw: TestGateway;
let owner: Account;
let dns: TestDns;
let smtp: SmtpCapture;

test.before(async () => {
  dns = await startDns();
  smtp = await startSmtp();
  gw = await startGateway({ worker: true, env: { STUDIO_DNS_SERVERS: dns.server, SMTP_URL: smtp.url, AUTH_RATE_PER_ADDRESS: '1000' } });
  owner = await newAccount(gw, 100_000);
});
test.after.always(async () => {
  await gw?.stop();
  await dns?.close();
  await smtp?.close();
});
ledgerCheckedAfterEach(test, () => gw?.app.db);

type Verification = { hostname: string; status: string; record: { type: string; name: string; value: string }; verified_at: string | null; checked_at: string | null; problem: string | null };
type Studio = { id: number; slug: string; domains: string[]; domain_verification: Verification[]; allowed_models: string[]; payer_mode: string; markup_percent: number; disabled_at: string | null; team_id: number | null };

async function createStudio(body: Record<string, unknown> = {}, as = owner.session): Promise<Studio> {
  const slug = uniqueName('st').toLowerCase().replace(/[^a-z0-9-]/g, '').slice(0, 30);
  const res = await callOperation<Studio>(gw, 'createStudio', { as, body: { slug, name: 'Pixel Shop', allowed_models: [MODEL], payer_mode: 'end_user_pays', markup_percent: 50, ...body } });
  if (res.status !== 201) throw new Error(`createStudio: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Publishes the TXT record of each of the studio's domains and has the gateway check them. */
async function verifyDomains(studio: Studio, as = owner.session): Promise<Studio> {
  publishChallenges(dns, studio);
  const res = await callOperation<Studio>(gw, 'verifyStudioDomains', { as, params: { studio_id: studio.id } });
  if (res.status !== 200) throw new Error(`verifyStudioDomains: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const inStudio = (slug: string) => ({ 'x-whitelabel-studio': slug });

/** An end user of the studio: registered and signed in with the studio header, with a production key made in the studio. */
async function studioUser(slug: string, credit = 0): Promise<Account> {
  const email = `${uniqueName('enduser')}@example.com`;
  const reg = await gw.server.inject({ method: 'POST', url: '/auth/register', headers: inStudio(slug), payload: { email, password: PASSWORD } });
  if (reg.statusCode !== 201) throw new Error(`register: ${reg.payload}`);
  const userId = (reg.result as { id: number }).id;
  if (credit) await gw.app.db.transaction((trx) => creditWallet(trx, { userId, teamId: null }, credit, 'grant', 'test credit', gw.app.clock()));
  const login = await gw.server.inject({ method: 'POST', url: '/auth/login', headers: inStudio(slug), payload: { email, password: PASSWORD } });
  if (login.statusCode !== 200) throw new Error(`login: ${login.payload}`);
  const session = (login.result as { access_token: string }).access_token;
  const key = await gw.server.inject({ method: 'POST', url: '/api/v1/keys', headers: { authorization: `Bearer ${session}`, ...inStudio(slug) }, payload: { name: 'live', is_test: false } });
  if (key.statusCode !== 200 && key.statusCode !== 201) throw new Error(`key: ${key.payload}`);
  return { userId, session, liveKey: (key.result as { key: string }).key, testKey: '' };
}

function submit(as: string, slug: string | null, model = MODEL, extra: Record<string, string> = {}) {
  return gw.server.inject({
    method: 'POST', url: `/api/v1/${model}`,
    headers: { 'x-api-key': as, 'content-type': 'application/json', ...(slug ? inStudio(slug) : {}), ...extra },
    payload: { prompt: 'a lighthouse' },
  });
}

async function finished(id: string): Promise<string> {
  let status = '';
  await waitFor(async () => {
    const row = await gw.app.db('predictions').where('id', id).first<{ status: string }>('status');
    status = row.status;
    return ['completed', 'failed', 'cancelled'].includes(status);
  }, { timeoutMs: 180_000 });
  return status;
}

async function wallet(userId: number) {
  const row = await gw.app.db('users').where('id', userId).first<{ balance: number | string; held: number | string }>('balance', 'held');
  return { balance: Number(row.balance), held: Number(row.held) };
}

async function listPrice(): Promise<number> {
  const q = await callOperation<{ cost: number }>(gw, 'calculateDynamicCost', { as: owner.session, body: { model: MODEL, input: { prompt: 'a lighthouse' } } });
  return q.body.cost;
}

const json = (res: { payload: string }) => JSON.parse(res.payload) as Record<string, unknown>;

test('owners create, list, read, change and disable studios; slugs, domains, models, colours and logos are checked; another owner sees none', async (t) => {
  const studio = await createStudio({ domains: ['Shop.Example.COM'], branding: { logo_url: 'https://cdn.example.com/logo.png', primary_color: '#112233' } });
  t.deepEqual(studio.domains, ['shop.example.com']);
  t.is(studio.payer_mode, 'end_user_pays');
  const bad = async (body: Record<string, unknown>) => (await callOperation(gw, 'createStudio', { as: owner.session, body: { slug: 'good-slug', name: 'x', allowed_models: [MODEL], payer_mode: 'owner_pays', ...body } })).status;
  t.is(await bad({ slug: 'Upper' }), 422);
  t.is(await bad({ slug: 'ab' }), 422);
  t.is(await bad({ allowed_models: ['no-such-model'] }), 422);
  t.is(await bad({ branding: { primary_color: 'red' } }), 422);
  t.is(await bad({ branding: { logo_url: 'javascript:alert(1)' } }), 422);
  t.is(await bad({ domains: ['https://x.example.com/'] }), 422);
  // a hostname whose TXT record name (_mediagate-challenge.<host>) would pass DNS's 253 characters could never be verified
  t.is(await bad({ domains: [`${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(50)}.com`] }), 422);
  t.is(await bad({ payer_mode: 'nobody_pays' }), 422);
  t.is(await bad({ slug: studio.slug }), 409);
  // another studio's hostname is a claim of its own, which moves only on DNS proof
  t.is(await bad({ slug: uniqueName('d').toLowerCase().replace(/[^a-z0-9-]/g, '').slice(0, 30), domains: ['shop.example.com'] }), 201);
  t.is((await callOperation(gw, 'createStudio', { as: owner.testKey, body: { slug: 'sandboxed', name: 'x', allowed_models: [MODEL], payer_mode: 'owner_pays' } })).status, 403);

  const list = await callOperation<Studio[]>(gw, 'listStudios', { as: owner.liveKey });
  t.true(list.body.some((s) => s.id === studio.id));
  const changed = await callOperation<Studio>(gw, 'updateStudio', { as: owner.session, params: { studio_id: studio.id }, body: { markup_percent: 20, allowed_models: [MODEL, OTHER_MODEL] } });
  t.is(changed.status, 200);
  t.is(changed.body.markup_percent, 20);
  t.is(changed.body.slug, studio.slug);

  const stranger = await newAccount(gw);
  t.is((await callOperation(gw, 'getStudio', { as: stranger.session, params: { studio_id: studio.id } })).status, 404);
  t.is((await callOperation(gw, 'updateStudio', { as: stranger.session, params: { studio_id: studio.id }, body: { name: 'mine' } })).status, 404);
  t.is((await callOperation(gw, 'disableStudio', { as: stranger.session, params: { studio_id: studio.id } })).status, 404);
  t.is((await callOperation(gw, 'getStudioUsage', { as: stranger.session, params: { studio_id: studio.id } })).status, 404);
  t.deepEqual((await callOperation<Studio[]>(gw, 'listStudios', { as: stranger.session })).body, []);

  const disabled = await callOperation<Studio>(gw, 'disableStudio', { as: owner.session, params: { studio_id: studio.id } });
  t.truthy(disabled.body.disabled_at);
  const after = await gw.server.inject({ method: 'GET', url: '/api/v1/models', headers: inStudio(studio.slug) });
  t.is(after.statusCode, 403);
  t.is(json(after).code, 'studio_disabled');
  // its domain no longer selects it, and may be taken by another studio
  t.is((await createStudio({ domains: ['shop.example.com'] })).domains[0], 'shop.example.com');
});

test('a disabled studio\'s users still sign in, export their account and ask for its deletion there; nothing else is served', async (t) => {
  const host = `${uniqueName('gone').toLowerCase().replace(/[^a-z0-9]/g, '')}.partner.test`;
  const studio = await verifyDomains(await createStudio({ domains: [host], name: 'Gone Shop' }));
  const user = await studioUser(studio.slug, 5_000);
  const email = (await gw.app.db('users').where('id', user.userId).first<{ email: string }>('email')).email;
  const registered = await smtp.code(email); // mailed at registration, while the studio served
  t.is((await callOperation(gw, 'disableStudio', { as: owner.session, params: { studio_id: studio.id } })).status, 200);
  const ctx = inStudio(studio.slug);

  // signing in: verifying the address, the password, and a one-time code mailed in the studio's name (the account's brand)
  t.is((await callOperation(gw, 'verifyOtp', { headers: ctx, body: { email, otp: registered } })).status, 200);
  const login = await callOperation<{ access_token: string }>(gw, 'login', { headers: ctx, body: { email, password: PASSWORD } });
  t.is(login.status, 200);
  const session = login.body.access_token;
  t.is((await callOperation(gw, 'requestOtp', { headers: ctx, body: { email } })).status, 200);
  const code = await smtp.code(email);
  const mail = smtp.messages.filter((m) => m.to.includes(email.toLowerCase())).find((m) => m.raw.includes(code))!.raw;
  t.regex(mail, /Subject: Your Gone Shop one-time code/);
  const byCode = await callOperation<{ access_token: string }>(gw, 'loginOtp', { headers: ctx, body: { email, otp: code } });
  t.is(byCode.status, 200);
  const me = await callOperation<{ user: { id: number } }>(gw, 'getSession', { as: session, headers: ctx });
  t.is(me.status, 200);
  t.is(Number(me.body.user.id), user.userId);

  // their data, with the key they made while the studio served
  const exported = await callOperation<{ user: { email: string }; api_keys: Array<{ name: string }> }>(gw, 'exportAccount', { as: session, headers: ctx });
  t.is(exported.status, 200);
  t.is(exported.body.user.email, email);
  t.deepEqual(exported.body.api_keys.map((k) => k.name), ['live']);

  // nothing that registers, spends, makes a credential or shows the catalog
  const refused = async (res: { statusCode: number; payload: string }, what: string) => {
    t.is(res.statusCode, 403, `${what}: ${res.payload}`);
    t.is(json(res).code, 'studio_disabled', what);
    t.regex(String(json(res).detail), /disabled: its users may still sign in, export their account .* and delete it/, what);
  };
  await refused(await submit(user.liveKey, studio.slug), 'a run with their key');
  await refused(await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json', ...ctx }, payload: { prompt: 'a lighthouse' } }), 'a run with the new session');
  await refused(await gw.server.inject({ method: 'POST', url: '/api/v1/keys', headers: { authorization: `Bearer ${session}`, ...ctx }, payload: { name: 'again', is_test: false } }), 'a key');
  await refused(await gw.server.inject({ method: 'POST', url: '/auth/register', headers: ctx, payload: { email: `${uniqueName('late')}@example.com`, password: PASSWORD } }), 'a registration');
  await refused(await gw.server.inject({ method: 'POST', url: '/auth/cli/login', headers: ctx, payload: { email, password: PASSWORD } }), 'the CLI sign-in, which makes a key');
  await refused(await gw.server.inject({ method: 'GET', url: '/api/v1/models', headers: ctx }), 'the catalog');
  await refused(await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { authorization: `Bearer ${session}`, ...ctx } }), 'the balance');
  // outside the studio its users are what they were: studio_required
  t.is(json(await gw.server.inject({ method: 'GET', url: '/app/account/export', headers: { authorization: `Bearer ${session}` } })).code, 'studio_required');
  // its domain was freed with it: there the request is the gateway's own, which knows no account of a studio
  t.is((await gw.server.inject({ method: 'POST', url: '/auth/login', headers: { host }, payload: { email, password: PASSWORD } })).statusCode, 401);
  // an unknown studio is still unknown
  const unknown = await gw.server.inject({ method: 'POST', url: '/auth/login', headers: inStudio('no-such-studio-here'), payload: { email, password: PASSWORD } });
  t.is(unknown.statusCode, 404);
  t.is(json(unknown).code, 'studio_not_found');

  // leaving: the deletion is scheduled, can be cancelled, and scheduled again; then the session ends
  const deletion = await callOperation<{ scheduled_deletion_at: string | null }>(gw, 'requestAccountDeletion', { as: session, headers: ctx });
  t.is(deletion.status, 200, JSON.stringify(deletion.body));
  t.truthy(deletion.body.scheduled_deletion_at);
  t.is((await callOperation(gw, 'cancelAccountDeletion', { as: session, headers: ctx })).status, 200);
  t.is((await callOperation(gw, 'logout', { as: session, headers: ctx })).status, 200);
  t.is((await callOperation(gw, 'getSession', { as: session, headers: ctx })).status, 401);
  // a forgotten password is reset there too
  t.is((await callOperation(gw, 'forgotPassword', { headers: ctx, body: { email } })).status, 200);
  const reset = await callOperation(gw, 'resetPassword', { headers: ctx, body: { email, otp: await smtp.code(email), new_password: `${PASSWORD} again` } });
  t.is(reset.status, 200, JSON.stringify(reset.body));
  const again = await callOperation<{ access_token: string }>(gw, 'login', { headers: ctx, body: { email, password: `${PASSWORD} again` } });
  t.is(again.status, 200);
  t.is((await callOperation(gw, 'requestAccountDeletion', { as: again.body.access_token, headers: ctx })).status, 200);
});

test('a disabled studio\'s storefront still loads: getSiteInfo says it is disabled, offers nothing but signing in, and its users read their profile', async (t) => {
  type Site = { name: string; disabled: boolean; studio: { slug: string; name: string; primary_color: string | null } | null; registration: string; sign_in: { password: boolean; code: boolean; google: boolean }; payments: { enabled: boolean; plans: unknown[] } };
  const studio = await createStudio({ name: 'Closing Shop', branding: { primary_color: '#0b6e4f' } });
  const user = await studioUser(studio.slug);
  const served = await callOperation<Site>(gw, 'getSiteInfo', { headers: inStudio(studio.slug) });
  t.is(served.status, 200);
  t.false(served.body.disabled);
  t.is(served.body.registration, 'open');
  const gateway = await callOperation<Site>(gw, 'getSiteInfo', {});
  t.false(gateway.body.disabled);
  t.is(gateway.body.studio, null);

  t.is((await callOperation(gw, 'disableStudio', { as: owner.session, params: { studio_id: studio.id } })).status, 200);
  const closed = await callOperation<Site>(gw, 'getSiteInfo', { headers: inStudio(studio.slug) });
  t.is(closed.status, 200, JSON.stringify(closed.body));
  t.true(closed.body.disabled);
  t.is(closed.body.name, 'Closing Shop');
  t.like(closed.body.studio, { slug: studio.slug, name: 'Closing Shop', primary_color: '#0b6e4f' });
  t.is(closed.body.registration, 'closed');
  t.like(closed.body.sign_in, { password: true, code: true, google: false });
  t.false(closed.body.payments.enabled);
  t.deepEqual(closed.body.payments.plans, []);
  // the profile says whether a deletion is scheduled; the export holds it anyway
  const me = await callOperation<{ email: string; scheduled_deletion_at: string | null }>(gw, 'getUserDetails', { as: user.session, headers: inStudio(studio.slug) });
  t.is(me.status, 200, JSON.stringify(me.body));
  t.is(me.body.scheduled_deletion_at, null);
  // the studio's other pages stay closed
  t.is(json(await gw.server.inject({ method: 'GET', url: '/app/get_user_keys', headers: { authorization: `Bearer ${user.session}`, ...inStudio(studio.slug) } })).code, 'studio_disabled');
  // an unknown studio is still unknown
  t.is((await callOperation(gw, 'getSiteInfo', { headers: inStudio('no-such-studio-here') })).status, 404);
});

test('the header needs a credential of the studio: unknown 404, outsiders 403, its users only inside it, the owner too', async (t) => {
  const studio = await createStudio();
  const user = await studioUser(studio.slug);
  const outsider = await newAccount(gw);

  const unknown = await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': user.liveKey, ...inStudio('no-such-studio') } });
  t.is(unknown.statusCode, 404);
  t.is(json(unknown).code, 'studio_not_found');

  const mine = await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': user.liveKey, ...inStudio(studio.slug) } });
  t.is(mine.statusCode, 200);
  const bySession = await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: { authorization: `Bearer ${user.session}`, ...inStudio(studio.slug) } });
  t.is(bySession.statusCode, 200);

  const foreign = await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': outsider.liveKey, ...inStudio(studio.slug) } });
  t.is(foreign.statusCode, 403);
  t.is(json(foreign).code, 'studio_forbidden');

  const outside = await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': user.liveKey } });
  t.is(outside.statusCode, 403);
  t.is(json(outside).code, 'studio_required');

  const ownerIn = await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': owner.liveKey, ...inStudio(studio.slug) } });
  t.is(ownerIn.statusCode, 200);

  // a studio's user signs in within it only; the same address cannot register twice
  const email = `${uniqueName('dup')}@example.com`;
  t.is((await gw.server.inject({ method: 'POST', url: '/auth/register', headers: inStudio(studio.slug), payload: { email, password: PASSWORD } })).statusCode, 201);
  t.is((await gw.server.inject({ method: 'POST', url: '/auth/login', payload: { email, password: PASSWORD } })).statusCode, 401);
  t.is((await gw.server.inject({ method: 'POST', url: '/auth/login', headers: inStudio(studio.slug), payload: { email, password: PASSWORD } })).statusCode, 200);
  t.is((await gw.server.inject({ method: 'POST', url: '/auth/register', payload: { email, password: PASSWORD } })).statusCode, 409);

  // another studio's user is an outsider here
  const other = await createStudio();
  const otherUser = await studioUser(other.slug);
  const cross = await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': otherUser.liveKey, ...inStudio(studio.slug) } });
  t.is(cross.statusCode, 403);
});

test('a Host that is one of a studio\'s domains selects it without the header', async (t) => {
  const host = `${uniqueName('h').toLowerCase().replace(/[^a-z0-9]/g, '')}.partner.test`;
  const studio = await verifyDomains(await createStudio({ domains: [host] }));
  const models = await gw.server.inject({ method: 'GET', url: '/api/v1/models', headers: { host } });
  t.is(models.statusCode, 200);
  t.deepEqual((json(models).models as Array<{ slug: string }>).map((m) => m.slug), [MODEL]);
  const email = `${uniqueName('byhost')}@example.com`;
  const reg = await gw.server.inject({ method: 'POST', url: '/auth/register', headers: { host }, payload: { email, password: PASSWORD } });
  t.is(reg.statusCode, 201);
  const row = await gw.app.db('users').where('id', (reg.result as { id: number }).id).first<{ studio_id: number }>('studio_id');
  t.is(Number(row.studio_id), studio.id);
  const login = await gw.server.inject({ method: 'POST', url: '/auth/login', headers: { host: `${host}:8443` }, payload: { email, password: PASSWORD } });
  t.is(login.statusCode, 200);
  const session = (login.result as { access_token: string }).access_token;
  t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { host, authorization: `Bearer ${session}` } })).statusCode, 200);
  t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { authorization: `Bearer ${session}` } })).statusCode, 403);
});

test('on a studio\'s domain only that studio: a header naming another studio is 404 there, and no sign-in or cookie of it is made', async (t) => {
  const host = `${uniqueName('own').toLowerCase().replace(/[^a-z0-9]/g, '')}.partner.test`;
  const a = await verifyDomains(await createStudio({ domains: [host] }));
  const b = await createStudio();
  const userB = await studioUser(b.slug);
  const email = `${uniqueName('b-user')}@example.com`;
  t.is((await gw.server.inject({ method: 'POST', url: '/auth/register', headers: inStudio(b.slug), payload: { email, password: PASSWORD } })).statusCode, 201);

  const key = await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { host, 'x-api-key': userB.liveKey, ...inStudio(b.slug) } });
  t.is(key.statusCode, 404, key.payload);
  t.is(json(key).code, 'studio_not_found');
  const login = await gw.server.inject({ method: 'POST', url: '/auth/login?session=cookie', headers: { host, ...inStudio(b.slug) }, payload: { email, password: PASSWORD } });
  t.is(login.statusCode, 404, login.payload);
  t.is(login.headers['set-cookie'], undefined, 'no cookie of another studio is set on this domain');
  const register = await gw.server.inject({ method: 'POST', url: '/auth/register', headers: { host: `${host}:8443`, ...inStudio(b.slug) }, payload: { email: `${uniqueName('x')}@example.com`, password: PASSWORD } });
  t.is(register.statusCode, 404);

  // the domain's own studio by its header, and the other studio anywhere else, as before
  t.is((await gw.server.inject({ method: 'GET', url: '/api/v1/models', headers: { host, ...inStudio(a.slug) } })).statusCode, 200);
  t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': userB.liveKey, ...inStudio(b.slug) } })).statusCode, 200);
  t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { host: 'gateway.internal.test', 'x-api-key': userB.liveKey, ...inStudio(b.slug) } })).statusCode, 200);
});

test('a domain serves its studio only once its DNS record is seen; a later claim with the record takes it over; a failed lookup stays pending', async (t) => {
  const host = `${uniqueName('dv').toLowerCase().replace(/[^a-z0-9]/g, '')}.partner.test`;
  const servesTo = async () => {
    const res = await gw.server.inject({ method: 'GET', url: '/api/v1/models', headers: { host } });
    return (json(res).models as Array<{ slug: string }>).map((m) => m.slug);
  };
  const catalogSize = (await servesTo()).length;
  const a = await createStudio({ domains: [host], allowed_models: [MODEL] });
  const [claim] = a.domain_verification;
  t.like(claim, { hostname: host, status: 'pending', verified_at: null, checked_at: null, problem: null });
  t.is(claim!.record.type, 'TXT');
  t.is(claim!.record.name, `_mediagate-challenge.${host}`);
  t.regex(claim!.record.value, /^mediagate-domain-verification=[0-9a-f]{32}$/);
  t.is((await servesTo()).length, catalogSize, 'a pending domain is the gateway\'s own, not the studio\'s');

  // no record yet, then a record with another value: pending, saying what was found
  const none = await callOperation<Studio>(gw, 'verifyStudioDomains', { as: owner.session, params: { studio_id: a.id } });
  t.is(none.status, 200);
  t.like(none.body.domain_verification[0], { status: 'pending' });
  t.regex(none.body.domain_verification[0]!.problem!, /no TXT record at _mediagate-challenge\./);
  t.truthy(none.body.domain_verification[0]!.checked_at);
  dns.txt.set(claim!.record.name, ['mediagate-domain-verification=someone-else']);
  const other = await callOperation<Studio>(gw, 'verifyStudioDomains', { as: owner.session, params: { studio_id: a.id } });
  t.regex(other.body.domain_verification[0]!.problem!, /do not include mediagate-domain-verification=/);
  t.is((await servesTo()).length, catalogSize);

  // a stranger cannot check it; the owner with the record in place verifies it
  const stranger = await newAccount(gw);
  t.is((await callOperation(gw, 'verifyStudioDomains', { as: stranger.session, params: { studio_id: a.id } })).status, 404);
  const verified = await verifyDomains(a);
  t.like(verified.domain_verification[0], { status: 'verified', problem: null });
  t.truthy(verified.domain_verification[0]!.verified_at);
  t.deepEqual(await servesTo(), [MODEL]);

  // another owner claims the same hostname: nothing moves until their own record is seen
  const rival = await newAccount(gw, 1000);
  const b = await createStudio({ domains: [host], allowed_models: [OTHER_MODEL] }, rival.session);
  t.is(b.domain_verification[0]!.status, 'pending');
  t.not(b.domain_verification[0]!.record.value, claim!.record.value, 'each claim has its own token');
  const early = await callOperation<Studio>(gw, 'verifyStudioDomains', { as: rival.session, params: { studio_id: b.id } });
  t.is(early.body.domain_verification[0]!.status, 'pending');
  t.deepEqual(await servesTo(), [MODEL]);
  // whoever controls the DNS publishes the rival's record: the domain is theirs now, and A's entry says so
  await verifyDomains(b, rival.session);
  t.deepEqual(await servesTo(), [OTHER_MODEL]);
  const lost = await callOperation<Studio>(gw, 'getStudio', { as: owner.session, params: { studio_id: a.id } });
  t.like(lost.body.domain_verification[0], { status: 'pending', verified_at: null });
  t.regex(lost.body.domain_verification[0]!.problem!, /another studio proved control of this domain's DNS/);
  t.deepEqual(lost.body.domains, [host], 'the hostname stays set on A, which may prove control again');

  // a lookup that fails leaves the domain pending with the reason; the studio answers 200, not 5xx
  const flaky = `${uniqueName('sf').toLowerCase().replace(/[^a-z0-9]/g, '')}.partner.test`;
  const c = await createStudio({ domains: [flaky] });
  dns.failing.add(`_mediagate-challenge.${flaky}`);
  const failed = await callOperation<Studio>(gw, 'verifyStudioDomains', { as: owner.session, params: { studio_id: c.id } });
  t.is(failed.status, 200);
  t.regex(failed.body.domain_verification[0]!.problem!, /DNS lookup of _mediagate-challenge\.\S+ failed \(ESERVFAIL\); the domain stays pending/);

  // removing a verified domain stops it serving at once; a disabled studio is 404 here
  const updated = await callOperation<Studio>(gw, 'updateStudio', { as: rival.session, params: { studio_id: b.id }, body: { domains: [] } });
  t.deepEqual(updated.body.domain_verification, []);
  t.is((await servesTo()).length, catalogSize);
  await callOperation(gw, 'disableStudio', { as: owner.session, params: { studio_id: c.id } });
  t.is((await callOperation(gw, 'verifyStudioDomains', { as: owner.session, params: { studio_id: c.id } })).status, 404);
  t.is((await gw.app.db('studio_domain_claims').where({ studio_id: c.id })).length, 0, 'its claims are gone with it');
});

test('in a studio only its allowed models exist; a studio user cannot see another studio\'s models or runs', async (t) => {
  const a = await createStudio({ allowed_models: [MODEL] });
  const b = await createStudio({ allowed_models: [OTHER_MODEL] });
  const userA = await studioUser(a.slug, 10_000);
  const userB = await studioUser(b.slug, 10_000);

  const list = await gw.server.inject({ method: 'GET', url: '/api/v1/models', headers: { 'x-api-key': userA.liveKey, ...inStudio(a.slug) } });
  t.deepEqual((json(list).models as Array<{ slug: string }>).map((m) => m.slug), [MODEL]);
  const task = await gw.server.inject({ method: 'GET', url: `/app/get-task-data?name=${OTHER_MODEL}`, headers: inStudio(a.slug) });
  t.is(task.statusCode, 404);
  const home = await gw.server.inject({ method: 'GET', url: '/app/get_homepage_models', headers: inStudio(a.slug) });
  t.deepEqual((home.result as Array<{ name: string }>).map((m) => m.name), [MODEL]);
  const quote = await gw.server.inject({ method: 'POST', url: '/app/calculate_dynamic_cost', headers: { 'x-api-key': userA.liveKey, ...inStudio(a.slug) }, payload: { model: OTHER_MODEL, input: { prompt: 'x' } } });
  t.is(quote.statusCode, 404);
  t.is((await submit(userA.liveKey, a.slug, OTHER_MODEL)).statusCode, 404);
  // B's studio with A's user: an outsider
  t.is((await submit(userA.liveKey, b.slug, OTHER_MODEL)).statusCode, 403);

  const runB = await submit(userB.liveKey, b.slug, OTHER_MODEL);
  t.is(runB.statusCode, 200, runB.payload);
  const idB = json(runB).request_id as string;
  await finished(idB);
  const read = await gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${idB}/result`, headers: { 'x-api-key': userA.liveKey, ...inStudio(a.slug) } });
  t.is(read.statusCode, 404);
  const history = await callOperation<{ items: Array<{ request_id: string; source: string }> }>(gw, 'getRunHistory', { as: userA.liveKey, headers: inStudio(a.slug) });
  t.false(history.body.items.some((i) => i.request_id === idB));
  const historyB = await callOperation<{ items: Array<{ request_id: string; source: string }> }>(gw, 'getRunHistory', { as: userB.liveKey, headers: inStudio(b.slug) });
  t.is(historyB.body.items.find((i) => i.request_id === idB)?.source, 'studio');
});

test('end_user_pays: the quote and the charge are the studio price; the end user is charged it and the owner credited the markup, two rows of one prediction', async (t) => {
  const owner = await newAccount(gw, 100_000);
  const list = await listPrice();
  const studio = await createStudio({ payer_mode: 'end_user_pays', markup_percent: 50 }, owner.session);
  const studioPrice = Math.ceil(list * 1.5);
  const user = await studioUser(studio.slug, 1000);
  const ownerBefore = await wallet(owner.userId);

  const quote = await callOperation<{ cost: number; list_price: number }>(gw, 'calculateDynamicCost', { as: user.liveKey, headers: inStudio(studio.slug), body: { model: MODEL, input: { prompt: 'a lighthouse' } } });
  t.is(quote.status, 200);
  t.is(quote.body.cost, studioPrice);
  // a studio's end user sees the studio's price as the list price, never the gateway's (the owner's margin)
  t.is(quote.body.list_price, studioPrice);

  const res = await submit(user.liveKey, studio.slug);
  t.is(res.statusCode, 200, res.payload);
  t.is(json(res).price, studioPrice);
  t.is(res.headers['x-cost'], String(studioPrice));
  const id = json(res).request_id as string;
  t.is(await finished(id), 'completed');
  await waitFor(async () => (await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'studio_revenue' })).length === 1);
  const rows = await gw.app.db('credit_transactions').where('prediction_id', id).orderBy('id') as Array<{ kind: string; amount: number | string; user_id: number }>;
  t.deepEqual(rows.map((r) => [r.kind, Number(r.amount), Number(r.user_id)]), [
    ['hold', 0, user.userId], ['prediction', -studioPrice, user.userId], ['studio_revenue', studioPrice - list, owner.userId],
  ]);
  t.deepEqual(await wallet(user.userId), { balance: 1000 - studioPrice, held: 0 });
  t.is((await wallet(owner.userId)).balance, ownerBefore.balance + studioPrice - list);

  // a per-model price replaces the markup, never below the list price
  await callOperation(gw, 'updateStudio', { as: owner.session, params: { studio_id: studio.id }, body: { model_prices: { [MODEL]: list + 7 } } });
  const fixed = await submit(user.liveKey, studio.slug);
  t.is(json(fixed).price, list + 7);
  await finished(json(fixed).request_id as string);
  await callOperation(gw, 'updateStudio', { as: owner.session, params: { studio_id: studio.id }, body: { model_prices: { [MODEL]: 0 } } });
  const floor = await submit(user.liveKey, studio.slug);
  t.is(json(floor).price, list);
  await finished(json(floor).request_id as string);
});

test('end_user_pays refunded by an operator: the end user gets the studio price back, the owner gives back the markup in proportion, usage shows it net', async (t) => {
  const owner = await newAccount(gw, 100_000);
  const list = await listPrice();
  const studio = await createStudio({ payer_mode: 'end_user_pays', markup_percent: 100 }, owner.session);
  const price = list * 2;
  const markup = price - list;
  const user = await studioUser(studio.slug, price);
  const staff = await newAccount(gw, 0);
  await gw.app.db('users').where({ id: staff.userId }).update({ role: 'billing' });
  const res = await submit(user.liveKey, studio.slug);
  t.is(res.statusCode, 200, res.payload);
  const id = json(res).request_id as string;
  t.is(await finished(id), 'completed');
  await waitFor(async () => (await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'studio_revenue' })).length === 1);
  const ownerCharged = (await wallet(owner.userId)).balance;

  // a third of the price back first, then the rest: the owner's part follows, never more than the markup in all
  const third = Math.floor(price / 3);
  const first = await callOperation<{ amount: number }>(gw, 'adminRefund', { as: staff.session, body: { request_id: id, amount: third, reason: 'partly broken' } });
  t.is(first.status, 200, JSON.stringify(first.body));
  t.is((await wallet(owner.userId)).balance, ownerCharged - Math.floor(markup * third / price));
  const rest = await callOperation(gw, 'adminRefund', { as: staff.session, body: { request_id: id } });
  t.is(rest.status, 200, JSON.stringify(rest.body));
  t.is((await wallet(user.userId)).balance, price, 'the end user has the whole studio price back');
  t.is((await wallet(owner.userId)).balance, ownerCharged - markup, 'the owner gave back exactly the markup');
  const revenueRows = await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'studio_revenue' }).orderBy('id').pluck('amount');
  t.deepEqual(revenueRows.map(Number), [markup, -Math.floor(markup * third / price), -(markup - Math.floor(markup * third / price))]);
  const usage = await callOperation<{ runs: number; revenue: number }>(gw, 'getStudioUsage', { as: owner.session, params: { studio_id: studio.id } });
  t.like(usage.body, { runs: 1, revenue: 0 }, 'one run, its markup given back: counted once, net revenue 0');
});

test('end_user_pays under concurrent submits: each charge and markup exact, the ledger adds up', async (t) => {
  const owner = await newAccount(gw, 100_000);
  const list = await listPrice();
  const studio = await createStudio({ payer_mode: 'end_user_pays', markup_percent: 100 }, owner.session);
  const price = list * 2;
  // room for 7 of 12
  const user = await studioUser(studio.slug, price * 7);
  const second = await studioUser(studio.slug, price * 5);
  const ownerBefore = await wallet(owner.userId);
  const results = await Promise.all([
    ...Array.from({ length: 12 }, () => submit(user.liveKey, studio.slug)),
    ...Array.from({ length: 6 }, () => submit(second.liveKey, studio.slug)),
  ]);
  const accepted = results.filter((r) => r.statusCode === 200);
  t.is(results.filter((r) => r.statusCode === 402).length, 6);
  t.is(accepted.length, 12);
  const ids = accepted.map((r) => json(r).request_id as string);
  const statuses = await Promise.all(ids.map(finished));
  const completed = statuses.filter((s) => s === 'completed').length;
  await waitFor(async () => (await gw.app.db('credit_transactions').whereIn('prediction_id', ids).where('kind', 'studio_revenue')).length === completed, { timeoutMs: 180_000 });
  t.is((await wallet(owner.userId)).balance, ownerBefore.balance + completed * (price - list));
  const spent = (await wallet(user.userId)).balance + (await wallet(second.userId)).balance;
  t.is(spent, price * 12 - completed * price);
});

test('owner_pays: the owner\'s wallet is charged the list price, the end user pays nothing and never sees the owner\'s balance', async (t) => {
  const owner = await newAccount(gw, 100_000);
  const list = await listPrice();
  const studio = await createStudio({ payer_mode: 'owner_pays', markup_percent: 50 }, owner.session);
  const user = await studioUser(studio.slug, 0);
  const ownerBefore = await wallet(owner.userId);
  const res = await submit(user.liveKey, studio.slug);
  t.is(res.statusCode, 200, res.payload);
  t.is(json(res).price, list);
  t.is(res.headers['x-balance-remaining'], undefined);
  const id = json(res).request_id as string;
  t.is(await finished(id), 'completed');
  await waitFor(async () => (await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' })).length === 1);
  const rows = await gw.app.db('credit_transactions').where('prediction_id', id).orderBy('id') as Array<{ kind: string; amount: number | string; user_id: number; team_id: number | null }>;
  t.deepEqual(rows.map((r) => [r.kind, Number(r.amount), Number(r.user_id), r.team_id]), [['hold', 0, owner.userId, null], ['prediction', -list, owner.userId, null]]);
  t.deepEqual(await wallet(user.userId), { balance: 0, held: 0 });
  t.is((await wallet(owner.userId)).balance, ownerBefore.balance - list);
  // the prediction is the end user's
  const read = await gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${id}/result`, headers: { 'x-api-key': user.liveKey, ...inStudio(studio.slug) } });
  t.is(read.statusCode, 200);
});

test('owner_pays: the studio\'s runs count against its owner\'s monthly budget, not against its users\'; the user\'s refusal never tells the owner\'s budget', async (t) => {
  const owner = await newAccount(gw, 100_000);
  const list = await listPrice();
  const studio = await createStudio({ payer_mode: 'owner_pays', markup_percent: 50 }, owner.session);
  const budget = list * 2 + 1;
  t.is((await callOperation(gw, 'updateAlertSettings', { as: owner.session, body: { monthly_budget: budget, monthly_budget_mode: 'hard' } })).status, 200);
  const user = await studioUser(studio.slug, 0);
  for (let n = 0; n < 2; n++) t.is((await submit(user.liveKey, studio.slug)).statusCode, 200);
  const past = await submit(user.liveKey, studio.slug);
  t.is(past.statusCode, 402, past.payload);
  t.is(json(past).code, 'budget_exceeded');
  // the end user learns that the paying account reached its budget, not the owner's budget nor the arithmetic
  const detail = json(past).detail as string;
  t.regex(detail, /account that pays for this request has reached its monthly budget/);
  t.false(/\d/.test(detail), detail);
  t.is(past.headers['x-balance-remaining'], undefined);
  // the owner's own submit past its budget is told the figures
  const own = await submit(owner.liveKey, null);
  t.is(own.statusCode, 402, own.payload);
  t.regex(json(own).detail as string, new RegExp(`costs ${list} credits, which would take this month's spend past the monthly budget of ${budget} credits`));
  // so is the owner's submit in its own studio: the wallet that pays is its own
  t.regex(json(await submit(owner.liveKey, studio.slug)).detail as string, new RegExp(`monthly budget of ${budget} credits`));
  const { monthSpend } = await import('../../db/alerts.ts');
  const now = gw.app.clock();
  t.is(await monthSpend(gw.app.db, { userId: owner.userId, teamId: null }, now), list * 2, "the owner's month holds what it paid for");
  t.is(await monthSpend(gw.app.db, { userId: user.userId, teamId: null }, now), 0, 'the end user paid nothing');
});

test('owner_pays: the owner\'s usage by key shows its users\' runs as one other_callers row, never their keys\' ids or names, and the totals stay the ledger\'s', async (t) => {
  const owner = await newAccount(gw, 100_000);
  const list = await listPrice();
  const studio = await createStudio({ payer_mode: 'owner_pays', markup_percent: 50 }, owner.session);
  const user = await studioUser(studio.slug, 0);
  const userKey = await gw.app.db('api_keys').where({ user_id: user.userId, is_test: false }).first<{ id: number }>('id');
  const renamed = await callOperation(gw, 'updateApiKey', { as: user.session, headers: inStudio(studio.slug), params: { key_id: userKey.id }, body: { name: 'enduser-secret-project-key' } });
  t.is(renamed.status, 200, renamed.raw.payload);
  const ids: string[] = [];
  // two runs of the end user (paid by the owner), one of the owner's own key
  for (const [key, slug] of [[user.liveKey, studio.slug], [user.liveKey, studio.slug], [owner.liveKey, null]] as const) {
    const res = await submit(key, slug);
    t.is(res.statusCode, 200, res.payload);
    ids.push(json(res).request_id as string);
  }
  for (const id of ids) t.is(await finished(id), 'completed');
  await waitFor(async () => (await gw.app.db('credit_transactions').whereIn('prediction_id', ids).where('kind', 'prediction')).length === 3);
  const ledger = -Number((await gw.app.db('credit_transactions').where({ user_id: owner.userId }).whereNull('team_id').whereIn('kind', ['prediction', 'refund']).sum({ s: 'amount' }).first())?.s ?? 0);
  t.is(ledger, list * 3);

  type Row = { api_key_id: number | null; api_key_name: string | null; other_callers?: boolean; source?: string; runs: number; spend: number };
  const usage = await callOperation<{ rows: Row[]; totals: { runs: number; spend: number } }>(gw, 'getUsage', { as: owner.session, query: { group_by: 'api_key' } });
  t.is(usage.status, 200, usage.raw.payload);
  const ownKeyId = (await gw.app.db('api_keys').where({ user_id: owner.userId, is_test: false, name: 'live' }).first<{ id: number }>('id')).id;
  t.deepEqual(usage.body.rows.map((r) => [r.api_key_id, r.api_key_name, r.other_callers, r.runs, r.spend]), [
    [ownKeyId, 'live', false, 1, list],
    [null, null, true, 0, list * 2],
  ]);
  t.false(usage.raw.payload.includes('enduser-secret-project-key'));
  t.deepEqual([usage.body.totals.runs, usage.body.totals.spend], [1, ledger]);
  // with a second group too: the others' row is by source, still with no key
  const bySource = await callOperation<{ rows: Row[]; totals: { spend: number } }>(gw, 'getUsage', { as: owner.session, query: { group_by: 'api_key,source' } });
  t.deepEqual(bySource.body.rows.map((r) => [r.api_key_id, r.other_callers, r.source, r.spend]), [[ownKeyId, false, 'api', list], [null, true, 'studio', list * 2]]);
  t.is(bySource.body.totals.spend, ledger);
  // the end user sees its own key and runs, and no spend (it paid nothing)
  const mine = await callOperation<{ rows: Row[] }>(gw, 'getUsage', { as: user.session, headers: inStudio(studio.slug), query: { group_by: 'api_key' } });
  t.deepEqual(mine.body.rows.map((r) => [r.api_key_id, r.api_key_name, r.other_callers, r.runs, r.spend]), [[userKey.id, 'enduser-secret-project-key', false, 2, 0]]);
});

test('a cancelled studio run is released to the wallet that held it and credits no markup', async (t) => {
  const studio = await createStudio({ payer_mode: 'end_user_pays', markup_percent: 50 });
  const user = await studioUser(studio.slug, 1000);
  // a prediction still queued (inserted as the submit would, without dispatching it)
  const { newPredictionId } = await import('../../db/predictions/record.ts');
  const id = newPredictionId(gw.app.clock());
  await gw.app.store.submit({ p: { id, userId: user.userId, apiKeyId: null, model: MODEL, input: { prompt: 'x' }, price: 30, webhookUrl: null, source: 'studio', studioId: studio.id, studioMarkup: 10 }, now: gw.app.clock() });
  t.deepEqual(await wallet(user.userId), { balance: 970, held: 30 });
  const cancel = await gw.server.inject({ method: 'POST', url: `/app/cancel_prediction/${id}`, headers: { 'x-api-key': user.liveKey, ...inStudio(studio.slug) } });
  t.is(cancel.statusCode, 200, cancel.payload);
  t.deepEqual(await wallet(user.userId), { balance: 1000, held: 0 });
  t.deepEqual((await gw.app.db('credit_transactions').where('prediction_id', id).orderBy('id') as Array<{ kind: string }>).map((r) => r.kind), ['hold', 'release']);
});

test('the owner\'s usage route: runs, spend and revenue in total, by day and by model', async (t) => {
  const list = await listPrice();
  const studio = await createStudio({ payer_mode: 'end_user_pays', markup_percent: 100, allowed_models: [MODEL, OTHER_MODEL] });
  const user = await studioUser(studio.slug, 10_000);
  const ids: string[] = [];
  for (const model of [MODEL, MODEL, OTHER_MODEL]) {
    const res = await submit(user.liveKey, studio.slug, model);
    t.is(res.statusCode, 200, res.payload);
    ids.push(json(res).request_id as string);
  }
  for (const id of ids) t.is(await finished(id), 'completed');
  await waitFor(async () => (await gw.app.db('credit_transactions').whereIn('prediction_id', ids).where('kind', 'studio_revenue')).length === 3);
  const usage = await callOperation<{ runs: number; spend: number; revenue: number; by_day: Array<{ day: string; runs: number }>; by_model: Array<{ model: string; runs: number; spend: number; revenue: number }> }>(
    gw, 'getStudioUsage', { as: owner.session, params: { studio_id: studio.id } });
  t.is(usage.status, 200);
  t.is(usage.body.runs, 3);
  t.is(usage.body.spend, usage.body.revenue * 2);
  t.is(usage.body.by_day.reduce((n, d) => n + d.runs, 0), 3);
  const fast = usage.body.by_model.find((m) => m.model === MODEL)!;
  t.deepEqual([fast.runs, fast.spend, fast.revenue], [2, list * 4, list * 2]);
  t.is(usage.body.by_model.find((m) => m.model === OTHER_MODEL)?.runs, 1);
  const bad = await callOperation(gw, 'getStudioUsage', { as: owner.session, params: { studio_id: studio.id }, query: { from: '2026-12-01T00:00:00Z', to: '2026-11-01T00:00:00Z' } });
  t.is(bad.status, 422);
});

test('a team\'s studio: its members act in it, the team wallet pays (owner_pays) or is credited the markup (end_user_pays)', async (t) => {
  const list = await listPrice();
  const lead = await newAccount(gw);
  const team = await callOperation<{ id: number }>(gw, 'createTeam', { as: lead.session, body: { name: 'Studio team' } });
  t.is(team.status, 201);
  const teamId = team.body.id;
  await gw.app.db.transaction((trx) => creditWallet(trx, { userId: lead.userId, teamId }, 1000, 'grant', 'test credit', gw.app.clock()));
  const slug = uniqueName('team').toLowerCase().replace(/[^a-z0-9-]/g, '').slice(0, 30);
  const created = await callOperation<Studio>(gw, 'createStudio', { as: lead.session, query: { team_id: teamId }, body: { slug, name: 'Team shop', allowed_models: [MODEL], payer_mode: 'owner_pays' } });
  t.is(created.status, 201);
  t.is(created.body.team_id, teamId);
  // the member acts in the team's studio; the studio is not the member's own
  t.is((await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': lead.liveKey, ...inStudio(slug) } })).statusCode, 200);
  t.is((await callOperation(gw, 'getStudio', { as: lead.session, params: { studio_id: created.body.id } })).status, 404);

  const user = await studioUser(slug, 0);
  const paid = await submit(user.liveKey, slug);
  t.is(paid.statusCode, 200, paid.payload);
  t.is(await finished(json(paid).request_id as string), 'completed');
  const teamWallet = async () => Number((await gw.app.db('teams').where('id', teamId).first<{ balance: number | string }>('balance')).balance);
  t.is(await teamWallet(), 1000 - list);

  await callOperation(gw, 'updateStudio', { as: lead.session, query: { team_id: teamId }, params: { studio_id: created.body.id }, body: { payer_mode: 'end_user_pays', markup_percent: 100 } });
  const buyer = await studioUser(slug, 1000);
  const sold = await submit(buyer.liveKey, slug);
  t.is(json(sold).price, list * 2);
  const id = json(sold).request_id as string;
  t.is(await finished(id), 'completed');
  await waitFor(async () => (await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'studio_revenue', team_id: teamId })).length === 1, { timeoutMs: 180_000 });
  t.is(await teamWallet(), 1000 - list + list);
  const usage = await callOperation<{ runs: number; revenue: number }>(gw, 'getStudioUsage', { as: lead.liveKey, query: { team_id: teamId }, params: { studio_id: created.body.id } });
  t.deepEqual([usage.body.runs, usage.body.revenue], [2, list]);
});

test('a studio\'s user cannot leave the studio through an embed code: none is created for them, and one made before is 403 studio_required; the owner\'s own codes still run', async (t) => {
  const owner = await newAccount(gw, 100_000);
  const studio = await createStudio({ payer_mode: 'end_user_pays', markup_percent: 100, allowed_models: [MODEL] }, owner.session);
  const user = await studioUser(studio.slug, 1000);
  // the studio's user asks for a code of a model the studio does not offer, and of one it does (at its price)
  for (const as of [user.session, user.liveKey]) {
    for (const models of [[OTHER_MODEL], [MODEL]]) {
      const refused = await callOperation<{ code: string; detail: string }>(gw, 'createEmbedCode', { as, headers: inStudio(studio.slug), body: { kind: 'embed', name: 'escape', models } });
      t.is(refused.status, 403);
      t.is(refused.body.code, 'forbidden');
      t.regex(refused.body.detail, /studio's users cannot create embed codes/);
    }
  }
  t.is((await gw.app.db('embed_codes').where('user_id', user.userId)).length, 0);

  // codes a studio's user made before this rule: refused, outside the studio and in it
  const { createEmbedCode } = await import('../../db/embed-codes.ts');
  const made = async (kind: 'embed' | 'agent_embed', models: string[]) => (await createEmbedCode(gw.app.db, { userId: user.userId, teamId: null }, kind, {
    name: 'old', models, preset: null, lockedInputs: {}, allowedFields: null, allowedOrigins: [], maxCostPerRun: null,
    dailyCap: null, monthlyCap: null, rateLimitPerMinute: null, maxConcurrent: null,
  }, gw.app.clock())).code;
  const calls: Array<[string, string, string]> = [
    ['x-embed-code', await made('embed', [OTHER_MODEL]), OTHER_MODEL],
    ['x-embed-code', await made('embed', [MODEL]), MODEL],
    ['x-agent-embed-code', await made('agent_embed', [MODEL, OTHER_MODEL]), OTHER_MODEL],
  ];
  for (const [header, code, model] of calls) {
    const outside = await gw.server.inject({ method: 'POST', url: `/api/v1/${model}`, headers: { [header]: code, 'content-type': 'application/json' }, payload: { prompt: 'a lighthouse' } });
    t.is(outside.statusCode, 403, outside.payload);
    t.is(json(outside).code, 'studio_required');
    // resolving it is refused as its submit is: a page draws no model the code cannot run
    const resolved = await gw.server.inject({ method: 'GET', url: `/app/get_model_name_for_embedcode?embed_code=${code}` });
    t.is(resolved.statusCode, outside.statusCode, resolved.payload);
    t.deepEqual(json(resolved), json(outside));
    const inside = await gw.server.inject({ method: 'POST', url: `/api/v1/${model}`, headers: { [header]: code, 'content-type': 'application/json', ...inStudio(studio.slug) }, payload: { prompt: 'a lighthouse' } });
    t.is(inside.statusCode, 403, inside.payload);
    t.is(json(inside).code, 'studio_forbidden');
  }
  t.is((await gw.app.db('predictions').where('user_id', user.userId)).length, 0, 'nothing ran on the studio user\'s account');
  t.deepEqual(await wallet(user.userId), { balance: 1000, held: 0 });
  // they can still see and revoke those codes
  const theirs = await callOperation<Array<{ id: number }>>(gw, 'listEmbedCodes', { as: user.session, headers: inStudio(studio.slug) });
  t.is(theirs.body.length, 3);
  t.is((await callOperation(gw, 'revokeEmbedCode', { as: user.session, headers: inStudio(studio.slug), params: { embed_code_id: theirs.body[0]!.id } })).status, 200);

  // the studio's owner is no studio's user: a code made in the studio's context too runs, on the owner's wallet at the list price
  const ownerCode = await callOperation<{ code: string }>(gw, 'createEmbedCode', { as: owner.session, headers: inStudio(studio.slug), body: { kind: 'embed', name: 'mine', models: [OTHER_MODEL] } });
  t.is(ownerCode.status, 201);
  const ownerBefore = await wallet(owner.userId);
  const run = await gw.server.inject({ method: 'POST', url: `/api/v1/${OTHER_MODEL}`, headers: { 'x-embed-code': ownerCode.body.code, 'content-type': 'application/json' }, payload: { prompt: 'a lighthouse' } });
  t.is(run.statusCode, 200, run.payload);
  t.is(await finished(json(run).request_id as string), 'completed');
  const charged = Number(run.headers['x-cost']);
  t.true(charged > 0);
  t.is((await wallet(owner.userId)).balance, ownerBefore.balance - charged);
});

test('in a studio\'s context, by its header or its domain, resolving any embed code is refused as its submit is (403 studio_forbidden); an unknown code is still unknown, and an account being deleted or a refused origin still answer first', async (t) => {
  const host = `${uniqueName('emb').toLowerCase().replace(/[^a-z0-9]/g, '')}.partner.test`;
  const studio = await verifyDomains(await createStudio({ domains: [host] }));
  const outsider = await newAccount(gw);
  const team = await callOperation<{ id: number }>(gw, 'createTeam', { as: owner.session, body: { name: 'Embeds' } });
  const code = async (as: string, query: Record<string, number> = {}, allowedOrigins: string[] = []) => {
    const made = await callOperation<{ code: string }>(gw, 'createEmbedCode', { as, query, body: { kind: 'embed', name: 'widget', models: [MODEL], allowed_origins: allowedOrigins } });
    if (made.status !== 201) throw new Error(`createEmbedCode: ${made.status} ${JSON.stringify(made.body)}`);
    return made.body.code;
  };
  const origin = 'https://shop.example.com';
  const submitWith = (value: string, context: Record<string, string>, from = origin) => gw.server.inject({
    method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-embed-code': value, 'content-type': 'application/json', origin: from, ...context }, payload: { prompt: 'a lighthouse' },
  });
  const resolve = (value: string, context: Record<string, string>, from = origin) => gw.server.inject({
    method: 'GET', url: `/app/get_model_name_for_embedcode?embed_code=${encodeURIComponent(value)}`, headers: { origin: from, ...context },
  });
  const contexts: Array<[string, Record<string, string>]> = [['by its header', inStudio(studio.slug)], ['by its domain', { host }]];
  // the studio owner's personal code and its team's, and an account's outside the studio: each runs outside any studio only
  for (const value of [await code(owner.session), await code(owner.session, { team_id: team.body.id }), await code(outsider.session)]) {
    t.is((await resolve(value, {})).statusCode, 200, 'outside any studio it resolves');
    for (const [how, context] of contexts) {
      const submitted = await submitWith(value, context);
      t.is(submitted.statusCode, 403, `${how}: ${submitted.payload}`);
      t.is(json(submitted).code, 'studio_forbidden', how);
      const resolved = await resolve(value, context);
      t.is(resolved.statusCode, submitted.statusCode, `${how}: ${resolved.payload}`);
      t.deepEqual(json(resolved), json(submitted), how);
      t.is(resolved.headers['access-control-allow-origin'], origin, `${how}: the page can read why`);
    }
  }
  for (const [how, context] of contexts) {
    // an unknown code is unknown in a studio's context as outside it
    const unknown = await resolve('emb_no-such-code', context);
    t.is(unknown.statusCode, 404, `${how}: ${unknown.payload}`);
    t.deepEqual(json(unknown), json(await resolve('emb_no-such-code', {})), how);
    // the code's own refusals come first, as on a submit: a refused origin
    const restricted = await code(outsider.session, {}, [origin]);
    const elsewhere = await submitWith(restricted, context, 'https://elsewhere.example.com');
    t.is(elsewhere.statusCode, 403, how);
    t.is(json(elsewhere).code, 'embed_origin_not_allowed', how);
    const resolvedElsewhere = await resolve(restricted, context, 'https://elsewhere.example.com');
    t.is(resolvedElsewhere.statusCode, elsewhere.statusCode, `${how}: ${resolvedElsewhere.payload}`);
    t.deepEqual(json(resolvedElsewhere), json(elsewhere), how);
  }
  // and an account scheduled for deletion
  const leaving = await newAccount(gw);
  const leavingCode = await code(leaving.session);
  await gw.app.db('users').where({ id: leaving.userId }).update({ deletion_requested_at: Date.now(), deletion_due_at: Date.now() + 30 * 86_400_000 });
  for (const [how, context] of contexts) {
    const submitted = await submitWith(leavingCode, context);
    t.is(submitted.statusCode, 401, `${how}: ${submitted.payload}`);
    t.is(json(submitted).code, 'embed_code_invalid', how);
    const resolved = await resolve(leavingCode, context);
    t.is(resolved.statusCode, submitted.statusCode, `${how}: ${resolved.payload}`);
    t.deepEqual(json(resolved), json(submitted), how);
  }
});

test('a team\'s owner_pays studio: a member without "generate" (viewer, billing) cannot spend the team\'s wallet through it; developers, the team\'s key and its end users can; end_user_pays asks no team role', async (t) => {
  const CHAT = 'lexi-v1-balanced-chat';
  const list = await listPrice();
  const lead = await newAccount(gw);
  const teamId = (await callOperation<{ id: number }>(gw, 'createTeam', { as: lead.session, body: { name: 'Studio team' } })).body.id;
  await gw.app.db.transaction((trx) => creditWallet(trx, { userId: lead.userId, teamId }, 1000, 'grant', 'test credit', gw.app.clock()));
  const member = async (role: string) => {
    const a = await newAccount(gw, 1000);
    await gw.app.db('team_members').insert({ team_id: teamId, user_id: a.userId, role, created_at: Date.now() });
    return a;
  };
  const [viewer, billing, developer] = [await member('viewer'), await member('billing'), await member('developer')];
  const teamKey = await callOperation<{ key: string }>(gw, 'createTeamApiKey', { as: lead.session, params: { team_id: teamId }, body: { name: 'studio' } });
  t.is(teamKey.status, 201);
  const slug = uniqueName('tpay').toLowerCase().replace(/[^a-z0-9-]/g, '').slice(0, 30);
  const studio = await callOperation<Studio>(gw, 'createStudio', { as: lead.session, query: { team_id: teamId }, body: { slug, name: 'Team shop', allowed_models: [MODEL, CHAT], payer_mode: 'owner_pays' } });
  t.is(studio.status, 201);
  const teamWallet = async () => {
    const row = await gw.app.db('teams').where('id', teamId).first<{ balance: number | string; held: number | string }>('balance', 'held');
    return { balance: Number(row.balance), held: Number(row.held) };
  };

  for (const [role, who] of [['viewer', viewer], ['billing', billing]] as const) {
    for (const as of [who.liveKey, who.session]) {
      const refused = await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { ...(as === who.liveKey ? { 'x-api-key': as } : { authorization: `Bearer ${as}` }), ...inStudio(slug) }, payload: { prompt: 'a lighthouse' } });
      t.is(refused.statusCode, 403, refused.payload);
      t.is(json(refused).code, 'forbidden');
      t.is(json(refused).detail, `your role in the team that owns this studio (${role}) lacks the "generate" permission: the team's wallet pays for runs in the studio "${slug}"`);
    }
    // the OpenAI-compatible routes spend the same wallet
    const chat = await gw.server.inject({ method: 'POST', url: '/v1/chat/completions', headers: { 'x-api-key': who.liveKey, ...inStudio(slug) }, payload: { model: CHAT, messages: [{ role: 'user', content: 'hi' }] } });
    t.is(chat.statusCode, 403, chat.payload);
    t.regex(chat.payload, /lacks the \\"generate\\" permission/);
    const images = await gw.server.inject({ method: 'POST', url: '/v1/images/generations', headers: { 'x-api-key': who.liveKey, ...inStudio(slug) }, payload: { model: MODEL, prompt: 'a lighthouse' } });
    t.is(images.statusCode, 403, images.payload);
    // as with team_id
    t.is((await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}?team_id=${teamId}`, headers: { 'x-api-key': who.liveKey }, payload: { prompt: 'a lighthouse' } })).statusCode, 403);
    // what needs no spending stays open to them in the studio
    t.is((await gw.server.inject({ method: 'GET', url: '/api/v1/models', headers: { 'x-api-key': who.liveKey, ...inStudio(slug) } })).statusCode, 200);
  }
  t.deepEqual(await teamWallet(), { balance: 1000, held: 0 });
  t.is((await gw.app.db('predictions').whereIn('user_id', [viewer.userId, billing.userId])).length, 0);

  // a developer, the team's key and an end user run on the team's wallet at the list price
  const endUser = await studioUser(slug, 0);
  let paid = 0;
  for (const as of [developer.liveKey, teamKey.body.key, endUser.liveKey]) {
    const res = await submit(as, slug);
    t.is(res.statusCode, 200, res.payload);
    t.is(json(res).price, list);
    t.is(await finished(json(res).request_id as string), 'completed');
    paid += list;
  }
  await waitFor(async () => (await teamWallet()).held === 0);
  t.deepEqual(await teamWallet(), { balance: 1000 - paid, held: 0 });
  t.is((await wallet(developer.userId)).balance, 1000);

  // end_user_pays: a viewer pays from their own wallet, the markup goes to the team
  await callOperation(gw, 'updateStudio', { as: lead.session, query: { team_id: teamId }, params: { studio_id: studio.body.id }, body: { payer_mode: 'end_user_pays', markup_percent: 100 } });
  const own = await submit(viewer.liveKey, slug);
  t.is(own.statusCode, 200, own.payload);
  t.is(json(own).price, list * 2);
  const id = json(own).request_id as string;
  t.is(await finished(id), 'completed');
  await waitFor(async () => (await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'studio_revenue', team_id: teamId })).length === 1);
  t.is((await wallet(viewer.userId)).balance, 1000 - list * 2);
  t.is((await teamWallet()).balance, 1000 - paid + list);
});

test('while its owner\'s account deletion is pending, a personal owner_pays studio refuses its users\' runs (403); end_user_pays and a team\'s studio keep working; a cancel restores it', async (t) => {
  const CHAT = 'lexi-v1-balanced-chat';
  const leaving = await newAccount(gw, 10_000);
  const pays = await createStudio({ payer_mode: 'owner_pays', markup_percent: 0, allowed_models: [MODEL, CHAT] }, leaving.session);
  const ownPay = await createStudio({ payer_mode: 'end_user_pays', markup_percent: 0 }, leaving.session);
  // a team's owner_pays studio the leaving account created (another owner keeps the team)
  const teamId = (await callOperation<{ id: number }>(gw, 'createTeam', { as: leaving.session, body: { name: 'Leaving team' } })).body.id;
  const other = await newAccount(gw);
  await gw.app.db('team_members').insert({ team_id: teamId, user_id: other.userId, role: 'owner', created_at: Date.now() });
  await gw.app.db.transaction((trx) => creditWallet(trx, { userId: leaving.userId, teamId }, 1000, 'grant', 'test credit', gw.app.clock()));
  const teamSlug = uniqueName('tleave').toLowerCase().replace(/[^a-z0-9-]/g, '').slice(0, 30);
  t.is((await callOperation(gw, 'createStudio', { as: leaving.session, query: { team_id: teamId }, body: { slug: teamSlug, name: 'Team shop', allowed_models: [MODEL], payer_mode: 'owner_pays' } })).status, 201);
  const user = await studioUser(pays.slug, 0);
  const payingUser = await studioUser(ownPay.slug, 1000);
  const teamUser = await studioUser(teamSlug, 0);

  const asked = await gw.server.inject({ method: 'POST', url: '/app/account/request-deletion', headers: { authorization: `Bearer ${leaving.session}` } });
  t.is(asked.statusCode, 200, asked.payload);
  const before = await wallet(leaving.userId);
  const detail = `the owner of the studio "${pays.slug}" has scheduled their account's deletion: its runs, which its owner pays for, are refused until the owner cancels the deletion`;
  const refused = await submit(user.liveKey, pays.slug);
  t.is(refused.statusCode, 403, refused.payload);
  t.deepEqual(json(refused), { code: 'studio_owner_deletion_pending', detail });
  const bySession = await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { authorization: `Bearer ${user.session}`, ...inStudio(pays.slug) }, payload: { prompt: 'a lighthouse' } });
  t.is(bySession.statusCode, 403, bySession.payload);
  // the OpenAI-compatible routes spend the same wallet
  const chat = await gw.server.inject({ method: 'POST', url: '/v1/chat/completions', headers: { 'x-api-key': user.liveKey, ...inStudio(pays.slug) }, payload: { model: CHAT, messages: [{ role: 'user', content: 'hi' }] } });
  t.is(chat.statusCode, 403, chat.payload);
  const images = await gw.server.inject({ method: 'POST', url: '/v1/images/generations', headers: { 'x-api-key': user.liveKey, ...inStudio(pays.slug) }, payload: { model: MODEL, prompt: 'a lighthouse' } });
  t.is(images.statusCode, 403, images.payload);
  // what spends nothing stays open
  t.is((await gw.server.inject({ method: 'GET', url: '/api/v1/models', headers: { 'x-api-key': user.liveKey, ...inStudio(pays.slug) } })).statusCode, 200);
  t.deepEqual(await wallet(leaving.userId), before);
  t.is((await gw.app.db('predictions').where({ user_id: user.userId })).length, 0);

  // an end_user_pays studio's users pay their own wallets; a team's studio is the team's
  for (const [who, slug] of [[payingUser, ownPay.slug], [teamUser, teamSlug]] as const) {
    const res = await submit(who.liveKey, slug);
    t.is(res.statusCode, 200, res.payload);
    t.is(await finished(json(res).request_id as string), 'completed');
  }

  t.is((await gw.server.inject({ method: 'POST', url: '/app/account/cancel-deletion', headers: { authorization: `Bearer ${leaving.session}` } })).statusCode, 200);
  const again = await submit(user.liveKey, pays.slug);
  t.is(again.statusCode, 200, again.payload);
  t.is(await finished(json(again).request_id as string), 'completed');
});

test('a studio\'s user cannot leave the studio through a team: creating one, accepting an invitation and creating or rotating a team key are 403; a user outside studios still can', async (t) => {
  const studio = await createStudio({ payer_mode: 'end_user_pays', markup_percent: 100, allowed_models: [MODEL] });
  const user = await studioUser(studio.slug, 1000);
  const { createInvite, createTeam: insertTeam } = await import('../../db/teams.ts');
  const { newSecret, sha256Hex } = await import('../../lib/secrets.ts');
  const emailOf = async (userId: number) => (await gw.app.db('users').where('id', userId).first<{ email: string }>('email')).email;
  const team = await callOperation<{ id: number }>(gw, 'createTeam', { as: owner.session, body: { name: 'Hosts' } });
  t.is(team.status, 201);
  const invited = async (email: string) => {
    const token = newSecret('mgi_');
    await createInvite(gw.app.db, { teamId: team.body.id, email, role: 'developer', invitedBy: owner.userId, tokenHash: sha256Hex(token) }, gw.app.clock());
    return token;
  };
  const token = await invited(await emailOf(user.userId));
  const refusedBecause = /^this account belongs to the studio "[^"]+", whose users run models only within it: a studio's users cannot create or join teams/;
  for (const as of [user.session, user.liveKey]) {
    const create = await callOperation<{ code: string; detail: string }>(gw, 'createTeam', { as, headers: inStudio(studio.slug), body: { name: 'Way out' } });
    t.is(create.status, 403);
    t.is(create.body.code, 'forbidden');
    t.regex(create.body.detail, refusedBecause);
    const accept = await callOperation<{ code: string; detail: string }>(gw, 'acceptTeamInvite', { as, headers: inStudio(studio.slug), body: { token } });
    t.is(accept.status, 403);
    t.is(accept.body.code, 'forbidden');
    t.regex(accept.body.detail, refusedBecause);
  }
  t.deepEqual(await gw.app.db('team_members').where('user_id', user.userId), [], 'in no team');
  t.is((await gw.app.db('team_invites').where('token_hash', sha256Hex(token)).first<{ accepted_at: unknown }>('accepted_at')).accepted_at, null, 'the invite stays pending');

  // a team the studio's user owned before this rule is left as it is, but gets no key from them
  const old = await insertTeam(gw.app.db, user.userId, 'Before', gw.app.clock());
  for (const as of [user.session, user.liveKey]) {
    const key = await callOperation<{ code: string; detail: string }>(gw, 'createTeamApiKey', { as, headers: inStudio(studio.slug), params: { team_id: old.id }, body: { name: 'way out' } });
    t.is(key.status, 403);
    t.is(key.body.code, 'forbidden');
    t.regex(key.body.detail, /a studio's users cannot create or rotate team API keys, which run models outside the studio/);
  }
  t.deepEqual(await gw.app.db('api_keys').where('team_id', old.id), []);
  // nor a new secret for a team key made before: a rotation is refused too, and the key is unchanged
  const { insertTeamApiKey } = await import('../../db/team-resources.ts');
  const earlier = await insertTeamApiKey(gw.app.db, { teamId: old.id, createdBy: user.userId, name: 'earlier', prefix: 'mg_live_earl', keyHash: sha256Hex('earlier'), isTest: false, ipWhitelist: [] }, gw.app.clock());
  for (const as of [user.session, user.liveKey]) {
    const rotated = await callOperation<{ code: string; detail: string }>(gw, 'rotateTeamApiKey', { as, headers: inStudio(studio.slug), params: { team_id: old.id, key_id: earlier.id }, body: { grace_seconds: 0 } });
    t.is(rotated.status, 403);
    t.regex(rotated.body.detail, /a studio's users cannot create or rotate team API keys/);
  }
  t.is((await gw.app.db('api_keys').where('id', earlier.id).first<{ key_hash: string }>('key_hash')).key_hash, sha256Hex('earlier'), 'the key keeps its secret');
  const theirs = await callOperation<Array<{ id: number }>>(gw, 'listTeams', { as: user.session, headers: inStudio(studio.slug) });
  t.deepEqual(theirs.body.map((x) => x.id), [old.id]);

  // an account outside studios creates a team, joins one and creates a team key
  const plain = await newAccount(gw);
  const own = await callOperation<{ id: number }>(gw, 'createTeam', { as: plain.session, body: { name: 'Mine' } });
  t.is(own.status, 201);
  t.is((await callOperation(gw, 'acceptTeamInvite', { as: plain.session, body: { token: await invited(await emailOf(plain.userId)) } })).status, 200);
  const ci = await callOperation<{ id: number }>(gw, 'createTeamApiKey', { as: plain.liveKey, params: { team_id: own.body.id }, body: { name: 'ci' } });
  t.is(ci.status, 201);
  t.is((await callOperation(gw, 'rotateTeamApiKey', { as: plain.session, params: { team_id: own.body.id, key_id: ci.body.id }, body: { grace_seconds: 0 } })).status, 200);
});

test('a studio\'s user cannot leave the studio through a studio of their own: 403, none is created, in the studio\'s context or with team_id', async (t) => {
  const studio = await createStudio({ payer_mode: 'end_user_pays' });
  const user = await studioUser(studio.slug, 1000);
  // a team the studio's user was in before they were refused one
  const [teamId] = await gw.app.db('teams').insert({ name: 'from before', balance: 0, held: 0, created_at: Date.now() });
  await gw.app.db('team_members').insert({ team_id: teamId, user_id: user.userId, role: 'owner', created_at: Date.now() });
  for (const as of [user.session, user.liveKey]) {
    for (const query of [{}, { team_id: Number(teamId) }] as Array<Record<string, number>>) {
      const slug = uniqueName('esc').toLowerCase().replace(/[^a-z0-9-]/g, '').slice(0, 30);
      const refused = await callOperation<{ code: string; detail: string }>(gw, 'createStudio', {
        as, headers: inStudio(studio.slug), query, body: { slug, name: 'Escape', allowed_models: [OTHER_MODEL], payer_mode: 'owner_pays' },
      });
      t.is(refused.status, 403, JSON.stringify(refused.body));
      t.is(refused.body.code, 'forbidden');
      t.regex(refused.body.detail, /studio's users cannot create studios/);
    }
  }
  t.is((await gw.app.db('studios').where('user_id', user.userId)).length, 0);
  // one such a user made before the refusal is not served: its slug is unknown
  const before = uniqueName('old').toLowerCase().replace(/[^a-z0-9-]/g, '').slice(0, 30);
  await insertStudio(gw.app.db, { userId: user.userId, teamId: null }, before, { name: 'Old escape', branding: {}, domains: [], allowedModels: [OTHER_MODEL], markupPercent: 0, modelPrices: {}, payerMode: 'owner_pays' }, Date.now());
  const unknown = await callOperation<{ code: string }>(gw, 'calculateDynamicCost', { as: owner.session, headers: inStudio(before), body: { model: OTHER_MODEL, input: { prompt: 'x' } } });
  t.is(unknown.status, 404, JSON.stringify(unknown.body));
  t.is(unknown.body.code, 'studio_not_found');
  // the studio's owner still creates studios, in the studio's context too
  t.is((await callOperation(gw, 'createStudio', {
    as: owner.session, headers: inStudio(studio.slug), body: { slug: uniqueName('own').toLowerCase().replace(/[^a-z0-9-]/g, '').slice(0, 30), name: 'Second', allowed_models: [MODEL], payer_mode: 'end_user_pays' },
  })).status, 201);
});
