// The per-process cache of API-key lookups (README "Credential cache"). Transport-free: whether
// the cache may be used at all is decided by its owner, which grants it a deadline (the lease and
// the broadcast consumer, workers/queue/amqp/credential-broadcast.ts; or forever in the embedded one-process
// default). Two rules make a stale entry impossible once an invalidation has been applied here:
// - an entry is stored only if no invalidation (nor a new grant after a lapse) happened since its
//   database read began (the generation), so a read that raced a write cannot refill the old row;
// - an entry is served only before the deadline (checked on every lookup against a monotonic
//   clock), and a grant after a lapse, or a withdrawal, empties the cache first.
import type { Role } from './caller.ts';

/** What an invalidation names: the keys of these users (personal keys and the team keys they created) and of these teams. */
export interface CredentialTarget {
  userIds?: readonly number[];
  teamIds?: readonly number[];
}

/** Whose key a cached entry is: for matching invalidations. */
export interface EntryOwner {
  userId: number;
  teamId: number | null;
}

/** What the api-key scheme reads of a key (db/api-keys.ts findActiveKeyByHash): nothing that changes per request (no balance). */
export interface CachedApiKey extends EntryOwner {
  id: number;
  isTest: boolean;
  ipWhitelist: string[];
  scopes: string[] | null;
  rateLimitPerMinute: number | null;
  maxConcurrent: number | null;
  expiresAt: string | null;
  spendLimit: number | null;
  ownerRole: Role;
  ownerDeletionPending: boolean;
  ownerStudioId: number | null;
  ownerDiscounts: number;
  /** the secret presented is the one a rotation replaced: `expiresAt` is the end of its grace period */
  retiredSecret?: true;
}

/** An app's credential cache: the key cache (null: CREDENTIAL_CACHE off, or a worker process) and the invalidation every write of a key's validity calls. */
export interface CredentialCaches extends CredentialInvalidator {
  keys: CredentialCache<CachedApiKey> | null;
  /** the broadcast's AMQP channel while connected (null: none, or no RabbitMQ); tests close it */
  channel(): { close(): Promise<void> } | null;
}

/** Drops every cached key of the target in every API process before it resolves (README "Credential cache"). */
export interface CredentialInvalidator {
  invalidate(target: CredentialTarget): Promise<void>;
}

export interface CredentialCache<V extends EntryOwner> {
  /** the cached value, or the loader's (stored when cacheable and no invalidation ran meanwhile) */
  lookup(key: string, load: () => Promise<V | undefined>, cacheable: (v: V) => boolean): Promise<V | undefined>;
  /** drops the target's entries here (and makes reads in flight unstorable); null: every entry */
  drop(target: CredentialTarget | null): void;
  /** entries may be served and stored until `until` (the monotonic clock's ms); after a lapse the cache is emptied first */
  grant(until: number): void;
  /** no more serving from the cache, which is emptied */
  withdraw(): void;
  readonly serving: boolean;
  readonly size: number;
}

interface Entry<V> {
  value: V;
  at: number;
}

/**
 * A Map-based LRU (a Map iterates in insertion order: a hit re-inserts its key at the end, the
 * oldest is the first). `maxAgeMs` bounds how long an entry lives even if it is never invalidated.
 */
export function createCredentialCache<V extends EntryOwner>(opts: { maxEntries: number; maxAgeMs: number; monotonic: () => number; until: number }): CredentialCache<V> {
  const entries = new Map<string, Entry<V>>();
  let generation = 0;
  let deadline = opts.until;
  const valid = () => opts.monotonic() < deadline;

  function clear(): void {
    entries.clear();
    generation++;
  }

  return {
    get serving() { return valid(); },
    get size() { return entries.size; },
    async lookup(key, load, cacheable) {
      if (valid()) {
        const hit = entries.get(key);
        if (hit && opts.monotonic() - hit.at < opts.maxAgeMs) {
          entries.delete(key);
          entries.set(key, hit);
          return hit.value;
        }
        if (hit) entries.delete(key);
      }
      const gen = generation;
      const at = opts.monotonic();
      const value = await load();
      if (value !== undefined && valid() && gen === generation && cacheable(value)) {
        entries.set(key, { value, at });
        if (entries.size > opts.maxEntries) entries.delete(entries.keys().next().value!);
      }
      return value;
    },
    drop(target) {
      if (target === null) return clear();
      generation++;
      const users = new Set(target.userIds ?? []);
      const teams = new Set(target.teamIds ?? []);
      for (const [k, e] of entries) {
        if (users.has(e.value.userId) || (e.value.teamId !== null && teams.has(e.value.teamId))) entries.delete(k);
      }
    },
    grant(until) {
      if (!valid()) clear();
      deadline = until;
    },
    withdraw() {
      deadline = -Infinity;
      clear();
    },
  };
}
