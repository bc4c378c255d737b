// Embed codes and agent embed codes (README "Embeds") against real MariaDB and RabbitMQ, with a
// worker: management routes, origins, what a code may call, input rules, visitors, spend caps
// (exact under concurrent submits), the owner's hard budget (its figure never told to a visitor),
// the per-address rate limit, revocation, CORS; the bounds on the settings on SQLite as well.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { waitFor } from '../helpers/services.ts';
import { captureLog } from '../helpers/logs.ts';
import { createClient, tokenFor } from '../helpers/oauth.ts';

const MODEL = 'canvas-v1-fast-text-to-image';
const OTHER_MODEL = 'canvas-v1-budget-text-to-image';
const SHOP = 'https://shop.example.com';
// the middle of a minute, so the rate-limit test's calls all fall in one window
const NOW = Date.UTC(2026, 10, 23, 12, 0, 30);

let gw: TestGateway;
let owner: Account;
// the settings' bounds hold on SQLite alike (its columns would take more): a gateway on SQLite,
// under per-key default limits (the MariaDB one has none), for the rule on keys' own limits
let lite: TestGateway;
let liteOwner: Account;
// error-level lines only: a refusal of bad input must leave none
const log = captureLog('error');
const liteLog = captureLog('error');

test.before(async () => {
  [gw, lite] = await Promise.all([
    startGateway({ worker: true, clock: () => NOW, log: log.log }),
    startGateway({ db: 'sqlite', queue: 'memory', clock: () => NOW, log: liteLog.log, env: { GENERATE_RATE_PER_KEY: '60', GENERATE_CONCURRENT_PER_KEY: '10' } }),
  ]);
  [owner, liteOwner] = await Promise.all([newAccount(gw, 100_000), newAccount(lite)]);
});
test.after.always(async () => {
  await Promise.all([gw?.stop(), lite?.stop()]);
});

type Code = { id: number; code: string; kind: string; models: string[]; allowed_origins: string[]; revoked_at: string | null; team_id: number | null };

async function createCode(body: Record<string, unknown>, as = owner.session, query: Record<string, number> = {}): Promise<Code> {
  const res = await callOperation<Code>(gw, 'createEmbedCode', { as, body: { kind: 'embed', name: 'widget', models: [MODEL], ...body }, query });
  if (res.status !== 201) throw new Error(`createEmbedCode: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

function submit(code: string, opts: { origin?: string | null; referer?: string; visitor?: string; body?: Record<string, unknown>; model?: string; header?: string; query?: string } = {}) {
  const headers: Record<string, string> = { [opts.header ?? 'x-embed-code']: code, 'content-type': 'application/json' };
  if (opts.origin !== null) headers.origin = opts.origin ?? SHOP;
  if (opts.referer) headers.referer = opts.referer;
  if (opts.visitor) headers['x-embed-visitor'] = opts.visitor;
  return gw.server.inject({ method: 'POST', url: `/api/v1/${opts.model ?? MODEL}${opts.query ?? ''}`, headers, payload: opts.body ?? { prompt: 'a lighthouse' } });
}

function poll(code: string, id: string, visitor?: string, header = 'x-embed-code') {
  return gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${id}/result`, headers: { [header]: code, origin: SHOP, ...(visitor ? { 'x-embed-visitor': visitor } : {}) } });
}

const json = (res: { payload: string }) => JSON.parse(res.payload) as Record<string, unknown>;

/** The error-level lines a request to a path under `prefix` left in `lines` (tests in this file run concurrently). */
const errorsUnder = (lines: readonly string[], prefix: string) => lines.map((l) => JSON.parse(l) as { level: number; path?: string })
  .filter((l) => l.level >= 50 && String(l.path ?? '').startsWith(prefix));

test('owners create, list, read, change and revoke codes; codes are prefixed, long and shown again; another owner sees none', async (t) => {
  const embed = await createCode({ allowed_origins: ['https://Shop.Example.com/', '*.example.org'] });
  t.regex(embed.code, /^emb_[A-Za-z0-9_-]{32}$/);
  t.deepEqual(embed.allowed_origins, ['https://shop.example.com', '*.example.org']);
  const agent = await createCode({ kind: 'agent_embed', models: [MODEL, OTHER_MODEL], allowed_origins: [SHOP], preset: { prompt_template: 'a watercolour of {prompt}' } });
  t.regex(agent.code, /^aemb_[A-Za-z0-9_-]{32}$/);
  const list = await callOperation<Code[]>(gw, 'listEmbedCodes', { as: owner.liveKey });
  t.true(list.body.some((c) => c.code === embed.code) && list.body.some((c) => c.code === agent.code));
  const read = await callOperation<Code>(gw, 'getEmbedCode', { as: owner.session, params: { embed_code_id: embed.id } });
  t.is(read.body.code, embed.code);
  const changed = await callOperation<Code & { daily_cap: number }>(gw, 'updateEmbedCode', { as: owner.session, params: { embed_code_id: embed.id }, body: { daily_cap: 1000 } });
  t.is(changed.status, 200);
  t.is(changed.body.daily_cap, 1000);
  t.is(changed.body.code, embed.code);

  const two = await callOperation<{ code: string }>(gw, 'createEmbedCode', { as: owner.session, body: { kind: 'embed', name: 'x', models: [MODEL, OTHER_MODEL] } });
  t.is(two.status, 422);
  const unknown = await callOperation(gw, 'createEmbedCode', { as: owner.session, body: { kind: 'embed', name: 'x', models: ['no-such-model'] } });
  t.is(unknown.status, 422);
  const badOrigin = await callOperation(gw, 'createEmbedCode', { as: owner.session, body: { kind: 'embed', name: 'x', models: [MODEL], allowed_origins: ['https://a.example.com/path'] } });
  t.is(badOrigin.status, 422);
  const badLock = await callOperation(gw, 'createEmbedCode', { as: owner.session, body: { kind: 'embed', name: 'x', models: [MODEL], locked_inputs: { nope: 1 } } });
  t.is(badLock.status, 422);
  const sandbox = await callOperation(gw, 'createEmbedCode', { as: owner.testKey, body: { kind: 'embed', name: 'x', models: [MODEL] } });
  t.is(sandbox.status, 403);

  const stranger = await newAccount(gw);
  t.is((await callOperation(gw, 'getEmbedCode', { as: stranger.session, params: { embed_code_id: embed.id } })).status, 404);
  t.is((await callOperation(gw, 'revokeEmbedCode', { as: stranger.session, params: { embed_code_id: embed.id } })).status, 404);
  t.deepEqual((await callOperation<Code[]>(gw, 'listEmbedCodes', { as: stranger.session })).body, []);
});

test('locked and preset inputs are at most 60,000 bytes as stored JSON, on MariaDB and SQLite alike: more is 422 naming the field, never a 500', async (t) => {
  // MariaDB's TEXT column holds 65,535 bytes; SQLite's has no limit: the bound is the same on both
  // locked {"prompt":"…"} is exactly 60,000 bytes with `fits`, and 60,013 with `over` (30,013 characters:
  // counted in UTF-8 bytes); the preset {"inputs":{"prompt":"…"}} is exactly 60,000 with `presetFits`
  const fits = 'é'.repeat(29_993) + 'a';
  const presetFits = 'é'.repeat(29_988);
  const over = 'é'.repeat(30_000);
  for (const [engine, target, who, lines] of [['MariaDB', gw, owner, log.lines], ['SQLite', lite, liteOwner, liteLog.lines]] as const) {
    const create = (body: Record<string, unknown>) => callOperation<{ id: number; locked_inputs: Record<string, unknown> }>(target, 'createEmbedCode', { as: who.session, body: { kind: 'embed', name: 'big', models: [MODEL], ...body } });
    const refused = (res: { status: number; raw: { payload: string } }, loc: string[], bytes: number, what: string) => {
      t.is(res.status, 422, `${engine}: ${what}`);
      const body = json(res.raw) as { detail: Array<{ loc: string[]; msg: string }>; code: string };
      t.is(body.code, 'validation_failed', `${engine}: ${what}`);
      t.deepEqual(body.detail.map((d) => d.loc), [loc], `${engine}: ${what}`);
      t.regex(body.detail[0]!.msg, new RegExp(`are ${bytes} bytes as JSON \\(UTF-8\\); at most 60000`), `${engine}: ${what}`);
    };
    refused(await create({ locked_inputs: { prompt: over } }), ['body', 'locked_inputs'], 60_013, 'locked inputs on create');
    refused(await create({ preset: { inputs: { prompt: over } } }), ['body', 'preset', 'inputs'], 60_024, 'preset inputs on create');
    const kept = await create({ locked_inputs: { prompt: fits }, preset: { inputs: { prompt: presetFits } } });
    t.is(kept.status, 201, `${engine}: exactly the bound is kept`);
    t.is(kept.body.locked_inputs.prompt, fits, `${engine}: kept whole`);
    const patch = (body: Record<string, unknown>) => callOperation(target, 'updateEmbedCode', { as: who.session, params: { embed_code_id: kept.body.id }, body });
    refused(await patch({ locked_inputs: { prompt: over } }), ['body', 'locked_inputs'], 60_013, 'locked inputs on update');
    refused(await patch({ preset: { inputs: { prompt: over } } }), ['body', 'preset', 'inputs'], 60_024, 'preset inputs on update');
    const read = await callOperation<{ locked_inputs: Record<string, unknown> }>(target, 'getEmbedCode', { as: who.session, params: { embed_code_id: kept.body.id } });
    t.is(read.body.locked_inputs.prompt, fits, `${engine}: a refused change changes nothing`);
    t.deepEqual(errorsUnder(lines, '/app/embed-codes'), [], `${engine}: no error logged`);
  }
});

test('an allowed origin whose host is longer than DNS allows (253 characters, 63 a label) is 422 naming it, never a 500', async (t) => {
  // the origin index keeps hosts in a column of 255 characters (a `*.` entry's key included)
  const longest = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
  t.is(longest.length, 253);
  for (const [engine, target, who, lines] of [['MariaDB', gw, owner, log.lines], ['SQLite', lite, liteOwner, liteLog.lines]] as const) {
    const create = (allowed_origins: string[]) => callOperation<Code>(target, 'createEmbedCode', { as: who.session, body: { kind: 'embed', name: 'long', models: [MODEL], allowed_origins } });
    for (const [entry, reason] of [['a'.repeat(256), /host has 256 characters; .*at most 253/], [`https://*.x${longest}:8443`, /host has 254 characters/], [`https://${'a'.repeat(64)}.example.com`, /label of 64 characters; .*at most 63/]] as const) {
      const res = await create([SHOP, entry]);
      t.is(res.status, 422, `${engine}: ${entry.slice(0, 20)}…`);
      const body = json(res.raw) as { detail: Array<{ loc: unknown[]; msg: string }>; code: string };
      t.is(body.code, 'validation_failed');
      t.deepEqual(body.detail.map((d) => d.loc), [['body', 'allowed_origins', 1]], engine);
      t.true(body.detail[0]!.msg.includes(`"${entry}"`), `${engine}: the message names the origin`);
      t.regex(body.detail[0]!.msg, reason, engine);
    }
    // at the limits: kept, and found by the origin index
    const kept = await create([`https://${longest}:65535`, `https://*.${longest}:65535`]);
    t.is(kept.status, 201, engine);
    t.deepEqual(kept.body.allowed_origins, [`https://${longest}:65535`, `https://*.${longest}:65535`]);
    const preflight = await target.server.inject({ method: 'OPTIONS', url: `/api/v1/${MODEL}`, headers: { origin: `https://${longest}:65535`, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-embed-code' } });
    t.is(preflight.headers['access-control-allow-origin'], `https://${longest}:65535`, engine);
    const changed = await callOperation(target, 'updateEmbedCode', { as: who.session, params: { embed_code_id: kept.body.id }, body: { allowed_origins: [`http://${'a'.repeat(300 - 7)}`] } });
    t.is(changed.status, 422, `${engine}: on change too`);
    t.deepEqual((json(changed.raw) as { detail: Array<{ loc: unknown[] }> }).detail.map((d) => d.loc), [['body', 'allowed_origins', 0]]);
    const read = await callOperation<Code>(target, 'getEmbedCode', { as: who.session, params: { embed_code_id: kept.body.id } });
    t.is(read.body.allowed_origins.length, 2, `${engine}: a refused change changes nothing`);
    t.deepEqual(errorsUnder(lines, '/app/embed-codes'), [], `${engine}: no error logged`);
  }
});

test('a visitor submits from an allowed origin, is charged to the owner, gets a visitor id, and polls its own result; another visitor gets 404', async (t) => {
  // an owner of its own: the other tests spend from the shared one at the same time
  const payer = await newAccount(gw, 1000);
  const { code, id: codeId } = await createCode({ allowed_origins: [SHOP] }, payer.session);
  const before = await gw.app.db('users').where({ id: payer.userId }).first();
  const res = await submit(code);
  t.is(res.statusCode, 200, res.payload);
  const visitor = String(res.headers['x-embed-visitor']);
  t.regex(visitor, /^vis_[A-Za-z0-9_-]{22}$/);
  t.is(res.headers['access-control-allow-origin'], SHOP);
  t.regex(String(res.headers.vary), /origin/i);
  t.regex(String(res.headers['access-control-expose-headers']), /X-Embed-Visitor/);
  t.is(res.headers['x-balance-remaining'], undefined, 'the owner\'s balance is never shown to a visitor');
  const requestId = String(json(res).request_id);
  const row = await gw.app.db('predictions').where({ id: requestId }).first();
  t.is(Number(row.embed_code_id), codeId);
  t.is(Number(row.user_id), payer.userId);
  t.is(row.team_id, null);

  const done = await waitFor(async () => {
    const r = await poll(code, requestId, visitor);
    return r.statusCode === 200 && json(r).status === 'completed' ? r : undefined;
  }, { what: 'the embed prediction to complete' });
  t.is(done.headers['x-embed-visitor'], undefined, 'a returning visitor keeps its id');
  t.is(done.headers['access-control-allow-origin'], SHOP);
  const after = await gw.app.db('users').where({ id: payer.userId }).first();
  t.is(Number(before.balance) - Number(after.balance), 5);
  const ledger = await gw.app.db('credit_transactions').where({ prediction_id: requestId, kind: 'prediction' });
  t.is(ledger.length, 1);
  t.is(Number(ledger[0].amount), -5);

  // visitor B: a fresh id of its own, then its own id
  const b = await poll(code, requestId);
  t.is(b.statusCode, 404);
  const visitorB = String(b.headers['x-embed-visitor']);
  t.not(visitorB, visitor);
  t.is((await poll(code, requestId, visitorB)).statusCode, 404);
  t.is((await poll(code, requestId, 'vis_not-a-real-one')).statusCode, 422);
  // the owner still sees it
  t.is((await callOperation(gw, 'getPredictionResult', { as: payer.liveKey, params: { request_id: requestId } })).status, 200);
  // another code of the same owner, same visitor id: not its prediction
  const other = await createCode({ allowed_origins: [SHOP] }, payer.session);
  t.is((await poll(other.code, requestId, visitor)).statusCode, 404);
});

test('an Idempotency-Key is each visitor\'s own: another visitor sending the same key and body runs its own request and never sees the first answer', async (t) => {
  const payer = await newAccount(gw, 1000);
  const { code } = await createCode({ allowed_origins: [SHOP] }, payer.session);
  const send = (visitor?: string) => gw.server.inject({
    method: 'POST', url: `/api/v1/${MODEL}`, payload: { prompt: 'a lighthouse' },
    headers: { 'x-embed-code': code, 'content-type': 'application/json', origin: SHOP, 'idempotency-key': 'checkout-1', ...(visitor ? { 'x-embed-visitor': visitor } : {}) },
  });
  const first = await send();
  t.is(first.statusCode, 200, first.payload);
  const visitorA = String(first.headers['x-embed-visitor']);
  const replay = await send(visitorA);
  t.is(replay.headers['idempotent-replayed'], 'true', 'the same visitor gets its own answer again');
  t.is(json(replay).request_id, json(first).request_id);

  const other = await send();
  t.is(other.statusCode, 200, other.payload);
  t.not(other.headers['x-embed-visitor'], visitorA);
  t.is(other.headers['idempotent-replayed'], undefined, 'another visitor is not answered from the first visitor\'s request');
  t.not(json(other).request_id, json(first).request_id);
  // and another code of the same owner has its own keys too
  const { code: second } = await createCode({ allowed_origins: [SHOP] }, payer.session);
  const viaSecond = await gw.server.inject({
    method: 'POST', url: `/api/v1/${MODEL}`, payload: { prompt: 'a lighthouse' },
    headers: { 'x-embed-code': second, 'content-type': 'application/json', origin: SHOP, 'idempotency-key': 'checkout-1', 'x-embed-visitor': visitorA },
  });
  t.is(viaSecond.statusCode, 200, viaSecond.payload);
  t.not(json(viaSecond).request_id, json(first).request_id);
});

test('origins: a wrong origin and a missing one are 403 with stable codes; Referer and wildcards match; no list allows any page', async (t) => {
  const { code } = await createCode({ allowed_origins: [SHOP, '*.partner.test:8443'] });
  const wrong = await submit(code, { origin: 'https://evil.example.net' });
  t.is(wrong.statusCode, 403);
  t.is(json(wrong).code, 'embed_origin_not_allowed');
  // the page may read why (the refusal says nothing else), never run anything
  t.is(wrong.headers['access-control-allow-origin'], 'https://evil.example.net');
  t.is(wrong.headers['x-embed-visitor'], undefined, 'no visitor id for a refused origin');
  const missing = await submit(code, { origin: null });
  t.is(missing.statusCode, 403);
  t.is(json(missing).code, 'embed_origin_missing');
  t.is((await submit(code, { origin: null, referer: `${SHOP}/products/1?x=y` })).statusCode, 200);
  t.is((await submit(code, { origin: 'https://a.b.partner.test:8443' })).statusCode, 200);
  t.is((await submit(code, { origin: 'https://partner.test:8443' })).statusCode, 403, 'a wildcard covers subdomains only');
  t.is((await submit(code, { origin: 'https://a.partner.test' })).statusCode, 403, 'the port is part of the entry');
  t.is((await submit(code, { origin: 'http://shop.example.com' })).statusCode, 403, 'the scheme is part of the entry');
  const open = await createCode({});
  t.is((await submit(open.code, { origin: null })).statusCode, 200);
  const anywhere = await submit(open.code, { origin: 'https://anywhere.test' });
  t.is(anywhere.headers['access-control-allow-origin'], 'https://anywhere.test');
});

test('a code calls only its model(s), without webhook or team_id; every other protected operation is 403', async (t) => {
  const { code } = await createCode({ allowed_origins: [SHOP] });
  const other = await submit(code, { model: OTHER_MODEL });
  t.is(other.statusCode, 403);
  t.is(json(other).code, 'embed_model_not_allowed');
  const hook = await submit(code, { query: '?webhook=https%3A%2F%2Fhooks.example.com%2Fx' });
  t.is(hook.statusCode, 422);
  t.is(json(hook).code, 'embed_webhook_not_allowed');
  const team = await submit(code, { query: '?team_id=1' });
  t.is(team.statusCode, 403);
  t.is(json(team).code, 'embed_team_not_allowed');
  for (const url of ['/account/balance', '/app/get_user_keys', '/app/embed-codes']) {
    const res = await gw.server.inject({ method: 'GET', url, headers: { 'x-embed-code': code, origin: SHOP } });
    t.is(res.statusCode, 403, url);
    t.is(json(res).code, 'embed_operation_not_allowed', url);
  }
  const cancel = await gw.server.inject({ method: 'POST', url: '/app/cancel_prediction/0123', headers: { 'x-embed-code': code, origin: SHOP } });
  t.is(cancel.statusCode, 403);
  // the wrong header for the kind
  const agent = await createCode({ kind: 'agent_embed', models: [MODEL, OTHER_MODEL], allowed_origins: [SHOP] });
  t.is((await submit(agent.code)).statusCode, 401);
  t.is((await submit(code, { header: 'x-agent-embed-code' })).statusCode, 401);
  t.is((await submit(agent.code, { header: 'x-agent-embed-code', model: OTHER_MODEL })).statusCode, 200);
  t.is((await submit(agent.code, { header: 'x-agent-embed-code', model: 'chime-v1-fast-text-to-audio' })).statusCode, 403);
  t.is((await submit('emb_made-up', {})).statusCode, 401);
});

test('locked and preset inputs are merged over the visitor\'s; fields outside allowed_fields are 422', async (t) => {
  const { code } = await createCode({ allowed_origins: [SHOP], locked_inputs: { width: 256 }, allowed_fields: ['prompt', 'seed'] });
  const ok = await submit(code, { body: { prompt: 'a fox', seed: 3, width: 1024 } });
  t.is(ok.statusCode, 200, ok.payload);
  const row = await gw.app.db('predictions').where({ id: json(ok).request_id }).first();
  t.like(JSON.parse(row.input), { prompt: 'a fox', seed: 3, width: 256 });
  const refused = await submit(code, { body: { prompt: 'a fox', height: 300 } });
  t.is(refused.statusCode, 422);
  t.is(json(refused).code, 'embed_field_not_allowed');

  const agent = await createCode({ kind: 'agent_embed', models: [MODEL, OTHER_MODEL], allowed_origins: [SHOP], preset: { inputs: { height: 128 }, prompt_template: 'a watercolour of {prompt}' } });
  const res = await submit(agent.code, { header: 'x-agent-embed-code', model: OTHER_MODEL, body: { prompt: 'a fox' } });
  t.is(res.statusCode, 200, res.payload);
  const agentRow = await gw.app.db('predictions').where({ id: json(res).request_id }).first();
  t.like(JSON.parse(agentRow.input), { prompt: 'a watercolour of a fox', height: 128 });

  // what the widget draws: the editable part only, and nothing of the owner
  const resolved = await callOperation<Record<string, unknown> & { input_schema: { properties: Record<string, unknown> }; models: unknown[] }>(gw, 'getModelNameForEmbedcode', { query: { embed_code: code }, headers: { origin: SHOP } });
  t.is(resolved.status, 200);
  t.like(resolved.body, { embed_code: code, name: MODEL, kind: 'embed', endpoint: `/api/v1/${MODEL}`, category: 'text-to-image' });
  t.deepEqual(Object.keys(resolved.body.input_schema.properties).sort(), ['prompt', 'seed']);
  t.is(resolved.headers['access-control-allow-origin'], SHOP);
  const text = JSON.stringify(resolved.body);
  for (const secret of ['balance', 'email', 'user_id', 'team_id', 'owner']) t.false(text.includes(`"${secret}"`), secret);
  const agentResolved = await callOperation<{ models: Array<{ name: string; input_schema: { properties: Record<string, unknown> } }> }>(gw, 'getModelNameForEmbedcode', { query: { embed_code: agent.code }, headers: { origin: SHOP } });
  t.deepEqual(agentResolved.body.models.map((m) => m.name), [MODEL, OTHER_MODEL]);
  t.false('height' in agentResolved.body.models[0]!.input_schema.properties);
  const wrongOrigin = await callOperation<{ code: string }>(gw, 'getModelNameForEmbedcode', { query: { embed_code: code }, headers: { origin: 'https://evil.test' } });
  t.is(wrongOrigin.status, 403);
  t.is((await callOperation(gw, 'getModelNameForEmbedcode', { query: { embed_code: 'emb_nope' } })).status, 404);
});

test('the 11th submit in a minute from one address is 429 with Retry-After; a code may set its own limit', async (t) => {
  const { code } = await createCode({ allowed_origins: [SHOP] });
  for (let i = 0; i < 10; i++) t.is((await submit(code)).statusCode, 200, `call ${i + 1}`);
  const eleventh = await submit(code);
  t.is(eleventh.statusCode, 429);
  t.is(json(eleventh).code, 'rate_limited');
  t.is(eleventh.headers['retry-after'], '30');
  t.is(eleventh.headers['access-control-allow-origin'], SHOP, 'the page can read why');
  // another client address has its own budget
  const elsewhere = await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, remoteAddress: '192.0.2.7', headers: { 'x-embed-code': code, origin: SHOP, 'content-type': 'application/json' }, payload: { prompt: 'x' } });
  t.is(elsewhere.statusCode, 200);
  const own = await createCode({ allowed_origins: [SHOP], rate_limit_per_minute: 2 });
  t.is((await submit(own.code)).statusCode, 200);
  t.is((await submit(own.code)).statusCode, 200);
  t.is((await submit(own.code)).statusCode, 429);
});

test('spend caps: per run, daily (exact under concurrent submits) and monthly are 402 with stable codes and no balance', async (t) => {
  const perRun = await createCode({ max_cost_per_run: 4 });
  const tooDear = await submit(perRun.code);
  t.is(tooDear.statusCode, 402);
  t.is(json(tooDear).code, 'embed_cost_cap_exceeded');

  // daily cap 25 = five runs of 5 credits; twelve submits race for them
  const daily = await createCode({ daily_cap: 25, rate_limit_per_minute: 1000 });
  const results = await Promise.all(Array.from({ length: 12 }, () => submit(daily.code, { origin: null })));
  const statuses = results.map((r) => r.statusCode).sort();
  const odd = results.find((r) => r.statusCode !== 200 && r.statusCode !== 402);
  if (odd) t.log(odd.payload);
  t.is(statuses.filter((s) => s === 200).length, 5, statuses.join(','));
  t.is(statuses.filter((s) => s === 402).length, 7, statuses.join(','));
  const refused = results.find((r) => r.statusCode === 402)!;
  t.is(json(refused).code, 'embed_daily_cap_reached');
  t.false(/balance|\d{4,}/.test(String(json(refused).detail)), 'the detail does not reveal the owner\'s balance');
  t.is(refused.headers['x-balance-remaining'], undefined);
  const spent = await gw.app.db('predictions').where({ embed_code_id: daily.id }).sum({ s: 'price' }).first();
  t.is(Number(spent!.s), 25);

  const monthly = await createCode({ monthly_cap: 5 });
  t.is((await submit(monthly.code, { origin: null })).statusCode, 200);
  const over = await submit(monthly.code, { origin: null });
  t.is(over.statusCode, 402);
  t.is(json(over).code, 'embed_monthly_cap_reached');
});

test('the owner\'s hard monthly budget refuses a visitor with 402 budget_exceeded that never tells the budget; the owner\'s own submit is told it', async (t) => {
  const payer = await newAccount(gw, 100_000);
  const budget = 7;
  t.is((await callOperation(gw, 'updateAlertSettings', { as: payer.session, body: { monthly_budget: budget, monthly_budget_mode: 'hard' } })).status, 200);
  const { code } = await createCode({}, payer.session);
  // the first run (5 credits) fits, the second would go past 7
  t.is((await submit(code, { origin: null })).statusCode, 200);
  const refused = await submit(code, { origin: null });
  t.is(refused.statusCode, 402, refused.payload);
  t.is(json(refused).code, 'budget_exceeded');
  const detail = String(json(refused).detail);
  t.regex(detail, /account that pays for this request has reached its monthly budget/);
  t.false(/\d/.test(detail), detail);
  t.is(refused.headers['x-balance-remaining'], undefined);
  const own = await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': payer.liveKey }, payload: { prompt: 'a lighthouse' } });
  t.is(own.statusCode, 402);
  t.regex(String(json(own).detail), new RegExp(`costs 5 credits, which would take this month's spend past the monthly budget of ${budget} credits`));
});

test('a concurrency limit per code is 429 with Retry-After', async (t) => {
  const { code, id } = await createCode({ max_concurrent: 1 });
  // an unfinished prediction of the code, held open by hand
  await gw.app.db('predictions').insert({ id: 'f'.repeat(32), user_id: owner.userId, team_id: null, api_key_id: null, model: MODEL, status: 'processing', is_test: false, input: '{}', price: 0, webhook_url: null, created_at: NOW, updated_at: NOW, embed_code_id: id });
  const res = await submit(code, { origin: null });
  t.is(res.statusCode, 429);
  t.is(res.headers['retry-after'], '1');
});

test('a revoked code is refused on its next request; a team code charges the team', async (t) => {
  const { code, id } = await createCode({ allowed_origins: [SHOP] });
  t.is((await submit(code)).statusCode, 200);
  t.is((await callOperation(gw, 'revokeEmbedCode', { as: owner.session, params: { embed_code_id: id } })).status, 200);
  const next = await submit(code);
  t.is(next.statusCode, 401);
  t.is(json(next).code, 'embed_code_invalid');
  t.is((await callOperation(gw, 'getModelNameForEmbedcode', { query: { embed_code: code }, headers: { origin: SHOP } })).status, 404);
  t.is((await callOperation(gw, 'updateEmbedCode', { as: owner.session, params: { embed_code_id: id }, body: { name: 'again' } })).status, 404);

  const team = await callOperation<{ id: number }>(gw, 'createTeam', { as: owner.session, body: { name: 'Partners' } });
  await gw.app.db('teams').where({ id: team.body.id }).update({ balance: 1000 });
  const teamCode = await createCode({}, owner.session, { team_id: team.body.id });
  t.is(teamCode.team_id, team.body.id);
  t.is((await callOperation<Code[]>(gw, 'listEmbedCodes', { as: owner.session })).body.filter((c) => c.id === teamCode.id).length, 0, 'a team code is not in the personal list');
  const res = await submit(teamCode.code, { origin: null });
  t.is(res.statusCode, 200, res.payload);
  const row = await gw.app.db('predictions').where({ id: json(res).request_id }).first();
  t.is(Number(row.team_id), team.body.id);
  const teamRow = await gw.app.db('teams').where({ id: team.body.id }).first();
  t.is(Number(teamRow.balance), 995, 'the price is held on the team wallet');
});

test('CORS preflight names exactly the allowed origin, and nothing for another', async (t) => {
  await createCode({ kind: 'agent_embed', models: [MODEL, OTHER_MODEL], allowed_origins: ['https://agent.example.com'] });
  const ask = (origin: string, headers = 'x-agent-embed-code,content-type,x-embed-visitor') => gw.server.inject({
    method: 'OPTIONS', url: `/api/v1/${MODEL}`,
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': headers },
  });
  const ok = await ask('https://agent.example.com');
  t.is(ok.headers['access-control-allow-origin'], 'https://agent.example.com');
  t.regex(String(ok.headers['access-control-allow-headers']), /X-Agent-Embed-Code/i);
  t.regex(String(ok.headers['access-control-allow-headers']), /X-Embed-Visitor/i);
  // a visitor's page may cap a run's price
  t.is((await ask('https://agent.example.com', 'x-agent-embed-code,content-type,max-cost')).headers['access-control-allow-origin'], 'https://agent.example.com');
  t.regex(String(ok.headers.vary), /origin/i);
  const no = await ask('https://elsewhere.example.com');
  t.is(no.headers['access-control-allow-origin'], undefined);
  const oddHeader = await ask('https://agent.example.com', 'x-agent-embed-code,x-something-else');
  t.is(oddHeader.headers['access-control-allow-origin'], undefined);

  // the origin index (migration 0402) follows the code: a wildcard entry, a port, a changed list, a revocation
  const wild = await createCode({ kind: 'agent_embed', models: [MODEL], allowed_origins: ['*.shop.example.org', 'http://localhost:5173'] });
  t.is((await ask('https://a.b.shop.example.org')).headers['access-control-allow-origin'], 'https://a.b.shop.example.org');
  t.is((await ask('https://shop.example.org')).headers['access-control-allow-origin'], undefined, '*.domain is not the domain itself');
  t.is((await ask('http://localhost:5173')).headers['access-control-allow-origin'], 'http://localhost:5173');
  t.is((await ask('http://localhost:5174')).headers['access-control-allow-origin'], undefined, 'another port');
  const id = (wild as { id: number }).id;
  t.is((await callOperation(gw, 'updateEmbedCode', { as: owner.session, params: { embed_code_id: id }, body: { allowed_origins: ['https://new.example.org'] } })).status, 200);
  t.is((await ask('https://a.b.shop.example.org')).headers['access-control-allow-origin'], undefined, 'the old list is gone from the index');
  t.is((await ask('https://new.example.org')).headers['access-control-allow-origin'], 'https://new.example.org');
  t.is((await callOperation(gw, 'revokeEmbedCode', { as: owner.session, params: { embed_code_id: id } })).status, 200);
  t.is((await ask('https://new.example.org')).headers['access-control-allow-origin'], undefined, 'a revoked code allows nothing');
});

test('a preflight finds the entry that allows its origin however many other entries share its host', async (t) => {
  // Anyone may create codes, each with up to 100 origins: entries under the same host that match
  // nothing (other ports) must not hide the one that does (an answer read from a bounded list did).
  const host = 'crowded.example.net';
  await Promise.all(Array.from({ length: 11 }, (_, c) => createCode({
    kind: 'agent_embed', models: [MODEL], allowed_origins: Array.from({ length: 100 }, (_, i) => `https://${host}:${1000 + c * 100 + i}`),
  })));
  await createCode({ kind: 'agent_embed', models: [MODEL], allowed_origins: [`https://${host}`] });
  const res = await gw.server.inject({
    method: 'OPTIONS', url: `/api/v1/${MODEL}`,
    headers: { origin: `https://${host}`, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-agent-embed-code,content-type' },
  });
  t.is(res.headers['access-control-allow-origin'], `https://${host}`);
  const other = await gw.server.inject({
    method: 'OPTIONS', url: `/api/v1/${MODEL}`,
    headers: { origin: `https://${host}:999`, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-agent-embed-code,content-type' },
  });
  t.is(other.headers['access-control-allow-origin'], undefined, 'a port no entry names');
});

test('a key with limits an embed code cannot carry may not create or change one (403 naming them); unrestricted keys, sessions and earlier codes keep working', async (t) => {
  // the SQLite gateway runs under per-key defaults (60 a minute, 10 unfinished), the MariaDB one under none
  for (const [engine, target, lines, defaults] of [['MariaDB', gw, log.lines, false], ['SQLite', lite, liteLog.lines, true]] as const) {
    const who = await newAccount(target, 1000);
    const key = async (body: Record<string, unknown>, scopes?: string[]) => {
      const made = await callOperation<{ id: number; api_key: string }>(target, 'createApiKey', { as: who.session, body: { name: 'k', ...body } });
      t.is(made.status, 200, `${engine}: ${JSON.stringify(made.body)}`);
      if (scopes) t.is((await callOperation(target, 'updateApiKey', { as: who.session, params: { key_id: made.body.id }, body: { scopes } })).status, 200);
      return made.body;
    };
    const create = (as: string, body: Record<string, unknown> = {}) => callOperation<Code & { detail?: string; code?: string }>(target, 'createEmbedCode', { as, body: { kind: 'embed', name: 'w', models: [MODEL], ...body } });
    const patch = (as: string, id: number, body: Record<string, unknown>) => callOperation<{ detail?: string; code?: string; rate_limit_per_minute?: number | null }>(target, 'updateEmbedCode', { as, params: { embed_code_id: id }, body });
    const refused = (res: { status: number; body: { detail?: string; code?: string } }, named: RegExp, what: string) => {
      t.is(res.status, 403, `${engine}: ${what}: ${JSON.stringify(res.body)}`);
      t.is(res.body.code, 'forbidden', `${engine}: ${what}`);
      t.regex(String(res.body.detail), named, `${engine}: ${what}: names the restriction`);
      t.regex(String(res.body.detail), /dashboard \(a signed-in session\) or with a key without such limits/, `${engine}: ${what}: says how else`);
    };

    // the audit's key: one submit a minute, ten credits a day; its code asked for 100,000 a minute and no caps
    const audit = await key({ rate_limit_per_minute: 1, spend_limit: 10, spend_limit_period: 'day' });
    refused(await create(audit.api_key, { rate_limit_per_minute: 100_000 }), /rate_limit_per_minute \(1\).*spend_limit \(10 per day\)/, 'rate and spend limits');
    refused(await create((await key({ ip_whitelist: ['127.0.0.1'] })).api_key), /ip_whitelist/, 'an IP restriction');
    refused(await create((await key({ expires_at: new Date(NOW + 86_400_000).toISOString() })).api_key), /expires_at/, 'an expiry');
    refused(await create((await key({ spend_limit: 500, spend_limit_period: 'month' })).api_key), /spend_limit \(500 per month\)/, 'a spend limit');
    refused(await create((await key({ max_concurrent: 1 })).api_key), /max_concurrent \(1\)/, 'a concurrency limit');
    refused(await create((await key({}, ['keys:manage', 'account:read'])).api_key), /scopes .*generate:write, generate:read/, 'scopes without generation');
    // a key's own limit is a restriction only where it is below what a key without one gets
    const roomy = await create((await key({ rate_limit_per_minute: 1000, max_concurrent: 100 })).api_key);
    t.is(roomy.status, defaults ? 201 : 403, `${engine}: a key's own limits above the default (${defaults ? '60, 10' : 'none'})`);
    // scopes that keep generation are no restriction a code escapes
    t.is((await create((await key({}, ['keys:manage', 'generate:write', 'generate:read'])).api_key)).status, 201, `${engine}: scopes with generation`);

    // a key without restrictions creates and changes codes as before
    const plain = await key({});
    const made = await create(plain.api_key, { rate_limit_per_minute: 100_000 });
    t.is(made.status, 201, engine);
    t.is((await patch(plain.api_key, made.body.id, { daily_cap: 50 })).status, 200, engine);
    // the key is restricted afterwards: the code it made keeps working, the key may no longer change it, but may revoke it
    t.is((await callOperation(target, 'updateApiKey', { as: who.session, params: { key_id: (await callOperation<Array<{ id: number; prefix: string }>>(target, 'getUserKeys', { as: who.session })).body.find((k) => plain.api_key.startsWith(k.prefix))!.id }, body: { spend_limit: 10, spend_limit_period: 'day' } })).status, 200);
    const changed = await patch(plain.api_key, made.body.id, { rate_limit_per_minute: 5 });
    refused(changed, /spend_limit \(10 per day\)/, 'a change by a key restricted since');
    t.is((await callOperation<{ rate_limit_per_minute: number }>(target, 'getEmbedCode', { as: plain.api_key, params: { embed_code_id: made.body.id } })).body.rate_limit_per_minute, 100_000, `${engine}: a refused change changes nothing`);
    const run = await target.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-embed-code': made.body.code, 'content-type': 'application/json' }, payload: { prompt: 'a lighthouse' } });
    t.is(run.statusCode, 200, `${engine}: an earlier code keeps working: ${run.payload}`);
    // a session sets anything
    t.is((await patch(who.session, made.body.id, { rate_limit_per_minute: 100_000 })).status, 200, engine);
    t.is((await callOperation(target, 'revokeEmbedCode', { as: plain.api_key, params: { embed_code_id: made.body.id } })).status, 200, `${engine}: revoking narrows`);
    t.deepEqual(errorsUnder(lines, '/app/embed-codes'), [], `${engine}: no error logged`);
  }
});

test('an OAuth token creates or changes an embed code only if it holds the scopes the code\'s visitors act with', async (t) => {
  const who = await newAccount(gw);
  const client = await createClient(gw, who.session, ['keys:manage', 'generate:write', 'generate:read']);
  const narrow = await tokenFor(gw, client, 'keys:manage');
  const refused = await callOperation<{ detail: string }>(gw, 'createEmbedCode', { as: narrow, body: { kind: 'embed', name: 'w', models: [MODEL] } });
  t.is(refused.status, 403, JSON.stringify(refused.body));
  t.regex(refused.body.detail, /OAuth token does not hold generate:write, generate:read/);
  t.regex(refused.body.detail, /dashboard \(a signed-in session\)/);
  const full = await tokenFor(gw, client);
  const made = await callOperation<Code>(gw, 'createEmbedCode', { as: full, body: { kind: 'embed', name: 'w', models: [MODEL] } });
  t.is(made.status, 201);
  t.is((await callOperation(gw, 'updateEmbedCode', { as: narrow, params: { embed_code_id: made.body.id }, body: { name: 'x' } })).status, 403);
  t.is((await callOperation(gw, 'updateEmbedCode', { as: full, params: { embed_code_id: made.body.id }, body: { name: 'x' } })).status, 200);
});

test('a code is found only as written: one letter\'s case flipped is an unknown code on a submit and when resolved', async (t) => {
  const { code } = await createCode({ allowed_origins: [SHOP] });
  // the first letter after the prefix whose case can flip
  const at = code.slice(4).search(/[A-Za-z]/) + 4;
  const ch = code[at]!;
  const flipped = code.slice(0, at) + (ch === ch.toUpperCase() ? ch.toLowerCase() : ch.toUpperCase()) + code.slice(at + 1);
  t.not(flipped, code);
  t.is((await submit(code)).statusCode, 200);
  const refused = await submit(flipped);
  t.is(refused.statusCode, 401, refused.payload);
  t.is(json(refused).code, 'embed_code_invalid');
  t.is((await callOperation(gw, 'getModelNameForEmbedcode', { query: { embed_code: code }, headers: { origin: SHOP } })).status, 200);
  t.is((await callOperation(gw, 'getModelNameForEmbedcode', { query: { embed_code: flipped }, headers: { origin: SHOP } })).status, 404);
});

test('a visitor naming a LoRA other than a public one gets the same refusal whether the owner has it privately, another account has it, or none does', async (t) => {
  const payer = await newAccount(gw, 1000);
  const stranger = await newAccount(gw);
  const register = async (who: Account, name: string, baseModel: string) => {
    const res = await callOperation(gw, 'createLora', { as: who.session, body: { name, lora_type: 'style', base_model: baseModel, weights_url: `https://weights.example.com/${name}.safetensors` } });
    if (res.status !== 201) throw new Error(`createLora: ${res.status} ${JSON.stringify(res.body)}`);
  };
  await Promise.all([
    register(payer, 'owner-canvas-secret', 'canvas-v1'), register(payer, 'owner-lumen-secret', 'lumen'), register(stranger, 'stranger-canvas-secret', 'canvas-v1'),
  ]);
  const { code } = await createCode({ allowed_origins: [SHOP] }, payer.session);
  const refusals = [];
  for (const name of ['owner-canvas-secret', 'owner-lumen-secret', 'stranger-canvas-secret', 'no-such-lora-anywhere']) {
    const res = await submit(code, { body: { prompt: 'a fox', loras: [{ name }] } });
    t.is(res.statusCode, 422, `${name}: ${res.payload}`);
    const { code: errorCode, detail } = json(res);
    refusals.push({ status: res.statusCode, code: errorCode, detail });
    t.false(res.payload.includes(name), `${name} is not echoed back`);
  }
  t.is(refusals[0]!.code, 'validation_failed');
  t.deepEqual((refusals[0]!.detail as Array<{ loc: unknown[] }>).map((d) => d.loc), [['body', 'loras', 0, 'name']]);
  for (const r of refusals.slice(1)) t.deepEqual(r, refusals[0]);
  // a public LoRA of the model's family is the visitor's to name
  const pub = await submit(code, { body: { prompt: 'a fox', loras: [{ name: 'canvas-stripes' }] } });
  t.is(pub.statusCode, 200, pub.payload);
  // the owner's own LoRA, set by the owner in the code's locked inputs, runs
  const locked = await createCode({ allowed_origins: [SHOP], locked_inputs: { loras: [{ name: 'owner-canvas-secret' }] } }, payer.session);
  const ran = await submit(locked.code, { body: { prompt: 'a fox' } });
  t.is(ran.statusCode, 200, ran.payload);
  const row = await gw.app.db('predictions').where({ id: json(ran).request_id }).first();
  t.like(JSON.parse(row.input).loras[0], { name: 'owner-canvas-secret', weights_url: 'https://weights.example.com/owner-canvas-secret.safetensors' });
});

test('a deleted team\'s code and a revoked code are refused on every route a code is presented on, and a preflight allows their origins no more', async (t) => {
  const CHAT = 'lexi-v1-balanced-chat';
  const team = await callOperation<{ id: number }>(gw, 'createTeam', { as: owner.session, body: { name: 'Gone soon' } });
  await gw.app.db('teams').where({ id: team.body.id }).update({ balance: 1000 });
  const preflight = (from: string, url: string, header: string) => gw.server.inject({ method: 'OPTIONS', url, headers: { origin: from, 'access-control-request-method': 'POST', 'access-control-request-headers': `${header},content-type` } });
  const cases: Array<{ what: string; code: string; origin: string; header: string; kind: string }> = [];
  for (const [kind, header] of [['embed', 'x-embed-code'], ['agent_embed', 'x-agent-embed-code']] as const) {
    const gone = `https://gone-${kind.replace('_', '-')}.example.com`;
    const revokedOrigin = `https://revoked-${kind.replace('_', '-')}.example.com`;
    const teamCode = await createCode({ kind, models: [CHAT], allowed_origins: [gone] }, owner.session, { team_id: team.body.id });
    const revoked = await createCode({ kind, models: [CHAT], allowed_origins: [revokedOrigin] });
    t.is((await preflight(gone, '/v1/chat/completions', header)).headers['access-control-allow-origin'], gone, `${kind}: allowed while the team exists`);
    t.is((await callOperation(gw, 'revokeEmbedCode', { as: owner.session, params: { embed_code_id: revoked.id } })).status, 200);
    cases.push({ what: `${kind}: a deleted team's code`, code: teamCode.code, origin: gone, header, kind }, { what: `${kind}: a revoked code`, code: revoked.code, origin: revokedOrigin, header, kind });
  }
  await gw.app.db('teams').where({ id: team.body.id }).update({ deleted_at: NOW });

  for (const { what, code, origin, header, kind } of cases) {
    const resolved = await callOperation<{ code: string }>(gw, 'getModelNameForEmbedcode', { query: { embed_code: code }, headers: { origin } });
    t.is(resolved.status, 404, `${what}: resolving it, as an unknown code`);
    const sub = await submit(code, { header, origin, model: CHAT, body: { messages: [{ role: 'user', content: 'hi' }] } });
    t.is(sub.statusCode, 401, `${what}: a submit`);
    t.is(json(sub).code, 'embed_code_invalid', `${what}: a submit`);
    const chat = await gw.server.inject({ method: 'POST', url: '/v1/chat/completions', headers: { [header]: code, origin, 'content-type': 'application/json' }, payload: { model: CHAT, messages: [{ role: 'user', content: 'hi' }] } });
    t.is(chat.statusCode, 401, `${what}: a chat completion`);
    t.is((json(chat).error as { code: string }).code, 'embed_code_invalid', `${what}: a chat completion`);
    // other tests here make model embed codes without an origin list, which allow every origin: the agent kind shows the preflight
    if (kind === 'agent_embed') {
      for (const url of ['/v1/chat/completions', `/api/v1/${CHAT}`]) {
        t.is((await preflight(origin, url, header)).headers['access-control-allow-origin'], undefined, `${what}: a preflight of ${url}`);
      }
    }
  }
});

test('a page can read every refusal of a code, in a browser: each names the request\'s origin, with Vary and the exposed headers, never credentials', async (t) => {
  const CHAT = 'lexi-v1-balanced-chat';
  const page = 'https://refused-page.example.com';
  const someone = await newAccount(gw);
  const team = await callOperation<{ id: number }>(gw, 'createTeam', { as: someone.session, body: { name: 'Gone' } });
  const revoked = await createCode({}, someone.session);
  t.is((await callOperation(gw, 'revokeEmbedCode', { as: someone.session, params: { embed_code_id: revoked.id } })).status, 200);
  const teamCode = await createCode({}, someone.session, { team_id: team.body.id });
  await gw.app.db('teams').where({ id: team.body.id }).update({ deleted_at: NOW });
  const leaving = await newAccount(gw);
  // with an origin list: an agent code without one would let every origin's preflight through for other tests
  const pending = await createCode({ allowed_origins: [SHOP] }, leaving.session);
  const pendingAgent = await createCode({ kind: 'agent_embed', models: [MODEL, CHAT], allowed_origins: [SHOP] }, leaving.session);
  await gw.app.db('users').where({ id: leaving.userId }).update({ deletion_requested_at: NOW, deletion_due_at: NOW + 30 * 86_400_000 });
  const elsewhere = await createCode({ allowed_origins: [SHOP] });
  const elsewhereAgent = await createCode({ kind: 'agent_embed', models: [MODEL, CHAT], allowed_origins: [SHOP] });
  const cases: Array<{ what: string; code: string; header: string; status: number; errorCode: string; resolved: [number, string] }> = [
    { what: 'an unknown code', code: `emb_${'A'.repeat(32)}`, header: 'x-embed-code', status: 401, errorCode: 'embed_code_invalid', resolved: [404, 'not_found'] },
    { what: 'an unknown agent code', code: `aemb_${'A'.repeat(32)}`, header: 'x-agent-embed-code', status: 401, errorCode: 'embed_code_invalid', resolved: [404, 'not_found'] },
    { what: 'a revoked code', code: revoked.code, header: 'x-embed-code', status: 401, errorCode: 'embed_code_invalid', resolved: [404, 'not_found'] },
    { what: 'a deleted team\'s code', code: teamCode.code, header: 'x-embed-code', status: 401, errorCode: 'embed_code_invalid', resolved: [404, 'not_found'] },
    { what: 'a code whose account is being deleted', code: pending.code, header: 'x-embed-code', status: 401, errorCode: 'embed_code_invalid', resolved: [401, 'embed_code_invalid'] },
    { what: 'an agent code whose account is being deleted', code: pendingAgent.code, header: 'x-agent-embed-code', status: 401, errorCode: 'embed_code_invalid', resolved: [401, 'embed_code_invalid'] },
    { what: 'a code refusing the origin', code: elsewhere.code, header: 'x-embed-code', status: 403, errorCode: 'embed_origin_not_allowed', resolved: [403, 'embed_origin_not_allowed'] },
    { what: 'an agent code refusing the origin', code: elsewhereAgent.code, header: 'x-agent-embed-code', status: 403, errorCode: 'embed_origin_not_allowed', resolved: [403, 'embed_origin_not_allowed'] },
  ];
  const readable = (res: { statusCode: number; headers: Record<string, unknown>; payload: string }, status: number, errorCode: string, openai: boolean, what: string) => {
    t.is(res.statusCode, status, `${what}: ${res.payload}`);
    t.is(res.headers['access-control-allow-origin'], page, what);
    t.regex(String(res.headers.vary), /origin/i, what);
    t.regex(String(res.headers['access-control-expose-headers']), /X-Embed-Visitor/, what);
    t.is(res.headers['access-control-allow-credentials'], undefined, what);
    t.regex(String(res.headers['content-type']), /^application\/json/, what);
    const body = json(res);
    t.is(openai ? (body.error as { code: string }).code : body.code, errorCode, what);
  };
  for (const { what, code, header, status, errorCode, resolved } of cases) {
    const headers = { [header]: code, origin: page, 'content-type': 'application/json' };
    readable(await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers, payload: { prompt: 'a lighthouse' } }), status, errorCode, false, `${what}: a submit`);
    readable(await gw.server.inject({ method: 'GET', url: '/api/v1/predictions/0f8fad5b-d9cb-469f-a165-70867728950e/result', headers: { [header]: code, origin: page } }), status, errorCode, false, `${what}: a result`);
    readable(await gw.server.inject({ method: 'POST', url: '/v1/chat/completions', headers, payload: { model: CHAT, messages: [{ role: 'user', content: 'hi' }] } }), status, errorCode, true, `${what}: a chat completion`);
    readable(await gw.server.inject({ method: 'POST', url: '/v1/images/generations', headers, payload: { model: MODEL, prompt: 'a lighthouse' } }), status, errorCode, true, `${what}: an image generation`);
    readable(await gw.server.inject({ method: 'GET', url: `/app/get_model_name_for_embedcode?embed_code=${encodeURIComponent(code)}`, headers: { origin: page } }), resolved[0], resolved[1], false, `${what}: resolving it`);
  }
  // only a code's answers: a refused API key, or a code sent with one, names no origin
  const key = await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': 'mg_live_nosuchkey', origin: page }, payload: { prompt: 'a lighthouse' } });
  t.is(key.statusCode, 401, key.payload);
  t.is(key.headers['access-control-allow-origin'], undefined);
  const both = await gw.server.inject({ method: 'GET', url: '/api/v1/predictions/0f8fad5b-d9cb-469f-a165-70867728950e/result', headers: { 'x-embed-code': revoked.code, 'x-api-key': owner.liveKey, origin: page } });
  t.is(both.statusCode, 404, both.payload);
  t.is(both.headers['access-control-allow-origin'], undefined);
});

/** The origin an agent embed code's CORS preflight of a submit to MODEL allows from `origin` (undefined: none). */
async function agentPreflight(target: TestGateway, origin: string): Promise<unknown> {
  return (await target.server.inject({
    method: 'OPTIONS', url: `/api/v1/${MODEL}`,
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-agent-embed-code,content-type' },
  })).headers['access-control-allow-origin'];
}

test('a preflight allows no origin for a personal code whose account is being deleted, until the deletion is cancelled; a team\'s code keeps its origin, on MariaDB and SQLite', async (t) => {
  for (const [engine, target] of [['MariaDB', gw], ['SQLite', lite]] as const) {
    const leaving = await newAccount(target);
    const team = await callOperation<{ id: number }>(target, 'createTeam', { as: leaving.session, body: { name: 'Stays' } });
    const personalOrigin = `https://leaving-personal-${engine.toLowerCase()}.example.com`;
    const teamOrigin = `https://leaving-team-${engine.toLowerCase()}.example.com`;
    for (const [origin, query] of [[personalOrigin, {}], [teamOrigin, { team_id: team.body.id }]] as const) {
      const made = await callOperation(target, 'createEmbedCode', { as: leaving.session, query, body: { kind: 'agent_embed', name: 'widget', models: [MODEL], allowed_origins: [origin] } });
      t.is(made.status, 201, `${engine}: ${JSON.stringify(made.body)}`);
    }
    const allowed = (origin: string) => agentPreflight(target, origin);
    t.is(await allowed(personalOrigin), personalOrigin, engine);
    t.is(await allowed(teamOrigin), teamOrigin, engine);
    await target.app.db('users').where({ id: leaving.userId }).update({ deletion_requested_at: NOW, deletion_due_at: NOW + 30 * 86_400_000 });
    t.is(await allowed(personalOrigin), undefined, `${engine}: its requests are refused`);
    t.is(await allowed(teamOrigin), teamOrigin, `${engine}: the team's code is the team's`);
    await target.app.db('users').where({ id: leaving.userId }).update({ deletion_requested_at: null, deletion_due_at: null });
    t.is(await allowed(personalOrigin), personalOrigin, `${engine}: cancelled`);
  }
});

test('a preflight allows no origin for a personal code of a studio\'s user, whose every request is refused; a team\'s code keeps its origin, on MariaDB and SQLite', async (t) => {
  for (const [engine, target] of [['MariaDB', gw], ['SQLite', lite]] as const) {
    const partner = await newAccount(target);
    const studio = await callOperation<{ id: number }>(target, 'createStudio', {
      as: partner.session, body: { slug: `codes-${engine.toLowerCase()}-${partner.userId}`, name: 'Codes', allowed_models: [MODEL], payer_mode: 'end_user_pays', markup_percent: 0 },
    });
    t.is(studio.status, 201, `${engine}: ${JSON.stringify(studio.body)}`);
    const member = await newAccount(target);
    const team = await callOperation<{ id: number }>(target, 'createTeam', { as: member.session, body: { name: 'Outside the studio' } });
    const personalOrigin = `https://studio-personal-${engine.toLowerCase()}.example.com`;
    const teamOrigin = `https://studio-team-${engine.toLowerCase()}.example.com`;
    const codes: string[] = [];
    for (const [origin, query] of [[personalOrigin, {}], [teamOrigin, { team_id: team.body.id }]] as const) {
      const made = await callOperation<{ code: string }>(target, 'createEmbedCode', { as: member.session, query, body: { kind: 'agent_embed', name: 'widget', models: [MODEL], allowed_origins: [origin] } });
      t.is(made.status, 201, `${engine}: ${JSON.stringify(made.body)}`);
      codes.push(made.body.code);
    }
    const allowed = (origin: string) => agentPreflight(target, origin);
    t.is(await allowed(personalOrigin), personalOrigin, engine);
    t.is(await allowed(teamOrigin), teamOrigin, engine);
    // the account as a studio's user whose codes were made before they were refused one
    await target.app.db('users').where({ id: member.userId }).update({ studio_id: studio.body.id });
    const refused = await target.server.inject({
      method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-agent-embed-code': codes[0]!, origin: personalOrigin, 'content-type': 'application/json' }, payload: { prompt: 'a lighthouse' },
    });
    t.is(refused.statusCode, 403, `${engine}: ${refused.payload}`);
    t.is(json(refused).code, 'studio_required', engine);
    t.is(await allowed(personalOrigin), undefined, `${engine}: its requests are refused`);
    t.is(await allowed(teamOrigin), teamOrigin, `${engine}: the team's code is the team's`);
    await target.app.db('users').where({ id: member.userId }).update({ studio_id: null });
    t.is(await allowed(personalOrigin), personalOrigin, `${engine}: outside studios again`);
  }
});
