// The HTTP surface: credentials, validation, error bodies, spec and docs. MariaDB, no worker.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { NOT_YET, handlerFor } from '../../handlers/index.ts';
import { NotImplementedError } from '../../lib/errors.ts';

let gw: TestGateway;
let acct: Account;
test.before(async () => {
  gw = await startGateway({ queue: 'memory' });
  acct = await newAccount(gw, 10_000);
});
test.after.always(async () => {
  await gw?.stop();
});

const post = (url: string, payload: unknown, headers: Record<string, string> = {}) => gw.server.inject({ method: 'POST', url, payload: payload as object, headers });

test('registration answers 201 with the user and no secret; a duplicate email is 409', async (t) => {
  const res = await callOperation<Record<string, unknown>>(gw, 'register', { body: { email: 'Someone@Example.COM', password: 'long enough password' } });
  t.is(res.status, 201, res.raw.payload);
  t.is(res.body.email, 'someone@example.com');
  t.false('password' in res.body || 'password_hash' in res.body);
  t.false(res.raw.payload.includes('long enough'));
  const dup = await callOperation(gw, 'register', { body: { email: 'someone@example.com', password: 'another password' } });
  t.is(dup.status, 409);
});

test('login gives a bearer session; a wrong password and an unknown email get the same 401', async (t) => {
  await callOperation(gw, 'register', { body: { email: 'login@example.com', password: 'hunter2hunter2' } });
  const ok = await callOperation<{ access_token: string; token_type: string; expires_in: number }>(gw, 'login', { body: { email: 'LOGIN@example.com', password: 'hunter2hunter2' } });
  t.is(ok.status, 200);
  const session = ok.body;
  t.is(session.token_type, 'bearer');
  t.true(session.access_token.startsWith('mgs_'));
  const stored = await gw.app.db('sessions').select('token_hash');
  t.false(stored.some((r: { token_hash: string }) => r.token_hash === session.access_token));
  const wrong = await callOperation(gw, 'login', { body: { email: 'login@example.com', password: 'hunter3hunter3' } });
  const unknown = await callOperation(gw, 'login', { body: { email: 'nobody@example.com', password: 'hunter2hunter2' } });
  t.is(wrong.status, 401);
  t.deepEqual(wrong.body, unknown.body);
});

test('the CLI exchanges email and password for a working production key', async (t) => {
  await callOperation(gw, 'register', { body: { email: 'cli@example.com', password: 'cli password 1' } });
  const res = await callOperation<{ api_key: string }>(gw, 'cliLogin', { body: { email: 'cli@example.com', password: 'cli password 1' } });
  t.is(res.status, 200);
  const key = res.body.api_key;
  t.true(key.startsWith('mg_live_'));
  t.is((await callOperation(gw, 'getBalance', { as: key })).status, 200);
  t.is((await callOperation(gw, 'cliLogin', { body: { email: 'cli@example.com', password: 'wrong password' } })).status, 401);
});

test('keys are shown once, stored hashed, listed without their value, and a revoked key is 401', async (t) => {
  const as = acct.session;
  const created = await callOperation<{ id: number; key: string; prefix: string; is_test: boolean }>(gw, 'createApiKey', { as, body: { name: 'ci', is_test: true } });
  t.is(created.status, 200);
  const k = created.body;
  t.true(k.key.startsWith('mg_test_'));
  t.true(k.key.startsWith(k.prefix));
  const rows = await gw.app.db('api_keys').where({ id: k.id });
  t.not(rows[0].key_hash, k.key);
  t.false(JSON.stringify(rows[0]).includes(k.key));
  const list = await callOperation<Array<{ id: number }>>(gw, 'getUserKeys', { as });
  t.false(list.raw.payload.includes(k.key));
  t.true(list.body.some((r) => r.id === k.id));
  t.is((await callOperation(gw, 'deleteApiKey', { as, params: { key_id: k.id } })).status, 200);
  const after = await callOperation(gw, 'getBalance', { as: k.key });
  t.is(after.status, 401);
  t.deepEqual(after.body, { detail: 'invalid or revoked API key', code: 'unauthorized' });
});

test('missing and unknown credentials are 401 with a JSON detail', async (t) => {
  const none = await gw.server.inject({ method: 'GET', url: '/account/balance' });
  t.is(none.statusCode, 401);
  t.is(typeof (none.result as { detail: unknown }).detail, 'string');
  const bogus = await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': 'mg_live_nope' } });
  t.is(bogus.statusCode, 401);
  const badSession = await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { authorization: 'Bearer mgs_nope' } });
  t.is(badSession.statusCode, 401);
});

test('an API key restricted to other addresses is refused with 403', async (t) => {
  const created = await post('/api/v1/keys', { name: 'office', is_test: true, ip_whitelist: ['203.0.113.0/24'] }, { authorization: `Bearer ${acct.session}` });
  t.is(created.statusCode, 200, created.payload);
  const res = await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': (created.result as { key: string }).key } });
  t.is(res.statusCode, 403);
  const bad = await post('/api/v1/keys', { is_test: true, ip_whitelist: ['not-an-ip'] }, { authorization: `Bearer ${acct.session}` });
  t.is(bad.statusCode, 422);
});

test('model inputs are validated per model with FastAPI-style 422 bodies', async (t) => {
  const key = { 'x-api-key': acct.testKey };
  const cases: Array<[string, unknown, Array<string | number>, string]> = [
    ['/api/v1/aurora-v3-pro-text-to-video', { prompt: 'x', duration: 16 }, ['body', 'duration'], 'less_than_equal'],
    ['/api/v1/aurora-v3-pro-text-to-video', { prompt: 'x', duration: 0 }, ['body', 'duration'], 'greater_than_equal'],
    ['/api/v1/aurora-v3-pro-text-to-video', { prompt: 'x', aspect_ratio: 'wide' }, ['body', 'aspect_ratio'], 'string_pattern_mismatch'],
    ['/api/v1/aurora-v3-pro-text-to-video', { duration: 5 }, ['body', 'prompt'], 'missing'],
    ['/api/v1/aurora-v3-pro-text-to-video', { prompt: 'x', colour: 'red' }, ['body', 'colour'], 'extra_forbidden'],
    ['/api/v1/lumen-pro-i2i', { prompt: 'x' }, ['body', 'image_url'], 'missing'],
    ['/api/v1/lumen-pro-i2i', { prompt: 'x', image_url: 'not a url' }, ['body', 'image_url'], 'value_error'],
  ];
  for (const [url, payload, loc, type] of cases) {
    const res = await post(url, payload, key);
    t.is(res.statusCode, 422, `${url} ${JSON.stringify(payload)}: ${res.payload}`);
    const detail = (res.result as { detail: Array<{ loc: unknown[]; type: string; msg: string }> }).detail;
    t.true(detail.some((d) => JSON.stringify(d.loc) === JSON.stringify(loc) && d.type === type), `${JSON.stringify(payload)} -> ${res.payload}`);
  }
  t.is((await post('/api/v1/aurora-v3-pro-text-to-video', { prompt: 'x', duration: 15, aspect_ratio: '21:9' }, key)).statusCode, 200);
});

test('malformed JSON is 422, a wrong content type 415, an oversized body 413: never 500', async (t) => {
  const url = '/api/v1/canvas-v1-fast-text-to-image';
  const malformed = await gw.server.inject({ method: 'POST', url, payload: '{"prompt": ', headers: { 'x-api-key': acct.testKey, 'content-type': 'application/json' } });
  t.is(malformed.statusCode, 422);
  t.deepEqual(malformed.result, { detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }], code: 'validation_failed' });
  const text = await gw.server.inject({ method: 'POST', url, payload: 'prompt=x', headers: { 'x-api-key': acct.testKey, 'content-type': 'text/plain' } });
  t.is(text.statusCode, 415);
  t.is((text.result as { detail: Array<{ type: string }> }).detail[0]!.type, 'content_type');
  const big = await gw.server.inject({ method: 'POST', url, payload: JSON.stringify({ prompt: 'x'.repeat(2 * 1024 * 1024) }), headers: { 'x-api-key': acct.testKey, 'content-type': 'application/json' } });
  t.is(big.statusCode, 413);
  t.is(typeof (big.result as { detail: unknown }).detail, 'string');
  const empty = await gw.server.inject({ method: 'POST', url, headers: { 'x-api-key': acct.testKey } });
  t.is(empty.statusCode, 422);
  const array = await post(url, [1, 2], { 'x-api-key': acct.testKey });
  t.is(array.statusCode, 422);
  const badQuery = await gw.server.inject({ method: 'POST', url: `${url}?unknown=1`, payload: { prompt: 'x' }, headers: { 'x-api-key': acct.testKey } });
  t.is(badQuery.statusCode, 422);
});

test('unknown routes are 404 with a JSON detail', async (t) => {
  const res = await gw.server.inject({ method: 'GET', url: '/nope' });
  t.is(res.statusCode, 404);
  t.deepEqual(res.result, { detail: 'not found', code: 'not_found' });
  const model = await post('/api/v1/no-such-model', { prompt: 'x' }, { 'x-api-key': acct.testKey });
  t.is(model.statusCode, 404);
});

test('every declared operation has a handler: NOT_YET is empty, and a listed one would answer 501 with a JSON detail', async (t) => {
  t.deepEqual([...NOT_YET], []);
  // the 501 path itself, as an operation listed in NOT_YET would take it
  const notYet = handlerFor('__not_built_yet__');
  t.is(notYet, undefined);
  const err = await t.throwsAsync(Promise.reject(new NotImplementedError()));
  t.is((err as NotImplementedError).status, 501);
});

test('the spec is served, declares every model with x-model, and /docs renders from local assets', async (t) => {
  const spec = await gw.server.inject({ method: 'GET', url: '/openapi.json' });
  t.is(spec.statusCode, 200);
  const doc = JSON.parse(spec.payload) as { openapi: string; paths: Record<string, Record<string, { operationId: string; 'x-model'?: { tier: string } }>> };
  t.is(doc.openapi, '3.1.0');
  const models = Object.values(doc.paths).flatMap((p) => Object.values(p)).filter((op) => op['x-model']);
  t.true(models.length >= 20);
  const docs = await gw.server.inject({ method: 'GET', url: '/docs' });
  t.is(docs.statusCode, 200);
  t.regex(docs.payload, /swagger-ui-bundle\.js/);
  t.false(/https?:\/\//.test(docs.payload));
  const asset = await gw.server.inject({ method: 'GET', url: '/docs/assets/swagger-ui-bundle.js' });
  t.is(asset.statusCode, 200);
});

test('health reports the database and the queue', async (t) => {
  const res = await gw.server.inject({ method: 'GET', url: '/health' });
  t.is(res.statusCode, 200);
  t.deepEqual(res.result, { status: 'ok', database: 'ok', queue: 'ok' });
});

test('user details show the caller with their balance', async (t) => {
  const res = await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: { 'x-api-key': acct.liveKey } });
  t.is(res.statusCode, 200);
  const body = res.result as { id: number; balance: number; role: string };
  t.is(body.id, acct.userId);
  t.is(body.balance, 10_000);
  t.is(body.role, 'user');
});

test('an API key can create another key; the new key belongs to the same account', async (t) => {
  const res = await post('/api/v1/keys', { name: 'from-key', is_test: false }, { 'x-api-key': acct.liveKey });
  t.is(res.statusCode, 200, res.payload);
  const key = (res.result as { key: string }).key;
  const details = await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: { 'x-api-key': key } });
  t.is((details.result as { id: number }).id, acct.userId);
});
