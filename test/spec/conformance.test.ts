// Every live operation, called by its operationId: each reply's status is one the spec declares
// and its JSON body matches that status's schema (test/helpers/operation.ts). Errors count too:
// a 404 or 422 whose body drifts from the spec's error schema fails here.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import type { ServerInjectResponse } from '@hapi/hapi';
import { callOperation, specProblems } from '../helpers/operation.ts';

let gw: TestGateway;
let acct: Account;
test.before(async () => {
  gw = await startGateway({ queue: 'memory', worker: true });
  acct = await newAccount(gw, 10_000);
});
test.after.always(async () => {
  await gw?.stop();
});

test('public operations answer what the spec declares', async (t) => {
  t.is((await callOperation(gw, 'getHealth')).status, 200);
  t.is((await callOperation(gw, 'listScopes')).status, 200);
  t.is((await callOperation(gw, 'getAuthorizationServerMetadata')).status, 200);
  t.is((await callOperation(gw, 'getProtectedResourceMetadata')).status, 200);
});

test('account and sign-in operations answer what the spec declares, errors included', async (t) => {
  const email = 'conformance@example.com';
  const password = 'a long enough password';
  t.is((await callOperation(gw, 'register', { body: { email, password } })).status, 201);
  t.is((await callOperation(gw, 'register', { body: { email, password } })).status, 409);
  t.is((await callOperation(gw, 'register', { body: { email: 'not-an-email', password } })).status, 422);
  const login = await callOperation<{ access_token: string }>(gw, 'login', { body: { email, password } });
  t.is(login.status, 200);
  t.is((await callOperation(gw, 'login', { body: { email, password: 'wrong password!' } })).status, 401);
  t.is((await callOperation(gw, 'getUserDetails', { as: login.body.access_token })).status, 200);
  t.is((await callOperation(gw, 'getBalance', { as: acct.liveKey })).status, 200);
  t.is((await callOperation(gw, 'getBalance')).status, 401);
  t.is((await callOperation(gw, 'requestOtp', { body: { email } })).status, 200);
  t.is((await callOperation(gw, 'loginOtp', { body: { email, otp: '000000' } })).status, 401);
  t.is((await callOperation(gw, 'forgotPassword', { body: { email } })).status, 200);
  t.is((await callOperation(gw, 'cliLogin', { body: { email, password } })).status, 200);
  t.is((await callOperation(gw, 'logout', { as: login.body.access_token })).status, 200);
});

test('key, webhook-secret and OAuth-client operations answer what the spec declares', async (t) => {
  const as = acct.session;
  const created = await callOperation<{ id: number }>(gw, 'createApiKey', { as, body: { name: 'conformance', is_test: true } });
  t.is(created.status, 200);
  t.is((await callOperation(gw, 'generateApiKey', { as, body: { name: 'conformance-2', is_test: true } })).status, 200);
  t.is((await callOperation(gw, 'getUserKeys', { as })).status, 200);
  t.is((await callOperation(gw, 'deleteApiKey', { as, params: { key_id: created.body.id } })).status, 200);
  t.is((await callOperation(gw, 'deleteApiKey', { as, params: { key_id: created.body.id + 100_000 } })).status, 404);
  t.is((await callOperation(gw, 'getWebhookSecret', { as })).status, 200);
  t.is((await callOperation(gw, 'rotateWebhookSecret', { as })).status, 200);
  const client = await callOperation<{ id: string }>(gw, 'createOAuthClient', { as, body: { name: 'conformance', scopes: ['generate:read'] } });
  t.is(client.status, 200);
  t.is((await callOperation(gw, 'listOAuthClients', { as })).status, 200);
  t.is((await callOperation(gw, 'deleteOAuthClient', { as, params: { id: client.body.id } })).status, 200);
});

test('a generation, its result, its response record and its cancellation answer what the spec declares', async (t) => {
  const submitted = await callOperation<{ request_id: string }>(gw, 'canvas-v1-fast-text-to-image', {
    as: acct.liveKey, body: { prompt: 'a lighthouse', width: 64, height: 64 },
  });
  t.is(submitted.status, 200);
  const id = submitted.body.request_id;
  t.is((await callOperation(gw, 'canvas-v1-fast-text-to-image', { as: acct.liveKey, body: { prompt: 'x', width: 1 } })).status, 422);
  t.is((await callOperation(gw, 'getPredictionResult', { as: acct.liveKey, params: { request_id: id } })).status, 200);
  t.is((await callOperation(gw, 'getPredictionResponse', { as: acct.session, params: { request_id: id } })).status, 200);
  t.is((await callOperation(gw, 'getPredictionResult', { as: acct.liveKey, params: { request_id: 'nope' } })).status, 404);
  const cancel = await callOperation(gw, 'cancelPrediction', { as: acct.liveKey, params: { request_id: id } });
  t.true([200, 409].includes(cancel.status), String(cancel.status));
  t.is((await callOperation(gw, 'cancelPrediction', { as: acct.liveKey, params: { request_id: 'nope' } })).status, 404);
});

test('the conformance check itself refuses a drifting body and an undeclared status', (t) => {
  const reply = (statusCode: number, body: unknown) => ({ statusCode, headers: { 'content-type': 'application/json; charset=utf-8' }, payload: JSON.stringify(body) }) as unknown as ServerInjectResponse;
  t.deepEqual(specProblems(gw, 'getBalance', reply(200, { balance: 1, held: 0, unit: 'credit' })), []);
  t.true(specProblems(gw, 'getBalance', reply(200, { balance: 'one', held: 0, unit: 'credit' })).length > 0);
  t.regex(specProblems(gw, 'getBalance', reply(418, {}))[0] ?? '', /does not declare/);
});
