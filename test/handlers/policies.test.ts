// Policies declared in the spec (x-rate-limit, x-audit, x-audit-refusal): start-up refuses unknown
// names, naming the operation; the wrapper logs the declared events. No server, no database.
import test from 'ava';
import type { Operation } from 'openapi-backend';
import type { Request } from '@hapi/hapi';
import { policiesOf, RATE_LIMIT_POLICIES, withPolicies } from '../../handlers/policies.ts';
import type { PolicyContext } from '../../handlers/policies.ts';
import { routeOptionsFor } from '../../plugins/spec-routes.ts';
import type { RouteDeps } from '../../plugins/spec-routes.ts';
import { NotFoundError, UnauthorizedError } from '../../lib/errors.ts';
import type { App } from '../../app.ts';

function op(fields: Record<string, unknown>): Operation {
  return { operationId: 'someOperation', method: 'post', path: '/x', responses: {}, ...fields } as unknown as Operation;
}
const withEmail = { requestBody: { content: { 'application/json': { schema: { properties: { email: { type: 'string' } } } } } } };

test('declared names are read from the operation', (t) => {
  t.deepEqual(policiesOf('login', op({ ...withEmail, 'x-rate-limit': 'password-attempts', 'x-audit': 'signed_in', 'x-audit-refusal': 'sign_in_refused' })),
    { rateLimit: 'password-attempts', audit: 'signed_in', auditRefusal: 'sign_in_refused' });
  t.deepEqual(policiesOf('register', op({ 'x-rate-limit': 'registrations' })), { rateLimit: 'registrations' });
  t.deepEqual(policiesOf('listThings', op({})), {});
});

test('an unknown x-rate-limit is refused, naming the operation', (t) => {
  t.throws(() => policiesOf('login', op({ ...withEmail, 'x-rate-limit': 'password-guesses' })), { message: `login: x-rate-limit must be one of ${Object.keys(RATE_LIMIT_POLICIES).join(', ')}` });
});

test('a budget counted per email is refused on an operation whose body has no email', (t) => {
  t.throws(() => policiesOf('logout', op({ 'x-rate-limit': 'password-attempts' })), { message: "logout: x-rate-limit password-attempts counts per email, but the operation's JSON body has no email" });
});

test('an unknown x-audit or x-audit-refusal is refused, naming the operation', (t) => {
  t.throws(() => policiesOf('login', op({ 'x-audit': 'logged_in' })), { message: /^login: x-audit must be one of registered, signed_in, / });
  t.throws(() => policiesOf('login', op({ 'x-audit-refusal': 'nope' })), { message: /^login: x-audit-refusal must be one of registered, / });
});

test('the route bridge refuses them at start-up too', (t) => {
  const app = { config: { publicUrl: 'http://gateway.test', maxBodyBytes: 1024 }, log: { debug: () => undefined } } as unknown as App;
  const deps: RouteDeps = { app, strategyFor: new Map(), bearerSchemes: new Set(), globalSecurity: [], declaredScopes: new Set(), handler: async () => ({}) };
  t.throws(() => routeOptionsFor(op({ 'x-audit': 'whatever' }), deps), { message: /^someOperation: x-audit must be one of/ });
});

function context() {
  const lines: Array<{ level: string; fields: Record<string, unknown> }> = [];
  const log = { info: (fields: Record<string, unknown>) => lines.push({ level: 'info', fields }), warn: (fields: Record<string, unknown>) => lines.push({ level: 'warn', fields }) };
  const ctx: PolicyContext = {
    app: { log, config: { trustedProxies: [] } } as unknown as App,
    request: { info: { remoteAddress: '203.0.113.7' }, headers: {} } as unknown as Request,
    operationId: 'login',
    body: {},
    audit: {},
  };
  return { ctx, lines };
}

test('the declared event is logged when the handler succeeds, with the fields it added', async (t) => {
  const { ctx, lines } = context();
  const reply = await withPolicies({ audit: 'signed_in', auditRefusal: 'sign_in_refused' }, ctx, async () => {
    ctx.audit.userId = 7;
    return { ok: true };
  });
  t.deepEqual(reply, { ok: true });
  t.deepEqual(lines, [{ level: 'info', fields: { event: 'signed_in', route: 'login', address: '203.0.113.7', userId: 7 } }]);
});

test('the declared refusal is logged (as a warning) when the handler refuses with a 4xx, and the error goes on', async (t) => {
  const { ctx, lines } = context();
  await t.throwsAsync(withPolicies({ audit: 'signed_in', auditRefusal: 'sign_in_refused' }, ctx, async () => {
    ctx.audit.method = 'password';
    throw new UnauthorizedError('incorrect email or password');
  }), { instanceOf: UnauthorizedError });
  t.deepEqual(lines, [{ level: 'warn', fields: { event: 'sign_in_refused', route: 'login', address: '203.0.113.7', method: 'password' } }]);
});

test('a fault (5xx) is not a refusal, and an operation without x-audit-refusal logs nothing on failure', async (t) => {
  const { ctx, lines } = context();
  await t.throwsAsync(withPolicies({ audit: 'signed_in', auditRefusal: 'sign_in_refused' }, ctx, async () => { throw new Error('database down'); }));
  await t.throwsAsync(withPolicies({ audit: 'registered' }, ctx, async () => { throw new NotFoundError('x'); }));
  t.deepEqual(lines, []);
});
