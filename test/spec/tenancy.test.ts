// The tenancy matrix (issue 8). Two users, each owning a team, each with records of every owned
// kind that is live: personal, sandbox and team predictions, personal, sandbox and team API keys,
// webhook deliveries, an OAuth client, team members and invites. The test walks the spec rather
// than a list of routes:
//
// - every live protected operation that takes an id (a path parameter, or a query or body field
//   named `id` / `*_id`) is called as user A, with each credential kind A has, with user B's and
//   team B's ids (alone, and mixed with A's own: A's team with B's member). The reply must be 404,
//   and the same reply (status and body) as for an id nobody has, so it reveals nothing;
// - every live protected GET operation is called as A with A's own ids, and B's records never
//   appear in the reply (every B record carries B's tag, or is named by an id no one else has);
// - B's records are intact at the end.
//
// An id-taking operation added later is picked up automatically. If the test does not know what
// kind of record one of its parameters names, it FAILS naming the operation and the parameter:
// add the parameter to PARAM_KINDS (or OPERATION_PARAM_KINDS), and, if it is a new kind of record,
// create one for each tenant in `tenant()` (README "Tests").
import test from 'ava';
import crypto from 'node:crypto';
import type { Operation } from 'openapi-backend';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import type { OperationReply } from '../helpers/operation.ts';
import { createClient, tokenFor } from '../helpers/oauth.ts';
import { LIVE_OPERATIONS } from '../../handlers/index.ts';
import { insertTeamApiKey } from '../../db/team-resources.ts';
import { newPredictionId } from '../../db/predictions/record.ts';
import { insertDelivery, newDeliveryId } from '../../db/webhooks.ts';
import { scopeNames } from '../../spec/scopes.ts';
import { upsertDiscounts } from '../../db/discounts.ts';

/** The kinds of owned records an id can name. */
type Kind = 'prediction' | 'apiKey' | 'oauthClient' | 'team' | 'member' | 'invite' | 'delivery' | 'mediaAsset' | 'embedCode' | 'discount' | 'studio';

/** A parameter's name -> the kind of record its value names, wherever the name is unambiguous. */
const PARAM_KINDS: Readonly<Record<string, Kind>> = {
  request_id: 'prediction',
  key_id: 'apiKey',
  team_id: 'team',
  user_id: 'member',
  invite_id: 'invite',
  asset_id: 'mediaAsset',
  embed_code_id: 'embedCode',
  discount_id: 'discount',
  studio_id: 'studio',
};

/** Parameters whose name alone does not say (`id`), per operation. */
const OPERATION_PARAM_KINDS: Readonly<Record<string, Readonly<Record<string, Kind>>>> = {
  deleteOAuthClient: { id: 'oauthClient' },
  redeliverWebhook: { id: 'delivery' },
  updateReviewStatus: { id: 'prediction' },
  bulkUpdateReviewStatus: { ids: 'prediction' },
  bulkDeleteUsageLogs: { ids: 'prediction' },
  adminAuditLog: { actor_id: 'member', target_user_id: 'member' },
};

/**
 * Operations whose ids filter a list or name the items of a batch (issue 10: "unknown or foreign
 * ids skipped and reported, never a whole-batch 404"): another tenant's id is not a 404 but gets
 * exactly the answer an id nobody has gets (an empty page; the id listed in `skipped`), the id
 * itself aside. A foreign `team_id` is still 404.
 */
const FILTERS_OR_BATCHES: readonly string[] = ['searchRunHistory', 'bulkUpdateReviewStatus', 'bulkDeleteUsageLogs'];

/** Valid bodies for the id-taking operations that need one (validation answers before ownership). */
const BODIES: Readonly<Record<string, object>> = {
  renameTeam: { name: 'renamed by another tenant' },
  sendWebhookTest: { url: 'https://example.com/hook' },
  redeliverDeadWebhooks: { since: '2020-01-01T00:00:00Z' },
  changeTeamMemberRole: { role: 'viewer' },
  createTeamInvite: { email: 'someone@example.com', role: 'viewer' },
  createTeamApiKey: { name: 'made by another tenant' },
  updateReviewStatus: { review_status: 'rejected' },
  bulkUpdateReviewStatus: { review_status: 'rejected' },
  bulkDeleteUsageLogs: {},
  updateAlertSettings: { low_balance_threshold: 1000 },
  sendAlertTest: { url: 'https://example.com/hook' },
  updateApiKey: { name: 'renamed by another tenant' },
  updateTeamApiKey: { name: 'renamed by another tenant' },
  calculateDynamicCost: { model: 'canvas-v1-fast-text-to-image', input: { prompt: 'priced by another tenant' } },
  createChatCompletion: { model: 'lexi-v1-balanced-chat', messages: [{ role: 'user', content: 'asked by another tenant' }] },
  createImage: { model: 'canvas-v1-fast-text-to-image', prompt: 'drawn by another tenant' },
  createLora: { name: 'made-by-another-tenant', lora_type: 'style', base_model: 'lumen', weights_url: 'https://example.com/w.safetensors' },
  createMediaAsset: { url: 'https://cdn.example.com/by-another-tenant.png', media_type: 'image' },
  adminTopup: { email: 'someone@example.com', amount: 1 },
  adminDeductCredits: { email: 'someone@example.com', amount: 1 },
  adminRefund: { request_id: 'x' },
  adminStripeRefund: { charge_id: 'ch_matrix', amount: 1 },
  createCheckoutSession: { amount: 1000 },
  upsertModelDiscounts: { discounts: [{ email: 'someone@example.com', model: '*', percent_off: 10 }] },
  adminManageSubscription: { email: 'someone@example.com', action: 'cancel' },
  virtualLogin: { email: 'someone@example.com', reason: 'matrix' },
  adminSupportLoginLink: { email: 'someone@example.com', reason: 'matrix' },
  adminPasswordResetLink: { email: 'someone@example.com', reason: 'matrix' },
  adminDeleteUser: { email: 'someone@example.com' },
  createEmbedCode: { kind: 'embed', name: 'made by another tenant', models: ['canvas-v1-fast-text-to-image'] },
  updateEmbedCode: { name: 'renamed by another tenant' },
  createStudio: { slug: 'made-by-another-tenant', name: 'made by another tenant', allowed_models: ['canvas-v1-fast-text-to-image'], payer_mode: 'owner_pays' },
  updateStudio: { name: 'renamed by another tenant' },
};

/** Ids of records at a third party that no tenant owns here (an operator names them), per operation. */
const THIRD_PARTY_IDS: Readonly<Record<string, readonly string[]>> = {
  adminStripeRefund: ['charge_id'],
};

/** Required query parameters that are not ids, for the operations that have them. */
const QUERIES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  getFileUploadUrl: { filename: 'matrix.png' },
};

type CredentialKind = 'session' | 'live-key' | 'sandbox-key' | 'oauth-token' | 'team-key';
const CREDENTIAL_SCHEME: Readonly<Record<CredentialKind, string>> = {
  'session': 'SessionAuth',
  'live-key': 'ApiKeyAuth',
  'sandbox-key': 'ApiKeyAuth',
  'oauth-token': 'OAuth2',
  'team-key': 'ApiKeyAuth',
};

/**
 * Credential kinds left out of the matrix until they authenticate as what they are. Team API keys
 * (db/team-resources.ts insertTeamApiKey) are wired into the api-key scheme by another branch
 * (issue 8, team keys); on this branch a team key still acts as its creator's personal account.
 * Empty this list when team keys act for their team: the matrix then runs with them, and
 * 'a team key acts for its team' below checks that it does.
 */
const CREDENTIAL_KINDS_AWAITING_WIRING: readonly CredentialKind[] = [];

/**
 * Where a 403 instead of 404 is allowed, and why; still only when the reply is exactly the one an
 * id nobody has gets, so it says nothing about the id. Team keys: a team key is refused on
 * personal-account operations and on a team_id other than its own team, whatever the id (issue 8:
 * "a team_id that differs from the key's team is 403").
 */
const MAY_ANSWER_403: Readonly<Partial<Record<CredentialKind, string>>> = {
  'team-key': 'a team key is refused outside its team, whatever the id',
};

interface Tenant {
  tag: string;
  userId: number;
  credentials: Record<CredentialKind, string>;
  /** this tenant's ids of every kind; the first of each is "its own" value in mixed cases */
  ids: Record<Kind, Array<string | number>>;
  teamId: number;
  teamPredictionId: string;
  personalPredictionId: string;
}

let gw: TestGateway;
let a: Tenant;
let b: Tenant;

/** An id of each kind that no record has, spelled as that kind's ids are. */
const UNKNOWN: Readonly<Record<Kind, string | number>> = {
  prediction: newPredictionId(Date.now()),
  apiKey: 987_654_321,
  oauthClient: '987654321',
  team: 987_654_321,
  member: 987_654_321,
  invite: 987_654_321,
  delivery: newDeliveryId(),
  mediaAsset: 987_654_321,
  embedCode: 987_654_321,
  discount: 987_654_321,
  studio: 987_654_321,
};

/** A raw API key the way the gateway makes them (prefix + 256 random bits), and its stored digest. */
function rawKey(prefix: string): { key: string; hash: string } {
  const key = `${prefix}${crypto.randomBytes(32).toString('base64url')}`;
  return { key, hash: crypto.createHash('sha256').update(key).digest('hex') };
}

/** One user with a team and a record of every owned kind; every name and address carries `tag`. */
async function tenant(label: string): Promise<Tenant> {
  const tag = `tenant${label}${crypto.randomBytes(5).toString('hex')}`;
  const now = Date.now();
  const acct = await newAccount(gw, 100_000);
  const db = gw.app.db;
  await db('users').where({ id: acct.userId }).update({ email: `${tag}-owner@example.com` });
  await db('api_keys').where({ user_id: acct.userId }).update({ name: db.raw("CONCAT(?, '-', name)", [tag]) });
  const session = acct.session;

  const team = await callOperation<{ id: number }>(gw, 'createTeam', { as: session, body: { name: `${tag}-team` } });
  if (team.status !== 201 && team.status !== 200) throw new Error(`createTeam: ${team.status}`);
  const teamId = team.body.id;
  await db('teams').where({ id: teamId }).update({ balance: 10_000 });
  const member = await newAccount(gw);
  await db('users').where({ id: member.userId }).update({ email: `${tag}-member@example.com` });
  await db('team_members').insert({ team_id: teamId, user_id: member.userId, role: 'developer', created_at: now });
  const invite = await callOperation<{ id: number }>(gw, 'createTeamInvite', {
    as: session, params: { team_id: teamId }, body: { email: `${tag}-invitee@example.com`, role: 'viewer' },
  });
  if (invite.status !== 201) throw new Error(`createTeamInvite: ${invite.status}`);
  // owned LoRAs, personal and the team's (listOwnLoras must never show B's): the tag is in the title
  for (const query of [{}, { team_id: teamId }] as Array<Record<string, number>>) {
    const lora = await callOperation(gw, 'createLora', {
      as: session, query, body: { name: `lora-${crypto.randomBytes(4).toString('hex')}`, title: `${tag} lora`, lora_type: 'style', base_model: 'lumen', weights_url: `https://${tag}.example.com/w.safetensors` },
    });
    if (lora.status !== 201) throw new Error(`createLora: ${lora.status}`);
  }

  const teamKey = rawKey('mg_live_');
  const teamKeyRow = await insertTeamApiKey(db, {
    teamId, createdBy: acct.userId, name: `${tag}-team-key`, prefix: teamKey.key.slice(0, 12), keyHash: teamKey.hash, isTest: false, ipWhitelist: [], scopes: null,
  }, now);
  const client = await createClient(gw, session, scopeNames(gw.app.spec.document), `${tag}-client`);
  const token = await tokenFor(gw, client);

  const submit = async (key: string) => {
    const res = await callOperation<{ request_id: string }>(gw, 'canvas-v1-fast-text-to-image', { as: key, body: { prompt: `${tag} prompt`, width: 64, height: 64 } });
    if (res.status !== 200) throw new Error(`submit: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.request_id;
  };
  // No worker runs: the production prediction stays unfinished, so a cancel that leaked would show.
  const personalPredictionId = await submit(acct.liveKey);
  const sandboxPredictionId = await submit(acct.testKey);
  const teamPredictionId = newPredictionId(now);
  await gw.app.store.submit({ p: {
    id: teamPredictionId, teamId, userId: acct.userId, apiKeyId: teamKeyRow.id, model: 'canvas-v1-fast-text-to-image', input: { prompt: tag }, price: 10, webhookUrl: null,
  }, now });
  const deliveries = [newDeliveryId(), newDeliveryId()];
  await db.transaction(async (trx) => {
    await insertDelivery(trx, { id: deliveries[0]!, predictionId: personalPredictionId, userId: acct.userId, url: `https://${tag}.example.com/hook` }, now);
    await insertDelivery(trx, { id: deliveries[1]!, predictionId: teamPredictionId, userId: acct.userId, url: `https://${tag}.example.com/team-hook` }, now);
  });
  // Dead: a redelivery that leaked across tenants would succeed (202) instead of conflicting.
  await db('webhook_deliveries').whereIn('id', deliveries).update({ status: 'dead' });

  const asset = async (teamIdOrNull: number | null) => {
    const res = await callOperation<{ id: number }>(gw, 'createMediaAsset', {
      as: session, ...(teamIdOrNull ? { query: { team_id: teamIdOrNull } } : {}), body: { url: `https://cdn.example.com/${tag}.png`, media_type: 'image', name: `${tag}-asset` },
    });
    if (res.status !== 200) throw new Error(`createMediaAsset: ${res.status}`);
    return res.body.id;
  };
  const assetIds = [await asset(null), await asset(teamId)];
  const embedCode = async (query: Record<string, number>) => {
    const res = await callOperation<{ id: number }>(gw, 'createEmbedCode', { as: session, query, body: { kind: 'embed', name: `${tag}-embed`, models: ['canvas-v1-fast-text-to-image'] } });
    if (res.status !== 201) throw new Error(`createEmbedCode: ${res.status}`);
    return res.body.id;
  };
  const embedCodes = [await embedCode({}), await embedCode({ team_id: teamId })];
  // model discounts (README "Discounts"), the personal wallet's and the team's: the tag is in the reason
  const discounts = await upsertDiscounts(db, [{ userId: acct.userId, teamId: null }, { userId: acct.userId, teamId }].map((owner) => ({
    owner, model: '*', percentOff: 10, expiresAt: null, reason: `${tag} deal`, createdBy: acct.userId,
  })), now);
  const studio = async (query: Record<string, number>, n: number) => {
    const slug = `${tag}-studio-${n}-${crypto.randomBytes(4).toString('hex')}`.toLowerCase().replace(/[^a-z0-9-]/g, '').slice(0, 40);
    const res = await callOperation<{ id: number }>(gw, 'createStudio', { as: session, query, body: { slug, name: `${tag}-studio`, allowed_models: ['canvas-v1-fast-text-to-image'], payer_mode: 'end_user_pays' } });
    if (res.status !== 201) throw new Error(`createStudio: ${res.status}`);
    return res.body.id;
  };
  const studios = [await studio({}, 1), await studio({ team_id: teamId }, 2)];

  const keyIds = (await db('api_keys').where({ user_id: acct.userId }).orderBy('id')).map((r: { id: number }) => Number(r.id));
  return {
    tag,
    userId: acct.userId,
    credentials: { 'session': session, 'live-key': acct.liveKey, 'sandbox-key': acct.testKey, 'oauth-token': token, 'team-key': teamKey.key },
    ids: {
      prediction: [personalPredictionId, sandboxPredictionId, teamPredictionId],
      apiKey: keyIds,
      oauthClient: [client.id],
      team: [teamId],
      member: [acct.userId, member.userId],
      invite: [invite.body.id],
      delivery: deliveries,
      mediaAsset: assetIds,
      embedCode: embedCodes,
      discount: discounts.map((d) => d.id),
      studio: studios,
    },
    teamId,
    teamPredictionId,
    personalPredictionId,
  };
}

test.before(async () => {
  gw = await startGateway({ queue: 'memory' });
  a = await tenant('a');
  b = await tenant('b');
});
test.after.always(async () => {
  await gw?.stop();
});

type Where = 'path' | 'query' | 'body';
interface IdParam { name: string; in: Where; required: boolean; kind: Kind | undefined; /** a body list of ids (`ids`, `*_ids`) */ list?: boolean }
interface Param { name?: string; in?: string; required?: boolean }

const isIdName = (name: string) => name === 'id' || name.endsWith('_id');
const isIdListName = (name: string) => name === 'ids' || name.endsWith('_ids');

/** The id parameters of an operation: every path parameter, query or top-level body fields named id / *_id, and body lists named ids / *_ids. */
function idParams(op: Operation): IdParam[] {
  const out: IdParam[] = [];
  const kindOf = (name: string) => OPERATION_PARAM_KINDS[op.operationId!]?.[name] ?? PARAM_KINDS[name];
  for (const p of (op.parameters ?? []) as Param[]) {
    if (!p.name || (p.in !== 'path' && p.in !== 'query')) continue;
    if (p.in === 'path' || isIdName(p.name)) out.push({ name: p.name, in: p.in, required: p.in === 'path' || p.required === true, kind: kindOf(p.name) });
  }
  const schema = bodySchema(op);
  for (const name of Object.keys(schema?.properties ?? {})) {
    if (THIRD_PARTY_IDS[op.operationId!]?.includes(name)) continue;
    const required = (schema?.required ?? []).includes(name);
    if (isIdName(name)) out.push({ name, in: 'body', required, kind: kindOf(name) });
    else if (isIdListName(name)) out.push({ name, in: 'body', required, kind: kindOf(name), list: true });
  }
  return out;
}

interface Schema { type?: string; properties?: Record<string, Schema>; required?: string[]; oneOf?: Schema[]; items?: Schema; enum?: unknown[]; default?: unknown; format?: string; minimum?: number; minLength?: number; minItems?: number }

function bodySchema(op: Operation): Schema | undefined {
  return (op.requestBody as { content?: Record<string, { schema?: Schema }> } | undefined)?.content?.['application/json']?.schema;
}

/** The smallest value a schema accepts, for bodies the test does not write by hand (model endpoints). */
function minimal(s: Schema): unknown {
  if (s.default !== undefined) return s.default;
  if (s.enum?.length) return s.enum[0];
  switch (s.type) {
    // one of several required sets (a prompt or a conversation): the first
    case 'object': return Object.fromEntries([...(s.required ?? []), ...(s.oneOf?.[0]?.required ?? [])].map((k) => [k, minimal(s.properties?.[k] ?? {})]));
    case 'array': return Array.from({ length: s.minItems ?? 0 }, () => minimal(s.items ?? {}));
    case 'integer': case 'number': return s.minimum ?? 1;
    case 'boolean': return false;
    default: return s.format === 'uri' ? 'https://example.com/input.png' : 'a'.repeat(s.minLength ?? 1);
  }
}

function baseBody(op: Operation): object | undefined {
  if (BODIES[op.operationId!]) return BODIES[op.operationId!];
  const schema = bodySchema(op);
  if (!schema) return undefined;
  if ((op as unknown as Record<string, unknown>)['x-model'] !== undefined) return minimal(schema) as object;
  return (op.requestBody as { required?: boolean }).required ? undefined : {};
}

function accepts(op: Operation, kind: CredentialKind): boolean {
  const security = (op.security ?? (gw.app.spec.document.security as Operation['security']) ?? []) as Array<Record<string, string[]>>;
  return security.some((r) => CREDENTIAL_SCHEME[kind] in r);
}

function isProtected(op: Operation): boolean {
  return ((op.security ?? (gw.app.spec.document.security as Operation['security']) ?? []) as unknown[]).length > 0;
}

const liveProtected = () => (gw.app.spec.operations as Operation[]).filter((op) => isProtected(op) && (LIVE_OPERATIONS.includes(op.operationId!) || gw.app.spec.models.has(op.operationId!)));
const matrixKinds = (Object.keys(CREDENTIAL_SCHEME) as CredentialKind[]).filter((k) => !CREDENTIAL_KINDS_AWAITING_WIRING.includes(k));

type Value = { v: string | number; foreign: boolean } | 'absent';

/** A tenant's own id of a kind, as a credential kind sees it: a team key's own prediction is its team's. */
function own(t: Tenant, kind: CredentialKind, k: Kind): string | number {
  return kind === 'team-key' && k === 'prediction' ? t.teamPredictionId : t.ids[k][0]!;
}

/** Every assignment of the id parameters in which at least one names B's record. */
function assignments(params: IdParam[], kind: CredentialKind): Array<Record<string, Value>> {
  let out: Array<Record<string, Value>> = [{}];
  for (const p of params) {
    const options: Value[] = [{ v: own(a, kind, p.kind!), foreign: false }, ...b.ids[p.kind!].map((v) => ({ v, foreign: true }))];
    if (!p.required) options.push('absent');
    out = out.flatMap((partial) => options.map((o) => ({ ...partial, [p.name]: o })));
  }
  return out.filter((asg) => Object.values(asg).some((o) => o !== 'absent' && o.foreign));
}

function request(op: Operation, params: IdParam[], asg: Record<string, Value>, unknownForForeign: boolean) {
  const path: Record<string, string | number> = {};
  const query: Record<string, string | number> = { ...QUERIES[op.operationId!] };
  const body: Record<string, unknown> = { ...(baseBody(op) ?? {}) };
  for (const p of params) {
    const o = asg[p.name]!;
    if (o === 'absent') continue;
    const v = o.foreign && unknownForForeign ? UNKNOWN[p.kind!] : o.v;
    if (p.in === 'path') path[p.name] = v;
    else if (p.in === 'query') query[p.name] = v;
    else body[p.name] = p.list ? [v] : v;
  }
  return { params: path, query, ...(bodySchema(op) ? { body } : {}) };
}

const describe = (asg: Record<string, Value>) => Object.entries(asg).map(([k, o]) => `${k}=${o === 'absent' ? '-' : `${o.foreign ? 'B:' : 'A:'}${o.v}`}`).join(' ');
const replyOf = (r: OperationReply) => JSON.stringify({ status: r.status, body: r.body }).slice(0, 300);

test.serial('every id-taking live operation knows what its ids name (an unknown parameter fails here: extend PARAM_KINDS)', (t) => {
  const unknown: string[] = [];
  const noBody: string[] = [];
  for (const op of liveProtected()) {
    const params = idParams(op);
    for (const p of params) if (!p.kind) unknown.push(`${op.operationId}: ${p.in} parameter "${p.name}"`);
    if (params.length && bodySchema(op) && baseBody(op) === undefined) noBody.push(`${op.operationId}: needs a valid body in BODIES`);
  }
  t.deepEqual(unknown, [], 'add these to PARAM_KINDS or OPERATION_PARAM_KINDS, with a record of that kind for each tenant');
  t.deepEqual(noBody, []);
});

test.serial('the matrix can fill every model endpoint the day it takes an id: a minimal body from its schema passes validation', (t) => {
  const { validator } = gw.app.spec.api;
  const models = (gw.app.spec.operations as Operation[]).filter((op) => gw.app.spec.models.has(op.operationId!));
  t.true(models.length > 0);
  for (const op of models) {
    const body = baseBody(op) as Record<string, unknown>;
    const result = validator.validateRequest({ method: 'POST', path: op.path, headers: { 'content-type': 'application/json' }, query: {}, body }, op);
    t.true(result.valid, `${op.operationId}: ${JSON.stringify(result.errors)}`);
  }
});

test.serial("another tenant's ids are 404 on every id-taking live operation, with every credential kind, and say no more than an id nobody has", async (t) => {
  const failures: string[] = [];
  const exercised = new Map<string, number>();
  let checks = 0;
  for (const op of liveProtected()) {
    const params = idParams(op);
    if (params.length === 0 || params.some((p) => !p.kind)) continue; // the test above names the unknown ones
    for (const kind of matrixKinds) {
      if (!accepts(op, kind)) continue;
      const as = a.credentials[kind];
      for (const asg of assignments(params, kind)) {
        const foreign = await callOperation(gw, op.operationId!, { as, ...request(op, params, asg, false) });
        const nobody = await callOperation(gw, op.operationId!, { as, ...request(op, params, asg, true) });
        checks++;
        exercised.set(op.operationId!, (exercised.get(op.operationId!) ?? 0) + 1);
        const where = `${op.operationId} as A (${kind}) with ${describe(asg)}`;
        const filterOrBatch = FILTERS_OR_BATCHES.includes(op.operationId!);
        // A role operation (x-required-role) is not scoped to a tenant: A, a plain user, is refused
        // (403 role_required or session_required) before any id is looked at, the same for every id.
        const roleOperation = (op as unknown as Record<string, unknown>)['x-required-role'] !== undefined;
        const allowed = foreign.status === 404 || (foreign.status === 403 && (MAY_ANSWER_403[kind] !== undefined || roleOperation)) || (filterOrBatch && foreign.status === 200);
        // a filter or batch may echo the id it skipped: compare the replies with the ids blanked out
        const blank = (r: OperationReply, asked: Record<string, Value>) => {
          let text = replyOf(r);
          for (const v of Object.values(asked)) if (v !== 'absent' && v.foreign) text = text.split(String(v.v)).join('<id>');
          text = text.split(String(UNKNOWN.prediction)).join('<id>');
          return text;
        };
        if (!allowed) failures.push(`${where}: ${replyOf(foreign)}`);
        else if (filterOrBatch ? blank(foreign, asg) !== blank(nobody, asg) : replyOf(foreign) !== replyOf(nobody)) {
          failures.push(`${where}: ${replyOf(foreign)} differs from an unknown id's ${replyOf(nobody)}`);
        }
      }
    }
  }
  t.log(`${checks} foreign-id checks over ${exercised.size} operations, credential kinds: ${matrixKinds.join(', ')}` +
    (CREDENTIAL_KINDS_AWAITING_WIRING.length ? `; awaiting wiring: ${CREDENTIAL_KINDS_AWAITING_WIRING.join(', ')}` : ''));
  t.deepEqual(failures, []);
  // The walk found what is live today (a floor, not the list: new operations join automatically).
  for (const id of ['getPredictionResult', 'getPredictionResponse', 'cancelPrediction', 'deleteApiKey', 'deleteOAuthClient', 'redeliverWebhook', 'getTeam', 'revokeTeamInvite', 'removeTeamMember', 'deleteMediaAsset']) {
    t.true((exercised.get(id) ?? 0) > 0, `${id} was not exercised`);
  }
});

/**
 * A tenant's own ids, for reading its own records: its required ids, and where `team_id` is
 * optional, once more in its team's scope (with the team's prediction).
 */
function ownRequests(op: Operation, tenantOf: Tenant, kind: CredentialKind) {
  const params = idParams(op).filter((p) => p.kind && p.in !== 'body');
  const build = (inTeam: boolean) => {
    const path: Record<string, string | number> = {};
    const query: Record<string, string | number> = { ...QUERIES[op.operationId!] };
    for (const p of params) {
      if (!p.required && !(inTeam && p.kind === 'team')) continue;
      const v = inTeam && p.kind === 'prediction' ? tenantOf.teamPredictionId : own(tenantOf, kind, p.kind!);
      if (p.in === 'path') path[p.name] = v;
      else query[p.name] = v;
    }
    return { params: path, query };
  };
  const teamOptional = params.some((p) => !p.required && p.kind === 'team' && p.in === 'query');
  return teamOptional ? [build(false), build(true)] : [build(false)];
}

/** Everything that names one of B's records: its tag (in every name and address) and its random ids. */
function markersOf(t: Tenant): string[] {
  return [t.tag, ...t.ids.prediction.map(String), ...t.ids.delivery.map(String)];
}

function isEventStream(op: Operation): boolean {
  const ok = (op.responses as Record<string, { content?: Record<string, unknown> }> | undefined)?.['200'];
  return Object.keys(ok?.content ?? {}).includes('text/event-stream');
}

async function readAll(who: Tenant, kind: CredentialKind): Promise<Array<{ op: string; text: string }>> {
  const replies: Array<{ op: string; text: string }> = [];
  for (const op of liveProtected()) {
    if (op.method.toLowerCase() !== 'get' || !accepts(op, kind)) continue;
    if (idParams(op).some((p) => !p.kind)) continue;
    // an event stream of an unfinished prediction stays open until it ends (no worker runs here);
    // its own-record reads are in test/handlers/prediction-watch.test.ts, its foreign-id 404s in the matrix above
    if (isEventStream(op)) continue;
    for (const req of ownRequests(op, who, kind)) {
      const reply = await callOperation(gw, op.operationId!, { as: who.credentials[kind], ...req });
      replies.push({ op: op.operationId!, text: JSON.stringify(reply.body) });
    }
  }
  return replies;
}

test.serial("another tenant's records never appear in any live read, with every credential kind", async (t) => {
  const bMarkers = markersOf(b);
  for (const kind of matrixKinds) {
    const replies = await readAll(a, kind);
    t.true(replies.length > 0);
    for (const { op, text } of replies) {
      const leaked = bMarkers.filter((m) => text.includes(m));
      t.deepEqual(leaked, [], `${op} as A (${kind}) shows B's records`);
    }
    // The check can fail: the same reads show A's own records (its tag) to A.
    t.true(replies.some(({ text }) => text.includes(a.tag)), `no read as A (${kind}) showed A's own records`);
  }
  // ...and B's markers are visible where they belong: B's own reads show its tag and its delivery ids.
  const bReads = (await readAll(b, 'session')).map((r) => r.text).join('\n');
  t.true(bReads.includes(b.tag));
  t.true(bReads.includes(String(b.ids.delivery[0])), 'personal reads show the personal delivery');
  t.true(bReads.includes(String(b.ids.delivery[1])), 'team-scoped reads (team_id) show the team prediction\'s delivery');
});

test.serial("B's records are intact after A's attempts", async (t) => {
  const as = b.credentials.session;
  for (const key of [b.credentials['live-key'], b.credentials['sandbox-key']]) {
    t.is((await callOperation(gw, 'getBalance', { as: key })).status, 200, "B's keys still work");
  }
  t.is(await gw.app.db('api_keys').whereIn('id', b.ids.apiKey).whereNull('revoked_at').count({ n: '*' }).first().then((r) => Number(r?.n)), b.ids.apiKey.length, "none of B's keys (team key included) is revoked");
  t.is((await callOperation(gw, 'getBalance', { as: b.credentials['oauth-token'] })).status, 200, "B's client still works");
  const team = await callOperation<{ name: string }>(gw, 'getTeam', { as, params: { team_id: b.teamId } });
  t.is(team.status, 200);
  t.is(team.body.name, `${b.tag}-team`);
  const members = await callOperation<Array<{ user_id: number; role: string }>>(gw, 'listTeamMembers', { as, params: { team_id: b.teamId } });
  t.deepEqual(members.body.map((m) => [m.user_id, m.role]).sort(), [[b.ids.member[0], 'owner'], [b.ids.member[1], 'developer']].sort());
  const invites = await callOperation<Array<{ id: number }>>(gw, 'listTeamInvites', { as, params: { team_id: b.teamId } });
  t.deepEqual(invites.body.map((i) => i.id), b.ids.invite);
  const prediction = await callOperation<{ status: string }>(gw, 'getPredictionResult', { as, params: { request_id: b.personalPredictionId } });
  t.not(prediction.body.status, 'cancelled');
  const row = await gw.app.db('predictions').where({ id: b.teamPredictionId }).first();
  t.not(row.status, 'cancelled');
  const reviewed = await gw.app.db('predictions').whereIn('id', b.ids.prediction).where((q) => q.whereNotNull('deleted_at').orWhere('review_status', 'rejected'));
  t.deepEqual(reviewed, [], "none of B's predictions was reviewed or deleted by A's batches");
  const deliveries = await gw.app.db('webhook_deliveries').whereIn('id', b.ids.delivery);
  t.deepEqual(deliveries.map((d: { status: string }) => d.status), ['dead', 'dead']);
  t.is(await gw.app.db('media_assets').whereIn('id', b.ids.mediaAsset).count({ n: '*' }).first().then((r) => Number(r?.n)), b.ids.mediaAsset.length, "none of B's media assets is deleted");
});

test.serial('every credential kind of the matrix acts as its tenant', async (t) => {
  for (const kind of matrixKinds.filter((k) => k !== 'team-key')) {
    const me = await callOperation<{ id: number }>(gw, 'getUserDetails', { as: a.credentials[kind] });
    t.is(me.body.id, a.userId, kind);
  }
  if (matrixKinds.includes('team-key')) {
    // A team key acts for its team: the team's prediction is its own, without team_id.
    const res = await callOperation(gw, 'getPredictionResponse', { as: a.credentials['team-key'], params: { request_id: a.teamPredictionId } });
    t.is(res.status, 200, 'a team key acts for its team');
  }
});
