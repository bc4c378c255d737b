// The retention job removes expired idempotency records (db/idempotency.ts
// deleteExpiredIdempotencyKeys) while requests claim keys. A key is used again once its record
// expired (the claim deletes that record and inserts a new one), so the removal checks the expiry
// again as it deletes. With that check in its WHERE, MariaDB's planner read the expiry index for a
// batch as large as the expired range (the usual hourly run), as a range: the DELETE locked the
// index entries, then the rows, and the entry of the first live record past the range. A claim
// deleting an expired record takes its row, then its entry: the two deadlocked on one record. The
// removal must go by primary key alone, locking only the records it removes.
import crypto from 'node:crypto';
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { deleteExpiredIdempotencyKeys } from '../../db/idempotency.ts';

const DAY = 24 * 3600 * 1000;

let gw: TestGateway;
let userId = 0;
test.before(async () => {
  gw = await startGateway({ queue: 'memory', db: 'mysql' });
  userId = (await newAccount(gw)).userId;
});
test.after.always(async () => {
  await gw?.stop();
});

const hex = () => crypto.randomBytes(32).toString('hex');
const record = (keyHash: string, expiresAt: number) => ({
  key_hash: keyHash, user_id: userId, operation_id: 'op', request_hash: hex(), state: 'done', response_status: 200, response_body: '{}', response_headers: '{}',
  created_at: expiresAt - DAY, expires_at: expiresAt,
});

test.serial('removing expired idempotency records locks only those records: a live record another request is changing does not hold it up', async (t) => {
  const db = gw.app.db;
  const now = Date.now();
  const expired = [hex(), hex(), hex()];
  const live = Array.from({ length: 40 }, hex);
  await db('idempotency_keys').insert([
    ...expired.map((k, i) => record(k, now - 2 * DAY - i)),
    // the first live record past the expired range: a takeover is renewing it
    ...live.map((k, i) => record(k, now + 1000 + i)),
  ]);
  const holder = await db.transaction();
  let removed = -1;
  try {
    await holder('idempotency_keys').where({ key_hash: live[0] }).update({ expires_at: now + DAY });
    await db.transaction(async (trx) => {
      // a second, not the server's 50: a removal that waits on the live record fails here
      await trx.raw('SET SESSION innodb_lock_wait_timeout = 1');
      try {
        removed = await deleteExpiredIdempotencyKeys(trx, now - DAY, 500);
      } finally {
        await trx.raw('SET SESSION innodb_lock_wait_timeout = DEFAULT');
      }
    });
  } finally {
    await holder.rollback();
  }
  t.is(removed, expired.length);
  t.deepEqual(await db('idempotency_keys').whereIn('key_hash', expired).pluck('key_hash'), []);
  t.is((await db('idempotency_keys').whereIn('key_hash', live).pluck('key_hash')).length, live.length);
});

/** Until a statement of this test's database waits for a lock (another transaction holds it). */
async function lockWaitSeen(): Promise<void> {
  const db = gw.app.db;
  const [[{ name }]] = await db.raw('SELECT DATABASE() AS name') as [[{ name: string }]];
  for (let i = 0; i < 500; i++) {
    const [rows] = await db.raw("SELECT 1 FROM information_schema.INNODB_TRX t JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id WHERE t.trx_state = 'LOCK WAIT' AND p.DB = ?", [name]) as [unknown[]];
    if (rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no statement waited for a lock');
}

test.serial('a request that uses an expired key again while the removal runs, deleting that record, does not deadlock with it: both go through', async (t) => {
  const db = gw.app.db;
  const now = Date.now();
  const expired = [hex(), hex(), hex()];
  await db('idempotency_keys').insert([...expired.map((k, i) => record(k, now - 2 * DAY + i)), ...Array.from({ length: 40 }, (_, i) => record(hex(), now + 1000 + i))]);
  // the claim of a request with the second key (db/idempotency.ts claimIdempotencyKey): its
  // DELETE of the expired record takes the row first, then the record's expiry index entry;
  // taken here in two steps, with the removal in between
  const claim = await db.transaction();
  let claimError: unknown;
  let removal: Promise<number | Error> | undefined;
  try {
    await claim('idempotency_keys').where({ key_hash: expired[1] }).forUpdate().first();
    removal = deleteExpiredIdempotencyKeys(db, now - DAY, 500).catch((err: unknown) => err as Error);
    await lockWaitSeen();
    await claim('idempotency_keys').where({ key_hash: expired[1] }).andWhere('expires_at', '<=', now).delete();
    await claim.commit();
  } catch (err) {
    claimError = err;
    await claim.rollback().catch(() => undefined);
  }
  const removed = await removal;
  t.is(claimError, undefined, `the claim: ${String((claimError as Error | undefined)?.message)}`);
  t.is(removed, 2, `the removal: ${String((removed as Error).message ?? removed)}`);
  t.deepEqual(await db('idempotency_keys').whereIn('key_hash', expired).pluck('key_hash'), []);
});
