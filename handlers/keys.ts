// API keys: created with a session, another key or a keys:manage token, shown once, stored as
// SHA-256 digests. No credential mints a stronger one (issue 16): a child key carries at most its
// creator's scopes and IP restriction, and a sandbox key creates and revokes only sandbox keys.
import { isAddressOrRange, rangeWithinAny } from '../plugins/addresses.ts';
import { ALL_SCOPES } from '../plugins/auth.ts';
import type { Caller } from '../plugins/auth.ts';
import type { App } from '../app.ts';
import type { Handler, HandlerContext } from './types.ts';
import { httpError, validationError } from '../plugins/errors.ts';
import { findUserKey, insertApiKey, listUserKeys, revokeKey } from '../db/api-keys.ts';
import type { ApiKeyRecord } from '../db/api-keys.ts';
import { KEY_PREFIX_LIVE, KEY_PREFIX_TEST, newSecret, sha256Hex } from '../db/secrets.ts';
import { integerParam, requireCaller } from './guards.ts';

export function keyView(k: ApiKeyRecord) {
  return { id: k.id, name: k.name, prefix: k.prefix, is_test: k.isTest, ip_whitelist: k.ipWhitelist, scopes: k.scopes, created_at: k.createdAt, last_used_at: k.lastUsedAt };
}

export async function issueApiKey(app: App, userId: number, opts: { name: string; isTest: boolean; ipWhitelist: string[]; scopes?: readonly string[] | null }) {
  const key = newSecret(opts.isTest ? KEY_PREFIX_TEST : KEY_PREFIX_LIVE);
  // The prefix plus four characters identifies a key in lists without revealing it.
  const prefix = key.slice(0, (opts.isTest ? KEY_PREFIX_TEST : KEY_PREFIX_LIVE).length + 4);
  const record = await insertApiKey(app.db, { userId, name: opts.name, prefix, keyHash: sha256Hex(key), isTest: opts.isTest, ipWhitelist: opts.ipWhitelist, scopes: opts.scopes ?? null }, app.clock());
  return { key, record };
}

function checkedWhitelist(raw: unknown): string[] {
  if (raw === undefined || raw === null) return [];
  const list = raw as string[];
  list.forEach((entry, i) => {
    if (!isAddressOrRange(entry)) throw validationError([{ loc: ['body', 'ip_whitelist', i], msg: 'Input should be an IP address or CIDR range', type: 'value_error' }]);
  });
  return list;
}

/** The scopes a new key gets: the creator's own, or null (all) when the creator holds all of them. */
function inheritedScopes(caller: Caller): string[] | null {
  return ALL_SCOPES.every((s) => caller.scopes.includes(s)) ? null : ALL_SCOPES.filter((s) => caller.scopes.includes(s));
}

/**
 * The new key's allow-list. A key created by an IP-restricted key inherits the restriction, or
 * narrows it: every entry it asks for must lie inside the parent's list.
 */
async function childWhitelist(ctx: HandlerContext, caller: Caller, requested: string[]): Promise<string[]> {
  if (caller.apiKeyId === null) return requested;
  const parent = await findUserKey(ctx.app.db, caller.userId, caller.apiKeyId);
  const limit = parent?.ipWhitelist ?? [];
  if (limit.length === 0) return requested;
  if (requested.length === 0) return limit;
  const outside = requested.filter((entry) => !rangeWithinAny(entry, limit));
  if (outside.length) throw httpError(403, `an IP-restricted key may only create keys restricted within its own ip_whitelist; outside it: ${outside.join(' ')}`);
  return requested;
}

/** POST /api/v1/keys and POST /app/generate-api-key. */
export const createApiKey: Handler = async (ctx) => {
  const caller = requireCaller(ctx);
  const name = typeof ctx.body.name === 'string' ? ctx.body.name : '';
  const isTest = ctx.body.is_test === true;
  if (caller.isTest && !isTest) throw httpError(403, 'a sandbox key may only create sandbox keys (is_test: true); use a production key or a session');
  const ipWhitelist = await childWhitelist(ctx, caller, checkedWhitelist(ctx.body.ip_whitelist));
  const { key, record } = await issueApiKey(ctx.app, caller.userId, { name, isTest, ipWhitelist, scopes: inheritedScopes(caller) });
  return { ...keyView(record), key };
};

export const getUserKeys: Handler = async (ctx) => {
  const caller = requireCaller(ctx);
  return (await listUserKeys(ctx.app.db, caller.userId)).map(keyView);
};

/** DELETE /app/delete_api_keys/{key_id}: the key stops working on its next use. A sandbox key revokes only sandbox keys. */
export const deleteApiKey: Handler = async (ctx) => {
  const caller = requireCaller(ctx);
  const id = integerParam(ctx, 'key_id');
  if (caller.isTest) {
    const target = await findUserKey(ctx.app.db, caller.userId, id);
    if (target && !target.isTest) throw httpError(403, 'a sandbox key may only revoke sandbox keys; use a production key or a session');
  }
  if (!(await revokeKey(ctx.app.db, caller.userId, id, ctx.app.clock()))) throw httpError(404, 'API key not found');
  return { id, deleted: true };
};
