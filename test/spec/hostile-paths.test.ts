// Issue 35's paths under attack, on both backends (SQLite and MariaDB): each defect's request as
// the attacker sent it, then 60-90 hostile requests to every operation the issue names, by an
// outsider, a user, an impersonated session, an embed visitor and an administrator. No answer
// may be a 5xx (but the deliberate 503 of a route whose provider is not configured), a non-JSON
// refusal, a request that hangs, or an error-level log line; every refusal of an administrative
// route is in the audit log; the ledger adds up after every test.
import test from 'ava';
import type { ServerInjectResponse } from '@hapi/hapi';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { captureLog } from '../helpers/logs.ts';
import { assertLedger } from '../helpers/ledger.ts';
import { callbackToken } from '../../lib/upstream-callbacks.ts';

const MAX = Number.MAX_SAFE_INTEGER;
const MODEL = 'canvas-v1-fast-text-to-image';

interface World {
  gw: TestGateway;
  log: ReturnType<typeof captureLog>;
  admin: Account;
  user: Account;
  email: string;
  impersonated: string;
  embed: string;
  teamId: number;
  keyId: number;
  codeId: number;
}

const worlds: Partial<Record<'sqlite' | 'mysql', World>> = {};

async function emailOf(gw: TestGateway, userId: number): Promise<string> {
  return String((await gw.app.db('users').where({ id: userId }).first()).email);
}

async function world(db: 'sqlite' | 'mysql'): Promise<World> {
  const log = captureLog('info');
  const gw = await startGateway({ db, queue: 'memory', log: log.log, env: { ENCRYPTION_KEY: 'cd'.repeat(32), UPSTREAM_CALLBACKS: 'true', FAL_WEBHOOK_JWKS_URL: 'http://127.0.0.1:9/jwks.json' } });
  const admin = await newAccount(gw, 0);
  await gw.app.db('users').where({ id: admin.userId }).update({ role: 'admin' });
  const user = await newAccount(gw, 100_000);
  const email = await emailOf(gw, user.userId);
  const bearer = { authorization: `Bearer ${user.session}` };
  const vl = await gw.server.inject({ method: 'POST', url: '/auth/virtual_login', headers: { authorization: `Bearer ${admin.session}` }, payload: { email, reason: 'ticket 35' } });
  const team = await gw.server.inject({ method: 'POST', url: '/app/teams', headers: bearer, payload: { name: 'crew' } });
  const teamId = (team.result as { id: number }).id;
  const key = await gw.server.inject({ method: 'POST', url: `/app/teams/${teamId}/keys`, headers: bearer, payload: { name: 'ci', is_test: true } });
  const code = await gw.server.inject({ method: 'POST', url: '/app/embed-codes', headers: bearer, payload: { kind: 'embed', name: 'w', models: [MODEL], allowed_origins: ['https://shop.example.com'] } });
  return {
    gw, log, admin, user, email, impersonated: vl.payload, embed: (code.result as { code: string }).code,
    teamId, keyId: (key.result as { id: number }).id, codeId: (code.result as { id: number }).id,
  };
}

test.before(async () => {
  worlds.sqlite = await world('sqlite');
  worlds.mysql = await world('mysql');
});
test.after.always(async () => {
  await worlds.sqlite?.gw.stop();
  await worlds.mysql?.gw.stop();
});

/** Error-level (and worse) lines logged since `from`. */
function errorLines(w: World, from: number): string[] {
  return w.log.lines.slice(from).filter((l) => (JSON.parse(l) as { level: number }).level >= 50);
}

/** An inject that must answer within 15 seconds. */
async function send(w: World, req: Parameters<TestGateway['server']['inject']>[0] & object): Promise<ServerInjectResponse> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`hung: ${JSON.stringify(req).slice(0, 200)}`)), 15_000); });
  try {
    return await Promise.race([w.gw.server.inject(req), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** JSON text nesting `depth` levels of objects and arrays (built as text: JSON.stringify itself recurses). */
function nested(depth: number): string {
  const open: string[] = [];
  const close: string[] = [];
  for (let i = 0; i < depth; i++) {
    open.push(i % 2 ? '[' : '{"reason":');
    close.push(i % 2 ? ']' : '}');
  }
  return `${open.join('')}"x"${close.reverse().join('')}`;
}

for (const backend of ['sqlite', 'mysql'] as const) {
  const w = () => worlds[backend]!;

  test.serial(`${backend}: an admin-route attempt with a body nested 20,000 levels deep is refused and audited, cut, with no error logged`, async (t) => {
    const mark = w().log.lines.length;
    const body = `{"email":${JSON.stringify(w().email)},"amount":1,"reason":${nested(20_000)}}`;
    const byUser = await send(w(), { method: 'POST', url: '/auth/admin_topup', headers: { 'x-api-key': w().user.liveKey, 'content-type': 'application/json' }, payload: body });
    t.is(byUser.statusCode, 403, byUser.payload);
    const byAdmin = await send(w(), { method: 'POST', url: '/auth/admin_topup', headers: { authorization: `Bearer ${w().admin.session}`, 'content-type': 'application/json' }, payload: body });
    t.is(byAdmin.statusCode, 422, byAdmin.payload);
    t.is((JSON.parse(byAdmin.payload) as { detail: Array<{ type: string }> }).detail[0]!.type, 'json_too_deep');
    const rows = await w().gw.app.db('admin_audit').where({ action: 'adminTopup' }).orderBy('id', 'desc').limit(2);
    t.deepEqual(rows.map((r: { status: number | string }) => Number(r.status)).sort(), [403, 422]);
    for (const r of rows) {
      const params = String(r.params);
      t.true(params.length < 16_500, 'the recorded parameters are bounded');
      t.regex(params, /nested too deeply/);
    }
    t.deepEqual(errorLines(w(), mark), []);
    const balance = await send(w(), { method: 'GET', url: '/account/balance', headers: { 'x-api-key': w().user.liveKey } });
    t.is((balance.result as { balance: number }).balance, 100_000, 'nothing moved');
  });

  test.serial(`${backend}: credit past 2^53 - 1 is refused on every route that moves it; the balance and the ledger stay exact, under a race too`, async (t) => {
    const mark = w().log.lines.length;
    const payer = await newAccount(w().gw, 0);
    const email = await emailOf(w().gw, payer.userId);
    const admin = { authorization: `Bearer ${w().admin.session}`, 'content-type': 'application/json' };
    const topup = (amount: string) => send(w(), { method: 'POST', url: '/auth/admin_topup', headers: admin, payload: `{"email":"${email}","amount":${amount}}` });
    for (const amount of ['1e300', '1e309', String(MAX + 1), '9007199254740993', '-1e300', '1.5']) {
      const res = await topup(amount);
      t.is(res.statusCode, 422, `${amount}: ${res.payload}`);
    }
    // four quarters of the limit race for it: three fit, the fourth is 422 balance_limit, nothing is lost
    const quarter = Math.floor(MAX / 3);
    const answers = await Promise.all([0, 1, 2, 3].map(() => topup(String(quarter))));
    t.deepEqual(answers.map((r) => r.statusCode).sort(), [200, 200, 200, 422], answers.map((r) => r.payload).join('\n'));
    t.is((JSON.parse(answers.find((r) => r.statusCode === 422)!.payload) as { code: string }).code, 'balance_limit');
    const rest = MAX - 3 * quarter;
    t.is((await topup(String(rest))).statusCode, 200);
    t.is((await topup('1')).statusCode, 422);
    const balance = await send(w(), { method: 'GET', url: '/account/balance', headers: { 'x-api-key': payer.liveKey } });
    t.is((balance.result as { balance: number }).balance, MAX, 'reported exactly');
    // the other way: a deduction may take the wallet below zero only to -(2^53 - 1)
    const deduct = (amount: number) => send(w(), { method: 'POST', url: '/auth/admin_deduct_credits', headers: admin, payload: { email, amount, allow_negative: true } });
    t.is((await deduct(MAX)).statusCode, 200);
    t.is((await deduct(MAX)).statusCode, 200);
    const below = await deduct(1);
    t.is(below.statusCode, 422, below.payload);
    t.is((JSON.parse(below.payload) as { code: string }).code, 'balance_limit');
    t.deepEqual(errorLines(w(), mark), []);
    await assertLedger(t, w().gw.app.db);
  });

  test.serial(`${backend}: ids no record can have are 404 or 422, never 5xx`, async (t) => {
    const mark = w().log.lines.length;
    const headers = { authorization: `Bearer ${w().user.session}` };
    for (const id of ['Infinity', '-Infinity', '1e309', 'NaN', '9007199254740993', '1e3', '-0', '0x10']) {
      for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
        const res = await send(w(), { method, url: `/app/embed-codes/${encodeURIComponent(id)}`, headers, ...(method === 'PATCH' ? { payload: { name: 'x' } } : {}) });
        t.true([404, 422].includes(res.statusCode), `${method} ${id}: ${res.statusCode} ${res.payload}`);
      }
    }
    const admin = { authorization: `Bearer ${w().admin.session}` };
    for (const q of ['actor_id=1e309', 'actor_id=Infinity', 'target_user_id=1e309', 'actor_id=9007199254740993']) {
      const res = await send(w(), { method: 'GET', url: `/auth/admin_audit_log?${q}`, headers: admin });
      t.is(res.statusCode, 422, `${q}: ${res.payload}`);
    }
    const team = await send(w(), { method: 'GET', url: '/app/get_run_history_data?team_id=1e309', headers });
    t.true([404, 422].includes(team.statusCode), team.payload);
    t.deepEqual(errorLines(w(), mark), []);
  });

  test.serial(`${backend}: 60-90 hostile requests to each operation the issue names: no 5xx, JSON refusals, no hang, no error logged`, async (t) => {
    const x = w();
    const mark = x.log.lines.length;
    const falToken = callbackToken(x.gw.app.config.upstreamCallbacks.key!, 'fal', 'p-1');
    const targets: Array<{ id: string; method: string; path: string; body?: boolean; may503?: boolean }> = [
      { id: 'adminTopup', method: 'POST', path: '/auth/admin_topup', body: true },
      { id: 'adminDeductCredits', method: 'POST', path: '/auth/admin_deduct_credits', body: true },
      { id: 'adminRefund', method: 'POST', path: '/auth/admin_refund', body: true },
      { id: 'adminUserInfo', method: 'GET', path: '/auth/admin_user_info' },
      { id: 'adminStripeCharges', method: 'GET', path: '/auth/admin_stripe_charges', may503: true },
      { id: 'adminStripeRefund', method: 'POST', path: '/auth/admin_stripe_refund', body: true, may503: true },
      { id: 'deleteModelDiscount', method: 'DELETE', path: '/auth/admin_model_discounts/{id}' },
      { id: 'adminAuditLog', method: 'GET', path: '/auth/admin_audit_log' },
      { id: 'getEmbedCode', method: 'GET', path: '/app/embed-codes/{id}' },
      { id: 'updateEmbedCode', method: 'PATCH', path: '/app/embed-codes/{id}', body: true },
      { id: 'revokeEmbedCode', method: 'DELETE', path: '/app/embed-codes/{id}' },
      { id: 'updateTeamApiKey', method: 'PATCH', path: `/app/teams/${x.teamId}/keys/{id}`, body: true },
      { id: 'createTeamInvite', method: 'POST', path: '/app/teams/{id}/invites', body: true },
      { id: 'changeTeamMemberRole', method: 'PATCH', path: `/app/teams/${x.teamId}/members/{id}`, body: true },
      { id: 'removeTeamMember', method: 'DELETE', path: `/app/teams/${x.teamId}/members/{id}` },
      { id: 'createStudio', method: 'POST', path: '/app/studios', body: true },
      { id: 'updateStudio', method: 'PATCH', path: '/app/studios/{id}', body: true },
      { id: 'getWebhookSecret', method: 'GET', path: '/app/webhook_secret' },
      { id: 'streamPrediction', method: 'GET', path: '/api/v1/predictions/{id}/stream' },
      { id: 'createOAuthClient', method: 'POST', path: '/oauth/clients', body: true },
      { id: 'requestAccountDeletion', method: 'POST', path: '/app/account/request-deletion', body: true },
      { id: 'createApiKey', method: 'POST', path: '/api/v1/keys', body: true },
      { id: 'cliLogin', method: 'POST', path: '/auth/cli/login', body: true },
      { id: MODEL, method: 'POST', path: `/api/v1/${MODEL}`, body: true },
      { id: 'receiveUpstreamWebhook', method: 'POST', path: `/api/v1/upstream-webhooks/fal/{id}`, body: true },
    ];
    const pathValues = ['1', '0', '-1', 'Infinity', '1e309', 'NaN', '9007199254740993', '%00', '..%2f..%2f', 'a'.repeat(300), String(x.keyId), falToken];
    const queries = ['', '?team_id=1e309', '?team_id=Infinity', '?team_id=-1', '?team_id=abc', `?team_id=${x.teamId}`, '?email=%00', '?actor_id=1e309',
      '?page=9007199254740993', '?unknown=1', '?webhook=javascript:alert(1)', `?q=${'x'.repeat(3000)}`];
    const bodies = [
      '', 'null', '[]', '"s"', '{"bad json": ', '\u0000', '{}',
      `{"email":"${x.email}","amount":1e300}`, `{"email":"${x.email}","amount":9007199254740993}`, `{"email":"${x.email}","amount":-1}`,
      `{"email":"${x.email}","amount":1,"reason":${nested(40)}}`, `{"a":${nested(5000)}}`, nested(33),
      '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}', '{"name":"x","is_test":"yes","scopes":"all"}',
      '{"role":"owner","email":"evil@example.com"}', '{"payer_mode":"owner_pays","name":"s","slug":"s-1"}', '{"prompt":{"$ne":1},"width":1e309}',
      `{"prompt":"${'p'.repeat(5000)}"}`, '{"request_id":"r","status":"OK"}', '{"ip_whitelist":["0.0.0.0/0"],"expires_at":null}',
      '{"models":["*"],"max_cost_per_run":1e300}', '{"email":"a@b.c","password":["x"]}', `{"amount":${'9'.repeat(400)}}`,
    ];
    const credentials: Array<Record<string, string>> = [
      {}, { 'x-api-key': x.user.liveKey }, { 'x-api-key': x.user.testKey }, { authorization: `Bearer ${x.user.session}` },
      { authorization: `Bearer ${x.impersonated}` }, { authorization: `Bearer ${x.admin.session}` }, { 'x-api-key': 'mg_live_forged' },
      { 'x-embed-code': x.embed, origin: 'https://shop.example.com' }, { 'x-embed-code': x.embed, origin: 'https://shop.example.com', 'x-embed-visitor': 'vis_bad' },
      { authorization: `Bearer ${x.user.session}`, 'x-whitelabel-studio': 'NOT A SLUG' }, { authorization: `Bearer ${x.user.session}`, 'x-whitelabel-studio': 'no-such-studio' },
      { authorization: `Bearer ${x.user.session}`, 'idempotency-key': '\u00ff'.repeat(300) },
    ];
    const problems: string[] = [];
    let total = 0;
    for (const target of targets) {
      const cases: Array<{ url: string; payload?: string; headers: Record<string, string> }> = [];
      const at = (v: string) => target.path.replace('{id}', v);
      const creds = (i: number) => credentials[i % credentials.length]!;
      pathValues.forEach((v, i) => cases.push({ url: at(v), headers: creds(i + 3) }));
      queries.forEach((q, i) => cases.push({ url: at('1') + q, headers: creds(i + 5) }));
      credentials.forEach((c) => cases.push({ url: at('1'), headers: c }));
      if (target.body) bodies.forEach((b, i) => cases.push({ url: at('1'), payload: b, headers: creds(i) }));
      else queries.forEach((q, i) => cases.push({ url: at(String(x.codeId)) + q, headers: creds(i) }));
      if (target.body) bodies.slice(0, 12).forEach((b, i) => cases.push({ url: at(String(x.codeId)), payload: b, headers: creds(i + 1) }));
      t.true(cases.length >= 48 && cases.length <= 90, `${target.id}: ${cases.length} cases`);
      for (const c of cases) {
        total++;
        const res = await send(x, {
          method: target.method, url: c.url,
          headers: { ...c.headers, ...(c.payload !== undefined ? { 'content-type': 'application/json' } : {}) },
          ...(c.payload !== undefined ? { payload: c.payload } : {}),
        });
        const status = res.statusCode;
        const json = String(res.headers['content-type'] ?? '').includes('json') || String(res.headers['content-type'] ?? '').includes('event-stream') || status < 300;
        const deliberate = status === 503 && target.may503;
        if ((status >= 500 && !deliberate) || (status >= 400 && !json)) problems.push(`${target.id}: ${target.method} ${c.url.slice(0, 80)} ${c.payload?.slice(0, 40) ?? ''} -> ${status} ${res.payload.slice(0, 160)}`);
      }
    }
    t.log(`${total} requests over ${targets.length} operations`);
    t.deepEqual(problems, []);
    t.deepEqual(errorLines(x, mark), []);
    // every refusal of an administrative route by an authenticated caller is recorded
    const audited = await x.gw.app.db('admin_audit').where('status', '>=', 400).count({ n: '*' }).first();
    t.true(Number(audited!.n) > 100);
    await assertLedger(t, x.gw.app.db);
  });
}
