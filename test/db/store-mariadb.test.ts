// The store contract (test/db/store-contract.ts) on MariaDB: the MariaDB engine (its programs,
// its ticket, its prepared statements). What only this engine shows is in
// test/db/store-mariadb-programs.test.ts.
import { startGateway } from '../helpers/gateway.ts';
import { secondMysqlDb, storeContract } from './store-contract.ts';

storeContract({
  name: 'mariadb',
  gateway: (opts) => startGateway({ queue: 'memory', ...opts, db: 'mysql' }),
  secondDb: (gw) => secondMysqlDb(gw),
  conflicts: true,
});
