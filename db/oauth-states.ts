// The server-side half of a pending OpenID authorization request (state -> nonce, PKCE
// verifier). In the database because the callback may reach any API process; single use.
import type { Db } from './knex.ts';
import { affected } from './knex.ts';
import { purgeSomeExpired } from './retention.ts';

export const AUTH_REQUEST_TTL_MS = 10 * 60 * 1000;

export interface PendingAuthRequest {
  nonce: string;
  codeVerifier: string;
  /** the whitelabel studio the sign-in started in; null: outside every studio */
  studioId: number | null;
  /** started with `session=cookie`: the dashboard page to send the browser to, with the session cookie set; null: answer the session as JSON */
  returnTo: string | null;
}

export async function savePendingAuthRequest(db: Db, stateHash: string, req: PendingAuthRequest, now: number): Promise<void> {
  await db('oauth_states').insert({ state_hash: stateHash, nonce: req.nonce, code_verifier: req.codeVerifier, studio_id: req.studioId, return_to: req.returnTo, created_at: now, expires_at: now + AUTH_REQUEST_TTL_MS });
  // abandoned requests are cleared as new ones arrive, a few at a time and never failing the sign-in (the retention job removes the rest)
  await purgeSomeExpired(db, 'oauth_states', 'state_hash', now);
}

/** Removes and returns the pending request for this state; undefined when unknown, expired or already used. */
export async function takePendingAuthRequest(db: Db, stateHash: string, now: number): Promise<PendingAuthRequest | undefined> {
  const row = await db('oauth_states').select('nonce', 'code_verifier', 'studio_id', 'return_to', 'expires_at').where({ state_hash: stateHash })
    .first<{ nonce: string; code_verifier: string; studio_id: number | string | null; return_to: string | null; expires_at: number | string } | undefined>();
  if (!row) return undefined;
  // Whoever deletes the row owns it: two callbacks racing on one state cannot both proceed.
  if (affected(await db('oauth_states').where({ state_hash: stateHash }).delete()) !== 1) return undefined;
  if (Number(row.expires_at) <= now) return undefined;
  return { nonce: row.nonce, codeVerifier: row.code_verifier, studioId: row.studio_id === null ? null : Number(row.studio_id), returnTo: row.return_to ?? null };
}
