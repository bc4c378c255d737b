// A lock conflict that outlasts withLockRetry is a 503 with a JSON detail, never a 500.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';

test('a submit whose transaction keeps deadlocking answers 503 after a few attempts', async (t) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  // A trigger makes every insert of a prediction fail as a deadlock victim does (errno 1213,
  // SQLSTATE 40001), through the real driver, so the submit transaction fails on every attempt.
  await gw.app.db.raw(`CREATE TRIGGER always_deadlock BEFORE INSERT ON predictions FOR EACH ROW
    SIGNAL SQLSTATE '40001' SET MYSQL_ERRNO = 1213, MESSAGE_TEXT = 'Deadlock found when trying to get lock; try restarting transaction'`);
  let attempts = 0;
  gw.app.db.on('query-error', (_err: unknown, q: { sql?: string }) => {
    if (q.sql?.startsWith('insert into `predictions`')) attempts++;
  });
  const res = await gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'busy' } });
  t.is(res.statusCode, 503, res.payload);
  const body = JSON.parse(res.payload) as { detail: unknown };
  t.is(typeof body.detail, 'string');
  t.false(String(body.detail).includes('Deadlock'), 'the driver message stays in the log');
  t.true(attempts > 1, 'retried before giving up');
  await gw.app.db.raw('DROP TRIGGER always_deadlock');
  const user = await gw.app.db('users').where({ id: acct.userId }).first();
  t.deepEqual([Number(user.balance), Number(user.held)], [10_000, 0]);
});

test('a cancel whose transaction keeps deadlocking is retried, then answers 503 and keeps the hold', async (t) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 10_000);
  const submitted = await gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'to cancel' } });
  t.is(submitted.statusCode, 200, submitted.payload);
  const id = (JSON.parse(submitted.payload) as { request_id: string }).request_id;
  const before = await gw.app.db('users').where({ id: acct.userId }).first();
  t.true(Number(before.held) > 0, 'the submit holds its price');
  // Every cancelling UPDATE fails as a deadlock victim does, through the real driver.
  await gw.app.db.raw(`CREATE TRIGGER cancel_deadlocks BEFORE UPDATE ON predictions FOR EACH ROW
    BEGIN IF NEW.status = 'cancelled' THEN
      SIGNAL SQLSTATE '40001' SET MYSQL_ERRNO = 1213, MESSAGE_TEXT = 'Deadlock found when trying to get lock; try restarting transaction';
    END IF; END`);
  let attempts = 0;
  gw.app.db.on('query-error', (_err: unknown, q: { sql?: string }) => {
    if (q.sql?.startsWith('update `predictions`')) attempts++;
  });
  const res = await gw.server.inject({ method: 'POST', url: `/app/cancel_prediction/${id}`, headers: { 'x-api-key': acct.liveKey } });
  t.is(res.statusCode, 503, res.payload);
  t.true(attempts > 1, `retried before giving up (${attempts} attempts)`);
  await gw.app.db.raw('DROP TRIGGER cancel_deadlocks');
  const after = await gw.app.db('users').where({ id: acct.userId }).first();
  t.deepEqual([Number(after.balance), Number(after.held)], [Number(before.balance), Number(before.held)], 'nothing released by the failed attempts');
  const row = await gw.app.db('predictions').where({ id }).first();
  t.not(row.status, 'cancelled');
  // and once the conflict is gone, the same cancel goes through
  const again = await gw.server.inject({ method: 'POST', url: `/app/cancel_prediction/${id}`, headers: { 'x-api-key': acct.liveKey } });
  t.is(again.statusCode, 200, again.payload);
  const released = await gw.app.db('users').where({ id: acct.userId }).first();
  t.deepEqual([Number(released.balance), Number(released.held)], [10_000, 0]);
});
