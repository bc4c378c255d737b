// lib/credential-cache.ts: the rules that keep a stale key out of the cache (README "Credential cache").
import test from 'ava';
import { createCredentialCache } from '../../lib/credential-cache.ts';

type V = { userId: number; teamId: number | null; v: string };
let now = 0;
const fresh = (until = Infinity) => createCredentialCache<V>({ maxEntries: 2, maxAgeMs: 1000, monotonic: () => now, until });
const yes = () => true;

test.serial('a lookup that began before an invalidation and ends after it is not stored', async (t) => {
  const c = fresh();
  let release!: (v: V) => void;
  const pending = c.lookup('k', () => new Promise<V>((r) => { release = r; }), yes);
  c.drop({ userIds: [99] });
  release({ userId: 1, teamId: null, v: 'old' });
  t.is((await pending)?.v, 'old');
  t.is(c.size, 0);
  let loads = 0;
  await c.lookup('k', async () => { loads++; return { userId: 1, teamId: null, v: 'new' }; }, yes);
  t.is((await c.lookup('k', async () => { loads++; return undefined; }, yes))?.v, 'new');
  t.is(loads, 1, 'stored once no invalidation raced it');
});

test.serial('invalidation drops a user\'s and a team\'s entries only; least recently used go first; entries age out', async (t) => {
  now = 0;
  const c = fresh();
  await c.lookup('a', async () => ({ userId: 1, teamId: null, v: 'a' }), yes);
  await c.lookup('b', async () => ({ userId: 2, teamId: 7, v: 'b' }), yes);
  c.drop({ teamIds: [7] });
  t.is(c.size, 1);
  await c.lookup('b', async () => ({ userId: 2, teamId: 7, v: 'b' }), yes);
  await c.lookup('a', async () => undefined, yes); // a is now the most recent
  await c.lookup('c', async () => ({ userId: 3, teamId: null, v: 'c' }), yes);
  t.is(c.size, 2);
  t.is((await c.lookup('b', async () => undefined, yes)), undefined, 'b was evicted');
  now = 1000;
  t.is((await c.lookup('a', async () => undefined, yes)), undefined, 'a aged out');
});

test.serial('nothing is served or stored after the deadline; a grant after a lapse starts empty; an uncacheable value is not stored', async (t) => {
  now = 0;
  const c = fresh(100);
  await c.lookup('a', async () => ({ userId: 1, teamId: null, v: 'a' }), yes);
  await c.lookup('x', async () => ({ userId: 1, teamId: null, v: 'x' }), () => false);
  t.is(c.size, 1);
  now = 100;
  t.false(c.serving);
  t.is((await c.lookup('a', async () => ({ userId: 1, teamId: null, v: 'db' }), yes))?.v, 'db', 'read afresh');
  c.grant(300);
  t.is(c.size, 0, 'emptied: an invalidation may have passed it by while it lapsed');
  c.withdraw();
  t.false(c.serving);
});
