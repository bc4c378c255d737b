// Starting a Google sign-in (db/oauth-states.ts savePendingAuthRequest) and handing one over to a
// studio's domain (db/session-handoffs.ts saveHandoff) each clear expired rows as a new one
// arrives. On MariaDB that purge was one DELETE over the expiry index ahead of the INSERT, and it
// deadlocked with the callbacks taking rows by primary key: the purge locks the index entry of the
// oldest live row (the first past its range), then that row's primary key, where a callback taking
// that same row locks its primary key, then its index entry; with one purge's range large enough
// that the planner scans the whole table, purges deadlocked each other the same way. The sign-in
// (or the callback) answered 503. Here sign-ins start and earlier ones come back at once, round
// after round, with expired rows there in some rounds: no call may fail, and every row saved is
// there afterwards. Run without any lock retry, so a single deadlock fails the test.
import crypto from 'node:crypto';
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { AUTH_REQUEST_TTL_MS, savePendingAuthRequest, takePendingAuthRequest } from '../../db/oauth-states.ts';
import { HANDOFF_TTL_MS, saveHandoff, takeHandoff } from '../../db/session-handoffs.ts';
import { INLINE_PURGE_BATCH } from '../../db/retention.ts';

const CALLERS = 16;
const ROUNDS = 200;
/** in every tenth round, half the callers' clocks are this far ahead (less than a hand-off's lifetime) */
const AHEAD_MS = 50_000;

let gw: TestGateway;
let userIds: number[] = [];
test.before(async () => {
  // more connections than statements at once, so the callers meet in the database, not the pool
  gw = await startGateway({ queue: 'memory', env: { DB_POOL_MAX: '40' } });
  userIds = [(await newAccount(gw)).userId, (await newAccount(gw)).userId];
});
test.after.always(async () => {
  await gw?.stop();
});

const hex = () => crypto.randomBytes(32).toString('hex');

test.serial('concurrent sign-ins and callbacks never fail on the purge of expired states and hand-offs, and every new row is kept', async (t) => {
  const db = gw.app.db;
  let base = Date.now();
  // saved and not yet taken, oldest first: callbacks come back in the order their sign-ins started
  let states: string[] = [];
  let handoffs: string[] = [];
  const failures: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    base += 1_000;
    const mixed = round % 10 === 9;
    if (mixed) {
      // abandoned rows: expired for every caller, or only for those whose clock is ahead
      const n = round % 20 === 9 ? 3 : 40;
      const expiry = (i: number) => base - 1_000 + Math.floor(i * (AHEAD_MS + 1_000) / n);
      await db('oauth_states').insert(Array.from({ length: n }, (_, i) => ({ state_hash: hex(), nonce: 'n', code_verifier: 'v', studio_id: i % 2 ? null : i, created_at: expiry(i) - AUTH_REQUEST_TTL_MS, expires_at: expiry(i) })));
      await db('session_handoffs').insert(Array.from({ length: n }, (_, i) => ({ code_hash: hex(), user_id: userIds[i % 2]!, studio_id: i + 1, expires_at: expiry(i) })));
    }
    const newStates = Array.from({ length: CALLERS }, hex);
    const newHandoffs = Array.from({ length: CALLERS }, hex);
    const takingStates = states.splice(0, CALLERS);
    const takingHandoffs = handoffs.splice(0, CALLERS);
    const calls: Array<Promise<unknown>> = [];
    for (let i = 0; i < CALLERS; i++) {
      // no caller's clock is a lifetime past another's: nothing saved in a round expires in it
      const now = base + i + (mixed && i % 2 === 1 ? AHEAD_MS : 0);
      calls.push(savePendingAuthRequest(db, newStates[i]!, { nonce: `n${i}`, codeVerifier: `v${i}`, studioId: i % 3 === 0 ? null : i, returnTo: i % 2 ? '/dashboard' : null }, now));
      calls.push(saveHandoff(db, newHandoffs[i]!, { userId: userIds[i % 2]!, studioId: i + 1 }, now));
      if (takingStates[i] !== undefined) calls.push(takePendingAuthRequest(db, takingStates[i]!, now));
      if (takingHandoffs[i] !== undefined) calls.push(takeHandoff(db, takingHandoffs[i]!, now));
    }
    for (const r of await Promise.allSettled(calls)) {
      if (r.status === 'rejected') failures.push(`round ${round}: ${String((r.reason as Error).message ?? r.reason)}`);
    }
    const savedStates = await db('oauth_states').whereIn('state_hash', newStates).pluck('state_hash');
    const savedHandoffs = await db('session_handoffs').whereIn('code_hash', newHandoffs).pluck('code_hash');
    if (savedStates.length !== CALLERS || savedHandoffs.length !== CALLERS) failures.push(`round ${round}: ${savedStates.length} states and ${savedHandoffs.length} hand-offs of ${CALLERS} saved`);
    states = [...states, ...newStates];
    handoffs = [...handoffs, ...newHandoffs];
  }
  t.deepEqual(failures, []);
});

test.serial('a new state or hand-off clears expired ones, a batch at a time, and keeps live ones; an expired one is still refused when taken', async (t) => {
  const db = gw.app.db;
  await db('oauth_states').delete();
  await db('session_handoffs').delete();
  const now = Date.now();
  const [expired, live, fresh] = [hex(), hex(), hex()];
  await db('oauth_states').insert([
    { state_hash: expired, nonce: 'n', code_verifier: 'v', created_at: now - AUTH_REQUEST_TTL_MS, expires_at: now },
    { state_hash: live, nonce: 'n', code_verifier: 'v', created_at: now, expires_at: now + 1 },
  ]);
  await savePendingAuthRequest(db, fresh, { nonce: 'n', codeVerifier: 'v', studioId: 7, returnTo: null }, now);
  t.deepEqual((await db('oauth_states').pluck('state_hash')).sort(), [live, fresh].sort());
  t.like(await takePendingAuthRequest(db, fresh, now + AUTH_REQUEST_TTL_MS - 1), { nonce: 'n', codeVerifier: 'v', studioId: 7 });
  t.is(await takePendingAuthRequest(db, live, now + 1), undefined, 'expired when taken');

  // a backlog goes a batch per new row (the retention job removes it too)
  await db('oauth_states').insert(Array.from({ length: INLINE_PURGE_BATCH + 5 }, (_, i) => ({ state_hash: hex(), nonce: 'n', code_verifier: 'v', created_at: now - AUTH_REQUEST_TTL_MS, expires_at: now - i })));
  await savePendingAuthRequest(db, hex(), { nonce: 'n', codeVerifier: 'v', studioId: null, returnTo: null }, now);
  t.is(await expiredLeft('oauth_states', now), 5);
  await savePendingAuthRequest(db, hex(), { nonce: 'n', codeVerifier: 'v', studioId: null, returnTo: null }, now);
  t.is(await expiredLeft('oauth_states', now), 0);

  const [oldCode, liveCode, newCode] = [hex(), hex(), hex()];
  await db('session_handoffs').insert([
    { code_hash: oldCode, user_id: userIds[0]!, studio_id: 1, expires_at: now },
    { code_hash: liveCode, user_id: userIds[0]!, studio_id: 1, expires_at: now + 1 },
  ]);
  await saveHandoff(db, newCode, { userId: userIds[1]!, studioId: 2 }, now);
  t.deepEqual((await db('session_handoffs').pluck('code_hash')).sort(), [liveCode, newCode].sort());
  t.deepEqual(await takeHandoff(db, newCode, now + HANDOFF_TTL_MS - 1), { userId: userIds[1]!, studioId: 2 });
  t.is(await takeHandoff(db, liveCode, now + 1), undefined, 'expired when taken');
});

async function expiredLeft(table: string, now: number): Promise<number> {
  return Number((await gw.app.db(table).where('expires_at', '<=', now).count({ n: '*' }).first())?.n);
}

test.serial('a purge that meets a locked expired row gives up on it, and the new row is kept', async (t) => {
  const db = gw.app.db;
  const now = Date.now();
  const [locked, fresh] = [hex(), hex()];
  await db('oauth_states').insert({ state_hash: locked, nonce: 'n', code_verifier: 'v', created_at: now - AUTH_REQUEST_TTL_MS, expires_at: now - 1 });
  // another statement holds the expired row (a callback taking it); the purge waits a second for it, not the server's 50
  const holder = await db.transaction();
  try {
    await holder('oauth_states').where({ state_hash: locked }).forUpdate().first();
    await db.transaction(async (trx) => {
      await trx.raw('SET SESSION innodb_lock_wait_timeout = 1');
      try {
        await savePendingAuthRequest(trx, fresh, { nonce: 'n', codeVerifier: 'v', studioId: null, returnTo: null }, now);
      } finally {
        await trx.raw('SET SESSION innodb_lock_wait_timeout = DEFAULT');
      }
    });
  } finally {
    await holder.rollback();
  }
  t.deepEqual((await db('oauth_states').whereIn('state_hash', [locked, fresh]).pluck('state_hash')).sort(), [locked, fresh].sort());
});
