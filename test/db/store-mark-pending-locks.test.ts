// The store's markPending (queued -> pending after the broker's confirms) locks only the rows it updates.
// Before, `WHERE id IN (…) AND status = 'queued'` was run as a range scan of the
// (status, created_at) index, whose next-key locks reach up to the supremum: a submit inserting
// a new `queued` row then waited on it, and with a worker's claim in the other order, deadlocked.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { newPredictionId } from '../../db/predictions/record.ts';
import { openStore } from '../../db/store/index.ts';
import type { Db } from '../../db/knex.ts';

test('while a confirm marker\'s transaction is open, another connection can still submit a request', async (t) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 100_000);
  const base = { userId: acct.userId, apiKeyId: null, model: 'canvas-v1-fast-text-to-image', input: { prompt: 'x' }, price: 0, webhookUrl: null };
  const now = Date.now();
  const ids: string[] = [];
  // A confirm batch large against the table is what the optimizer served with the status index.
  const rowsToInsert = [];
  for (let i = 0; i < 300; i++) {
    const id = newPredictionId(now - 1000 + i);
    ids.push(id);
    rowsToInsert.push({ id, user_id: acct.userId, model: base.model, status: 'queued', is_test: false, input: '{}', price: 0, created_at: now - 1000 + i, updated_at: now - 1000 + i });
  }
  await gw.app.db('predictions').insert(rowsToInsert);
  const trx = await gw.app.db.transaction();
  t.teardown(() => trx.rollback().catch(() => {}));
  // the store's marker, run inside a transaction that stays open
  await (await openStore(trx as unknown as Db)).markPending(ids.slice(0, 250), now);
  // A second connection, impatient: a lock wait is an error within a second.
  const other = await gw.app.db.client.acquireConnection();
  t.teardown(() => gw.app.db.client.releaseConnection(other));
  const run = (sql: string, bindings: unknown[] = []) => gw.app.db.raw(sql, bindings as never).connection(other);
  await run('SET SESSION innodb_lock_wait_timeout = 1');
  const id = newPredictionId(now + 10);
  await t.notThrowsAsync(run(
    "INSERT INTO predictions (id, user_id, model, status, is_test, input, price, created_at, updated_at) VALUES (?, ?, 'canvas-v1-fast-text-to-image', 'queued', 0, '{}', 0, ?, ?)",
    [id, acct.userId, now + 10, now + 10],
  ));
  await trx.commit();
  const rows = await gw.app.db('predictions').whereIn('id', ids.slice(0, 250)).select('status');
  t.deepEqual([...new Set(rows.map((r) => r.status))], ['pending']);
});
