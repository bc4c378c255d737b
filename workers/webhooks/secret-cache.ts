// Signing secrets are read once per account every few seconds, not once per delivery. Another
// process may see a rotation a few seconds late, which is harmless: the previous secret keeps
// signing for 24 hours. This process forgets at once (the rotate handler calls forgetSecrets).
import type { Db } from '../../db/knex.ts';
import { activeSecrets } from '../../db/webhooks.ts';

const TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;
const cache = new Map<number, { at: number; secrets: string[] }>();

export async function signingSecrets(db: Db, userId: number, key: Buffer, now: number): Promise<string[]> {
  const hit = cache.get(userId);
  if (hit && now - hit.at < TTL_MS) return hit.secrets;
  const secrets = (await activeSecrets(db, userId, key, now)).map((s) => s.secret);
  if (cache.size >= MAX_ENTRIES) cache.clear();
  cache.set(userId, { at: now, secrets });
  return secrets;
}

export function forgetSecrets(userId: number): void {
  cache.delete(userId);
}
