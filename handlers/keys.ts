// API keys: created with a session or another key, shown once, stored as SHA-256 digests.
import { isAddressOrRange } from '../plugins/addresses.ts';
import type { App } from '../app.ts';
import type { Handler } from './types.ts';
import { httpError, validationError } from '../plugins/errors.ts';
import { insertApiKey, listUserKeys, revokeKey } from '../db/api-keys.ts';
import type { ApiKeyRecord } from '../db/api-keys.ts';
import { KEY_PREFIX_LIVE, KEY_PREFIX_TEST, newSecret, sha256Hex } from '../db/secrets.ts';
import { integerParam, requireCaller } from './guards.ts';

export function keyView(k: ApiKeyRecord) {
  return { id: k.id, name: k.name, prefix: k.prefix, is_test: k.isTest, ip_whitelist: k.ipWhitelist, created_at: k.createdAt, last_used_at: k.lastUsedAt };
}

export async function issueApiKey(app: App, userId: number, opts: { name: string; isTest: boolean; ipWhitelist: string[] }) {
  const key = newSecret(opts.isTest ? KEY_PREFIX_TEST : KEY_PREFIX_LIVE);
  // The prefix plus four characters identifies a key in lists without revealing it.
  const prefix = key.slice(0, (opts.isTest ? KEY_PREFIX_TEST : KEY_PREFIX_LIVE).length + 4);
  const record = await insertApiKey(app.db, { userId, name: opts.name, prefix, keyHash: sha256Hex(key), isTest: opts.isTest, ipWhitelist: opts.ipWhitelist }, app.clock());
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

/** POST /api/v1/keys and POST /app/generate-api-key. */
export const createApiKey: Handler = async (ctx) => {
  const caller = requireCaller(ctx);
  const name = typeof ctx.body.name === 'string' ? ctx.body.name : '';
  const { key, record } = await issueApiKey(ctx.app, caller.userId, {
    name,
    isTest: ctx.body.is_test === true,
    ipWhitelist: checkedWhitelist(ctx.body.ip_whitelist),
  });
  return { ...keyView(record), key };
};

export const getUserKeys: Handler = async (ctx) => {
  const caller = requireCaller(ctx);
  return (await listUserKeys(ctx.app.db, caller.userId)).map(keyView);
};

/** DELETE /app/delete_api_keys/{key_id}: the key stops working on its next use. */
export const deleteApiKey: Handler = async (ctx) => {
  const caller = requireCaller(ctx);
  const id = integerParam(ctx, 'key_id');
  if (!(await revokeKey(ctx.app.db, caller.userId, id, ctx.app.clock()))) throw httpError(404, 'API key not found');
  return { id, deleted: true };
};
