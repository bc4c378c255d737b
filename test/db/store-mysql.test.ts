// The store contract (test/db/store-contract.ts) on MySQL: the portable engine, run on the real
// MariaDB by gateways whose database instance answers as if it were MySQL (asIfMysql: no
// RETURNING, so the store opens its portable engine). What this does not cover is MySQL's own
// dialect and planner.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { secondMysqlDb, storeContract } from './store-contract.ts';

storeContract({
  name: 'mysql',
  gateway: (opts) => startGateway({ queue: 'memory', ...opts, db: 'mysql', asIfMysql: true }),
  secondDb: (gw) => secondMysqlDb(gw, true),
  conflicts: true,
});

test('mysql: the portable engine sends no RETURNING and no program, and carries no ticket', async (t) => {
  const gw = await startGateway({ queue: 'memory', db: 'mysql', asIfMysql: true });
  t.teardown(() => gw.stop());
  const sent: string[] = [];
  gw.app.db.on('query', (q: { sql: string }) => sent.push(q.sql));
  const acct = await newAccount(gw, 1000);
  const outcome = await gw.app.store.submit({ p: { id: 'x'.repeat(32), userId: acct.userId, apiKeyId: null, model: 'canvas-v1-fast-text-to-image', input: {}, price: 10, webhookUrl: null }, now: Date.now() });
  t.deepEqual(outcome, { accepted: true, balance: 990 });
  t.deepEqual(sent.filter((sql) => /\breturning\b|begin not atomic/i.test(sql)), []);
});
