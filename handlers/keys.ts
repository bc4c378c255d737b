// API keys: created with a session, another key or a keys:manage token, shown once, stored as
// SHA-256 digests. No credential mints a stronger one (issue 16): a child key carries at most its
// creator's scopes and IP restriction, and a sandbox key creates and revokes only sandbox keys.
import { isAddressOrRange, normaliseEntry, rangeWithinAny } from '../lib/addresses.ts';
import { CODE_SCOPES } from '../spec/scopes.ts';
import type { App } from '../lib/context.ts';
import type { Handler, OwnedCaller } from './types.ts';
import { ForbiddenError, NotFoundError, ValidationFailedError } from '../lib/errors.ts';
import { findUserKey, insertApiKey, listUserKeys, revokeKey, rotateKey, updateUserKey } from '../db/api-keys.ts';
import type { ApiKeyRecord, KeyLimits, KeyOwner, KeyRestrictions, KeyUpdate } from '../db/api-keys.ts';
import { keySpend } from '../db/key-spend.ts';
import { forgetKeySoftLimit } from './admission.ts';
import { refuseBeyondScopes, refuseStudioUser } from './guards.ts';
import type { SpendPeriod } from '../db/key-spend.ts';
import { findTeamKey, insertTeamApiKey, listTeamKeys, revokeTeamKey, updateTeamKey } from '../db/team-resources.ts';
import type { TeamApiKeyRecord } from '../db/team-resources.ts';
import { KEY_PREFIX_LIVE, KEY_PREFIX_TEST, newSecret, sha256Hex } from '../lib/secrets.ts';

export function keyView(k: ApiKeyRecord) {
  return { id: k.id, name: k.name, prefix: k.prefix, is_test: k.isTest, ip_whitelist: k.ipWhitelist, scopes: k.scopes, rate_limit_per_minute: k.rateLimitPerMinute, max_concurrent: k.maxConcurrent, expires_at: k.expiresAt, spend_limit: k.spendLimit, spend_limit_period: k.spendLimitPeriod, soft_spend_limit: k.softSpendLimit, rotated_at: k.rotatedAt, grace_until: k.previousValidUntil, created_at: k.createdAt, last_used_at: k.lastUsedAt };
}

/** A listed key with what it has spent in its limit's current period (null: no limit). */
async function withSpend<K extends ApiKeyRecord, V extends ReturnType<typeof keyView>>(app: App, k: K, view: (k: K) => V): Promise<V & { spend_so_far: number | null }> {
  const spent = k.spendLimit === null || k.spendLimitPeriod === null ? null : await keySpend(app.db, k.id, k.spendLimitPeriod, app.clock());
  return { ...view(k), spend_so_far: spent };
}

function teamKeyView(k: TeamApiKeyRecord) {
  return { ...keyView(k), team_id: k.teamId, created_by: k.userId };
}

/** A new key value and the prefix that identifies it in lists (the prefix plus four characters) without revealing it. */
function newKey(isTest: boolean): { key: string; prefix: string; keyHash: string } {
  const kind = isTest ? KEY_PREFIX_TEST : KEY_PREFIX_LIVE;
  const key = newSecret(kind);
  return { key, prefix: key.slice(0, kind.length + 4), keyHash: sha256Hex(key) };
}

export async function issueApiKey(app: App, userId: number, opts: { name: string; isTest: boolean; ipWhitelist: string[]; scopes?: readonly string[] | null; limits?: KeyLimits; restrictions?: KeyRestrictions }) {
  const { key, prefix, keyHash } = newKey(opts.isTest);
  const record = await insertApiKey(app.db, {
    userId, name: opts.name, prefix, keyHash, isTest: opts.isTest, ipWhitelist: opts.ipWhitelist, scopes: opts.scopes ?? null,
    ...(opts.limits ? { limits: opts.limits } : {}), ...(opts.restrictions ? { restrictions: opts.restrictions } : {}),
  }, app.clock());
  return { key, record };
}

function checkedWhitelist(list: string[] | undefined): string[] {
  if (list === undefined || list === null) return [];
  list.forEach((entry, i) => {
    if (!isAddressOrRange(entry)) throw new ValidationFailedError([{ loc: ['body', 'ip_whitelist', i], msg: 'Input should be an IP address or CIDR range', type: 'value_error' }]);
  });
  return list;
}

/** The scopes a new key gets: the creator's own, or null (all) when the creator holds all of them. */
function inheritedScopes(caller: OwnedCaller): string[] | null {
  return CODE_SCOPES.every((s) => caller.scopes.includes(s)) ? null : CODE_SCOPES.filter((s) => caller.scopes.includes(s));
}

/**
 * The new key's allow-list. A key created by an IP-restricted key inherits the restriction, or
 * narrows it: every entry it asks for must lie inside the parent's list.
 */
async function childWhitelist(app: App, caller: OwnedCaller, requested: string[]): Promise<string[]> {
  const parent = await presentingKey(app, caller);
  const limit = parent?.ipWhitelist ?? [];
  if (limit.length === 0) return requested;
  if (requested.length === 0) return limit;
  const outside = requested.filter((entry) => !rangeWithinAny(entry, limit));
  if (outside.length) throw new ForbiddenError(`an IP-restricted key may only create keys restricted within its own ip_whitelist; outside it: ${outside.join(' ')}`);
  return requested;
}

/**
 * The generation limits of a new key: what the body asks for (null or absent: the gateway's
 * defaults). A key created by a key never gets more than its creator: absent limits are inherited,
 * and a limit above the creator's (its own, or the default it runs under) is 403.
 */
function requestedLimits(app: App, caller: OwnedCaller, body: { rate_limit_per_minute?: number | null; max_concurrent?: number | null }): KeyLimits {
  const parent = caller.apiKeyId === null ? undefined : caller.keyLimits;
  if (!parent) return { rateLimitPerMinute: body.rate_limit_per_minute ?? null, maxConcurrent: body.max_concurrent ?? null };
  const defaults = app.config.generateRateLimit;
  const pick = (field: string, asked: number | null | undefined, own: number | null, fallback: number): number | null => {
    if (asked === undefined || asked === null) return own;
    const ceiling = own ?? fallback;
    if (ceiling > 0 && asked > ceiling) throw new ForbiddenError(`a key may not create a key with a higher ${field} than its own (${ceiling})`);
    return asked;
  };
  return {
    rateLimitPerMinute: pick('rate_limit_per_minute', body.rate_limit_per_minute, parent.rateLimitPerMinute, defaults.perKeyPerMinute),
    maxConcurrent: pick('max_concurrent', body.max_concurrent, parent.maxConcurrent, defaults.concurrentPerKey),
  };
}

/** POST /api/v1/keys and POST /app/generate-api-key (the same body and reply). */
export const createApiKey: Handler<'createApiKey'> & Handler<'generateApiKey'> = async ({ app, caller, body }) => {
  const name = body.name ?? '';
  const isTest = body.is_test === true;
  if (caller.isTest && !isTest) throw new ForbiddenError('a sandbox key may only create sandbox keys (is_test: true); use a production key or a session');
  const ipWhitelist = await childWhitelist(app, caller, checkedWhitelist(body.ip_whitelist));
  const restrictions = await newKeyRestrictions(app, caller, body);
  const { key, record } = await issueApiKey(app, caller.userId, { name, isTest, ipWhitelist, scopes: inheritedScopes(caller), limits: requestedLimits(app, caller, body), restrictions });
  // api_key: the one name every answer carrying a new key's secret uses; key: the same, kept for existing clients
  return { ...keyView(record), api_key: key, key };
};

/** GET /app/get_user_keys: the account's live keys, never their values. */
export const getUserKeys: Handler<'getUserKeys'> = async ({ app, caller }) => Promise.all((await listUserKeys(app.db, caller.userId)).map((k) => withSpend(app, k, keyView)));

/** DELETE /app/delete_api_keys/{key_id}: the key stops working on its next use. A sandbox key revokes only sandbox keys. */
export const deleteApiKey: Handler<'deleteApiKey'> = async ({ app, caller, params }) => {
  const id = params.key_id;
  if (!Number.isSafeInteger(id)) throw new NotFoundError('not found');
  if (caller.isTest) {
    const target = await findUserKey(app.db, caller.userId, id);
    if (target && !target.isTest) throw new ForbiddenError('a sandbox key may only revoke sandbox keys; use a production key or a session');
  }
  if (!(await revokeKey(app.db, caller.userId, id, app.clock()))) throw new NotFoundError('API key not found');
  // every API process drops it before this answer (README "Credential cache")
  await app.credentials.invalidate({ userIds: [caller.userId] });
  return { id, deleted: true };
};

/** The team the route bridge resolved from the path (`x-team-permission: manage_keys` checked membership and role). */
function pathTeam(caller: OwnedCaller): number {
  if (caller.owner.teamId === null) throw new NotFoundError('team not found');
  return caller.owner.teamId;
}

/** What a studio's user is told when they would get a team key's secret (created, or rotated: a new secret all the same). */
const TEAM_KEY_REFUSAL = 'a studio\'s users cannot create or rotate team API keys, which run models outside the studio';

/**
 * POST /app/teams/{team_id}/keys: a key that belongs to the team (generates on its wallet, keeps
 * working when its creator leaves). The same rules as a personal key: shown once, sandbox keys
 * create only sandbox keys, scopes and IP restriction are inherited from the creating credential.
 */
export const createTeamApiKey: Handler<'createTeamApiKey'> = async ({ app, caller, body, h, studio }) => {
  const teamId = pathTeam(caller);
  // a studio's user in a team from before they were refused one (handlers/teams.ts) makes no key for it
  await refuseStudioUser(app, caller, studio, TEAM_KEY_REFUSAL);
  const isTest = body.is_test === true;
  if (caller.isTest && !isTest) throw new ForbiddenError('a sandbox key may only create sandbox keys (is_test: true); use a production key or a session');
  const ipWhitelist = await childWhitelist(app, caller, checkedWhitelist(body.ip_whitelist));
  const restrictions = await newKeyRestrictions(app, caller, body);
  const { key, prefix, keyHash } = newKey(isTest);
  const record = await insertTeamApiKey(app.db, {
    teamId, createdBy: caller.userId, name: body.name ?? '', prefix, keyHash, isTest, ipWhitelist, scopes: inheritedScopes(caller), limits: requestedLimits(app, caller, body), restrictions,
  }, app.clock());
  app.log.info({ event: 'team_key_created', teamId, keyId: record.id, by: caller.userId }, 'teams: API key created');
  return h.response({ ...teamKeyView(record), api_key: key, key }).code(201);
};

/** GET /app/teams/{team_id}/keys: the team's live keys, never their values. */
export const listTeamApiKeys: Handler<'listTeamApiKeys'> = async ({ app, caller }) => Promise.all((await listTeamKeys(app.db, pathTeam(caller))).map((k) => withSpend(app, k, teamKeyView)));

/** DELETE /app/teams/{team_id}/keys/{key_id}: stops working on its next use. A sandbox key revokes only sandbox keys. */
export const revokeTeamApiKey: Handler<'revokeTeamApiKey'> = async ({ app, caller, params }) => {
  const teamId = pathTeam(caller);
  const id = params.key_id;
  if (!Number.isSafeInteger(id)) throw new NotFoundError('API key not found');
  if (caller.isTest) {
    const target = await findTeamKey(app.db, teamId, id);
    if (target && !target.isTest) throw new ForbiddenError('a sandbox key may only revoke sandbox keys; use a production key or a session');
  }
  if (!(await revokeTeamKey(app.db, teamId, id, app.clock()))) throw new NotFoundError('API key not found');
  await app.credentials.invalidate({ teamIds: [teamId] });
  app.log.info({ event: 'team_key_revoked', teamId, keyId: id, by: caller.userId }, 'teams: API key revoked');
  return { id, deleted: true };
};

/** The allow-list as stored: each entry normalised (lib/addresses.ts normaliseEntry), duplicates dropped; 422 naming the index of an invalid one. */
function normalisedWhitelist(list: string[]): string[] {
  const out: string[] = [];
  list.forEach((entry, i) => {
    const norm = normaliseEntry(entry);
    if (norm === null) throw new ValidationFailedError([{ loc: ['body', 'ip_whitelist', i], msg: 'Input should be an IP address or CIDR range', type: 'value_error' }]);
    if (!out.includes(norm)) out.push(norm);
  });
  return out;
}

/** The key presenting this request (a team's or the caller's own), or undefined for other credentials. */
export async function presentingKey(app: App, caller: OwnedCaller): Promise<ApiKeyRecord | undefined> {
  if (caller.apiKeyId === null) return undefined;
  return caller.keyTeamId !== undefined ? findTeamKey(app.db, caller.keyTeamId, caller.apiKeyId) : findUserKey(app.db, caller.userId, caller.apiKeyId);
}

/** The IP restriction of the key presenting this request ([] for other credentials, or an unrestricted key). */
async function presentingWhitelist(app: App, caller: OwnedCaller): Promise<string[]> {
  return (await presentingKey(app, caller))?.ipWhitelist ?? [];
}

const PERIOD_RANK = { month: 0, day: 1 } as const;

/** The restriction fields of APIKeyCreateRequest and APIKeyUpdateRequest. */
interface RestrictionBody {
  expires_at?: string | null;
  spend_limit?: number | null;
  spend_limit_period?: SpendPeriod;
}

type Restrictions = Pick<ApiKeyRecord, 'expiresAt' | 'spendLimit' | 'spendLimitPeriod'>;
const UNRESTRICTED: Restrictions = { expiresAt: null, spendLimit: null, spendLimitPeriod: null };

/**
 * `expires_at` of a body: a future instant (422 otherwise) or null. `bound` is the expiry a
 * credential may not exceed (its own, changing itself; its creator's, for a new key): then
 * null or a later instant is 403.
 */
function checkedExpiry(app: App, asked: string | null, bound: string | null, refusal: string): number | null {
  const at = asked === null ? null : Date.parse(asked);
  if (at !== null && (!Number.isFinite(at) || at <= app.clock())) {
    throw new ValidationFailedError([{ loc: ['body', 'expires_at'], msg: 'Input should be a date-time in the future', type: 'value_error' }]);
  }
  const limit = bound === null ? null : Date.parse(bound);
  if (limit !== null && (at === null || at > limit)) throw new ForbiddenError(refusal);
  return at;
}

/**
 * `spend_limit`/`spend_limit_period` of a body applied to `current` (a field absent keeps its
 * value): a limit needs a period (422). `bound` is the limit a credential may not exceed (as in
 * checkedExpiry): no limit, a higher amount, or a day's where the bound is a month's is 403.
 */
function checkedSpendLimit(body: RestrictionBody, current: Restrictions, bound: Restrictions | null, refusal: string): KeyRestrictions['spendLimit'] {
  const amount = body.spend_limit === undefined ? current.spendLimit : body.spend_limit;
  const period = body.spend_limit_period ?? current.spendLimitPeriod;
  const bounded = bound !== null && bound.spendLimit !== null && bound.spendLimitPeriod !== null ? { amount: bound.spendLimit, period: bound.spendLimitPeriod } : null;
  if (amount === null) {
    if (body.spend_limit_period !== undefined) throw new ValidationFailedError([{ loc: ['body', 'spend_limit_period'], msg: 'spend_limit_period needs a spend_limit', type: 'value_error' }]);
    if (bounded) throw new ForbiddenError(refusal);
    return null;
  }
  if (period === null) throw new ValidationFailedError([{ loc: ['body', 'spend_limit_period'], msg: 'Field required', type: 'missing' }]);
  if (bounded && (amount > bounded.amount || PERIOD_RANK[period] > PERIOD_RANK[bounded.period])) throw new ForbiddenError(refusal);
  return { amount, period };
}

/**
 * The expiry and spend limit of a new key (createApiKey, generateApiKey, createTeamApiKey),
 * validated as updateApiKey validates them. A key created by a key never outlives or outspends
 * it: absent fields inherit the creator's, and a wider value is 403.
 */
async function newKeyRestrictions(app: App, caller: OwnedCaller, body: RestrictionBody): Promise<KeyRestrictions> {
  const parent = caller.apiKeyId === null ? undefined : await presentingKey(app, caller);
  const bound: Restrictions | null = parent ?? null;
  const expiresAt = body.expires_at === undefined
    ? (bound?.expiresAt == null ? null : Date.parse(bound.expiresAt))
    : checkedExpiry(app, body.expires_at, bound?.expiresAt ?? null, `a key may not create a key that expires after it does (${bound?.expiresAt ?? ''}), or never`);
  const spendLimit = body.spend_limit === undefined && body.spend_limit_period === undefined
    ? (bound?.spendLimit != null && bound.spendLimitPeriod !== null ? { amount: bound.spendLimit, period: bound.spendLimitPeriod } : null)
    : checkedSpendLimit(body, UNRESTRICTED, bound, `a key may not create a key with a higher spend limit than its own (${bound?.spendLimit ?? ''} per ${bound?.spendLimitPeriod ?? ''}), or none`);
  return { expiresAt, spendLimit };
}

/**
 * The changes updateApiKey and updateTeamApiKey make to `target` (README "Key restrictions").
 * No credential widens itself: a call made with an IP-restricted key sets only lists inside its
 * own, never none; a key changing itself (`itself`) may only narrow its expiry and spend limit
 * (a month's limit is narrower than the same amount a day).
 */
async function keyUpdate(app: App, caller: OwnedCaller, target: ApiKeyRecord, itself: boolean, body: RestrictionBody & LimitsBody & { name?: string; ip_whitelist?: string[]; scopes?: string[]; soft_spend_limit?: number | null }): Promise<KeyUpdate> {
  if (caller.isTest && !target.isTest) throw new ForbiddenError('a sandbox key may only update sandbox keys; use a production key or a session');
  const update: KeyUpdate = {};
  if (body.name !== undefined) update.name = body.name;

  if (body.ip_whitelist !== undefined) {
    const list = normalisedWhitelist(body.ip_whitelist);
    const own = await presentingWhitelist(app, caller);
    if (own.length > 0) {
      if (list.length === 0) throw new ForbiddenError('an IP-restricted key may not remove an IP restriction; use a session or an unrestricted key');
      const outside = list.filter((entry) => !rangeWithinAny(entry, own));
      if (outside.length) throw new ForbiddenError(`an IP-restricted key may only set addresses within its own ip_whitelist; outside it: ${outside.join(' ')}`);
    }
    update.ipWhitelist = list;
  }

  if (body.expires_at !== undefined) {
    update.expiresAt = checkedExpiry(app, body.expires_at, itself ? target.expiresAt : null, 'a key may not remove or postpone its own expiry; use a session or another key');
  }
  if (body.spend_limit !== undefined || body.spend_limit_period !== undefined) {
    update.spendLimit = checkedSpendLimit(body, target, itself ? target : null,
      `a key may only lower its own spend limit (${target.spendLimit ?? ''} per ${target.spendLimitPeriod ?? ''}); use a session or another key`);
  }
  if (body.soft_spend_limit !== undefined) update.softSpendLimit = body.soft_spend_limit;
  if (body.rate_limit_per_minute !== undefined) update.rateLimitPerMinute = boundedLimit(app, caller, 'rate_limit_per_minute', body.rate_limit_per_minute);
  if (body.max_concurrent !== undefined) update.maxConcurrent = boundedLimit(app, caller, 'max_concurrent', body.max_concurrent);
  if (body.scopes !== undefined) update.scopes = narrowedScopes(target, body.scopes);
  return update;
}

/**
 * A key's scopes may only narrow: every scope asked for must be one it holds now (a key with all
 * of them may narrow to any). Widening would let whoever may edit a key (a session, a keys:manage
 * token) hand a key more than the token that made it had: make a new key instead. All of them is
 * stored as null, as at creation.
 */
function narrowedScopes(target: ApiKeyRecord, asked: string[]): string[] | null {
  const held: readonly string[] = target.scopes ?? CODE_SCOPES;
  const extra = asked.filter((s) => !held.includes(s));
  if (extra.length) throw new ForbiddenError(`a key's scopes may only be narrowed; it does not hold ${extra.join(', ')}: create a new key for more`);
  const kept = CODE_SCOPES.filter((s) => asked.includes(s));
  return kept.length === CODE_SCOPES.length ? null : kept;
}

interface LimitsBody {
  rate_limit_per_minute?: number | null;
  max_concurrent?: number | null;
}

/**
 * A generation limit set by an update. With an API key as the credential it may not exceed that
 * key's own limit (or the default it runs under); null means the gateway's default, which counts
 * as that default (0: none, above any limit). Sessions and tokens may set anything.
 */
function boundedLimit(app: App, caller: OwnedCaller, field: keyof LimitsBody, asked: number | null): number | null {
  const own = caller.apiKeyId === null ? undefined : caller.keyLimits;
  if (!own) return asked;
  const defaults = app.config.generateRateLimit;
  const fallback = field === 'rate_limit_per_minute' ? defaults.perKeyPerMinute : defaults.concurrentPerKey;
  const ceiling = (field === 'rate_limit_per_minute' ? own.rateLimitPerMinute : own.maxConcurrent) ?? fallback;
  const effective = asked ?? fallback;
  if (ceiling > 0 && (effective === 0 || effective > ceiling)) throw new ForbiddenError(`a key may not set a ${field} above its own (${ceiling}); use a session or another key`);
  return asked;
}

/** Rotation's grace when the body names none: a day. */
const DEFAULT_GRACE_SECONDS = 86_400;

/** A new secret for `target` in place; the replaced one works for the grace period. */
async function rotate(app: App, caller: OwnedCaller, owner: KeyOwner, target: ApiKeyRecord, graceSeconds: number) {
  if (caller.isTest && !target.isTest) throw new ForbiddenError('a sandbox key may only rotate sandbox keys; use a production key or a session');
  // A rotation answers the key's new secret: a caller holding fewer scopes than the key (a
  // keys:manage token, a key it made) would get a stronger credential than its own.
  refuseBeyondScopes(caller, target.scopes ?? CODE_SCOPES, 'rotating this key (the answer is its new secret)');
  const { key, prefix, keyHash } = newKey(target.isTest);
  const now = app.clock();
  // a team key's new secret is the rotator's to hold: they become its creator, whose removal revokes it
  const holder = 'teamId' in owner ? { holder: caller.userId } : {};
  const record = await rotateKey(app.db, owner, target.id, { prefix, keyHash, ...holder }, graceSeconds > 0 ? now + graceSeconds * 1000 : null, now);
  if (!record) throw new NotFoundError('API key not found');
  // committed: every API process forgets the old secret's cached entry (its grace is read afresh)
  await app.credentials.invalidate('teamId' in owner ? { teamIds: [owner.teamId] } : { userIds: [owner.userId] });
  return { record, key };
}

/** POST /app/api_keys/{key_id}/rotate */
export const rotateApiKey: Handler<'rotateApiKey'> = async ({ app, caller, params, body }) => {
  const id = params.key_id;
  if (!Number.isSafeInteger(id)) throw new NotFoundError('API key not found');
  const target = await findUserKey(app.db, caller.userId, id);
  if (!target) throw new NotFoundError('API key not found');
  const { record, key } = await rotate(app, caller, { userId: caller.userId }, target, body.grace_seconds ?? DEFAULT_GRACE_SECONDS);
  return { ...keyView(record), api_key: key, key, grace_until: record.previousValidUntil };
};

/** POST /app/teams/{team_id}/keys/{key_id}/rotate (`manage_keys`, checked by the route bridge) */
export const rotateTeamApiKey: Handler<'rotateTeamApiKey'> = async ({ app, caller, params, body, studio }) => {
  const teamId = pathTeam(caller);
  // a rotation hands out a new secret of the team's key: refused to a studio's user as creating one is
  await refuseStudioUser(app, caller, studio, TEAM_KEY_REFUSAL);
  const id = params.key_id;
  if (!Number.isSafeInteger(id)) throw new NotFoundError('API key not found');
  const target = await findTeamKey(app.db, teamId, id);
  if (!target) throw new NotFoundError('API key not found');
  const { record, key } = await rotate(app, caller, { teamId }, target, body.grace_seconds ?? DEFAULT_GRACE_SECONDS);
  app.log.info({ event: 'team_key_rotated', teamId, keyId: id, by: caller.userId }, 'teams: API key rotated');
  return { ...teamKeyView({ ...record, teamId }), api_key: key, key, grace_until: record.previousValidUntil };
};

/** PUT /app/update_api_key/{key_id}: name, IP restriction, expiry and spend limit of a personal key. */
export const updateApiKey: Handler<'updateApiKey'> = async ({ app, caller, params, body }) => {
  const id = params.key_id;
  if (!Number.isSafeInteger(id)) throw new NotFoundError('API key not found');
  const target = await findUserKey(app.db, caller.userId, id);
  if (!target) throw new NotFoundError('API key not found');
  const itself = caller.apiKeyId === id && caller.keyTeamId === undefined;
  const updated = await updateUserKey(app.db, caller.userId, id, await keyUpdate(app, caller, target, itself, body));
  if (!updated) throw new NotFoundError('API key not found');
  await app.credentials.invalidate({ userIds: [caller.userId] });
  forgetKeySoftLimit(app, id);
  // the key as listed: with what it has spent in its limit's current period
  return withSpend(app, updated, keyView);
};

/** PATCH /app/teams/{team_id}/keys/{key_id}: updateApiKey for a key of the team (`manage_keys`, checked by the route bridge). */
export const updateTeamApiKey: Handler<'updateTeamApiKey'> = async ({ app, caller, params, body }) => {
  const teamId = pathTeam(caller);
  const id = params.key_id;
  if (!Number.isSafeInteger(id)) throw new NotFoundError('API key not found');
  const target = await findTeamKey(app.db, teamId, id);
  if (!target) throw new NotFoundError('API key not found');
  const itself = caller.apiKeyId === id && caller.keyTeamId === teamId;
  const updated = await updateTeamKey(app.db, teamId, id, await keyUpdate(app, caller, target, itself, body));
  if (!updated) throw new NotFoundError('API key not found');
  await app.credentials.invalidate({ teamIds: [teamId] });
  forgetKeySoftLimit(app, id);
  app.log.info({ event: 'team_key_updated', teamId, keyId: id, by: caller.userId }, 'teams: API key updated');
  return withSpend(app, { ...updated, teamId }, teamKeyView);
};
