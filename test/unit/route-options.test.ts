// routeOptionsFor: one spec operation -> hapi route options, with no server and no database.
import test from 'ava';
import type { Operation } from 'openapi-backend';
import type { RouteOptions } from '@hapi/hapi';
import { routeOptionsFor } from '../../plugins/spec-routes.ts';
import type { RouteDeps } from '../../plugins/spec-routes.ts';
import type { App } from '../../app.ts';

const app = {
  config: { publicUrl: 'http://gateway.test', maxBodyBytes: 1024 },
  log: { debug: () => undefined },
} as unknown as App;

function deps(over: Partial<RouteDeps> = {}): RouteDeps {
  return {
    app,
    strategies: new Set(['api-key', 'session', 'oauth']),
    globalSecurity: [],
    declaredScopes: new Set(['generate:read', 'generate:write']),
    handler: async () => ({}),
    ...over,
  };
}

function op(fields: Record<string, unknown>): Operation {
  return { operationId: 'someOperation', method: 'get', path: '/x', responses: {}, ...fields } as unknown as Operation;
}

type Auth = Exclude<RouteOptions['auth'], undefined | string | false>;

test('an operation without security is public', (t) => {
  const options = routeOptionsFor(op({}), deps());
  t.is(options.auth, false);
  t.is(options.id, 'someOperation');
  t.is(options.payload, undefined, 'a GET reads no body');
});

test('the global security applies to operations that declare none', (t) => {
  const options = routeOptionsFor(op({}), deps({ globalSecurity: [{ ApiKeyAuth: [] }] }));
  t.deepEqual((options.auth as Auth).strategies, ['api-key']);
});

test('security alternatives become strategies, and the OAuth2 scopes a required hapi scope', (t) => {
  const options = routeOptionsFor(op({ security: [{ ApiKeyAuth: [] }, { SessionAuth: [] }, { OAuth2: ['generate:read'] }] }), deps());
  const auth = options.auth as Auth;
  t.deepEqual(auth.strategies, ['api-key', 'session', 'oauth']);
  t.is(auth.mode, 'required');
  t.deepEqual(auth.access, { scope: ['+generate:read'] });
});

test('a protected operation whose credentials this build cannot check is closed', (t) => {
  const options = routeOptionsFor(op({ security: [{ EmbedCode: [] }] }), deps());
  t.deepEqual((options.auth as Auth).strategies, ['closed']);
});

test('a scope the OAuth2 scheme does not declare is refused, naming the operation and the scope', (t) => {
  const err = t.throws(() => routeOptionsFor(op({ security: [{ OAuth2: ['files:delete'] }] }), deps()));
  t.is(err?.message, 'someOperation: OAuth2 scope "files:delete" is not declared by the OAuth2 security scheme');
});

test('an unknown x-required-role is refused, naming the operation', (t) => {
  const err = t.throws(() => routeOptionsFor(op({ security: [{ SessionAuth: [] }], 'x-required-role': 'root' }), deps()));
  t.regex(err?.message ?? '', /^someOperation: x-required-role must be one of admin/);
});

test('an admin operation checks the role after authentication', (t) => {
  const options = routeOptionsFor(op({ security: [{ SessionAuth: [] }], 'x-required-role': 'admin' }), deps());
  t.truthy(options.ext?.onPostAuth);
});

test('a POST takes JSON up to the configured size, or the content types the spec lists', (t) => {
  const json = routeOptionsFor(op({ method: 'post' }), deps());
  t.deepEqual(json.payload?.allow, ['application/json']);
  t.is(json.payload?.maxBytes, 1024);
  const form = routeOptionsFor(op({ method: 'post', requestBody: { content: { 'application/x-www-form-urlencoded': {} } } }), deps());
  t.deepEqual(form.payload?.allow, ['application/x-www-form-urlencoded']);
});

test('it registers nothing: the same operation gives equal options twice', (t) => {
  const a = routeOptionsFor(op({ security: [{ ApiKeyAuth: [] }] }), deps());
  const b = routeOptionsFor(op({ security: [{ ApiKeyAuth: [] }] }), deps());
  t.deepEqual(a.auth, b.auth);
});

const IDEMPOTENCY_KEY = { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } };

test('declaring the Idempotency-Key header makes a protected operation idempotent', (t) => {
  t.notThrows(() => routeOptionsFor(op({ method: 'post', security: [{ ApiKeyAuth: [] }], parameters: [IDEMPOTENCY_KEY] }), deps()));
});

test('a public operation declaring the Idempotency-Key header is refused, naming it: keys are kept per caller', (t) => {
  const err = t.throws(() => routeOptionsFor(op({ method: 'post', parameters: [IDEMPOTENCY_KEY] }), deps()));
  t.regex(err.message, /^someOperation: declares the Idempotency-Key header but is public/);
});
