// Signing secrets are read once per owner (an account, or a team for its predictions) every few
// seconds, not once per delivery. Another process may see a rotation a few seconds late, which
// is harmless: the previous secret keeps signing for 24 hours. This process forgets at once (the
// rotate handler calls forgetSecrets).
import type { Db } from '../../db/knex.ts';
import type { Owner } from '../../db/owner.ts';
import { activeSecrets } from '../../db/webhooks.ts';
import { ownerKey } from '../../lib/caller.ts';

const TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;
const cache = new Map<string, { at: number; secrets: string[] }>();

export async function signingSecrets(db: Db, owner: Owner, key: Buffer, now: number): Promise<string[]> {
  // a team's secrets are the team's whichever member submitted: the key names the team alone
  const k = ownerKey(owner);
  const hit = cache.get(k);
  if (hit && now - hit.at < TTL_MS) return hit.secrets;
  const secrets = (await activeSecrets(db, owner, key, now)).map((s) => s.secret);
  if (cache.size >= MAX_ENTRIES) cache.clear();
  cache.set(k, { at: now, secrets });
  return secrets;
}

export function forgetSecrets(owner: Owner): void {
  cache.delete(ownerKey(owner));
}
