// The served spec as clients use it (issue 14, "The spec"): the webhook a receiver gets is the one
// declared under `webhooks:`, every model input's example is a valid input, every operation
// declares the errors the gateway can answer, operators' wiring (x-model adapter, upstream, ...)
// is not served, and the document says which gateway version serves it. SQLite, in-process queue
// and worker; the failing upstream is nock (third-party HTTP).
import test from 'ava';
import nock from 'nock';
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { loadSpecDocument } from '../../spec/load.ts';
import type { SpecDocument } from '../../spec/load.ts';
import { PUBLIC_X_MODEL_FIELDS } from '../../spec/public.ts';
import { NOT_YET } from '../../handlers/index.ts';

const UPSTREAM = 'https://lumen.upstream.test';
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const packageVersion = (JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;

let gw: TestGateway;
let acct: Account;
let served: SpecDocument;
test.before(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  gw = await startGateway({ db: 'sqlite', queue: 'memory', worker: true, env: { WEBHOOK_ALLOW_INSECURE: 'true', UPSTREAM_LUMEN_URL: UPSTREAM } });
  acct = await newAccount(gw, 10_000);
  const res = await gw.server.inject({ method: 'GET', url: '/openapi.json' });
  served = JSON.parse(res.payload) as SpecDocument;
});
test.after.always(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  await gw?.stop();
});

/** A validator for a schema of the document, its `#/components/...` references resolved in it (OAS 3.1 schemas are JSON Schema 2020-12). */
function validatorFor(document: SpecDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'https://mediagate.test/openapi.json', components: document.components });
  return (schema: Record<string, unknown>): ValidateFunction => ajv.compile(resolveRootRef(schema));
}
/** A `$ref` at a schema's root, made absolute against the document. */
function resolveRootRef(schema: Record<string, unknown>): Record<string, unknown> {
  return typeof schema.$ref === 'string' ? { $ref: `https://mediagate.test/openapi.json${schema.$ref}` } : schema;
}

interface Operation {
  operationId: string;
  method: string;
  path: string;
  op: Record<string, unknown> & { responses: Record<string, unknown> };
  params: Array<{ name: string; in: string }>;
}
function operationsOf(document: SpecDocument): Operation[] {
  const param = (p: Record<string, unknown>) => {
    if (typeof p.$ref !== 'string') return p as { name: string; in: string };
    return document.components.parameters![p.$ref.split('/').pop()!] as { name: string; in: string };
  };
  const out: Operation[] = [];
  for (const [p, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const op = item[method] as Operation['op'] | undefined;
      if (!op) continue;
      const params = [...((item.parameters as Array<Record<string, unknown>>) ?? []), ...((op.parameters as Array<Record<string, unknown>>) ?? [])].map(param);
      out.push({ operationId: op.operationId as string, method, path: p, op, params });
    }
  }
  return out;
}

// ---------------------------------------------------------------- webhooks

function declaredWebhook(name = 'predictionFinished') {
  const hook = (served.webhooks as Record<string, { post: Record<string, unknown> }> | undefined)?.[name]?.post;
  if (!hook) throw new Error(`the served document declares no webhooks.${name}`);
  const body = (hook.requestBody as { content: Record<string, { schema: Record<string, unknown> }> }).content['application/json']!.schema;
  const headers = (hook.parameters as Array<{ name: string; in: string; required: boolean; schema: { pattern?: string } }>).filter((p) => p.in === 'header');
  return { validate: validatorFor(served)(body), headers };
}

function checkDelivery(t: import('ava').ExecutionContext, received: { headers: Record<string, unknown>; body: string }, name = 'predictionFinished') {
  const { validate, headers } = declaredWebhook(name);
  t.deepEqual(headers.map((h) => h.name).sort(), ['webhook-id', 'webhook-signature', 'webhook-timestamp']);
  for (const h of headers) {
    const value = received.headers[h.name];
    t.is(typeof value, 'string', h.name);
    if (h.schema.pattern) t.regex(String(value), new RegExp(h.schema.pattern), h.name);
  }
  const payload = JSON.parse(received.body) as unknown;
  t.true(validate(payload), JSON.stringify(validate.errors));
  return payload as Record<string, unknown>;
}

test.serial('a delivered webhook of a completed prediction matches webhooks.predictionFinished, headers included', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const res = await gw.server.inject({ method: 'POST', url: `/api/v1/canvas-v1-fast-text-to-image?webhook=${encodeURIComponent(receiver.url)}`, headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'a hook', width: 64, height: 64 } });
  t.is(res.statusCode, 200, res.payload);
  await waitFor(() => receiver.received.length === 1, { what: 'the delivery' });
  const payload = checkDelivery(t, receiver.received[0]!);
  t.is(payload.status, 'completed');
  // and the schema is not vacuous: a drifting body is refused
  const { validate } = declaredWebhook();
  t.false(validate({ ...payload, status: 'processing' }));
  t.false(validate({ ...payload, id: undefined }));
});

test.serial('a delivered webhook of a failed prediction matches webhooks.predictionFinished', async (t) => {
  nock(UPSTREAM).post(/\/v1\/models\/.*\/predictions/).reply(400, { error: 'prompt rejected' });
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const res = await gw.server.inject({ method: 'POST', url: `/api/v1/lumen-dev-text-to-image?webhook=${encodeURIComponent(receiver.url)}`, headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'x' } });
  t.is(res.statusCode, 200, res.payload);
  await waitFor(() => receiver.received.length === 1, { what: 'the delivery' });
  const payload = checkDelivery(t, receiver.received[0]!);
  t.is(payload.status, 'failed');
});

test.serial('a start event matches webhooks.predictionEvent, and the result after it webhooks.predictionFinished', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const url = `/api/v1/canvas-v1-fast-text-to-image?webhook=${encodeURIComponent(receiver.url)}&webhook_events_filter=start,completed`;
  const res = await gw.server.inject({ method: 'POST', url, headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'a hook', width: 64, height: 64 } });
  t.is(res.statusCode, 200, res.payload);
  await waitFor(() => receiver.received.length === 2, { what: 'the event and the result' });
  const event = checkDelivery(t, receiver.received[0]!, 'predictionEvent');
  t.deepEqual([event.event, event.status], ['start', 'processing']);
  t.is(checkDelivery(t, receiver.received[1]!).status, 'completed');
  // not vacuous: an event name outside the three is refused
  t.false(declaredWebhook('predictionEvent').validate({ ...event, event: 'completed' }));
});

// ---------------------------------------------------------------- model input examples

test('every model input schema has examples, and every example is a valid input', (t) => {
  const compile = validatorFor(served);
  const models = operationsOf(served).filter((o) => o.op['x-model']);
  t.true(models.length > 10);
  const seen = new Set<string>();
  for (const { operationId, op } of models) {
    const ref = (op.requestBody as { content: Record<string, { schema: { $ref?: string } }> }).content['application/json']!.schema;
    const name = ref.$ref?.split('/').pop() ?? operationId;
    const schema = ref.$ref ? (served.components.schemas![name] as { examples?: unknown[] }) : (ref as { examples?: unknown[] });
    t.true(Array.isArray(schema.examples) && schema.examples.length > 0, `${operationId}: ${name} has no examples`);
    if (seen.has(name)) continue;
    seen.add(name);
    const validate = compile(ref as Record<string, unknown>);
    for (const example of schema.examples ?? []) t.true(validate(example), `${name} example ${JSON.stringify(example)}: ${JSON.stringify(validate.errors)}`);
  }
});

test('every model input example is accepted by the gateway itself (a sandbox key: nothing is charged or called)', async (t) => {
  const models = operationsOf(served).filter((o) => o.op['x-model']);
  for (const { operationId, op, path: p } of models) {
    const ref = (op.requestBody as { content: Record<string, { schema: { $ref?: string } }> }).content['application/json']!.schema;
    const schema = served.components.schemas![ref.$ref!.split('/').pop()!] as { examples: unknown[] };
    for (const example of schema.examples) {
      const res = await gw.server.inject({ method: 'POST', url: p, headers: { 'x-api-key': acct.testKey }, payload: example as object });
      t.is(res.statusCode, 200, `${operationId}: ${res.payload}`);
    }
  }
});

test('an example is checked for real: one that breaks its schema is refused', (t) => {
  const validate = validatorFor(served)({ $ref: '#/components/schemas/CanvasV1FastTextToImageInput' });
  t.true(validate({ prompt: 'ok' }));
  t.false(validate({ prompt: 'ok', width: 'wide' }));
  t.false(validate({ prompt: 'ok', no_such_field: 1 }));
});

// ---------------------------------------------------------------- declared errors

test('every operation declares the errors the gateway can answer', (t) => {
  const problems: string[] = [];
  for (const { operationId, op, params, path: p, method } of operationsOf(served)) {
    const declared = new Set(Object.keys(op.responses));
    const need = (status: string, why: string) => {
      if (!declared.has(status)) problems.push(`${operationId} (${method.toUpperCase()} ${p}) ${why} but does not declare ${status}`);
    };
    const security = (op.security as Array<Record<string, string[]>> | undefined) ?? [];
    const isProtected = security.length > 0;
    if (isProtected) need('401', 'takes a credential');
    const scoped = security.some((s) => Object.values(s).some((scopes) => scopes.length > 0));
    const teamScoped = params.some((x) => x.name === 'team_id');
    if (scoped || op['x-required-role'] || op['x-team-permission'] || teamScoped) need('403', 'checks a scope, role or team permission');
    if (op['x-impersonation'] === 'forbidden') need('403', 'refuses an impersonated session');
    // the dashboard's cookie session: a state-changing request without its CSRF token (plugins/credentials.ts)
    if (method !== 'get' && security.some((s) => 'SessionAuth' in s)) need('403', 'takes the session cookie, whose CSRF token it checks');
    const schemes = new Set(security.flatMap((s) => Object.keys(s)));
    if (schemes.has('SessionAuth') && (!schemes.has('ApiKeyAuth') || !schemes.has('OAuth2'))) need('403', 'refuses an API key or OAuth token with session_required');
    // unknown query parameters (and a body where none is taken) are refused with 422 on every
    // route the gateway validates; the OAuth token endpoint is oidc-provider's and answers 400
    if (op['x-handled-by']) need('400', 'is handled by oidc-provider');
    // the OpenAI-compatible routes answer a validation error 400, in OpenAI's format
    else if (p.startsWith('/v1/')) need('400', 'refuses unknown query parameters (400 in OpenAI\'s format)');
    else need('422', 'refuses unknown query parameters');
    // a body is read (and refused when it is not JSON or too large) on every POST, PUT and PATCH,
    // whether the operation takes one or not
    if (['post', 'put', 'patch'].includes(method) && !op['x-handled-by']) {
      need('413', 'reads a body (capped in size)');
      need('415', 'reads a body (only JSON)');
    }
    if (params.some((x) => x.in === 'path') || teamScoped) need('404', 'names a resource (path id or team_id)');
    if (op['x-rate-limit']) need('429', `has the rate limit ${String(op['x-rate-limit'])}`);
    if (op['x-model']) need('503', 'is a model submit (queue or provider unavailable)');
    // a credential lookup, a rate budget and an audit event read or write the database: when it is
    // unreachable the answer is 503 (plugins/responses.ts)
    if (isProtected || op['x-rate-limit'] || op['x-audit'] || op['x-audit-refusal']) need('503', 'reads the database');
    // 501 is declared exactly where the handler is not built yet
    if (NOT_YET.includes(operationId)) need('501', 'is not built yet (handlers/index.ts NOT_YET)');
    else if (declared.has('501')) problems.push(`${operationId} declares 501 but has a handler: drop it`);
    if (params.some((x) => x.name === 'Idempotency-Key')) {
      need('400', 'takes an Idempotency-Key');
      need('409', 'takes an Idempotency-Key');
    }
  }
  t.deepEqual(problems, []);
});

// ---------------------------------------------------------------- what is served

test('the served document keeps what clients need of x-model and drops the wiring; the loader keeps it all', (t) => {
  const servedModels = operationsOf(served).filter((o) => o.op['x-model']);
  t.true(servedModels.length > 10);
  for (const { operationId, op } of servedModels) {
    const xModel = op['x-model'] as Record<string, unknown>;
    t.deepEqual(Object.keys(xModel).filter((k) => !PUBLIC_X_MODEL_FIELDS.includes(k)), [], operationId);
    for (const k of ['category', 'tier', 'family', 'output', 'price']) t.true(k in xModel, `${operationId}: ${k}`);
  }
  const text = JSON.stringify(served);
  for (const field of ['"adapter"', '"upstream"', '"upstream_model"', '"input_map"', '"fixed_input"', '"providers"']) t.false(text.includes(field), `${field} is served`);
  for (const upstream of ['black-forest-labs/flux-1.1-pro', 'fal-ai/kling-video', 'gpt-image-1']) t.false(text.includes(upstream), `an upstream model name (${upstream}) is served`);
  // the app itself still wires providers from the full document (lumen-pro lists two, in failover order)
  const lumenPro = operationsOf(gw.app.spec.document).find((o) => o.operationId === 'lumen-pro-text-to-image')!;
  const providers = (lumenPro.op['x-model'] as { providers: Array<Record<string, unknown>> }).providers;
  t.deepEqual(providers.map((p) => [p.adapter, p.upstream_model]), [['replicate', 'black-forest-labs/flux-1.1-pro'], ['openai-compatible', 'gpt-image-1-mini']]);
  t.is(gw.app.spec.models.get('lumen-pro-text-to-image')!.upstreamModel, 'black-forest-labs/flux-1.1-pro');
});

test('the spec and the package agree on the version, and the served document names the gateway version', (t) => {
  const written = loadSpecDocument(path.join(import.meta.dirname, '..', '..', 'spec', 'v1'));
  t.is((written.info as { version: string }).version, packageVersion, 'spec/v1/openapi.yaml info.version must equal package.json version');
  const info = served.info as Record<string, unknown>;
  t.is(info.version, packageVersion);
  t.is(info['x-gateway-version'], packageVersion);
});

test('the served document is a structurally valid OpenAPI 3.1 document, webhooks included (Redocly\'s struct rule)', async (t) => {
  // @redocly/openapi-core is what openapi-typescript (gen:types) validates with; here it checks
  // the served document, after spec/public.ts, rather than the loader's
  const config = await createConfig({ rules: { struct: 'error' } });
  const problems = await lintFromString({ source: JSON.stringify(served), absoluteRef: 'https://mediagate.test/openapi.json', config });
  const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.location[0]?.pointer ?? ''}: ${p.message}`);
  t.deepEqual(errors, []);
  t.truthy((served.webhooks as Record<string, unknown>).predictionFinished);
});

test('the served document passes Redocly\'s recommended ruleset with no errors', async (t) => {
  // what a client developer's own lint (redocly lint, or a generator built on it) reports first;
  // warnings are left to judgement, errors are not
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: JSON.stringify(served), absoluteRef: 'https://mediagate.test/openapi.json', config });
  const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);
  t.deepEqual(errors, []);
  // the ruleset is really applied: the webhook's `security: []` is what keeps security-defined quiet
  const hook = structuredClone(served) as SpecDocument & { webhooks: Record<string, { post: Record<string, unknown> }> };
  delete hook.webhooks.predictionFinished!.post.security;
  const without = await lintFromString({ source: JSON.stringify(hook), absoluteRef: 'https://mediagate.test/openapi.json', config });
  t.true(without.some((p) => p.severity === 'error' && p.ruleId === 'security-defined'));
});

// ---------------------------------------------------------------- examples of what clients read

/** The schemas of every 2xx answer and of the webhook body: a `$ref`, an array's items and each `oneOf` branch, or inline. */
function answersOf(document: SpecDocument): Array<{ where: string; media: string; schema: Record<string, unknown>; mediaObject: Record<string, unknown> }> {
  const out: Array<{ where: string; media: string; schema: Record<string, unknown>; mediaObject: Record<string, unknown> }> = [];
  const content = (where: string, c: Record<string, Record<string, unknown>> | undefined) => {
    for (const [media, mediaObject] of Object.entries(c ?? {})) {
      const walk = (s: Record<string, unknown>) => {
        const branches = (s.oneOf ?? s.anyOf) as Array<Record<string, unknown>> | undefined;
        if (branches) for (const b of branches) walk(b);
        else if (s.type === 'array' && s.items) walk(s.items as Record<string, unknown>);
        else out.push({ where, media, schema: s, mediaObject });
      };
      walk((mediaObject.schema ?? {}) as Record<string, unknown>);
    }
  };
  for (const { operationId, op } of operationsOf(document)) {
    for (const [status, r] of Object.entries(op.responses as Record<string, { $ref?: string; content?: Record<string, Record<string, unknown>> }>)) {
      if (!status.startsWith('2')) continue;
      const response = r.$ref ? document.components.responses![r.$ref.split('/').pop()!] as typeof r : r;
      content(`${operationId} ${status}`, response.content);
    }
  }
  for (const [name, hook] of Object.entries(document.webhooks as Record<string, { post: { requestBody: { content: Record<string, Record<string, unknown>> } } }>)) {
    content(`webhook ${name}`, hook.post.requestBody.content);
  }
  return out;
}

test('every answer a client reads (and the webhook body) has an example, and its schema accepts every example', (t) => {
  const compile = validatorFor(served);
  const answers = answersOf(served);
  t.true(answers.length > 100);
  const problems: string[] = [];
  const checked = new Set<string>();
  for (const { where, media, schema, mediaObject } of answers) {
    if (!media.includes('json')) {
      // a stream or a token as text: the media type shows it
      if (typeof mediaObject.example !== 'string') problems.push(`${where} (${media}) has no example`);
      continue;
    }
    const name = typeof schema.$ref === 'string' ? schema.$ref.split('/').pop()! : undefined;
    const target = name ? served.components.schemas![name] as { examples?: unknown[] } : schema as { examples?: unknown[] };
    const label = name ?? `${where} (inline)`;
    if (checked.has(label)) continue;
    checked.add(label);
    if (!Array.isArray(target.examples) || target.examples.length === 0) {
      problems.push(`${label} (${where}) has no examples`);
      continue;
    }
    const validate = compile(schema);
    for (const example of target.examples) if (!validate(example)) problems.push(`${label}: ${JSON.stringify(validate.errors)}`);
  }
  t.deepEqual(problems, []);
  t.true(checked.size > 50);
});

test('an answer example is checked for real: one that breaks its schema is refused', (t) => {
  const validate = validatorFor(served)({ $ref: '#/components/schemas/PredictionResult' });
  const example = (served.components.schemas!.PredictionResult as { examples: Array<Record<string, unknown>> }).examples[0]!;
  t.true(validate(example));
  t.false(validate({ ...example, status: 'finished' }));
  t.false(validate({ ...example, outputs: undefined }));
});
