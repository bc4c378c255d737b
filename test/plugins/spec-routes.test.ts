// routeOptionsFor: one spec operation -> hapi route options, with no server and no database.
import test from 'ava';
import type { Operation } from 'openapi-backend';
import type { RouteOptions } from '@hapi/hapi';
import path from 'node:path';
import Boom from '@hapi/boom';
import { routeDepsFor, routeOptionsFor, strategyMapFor } from '../../plugins/spec-routes.ts';
import { credentialPlugins } from '../../server.ts';
import { loadSpec } from '../../app.ts';
import type { RouteDeps } from '../../plugins/spec-routes.ts';
import type { App } from '../../app.ts';

const app = {
  config: { publicUrl: 'http://gateway.test', maxBodyBytes: 1024 },
  log: { debug: () => undefined },
} as unknown as App;

function deps(over: Partial<RouteDeps> = {}): RouteDeps {
  return {
    app,
    strategyFor: new Map([['ApiKeyAuth', 'api-key'], ['SessionAuth', 'session'], ['OAuth2', 'oauth']]),
    bearerSchemes: new Set(['SessionAuth', 'OAuth2']),
    globalSecurity: [],
    declaredScopes: new Set(['generate:read', 'generate:write']),
    handler: async () => ({}),
    ...over,
  };
}

function op(fields: Record<string, unknown>): Operation {
  return { operationId: 'someOperation', method: 'get', path: '/x', responses: {}, ...fields } as unknown as Operation;
}

const SPEC = path.resolve(import.meta.dirname, '../../spec/v1');

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
  const options = routeOptionsFor(op({ security: [{ ApiKeyAuth: [] }, { SessionAuth: [] }, { OAuth2: ['generate:read'] }], 'x-impersonation': 'allowed' }), deps());
  const auth = options.auth as Auth;
  t.deepEqual(auth.strategies, ['api-key', 'session', 'oauth']);
  t.is(auth.mode, 'required');
  t.deepEqual(auth.access, { scope: ['+generate:read'] });
});

test('a security scheme no credential plugin implements is refused, naming the operation and the scheme', (t) => {
  const err = t.throws(() => routeOptionsFor(op({ security: [{ ApiKeyAuth: [] }, { EmbedCode: [] }] }), deps()));
  t.is(err?.message, 'someOperation: security scheme "EmbedCode" is implemented by no credential plugin');
});

const plugin = (securityScheme: string, strategy: string) => ({ name: `mediagate-${strategy}`, securityScheme, strategy });

test('the scheme -> strategy map is built from the credential plugins', (t) => {
  const map = strategyMapFor(['ApiKeyAuth', 'OAuth2'], [plugin('OAuth2', 'oauth'), plugin('ApiKeyAuth', 'api-key')]);
  t.deepEqual([...map], [['OAuth2', 'oauth'], ['ApiKeyAuth', 'api-key']]);
});

test('start-up refuses a declared security scheme no credential plugin implements', (t) => {
  t.throws(() => strategyMapFor(['ApiKeyAuth', 'EmbedCode'], [plugin('ApiKeyAuth', 'api-key')]), { message: 'security scheme "EmbedCode" is implemented by no credential plugin' });
});

test('start-up refuses a credential plugin for a scheme the spec does not declare, and two plugins for one scheme', (t) => {
  t.throws(() => strategyMapFor(['ApiKeyAuth'], [plugin('ApiKeyAuth', 'api-key'), plugin('ApiKeyAuthV2', 'api-key-2')]), { message: 'credential plugin mediagate-api-key-2 implements security scheme "ApiKeyAuthV2", which the spec does not declare' });
  t.throws(() => strategyMapFor(['ApiKeyAuth'], [plugin('ApiKeyAuth', 'api-key'), plugin('ApiKeyAuth', 'other-key')]), { message: 'security scheme "ApiKeyAuth" is implemented by more than one credential plugin' });
});

test('the credential plugins of the server implement exactly the spec\'s security schemes', async (t) => {
  const { document } = await loadSpec(SPEC);
  const { strategyFor, bearerSchemes } = routeDepsFor({ spec: { document } } as unknown as App, credentialPlugins);
  t.deepEqual(Object.fromEntries(strategyFor), { ApiKeyAuth: 'api-key', SessionAuth: 'session', OAuth2: 'oauth', EmbedCodeAuth: 'embed-code', AgentEmbedCodeAuth: 'agent-embed-code' });
  t.deepEqual([...bearerSchemes].sort(), ['OAuth2', 'SessionAuth']);
  // A scheme added to the spec without a plugin stops start-up.
  const components = document.components as { securitySchemes: Record<string, unknown> };
  const extended = { ...document, components: { ...components, securitySchemes: { ...components.securitySchemes, EmbedCode: { type: 'apiKey', in: 'query', name: 'embed' } } } };
  t.throws(() => routeDepsFor({ spec: { document: extended } } as unknown as App, credentialPlugins), { message: 'security scheme "EmbedCode" is implemented by no credential plugin' });
});

test('an unknown x-required-role is refused, naming the operation', (t) => {
  const err = t.throws(() => routeOptionsFor(op({ security: [{ SessionAuth: [] }], 'x-required-role': 'root' }), deps()));
  t.regex(err?.message ?? '', /^someOperation: x-required-role must be one or a list of user, support, billing, admin/);
});

test('an admin operation checks the role after authentication', (t) => {
  const options = routeOptionsFor(op({ security: [{ SessionAuth: [] }], 'x-required-role': 'admin' }), deps());
  t.truthy(options.ext?.onPostAuth);
});

test('impersonation is default deny: an operation a session may call must say allowed or forbidden, naming the operation', (t) => {
  const missing = t.throws(() => routeOptionsFor(op({ security: [{ ApiKeyAuth: [] }, { SessionAuth: [] }] }), deps()));
  t.regex(missing?.message ?? '', /^someOperation: a login session may call it, so it must declare x-impersonation: allowed or forbidden/);
  const other = t.throws(() => routeOptionsFor(op({ security: [{ SessionAuth: [] }], 'x-impersonation': 'maybe' }), deps()));
  t.regex(other?.message ?? '', /^someOperation: x-impersonation must be "allowed" or "forbidden"/);
  const roleAllowed = t.throws(() => routeOptionsFor(op({ security: [{ SessionAuth: [] }], 'x-required-role': 'admin', 'x-impersonation': 'allowed' }), deps()));
  t.regex(roleAllowed?.message ?? '', /^someOperation: x-impersonation: a role operation always refuses/);
  const noSession = t.throws(() => routeOptionsFor(op({ security: [{ ApiKeyAuth: [] }], 'x-impersonation': 'allowed' }), deps()));
  t.regex(noSession?.message ?? '', /^someOperation: declares x-impersonation but no login session may call it/);
  // an API-key-only or public operation needs no declaration; a role operation refuses without one
  t.notThrows(() => routeOptionsFor(op({ security: [{ ApiKeyAuth: [] }] }), deps()));
  t.notThrows(() => routeOptionsFor(op({ security: [{ SessionAuth: [] }], 'x-required-role': 'admin' }), deps()));
});

/** Runs a route's onPostAuth step on a fake request, answering what it threw (or 'continue'). */
function postAuth(options: RouteOptions, request: { strategy?: string; caller?: Record<string, unknown>; payload?: unknown }): unknown {
  const ext = options.ext?.onPostAuth as { method: (r: unknown, h: unknown) => unknown };
  const fake = { auth: { strategy: request.strategy ?? null, credentials: request.caller ? { user: { caller: request.caller } } : null }, payload: request.payload };
  try {
    return ext.method(fake, { continue: 'continue' });
  } catch (err) {
    return err;
  }
}

test('a marked operation refuses an impersonated session after authentication; an allowed one lets it through', (t) => {
  const impersonated = { userId: 7, via: 'session', role: 'user', impersonator: { userId: 1, role: 'support' } };
  const forbidden = routeOptionsFor(op({ security: [{ SessionAuth: [] }], 'x-impersonation': 'forbidden' }), deps());
  t.like(postAuth(forbidden, { strategy: 'session', caller: impersonated }), { code: 'impersonation_forbidden', status: 403 });
  const allowed = routeOptionsFor(op({ security: [{ SessionAuth: [] }], 'x-impersonation': 'allowed' }), deps());
  t.is(postAuth(allowed, { strategy: 'session', caller: impersonated }), 'continue');
});

test('a valid credential of a kind a session route does not take authenticates only to be refused 403 session_required', (t) => {
  const sessionOnly = routeOptionsFor(op({ security: [{ SessionAuth: [] }], 'x-impersonation': 'forbidden' }), deps());
  t.deepEqual((sessionOnly.auth as Auth).strategies, ['session', 'api-key', 'oauth']);
  const byKey = postAuth(sessionOnly, { strategy: 'api-key', caller: { userId: 7, via: 'api-key' } }) as { code: string; message: string };
  t.is(byKey.code, 'session_required');
  t.is(byKey.message, 'this operation needs a login session; an API key is not accepted here');
  t.is(postAuth(sessionOnly, { strategy: 'session', caller: { userId: 7, via: 'session' } }), 'continue');
  const sessionOrToken = routeOptionsFor(op({ security: [{ SessionAuth: [] }, { OAuth2: ['generate:read'] }], 'x-impersonation': 'allowed' }), deps());
  t.deepEqual((sessionOrToken.auth as Auth).strategies, ['session', 'oauth', 'api-key']);
  t.regex((postAuth(sessionOrToken, { strategy: 'api-key', caller: { userId: 7, via: 'api-key' } }) as Error).message, /needs a login session or an OAuth access token; an API key is not accepted/);
  // an operation without a session alternative keeps its own strategies: a wrong kind there is 401
  t.deepEqual((routeOptionsFor(op({ security: [{ ApiKeyAuth: [] }] }), deps()).auth as Auth).strategies, ['api-key']);
});

test('a JSON body nested deeper than the limit is refused 422 before the handler; the limit itself passes', (t) => {
  const options = routeOptionsFor(op({ method: 'post' }), deps());
  const nest = (n: number) => { let v: unknown = 'x'; for (let i = 0; i < n; i++) v = i % 2 ? [v] : { v }; return v; };
  t.is(postAuth(options, { payload: nest(32) }), 'continue');
  const deep = postAuth(options, { payload: nest(20_000) }) as { output: { statusCode: number; payload: { detail: Array<{ type: string }> } } };
  t.is(deep.output.statusCode, 422);
  t.is(deep.output.payload.detail[0]!.type, 'json_too_deep');
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

test('spec-routes adds its routes once the credential plugins are registered, whatever the registration order', async (t) => {
  const { default: Hapi } = await import('@hapi/hapi');
  const { specRoutesPlugin } = await import('../../plugins/spec-routes.ts');
  const testKey = {
    name: 'test-key',
    securityScheme: 'ApiKeyAuth',
    strategy: 'test-key',
    register(server: import('@hapi/hapi').Server) {
      server.auth.scheme('test-key', () => ({ authenticate: (_request, h) => h.unauthenticated(Boom.unauthorized('no key')) }));
      server.auth.strategy('test-key', 'test-key');
    },
  };
  const specApp = {
    ...app,
    spec: {
      document: { components: { securitySchemes: { ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'x-api-key' } } } },
      operations: [op({ security: [{ ApiKeyAuth: [] }] })],
      models: new Map(),
      api: { handlers: { someOperation: async () => ({}) } },
    },
    catalog: { onNewModels: () => undefined },
  } as unknown as App;
  const errorsStub = { name: 'mediagate-errors', register: () => undefined };
  const server = Hapi.server();
  // spec-routes first: its routes name a strategy that is registered after it.
  await server.register({ plugin: specRoutesPlugin, options: { app: specApp, credentials: [testKey] } });
  await server.register([errorsStub, testKey]);
  await server.initialize();
  t.is((await server.inject('/x')).statusCode, 401);

  const missing = Hapi.server();
  await missing.register({ plugin: specRoutesPlugin, options: { app: specApp, credentials: [testKey] } });
  await missing.register(errorsStub);
  await t.throwsAsync(missing.initialize(), { message: /missing dependency test-key/ });
});

const IDEMPOTENCY_KEY = { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } };

test('declaring the Idempotency-Key header makes a protected operation idempotent', (t) => {
  t.notThrows(() => routeOptionsFor(op({ method: 'post', security: [{ ApiKeyAuth: [] }], parameters: [IDEMPOTENCY_KEY] }), deps()));
});

test('a public operation declaring the Idempotency-Key header is refused, naming it: keys are kept per caller', (t) => {
  const err = t.throws(() => routeOptionsFor(op({ method: 'post', parameters: [IDEMPOTENCY_KEY] }), deps()));
  t.regex(err.message, /^someOperation: declares the Idempotency-Key header but is public/);
});

test('x-required-role takes one role or a list, which must include admin', (t) => {
  t.truthy(routeOptionsFor(op({ security: [{ SessionAuth: [] }], 'x-required-role': ['support', 'admin'] }), deps()).ext?.onPostAuth);
  t.throws(() => routeOptionsFor(op({ security: [{ SessionAuth: [] }], 'x-required-role': ['support'] }), deps()), { message: /^someOperation: x-required-role must include admin/ });
  t.throws(() => routeOptionsFor(op({ security: [{ SessionAuth: [] }], 'x-required-role': [] }), deps()), { message: /^someOperation: x-required-role must be one or a list/ });
});

test('a route whose handler waits by design gets that wait on top of the server\'s answer and socket deadlines; any other keeps them', (t) => {
  const waiting = { ...app, config: { ...app.config, chatUpstreamTimeoutMs: 100_000, imagesWaitMs: 90_000 } } as unknown as App;
  const timeoutOf = (operationId: string, over: Partial<RouteDeps> = {}) => routeOptionsFor(op({ operationId, method: 'post' }), deps({ app: waiting, ...over })).timeout;
  // two providers' whole CHAT_UPSTREAM_TIMEOUT_MS (handlers/openai.ts chatWaitMs)
  t.deepEqual(timeoutOf('createChatCompletion'), { server: 30_000 + 200_000, socket: 60_000 + 200_000 });
  // IMAGES_WAIT_MS and the 20 s its images may take to read back
  t.deepEqual(timeoutOf('createImage'), { server: 30_000 + 110_000, socket: 60_000 + 110_000 });
  // a model submit's longest `Prefer: wait`, 60 s
  const model = { operationId: 'canvas-v1-fast-text-to-image' } as unknown as RouteDeps['model'];
  t.deepEqual(timeoutOf('canvas-v1-fast-text-to-image', { model }), { server: 90_000, socket: 120_000 });
  t.is(timeoutOf('getBalance'), undefined, 'the server\'s own 30 s and 60 s (server.ts)');
});
