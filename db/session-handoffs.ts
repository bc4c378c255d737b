// Single-use hand-offs of a Google sign-in from the gateway's address to a studio's own domain
// (handlers/google.ts): the code's SHA-256, whose account, for which studio, for one minute.
import type { Db } from './knex.ts';
import { affected } from './knex.ts';
import { purgeSomeExpired } from './retention.ts';

export const HANDOFF_TTL_MS = 60 * 1000;

export interface SessionHandoff {
  userId: number;
  studioId: number;
}

export async function saveHandoff(db: Db, codeHash: string, h: SessionHandoff, now: number): Promise<void> {
  await db('session_handoffs').insert({ code_hash: codeHash, user_id: h.userId, studio_id: h.studioId, expires_at: now + HANDOFF_TTL_MS });
  // abandoned hand-offs are cleared as new ones arrive, a few at a time and never failing the sign-in (the retention job removes the rest)
  await purgeSomeExpired(db, 'session_handoffs', 'code_hash', now);
}

/** Removes and returns the hand-off for this code; undefined when unknown, expired or already used. */
export async function takeHandoff(db: Db, codeHash: string, now: number): Promise<SessionHandoff | undefined> {
  const row = await db('session_handoffs').select('user_id', 'studio_id', 'expires_at').where({ code_hash: codeHash })
    .first<{ user_id: number | string; studio_id: number | string; expires_at: number | string } | undefined>();
  if (!row) return undefined;
  // whoever deletes the row owns it: two requests racing on one code cannot both sign in
  if (affected(await db('session_handoffs').where({ code_hash: codeHash }).delete()) !== 1) return undefined;
  if (Number(row.expires_at) <= now) return undefined;
  return { userId: Number(row.user_id), studioId: Number(row.studio_id) };
}
