// The account export (GET /app/account/export, README "Exporting an account") on MariaDB: one
// JSON document, streamed, that matches the spec's AccountExport (callOperation validates it),
// holds everything personal of the caller and nothing of another tenant or of the caller's
// teams, no secret of any kind, and every row of a large account (3,000 predictions, more than
// the stream's pages of 500).
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { createClient, tokenFor } from '../helpers/oauth.ts';
import { newPredictionId } from '../../db/predictions/record.ts';
import { EXPORT_PAGE } from '../../handlers/account-export.ts';

const MANY = 3_000;

let gw: TestGateway;
let a: Account;
let b: Account;
let teamId: number;
let aClientSecret: string;
let bTeamKey: string;
let hidden: string;

type Export = {
  exported_at: string;
  user: { id: number; email: string };
  balance: { balance: number; held: number };
  api_keys: Array<Record<string, unknown>>;
  oauth_clients: Array<Record<string, unknown>>;
  team_memberships: Array<{ team_id: number; name: string; role: string; joined_at: string }>;
  credit_transactions: Array<{ id: number; amount: number; user_id: number }>;
  predictions: Array<{ id: string; input: { prompt: string }; team_id: number | null; outputs: string[]; outputs_expired?: boolean }>;
  media_assets: Array<{ id: number; url: string }>;
  alert_settings: { low_balance_threshold: number | null; webhook_url: string | null };
  alerts: Array<{ id: number; kind: string; period: string; value: number; webhook_deliveries: Array<{ id: string; status: string; attempt_log: Array<{ status_code: number | null }> }> }>;
};

async function seed(userId: number, team: number | null, n: number, tag: string, isTest = false): Promise<string[]> {
  const ids: string[] = [];
  const start = Date.parse('2026-01-01T00:00:00Z');
  for (let done = 0; done < n; done += 1000) {
    const rows = [];
    for (let i = done; i < Math.min(n, done + 1000); i++) {
      // every 7th shares its created_at with the previous one: the keyset must break ties by id
      const at = start + (i - (i % 7 === 0 && i > 0 ? 1 : 0)) * 1000;
      const id = newPredictionId(at);
      ids.push(id);
      rows.push({
        id, user_id: userId, team_id: team, api_key_id: null, model: 'canvas-v1-fast-text-to-image', status: 'completed', is_test: isTest,
        input: JSON.stringify({ prompt: `${tag} ${i}` }), outputs: JSON.stringify([`outputs/${id}/0.png`]),
        nsfw: '[false]', price: 5, created_at: at, started_at: at, completed_at: at + 900, updated_at: at + 900,
      });
    }
    await gw.app.db('predictions').insert(rows);
  }
  return ids;
}

test.before(async () => {
  gw = await startGateway({ queue: 'memory' });
  a = await newAccount(gw, 700);
  b = await newAccount(gw, 900);
  const team = await callOperation<{ id: number }>(gw, 'createTeam', { as: a.session, body: { name: 'a-team' } });
  teamId = team.body.id;
  const bTeam = await callOperation<{ id: number }>(gw, 'createTeam', { as: b.session, body: { name: 'b-team' } });
  bTeamKey = (await callOperation<{ key: string }>(gw, 'createTeamApiKey', { as: b.session, params: { team_id: bTeam.body.id }, body: { name: 'b team key' } })).body.key;
  aClientSecret = (await createClient(gw, a.session, ['account:read'], 'a-machine')).client_secret;
  await createClient(gw, b.session, ['account:read'], 'b-machine');
  await seed(a.userId, null, MANY, 'a-personal');
  await seed(a.userId, teamId, 40, 'a-team-run');
  await seed(b.userId, null, 60, 'b-personal');
  hidden = (await seed(a.userId, null, 1, 'a-hidden'))[0]!;
  const del = await callOperation(gw, 'bulkDeleteUsageLogs', { as: a.session, body: { ids: [hidden] } });
  if (del.status !== 200) throw new Error(JSON.stringify(del.body));
  for (const [who, name] of [[a, 'a-asset'], [b, 'b-asset']] as const) {
    const res = await callOperation(gw, 'createMediaAsset', { as: who.session, body: { url: `https://cdn.example.com/${name}.png`, media_type: 'image', name } });
    if (res.status !== 200 && res.status !== 201) throw new Error(JSON.stringify(res.body));
  }
  const res = await callOperation(gw, 'createMediaAsset', { as: a.session, query: { team_id: teamId }, body: { url: 'https://cdn.example.com/a-team-asset.png', media_type: 'image' } });
  if (res.status >= 300) throw new Error(`team asset: ${res.status} ${JSON.stringify(res.body)}`);
  const settings = await callOperation(gw, 'updateAlertSettings', { as: a.session, body: { low_balance_threshold: 5000, webhook_url: 'https://hooks.example.com/a-alerts' } });
  if (settings.status !== 200) throw new Error(JSON.stringify(settings.body));
  // alerts: a's own (one sent to its webhook and answered), a's team's and b's
  const alert = (subject: string, userId: number, team: number | null, period: string) => ({
    user_id: userId, team_id: team, api_key_id: null, subject, kind: 'low_balance', period, threshold: 5000, value: 700, claim: `c-${subject}-${period}`, created_at: Date.parse('2026-11-28T09:00:00Z'),
  });
  await gw.app.db('alerts').insert([alert(`u:${a.userId}`, a.userId, null, '1'), alert(`u:${a.userId}`, a.userId, null, '2'), alert(`t:${teamId}`, a.userId, teamId, '1'), alert(`u:${b.userId}`, b.userId, null, '1')]);
  const first = await gw.app.db('alerts').where({ subject: `u:${a.userId}`, period: '1' }).first('id');
  const at = Date.parse('2026-11-28T09:00:01Z');
  await gw.app.db('alert_deliveries').insert({ id: 'msg_export_alert_1', alert_id: first.id, user_id: a.userId, team_id: null, url: 'https://hooks.example.com/a-alerts', status: 'delivered', attempts: 1, last_status_code: 200, next_attempt_at: at, created_at: at, updated_at: at });
  await gw.app.db('alert_delivery_attempts').insert({ delivery_id: 'msg_export_alert_1', number: 1, started_at: at, duration_ms: 40, status_code: 200, response_excerpt: 'ok' });
});
test.after.always(async () => {
  await gw?.stop();
});

test.serial('the export is one streamed JSON attachment matching AccountExport, with every personal row of a large account', async (t) => {
  const res = await callOperation<Export>(gw, 'exportAccount', { as: a.session });
  t.is(res.status, 200, res.raw.payload.slice(0, 300));
  t.regex(String(res.headers['content-type']), /^application\/json/);
  t.regex(String(res.headers['content-disposition']), /^attachment; filename="mediagate-export-\d{4}-\d{2}-\d{2}\.json"$/);
  const doc = res.body;
  t.is(doc.user.id, a.userId);
  t.deepEqual([doc.balance.balance, doc.balance.held], [700, 0]);
  // more than one page of each long list was streamed, and every row exactly once
  t.true(MANY > 2 * EXPORT_PAGE);
  t.is(doc.predictions.length, MANY + 1);
  t.is(new Set(doc.predictions.map((p) => p.id)).size, MANY + 1);
  const personal = await gw.app.db('predictions').where({ user_id: a.userId }).whereNull('team_id').pluck('id');
  t.deepEqual(doc.predictions.map((p) => p.id).sort(), personal.map(String).sort());
  t.true(doc.predictions.every((p) => p.team_id === null && !p.input.prompt.startsWith('a-team-run')));
  const first = doc.predictions.find((p) => p.input.prompt === 'a-personal 0')!;
  t.true(first.outputs[0]!.endsWith(`/outputs/${first.id}/0.png`), first.outputs[0]);
  // the prediction bulk_delete hid is still held, so it is exported, without its files
  t.like(doc.predictions.find((p) => p.id === hidden), { outputs: [], outputs_expired: true });
  const ledger = await gw.app.db('credit_transactions').where({ user_id: a.userId }).whereNull('team_id').pluck('id');
  t.deepEqual(doc.credit_transactions.map((e) => e.id), ledger.map(Number).sort((x, y) => x - y));
  t.true(doc.credit_transactions.some((e) => e.amount === 700));
  t.deepEqual(doc.media_assets.map((m) => m.url), ['https://cdn.example.com/a-asset.png']);
  t.deepEqual(doc.api_keys.map((k) => k.name).sort(), ['live', 'test']);
  t.deepEqual(doc.oauth_clients.map((c) => c.name), ['a-machine']);
  t.like(doc.team_memberships, [{ team_id: teamId, name: 'a-team', role: 'owner' }]);
  // the alert settings, and every alert of the personal wallet (not the team's), oldest first, with its deliveries
  t.like(doc.alert_settings, { low_balance_threshold: 5000, webhook_url: 'https://hooks.example.com/a-alerts' });
  t.deepEqual(doc.alerts.map((x) => x.period), ['1', '2']);
  t.like(doc.alerts[0]!.webhook_deliveries, [{ id: 'msg_export_alert_1', status: 'delivered', attempt_log: [{ status_code: 200 }] }]);
  t.deepEqual(doc.alerts[1]!.webhook_deliveries, []);
});

test.serial('the export holds nothing of another tenant and no key value, hash, digest or secret', async (t) => {
  const res = await callOperation<Export>(gw, 'exportAccount', { as: a.liveKey });
  t.is(res.status, 200);
  const text = res.raw.payload;
  const bEmail = (await gw.app.db('users').where({ id: b.userId }).first()).email as string;
  for (const foreign of [bEmail, 'b-personal', 'b-asset', 'b-machine', 'b-team', 'a-team-run', 'a-team-asset']) t.false(text.includes(foreign), foreign);
  // no secret value of the account, in any form
  const secrets: string[] = [a.liveKey, a.testKey, aClientSecret, a.session];
  for (const table of ['api_keys', 'oauth_clients', 'sessions']) {
    const rows = await gw.app.db(table).where({ user_id: a.userId }) as Array<Record<string, unknown>>;
    for (const r of rows) for (const [col, v] of Object.entries(r)) if (/hash|secret|token/.test(col) && typeof v === 'string') secrets.push(v);
  }
  const user = await gw.app.db('users').where({ id: a.userId }).first();
  secrets.push(String(user.password_hash));
  t.true(secrets.length >= 8);
  for (const s of secrets) t.false(text.includes(s), 'a secret value is in the export');
  const keys = new Set<string>();
  JSON.parse(text, (k, v: unknown) => { keys.add(k); return v; });
  for (const k of keys) t.false(/hash|digest|secret|password|token|sealed|_enc$/i.test(k), `field ${k}`);
});

test.serial('a sandbox key exports sandbox predictions only; a team key is 403; no credential is 401', async (t) => {
  const sandboxIds = await seed(a.userId, null, 3, 'a-sandbox', true);
  const res = await callOperation<Export>(gw, 'exportAccount', { as: a.testKey });
  t.is(res.status, 200);
  t.deepEqual(res.body.predictions.map((p) => p.id).sort(), sandboxIds.sort());
  // alerts are not a sandbox's (as in its delivery log)
  t.deepEqual(res.body.alerts, []);
  t.is((await callOperation(gw, 'exportAccount', { as: bTeamKey })).status, 403);
  t.is((await callOperation(gw, 'exportAccount', {})).status, 401);
  await gw.app.db('predictions').whereIn('id', sandboxIds).delete();
});

test.serial('a token without keys:manage exports no key or OAuth client list, as the list routes refuse it; one with it exports both', async (t) => {
  const readOnly = await tokenFor(gw, await createClient(gw, a.session, ['account:read'], 'reader'));
  t.is((await callOperation(gw, 'getUserKeys', { as: readOnly })).status, 403, 'the list route refuses the token');
  const res = await callOperation<Export>(gw, 'exportAccount', { as: readOnly });
  t.is(res.status, 200);
  t.deepEqual(res.body.api_keys, []);
  t.deepEqual(res.body.oauth_clients, []);
  t.is(res.body.user.id, a.userId, 'the rest is exported');
  const manager = await tokenFor(gw, await createClient(gw, a.session, ['account:read', 'keys:manage'], 'manager'));
  const full = await callOperation<Export>(gw, 'exportAccount', { as: manager });
  t.is(full.status, 200);
  t.true(full.body.api_keys.length >= 2);
  t.true(full.body.oauth_clients.some((c) => c.name === 'reader'));
});

test.serial('the export lists the personal LoRAs, not a team\'s nor another account\'s', async (t) => {
  const register = (who: Account, name: string, query: Record<string, number> = {}) => callOperation(gw, 'createLora', { as: who.session, query, body: {
    name, lora_type: 'character', base_model: 'lumen', title: name, description: `about ${name}`, weights_url: `https://weights.example.com/${name}.safetensors`,
  } });
  t.is((await register(a, 'a-own')).status, 201);
  t.is((await register(a, 'a-team', { team_id: teamId })).status, 201);
  t.is((await register(b, 'b-own')).status, 201);
  const res = await callOperation<Export & { loras: Array<{ name: string; visibility: string; team_id: number | null }> }>(gw, 'exportAccount', { as: a.session });
  t.is(res.status, 200);
  t.deepEqual(res.body.loras.map((l) => [l.name, l.visibility, l.team_id]), [['a-own', 'owned', null]]);
});

test.serial('the export lists the personal embed codes (never the code), studios, subscription and model discounts; not a team\'s nor another account\'s; the code and studio lists as their list routes allow', async (t) => {
  const { createEmbedCode } = await import('../../db/embed-codes.ts');
  const { createStudio } = await import('../../db/studios.ts');
  const { activateSubscription } = await import('../../db/subscriptions.ts');
  const { upsertDiscounts } = await import('../../db/discounts.ts');
  const now = Date.now();
  const embed = (name: string) => ({
    name, models: ['canvas-v1-fast-text-to-image'], preset: null, lockedInputs: {}, allowedFields: null, allowedOrigins: ['https://www.example.com'],
    maxCostPerRun: 10, dailyCap: 2000, monthlyCap: null, rateLimitPerMinute: null, maxConcurrent: null,
  });
  const codes = [
    await createEmbedCode(gw.app.db, { userId: a.userId, teamId: null }, 'embed', embed('a-embed'), now),
    await createEmbedCode(gw.app.db, { userId: a.userId, teamId }, 'agent_embed', embed('a-team-embed'), now),
    await createEmbedCode(gw.app.db, { userId: b.userId, teamId: null }, 'embed', embed('b-embed'), now),
  ];
  const studio = (name: string, domains: string[] = []) => ({
    name, branding: { primary_color: '#123456' }, domains, allowedModels: ['canvas-v1-fast-text-to-image'], markupPercent: 20, modelPrices: {}, payerMode: 'end_user_pays' as const,
  });
  await createStudio(gw.app.db, { userId: a.userId, teamId: null }, `a-studio-${a.userId}`, studio('a-studio', [`studio-${a.userId}.example.com`]), now);
  await createStudio(gw.app.db, { userId: a.userId, teamId }, `a-team-studio-${a.userId}`, studio('a-team-studio'), now);
  await createStudio(gw.app.db, { userId: b.userId, teamId: null }, `b-studio-${b.userId}`, studio('b-studio'), now);
  const starter = gw.app.config.subscriptions.plans.get('starter')!;
  t.like(await activateSubscription(gw.app.db, { userId: a.userId, teamId: null }, starter, undefined, now), { outcome: 'ok' });
  t.like(await activateSubscription(gw.app.db, { userId: b.userId, teamId: null }, gw.app.config.subscriptions.plans.get('pro')!, undefined, now), { outcome: 'ok' });
  await upsertDiscounts(gw.app.db, [
    { owner: { userId: a.userId, teamId: null }, model: '*', percentOff: 15, expiresAt: null, reason: 'a-own-deal', createdBy: b.userId },
    { owner: { userId: a.userId, teamId }, model: '*', percentOff: 25, expiresAt: null, reason: 'a-team-deal', createdBy: b.userId },
    { owner: { userId: b.userId, teamId: null }, model: '*', percentOff: 35, expiresAt: null, reason: 'b-own-deal', createdBy: b.userId },
  ], now);

  type Full = Export & {
    embed_codes: Array<Record<string, unknown>>;
    studios: Array<{ name: string; team_id: number | null; domain_verification: Array<{ hostname: string; status: string }> }>;
    subscription: { plan: string | null; status: string; team_id: number | null; current_period_start: string | null; current_period_end: string | null };
    model_discounts: Array<{ reason: string | null; team_id: number | null; percent_off: number }>;
  };
  const res = await callOperation<Full>(gw, 'exportAccount', { as: a.session });
  t.is(res.status, 200, res.raw.payload.slice(0, 300));
  const doc = res.body;
  t.deepEqual(doc.embed_codes.map((c) => [c.name, c.kind, c.models, c.allowed_origins, c.daily_cap, c.team_id, c.revoked_at]),
    [['a-embed', 'embed', ['canvas-v1-fast-text-to-image'], ['https://www.example.com'], 2000, null, null]]);
  t.false('code' in doc.embed_codes[0]!, 'the code itself is a credential: never exported');
  for (const c of codes) t.false(res.raw.payload.includes(c.code));
  t.deepEqual(doc.studios.map((s) => [s.name, s.team_id]), [['a-studio', null]]);
  t.like(doc.studios[0]!.domain_verification, [{ hostname: `studio-${a.userId}.example.com`, status: 'pending' }]);
  t.like(doc.subscription, { plan: 'starter', status: 'active', team_id: null });
  t.truthy(doc.subscription.current_period_start);
  t.truthy(doc.subscription.current_period_end);
  t.deepEqual(doc.model_discounts.map((d) => [d.reason, d.team_id, d.percent_off]), [['a-own-deal', null, 15]]);
  for (const foreign of ['b-embed', 'b-studio', 'b-own-deal', 'a-team-embed', 'a-team-studio', 'a-team-deal']) t.false(res.raw.payload.includes(foreign), foreign);

  // an account:read token: getMySubscription and myModelDiscounts answer it, listEmbedCodes and listStudios refuse it
  const readOnly = await tokenFor(gw, await createClient(gw, a.session, ['account:read'], 'reader-2'));
  t.is((await callOperation(gw, 'listEmbedCodes', { as: readOnly })).status, 403);
  t.is((await callOperation(gw, 'listStudios', { as: readOnly })).status, 403);
  const narrow = await callOperation<Full>(gw, 'exportAccount', { as: readOnly });
  t.is(narrow.status, 200);
  t.deepEqual(narrow.body.embed_codes, []);
  t.deepEqual(narrow.body.studios, []);
  t.like(narrow.body.subscription, { plan: 'starter', status: 'active' });
  t.is(narrow.body.model_discounts.length, 1);
});
