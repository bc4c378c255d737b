// OAuth clients (issue 5): owned by a user, secret stored as a SHA-256 digest, soft-deleted so
// that a revoked client_id never authenticates again.
import type { Db } from './knex.ts';
import { affected, iso, jsonOr, num, numOrNull } from './knex.ts';

export interface OAuthClientRecord {
  id: number;
  userId: number;
  clientId: string;
  secretHash: string;
  name: string;
  allowedScopes: string[];
  createdAt: string;
  deletedAt: number | null;
}

interface OAuthClientRow {
  id: number;
  user_id: number;
  client_id: string;
  secret_hash: string;
  name: string;
  allowed_scopes: string;
  created_at: number | string;
  deleted_at: number | string | null;
}

function toRecord(r: OAuthClientRow): OAuthClientRecord {
  return {
    id: num(r.id),
    userId: num(r.user_id),
    clientId: r.client_id,
    secretHash: r.secret_hash,
    name: r.name,
    allowedScopes: jsonOr<string[]>(r.allowed_scopes, []),
    createdAt: iso(r.created_at),
    deletedAt: numOrNull(r.deleted_at),
  };
}

export async function insertOAuthClient(
  db: Db,
  c: { userId: number; clientId: string; secretHash: string; name: string; allowedScopes: readonly string[] },
  now: number,
): Promise<OAuthClientRecord> {
  const [id] = await db('oauth_clients').insert({
    user_id: c.userId,
    client_id: c.clientId,
    secret_hash: c.secretHash,
    name: c.name,
    allowed_scopes: JSON.stringify(c.allowedScopes),
    created_at: now,
  });
  const row = await db<OAuthClientRow>('oauth_clients').where({ id }).first();
  return toRecord(row!);
}

/** The caller's live clients, newest first. */
export async function listUserOAuthClients(db: Db, userId: number): Promise<OAuthClientRecord[]> {
  const rows = await db<OAuthClientRow>('oauth_clients').where({ user_id: userId }).whereNull('deleted_at').orderBy('id', 'desc');
  return rows.map(toRecord);
}

/** A live (not deleted) client by its public client_id. */
export async function findLiveOAuthClient(db: Db, clientId: string): Promise<OAuthClientRecord | null> {
  // A client of an account scheduled for deletion is refused like a deleted one (README "Deleting an account").
  const row = await db('oauth_clients').join('users', 'users.id', 'oauth_clients.user_id')
    .select<OAuthClientRow[]>('oauth_clients.*')
    .where('oauth_clients.client_id', clientId).whereNull('oauth_clients.deleted_at').whereNull('users.deletion_requested_at')
    .first();
  return row ? toRecord(row) : null;
}

/**
 * A client that is not deleted, for an access token of it: with whether its owner's account is
 * scheduled for deletion (its tokens are refused meanwhile, and work again after a cancel).
 */
export async function findTokenClient(db: Db, clientId: string): Promise<{ client: OAuthClientRecord; ownerDeletionPending: boolean } | null> {
  const row = await db('oauth_clients').join('users', 'users.id', 'oauth_clients.user_id')
    .select<Array<OAuthClientRow & { deletion_requested_at: number | string | null }>>('oauth_clients.*', 'users.deletion_requested_at')
    .where('oauth_clients.client_id', clientId).whereNull('oauth_clients.deleted_at')
    .first();
  return row ? { client: toRecord(row), ownerDeletionPending: row.deletion_requested_at !== null } : null;
}

/**
 * Marks the owner's client deleted and destroys every stored token of it, in one transaction.
 * Returns false when no live client with that id belongs to the user.
 */
export async function deleteOAuthClient(db: Db, userId: number, id: number, now: number): Promise<boolean> {
  return db.transaction(async (trx) => {
    const row = await trx<OAuthClientRow>('oauth_clients').where({ id, user_id: userId }).whereNull('deleted_at').first();
    if (!row) return false;
    const updated = affected(await trx('oauth_clients').where({ id }).whereNull('deleted_at').update({ deleted_at: now }));
    if (updated === 0) return false;
    await trx('oauth_provider_records').where({ client_id: row.client_id }).delete();
    return true;
  });
}
