// Everything that lets a program act for an account, taken back at once (issue 16: an account
// taken back from whoever pre-registered it, or "sign out everywhere" on a password reset).
// Login sessions are ended by the callers, which already do so (db/sessions.ts).
import type { Db } from './knex.ts';
import { affected } from './knex.ts';
import { replaceSecret } from './webhooks.ts';

export interface RevokedCredentials {
  apiKeys: number;
  oauthClients: number;
}

/**
 * Inside the caller's transaction: revokes every API key (production and sandbox), deletes every
 * OAuth client and destroys its tokens, and replaces the webhook signing secret with no overlap,
 * so whoever held the old one can no longer forge or verify this account's deliveries.
 */
export async function revokeAllCredentials(trx: Db, userId: number, encryptionKey: Buffer, now: number): Promise<RevokedCredentials> {
  const apiKeys = affected(await trx('api_keys').where('user_id', userId).whereNull('revoked_at').update({ revoked_at: now }));
  const clients = await trx('oauth_clients').where('user_id', userId).whereNull('deleted_at').select<Array<{ client_id: string }>>('client_id');
  if (clients.length) {
    const ids = clients.map((c) => c.client_id);
    await trx('oauth_clients').whereIn('client_id', ids).whereNull('deleted_at').update({ deleted_at: now });
    await trx('oauth_provider_records').whereIn('client_id', ids).delete();
  }
  await replaceSecret(trx, { userId, teamId: null }, encryptionKey, now, { keepPrevious: false });
  return { apiKeys, oauthClients: clients.length };
}
