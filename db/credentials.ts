// Everything that lets a program act for an account, taken back at once (issue 16: "sign out
// everywhere" on a password reset), and the take-back of an account from whoever registered it
// without proving the address, which also ends what they set up to spend its wallet or hear about it.
import type { Db } from './knex.ts';
import { affected } from './knex.ts';
import { replaceAllSecrets } from './webhooks.ts';
import { setPasswordHash } from './users.ts';
import { revokeUserSessions } from './sessions.ts';
import { unlinkIdentities } from './identities.ts';
import { revokePersonalEmbedCodes } from './embed-codes.ts';
import { disablePersonalStudios } from './studios.ts';
import { listMyTeams, revokeInvitesSentBy } from './teams.ts';
import { removeAlertWebhookUrl } from './alerts.ts';

export interface RevokedCredentials {
  apiKeys: number;
  oauthClients: number;
  /** personal embed and agent embed codes revoked */
  embedCodes: number;
}

/**
 * Inside the caller's transaction: revokes every API key (production and sandbox) and every
 * personal embed and agent embed code (each spends the wallet), deletes every OAuth client and
 * destroys its tokens, and replaces the webhook signing secrets (production and sandbox) with no
 * overlap, so whoever held an old one can no longer forge or verify this account's deliveries.
 */
export async function revokeAllCredentials(trx: Db, userId: number, encryptionKey: Buffer, now: number): Promise<RevokedCredentials> {
  const apiKeys = affected(await trx('api_keys').where('user_id', userId).whereNull('revoked_at').update({ revoked_at: now }));
  const clients = await trx('oauth_clients').where('user_id', userId).whereNull('deleted_at').select<Array<{ client_id: string }>>('client_id');
  if (clients.length) {
    const ids = clients.map((c) => c.client_id);
    await trx('oauth_clients').whereIn('client_id', ids).whereNull('deleted_at').update({ deleted_at: now });
    await trx('oauth_provider_records').whereIn('client_id', ids).delete();
  }
  const embedCodes = await revokePersonalEmbedCodes(trx, userId, now);
  await replaceAllSecrets(trx, { userId, teamId: null }, encryptionKey, now);
  return { apiKeys, oauthClients: clients.length, embedCodes };
}

/** What a take-back ended, for the answer and the audit event. */
export interface TakenBack extends RevokedCredentials {
  sessionsEnded: number;
  identitiesUnlinked: number;
  /** personal studios disabled */
  studios: number;
  /** pending team invites the account had sent, revoked */
  invites: number;
  alertWebhookRemoved: boolean;
  /** live teams the account belongs to: each is its own tenant, whose keys, codes and studios stay */
  teams: number;
}

/**
 * Takes an account back, inside the caller's transaction, from whoever registered it without
 * proving the address, for its owner who just has (a first sign-in by code, a reset, or a Google
 * sign-in with the verified address). Everything they could have set up goes: the password
 * (replaced by `passwordHash`, or removed), every session, every Google identity linked so far,
 * every credential (revokeAllCredentials: its personal embed and agent embed codes among them),
 * and what else spends the account's wallet or tells about it: its personal studios (their users' runs, which an
 * owner_pays studio charges to the account), the pending team invites it sent, and its alert
 * webhook URL (thresholds and budget stay). A team's own codes, studios and keys are the team's
 * and stay. Every path that takes an account back calls this, so none leaves a part out; after
 * the commit, the caller drops what processes cached (handlers/take-back.ts afterTakeBack).
 */
export async function takeBackAccount(trx: Db, userId: number, opts: { passwordHash: string | null; encryptionKey: Buffer; now: number }): Promise<TakenBack> {
  const { now } = opts;
  const sessionsEnded = await revokeUserSessions(trx, userId, now);
  const identitiesUnlinked = await unlinkIdentities(trx, userId);
  const revoked = await revokeAllCredentials(trx, userId, opts.encryptionKey, now);
  const studios = await disablePersonalStudios(trx, userId, now);
  const invites = await revokeInvitesSentBy(trx, userId, now);
  const alertWebhookRemoved = await removeAlertWebhookUrl(trx, { userId, teamId: null });
  await setPasswordHash(trx, userId, opts.passwordHash);
  const teams = (await listMyTeams(trx, userId)).length;
  return { ...revoked, sessionsEnded, identitiesUnlinked, studios, invites, alertWebhookRemoved, teams };
}
